//===- DefaultGPUConfigPass.cpp - The tiletune-default-gpu-config pass ----===//
//
// Attaches computeDefaultCUDAConfig's config to every tunable op that has no
// config (every tunable op with `overwrite`). Ops that keep their config are
// left out by forEachOpToConfigure.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPUKernelPlan.h"
#include "tiletune/GPU/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-default-gpu-config"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEDEFAULTGPUCONFIG
#include "tiletune/GPU/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct DefaultGPUConfigPass
    : tiletune::impl::TileTuneDefaultGPUConfigBase<DefaultGPUConfigPass> {
  using TileTuneDefaultGPUConfigBase::TileTuneDefaultGPUConfigBase;

  void runOnOperation() override {
    bool anyError = false;
    forEachOpToConfigure(
        getOperation(), overwrite, getArgument(),
        [&](Operation *op, const TunableOp &t) {
          if (std::optional<std::string> why =
                  getGPUUnsupportedReason(t)) {
            op->emitError() << getArgument() << ": " << *why;
            anyError = true;
            return;
          }
          TileConfigAttr config = computeDefaultCUDAConfig(&getContext(), t);
          LLVM_DEBUG(llvm::dbgs()
                     << "default config of " << op->getName() << " at "
                     << op->getLoc() << ": " << config << "\n");
          setConfig(op, config);
        });
    if (anyError)
      signalPassFailure();
  }
};
} // namespace
