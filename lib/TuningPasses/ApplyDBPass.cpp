//===- ApplyDBPass.cpp - tiletune-apply-db --------------------------------===//
//
// Thin pass over applyDatabase: opens the database read-only, sets the best
// configs recorded for this machine's CPU on the module's ops and reports
// what it applied and, for the ops it did not, why (emitApplyRemarks).
//
//===----------------------------------------------------------------------===//

#include "tiletune/TuningPasses/Passes.h"

#include "tiletune/Driver/Driver.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEAPPLYDB
#include "tiletune/TuningPasses/Passes.h.inc"
} // namespace mlir::tiletune

#define DEBUG_TYPE "tiletune-apply-db"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

struct ApplyDBPass
    : public mlir::tiletune::impl::TileTuneApplyDBBase<ApplyDBPass> {
  using TileTuneApplyDBBase::TileTuneApplyDBBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Errors are emitted at the module's location, not on the module op: an
    // op diagnostic would attach the whole module as a note.
    if (llvm::Error err =
            checkThreadCount(threads, "tiletune-apply-db threads")) {
      emitError(module.getLoc()) << toString(std::move(err));
      return signalPassFailure();
    }
    llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
        openTuningDatabase(database, OpenMode::ReadOnly);
    if (!db) {
      emitError(module.getLoc()) << toString(db.takeError());
      return signalPassFailure();
    }
    TargetInfo target = getCPUTarget(threads);
    llvm::Expected<ApplyStats> stats =
        applyDatabase(module, **db, target, overrideConfigs);
    if (!stats) {
      emitError(module.getLoc()) << toString(stats.takeError());
      return signalPassFailure();
    }
    emitApplyRemarks(module, *stats, target, "tiletune-apply-db");
  }
};

} // namespace
