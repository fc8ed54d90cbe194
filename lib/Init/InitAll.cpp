//===- InitAll.cpp - Registration of everything TileTune uses -------------===//
//
// Definitions of the registration entry points declared in InitAll.h.
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"

#include "tiletune/Dialect/TileTuneDialect.h"
#include "tiletune/GPU/Passes.h"
#include "tiletune/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

void tiletune::registerAllTileTuneDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // Translations to LLVM IR, GPU ones included: the JIT and the NVVM
  // serialization of gpu.module need them.
  registerAllToLLVMIRTranslations(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  registerTileTuneDialect(registry);
}

void tiletune::registerTileTuneDialect(DialectRegistry &registry) {
  registry.insert<TileTuneDialect>();
}

void tiletune::registerAllTileTunePasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerAllPasses();
  registerTileTuneCompilerPasses();
}

void tiletune::registerTileTuneCompilerPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerTileTuneTransformsPasses();
  registerTileTuneGPUPasses();
}

void tiletune::initializeContext(MLIRContext &context) {
  DialectRegistry registry;
  registerAllTileTuneDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}
