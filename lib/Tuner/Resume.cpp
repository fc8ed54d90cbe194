//===- Resume.cpp - Start, resume and checkpoint a tuning run -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// A run is resumed only when it was recorded with the same settings, no
// live process tunes it (the owner claim is a compare-and-swap), its trials
// are contiguous and its checkpoint is well formed. The checkpoint (format
// "tiletune-tuner-checkpoint/1") is the strategy's saved state plus how many
// recorded results it has observed; the results after those are replayed
// through the strategy, in the order they completed, instead of being
// measured again.
//
//===----------------------------------------------------------------------===//

#include "Resume.h"
#include "Progress.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
constexpr StringRef kCheckpointFormat = "tiletune-tuner-checkpoint/1";
} // namespace

std::string mlir::tiletune::detail::jsonText(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

llvm::json::Object RunJournal::settingsOf(const Space &space,
                                          const Strategy &strategy,
                                          const TunerOptions &opts,
                                          const Config &defaultConfig) {
  llvm::json::Object options;
  for (const auto &[name, value] : strategy.getOptions())
    // No seeds is recorded as no option, so that runs recorded before the
    // option existed still resume.
    if (name != "seed_configs" || !value.empty())
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

//===----------------------------------------------------------------------===//
// Starting and resuming
//===----------------------------------------------------------------------===//

Expected<bool> RunJournal::startOrResume(
    const llvm::json::Object &settings, Measurer &measurer,
    llvm::function_ref<void(MeasurementRecord record)> replayed) {
  if (opts.resume) {
    Expected<std::optional<RunInfo>> found = db.findResumableRun(
        opts.problemKey, opts.target, strategy.getName(), strategy.getSeed());
    if (!found)
      return found.takeError();
    if (*found) {
      if (Error err = resume(std::move(**found), settings, measurer, replayed))
        return std::move(err);
      return true;
    }
    // Said even without progress output: the caller asked to continue and
    // gets a fresh run instead.
    out << "tiletune: warning: nothing to resume: " << describeNoRunToResume()
        << "; starting a new run\n";
    out.flush();
  }
  if (Error err = start(llvm::json::Object(settings)))
    return std::move(err);
  return false;
}

Error RunJournal::start(llvm::json::Object settings) {
  run = RunInfo();
  run.problemKey = opts.problemKey;
  run.problemDescription = opts.problemDescription;
  run.target = opts.target;
  run.algorithm = strategy.getName().str();
  run.seed = strategy.getSeed();
  run.budgetTrials = opts.maxTrials;
  run.owner = getCurrentRunOwner();
  run.budgetSeconds = opts.maxSeconds;
  llvm::json::Object tuner{
      {"max_trials", opts.maxTrials},
      {"max_seconds", opts.maxSeconds},
      {"flops", opts.flops},
      {"initial_run_timeout", opts.initialRunTimeoutSeconds},
      {"timeout_factor", opts.timeoutFactor},
      {"run_timeout_floor", opts.runTimeoutFloorSeconds},
      {"compile_timeout", opts.compileTimeoutSeconds},
  };
  run.options = jsonText(llvm::json::Object{{"trajectory", std::move(settings)},
                                            {"tuner", std::move(tuner)}});
  return db.recordRun(run);
}

std::string RunJournal::describeNoRunToResume() {
  std::string text = "no unfinished run of '" + opts.problemKey +
                     "' with algorithm '" + strategy.getName().str() +
                     "', seed " + std::to_string(strategy.getSeed()) +
                     " and target " + opts.target.describe();
  // Name what differs in the most recent unfinished run of the problem, if
  // any: a changed algorithm, seed or target (threads, machine, toolchain)
  // selects another run.
  Expected<llvm::SmallVector<RunInfo, 0>> runs = db.listRuns(opts.problemKey);
  if (!runs) {
    llvm::consumeError(runs.takeError());
    return text;
  }
  for (const RunInfo &other : llvm::reverse(*runs)) {
    if (other.status == RunStatus::Finished)
      continue;
    std::string differences;
    auto differ = [&](StringRef what, const std::string &then,
                      const std::string &now) {
      if (then == now)
        return;
      differences += (differences.empty() ? "" : ", ") + what.str() + " " +
                     then + " (now " + now + ")";
    };
    differ("algorithm", "'" + other.algorithm + "'",
           "'" + strategy.getName().str() + "'");
    differ("seed", std::to_string(other.seed),
           std::to_string(strategy.getSeed()));
    if (other.target.kind != opts.target.kind)
      differ("target", other.target.kind, opts.target.kind);
    differ("threads", std::to_string(other.target.threads),
           std::to_string(opts.target.threads));
    if (other.target.kind == opts.target.kind &&
        other.target.threads == opts.target.threads &&
        other.target != opts.target)
      differ("target", "'" + other.target.describe() + "'",
             "'" + opts.target.describe() + "'");
    if (differences.empty())
      continue;
    text += " (the most recent unfinished run of this problem, run " +
            std::to_string(other.id) + ", was tuned with " + differences +
            ")";
    break;
  }
  return text;
}

Error RunJournal::resume(
    RunInfo previous, const llvm::json::Object &settings, Measurer &measurer,
    llvm::function_ref<void(MeasurementRecord record)> replayed) {
  if (Error err = checkSettings(previous, settings))
    return err;
  Expected<llvm::SmallVector<MeasurementRecord, 0>> results =
      readResults(previous);
  if (!results)
    return results.takeError();
  // A trial budget below what the run has measured is spent before the
  // resume starts: replaying only part of the records would leave the
  // others behind in the run.
  int64_t recordedTrials = llvm::count_if(*results, [](const auto &record) {
    return record.role != MeasurementRole::Final;
  });
  if (opts.maxTrials > 0 && recordedTrials > opts.maxTrials)
    return cannotResume(
        previous, "its trial budget is already spent: it has measured " +
                      llvm::Twine(recordedTrials) +
                      " trials, more than the trial budget of " +
                      llvm::Twine(opts.maxTrials) +
                      " (resume with a trial budget of at least " +
                      llvm::Twine(recordedTrials) +
                      " to continue it, or start a new run)");
  if (Error err = claim(previous))
    return err;
  Expected<size_t> consumed = loadCheckpoint(previous, *results);
  if (!consumed)
    return consumed.takeError();

  run = std::move(previous);
  size_t numResults = results->size();
  for (auto [index, record] : llvm::enumerate(*results)) {
    measurer.replayed(record.result);
    if (index < *consumed)
      replayed(std::move(record));
    else
      replayQueue.push_back(std::move(record));
  }
  if (opts.showProgress)
    out << "tiletune: resuming run " << run.id << " (" << numResults
        << " recorded measurements, " << formatClock(run.elapsedSeconds)
        << " spent)\n";
  return db.updateRunStatus(run.id, RunStatus::Running, run.elapsedSeconds);
}

Error RunJournal::cannotResume(const RunInfo &previous,
                               const llvm::Twine &why) {
  return llvm::createStringError(
      "tuner: cannot resume run " + llvm::Twine(previous.id) + " of '" +
      opts.problemKey + "' in '" + db.getPath() + "': " + why);
}

Error RunJournal::checkSettings(const RunInfo &previous,
                                const llvm::json::Object &settings) {
  Expected<llvm::json::Value> recorded = llvm::json::parse(previous.options);
  if (!recorded) {
    llvm::consumeError(recorded.takeError());
    return cannotResume(previous, "its recorded options are not valid JSON");
  }
  const llvm::json::Object *recordedObject = recorded->getAsObject();
  const llvm::json::Object *recordedSettings =
      recordedObject ? recordedObject->getObject("trajectory") : nullptr;
  if (!recordedSettings)
    return cannotResume(previous, "it was not started by the tuning loop");
  // Every setting in either record, in a stable order: one that is absent
  // on one side changed too (e.g. "measurement" is recorded only for paired
  // timing).
  llvm::SmallVector<std::string> keys;
  for (const auto &entry : settings)
    keys.push_back(entry.first.str());
  for (const auto &entry : *recordedSettings)
    if (!settings.get(entry.first))
      keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    const llvm::json::Value *old = recordedSettings->get(key);
    const llvm::json::Value *now = settings.get(key);
    if (old && now && *old == *now)
      continue;
    std::string what = "setting '" + key + "'";
    std::string then = old ? jsonText(*old) : std::string("absent");
    std::string current = now ? jsonText(*now) : std::string("absent");
    // Strategy options: name the option that changed.
    const llvm::json::Object *oldObject = old ? old->getAsObject() : nullptr;
    const llvm::json::Object *nowObject = now ? now->getAsObject() : nullptr;
    if (oldObject && nowObject) {
      llvm::SmallVector<std::string> inner;
      for (const auto &entry : *nowObject)
        inner.push_back(entry.first.str());
      for (const auto &entry : *oldObject)
        if (!nowObject->get(entry.first))
          inner.push_back(entry.first.str());
      llvm::sort(inner);
      for (const std::string &name : inner) {
        const llvm::json::Value *a = oldObject->get(name);
        const llvm::json::Value *b = nowObject->get(name);
        if (a && b && *a == *b)
          continue;
        what = "setting '" + key + "." + name + "'";
        then = a ? jsonText(*a) : std::string("absent");
        current = b ? jsonText(*b) : std::string("absent");
        break;
      }
    }
    return cannotResume(previous, "its " + what + " was " + then + ", now " +
                                      current +
                                      " (start a new run or use the same "
                                      "settings)");
  }
  return Error::success();
}

Error RunJournal::claim(RunInfo &previous) {
  // A run marked running may still be tuned by a live process.
  std::string me = getCurrentRunOwner();
  if (previous.status == RunStatus::Running && !previous.owner.empty() &&
      previous.owner != me) {
    std::optional<bool> alive = isRunOwnerAlive(previous.owner);
    if (alive && *alive)
      return cannotResume(
          previous, "it is being tuned right now by process " +
                        previous.owner.substr(0, previous.owner.rfind(':')) +
                        " (wait for it to end, or stop it first)");
    if (!alive && opts.showProgress)
      out << "tiletune: warning: run " << previous.id
          << " was started on another host (" << previous.owner
          << "); resuming it here assumes that process is gone\n";
  }
  Expected<bool> claimed = db.claimRun(previous.id, previous.owner, me);
  if (!claimed)
    return claimed.takeError();
  if (!*claimed)
    return cannotResume(previous, "another process took it over just now");
  previous.owner = me;
  return Error::success();
}

Expected<llvm::SmallVector<MeasurementRecord, 0>>
RunJournal::readResults(const RunInfo &previous) {
  Expected<llvm::SmallVector<MeasurementRecord, 0>> results =
      db.measurementsOfRun(previous.id);
  if (!results)
    return results.takeError();
  for (auto [index, record] : llvm::enumerate(*results))
    if (record.trial != static_cast<int64_t>(index))
      return cannotResume(previous,
                          "its trial indices are not contiguous (trial " +
                              llvm::Twine(record.trial) + " at position " +
                              llvm::Twine(index) + ")");
  return results;
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

Expected<size_t>
RunJournal::loadCheckpoint(const RunInfo &previous,
                           llvm::ArrayRef<MeasurementRecord> results) {
  if (previous.strategyState.empty())
    return 0;
  Expected<llvm::json::Value> state = llvm::json::parse(previous.strategyState);
  if (!state) {
    llvm::consumeError(state.takeError());
    return cannotResume(previous, "its saved strategy state is not valid JSON");
  }
  const llvm::json::Object *object = state->getAsObject();
  std::optional<int64_t> count =
      object ? object->getInteger("consumed") : std::nullopt;
  const llvm::json::Value *saved = object ? object->get("strategy") : nullptr;
  if (!object || object->getString("format") != kCheckpointFormat || !count ||
      !saved || *count < 0 || static_cast<size_t>(*count) > results.size())
    return cannotResume(previous, "its saved strategy state is malformed");
  for (size_t i = 0; i < static_cast<size_t>(*count); ++i)
    if (results[i].role == MeasurementRole::Final)
      return cannotResume(previous, "its saved strategy state covers a final "
                                    "re-measurement (malformed checkpoint)");
  if (Error err = strategy.loadState(*saved))
    return cannotResume(previous, "its saved strategy state does not load: " +
                                      llvm::toString(std::move(err)));
  return static_cast<size_t>(*count);
}

Error RunJournal::saveCheckpoint(size_t consumed) {
  llvm::json::Object state{{"format", kCheckpointFormat},
                           {"consumed", static_cast<int64_t>(consumed)},
                           {"strategy", strategy.saveState()}};
  return db.saveStrategyState(run.id, jsonText(std::move(state)));
}

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

Error RunJournal::replay(
    llvm::ArrayRef<std::string> keys, MeasurementRole role,
    llvm::MutableArrayRef<bool> have,
    llvm::function_ref<void(size_t index, MeasurementRecord record)> replayed,
    bool searchMayEnd) {
  size_t n = keys.size();
  // The recorded results of this batch come next in the queue (in the order
  // they completed, which may differ from the batch order).
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
    MeasurementRecord record = std::move(replayQueue.front());
    replayQueue.pop_front();
    replayed(match, std::move(record));
  }
  if (!llvm::is_contained(have, false) || replayQueue.empty())
    return Error::success();

  const MeasurementRecord &next = replayQueue.front();
  if (next.role == MeasurementRole::Final && role == MeasurementRole::Search &&
      searchMayEnd)
    return Error::success();
  if (next.role == MeasurementRole::Final && role == MeasurementRole::Search)
    return llvm::createStringError(
        "tuner: cannot resume run " + llvm::Twine(run.id) +
        ": it ended its search before trial " + llvm::Twine(next.trial) +
        " and recorded its final re-measurement, but this session's budget "
        "would search on (a run that reached its final re-measurement cannot "
        "be extended; resume it with the budget it had, or start a new run)");
  std::string wanted;
  for (size_t i = 0; i < n; ++i)
    if (!have[i])
      wanted += (wanted.empty() ? "'" : ", '") + keys[i] + "'";
  return llvm::createStringError(
      "tuner: cannot resume run " + llvm::Twine(run.id) + ": recorded trial " +
      llvm::Twine(next.trial) + " measured " +
      stringifyMeasurementRole(next.role) + " config '" + next.configKey +
      "', but the search now asks for " + stringifyMeasurementRole(role) +
      " config(s) " + wanted +
      " (did the strategy, its options, the space or the budget change?)");
}
