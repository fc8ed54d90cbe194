//===- AutotunePass.cpp - tiletune-autotune -------------------------------===//
//
// Thin pass over tuneModule: the pass options are mapped onto TuneOptions
// (whose defaults the options take, see Passes.td) and every tunable op of
// the module is tuned, recorded and annotated.
//
//===----------------------------------------------------------------------===//

#include "tiletune/TuningPasses/Passes.h"

#include "tiletune/Driver/Driver.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEAUTOTUNE
#include "tiletune/TuningPasses/Passes.h.inc"
} // namespace mlir::tiletune

#define DEBUG_TYPE "tiletune-autotune"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

struct AutotunePass
    : public mlir::tiletune::impl::TileTuneAutotuneBase<AutotunePass> {
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
    options.weights = weights;
    options.databasePath = database;
    llvm::Expected<std::vector<ProblemOutcome>> outcomes =
        tuneModule(module, options);
    if (!outcomes) {
      // At the module's location, not on the module op (whose diagnostic
      // would attach the whole module as a note).
      emitError(module.getLoc()) << toString(outcomes.takeError());
      return signalPassFailure();
    }
    // Every measurement of a problem failed: not a silent success.
    if (llvm::Error err = checkProblemsTuned(*outcomes)) {
      emitError(module.getLoc()) << toString(std::move(err));
      return signalPassFailure();
    }
  }
};

} // namespace
