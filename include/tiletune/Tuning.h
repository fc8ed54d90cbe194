//===- Tuning.h - The public C++ tuning API ---------------------*- C++ -*-===//
//
// Tune the matmul/batch_matmul/conv_2d ops of a module, or one such op, from
// C++: measure real variants on this machine (or its CUDA GPU), record every
// measurement in the tuning database exactly as `tiletune tune` does, set
// the best config found on the ops and return it. A callback sees every
// measured variant and may stop the run; a CancelToken stops it from another
// thread. The API is a thin layer over the driver's tuneModule (the code
// path of the CLI, the tiletune-autotune pass and the Python module).
//
//   #include "tiletune/InitAll.h"
//   #include "tiletune/Tuning.h"
//
//   MLIRContext ctx(MLIRContext::Threading::DISABLED); // workers fork
//   tiletune::initializeContext(ctx);
//   ...parse or build `module`...
//   tiletune::TuningOptions options;
//   options.algorithm = "opevo";
//   options.trials = 64;
//   options.databasePath = "tuning.db";
//   options.callback = [](const tiletune::TuningEvent &e) {
//     llvm::errs() << e.configKey << ": " << e.gflops << " GFLOP/s\n";
//     return tiletune::TuningAction::Continue;
//   };
//   llvm::Expected<tiletune::TuningResult> r = tiletune::tune(module, options);
//
// Native code generation must be initialized first
// (llvm::InitializeNativeTarget() and ...AsmPrinter()): variants are JIT
// compiled. See docs/Embedding.md ("C++ and Python tuning API").
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TUNING_H
#define TILETUNE_TUNING_H

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Driver/TuneOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir::tiletune {

/// One variant just measured (or replayed from the database on a resume), as
/// the tuning callback sees it.
struct TuningEvent {
  /// The problem being tuned, e.g. "matmul/f32/m=64,n=64,k=64", its index
  /// among the run's problems and their number.
  std::string problemKey;
  unsigned problemIndex = 0;
  unsigned numProblems = 0;
  /// The variant: its config key (the `--fix` syntax of `tiletune space`) and
  /// why it was measured: "default", "search" or "final" (the winner and the
  /// default re-measured at the end).
  std::string configKey;
  std::string role;
  /// "ok", or why the variant failed ("invalid", "compile_error",
  /// "runtime_error", "wrong_result", "timeout") with `message`.
  std::string status;
  std::string message;
  /// Median time per call (seconds) and GFLOP/s of the variant; 0 unless Ok.
  double seconds = 0;
  double gflops = 0;
  /// True when the result was read back from the database (resume).
  bool replayed = false;
  /// Default and search measurements of this problem so far, and the trial
  /// budget (0: none).
  int64_t trialsDone = 0;
  int64_t maxTrials = 0;
  /// The best variant of this problem so far (empty key, zeros before the
  /// first Ok result).
  std::string bestKey;
  double bestSeconds = 0;
  double bestGflops = 0;
  /// Tuning time of this problem so far, seconds.
  double elapsedSeconds = 0;
};

/// What the callback asks for.
enum class TuningAction { Continue, Stop };

/// Called after every measured variant, on the thread that called tune().
/// Stop ends the run after the variant: what was measured stays in the
/// database and the run is resumable (TuningOptions::resume).
using TuningCallback = std::function<TuningAction(const TuningEvent &)>;

/// Stops a tuning run from any thread (or a signal handler): the run ends
/// after the variant being measured, as if the callback returned Stop; a
/// problem not started yet is not started (cancelled before the call,
/// nothing is measured).
class CancelToken {
public:
  void cancel() { flag.store(true, std::memory_order_relaxed); }
  bool isCancelled() const { return flag.load(std::memory_order_relaxed); }
  /// The flag itself (what the tuner polls).
  const std::atomic<bool> &getFlag() const { return flag; }

private:
  std::atomic<bool> flag{false};
};

/// Options of tune() and tuneOp(): every option of a `tiletune tune` run
/// (TuneOptions: algorithm, strategyOptions, trials, seconds, seed, threads,
/// databasePath, fixed, target, resume, timing, ... with the CLI's defaults)
/// plus the callback and the cancel token.
struct TuningOptions : TuneOptions {
  /// Per measured variant (none: no callback).
  TuningCallback callback;
  /// Polled while tuning (null: none). Must outlive the call.
  const CancelToken *cancel = nullptr;
};

/// The outcome of tuning one problem (a set of identical ops).
struct ProblemTuningResult {
  /// The problem's key (as in the database) and its JSON description.
  std::string problemKey;
  std::string problemDescription;
  /// Ops of the module with this problem (all got the best config).
  unsigned numOps = 0;
  /// The best config as an attribute and as text; null/empty when no variant
  /// ran correctly (the ops were then left untouched).
  TileConfigAttr bestConfig;
  std::string bestConfigText;
  /// Its config key.
  std::string bestKey;
  /// True when the default config won.
  bool bestIsDefault = false;
  /// The best variant's and the default config's median time per call
  /// (seconds) and GFLOP/s; 0 when not measured Ok.
  double bestSeconds = 0;
  double bestGflops = 0;
  double defaultSeconds = 0;
  double defaultGflops = 0;
  /// Why the default config failed, when it did.
  std::string defaultMessage;
  /// Default and search measurements of the run, in total and of them read
  /// back from the database on a resume.
  int64_t trials = 0;
  int64_t replayed = 0;
  /// Tuning time of the run (including before a resume), seconds.
  double elapsedSeconds = 0;
  /// "budget", "time", "exhausted", "patience" or "stopped" (callback or
  /// cancel token).
  std::string stopReason;
  /// The database id of the run.
  int64_t runId = 0;

  /// Whether a variant ran correctly (bestConfig is set).
  bool tuned() const { return static_cast<bool>(bestConfig); }
};

/// The outcome of tune() / tuneOp().
struct TuningResult {
  /// One entry per problem tuned, in the module's order. After a stop the
  /// problems not started yet are missing.
  std::vector<ProblemTuningResult> problems;
  /// True when the callback or the cancel token (or TuneOptions::stopFlag)
  /// stopped the run before every problem was tuned to its budget.
  bool stopped = false;
  /// The database written and the target the results are recorded for.
  std::string databasePath;
  std::string target;
  /// Why the problems of which every measurement failed were not tuned (one
  /// line each, with the default config's failure); empty when every
  /// problem measured a variant correctly. Front-ends report it so that a
  /// run in which everything failed does not pass as a success.
  std::string failures;
  /// With a model time budget (TuneOptions::timeBudgetSeconds, which makes
  /// tune() share the budget across the module's problems): the whole
  /// model's end-to-end median time per call before and after tuning,
  /// measured in alternation (0 when
  /// it could not be measured: modelError says why), the problems the budget
  /// left unmeasured, and the ops not tuned ("2 x linalg.generic (not a
  /// tunable op family), 0.10% of the model's FLOPs").
  double modelSecondsBefore = 0;
  double modelSecondsAfter = 0;
  /// The two are measured in alternation: the median over the tuned
  /// model's samples of each one's ratio to the untuned samples around it
  /// (ModelOutcome::ratio; below 1: the tuned model is faster; 0 when not
  /// measured). It decides modelKeptPrevious.
  double modelRatio = 0;
  /// The tuned configs ran slower end to end, twice (modelRatio above 1):
  /// the module kept the configs its ops had (ModelOutcome::keptPrevious).
  bool modelKeptPrevious = false;
  std::string modelError;
  std::vector<std::string> untunedProblems;
  std::vector<std::string> skippedOps;
};

/// Tunes every unique tunable op of `module` as `tiletune tune` does:
/// options are validated first (validateTuneOptions, then every problem's
/// space, `fixed` and the algorithm's options) so that bad input fails
/// before anything is measured; each problem's variants are measured,
/// recorded in the database and the best config set on its ops. Errors:
/// bad options, an untunable module (diagnostics on the ops), database or
/// measurer failures. A problem of which no variant ran correctly is not an
/// error here: its result has tuned() false (checkProblemsTuned() in
/// tiletune/Driver/Driver.h says why).
llvm::Expected<TuningResult> tune(ModuleOp module,
                                  const TuningOptions &options);

/// Tunes the single tunable op `op` (which must be inside a module; the
/// rest of the module is not looked at) and sets the best config on it.
llvm::Expected<ProblemTuningResult> tuneOp(Operation *op,
                                           const TuningOptions &options);

} // namespace mlir::tiletune

#endif // TILETUNE_TUNING_H
