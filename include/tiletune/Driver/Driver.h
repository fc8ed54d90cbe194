//===- Driver.h - Tuning whole modules, applying and reporting --*- C++ -*-===//
//
// The flows behind the `tiletune` CLI, the tuning passes and the Python
// bindings: tune every unique tunable op of a module (TuneModule.cpp: space
// per problem, strategy by name, the generic Tuner over the target's
// measurer, results in the database, best configs written back onto the
// ops), apply the best configs of a database to a module (Apply.cpp), and
// print spaces and reports (Report.cpp). Options: TuneOptions.h; spaces and
// default configs: TuningSpace.h; GPU-only flows: GPUDriver.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_DRIVER_H
#define TILETUNE_DRIVER_DRIVER_H

#include "tiletune/Database/Database.h"
#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Driver/TuneOptions.h"
#include "tiletune/Driver/TuningSpace.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Tuner/Tuner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tiletune {

/// What tuning one problem gave.
struct ProblemOutcome {
  Problem problem;
  /// Number of ops of the module with this problem.
  unsigned numOps = 0;
  TuneResult result;
  /// The winner as attribute text (empty when nothing was Ok).
  std::string bestAttr;
  /// The winner as set on the ops (null when nothing was Ok).
  TileConfigAttr bestConfig;
};

/// Tunes every unique tunable op of `module` and sets the best config found
/// on each of them. Problems in the module are reported as diagnostics on
/// the ops and as an error; database and measurer failures as errors.
llvm::Expected<std::vector<ProblemOutcome>>
tuneModule(ModuleOp module, const TuneOptions &options);

/// Ops of a model that a budgeted run does not tune, by op name.
struct SkippedOps {
  std::string opName;
  unsigned count = 0;
  /// Their floating-point operations per model call (sum over the ops whose
  /// loop sizes are static), and whether every op's count was known.
  double flops = 0;
  bool countable = true;
  /// Why (e.g. "not a tunable op family", or extractProblem's reason).
  std::string reason;
};

/// What a whole-model run under a time budget gave.
struct ModelOutcome {
  /// One entry per problem that got at least one measurement, in module
  /// order (with the final result of its run).
  std::vector<ProblemOutcome> problems;
  /// Problems the budget left without any measurement (their ops keep what
  /// they had).
  std::vector<Problem> untuned;
  /// Ops that were not tuned, and the model's countable FLOPs per call.
  std::vector<SkippedOps> skipped;
  double modelFlops = 0;
  /// The model's end-to-end time per call (the entry function, lowered whole
  /// with its configs, JIT-compiled and run on seeded inputs) before and
  /// after tuning, measured in alternation at the end (measureModelsPaired;
  /// the untuned model is also measured, and printed, at the start); unset
  /// when it could not be measured (endToEndError).
  std::optional<TimeStats> before, after;
  /// Per sample of the tuned model, its time over the mean of the untuned
  /// model's samples taken just before and after it: its median < 1 means
  /// the tuned model ran faster. Set with `before` and `after`.
  std::optional<TimeStats> ratio;
  /// The tuned configs ran slower end to end than the configs the ops had
  /// before tuning (the median ratio above 1, confirmed by a second paired
  /// run): the module keeps its previous configs (the default configs on
  /// ops that had none). `before`, `after` and `ratio` are the confirming
  /// run's; the database keeps every per-problem result.
  bool keptPrevious = false;
  std::string entry;
  std::string endToEndError;
  /// Scheduler rounds run (warm-up included) and the run's wall time.
  unsigned rounds = 0;
  double elapsedSeconds = 0;
  /// Stopped by the stop flag or the callback (resumable).
  bool stopped = false;
};

/// Tunes every distinct tunable op of `module` within
/// `options.timeBudgetSeconds` (which must be > 0), handing rounds of trials
/// to the op whose tuning is expected to lower the model's time the most
/// (TaskScheduler), and measures the whole model before and after. Ops it
/// cannot tune are listed, not errors. Resumable per problem like
/// tuneModule (options.resume). See docs/Tuning.md ("Whole-model tuning
/// under a time budget").
llvm::Expected<ModelOutcome> tuneModel(ModuleOp module,
                                       const TuneOptions &options);

/// Measures the end-to-end time per call of `module`'s entry function (the
/// only public function with a body): a clone is lowered by the CPU lowering
/// pipeline (ops without a config get the default config), JIT-compiled and
/// timed on inputs seeded as tiletune-run seeds them, with `options`'
/// threads, seed and timing. `entry` receives the function's name.
llvm::Expected<TimeStats> measureModelEndToEnd(ModuleOp module,
                                               const TuneOptions &options,
                                               std::string *entry = nullptr);

/// Measures `subject` and `reference` (two versions of one model, e.g.
/// tuned and untuned) end to end as measureModelEndToEnd does, in
/// alternation (measurePaired: reference, subject, reference, ..., with
/// every one of `options.timing.repeats` samples, no early stop): a machine
/// whose speed drifts during the run moves both, and each subject sample's
/// ratio to the reference samples around it cancels most of that.
llvm::Expected<PairedTimeStats> measureModelsPaired(ModuleOp subject,
                                                    ModuleOp reference,
                                                    const TuneOptions &options);

/// Prints a model run: the per-problem table (printOutcomes), the skipped
/// ops and the end-to-end times before and after.
void printModelOutcome(const ModelOutcome &outcome, llvm::StringRef algorithm,
                       llvm::raw_ostream &os);

/// tuneModule() over the problems of `set` (collectProblems()'s, or one
/// op's): validates `options`, then builds every problem's space (with
/// `options.fixed`), default config and strategy (with
/// `options.strategyOptions`) before the first measurement, so that a bad
/// pin or strategy option of any problem fails before anything is measured
/// or recorded; then tunes them in order.
llvm::Expected<std::vector<ProblemOutcome>>
tuneProblems(MLIRContext *ctx, const ProblemSet &set,
             const TuneOptions &options);

/// Statistics of applyDatabase().
struct ApplyStats {
  unsigned applied = 0;
  unsigned kept = 0;
  unsigned missing = 0;
  /// An op that got no config because `db` has no result for it on the
  /// target, and why (e.g. "the database has matmul/f32/m=16,n=24,k=32 only
  /// at 1 thread (this compile: 7 threads)").
  struct MissingOp {
    Operation *op;
    std::string reason;
  };
  /// The `missing` ops, in walk order.
  llvm::SmallVector<MissingOp> missingOps;
};

/// Sets the best config recorded in `db` for this `target` on every tunable
/// op of `module`. Ops without a result are left alone (and listed with the
/// reason in the stats); ops with a config keep it unless `overrideConfigs`.
/// There is no fallback to the default config: a config set by this
/// function is always a measured result (docs/Passes.md).
llvm::Expected<ApplyStats> applyDatabase(ModuleOp module,
                                         TileTuneDatabase &db,
                                         const TargetInfo &target,
                                         bool overrideConfigs);

/// Reports `stats` as diagnostics: a remark on every op without a result
/// saying why, and (with `withSummary`) one summary remark at the module's
/// location naming `target`. `what` starts each, e.g. "tiletune-apply-db".
void emitApplyRemarks(ModuleOp module, const ApplyStats &stats,
                      const TargetInfo &target, llvm::StringRef what,
                      bool withSummary = true);

/// Without a GPU: for each unique cuda problem of `module`, ranks
/// `options.trials` configs (the default config first, then uniform draws
/// seeded by `options.seed`, `options.fixed` applied) by the ptxas legality
/// filter and occupancy for `chip`, prints the `show` best to `os` and sets
/// the best legal config on the ops. Nothing is run, timed or recorded.
/// (The default config is tiletune-default-gpu-config's.)
llvm::Error rankModuleCompileOnly(ModuleOp module, const TuneOptions &options,
                                  llvm::StringRef chip, unsigned show,
                                  llvm::raw_ostream &os);

/// The target whose results `apply` uses. "cpu": this machine's CPU with
/// `threads` threads. "cuda": the CUDA device when this machine has one;
/// else the cuda target recorded in `db` whose key is `key`, or the only
/// one when `key` is empty (an error lists them when there are several, or
/// says there is none).
llvm::Expected<TargetInfo> selectApplyTarget(TileTuneDatabase &db,
                                             llvm::StringRef kind,
                                             unsigned threads,
                                             llvm::StringRef key = "");

/// Prints, for each unique problem of `module`, the space's parameters and
/// size (exact valid count when it can be enumerated quickly); with an
/// `algorithm` that searches a space of its own (automcl), that space's name
/// and size too.
llvm::Error printSpaces(ModuleOp module, llvm::StringRef target,
                        unsigned threads, llvm::raw_ostream &os,
                        llvm::StringRef fixed = "",
                        llvm::StringRef algorithm = "");

/// Prints the per-problem report of `db`: best config, GFLOP/s, speed-up
/// over the default config, trials and time used, per algorithm. Restricted
/// to `target` when given.
llvm::Error printReport(TileTuneDatabase &db, const TargetInfo *target,
                        llvm::raw_ostream &os);

/// Prints a summary table of tuneModule()'s outcomes.
void printOutcomes(llvm::ArrayRef<ProblemOutcome> outcomes,
                   llvm::StringRef algorithm, llvm::raw_ostream &os);

/// An error naming every problem of which no measurement succeeded (its ops
/// were left as they were), with its default config's failure; success when
/// each problem measured at least one variant, or measured nothing at all
/// (stopped before its first measurement). Front-ends report it so that a
/// run in which everything failed does not end silently as a success.
llvm::Error checkProblemsTuned(llvm::ArrayRef<ProblemOutcome> outcomes);

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_DRIVER_H
