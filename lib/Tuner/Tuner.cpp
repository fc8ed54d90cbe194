//===- Tuner.cpp - The generic tuning loop --------------------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The loop: measure the default config, then repeatedly ask the strategy for
// a batch, measure what was not measured before, record each result in the
// database as it arrives, and tell the strategy; at the end re-measure the
// winner and the default. Resume reads the run's records back and replays
// them through the strategy (from the last checkpoint of its state, if any)
// instead of measuring them again.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuner/Tuner.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <vector>

using namespace mlir::tiletune;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

Measurer::~Measurer() = default;
void Measurer::replayed(const MeasureResult &) {}

namespace {
using Clock = std::chrono::steady_clock;

constexpr StringRef kCheckpointFormat = "tiletune-tuner-checkpoint/1";

std::string jsonText(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

/// "1:02:03" or "2:03".
std::string formatDuration(double seconds) {
  int64_t total = static_cast<int64_t>(seconds);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (total >= 3600)
    os << total / 3600 << ':' << llvm::format("%02d", int((total / 60) % 60));
  else
    os << total / 60;
  os << ':' << llvm::format("%02d", int(total % 60));
  return text;
}

/// "1.23 ms" style time.
std::string formatSeconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds >= 1)
    os << llvm::format("%.3g s", seconds);
  else if (seconds >= 1e-3)
    os << llvm::format("%.3g ms", seconds * 1e3);
  else
    os << llvm::format("%.3g us", seconds * 1e6);
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Tuner::Impl
//===----------------------------------------------------------------------===//

class Tuner::Impl {
public:
  Impl(const Space &space, Strategy &strategy, Measurer &measurer,
       TileTuneDatabase &db, TunerOptions options)
      : space(space), strategy(strategy), measurer(measurer), db(db),
        opts(std::move(options)) {
    out = opts.progressStream ? opts.progressStream : &llvm::errs();
  }

  Expected<TuneResult> run(const Config &defaultConfig);

private:
  Error validate(const Config &defaultConfig);
  llvm::json::Object trajectory(const Config &defaultConfig) const;
  Error startOrResume(const Config &defaultConfig);
  /// Measures (or replays) \p batch; fills \p results in batch order.
  /// Returns false when the run was stopped before the batch completed.
  Expected<bool> obtain(llvm::ArrayRef<Config> batch, MeasurementRole role,
                        llvm::SmallVectorImpl<MeasureResult> &results);
  /// Accounts for a recorded or replayed measurement.
  void addRecord(MeasurementRecord record, bool replayed);
  Error checkpoint(bool force);
  Error fail(Error err);
  double elapsed() const {
    return priorElapsed +
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
  bool stopFlagSet() const {
    return opts.stopFlag && opts.stopFlag->load(std::memory_order_relaxed);
  }
  void printProgress(bool final);

  const Space &space;
  Strategy &strategy;
  Measurer &measurer;
  TileTuneDatabase &db;
  TunerOptions opts;
  llvm::raw_ostream *out;

  RunInfo runInfo;
  bool resumed = false;
  /// Every measurement of the run so far, in trial order.
  std::vector<MeasurementRecord> records;
  /// Recorded measurements still to be replayed (resume).
  std::deque<MeasurementRecord> replayQueue;
  /// Config key -> index in records of its first default/search result.
  llvm::StringMap<size_t> firstResult;
  std::optional<size_t> bestIndex;
  int64_t trialsDone = 0;
  int64_t sinceImprovement = 0;
  int64_t measuredNow = 0;
  int64_t replayedCount = 0;
  double priorElapsed = 0;
  Clock::time_point sessionStart = Clock::now();
  Clock::time_point lastCheckpoint = Clock::now();
  Clock::time_point lastPrint;
  bool printedAny = false;
  bool stopRequested = false;
  std::string stopReason;
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

llvm::json::Object Tuner::Impl::trajectory(const Config &defaultConfig) const {
  llvm::json::Object options;
  for (const auto &[name, value] : strategy.getOptions())
    options[name] = value;
  llvm::json::Object object{
      {"strategy", strategy.getName()},
      {"strategy_options", std::move(options)},
      {"space", space.getName()},
      {"batch_size", static_cast<int64_t>(opts.batchSize)},
      {"default_config", space.getKey(defaultConfig)},
      {"remeasure_winner", opts.remeasureWinner},
      {"patience", opts.patience},
  };
  if (!opts.measurement.empty())
    object["measurement"] = opts.measurement;
  return object;
}

Error Tuner::Impl::startOrResume(const Config &defaultConfig) {
  llvm::json::Object wanted = trajectory(defaultConfig);
  if (opts.resume) {
    Expected<std::optional<RunInfo>> found = db.findResumableRun(
        opts.problemKey, opts.target, strategy.getName(), strategy.getSeed());
    if (!found)
      return found.takeError();
    if (*found) {
      RunInfo &previous = **found;
      auto mismatch = [&](const llvm::Twine &why) {
        return llvm::createStringError(
            "tuner: cannot resume run " + llvm::Twine(previous.id) + " of '" +
            opts.problemKey + "' in '" + db.getPath() + "': " + why);
      };
      Expected<llvm::json::Value> recorded =
          llvm::json::parse(previous.options);
      if (!recorded) {
        llvm::consumeError(recorded.takeError());
        return mismatch("its recorded options are not valid JSON");
      }
      const llvm::json::Object *recordedObject = recorded->getAsObject();
      const llvm::json::Object *recordedTrajectory =
          recordedObject ? recordedObject->getObject("trajectory") : nullptr;
      if (!recordedTrajectory)
        return mismatch("it was not started by the tuning loop");
      for (const auto &[key, value] : wanted) {
        const llvm::json::Value *old = recordedTrajectory->get(key);
        if (!old || *old != value)
          return mismatch("its setting '" + llvm::StringRef(key) + "' was " +
                          (old ? jsonText(*old) : std::string("absent")) +
                          ", now " + jsonText(value) +
                          " (start a new run or use the same settings)");
      }
      if (recordedTrajectory->size() != wanted.size())
        return mismatch("it was recorded with other settings");

      // A run marked running may still be tuned by a live process.
      std::string me = getCurrentRunOwner();
      if (previous.status == RunStatus::Running && !previous.owner.empty() &&
          previous.owner != me) {
        std::optional<bool> alive = isRunOwnerAlive(previous.owner);
        if (alive && *alive)
          return mismatch("it is being tuned right now by process " +
                          previous.owner.substr(0, previous.owner.rfind(':')) +
                          " (wait for it to end, or stop it first)");
        if (!alive && opts.showProgress)
          *out << "tiletune: warning: run " << previous.id
               << " was started on another host (" << previous.owner
               << "); resuming it here assumes that process is gone\n";
      }
      Expected<bool> claimed = db.claimRun(previous.id, previous.owner, me);
      if (!claimed)
        return claimed.takeError();
      if (!*claimed)
        return mismatch("another process took it over just now");
      previous.owner = me;

      Expected<llvm::SmallVector<MeasurementRecord, 0>> recordedResults =
          db.measurementsOfRun(previous.id);
      if (!recordedResults)
        return recordedResults.takeError();
      for (auto [index, record] : llvm::enumerate(*recordedResults))
        if (record.trial != static_cast<int64_t>(index))
          return mismatch("its trial indices are not contiguous (trial " +
                          llvm::Twine(record.trial) + " at position " +
                          llvm::Twine(index) + ")");

      size_t consumed = 0;
      if (!previous.strategyState.empty()) {
        Expected<llvm::json::Value> state =
            llvm::json::parse(previous.strategyState);
        if (!state) {
          llvm::consumeError(state.takeError());
          return mismatch("its saved strategy state is not valid JSON");
        }
        const llvm::json::Object *object = state->getAsObject();
        std::optional<int64_t> count =
            object ? object->getInteger("consumed") : std::nullopt;
        const llvm::json::Value *saved =
            object ? object->get("strategy") : nullptr;
        if (!object || object->getString("format") != kCheckpointFormat ||
            !count || !saved || *count < 0 ||
            static_cast<size_t>(*count) > recordedResults->size())
          return mismatch("its saved strategy state is malformed");
        for (size_t i = 0; i < static_cast<size_t>(*count); ++i)
          if ((*recordedResults)[i].role == MeasurementRole::Final)
            return mismatch("its saved strategy state covers a final "
                            "re-measurement (malformed checkpoint)");
        if (Error err = strategy.loadState(*saved))
          return mismatch("its saved strategy state does not load: " +
                          llvm::toString(std::move(err)));
        consumed = static_cast<size_t>(*count);
      }
      runInfo = previous;
      resumed = true;
      priorElapsed = previous.elapsedSeconds;
      for (size_t i = 0; i < recordedResults->size(); ++i) {
        measurer.replayed((*recordedResults)[i].result);
        if (i < consumed)
          addRecord((*recordedResults)[i], /*replayed=*/true);
        else
          replayQueue.push_back((*recordedResults)[i]);
      }
      if (opts.showProgress)
        *out << "tiletune: resuming run " << runInfo.id << " ("
             << recordedResults->size() << " recorded measurements, "
             << formatDuration(priorElapsed) << " spent)\n";
      return db.updateRunStatus(runInfo.id, RunStatus::Running, priorElapsed);
    }
    if (opts.showProgress)
      *out << "tiletune: no unfinished run of '" << opts.problemKey
           << "' with strategy '" << strategy.getName() << "' and seed "
           << strategy.getSeed() << " to resume; starting a new run\n";
  }

  runInfo = RunInfo();
  runInfo.problemKey = opts.problemKey;
  runInfo.problemDescription = opts.problemDescription;
  runInfo.target = opts.target;
  runInfo.algorithm = strategy.getName().str();
  runInfo.seed = strategy.getSeed();
  runInfo.budgetTrials = opts.maxTrials;
  runInfo.owner = getCurrentRunOwner();
  runInfo.budgetSeconds = opts.maxSeconds;
  llvm::json::Object tuner{
      {"max_trials", opts.maxTrials},
      {"max_seconds", opts.maxSeconds},
      {"flops", opts.flops},
      {"initial_run_timeout", opts.initialRunTimeoutSeconds},
      {"timeout_factor", opts.timeoutFactor},
      {"run_timeout_floor", opts.runTimeoutFloorSeconds},
      {"compile_timeout", opts.compileTimeoutSeconds},
  };
  runInfo.options = jsonText(llvm::json::Object{
      {"trajectory", std::move(wanted)}, {"tuner", std::move(tuner)}});
  return db.recordRun(runInfo);
}

void Tuner::Impl::addRecord(MeasurementRecord record, bool replayed) {
  records.push_back(std::move(record));
  size_t index = records.size() - 1;
  const MeasurementRecord &rec = records.back();
  if (rec.role != MeasurementRole::Final) {
    ++trialsDone;
    firstResult.try_emplace(rec.configKey, index);
    bool improved =
        rec.result.ok() &&
        (!bestIndex ||
         rec.result.time.seconds() < records[*bestIndex].result.time.seconds());
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
                    llvm::SmallVectorImpl<MeasureResult> &results) {
  size_t n = batch.size();
  results.assign(n, MeasureResult());
  llvm::SmallVector<std::string> keys;
  for (const Config &config : batch)
    keys.push_back(space.getKey(config));
  llvm::SmallVector<bool> have(n, false);

  // Replay: the recorded measurements of this batch come next in the queue
  // (in the order they completed, which may differ from the batch order).
  while (!replayQueue.empty()) {
    const MeasurementRecord &next = replayQueue.front();
    size_t match = n;
    for (size_t i = 0; i < n; ++i)
      if (!have[i] && next.role == role && next.configKey == keys[i]) {
        match = i;
        break;
      }
    if (match == n)
      break;
    have[match] = true;
    results[match] = next.result;
    MeasurementRecord record = std::move(replayQueue.front());
    replayQueue.pop_front();
    addRecord(std::move(record), /*replayed=*/true);
  }
  size_t missing = llvm::count(have, false);
  if (missing == 0)
    return true;
  if (!replayQueue.empty()) {
    const MeasurementRecord &next = replayQueue.front();
    std::string wanted;
    for (size_t i = 0; i < n; ++i)
      if (!have[i])
        wanted += (wanted.empty() ? "'" : ", '") + keys[i] + "'";
    return llvm::createStringError(
        "tuner: cannot resume run " + llvm::Twine(runInfo.id) +
        ": recorded trial " + llvm::Twine(next.trial) + " measured " +
        stringifyMeasurementRole(next.role) + " config '" + next.configKey +
        "', but the search now asks for " + stringifyMeasurementRole(role) +
        " config(s) " + wanted +
        " (did the strategy, its options, the space or the budget change?)");
  }
  if (stopRequested)
    return false;

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
    size_t i = liveIndex[j];
    MeasurementRecord record;
    record.runId = runInfo.id;
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
    return !stopRequested;
  };
  Error measureError = measurer.measure(live, request, sink);
  if (sinkError) {
    llvm::consumeError(std::move(measureError));
    return std::move(*sinkError);
  }
  if (measureError)
    return llvm::createStringError("tuner: measuring failed: " +
                                   llvm::toString(std::move(measureError)));
  if (stopRequested)
    return false;
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
  llvm::json::Object state{{"format", kCheckpointFormat},
                           {"consumed", static_cast<int64_t>(records.size())},
                           {"strategy", strategy.saveState()}};
  return db.saveStrategyState(runInfo.id, jsonText(std::move(state)));
}

Error Tuner::Impl::fail(Error err) {
  // Keep the run resumable and say how.
  printProgress(/*final=*/true);
  if (runInfo.id > 0) {
    if (Error update =
            db.updateRunStatus(runInfo.id, RunStatus::Failed, elapsed()))
      llvm::consumeError(std::move(update));
    return llvm::createStringError(llvm::toString(std::move(err)) + " (run " +
                                   llvm::Twine(runInfo.id) +
                                   " is kept; continue it with resume)");
  }
  return err;
}

void Tuner::Impl::printProgress(bool final) {
  if (!opts.showProgress)
    return;
  bool terminal = out->is_displayed();
  auto now = Clock::now();
  double sincePrint = std::chrono::duration<double>(now - lastPrint).count();
  if (!final && printedAny && sincePrint < (terminal ? 0.1 : 5.0))
    return;
  lastPrint = now;
  printedAny = true;

  double fraction = 0;
  if (opts.maxTrials > 0)
    fraction = double(trialsDone) / double(opts.maxTrials);
  if (opts.maxSeconds > 0)
    fraction = std::max(fraction, elapsed() / opts.maxSeconds);
  fraction = std::min(1.0, std::max(0.0, fraction));
  constexpr int kWidth = 20;
  int filled = static_cast<int>(fraction * kWidth);

  std::string line;
  llvm::raw_string_ostream os(line);
  os << "tiletune [" << std::string(filled, '#')
     << std::string(kWidth - filled, '.') << "] " << trialsDone;
  if (opts.maxTrials > 0)
    os << '/' << opts.maxTrials;
  os << " trials";
  if (bestIndex) {
    const MeasureResult &best = records[*bestIndex].result;
    os << " | best ";
    if (best.gflops > 0)
      os << llvm::format("%.1f GFLOP/s ", best.gflops);
    os << formatSeconds(best.time.seconds());
  }
  os << " | " << llvm::format("%.1f", variantsPerSecond()) << " variants/s | "
     << formatDuration(elapsed());
  if (opts.maxSeconds > 0)
    os << '/' << formatDuration(opts.maxSeconds);
  if (replayedCount > 0)
    os << " | " << replayedCount << " replayed";

  if (terminal)
    *out << '\r' << line << "\x1b[K" << (final ? "\n" : "");
  else
    *out << line << '\n';
  out->flush();
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
    bool replaying = !replayQueue.empty();
    if (opts.maxTrials > 0 && trialsDone >= opts.maxTrials) {
      stopReason = "budget";
      break;
    }
    if (!replaying && opts.maxSeconds > 0 && elapsed() >= opts.maxSeconds) {
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
    llvm::SmallVector<Trial> trials = strategy.propose(want);
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
      auto it = firstResult.find(space.getKey(trial.Cfg));
      if (it != firstResult.end()) {
        known[i] = it->second;
      } else {
        fresh.push_back(trial.Cfg);
        freshIndex.push_back(i);
      }
    }
    Expected<bool> done = obtain(fresh, MeasurementRole::Search, results);
    if (!done)
      return fail(done.takeError());
    if (!*done) {
      completed = false;
      break;
    }
    llvm::SmallVector<MeasureResult> byTrial(trials.size());
    for (auto [j, i] : llvm::enumerate(freshIndex))
      byTrial[i] = results[j];
    llvm::SmallVector<TrialResult> observed;
    for (auto [i, trial] : llvm::enumerate(trials)) {
      const MeasureResult &result =
          known[i] ? records[*known[i]].result : byTrial[i];
      TrialResult r;
      r.Id = trial.Id;
      r.Cfg = trial.Cfg;
      r.Status = result.status;
      r.Cost = result.ok() ? result.time.seconds() : 0;
      r.Message = result.message;
      observed.push_back(std::move(r));
    }
    if (Error err = strategy.observe(observed))
      return fail(std::move(err));
    if (Error err = checkpoint(/*force=*/false))
      return fail(std::move(err));
  }

  TuneResult result;
  result.runId = runInfo.id;
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

  // Re-measure the winner and the default; the faster re-measurement wins.
  if (!stopRequested && opts.remeasureWinner && bestIndex) {
    llvm::SmallVector<Config> finals;
    std::optional<Config> winner = configOf(resultKey);
    if (!winner)
      return fail(llvm::createStringError(
          "tuner: cannot parse the winning config key '" + resultKey + "'"));
    finals.push_back(*winner);
    bool withDefault = resultKey != defaultKey && result.defaultResult.ok();
    if (withDefault)
      finals.push_back(defaultConfig);
    Expected<bool> done = obtain(finals, MeasurementRole::Final, results);
    if (!done)
      return fail(done.takeError());
    if (!*done) {
      stopRequested = true;
      result.stopReason = "stopped";
    } else {
      const MeasureResult &winnerAgain = results[0];
      if (withDefault)
        result.defaultResult = results[1];
      else if (resultKey == defaultKey)
        result.defaultResult = winnerAgain;
      if (withDefault && results[1].ok() &&
          (!winnerAgain.ok() ||
           results[1].time.seconds() < winnerAgain.time.seconds())) {
        resultKey = defaultKey;
        result.bestResult = results[1];
      } else if (winnerAgain.ok()) {
        result.bestResult = winnerAgain;
      }
      // When both re-measurements failed, the search result stands.
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
          runInfo.id, status, elapsed(),
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
  result.variantsPerSecond = variantsPerSecond();
  printProgress(/*final=*/true);
  if (opts.showProgress) {
    *out << "tiletune: run " << result.runId << " "
         << stringifyRunStatus(status) << " (" << result.stopReason
         << "): " << result.trials << " trials";
    if (result.best) {
      *out << ", best " << formatSeconds(result.bestResult.time.seconds());
      if (result.bestResult.gflops > 0)
        *out << llvm::format(" (%.1f GFLOP/s)", result.bestResult.gflops);
      if (result.defaultResult.ok() && result.bestResult.time.seconds() > 0)
        *out << llvm::format(", %.2fx over the default",
                             result.defaultResult.time.seconds() /
                                 result.bestResult.time.seconds());
    }
    *out << "\n";
    out->flush();
  }
  return result;
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
