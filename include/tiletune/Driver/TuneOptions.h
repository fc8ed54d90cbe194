//===- TuneOptions.h - What a tuning run is asked to do ---------*- C++ -*-===//
//
// The options of tuneModule(), filled by every front-end (the `tiletune`
// CLI, the `tiletune-autotune` pass, the Python bindings): the defaults live
// here only, front-ends take them from a default-constructed TuneOptions,
// and validate() gives every front-end the same errors (budget, target,
// algorithm). openTuningDatabase() opens the database the way every
// front-end does.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_TUNEOPTIONS_H
#define TILETUNE_DRIVER_TUNEOPTIONS_H

#include "tiletune/Database/Database.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlir::tiletune {

struct TunerEvent;

/// The default search algorithm of the CLI and the autotune pass.
constexpr llvm::StringLiteral kDefaultAlgorithm = "gbfs";

/// `threads`, or the number of cores when it is 0.
unsigned resolveThreads(unsigned threads);

/// The target results are recorded for: the process's default CPU target
/// (getDefaultTargetCPU(): the host unless --mcpu/--mattr chose another)
/// with `threads` threads.
TargetInfo getCPUTarget(unsigned threads);

struct TuneOptions;

/// Whether problems are extracted with their epilogues: CPU tuning with
/// TuneOptions::fuseEpilogues.
bool tunesWithEpilogues(const TuneOptions &options);

/// Options of tuneModule().
struct TuneOptions {
  std::string algorithm = kDefaultAlgorithm.str();
  /// Where the variants run: "cpu" (this machine's CPU) or "cuda" (the
  /// CUDA device of the runtime library; an error when there is none).
  std::string target = "cpu";
  /// CPU target (LLVM's names; both empty: the process's default target,
  /// normally the host): default configs are sized for it, variants are
  /// compiled for it and results recorded under it. The host must be able
  /// to run it (validateTuneOptions). Set as the process's default target
  /// while tuneModule runs.
  std::string mcpu;
  std::string mattr;
  /// Strategy options ("name=value"); unknown names are errors.
  StrategyOptions strategyOptions;
  /// Start the strategies from the default config (strategy option
  /// "start_config") instead of their papers' start states.
  bool warmStart = true;
  /// Experiment protocol (getProtocols()): "default", or "paper": every
  /// algorithm's options default to its paper's experiments
  /// (StrategyInfo::paperOptions; explicit strategy options still win), it
  /// starts from its paper's start state (no warm start from the default
  /// config or the database). docs/Search.md lists the differences.
  std::string protocol = "default";
  /// Warm start from the database: "db" seeds the search of a problem with
  /// the best configs of similar problems recorded for the same target
  /// (findWarmStartSeeds, strategy option "seed_configs"; not when that
  /// option is given); "none" does not.
  std::string warmStartFrom = "db";
  /// Seeds from at most this many similar problems (0: none), those within
  /// this log2 size distance (WarmStartOptions).
  unsigned warmStartProblems = 4;
  double warmStartDistance = 2.0;
  /// CPU: tune each op with its elementwise epilogue (bias, ReLU, residual
  /// add, ...: Dialect/Epilogue.h), which the lowering fuses into the op's
  /// loop nest (`fuse-epilogues`, on by default): the problem key and the
  /// measured kernel include the chain. False: ops alone, lowered unfused.
  bool fuseEpilogues = true;
  /// Parameters pinned for every problem ("order=[n,k,m];pack=ab", see
  /// buildTuningSpace); the run's space name records them.
  std::string fixed;
  /// Budget per problem: measurements (0: none) and seconds (0: none).
  int64_t trials = 32;
  double seconds = 0;
  /// Whole-model budget in seconds (0: none). When set, tuneModel() shares
  /// it across the module's problems (a task scheduler hands out rounds of
  /// trials) and `trials`/`seconds` do not apply; the public tune() and
  /// `tiletune tune --time-budget` then run tuneModel.
  double timeBudgetSeconds = 0;
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
  /// CPU: where a variant's weights are when it is timed. "model" (the
  /// default): where a run of the module has them, pushed out of the caches
  /// by the other ops' weights since the op last ran; an op whose weights
  /// are the module's only ones is timed warm. "warm": where the previous
  /// call left them (in the caches, for weights that fit). The weights of an op
  /// are its inputs after the first (a conv's filter, a matmul's B) that are
  /// arguments of the module's function or constants (through reshapes and
  /// pads); each is timed through copies that together take the module's
  /// weight bytes (every distinct such argument or constant; at most twice
  /// the L3), in turn (CPUMeasureOptions::weightArguments; docs/Tuning.md,
  /// "Weights as in the model").
  std::string weights = "model";
  /// Where the CPU variants are measured: "none" (in worker processes of
  /// this process) or "mpi" (on the worker ranks of the MPI job this
  /// process is rank 0 of; see Distributed.h and docs/Distributed.md).
  std::string distributed = "none";
  /// CPU: a search candidate's timing stops once its fastest sample (after
  /// timing.stopAfterRepeats samples) is slower than this many times the
  /// best median so far; it is recorded as measured, with its fewer samples
  /// (0: every candidate takes all its repeats).
  double earlyStopFactor = 2.0;
  /// CPU, paired timing: a search candidate's timing ends once its time
  /// ratios to the reference (after 5 samples) spread by at most this
  /// fraction of their median: its rank is known to that precision (0: every
  /// candidate takes all its repeats).
  double precisionStop = 0.03;
  /// CPU: compiled variants each worker keeps by config, so that the
  /// winner's confirmation does not compile them again (0: none).
  unsigned compileCacheSize = 8;
  /// CPU: LLVM optimisation level of the JIT's IR passes (0-3) and of its
  /// code generation (0-3; -1: the same as jitOptLevel).
  unsigned jitOptLevel = kDefaultJITOptLevel;
  int jitCodegenOptLevel = -1;
  /// CPU, when compilation overlaps with timing: pin the worker that times
  /// to one core and compiles to another (docs/Tuning.md, "Throughput").
  bool pinCores = true;
  /// Stop flag polled by the tuner (e.g. set by SIGINT).
  const std::atomic<bool> *stopFlag = nullptr;
  /// Called after every recorded (or replayed) result of the problem with
  /// key `problemKey`, number `problemIndex` of `numProblems`; returning
  /// false stops the run like the stop flag. Null: none. (The public API's
  /// TuningOptions::callback is built on it, see tiletune/Tuning.h.)
  std::function<bool(llvm::StringRef problemKey, unsigned problemIndex,
                     unsigned numProblems, const TunerEvent &event)>
      onResult;
};

/// The largest budgets and batch validateTuneOptions accepts.
constexpr int64_t kMaxTrials = 10000000;
constexpr double kMaxSeconds = 366.0 * 24 * 3600;
constexpr unsigned kMaxBatchSize = 4096;
/// The smallest whole-model time budget validateTuneOptions accepts
/// (tuneModel also stops with a clear error when its first measurement
/// alone overruns the budget).
constexpr double kMinModelBudgetSeconds = 1.0;

/// Checks `options` as every front-end must before any work starts, each
/// numeric option against its range (the error names the range): a budget
/// (trials in [0, kMaxTrials] and/or finite seconds in [0, kMaxSeconds]), a
/// known target, a registered algorithm (the error lists them), threads in
/// [0, kMaxThreads], a batch in [1, kMaxBatchSize], a warm start "none" or
/// "db" with a finite distance >= 0, the timing options
/// (validateTimingOptions), the pinned parameters (validateFixedParameters)
/// and the strategy options (validateStrategyOptions).
llvm::Error validateTuneOptions(const TuneOptions &options);

/// Checks a `--fix` string before any module is read: each item is
/// 'name=value' and names a parameter of some op kind's space on `target`
/// (the error lists them). The values are checked against each problem's
/// space when tuning starts (buildTuningSpace), before anything is measured.
llvm::Error validateFixedParameters(llvm::StringRef fixed,
                                    llvm::StringRef target);

/// Checks strategy options for `algorithm`: every name must be one of its
/// options or a common one (the error lists them), and the values must be
/// accepted by the strategy (it is built over a small space of `target`;
/// 'start_config' is checked against each problem's space later).
llvm::Error validateStrategyOptions(llvm::StringRef algorithm,
                                    const StrategyOptions &options,
                                    llvm::StringRef target = "cpu");

/// "m, n, k, order, ...": the parameters of the spaces of every op kind on
/// `target`, for help texts and errors.
std::string listTunableParameters(llvm::StringRef target);

/// "grid, random, gbfs, ..." : the registered algorithms, for help texts and
/// errors.
std::string listAlgorithms();

/// Opens the tuning database at `path` (empty: getDefaultDatabasePath()).
/// ReadOnly: an error names the file when it does not exist. Otherwise the
/// default location's directories are created as needed.
llvm::Expected<std::unique_ptr<TileTuneDatabase>>
openTuningDatabase(llvm::StringRef path, OpenMode mode);

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_TUNEOPTIONS_H
