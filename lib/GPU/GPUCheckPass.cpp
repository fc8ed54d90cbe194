//===- GPUCheckPass.cpp - The tiletune-gpu-check pass ---------------------===//
//
// Fails early, with a clear error, on a GPU target the NVPTX backend would
// abort on and on cuda configs whose plan (planGPUKernel) is invalid or
// exceeds the GPU's limits (checkGPULimits). Changes no IR.
//
//===----------------------------------------------------------------------===//

#include "PassDetail.h"

#include "tiletune/GPU/GPUKernelPlan.h"
#include "tiletune/GPU/GPULowering.h"
#include "tiletune/GPU/Passes.h"

#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#define DEBUG_TYPE "tiletune-gpu-check"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEGPUCHECK
#include "tiletune/GPU/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct GPUCheckPass : tiletune::impl::TileTuneGPUCheckBase<GPUCheckPass> {
  using TileTuneGPUCheckBase::TileTuneGPUCheckBase;

  /// The rest of the pipeline serializes gpu.module ops to PTX/cubin: that
  /// needs the LLVM IR translations of the GPU, NVVM and LLVM dialects and
  /// the NVVM target attribute's serializer, which an opt tool does not
  /// necessarily register.
  void getDependentDialects(DialectRegistry &registry) const override {
    TileTuneGPUCheckBase::getDependentDialects(registry);
    registerAllGPUToLLVMIRTranslations(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    GPULoweringOptions lowering;
    lowering.chip = chip;
    lowering.features = features;
    lowering.format = format;
    std::string reason;
    if (failed(validateGPULoweringOptions(lowering, &reason))) {
      emitError(getOperation().getLoc(), "invalid GPU target: ") << reason;
      return signalPassFailure();
    }
    bool failedAny = false;
    for (Operation *op :
         tiletune::detail::collectCudaOps(getOperation(), DEBUG_TYPE)) {
      FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
      if (failed(plan) || failed(checkGPULimits(*plan, GPULimits(), &reason))) {
        op->emitError("illegal cuda config: ") << reason;
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
