//===- TileCPUPass.cpp - The tiletune-tile-cpu pass -----------------------===//
//
// Walks the tunable ops of a function and applies their CPU configs through
// tileAndVectorizeForCPU. Reports ops it cannot handle; never mutates an op
// whose preconditions fail.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tiletune-tile-cpu"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNETILECPU
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct TileCPUPass : public tiletune::impl::TileTuneTileCPUBase<TileCPUPass> {
  using TileTuneTileCPUBase::TileTuneTileCPUBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool anyError = false;

    // Classify ops first; tiling one op rewrites the function, so ops with a
    // config are re-collected after each one.
    func.walk([&](Operation *op) {
      if (getConfig(op))
        return;
      std::string reason;
      bool tunable = succeeded(matchTunableOp(op, &reason));
      if (!tunable)
        return;
      if (requireConfig) {
        op->emitError("tunable op has no tiletune.config (require-config is "
                      "set)");
        anyError = true;
      } else if (emitRemarks) {
        op->emitRemark("left untouched: no tiletune.config");
      }
    });

    llvm::DenseSet<Operation *> skipped;
    IRRewriter rewriter(&getContext());
    while (true) {
      Operation *next = nullptr;
      func.walk([&](Operation *op) {
        if (!next && getConfig(op) && !skipped.contains(op))
          next = op;
      });
      if (!next)
        break;
      TileConfigAttr config = getConfig(next);
      if (config.getTarget() != kTargetCPU) {
        if (emitRemarks)
          next->emitRemark() << "left untouched: the config targets '"
                             << config.getTarget() << "'";
        skipped.insert(next);
        continue;
      }
      std::string reason;
      // Op-level rewrites of the config first (each returns the op to tile).
      bool rewritten = true;
      for (auto rewrite : {convertLayoutToConfig, padToConfig}) {
        FailureOr<Operation *> result = rewrite(rewriter, next, &reason);
        if (failed(result)) {
          next->emitError() << "cannot apply tiletune.config: " << reason;
          anyError = true;
          skipped.insert(next);
          rewritten = false;
          break;
        }
        next = *result;
      }
      if (!rewritten)
        continue;
      config = getConfig(next);
      FailureOr<CPUSchedule> schedule =
          decodeCPUSchedule(next, config, &reason);
      if (succeeded(schedule))
        (void)checkCPUTilingPreconditions(next, *schedule, &reason);
      if (failed(schedule) ||
          failed(checkCPUTilingPreconditions(next, *schedule))) {
        next->emitError() << "cannot apply tiletune.config: " << reason;
        anyError = true;
        skipped.insert(next);
        continue;
      }
      rewriter.setInsertionPoint(next);
      Location loc = next->getLoc();
      FailureOr<CPUTilingResult> result =
          tileAndVectorizeForCPU(rewriter, next, *schedule);
      if (failed(result)) {
        emitError(loc) << "tiling by tiletune.config failed";
        anyError = true;
        return signalPassFailure();
      }
      if (emitRemarks && schedule->vectorize && !result->vectorized)
        emitRemark(loc) << "register tile left scalar: vectorization failed";
    }
    if (anyError)
      signalPassFailure();
  }
};
} // namespace
