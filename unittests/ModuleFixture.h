//===- ModuleFixture.h - A module of two problems in a context --*- C++ -*-===//
//
// The fixture shared by the Problem and Driver unit tests: a context with
// every dialect registered (initializeContext) and the native target
// initialized, and a parsed module holding a matmul used twice on tensors
// (one problem, two ops) and a strided conv_2d_nhwc_hwcf on memrefs.
// Header-only; derive a suite's fixture from ModuleFixture.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_UNITTESTS_MODULEFIXTURE_H
#define TILETUNE_UNITTESTS_MODULEFIXTURE_H

#include "tiletune/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

namespace mlir::tiletune {

inline constexpr const char *kModule = R"mlir(
func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x12xf32>,
             %c: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x12xf32>)
                     outs(%c : tensor<8x12xf32>) -> tensor<8x12xf32>
  %s = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x12xf32>)
                     outs(%r : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %s : tensor<8x12xf32>
}
func.func @g(%i: memref<2x7x7x3xf32>, %f: memref<3x3x3x4xf32>,
             %o: memref<2x3x3x4xf32>) {
  linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %f : memref<2x7x7x3xf32>, memref<3x3x3x4xf32>)
      outs(%o : memref<2x3x3x4xf32>)
  return
}
)mlir";

class ModuleFixture : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    initializeContext(ctx);
    module = parseSourceString<ModuleOp>(kModule, &ctx);
    ASSERT_TRUE(module);
  }
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  OwningOpRef<ModuleOp> module;
};

} // namespace mlir::tiletune

#endif // TILETUNE_UNITTESTS_MODULEFIXTURE_H
