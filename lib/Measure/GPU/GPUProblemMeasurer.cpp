//===- GPUProblemMeasurer.cpp - The tuner's measurer for cuda problems ----===//
//
// Prepares the variants of a batch on compile threads (each with its own
// MLIR context and copy of the kernel) while this thread runs the prepared
// ones, in order, one at a time on the GPU.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/GPUMeasurer.h"

#include "tiletune/Measure/Candidates.h"
#include "tiletune/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::tiletune;


GPUProblemMeasurer::GPUProblemMeasurer(MLIRContext *ctx,
                                       const Problem &problem,
                                       const Space &space,
                                       const GPUMeasureOptions &options,
                                       std::string kernelText,
                                       unsigned compileThreads)
    : ctx(ctx), problem(problem), space(space), options(options),
      kernelText(std::move(kernelText)), workers(compileThreads) {}

GPUProblemMeasurer::~GPUProblemMeasurer() = default;

llvm::Expected<std::unique_ptr<GPUProblemMeasurer>>
GPUProblemMeasurer::create(MLIRContext *ctx, const Problem &problem,
                           const Space &space,
                           const GPUMeasureOptions &options,
                           unsigned compileThreads, std::string text) {
  if (text.empty()) {
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(ctx, problem);
    if (failed(kernel))
      return llvm::createStringError("cannot build the kernel of " +
                                     problem.describe());
    text = printKernelModule(**kernel);
  }
  if (compileThreads == 0)
    compileThreads = std::max(
        1u, llvm::hardware_concurrency().compute_thread_count() - 1);
  return std::unique_ptr<GPUProblemMeasurer>(new GPUProblemMeasurer(
      ctx, problem, space, options, std::move(text), compileThreads));
}

GPUPreparedVariant GPUProblemMeasurer::prepare(Worker &worker,
                                               const std::string &attrText) {
  auto failure = [](MeasureStatus status, const std::string &message) {
    GPUPreparedVariant v;
    v.failure = MeasureResult::failure(status, message);
    return v;
  };
  if (!worker.context) {
    worker.context =
        std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
    initializeContext(*worker.context);
  }
  if (!worker.kernel) {
    worker.kernel = parseSourceString<ModuleOp>(kernelText, worker.context.get());
    if (!worker.kernel)
      return failure(MeasureStatus::CompileError,
                     "cannot parse the kernel in a compile thread");
  }
  auto attr = dyn_cast_or_null<TileConfigAttr>(
      parseAttribute(attrText, worker.context.get()));
  if (!attr)
    return failure(MeasureStatus::Invalid,
                   "cannot parse the config " + attrText);
  return prepareGPUVariant(*worker.kernel, kKernelFunctionName, attr, options);
}

llvm::Error GPUProblemMeasurer::measure(ArrayRef<Config> batch,
                                        const MeasureRequest &request,
                                        MeasureResultSink sink) {
  // GPU kernels run in this process: a slow variant is stopped after its
  // first run (runTimeoutSeconds), a kernel that never ends cannot be.
  GPUMeasureOptions runOptions = options;
  runOptions.runTimeoutSeconds = request.runTimeoutSeconds;
  size_t n = batch.size();
  // Attribute texts (parsed again in each compile thread's context).
  SmallVector<CandidateText, 0> candidates =
      convertBatch(ctx, problem, space, batch);
  // Compile threads take the next unprepared index; this thread runs the
  // variants in order as soon as each is ready.
  std::vector<std::optional<GPUPreparedVariant>> prepared(n);
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (size_t w = 0; w < std::min(workers.size(), n); ++w)
    threads.emplace_back([&, w] {
      for (size_t i = next++; i < n; i = next++) {
        GPUPreparedVariant variant;
        if (candidates[i].invalid)
          variant.failure = *candidates[i].invalid;
        else
          variant = prepare(workers[w], candidates[i].attrText);
        {
          std::lock_guard<std::mutex> lock(mutex);
          prepared[i] = std::move(variant);
        }
        ready.notify_all();
      }
    });
  using Clock = std::chrono::steady_clock;
  auto secondsSince = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  for (size_t i = 0; i < n; ++i) {
    std::optional<GPUPreparedVariant> variant;
    Clock::time_point waitStart = Clock::now();
    {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return prepared[i].has_value(); });
      variant = std::move(prepared[i]);
      prepared[i].reset();
    }
    double compileWait = secondsSince(waitStart);
    Clock::time_point runStart = Clock::now();
    MeasureResult result = runPreparedGPUVariant(*variant, runOptions,
                                                 &reference);
    // Where the time went (the tuner's throughput summary): waiting for the
    // compile threads, then running here. The preparation (our GPU passes,
    // NVPTX codegen, ptxas, the host module's JIT) is not split: all of it
    // counts as codegen. Without this, a GPU run's compiles showed as idle.
    result.phases.compileWaitSeconds = compileWait;
    result.phases.runWaitSeconds = secondsSince(runStart);
    result.phases.codegenSeconds = variant->prepareSeconds;
    variant.reset();
    if (!sink(i, result)) {
      next = n; // no new preparations; the running ones finish
      break;
    }
  }
  for (std::thread &t : threads)
    t.join();
  return llvm::Error::success();
}
