//===- CPUProblemMeasurer.cpp - The tuner's measurer for CPU problems -----===//
//
// Turns the tuner's configs into attributes, measures them in one or two
// isolated workers (two: each on its own core, both compiling, their
// timings taking turns). Results are reported as measured; paired timing
// adds the ratio to the reference beside the measured times, it never
// rescales them.
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
      worker(this->kernelText, onCore(options, options.compileCPU)) {
  if (overlapCompile)
    secondWorker = std::make_unique<CPUMeasurer>(
        this->kernelText, onCore(options, options.timingCPU));
}

CPUMeasureOptions CPUProblemMeasurer::onCore(CPUMeasureOptions options,
                                             int cpu) {
  // Each pipelined worker lives on its own core: it compiles and times
  // there, so a compile never shares the core of a timing.
  if (options.compileCPU >= 0 && options.timingCPU >= 0 &&
      options.compileCPU != options.timingCPU)
    options.compileCPU = options.timingCPU = cpu;
  else
    options.compileCPU = options.timingCPU = -1;
  return options;
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
  // Pipelined: candidate i goes to worker i % 2, each worker on its own
  // core (onCore). Both workers compile at once and the timings take turns
  // in candidate order on this thread, so at most one variant is timed at a
  // time, and never on the core of a compile: while worker 0 times
  // candidate i, worker 1 compiles candidate i + 1 (or already holds it
  // compiled) and worker 0 compiles candidate i + 2 once its timing is
  // done. When compiling a candidate takes longer than timing one, both
  // cores compile most of the time instead of one.
  auto clock = [] {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  SmallVector<std::optional<MeasureResult>, 0> compiled(batch.size());
  std::thread compiling[2];
  // Starts compiling candidate i on its worker, in a thread of its own.
  auto startCompile = [&](size_t i) {
    if (candidates[i].invalid) {
      compiled[i] = candidates[i].invalid;
      return;
    }
    CPUMeasurer *w = workers[i % 2];
    // Fork the worker (if it is not running) from this thread, and with
    // paired timing have it build the reference here: a worker dies with
    // the thread that forked it (PR_SET_PDEATHSIG), and the compile thread
    // ends with the compile.
    if (llvm::Error err = w->prepare(compileLimit))
      llvm::consumeError(std::move(err)); // compile() reports it again.
    compiling[i % 2] = std::thread([&, i, w] {
      compiled[i] = w->compile(candidates[i].attrText, compileLimit);
    });
  };
  // When this thread became ready to time the next candidate (the batch
  // began, or the previous candidate was reported and the next compile
  // started): the wait for a compile is what outlasted that moment, and the
  // sink's own time is not counted as waiting for a compile.
  double readyAt = clock();
  for (size_t i = 0; i < 2 && i < batch.size(); ++i)
    startCompile(i);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (compiling[i % 2].joinable())
      compiling[i % 2].join();
    double compileWait = clock() - readyAt;
    MeasureResult result =
        compiled[i] ? *compiled[i]
                    : noted(workers[i % 2]->run(runLimit, /*alone=*/false,
                                                stop));
    result.phases.compileWaitSeconds = compileWait;
    if (!candidates[i].invalid)
      compiledBy[candidates[i].attrText] = unsigned(i % 2);
    if (!sink(i, result))
      break;
    if (i + 2 < batch.size())
      startCompile(i + 2);
    readyAt = clock();
  }
  for (std::thread &t : compiling)
    if (t.joinable())
      t.join();
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
