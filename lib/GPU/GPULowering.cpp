//===- GPULowering.cpp - Lower tiled GPU kernels to NVVM/PTX --------------===//
//
// Builds the `tiletune-lower-gpu` pipeline from upstream passes and reads
// the PTX back out of the gpu.binary it produces.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPULowering.h"

#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/GPU/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::tiletune;

/// Lowest PTX ISA version (times 10) that supports `chip`, 0 if unknown.
static int minimumPTXVersion(StringRef chip) {
  return llvm::StringSwitch<int>(chip)
      .Case("sm_70", 60)
      .Case("sm_72", 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Case("sm_89", 78)
      .Case("sm_90", 78)
      .Case("sm_90a", 80)
      .Default(0);
}

std::string mlir::tiletune::getDefaultPTXFeatures(StringRef chip) {
  (void)chip;
  return "+ptx80";
}

LogicalResult
mlir::tiletune::validateGPULoweringOptions(const GPULoweringOptions &options,
                                           std::string *reason) {
  auto fail = [&](const Twine &why) {
    if (reason)
      *reason = why.str();
    return failure();
  };
  int minimum = minimumPTXVersion(options.chip);
  if (!minimum)
    return fail("unsupported GPU chip '" + options.chip +
                "' (supported: sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, "
                "sm_89, sm_90, sm_90a)");
  std::string features = options.features.empty()
                             ? getDefaultPTXFeatures(options.chip)
                             : options.features;
  StringRef ptx(features);
  unsigned version = 0;
  if (!ptx.consume_front("+ptx") || ptx.getAsInteger(10, version))
    return fail("features must be '+ptxNN' (e.g. +ptx80), got '" + features +
                "'");
  if (static_cast<int>(version) < minimum)
    return fail("PTX ISA " + Twine(version / 10) + "." + Twine(version % 10) +
                " does not support " + options.chip + " (needs +ptx" +
                Twine(minimum) + " or later)");
  if (version > 88)
    return fail("PTX ISA +ptx" + Twine(version) +
                " is newer than LLVM 22's NVPTX backend supports (+ptx88)");
  if (options.format != "isa" && options.format != "bin" &&
      options.format != "fatbin")
    return fail("unknown binary format '" + options.format +
                "' (expected isa, bin or fatbin)");
  if (options.optLevel > 3)
    return fail("opt-level must be 0-3");
  return success();
}

void mlir::tiletune::buildGPULoweringPipeline(
    OpPassManager &pm, const GPULoweringOptions &options) {
  TileTuneGPUCheckOptions check;
  check.chip = options.chip;
  check.features = options.features;
  check.format = options.format;
  pm.addPass(createTileTuneGPUCheck(check));
  std::string reason;
  if (failed(validateGPULoweringOptions(options, &reason)))
    return; // The check pass reports the reason and fails.

  if (options.bufferize) {
    bufferization::OneShotBufferizePassOptions bufferize;
    bufferize.bufferizeFunctionBoundaries = true;
    bufferize.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
    pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createTileTuneTileGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());

  // Constants and index computations the canonicalizer hoisted out of the
  // launches go back in, so that kernels do not take them as arguments.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features.empty()
                           ? getDefaultPTXFeatures(options.chip)
                           : options.features;
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

llvm::Error mlir::tiletune::lowerToGPUBinary(ModuleOp module,
                                             const GPULoweringOptions &options) {
  DiagnosticCapture diagnostics(module.getContext(),
                                DiagnosticCapture::Kinds::All);
  PassManager pm(module.getContext());
  buildGPULoweringPipeline(pm, options);
  if (failed(pm.run(module)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "GPU lowering failed:\n" +
                                       diagnostics.text());
  return llvm::Error::success();
}

llvm::Expected<SmallVector<std::string>>
mlir::tiletune::extractPTX(ModuleOp module) {
  SmallVector<std::string> ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptx.push_back(object.getObject().getValue().str());
    }
  });
  if (ptx.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no PTX in the module: lower with format \"isa\" to keep it");
  return ptx;
}
