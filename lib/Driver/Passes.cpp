//===- Passes.cpp - tiletune-apply-db and tiletune-autotune ---------------===//
//
// Thin passes over the driver: options are mapped onto applyDatabase and
// tuneModule.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Passes.h"

#include "tiletune/Driver/Driver.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEAPPLYDB
#define GEN_PASS_DEF_TILETUNEAUTOTUNE
#include "tiletune/Driver/Passes.h.inc"
} // namespace mlir::tiletune

#define DEBUG_TYPE "tiletune-apply-db"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

struct ApplyDBPass : public mlir::tiletune::impl::TileTuneApplyDBBase<ApplyDBPass> {
  using TileTuneApplyDBBase::TileTuneApplyDBBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string path = database.empty() ? getDefaultDatabasePath() : database;
    if (!llvm::sys::fs::exists(path)) {
      module.emitError() << "tuning database '" << path << "' does not exist";
      return signalPassFailure();
    }
    llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
        TileTuneDatabase::open(path, OpenMode::ReadOnly);
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

struct AutotunePass : public mlir::tiletune::impl::TileTuneAutotuneBase<AutotunePass> {
  using TileTuneAutotuneBase::TileTuneAutotuneBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TuneOptions options;
    options.algorithm = algorithm;
    options.trials = trials;
    options.seconds = seconds;
    options.seed = seed;
    options.threads = threads;
    options.pairedTiming = paired;
    options.databasePath = database;
    options.progress = nullptr;
    llvm::Expected<std::vector<ProblemOutcome>> outcomes =
        tuneModule(module, options);
    if (!outcomes) {
      module.emitError() << toString(outcomes.takeError());
      return signalPassFailure();
    }
  }
};

} // namespace
