//===- ApplyDBPass.cpp - tiletune-apply-db --------------------------------===//
//
// Thin pass over applyDatabase: opens the database read-only and sets the
// best configs recorded for this machine's CPU on the module's ops.
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
    if (llvm::Error err =
            checkThreadCount(threads, "tiletune-apply-db threads")) {
      module.emitError() << toString(std::move(err));
      return signalPassFailure();
    }
    llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
        openTuningDatabase(database, OpenMode::ReadOnly);
    if (!db) {
      module.emitError() << toString(db.takeError());
      return signalPassFailure();
    }
    llvm::Expected<ApplyStats> stats = applyDatabase(
        module, **db, getCPUTarget(threads), overrideConfigs);
    if (!stats) {
      module.emitError() << toString(stats.takeError());
      return signalPassFailure();
    }
  }
};

} // namespace
