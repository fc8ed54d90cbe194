//===- CPUProblemMeasurer.cpp - The tuner's measurer for CPU problems -----===//
//
// Turns the tuner's configs into attributes, measures them in one or two
// isolated workers (compiling the next candidate while the current one is
// timed). Results are reported as measured; paired timing adds the ratio to
// the reference beside the measured times, it never rescales them.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/CPUMeasurer.h"

#include "tiletune/Measure/Candidates.h"

#include <algorithm>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace mlir::tiletune;


CPUProblemMeasurer::CPUProblemMeasurer(MLIRContext *ctx,
                                       const Problem &problem,
                                       const Space &space,
                                       const CPUMeasureOptions &options,
                                       bool overlapCompile,
                                       std::string kernelText)
    : ctx(ctx), problem(problem), space(space), options(options),
      kernelText(kernelText.empty() ? getProblemKernelText(problem)
                                    : std::move(kernelText)),
      worker(this->kernelText, options) {
  if (overlapCompile)
    secondWorker = std::make_unique<CPUMeasurer>(this->kernelText, options);
}

llvm::Error CPUProblemMeasurer::measure(ArrayRef<Config> batch,
                                        const MeasureRequest &request,
                                        MeasureResultSink sink) {
  // A run limit covers one execution; verification and timing execute the
  // variant (1 + warm-up + repeats) times, in samples of at least
  // minSampleSeconds each.
  const TimingOptions &timing = options.timing;
  double perRun = request.runTimeoutSeconds > 0 ? request.runTimeoutSeconds
                                                : options.timeoutSeconds;
  double runLimit =
      2.0 + double(1 + timing.warmupRuns) * perRun +
      double(timing.repeats) * std::max(perRun, 2 * timing.minSampleSeconds);
  // Paired timing also runs the reference (warm-up and one sample more than
  // the variant); once its time is known, allow it 10 times that.
  if (!options.referenceConfig.empty()) {
    double referenceRun = referenceSeconds > 0 ? 10 * referenceSeconds : perRun;
    runLimit += double(timing.warmupRuns + timing.repeats + 1) *
                std::max(referenceRun, 2 * timing.minSampleSeconds);
  }
  double compileLimit = request.compileTimeoutSeconds > 0
                            ? request.compileTimeoutSeconds
                            : options.timeoutSeconds;
  SmallVector<CandidateText, 0> candidates =
      convertBatch(ctx, problem, space, batch);
  // The winner's confirmation (role Final) is measured quietly: one worker,
  // nothing compiling on another core while a variant is timed, and each
  // variant timed alone, back to back as a user's program calls it (the
  // confirmation interleaves the candidates itself, round by round; a
  // reference between the samples would evict part of a large kernel's
  // working set before each sample).
  bool quiet = request.role == MeasurementRole::Final;
  EarlyStop stop = stopAbove(request);
  CPUMeasurer *workers[2] = {&worker, secondWorker.get()};
  if (!secondWorker || quiet) {
    for (size_t i = 0; i < batch.size(); ++i) {
      const CandidateText &candidate = candidates[i];
      // A config measured before goes to the worker that compiled it: its
      // cache still holds the variant.
      unsigned w = secondWorker ? compiledBy.lookup(candidate.attrText) : 0;
      MeasureResult result =
          candidate.invalid
              ? *candidate.invalid
              : noted(workers[w]->measure(candidate.attrText, compileLimit,
                                          runLimit, /*alone=*/quiet,
                                          stop));
      if (!candidate.invalid)
        compiledBy[candidate.attrText] = w;
      if (!sink(i, result))
        break;
    }
    return llvm::Error::success();
  }
  // Pipelined: candidate i is compiled by worker i % 2; while it is timed,
  // the other worker compiles candidate i + 1 on another core.
  auto compileAt = [&](size_t i) -> std::optional<MeasureResult> {
    if (candidates[i].invalid)
      return candidates[i].invalid;
    return workers[i % 2]->compile(candidates[i].attrText, compileLimit);
  };
  auto clock = [] {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  // Wall clock the loop waited for the compile of the candidate it times
  // next: all of the first one's, then what outlasted the previous timing.
  double compileStart = clock();
  std::optional<MeasureResult> compiled = compileAt(0);
  double compileWait = clock() - compileStart;
  for (size_t i = 0; i < batch.size(); ++i) {
    std::optional<MeasureResult> nextCompiled;
    std::thread next;
    if (i + 1 < batch.size()) {
      // Fork the worker (if it is not running) from this thread, and with
      // paired timing have it build the reference here: a worker dies with
      // the thread that forked it (PR_SET_PDEATHSIG), and a reference that
      // kills its worker would have it restarted by the compile thread.
      if (llvm::Error err = workers[(i + 1) % 2]->prepare(compileLimit))
        llvm::consumeError(std::move(err)); // compile() reports it again.
      next = std::thread([&, i] { nextCompiled = compileAt(i + 1); });
    }
    MeasureResult result =
        compiled ? *compiled
                 : noted(workers[i % 2]->run(runLimit, /*alone=*/false,
                                             stop));
    result.phases.compileWaitSeconds = compileWait;
    if (!candidates[i].invalid)
      compiledBy[candidates[i].attrText] = unsigned(i % 2);
    double joinStart = clock();
    if (next.joinable())
      next.join();
    compileWait = clock() - joinStart;
    if (!sink(i, result))
      break;
    compiled = std::move(nextCompiled);
  }
  return llvm::Error::success();
}

EarlyStop CPUProblemMeasurer::stopAbove(const MeasureRequest &request) const {
  EarlyStop stop;
  if (request.role != MeasurementRole::Search)
    return stop;
  if (!options.referenceConfig.empty())
    stop.ratioSpread = options.precisionStop;
  if (!(options.earlyStopFactor > 0))
    return stop;
  // Paired timing ranks by the ratio to the reference, which a drifting
  // machine moves much less than seconds: stop on that when the incumbent
  // has one (a candidate timed alone still stops on seconds).
  if (!options.referenceConfig.empty() && request.incumbentRelative > 0)
    stop.ratio = options.earlyStopFactor * request.incumbentRelative;
  else if (request.incumbentSeconds > 0)
    stop.seconds = options.earlyStopFactor * request.incumbentSeconds;
  return stop;
}

MeasureResult CPUProblemMeasurer::noted(MeasureResult result) {
  if (result.ok() && result.referenceSeconds > 0)
    referenceSeconds = result.referenceSeconds;
  return result;
}
