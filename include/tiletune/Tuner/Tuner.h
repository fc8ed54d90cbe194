//===- Tuner.h - The generic tuning loop ------------------------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The driver that joins a search space, an ask/tell search strategy, a
// measurer and the tuning database. The strategy only proposes and observes;
// the tuner owns the budget (trials and/or wall time), batching,
// de-duplication, measuring the default config first, recording every result
// transactionally, resume after a kill, confirming the winner at the end,
// time limits that scale with the best time so far, progress output and a
// callback hook. See docs/Tuning.md ("The tuning loop").
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TUNER_TUNER_H
#define TILETUNE_TUNER_TUNER_H

#include "tiletune/Database/Database.h"
#include "tiletune/Measure/Measurer.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Deadline.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mlir {
namespace tiletune {

/// Progress information given to the callback after each recorded result.
struct TunerEvent {
  /// The measurement just recorded (or replayed from the database).
  const MeasurementRecord *record = nullptr;
  /// True when the result was read back from the database during a resume
  /// instead of being measured now.
  bool replayed = false;
  /// Default and search measurements so far (the trial budget counts these).
  int64_t trialsDone = 0;
  /// The trial budget, 0 when none.
  int64_t maxTrials = 0;
  /// Best Ok result so far (null before the first Ok result).
  const MeasurementRecord *best = nullptr;
  /// Tuning time of the run so far (including before a resume), seconds.
  double elapsedSeconds = 0;
  /// Variants measured per second in this session.
  double variantsPerSecond = 0;
};

/// Options of the tuning loop.
struct TunerOptions {
  /// Opaque problem key, e.g. "matmul/f32/m=512,n=1024,k=1024".
  std::string problemKey;
  /// JSON text describing the problem (recorded in the database); optional.
  std::string problemDescription;
  /// Where the variants run (results are only comparable per target).
  TargetInfo target;

  /// Trial budget: default and search measurements (final re-measurements
  /// are extra). 0 means none.
  int64_t maxTrials = 0;
  /// Wall-clock budget in seconds for the whole run, including time spent
  /// before a resume. 0 means none. It bounds the search: the strategy gets
  /// its end as a deadline (Strategy::setDeadline: model fits, annealing and
  /// training stop early), nothing proposed after it is measured, and a
  /// batch in flight stops at the first result that arrives after it (what
  /// was measured is recorded and observed). The default config's
  /// measurement and the final confirmation of the winner still run (see
  /// docs/Tuning.md, "The time budget").
  double maxSeconds = 0;
  /// A point in time that ends the search like the end of `maxSeconds` (the
  /// earlier of the two applies), e.g. a whole-model budget's share; none
  /// by default.
  Deadline deadline;
  /// Configs proposed and measured per round.
  unsigned batchSize = 8;
  /// Stop after this many consecutive search trials without a new best
  /// (0: never).
  int64_t patience = 0;

  /// Floating-point operations of one execution of the kernel; when > 0 the
  /// tuner fills in GFLOP/s where the measurer left it at 0.
  double flops = 0;

  /// How the measurer times variants (e.g. "paired": interleaved with a
  /// reference variant, the ratio recorded beside the measured times); part
  /// of the run's settings, so a run is only resumed with the same method.
  /// Empty: plain times (not recorded).
  std::string measurement;

  /// Run time limit of a variant before any Ok result is known, seconds.
  double initialRunTimeoutSeconds = 10;
  /// Once a best time t is known the limit is max(runTimeoutFloorSeconds,
  /// timeoutFactor * t).
  double timeoutFactor = 10;
  double runTimeoutFloorSeconds = 0.5;
  /// Build time limit of a variant, seconds (<= 0: none).
  double compileTimeoutSeconds = 120;

  /// Confirm the winner before the result is written: the search's best,
  /// the runner-up and the default are re-measured (role Final, recorded
  /// like every measurement) in `confirmRounds` interleaved rounds, quietly
  /// (the measurer compiles nothing beside a timing). Each candidate's
  /// confirmed time is its fastest round; the fastest candidate is the
  /// result, the default on a tie, so a variant that is not confirmed faster
  /// than the default never replaces it. A variant that leads the default
  /// after these rounds is measured with the default alone in further
  /// rounds, until it was the faster of the two in `confirmRounds` of them,
  /// the default leads, or 3 * `confirmRounds` of them ran.
  bool remeasureWinner = true;
  /// Rounds of the confirmation (at least 1). Under a time budget the
  /// rounds after the first run only while the budget lasts.
  unsigned confirmRounds = 3;

  /// Continue the most recent unfinished run of this problem, target,
  /// strategy and seed instead of starting a new one (a new run is started
  /// when there is none). Every recorded measurement is reused, none is
  /// repeated, and the search continues exactly as if it had not stopped.
  bool resume = false;
  /// Save the strategy's state to the database at most this often, seconds
  /// (0: after every batch; < 0: never, a resume then replays the whole run
  /// through the strategy). A checkpoint bounds the replay work on resume.
  double checkpointSeconds = 30;

  /// Print a one-line progress bar (trials, best, variants/s).
  bool showProgress = true;
  /// Where progress goes; null means llvm::errs().
  llvm::raw_ostream *progressStream = nullptr;
  /// Called after every recorded or replayed result; returning false stops
  /// the run (status Interrupted, resumable).
  std::function<bool(const TunerEvent &)> callback;
  /// Polled between results; when set to true the run stops (status
  /// Interrupted, resumable). May be set from a signal handler.
  const std::atomic<bool> *stopFlag = nullptr;
};

/// Where the wall clock of a tuning session went, from the phases of its
/// measurements (MeasurePhases). The wall clock splits into the waits for
/// compiles (divided between our passes and LLVM codegen in proportion to
/// their busy times), the waits for runs (verification and timing) and idle
/// (everything else: the strategy, the database, process start-up). Busy
/// times are the workers' own; with compilation overlapping the timing they
/// exceed the waits.
struct ThroughputStats {
  /// Measurements made in this session (search, default and final).
  int64_t measured = 0;
  /// Wall clock of the session, seconds.
  double wallSeconds = 0;
  /// Critical-path shares of the wall clock, seconds.
  double passWaitSeconds = 0;
  double codegenWaitSeconds = 0;
  double measureWaitSeconds = 0;
  double idleSeconds() const {
    return std::max(0.0, wallSeconds - passWaitSeconds - codegenWaitSeconds -
                             measureWaitSeconds);
  }
  /// Busy seconds of the workers in each phase.
  double passSeconds = 0;
  double codegenSeconds = 0;
  double verifySeconds = 0;
  double timingSeconds = 0;
  /// Measurements whose compiled variant came from a worker's cache.
  int64_t cacheHits = 0;
  /// Measurements whose timing stopped early (TimeStats::stoppedEarly).
  int64_t stoppedEarly = 0;
  /// Variants measured per second of wall clock.
  double variantsPerSecond() const {
    return wallSeconds > 0 ? double(measured) / wallSeconds : 0;
  }
  /// "64 variants in 20.1 s (3.18/s); wall per variant: our passes 12 ms,
  /// LLVM codegen 80 ms, measurement 190 ms, idle 30 ms; busy per variant:
  /// ...; 2 compiled variants reused, 20 timings stopped early".
  std::string summary() const;
};

/// The outcome of a tuning run.
struct TuneResult {
  /// The database id of the run.
  int64_t runId = 0;
  /// True when an unfinished run was continued.
  bool resumed = false;
  /// Finished, or Interrupted when stopped by the callback/stop flag.
  RunStatus status = RunStatus::Finished;
  /// Why the search ended: "budget", "time", "exhausted", "patience",
  /// "stopped".
  std::string stopReason;

  /// The best config (the confirmed one when the winner was confirmed);
  /// empty when no variant was Ok.
  std::optional<Config> best;
  std::string bestKey;
  /// Its measured result: its fastest confirmation round, or its search
  /// measurement when there was no confirmation.
  MeasureResult bestResult;
  /// The default config's measured result (its fastest confirmation round
  /// when it was confirmed, else its first measurement).
  MeasureResult defaultResult;
  /// True when the default config is the result (no variant was confirmed
  /// faster).
  bool bestIsDefault = false;

  /// Default and search measurements in the run, in total.
  int64_t trials = 0;
  /// Of these, measured in this session (the rest was replayed on resume).
  int64_t measuredNow = 0;
  /// Results read back from the database instead of being measured.
  int64_t replayed = 0;
  /// Tuning time of the run, including before a resume, seconds.
  double elapsedSeconds = 0;
  /// Tuning time of the run when the search ended (before the winner was
  /// confirmed), seconds.
  double searchEndSeconds = 0;
  /// Candidates the strategy proposed that were not measured because the
  /// time budget ended the search (stopReason "time"): the rest of a batch
  /// in flight, or a batch proposed after the deadline.
  int64_t unmeasuredAtDeadline = 0;
  /// Variants measured per second in this session.
  double variantsPerSecond = 0;
  /// Where this session's time went.
  ThroughputStats throughput;
};

/// The tuning loop. One Tuner runs one search; it is not reusable.
class Tuner {
public:
  /// \p strategy must be freshly created (nothing proposed yet) over
  /// \p space; its name, options and seed identify the run.
  Tuner(const Space &space, Strategy &strategy, Measurer &measurer,
        TileTuneDatabase &database, TunerOptions options);
  ~Tuner();

  /// Tunes, measuring \p defaultConfig first. Errors: invalid options, a
  /// resume that does not match the recorded run, database errors, or a
  /// measurer error (the run is then marked failed and stays resumable).
  llvm::Expected<TuneResult> run(const Config &defaultConfig);

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_TUNER_TUNER_H
