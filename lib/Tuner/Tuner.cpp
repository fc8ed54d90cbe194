//===- Tuner.cpp - The generic tuning loop --------------------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The loop: measure the default config, then repeatedly ask the strategy for
// a batch, measure what was not measured before, record each result in the
// database as it arrives, and tell the strategy; at the end confirm the
// winner: re-measure it, the runner-up and the default in interleaved rounds
// and keep the default unless a variant is confirmed faster. Resume reads the
// run's records back and replays them through the strategy (from the last
// checkpoint of its state, if any) instead of measuring them again: see
// Resume.cpp; the progress output is in Progress.cpp.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuner/Tuner.h"

#include "Progress.h"
#include "Resume.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
using Clock = std::chrono::steady_clock;
} // namespace

//===----------------------------------------------------------------------===//
// Tuner::Impl
//===----------------------------------------------------------------------===//

class Tuner::Impl {
public:
  Impl(const Space &space, Strategy &strategy, Measurer &measurer,
       TileTuneDatabase &db, TunerOptions options)
      : space(space), strategy(strategy), measurer(measurer), db(db),
        opts(std::move(options)),
        out(opts.progressStream ? opts.progressStream : &llvm::errs()),
        journal(db, strategy, opts, *out), progress(*out) {}

  Expected<TuneResult> run(const Config &defaultConfig);

private:
  Error validate(const Config &defaultConfig);
  Error startOrResume(const Config &defaultConfig);
  /// Measures (or replays) \p batch; fills \p results in batch order.
  /// Returns false when the run was stopped before the batch completed.
  /// When the time budget ends during a search batch it returns true with
  /// `cutByTime` set: \p measured then says which configs have a result.
  Expected<bool> obtain(llvm::ArrayRef<Config> batch, MeasurementRole role,
                        llvm::SmallVectorImpl<MeasureResult> &results,
                        llvm::SmallVectorImpl<bool> *measured = nullptr);
  /// Whether the time budget (TunerOptions::maxSeconds, ::deadline) is over.
  bool timeUp() const { return budgetEnd.passed(); }
  /// Accounts for a recorded or replayed measurement.
  void addRecord(MeasurementRecord record, bool replayed);
  Error checkpoint(bool force);
  Error fail(Error err);
  double elapsed() const {
    return journal.getPriorElapsed() +
           std::chrono::duration<double>(Clock::now() - sessionStart).count();
  }
  double sessionSeconds() const {
    return std::chrono::duration<double>(Clock::now() - sessionStart).count();
  }
  double variantsPerSecond() const {
    double seconds = sessionSeconds();
    return seconds > 0 ? measuredNow / seconds : 0;
  }
  double runTimeout() const {
    if (!bestIndex)
      return opts.initialRunTimeoutSeconds;
    return std::max(opts.runTimeoutFloorSeconds,
                    opts.timeoutFactor *
                        records[*bestIndex].result.time.seconds());
  }
  /// What ranks a result (the strategy's cost, the best so far): its
  /// measured median. The paired ratio (`relative`) is recorded beside it
  /// but does not rank: measured with the next candidate compiling on the
  /// other core, the reference's implied time was off by up to 3x in about
  /// a quarter of the measurements (docs/Tuning.md, "What the numbers
  /// mean"), while the medians stayed within the machine's drift. The
  /// confirmation at the end decides the result in any case.
  double rankCost(const MeasureResult &result) const {
    return result.time.seconds();
  }
  /// Confirms the search's winner (see TunerOptions::confirmRounds): fills
  /// `resultKey`, `result.bestResult` and `result.defaultResult`. Returns
  /// false when the run was stopped during it.
  Expected<bool> confirmWinner(const Config &defaultConfig,
                               llvm::StringRef defaultKey,
                               std::string &resultKey, TuneResult &result);
  bool stopFlagSet() const {
    return opts.stopFlag && opts.stopFlag->load(std::memory_order_relaxed);
  }
  void printProgress(bool final);
  /// Adds the phases of a measurement made now to `throughput`.
  void noteThroughput(const MeasureResult &result) {
    const MeasurePhases &p = result.phases;
    ++throughput.measured;
    throughput.passSeconds += p.passSeconds;
    throughput.codegenSeconds += p.codegenSeconds;
    throughput.verifySeconds += p.verifySeconds;
    throughput.timingSeconds += p.timingSeconds;
    double compile = p.passSeconds + p.codegenSeconds;
    double passShare = compile > 0 ? p.passSeconds / compile : 0.5;
    throughput.passWaitSeconds += p.compileWaitSeconds * passShare;
    throughput.codegenWaitSeconds += p.compileWaitSeconds * (1 - passShare);
    throughput.measureWaitSeconds += p.runWaitSeconds;
    throughput.cacheHits += p.cacheHit ? 1 : 0;
    throughput.stoppedEarly += result.ok() && result.time.stoppedEarly;
  }

  /// The database id of the run (0 before it was started or resumed).
  int64_t runId() const { return journal.getRun().id; }

  const Space &space;
  Strategy &strategy;
  Measurer &measurer;
  TileTuneDatabase &db;
  TunerOptions opts;
  llvm::raw_ostream *out;
  RunJournal journal;
  TunerProgress progress;

  bool resumed = false;
  /// Every measurement of the run so far, in trial order.
  std::vector<MeasurementRecord> records;
  /// Config key -> index in records of its first default/search result.
  llvm::StringMap<size_t> firstResult;
  std::optional<size_t> bestIndex;
  /// The confirmed result, shown by the last progress line.
  std::optional<MeasureResult> confirmed;
  int64_t trialsDone = 0;
  int64_t sinceImprovement = 0;
  int64_t measuredNow = 0;
  int64_t replayedCount = 0;
  /// Phases of this session's measurements.
  ThroughputStats throughput;
  Clock::time_point sessionStart = Clock::now();
  Clock::time_point lastCheckpoint = Clock::now();
  bool stopRequested = false;
  std::string stopReason;
  /// The end of the time budget: the earlier of maxSeconds (less the time
  /// spent before a resume) and TunerOptions::deadline; none without them.
  Deadline budgetEnd;
  /// Set by obtain() when the time budget ended a search batch.
  bool cutByTime = false;
  int64_t unmeasuredAtDeadline = 0;
  double searchEndSeconds = 0;
};

Error Tuner::Impl::validate(const Config &defaultConfig) {
  if (opts.problemKey.empty())
    return llvm::createStringError("tuner: no problem key given");
  if (opts.batchSize == 0)
    return llvm::createStringError("tuner: the batch size must be at least 1");
  if (opts.maxTrials < 0 || opts.maxSeconds < 0 || opts.patience < 0)
    return llvm::createStringError("tuner: budgets must not be negative");
  if (opts.maxTrials == 0 && opts.maxSeconds == 0 && opts.patience == 0 &&
      strategy.getMaxTrials() == 0)
    return llvm::createStringError(
        "tuner: no budget: give a trial budget, a time budget or a patience");
  if (opts.timeoutFactor <= 0 || opts.initialRunTimeoutSeconds <= 0)
    return llvm::createStringError(
        "tuner: the timeout factor and the initial run timeout must be "
        "positive");
  if (strategy.getNumProposed() != 0)
    return llvm::createStringError(
        "tuner: the strategy has been used already; pass a fresh one");
  std::string reason;
  if (!space.isValid(defaultConfig, &reason))
    return llvm::createStringError("tuner: the default config '" +
                                   space.getKey(defaultConfig) +
                                   "' is not valid in the space: " + reason);
  return Error::success();
}

Error Tuner::Impl::startOrResume(const Config &defaultConfig) {
  Expected<bool> resumedRun = journal.startOrResume(
      RunJournal::settingsOf(space, strategy, opts, defaultConfig), measurer,
      [&](MeasurementRecord record) {
        addRecord(std::move(record), /*replayed=*/true);
      });
  if (!resumedRun)
    return resumedRun.takeError();
  resumed = *resumedRun;
  return Error::success();
}

void Tuner::Impl::addRecord(MeasurementRecord record, bool replayed) {
  records.push_back(std::move(record));
  size_t index = records.size() - 1;
  const MeasurementRecord &rec = records.back();
  if (rec.role != MeasurementRole::Final) {
    ++trialsDone;
    firstResult.try_emplace(rec.configKey, index);
    bool improved = rec.result.ok() &&
                    (!bestIndex || rankCost(rec.result) <
                                       rankCost(records[*bestIndex].result));
    if (improved) {
      bestIndex = index;
      sinceImprovement = 0;
    } else if (rec.role == MeasurementRole::Search) {
      ++sinceImprovement;
    }
  }
  if (replayed)
    ++replayedCount;
  else
    ++measuredNow;

  if (opts.callback) {
    TunerEvent event;
    event.record = &rec;
    event.replayed = replayed;
    event.trialsDone = trialsDone;
    event.maxTrials = opts.maxTrials;
    event.best = bestIndex ? &records[*bestIndex] : nullptr;
    event.elapsedSeconds = elapsed();
    event.variantsPerSecond = variantsPerSecond();
    if (!opts.callback(event) && !stopRequested) {
      stopRequested = true;
      stopReason = "stopped";
    }
  }
  if (stopFlagSet() && !stopRequested) {
    stopRequested = true;
    stopReason = "stopped";
  }
  printProgress(/*final=*/false);
}

Expected<bool>
Tuner::Impl::obtain(llvm::ArrayRef<Config> batch, MeasurementRole role,
                    llvm::SmallVectorImpl<MeasureResult> &results,
                    llvm::SmallVectorImpl<bool> *measured) {
  size_t n = batch.size();
  results.assign(n, MeasureResult());
  llvm::SmallVector<std::string> keys;
  for (const Config &config : batch)
    keys.push_back(space.getKey(config));
  llvm::SmallVector<bool> have(n, false);
  auto reportMeasured = [&] {
    if (measured)
      measured->assign(have.begin(), have.end());
  };
  // Only search batches end with the time budget: the default config and
  // the confirmation of the winner are always measured whole.
  bool timeBounded = role == MeasurementRole::Search;

  // Replay: the recorded measurements of this batch come first. A recorded
  // run whose time budget ended the search inside this batch continues with
  // its final re-measurement.
  if (Error err = journal.replay(
          keys, role, have,
          [&](size_t i, MeasurementRecord record) {
            results[i] = record.result;
            addRecord(std::move(record),
                      /*replayed=*/true);
          },
          /*searchMayEnd=*/timeBounded && timeUp()))
    return std::move(err);
  reportMeasured();
  if (!llvm::is_contained(have, false))
    return true;
  if (stopRequested)
    return false;
  if (timeBounded && timeUp()) {
    cutByTime = true;
    return true;
  }

  // Measure the rest now.
  llvm::SmallVector<Config> live;
  llvm::SmallVector<size_t> liveIndex;
  for (size_t i = 0; i < n; ++i)
    if (!have[i]) {
      live.push_back(batch[i]);
      liveIndex.push_back(i);
    }
  llvm::SmallVector<bool> reported(live.size(), false);
  std::optional<Error> sinkError;
  MeasureRequest request;
  request.role = role;
  request.runTimeoutSeconds = runTimeout();
  request.compileTimeoutSeconds = opts.compileTimeoutSeconds;
  // A search candidate may be stopped early once clearly slower than the
  // best so far (the measurer decides how much slower; it records what it
  // measured, with fewer samples).
  if (role == MeasurementRole::Search && bestIndex) {
    request.incumbentSeconds = records[*bestIndex].result.time.seconds();
    request.incumbentRelative = records[*bestIndex].result.relative;
  }

  auto sink = [&](size_t j, const MeasureResult &result) -> bool {
    if (sinkError)
      return false;
    if (j >= live.size() || reported[j]) {
      sinkError = llvm::createStringError(
          "tuner: the measurer reported config index " + llvm::Twine(j) +
          (j >= live.size() ? " outside the batch" : " twice"));
      return false;
    }
    reported[j] = true;
    noteThroughput(result);
    size_t i = liveIndex[j];
    MeasurementRecord record;
    record.runId = runId();
    record.trial = records.empty() ? 0 : records.back().trial + 1;
    record.role = role;
    record.configKey = keys[i];
    record.config = jsonText(space.toJSON(batch[i]));
    record.result = result;
    if (record.result.ok() && record.result.gflops == 0 && opts.flops > 0 &&
        record.result.time.seconds() > 0)
      record.result.gflops = opts.flops / record.result.time.seconds() / 1e9;
    if (record.result.ok()) {
      const TimeStats &t = record.result.time;
      bool valid = t.median > 0;
      for (double value : {t.mean, t.median, t.min, t.max, t.stddev})
        valid = valid && std::isfinite(value) && value >= 0;
      if (!valid)
        record.result = MeasureResult::failure(
            MeasureStatus::RuntimeError,
            "the measurer reported invalid time statistics (median " +
                std::to_string(t.median) + " s)");
      else if (!std::isfinite(record.result.gflops) || record.result.gflops < 0)
        record.result.gflops = 0;
    }
    if (!record.result.ok()) {
      record.result.time = TimeStats();
      record.result.gflops = 0;
    }
    if (Error err = db.recordMeasurement(record, elapsed())) {
      sinkError = std::move(err);
      return false;
    }
    results[i] = record.result;
    have[i] = true;
    addRecord(std::move(record), /*replayed=*/false);
    // The time budget ends a search batch at the first result after it:
    // the measurer stops, the candidates not measured yet are dropped.
    if (timeBounded && !stopRequested && timeUp() &&
        llvm::is_contained(have, false))
      cutByTime = true;
    return !stopRequested && !cutByTime;
  };
  Error measureError = measurer.measure(live, request, sink);
  if (sinkError) {
    llvm::consumeError(std::move(measureError));
    return std::move(*sinkError);
  }
  if (measureError)
    return llvm::createStringError("tuner: measuring failed: " +
                                   llvm::toString(std::move(measureError)));
  reportMeasured();
  if (stopRequested)
    return false;
  if (cutByTime)
    return true;
  for (auto [j, done] : llvm::enumerate(reported))
    if (!done)
      return llvm::createStringError(
          "tuner: the measurer returned without a result for config '" +
          keys[liveIndex[j]] + "'");
  return true;
}

Error Tuner::Impl::checkpoint(bool force) {
  if (opts.checkpointSeconds < 0)
    return Error::success();
  double since =
      std::chrono::duration<double>(Clock::now() - lastCheckpoint).count();
  if (!force && since < opts.checkpointSeconds)
    return Error::success();
  lastCheckpoint = Clock::now();
  return journal.saveCheckpoint(records.size());
}

Error Tuner::Impl::fail(Error err) {
  // Keep the run resumable and say how.
  printProgress(/*final=*/true);
  if (runId() > 0) {
    if (Error update =
            db.updateRunStatus(runId(), RunStatus::Failed, elapsed()))
      llvm::consumeError(std::move(update));
    return llvm::createStringError(llvm::toString(std::move(err)) + " (run " +
                                   llvm::Twine(runId()) +
                                   " is kept; continue it with resume)");
  }
  return err;
}

void Tuner::Impl::printProgress(bool final) {
  if (!opts.showProgress)
    return;
  ProgressState state;
  state.trialsDone = trialsDone;
  state.maxTrials = opts.maxTrials;
  state.elapsedSeconds = elapsed();
  state.maxSeconds = opts.maxSeconds;
  state.best = confirmed   ? &*confirmed
               : bestIndex ? &records[*bestIndex].result
                           : nullptr;
  state.variantsPerSecond = variantsPerSecond();
  state.replayed = replayedCount;
  progress.update(state, final);
}

Expected<bool> Tuner::Impl::confirmWinner(const Config &defaultConfig,
                                          StringRef defaultKey,
                                          std::string &resultKey,
                                          TuneResult &result) {
  // The candidates: the winner of the search, the runner-up (the next best
  // Ok config by the same ranking) and the default, each once.
  llvm::SmallVector<std::string> keys = {resultKey};
  std::optional<size_t> runnerUp;
  for (auto [i, rec] : llvm::enumerate(records))
    if (rec.role != MeasurementRole::Final && rec.result.ok() &&
        rec.configKey != resultKey && rec.configKey != defaultKey &&
        (!runnerUp ||
         rankCost(rec.result) < rankCost(records[*runnerUp].result)))
      runnerUp = i;
  if (runnerUp)
    keys.push_back(records[*runnerUp].configKey);
  if (resultKey != defaultKey && result.defaultResult.ok())
    keys.push_back(defaultKey.str());
  llvm::SmallVector<Config> configs;
  for (const std::string &key : keys) {
    if (key == defaultKey) {
      configs.push_back(defaultConfig);
      continue;
    }
    Expected<Config> parsed = space.parseKey(key);
    if (!parsed)
      return llvm::createStringError(
          "tuner: cannot parse the config key '" + key +
          "' to confirm it: " + llvm::toString(parsed.takeError()));
    configs.push_back(*parsed);
  }

  // Interleaved rounds: each round measures every candidate once, starting
  // with another one each time, so a burst of load or a cold start does not
  // always hit the same candidate.
  size_t n = keys.size();
  std::optional<size_t> defaultIndex;
  for (size_t c = 0; c < n; ++c)
    if (keys[c] == defaultKey)
      defaultIndex = c;
  llvm::SmallVector<std::optional<MeasureResult>> fastest(n);
  llvm::SmallVector<MeasureResult> results;
  // Measures one round of `which` (candidate indices, in this order); false
  // when the run stops (interrupted) inside it.
  auto measureRound = [&](llvm::ArrayRef<size_t> which) -> Expected<bool> {
    llvm::SmallVector<Config> batch;
    for (size_t c : which)
      batch.push_back(configs[c]);
    Expected<bool> done = obtain(batch, MeasurementRole::Final, results);
    if (!done || !*done)
      return done;
    // A candidate's confirmed time is its fastest round: load on a shared
    // machine only ever slows a measurement down.
    for (auto [k, c] : llvm::enumerate(which))
      if (results[k].ok() && (!fastest[c] || results[k].time.seconds() <
                                                 fastest[c]->time.seconds()))
        fastest[c] = results[k];
    return true;
  };
  // The fastest confirmed candidate; the default on a tie, so a run whose
  // best is not faster than the default keeps the default.
  auto leader = [&]() -> std::optional<size_t> {
    std::optional<size_t> chosen;
    for (size_t c = 0; c < n; ++c) {
      if (!fastest[c])
        continue;
      bool better = !chosen || fastest[c]->time.seconds() <
                                   fastest[*chosen]->time.seconds();
      bool tieToDefault =
          chosen && c == defaultIndex &&
          fastest[c]->time.seconds() <= fastest[*chosen]->time.seconds();
      if (better || tieToDefault)
        chosen = c;
    }
    return chosen;
  };
  unsigned rounds = std::max(1u, opts.confirmRounds);
  for (unsigned round = 0; round < rounds; ++round) {
    // Under a time budget the rounds after the first run only while it
    // lasts (a resume replays the rounds recorded, then stops here too).
    if (round > 0 && timeUp() && !journal.isReplayingFinal())
      break;
    llvm::SmallVector<size_t> which;
    for (size_t k = 0; k < n; ++k)
      which.push_back((k + round) % n);
    Expected<bool> done = measureRound(which);
    if (!done || !*done)
      return done;
  }

  // A variant that leads the default replaces it only when it keeps leading
  // in rounds of the two alone: they go on until the variant was the faster
  // of the pair in `rounds` of them, or the default leads, or 3 * `rounds`
  // of them ran. The fastest round of each is only its quiet speed if one
  // of its rounds was quiet; a load that comes and goes on the other core
  // (test/Timing/confirm-under-load.test) slowed every round of a 64^3
  // default by 15-20% in 2 of 15 tunings on a 2-core VM, and a 20% slower
  // variant then won. Such a default leads again at its first quiet round;
  // the variant wins a round of the pair only while the default alone is
  // slowed.
  if (std::optional<size_t> lead = leader(); lead && defaultIndex &&
                                             *lead != *defaultIndex &&
                                             fastest[*defaultIndex]) {
    size_t variant = *lead, dflt = *defaultIndex;
    unsigned wins = 0;
    for (unsigned extra = 0; extra < 3 * rounds && wins < rounds; ++extra) {
      if (timeUp() && !journal.isReplayingFinal())
        break;
      llvm::SmallVector<size_t, 2> which = {variant, dflt};
      if (extra % 2)
        std::swap(which[0], which[1]);
      Expected<bool> done = measureRound(which);
      if (!done || !*done)
        return done;
      // This round's pair: results follow `which`.
      unsigned v = which[0] == variant ? 0 : 1;
      if (results[v].ok() && results[1 - v].ok() &&
          results[v].time.seconds() < results[1 - v].time.seconds())
        ++wins;
      if (leader() != variant)
        break;
    }
  }

  std::optional<size_t> chosen = leader();
  if (defaultIndex && fastest[*defaultIndex])
    result.defaultResult = *fastest[*defaultIndex];
  // When every confirmation failed, the search result stands.
  if (chosen) {
    resultKey = keys[*chosen];
    result.bestResult = *fastest[*chosen];
    confirmed = *fastest[*chosen];
  }
  return true;
}

Expected<TuneResult> Tuner::Impl::run(const Config &defaultConfig) {
  if (Error err = validate(defaultConfig))
    return std::move(err);
  sessionStart = Clock::now();
  lastCheckpoint = sessionStart;
  if (Error err = startOrResume(defaultConfig))
    return std::move(err);
  sessionStart = Clock::now();
  lastCheckpoint = sessionStart;
  if (opts.maxSeconds > 0)
    budgetEnd = Deadline(sessionStart +
                         std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(
                                 opts.maxSeconds - journal.getPriorElapsed())));
  budgetEnd = Deadline::earliest(budgetEnd, opts.deadline);

  std::string defaultKey = space.getKey(defaultConfig);
  llvm::SmallVector<MeasureResult> results;

  // The default config first.
  bool completed = true;
  if (trialsDone == 0) {
    Expected<bool> done =
        obtain({defaultConfig}, MeasurementRole::Default, results);
    if (!done)
      return fail(done.takeError());
    completed = *done;
    if (completed && !results[0].ok() && opts.showProgress)
      *out << "tiletune: warning: the default config failed ("
           << stringifyMeasureStatus(results[0].status)
           << "): " << results[0].message << "\n";
  }

  // The search.
  bool stoppedBetweenBatches = false;
  while (completed) {
    if (stopFlagSet() && !stopRequested) {
      stopRequested = true;
      stopReason = "stopped";
    }
    if (stopRequested) {
      stoppedBetweenBatches = true;
      break;
    }
    bool replaying = journal.isReplaying();
    if (opts.maxTrials > 0 && trialsDone >= opts.maxTrials) {
      stopReason = "budget";
      break;
    }
    // While replaying, the time budget (which includes the time spent before
    // the resume) ends the search only where the recorded run ended it: at
    // its final re-measurement, if it reached one.
    if ((!replaying || journal.isReplayingFinal()) && timeUp()) {
      stopReason = "time";
      break;
    }
    if (opts.patience > 0 && sinceImprovement >= opts.patience) {
      stopReason = "patience";
      break;
    }
    unsigned want = opts.batchSize;
    if (opts.maxTrials > 0)
      want = static_cast<unsigned>(
          std::min<int64_t>(want, opts.maxTrials - trialsDone));
    // The strategy's slow work stops at the end of the time budget; while
    // replaying it must redo what the recorded run did, so it runs whole.
    strategy.setDeadline(replaying ? Deadline() : budgetEnd);
    llvm::SmallVector<Trial> trials = strategy.propose(want);
    // Proposed after the deadline (perhaps cut short): not measured.
    if (!replaying && timeUp()) {
      unmeasuredAtDeadline += trials.size();
      stopReason = "time";
      break;
    }
    if (trials.empty()) {
      stopReason = "exhausted";
      break;
    }

    // De-duplicate against everything measured in this run (the default
    // config, typically); only new configs are measured.
    llvm::SmallVector<Config> fresh;
    llvm::SmallVector<size_t> freshIndex;
    llvm::SmallVector<std::optional<size_t>> known(trials.size());
    for (auto [i, trial] : llvm::enumerate(trials)) {
      auto it = firstResult.find(space.getKey(trial.cfg));
      if (it != firstResult.end()) {
        known[i] = it->second;
      } else {
        fresh.push_back(trial.cfg);
        freshIndex.push_back(i);
      }
    }
    llvm::SmallVector<bool> measured;
    Expected<bool> done =
        obtain(fresh, MeasurementRole::Search, results, &measured);
    if (!done)
      return fail(done.takeError());
    if (!*done) {
      completed = false;
      break;
    }
    llvm::SmallVector<MeasureResult> byTrial(trials.size());
    llvm::SmallVector<bool> haveTrial(trials.size(), true);
    for (auto [j, i] : llvm::enumerate(freshIndex)) {
      byTrial[i] = results[j];
      haveTrial[i] = measured[j];
    }
    // A batch the time budget ended is observed with what was measured.
    llvm::SmallVector<TrialResult> observed;
    for (auto [i, trial] : llvm::enumerate(trials)) {
      if (!haveTrial[i]) {
        ++unmeasuredAtDeadline;
        continue;
      }
      const MeasureResult &result =
          known[i] ? records[*known[i]].result : byTrial[i];
      TrialResult r;
      r.id = trial.id;
      r.cfg = trial.cfg;
      r.status = result.status;
      r.cost = result.ok() ? rankCost(result) : 0;
      r.message = result.message;
      observed.push_back(std::move(r));
    }
    if (Error err = strategy.observe(observed))
      return fail(std::move(err));
    // The search ends here; no checkpoint: a checkpoint describes a state
    // between two whole batches.
    if (cutByTime) {
      stopReason = "time";
      break;
    }
    if (Error err = checkpoint(/*force=*/false))
      return fail(std::move(err));
  }
  searchEndSeconds = elapsed();

  TuneResult result;
  result.runId = runId();
  result.resumed = resumed;
  if (!completed || stopRequested) {
    stopReason = "stopped";
    stopRequested = true;
  }
  result.stopReason = stopReason;

  // Config objects by key, for the answer.
  auto configOf = [&](StringRef key) -> std::optional<Config> {
    if (key == defaultKey)
      return defaultConfig;
    Expected<Config> parsed = space.parseKey(key);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return std::nullopt;
    }
    return *parsed;
  };

  auto defaultIt = firstResult.find(defaultKey);
  if (defaultIt != firstResult.end())
    result.defaultResult = records[defaultIt->second].result;

  std::string resultKey;
  if (bestIndex) {
    resultKey = records[*bestIndex].configKey;
    result.bestResult = records[*bestIndex].result;
  }

  // Confirm the winner against the default (and the runner-up).
  if (!stopRequested && opts.remeasureWinner && bestIndex) {
    Expected<bool> done =
        confirmWinner(defaultConfig, defaultKey, resultKey, result);
    if (!done)
      return fail(done.takeError());
    if (!*done) {
      stopRequested = true;
      result.stopReason = "stopped";
    }
  }

  RunStatus status =
      stopRequested ? RunStatus::Interrupted : RunStatus::Finished;
  // A checkpoint must describe a state between two search batches (all
  // proposals observed, no final re-measurement yet).
  if (status == RunStatus::Interrupted && stoppedBetweenBatches)
    if (Error err = checkpoint(/*force=*/true))
      return fail(std::move(err));
  if (Error err = db.updateRunStatus(
          runId(), status, elapsed(),
          status == RunStatus::Finished ? StringRef(resultKey) : StringRef()))
    return fail(std::move(err));

  result.status = status;
  if (!resultKey.empty()) {
    result.bestKey = resultKey;
    result.best = configOf(resultKey);
    result.bestIsDefault = resultKey == defaultKey;
  }
  result.trials = trialsDone;
  result.measuredNow = measuredNow;
  result.replayed = replayedCount;
  result.elapsedSeconds = elapsed();
  result.searchEndSeconds = searchEndSeconds;
  result.unmeasuredAtDeadline = unmeasuredAtDeadline;
  result.variantsPerSecond = variantsPerSecond();
  result.throughput = throughput;
  result.throughput.wallSeconds = sessionSeconds();
  printProgress(/*final=*/true);
  if (opts.showProgress)
    progress.summarize(result);
  return result;
}

//===----------------------------------------------------------------------===//
// ThroughputStats
//===----------------------------------------------------------------------===//

std::string ThroughputStats::summary() const {
  double n = measured > 0 ? double(measured) : 1.0;
  auto ms = [&](double seconds) {
    return llvm::formatv("{0:F0} ms", seconds / n * 1e3).str();
  };
  std::string text =
      llvm::formatv(
          "{0} variants in {1:F1} s ({2:F2}/s); wall per variant: our passes "
          "{3}, LLVM codegen {4}, measurement {5}, idle {6}; busy per variant: "
          "passes "
          "{7}, codegen {8}, verify {9}, timing {10}",
          measured, wallSeconds, variantsPerSecond(), ms(passWaitSeconds),
          ms(codegenWaitSeconds), ms(measureWaitSeconds), ms(idleSeconds()),
          ms(passSeconds), ms(codegenSeconds), ms(verifySeconds),
          ms(timingSeconds))
          .str();
  if (cacheHits)
    text += llvm::formatv("; {0} compiled variant{1} reused", cacheHits,
                          cacheHits == 1 ? "" : "s")
                .str();
  if (stoppedEarly)
    text += llvm::formatv("; {0} timing{1} stopped early", stoppedEarly,
                          stoppedEarly == 1 ? "" : "s")
                .str();
  return text;
}

//===----------------------------------------------------------------------===//
// Tuner
//===----------------------------------------------------------------------===//

Tuner::Tuner(const Space &space, Strategy &strategy, Measurer &measurer,
             TileTuneDatabase &database, TunerOptions options)
    : impl(std::make_unique<Impl>(space, strategy, measurer, database,
                                  std::move(options))) {}

Tuner::~Tuner() = default;

Expected<TuneResult> Tuner::run(const Config &defaultConfig) {
  return impl->run(defaultConfig);
}
