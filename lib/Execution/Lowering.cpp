//===- Lowering.cpp - Running textual pass pipelines ----------------------===//
//
// Pipeline parsing/running with diagnostics captured into llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/Lowering.h"
#include "tiletune/Dialect/Diagnostics.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tiletune;

llvm::StringRef mlir::tiletune::getUntiledLoweringPipeline() {
  // The deallocation pipeline (bufferization::buildBufferDeallocationPipeline,
  // as in tiletune-lower-cpu) frees what bufferization
  // allocated (tensor.pad results, copies of read-only operands); without
  // them every call of such a kernel leaked its buffers. They run after
  // convert-linalg-to-loops so that a pass inserted before the loops (e.g.
  // buffer-results-to-out-params) still sees its buffers freed.
  return "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "convert-linalg-to-loops,"
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,"
         "expand-strided-metadata,"
         "lower-affine,"
         "convert-scf-to-cf,"
         "finalize-memref-to-llvm,"
         "convert-to-llvm,"
         "reconcile-unrealized-casts";
}

void mlir::tiletune::registerUpstreamPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Another entry point (e.g. TileTune's InitAll) may have registered them
    // already; registering twice is an error in builds with assertions.
    if (!PassInfo::lookup("convert-linalg-to-loops"))
      mlir::registerAllPasses();
  });
}

llvm::Error mlir::tiletune::runPassPipeline(ModuleOp module,
                                            llvm::StringRef pipeline) {
  pipeline = pipeline.trim();
  if (pipeline.empty())
    return llvm::Error::success();
  // A module pass manager nests "builtin.module(...)" one level deeper,
  // where no module exists, so it would run nothing: unwrap it.
  if (pipeline.consume_front("builtin.module(")) {
    if (!pipeline.consume_back(")"))
      return llvm::createStringError(
          "malformed pipeline: 'builtin.module(' without a closing ')'");
    pipeline = pipeline.trim();
  }
  registerUpstreamPasses();

  MLIRContext *context = module.getContext();
  PassManager pm(context, ModuleOp::getOperationName());
  std::string parseErrors;
  llvm::raw_string_ostream parseOS(parseErrors);
  if (failed(parsePassPipeline(pipeline, pm, parseOS)))
    return llvm::createStringError("cannot parse the pass pipeline '" +
                                   pipeline.str() + "': " +
                                   llvm::StringRef(parseErrors).trim().str());

  DiagnosticCapture diagnostics(context);
  if (failed(pm.run(module)))
    return llvm::createStringError(
        "the pass pipeline failed" +
        (diagnostics.empty() ? std::string() : ":\n" + diagnostics.text()));
  return llvm::Error::success();
}
