//===- ConfigAttrFuzzer.cpp - libFuzzer target: #tiletune.config ----------===//
//
// Input: the text of a `tiletune.config` attribute. The first byte picks the
// op it is attached to (a matmul, batch_matmul or conv of any op kind,
// transposed and grouped forms included, on tensors or memrefs); the rest
// is the attribute. The module is parsed and verified
// (the attribute's own verifier and the dialect's check of the config
// against the op). A config that verifies must print and parse back to the
// same attribute. Any crash, sanitizer report or failed round trip is a bug.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Dialect/TileTuneDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// Op templates: "@CONFIG@" is replaced by the fuzzed attribute text.
const char *const kTemplates[] = {
    R"mlir(func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = linalg.matmul {tiletune.config = @CONFIG@} ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
})mlir",
    R"mlir(func.func @f(%a: memref<13x7xf32>, %b: memref<7x5xf32>, %c: memref<13x5xf32>) {
  linalg.matmul {tiletune.config = @CONFIG@} ins(%a, %b : memref<13x7xf32>, memref<7x5xf32>) outs(%c : memref<13x5xf32>)
  return
})mlir",
    R"mlir(func.func @f(%a: tensor<4x16x8xf32>, %b: tensor<4x8x32xf32>, %c: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %0 = linalg.batch_matmul {tiletune.config = @CONFIG@} ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x32xf32>) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
})mlir",
    R"mlir(func.func @f(%i: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = @CONFIG@, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
})mlir",
    R"mlir(func.func @f(%i: tensor<2x3x9x9xf32>, %w: tensor<4x3x2x2xf32>, %o: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = @CONFIG@, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<2x3x9x9xf32>, tensor<4x3x2x2xf32>) outs(%o : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
})mlir",
    // The layout and transpose forms (after the plain ops, so that the
    // corpus keeps its templates).
    R"mlir(func.func @f(%a: tensor<64x32xf32>, %b: tensor<48x32xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = @CONFIG@} ins(%a, %b : tensor<64x32xf32>, tensor<48x32xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
})mlir",
    R"mlir(func.func @f(%a: memref<7x13xf32>, %b: memref<7x5xf32>, %c: memref<13x5xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = @CONFIG@} ins(%a, %b : memref<7x13xf32>, memref<7x5xf32>) outs(%c : memref<13x5xf32>)
  return
})mlir",
    R"mlir(func.func @f(%a: tensor<4x8x16xf32>, %b: tensor<4x32x8xf32>, %c: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = @CONFIG@} ins(%a, %b : tensor<4x8x16xf32>, tensor<4x32x8xf32>) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
})mlir",
    R"mlir(func.func @f(%i: tensor<1x10x10x3xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = @CONFIG@, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x10x10x3xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
})mlir",
    R"mlir(func.func @f(%i: tensor<2x2x3x9x9xf32>, %w: tensor<4x2x3x2x2xf32>, %o: tensor<2x2x4x8x8xf32>) -> tensor<2x2x4x8x8xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw {tiletune.config = @CONFIG@, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<2x2x3x9x9xf32>, tensor<4x2x3x2x2xf32>) outs(%o : tensor<2x2x4x8x8xf32>) -> tensor<2x2x4x8x8xf32>
  return %0 : tensor<2x2x4x8x8xf32>
})mlir",
    R"mlir(func.func @f(%i: memref<1x9x9x4x2xf32>, %w: memref<4x3x3x3x2xf32>, %o: memref<1x4x7x4x3xf32>) {
  linalg.conv_2d_nhwgc_gfhwc {tiletune.config = @CONFIG@, dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%i, %w : memref<1x9x9x4x2xf32>, memref<4x3x3x3x2xf32>) outs(%o : memref<1x4x7x4x3xf32>)
  return
})mlir",
};

MLIRContext &getContext() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    linalg::LinalgDialect, memref::MemRefDialect,
                    tensor::TensorDialect, tiletune::TileTuneDialect>();
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096)
    return 0;
  const size_t numTemplates = sizeof(kTemplates) / sizeof(kTemplates[0]);
  std::string text(kTemplates[data[0] % numTemplates]);
  llvm::StringRef attrText(reinterpret_cast<const char *>(data) + 1, size - 1);
  size_t at = text.find("@CONFIG@");
  text.replace(at, 8, attrText.str());

  MLIRContext &ctx = getContext();
  // Errors of bad input are expected; only crashes are findings.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || failed(verify(*module)))
    return 0;

  // A verified config prints and parses back to the same attribute.
  module->walk([&](Operation *op) {
    Attribute attr = op->getAttr(tiletune::kConfigAttrName);
    if (!attr)
      return;
    std::string printed;
    llvm::raw_string_ostream os(printed);
    attr.print(os);
    Attribute reparsed = parseAttribute(printed, &ctx);
    if (reparsed != attr) {
      llvm::errs() << "round trip failed: '" << printed << "'\n";
      std::abort();
    }
  });
  return 0;
}
