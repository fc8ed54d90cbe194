//===- Driver.h - Tuning whole modules, applying and reporting --*- C++ -*-===//
//
// The flows behind the `tiletune` CLI and the tuning passes: tune every
// unique tunable op of a module (space per problem, strategy by name, the
// generic Tuner over the isolated CPU measurer, results in the database,
// best configs written back onto the ops), apply the best configs of a
// database to a module, and print spaces and reports.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_DRIVER_H
#define TILETUNE_DRIVER_DRIVER_H

#include "tiletune/Database/Database.h"
#include "tiletune/Measure/CPUMeasurer.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Tuner/Tuner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tiletune {

/// The default search algorithm of the CLI and the autotune pass.
constexpr llvm::StringLiteral kDefaultAlgorithm = "gbfs";

/// ~/.cache/tiletune/tuning.db ($XDG_CACHE_HOME is honoured).
std::string getDefaultDatabasePath();

/// `threads`, or the number of cores when it is 0.
unsigned resolveThreads(unsigned threads);

/// The target results are recorded for: the host CPU with `threads` threads.
TargetInfo getCPUTarget(unsigned threads);

/// Options of tuneModule().
struct TuneOptions {
  std::string algorithm = kDefaultAlgorithm.str();
  /// Where the variants run: "cpu" (this machine's CPU) or "cuda" (the
  /// CUDA device of the runtime library; an error when there is none).
  std::string target = "cpu";
  /// Strategy options ("name=value"); unknown names are errors.
  StrategyOptions strategyOptions;
  /// Start the strategies from the default config (strategy option
  /// "start_config") instead of their papers' start states.
  bool warmStart = true;
  /// Parameters pinned for every problem ("order=[n,k,m];pack=ab", see
  /// buildTuningSpace); the run's space name records them.
  std::string fixed;
  /// Budget per problem: measurements (0: none) and seconds (0: none).
  int64_t trials = 32;
  double seconds = 0;
  uint64_t seed = 0;
  /// Threads of the kernels (0: all cores).
  unsigned threads = 0;
  /// Database file (empty: getDefaultDatabasePath()).
  std::string databasePath;
  /// Continue unfinished runs of the same problem/target/algorithm/seed.
  bool resume = false;
  /// Candidates per batch.
  unsigned batchSize = 8;
  /// Progress bar on `progress` (null: no progress).
  llvm::raw_ostream *progress = nullptr;
  /// Per-problem summaries (null: quiet).
  llvm::raw_ostream *log = nullptr;
  /// Timing methodology of the measurements.
  TimingOptions timing;
  /// Compile the next candidate while the current one is timed, when the
  /// kernels leave a core idle (threads < cores).
  bool overlapCompile = true;
  /// CPU: time every variant interleaved with the problem's default config
  /// and rank by the ratio (CPUMeasureOptions::referenceConfig), so that the
  /// machine's speed drifting between measurements does not reorder
  /// variants. Costs about twice the timing time.
  bool pairedTiming = true;
  /// Stop flag polled by the tuner (e.g. set by SIGINT).
  const std::atomic<bool> *stopFlag = nullptr;
};

/// What tuning one problem gave.
struct ProblemOutcome {
  Problem problem;
  /// Number of ops of the module with this problem.
  unsigned numOps = 0;
  TuneResult result;
  /// The winner as attribute text (empty when nothing was Ok).
  std::string bestAttr;
};

/// The default config of a problem (the heuristic of
/// `tiletune-default-config` for `threads` threads on the CPU, of
/// `tiletune-default-gpu-config` for cuda) as a point of `space`; the
/// space's own default when the heuristic's config is not in it.
Config getDefaultConfig(MLIRContext *ctx, const Problem &problem,
                        const Space &space, unsigned threads);

/// The space tuning searches for `problem`: its operator space (cuda spaces
/// restricted to configs the GPU passes accept, see withGPUKernelLimits;
/// `ctx` must outlive the space) with the parameters named in `fixed`
/// pinned ("order=[n,k,m];unroll=4;m=[1,*,*,*]", see Space::withPinned;
/// empty: none). Errors on a bad pin or when no valid config is left.
llvm::Expected<Space> buildTuningSpace(MLIRContext *ctx,
                                       const Problem &problem,
                                       llvm::StringRef fixed = "");

/// The space a strategy searches: `space` itself, or for "automcl" the
/// AutoMCL pfactor + ideal-cache-model filtered space.
llvm::Expected<Space> getSearchSpace(llvm::StringRef algorithm,
                                     const Problem &problem,
                                     const Space &space, unsigned threads);

/// Tunes every unique tunable op of `module` and sets the best config found
/// on each of them. Problems in the module are reported as diagnostics on
/// the ops and as an error; database and measurer failures as errors.
llvm::Expected<std::vector<ProblemOutcome>>
tuneModule(ModuleOp module, const TuneOptions &options);

/// Statistics of applyDatabase().
struct ApplyStats {
  unsigned applied = 0;
  unsigned kept = 0;
  unsigned missing = 0;
};

/// Sets the best config recorded in `db` for this `target` on every tunable
/// op of `module`. Ops without a result are left alone; ops with a config
/// keep it unless `overrideConfigs`.
llvm::Expected<ApplyStats> applyDatabase(ModuleOp module,
                                         TileTuneDatabase &db,
                                         const TargetInfo &target,
                                         bool overrideConfigs);

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
/// size (exact valid count when it can be enumerated quickly).
llvm::Error printSpaces(ModuleOp module, llvm::StringRef target,
                        unsigned threads, llvm::raw_ostream &os,
                        llvm::StringRef fixed = "");

/// Prints the per-problem report of `db`: best config, GFLOP/s, speed-up
/// over the default config, trials and time used, per algorithm. Restricted
/// to `target` when given.
llvm::Error printReport(TileTuneDatabase &db, const TargetInfo *target,
                        llvm::raw_ostream &os);

/// Prints a summary table of tuneModule()'s outcomes.
void printOutcomes(llvm::ArrayRef<ProblemOutcome> outcomes,
                   llvm::StringRef algorithm, llvm::raw_ostream &os);

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_DRIVER_H
