//===- InitAll.cpp - Registration of everything TileTune uses -------------===//
//
// Definitions of the registration entry points declared in InitAll.h.
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"

#include "tiletune/Dialect/TileTuneDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#ifdef HAVE_TILETUNETRANSFORMS
#include "tiletune/Transforms/Passes.h"
#endif
#ifdef HAVE_TILETUNEGPU
#include "tiletune/GPU/Passes.h"
#endif

using namespace mlir;

void tiletune::registerAllTileTuneDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // Translations to LLVM IR, GPU ones included: the JIT and the NVVM
  // serialization of gpu.module need them.
  registerAllToLLVMIRTranslations(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<TileTuneDialect>();
}

void tiletune::registerAllTileTunePasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerAllPasses();
#ifdef HAVE_TILETUNETRANSFORMS
  registerTileTuneTransformsPasses();
#endif
#ifdef HAVE_TILETUNEGPU
  registerTileTuneGPUPasses();
#endif
}

void tiletune::initializeContext(MLIRContext &context) {
  DialectRegistry registry;
  registerAllTileTuneDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}
