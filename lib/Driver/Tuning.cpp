//===- Tuning.cpp - The public C++ tuning API -----------------------------===//
//
// tune() and tuneOp() over the driver's tuneProblems (the code path of the
// CLI and the tuning passes): the callback and the cancel token are mapped
// onto the tuner's result hook and stop flag, the outcomes onto the public
// result types.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuning.h"

#include "tiletune/Driver/Driver.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

/// Fills the public event from the tuner's.
TuningEvent toTuningEvent(llvm::StringRef problemKey, unsigned index,
                          unsigned count, const TunerEvent &event) {
  TuningEvent out;
  out.problemKey = problemKey.str();
  out.problemIndex = index;
  out.numProblems = count;
  const MeasurementRecord &record = *event.record;
  out.configKey = record.configKey;
  out.role = stringifyMeasurementRole(record.role).str();
  out.status = stringifyMeasureStatus(record.result.status).str();
  out.message = record.result.message;
  if (record.result.ok()) {
    out.seconds = record.result.time.median;
    out.gflops = record.result.gflops;
  }
  out.replayed = event.replayed;
  out.trialsDone = event.trialsDone;
  out.maxTrials = event.maxTrials;
  if (event.best) {
    out.bestKey = event.best->configKey;
    out.bestSeconds = event.best->result.time.median;
    out.bestGflops = event.best->result.gflops;
  }
  out.elapsedSeconds = event.elapsedSeconds;
  return out;
}

ProblemTuningResult toProblemResult(const ProblemOutcome &outcome) {
  const TuneResult &r = outcome.result;
  ProblemTuningResult out;
  out.problemKey = outcome.problem.getKey();
  out.problemDescription =
      llvm::formatv("{0}", outcome.problem.toJSON()).str();
  out.numOps = outcome.numOps;
  out.bestConfig = outcome.bestConfig;
  out.bestConfigText = outcome.bestAttr;
  out.bestKey = r.best ? r.bestKey : std::string();
  out.bestIsDefault = r.best && r.bestIsDefault;
  if (r.best && r.bestResult.ok()) {
    out.bestSeconds = r.bestResult.time.median;
    out.bestGflops = r.bestResult.gflops;
  }
  if (r.defaultResult.ok()) {
    out.defaultSeconds = r.defaultResult.time.median;
    out.defaultGflops = r.defaultResult.gflops;
  } else {
    out.defaultMessage = r.defaultResult.message;
  }
  out.trials = r.trials;
  out.replayed = r.replayed;
  out.elapsedSeconds = r.elapsedSeconds;
  out.stopReason = r.stopReason;
  out.runId = r.runId;
  return out;
}

/// The driver's options for `options`: the callback and the cancel token as
/// the result hook and the stop flag (a stop flag of the caller's own is
/// still honoured, through the hook).
TuneOptions toDriverOptions(const TuningOptions &options) {
  TuneOptions driver = options;
  const CancelToken *cancel = options.cancel;
  const std::atomic<bool> *stopFlag = options.stopFlag;
  if (cancel && !stopFlag)
    driver.stopFlag = &cancel->getFlag();
  if (options.callback || (cancel && stopFlag)) {
    TuningCallback callback = options.callback;
    auto previous = options.onResult;
    driver.onResult = [callback, previous, cancel](llvm::StringRef key,
                                                   unsigned index,
                                                   unsigned count,
                                                   const TunerEvent &event) {
      bool go = true;
      if (previous)
        go = previous(key, index, count, event);
      if (callback && callback(toTuningEvent(key, index, count, event)) ==
                          TuningAction::Stop)
        go = false;
      if (cancel && cancel->isCancelled())
        go = false;
      return go;
    };
  }
  return driver;
}

TuningResult toTuningResult(const TuningOptions &options,
                            llvm::ArrayRef<ProblemOutcome> outcomes,
                            size_t numProblems) {
  TuningResult result;
  // Problems not started were left out because of a stop.
  result.stopped = outcomes.size() < numProblems;
  for (const ProblemOutcome &outcome : outcomes) {
    result.problems.push_back(toProblemResult(outcome));
    if (outcome.result.status == RunStatus::Interrupted)
      result.stopped = true;
  }
  result.databasePath = options.databasePath.empty()
                            ? getDefaultDatabasePath()
                            : options.databasePath;
  result.target = options.target;
  if (llvm::Error err = checkProblemsTuned(outcomes))
    result.failures = llvm::toString(std::move(err));
  return result;
}

} // namespace

llvm::Expected<TuningResult>
mlir::tiletune::tune(ModuleOp module, const TuningOptions &options) {
  // tuneModule's steps, keeping the number of problems.
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  if (options.timeBudgetSeconds > 0) {
    llvm::Expected<ModelOutcome> model =
        tuneModel(module, toDriverOptions(options));
    if (!model)
      return model.takeError();
    TuningResult result = toTuningResult(
        options, model->problems, model->problems.size());
    result.stopped = result.stopped || model->stopped;
    if (model->before && model->after) {
      result.modelSecondsBefore = model->before->median;
      result.modelSecondsAfter = model->after->median;
    }
    if (model->ratio)
      result.modelRatio = model->ratio->median;
    result.modelKeptPrevious = model->keptPrevious;
    result.modelError = model->endToEndError;
    for (const Problem &problem : model->untuned)
      result.untunedProblems.push_back(problem.getKey());
    for (const SkippedOps &skipped : model->skipped) {
      std::string line = llvm::formatv("{0} x {1} ({2})", skipped.count,
                                       skipped.opName, skipped.reason);
      if (skipped.countable && model->modelFlops > 0)
        line += llvm::formatv(", {0:F2}% of the model's FLOPs",
                              100.0 * skipped.flops / model->modelFlops)
                    .str();
      result.skippedOps.push_back(line);
    }
    return result;
  }
  FailureOr<ProblemSet> set =
      collectProblems(module, options.target, /*allowEmpty=*/false,
                      tunesWithEpilogues(options));
  if (failed(set))
    return llvm::createStringError(
        "the module cannot be tuned (see the errors above)");
  llvm::Expected<std::vector<ProblemOutcome>> outcomes =
      tuneProblems(module.getContext(), *set, toDriverOptions(options));
  if (!outcomes)
    return outcomes.takeError();
  return toTuningResult(options, *outcomes, set->problems.size());
}

llvm::Expected<ProblemTuningResult>
mlir::tiletune::tuneOp(Operation *op, const TuningOptions &options) {
  if (!op)
    return llvm::createStringError("tuneOp: no op given");
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  std::string reason;
  FailureOr<Problem> problem = extractProblem(op, options.target, &reason,
                                              tunesWithEpilogues(options));
  if (failed(problem))
    return llvm::createStringError(
        "tuneOp: cannot tune '" + op->getName().getStringRef() + "'" +
        (reason.empty() ? std::string() : ": " + reason));
  if (!op->getParentOfType<ModuleOp>())
    return llvm::createStringError("tuneOp: the op must be inside a module");
  ProblemSet set;
  set.problems.push_back(*problem);
  set.ops.push_back({op});
  llvm::Expected<std::vector<ProblemOutcome>> outcomes =
      tuneProblems(op->getContext(), set, toDriverOptions(options));
  if (!outcomes)
    return outcomes.takeError();
  if (outcomes->empty())
    return llvm::createStringError(
        "tuneOp: stopped before the op was tuned");
  return toProblemResult(outcomes->front());
}
