//===- CPUMeasurer.cpp - Measuring configs of a problem on the CPU --------===//
//
// The in-process measurement (kernel clone + config + the user's CPU
// pipeline + JIT + verification + timing) and its isolated worker wrapper.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/CPUMeasurer.h"

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/InitAll.h"
#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Transforms/Pipelines.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::tiletune;

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

//===----------------------------------------------------------------------===//
// InProcessCPUMeasurer
//===----------------------------------------------------------------------===//

class InProcessCPUMeasurer::Impl {
public:
  Impl(StringRef kernelText, const CPUMeasureOptions &options)
      : kernelText(kernelText.str()), options(options),
        ctx(MLIRContext::Threading::DISABLED) {}

  /// A JIT-compiled variant.
  struct Compiled {
    std::unique_ptr<ExecutionModule> module;
    std::optional<Kernel> kernel;
  };

  llvm::Error init();
  std::optional<MeasureResult> compile(StringRef attrText);
  MeasureResult run(const std::function<void(StringRef)> &phase,
                    bool alone = false);

  /// Builds the variant of `attrText` into `out`; the failed result or
  /// std::nullopt.
  std::optional<MeasureResult> build(StringRef attrText, Compiled &out);
  /// Runs `kernel` once into `out` (a copy of the initial output) and
  /// checks it against the reference (when verifying); the failed result or
  /// std::nullopt.
  std::optional<MeasureResult> runAndVerify(const Kernel &kernel, Buffer &out);
  /// Builds and verifies options.referenceConfig (paired timing) once; on
  /// failure the variants are timed alone and referenceError says why.
  /// Returns the failed result (again on later calls) or std::nullopt.
  std::optional<MeasureResult> setUpReference();
  /// Once per process, before the first timing: runs `kernel` (and the
  /// reference, if built) back to back for options.firstWarmupSeconds.
  void warmUpOnce(const Kernel &kernel, ArrayRef<Buffer *> args);

  /// The variant compiled last (for run()).
  Compiled compiled;
  double compileSeconds = 0;
  /// The reference variant of paired timing and its own output buffer.
  Compiled reference;
  Buffer referenceOut;
  std::string referenceError;
  /// setUpReference() ran; its failure, if it failed.
  bool referenceTried = false;
  std::optional<MeasureResult> referenceFailure;
  /// warmUpOnce() ran.
  bool warmedUp = false;

  std::string kernelText;
  CPUMeasureOptions options;
  MLIRContext ctx;
  OwningOpRef<ModuleOp> kernel;
  /// Seeded inputs, reference output and verification of the kernel.
  std::optional<KernelHarness> harness;
};

llvm::Error InProcessCPUMeasurer::Impl::init() {
  initializeContext(ctx);
  kernel = parseSourceString<ModuleOp>(kernelText, &ctx);
  if (!kernel)
    return llvm::createStringError("cannot parse the kernel module");
  auto func = kernel->lookupSymbol<func::FuncOp>(kKernelFunctionName);
  if (!func || !getKernelOp(*kernel))
    return llvm::createStringError("the kernel module has no @" +
                                   kKernelFunctionName +
                                   " with a tunable op");
  llvm::Expected<KernelHarness> created =
      KernelHarness::create(func, options.seed, /*computeExpected=*/
                            options.verify);
  if (!created)
    return created.takeError();
  harness = std::move(*created);
  if (options.threads >= 1)
    if (auto err = setOpenMPNumThreads(int(options.threads)))
      return err;
  // The reference of paired timing is built on demand (setUpReference), not
  // here: a reference that cannot be built (or kills the process, e.g. out
  // of memory) must not fail the setup every candidate needs.
  return llvm::Error::success();
}

std::optional<MeasureResult> InProcessCPUMeasurer::Impl::setUpReference() {
  if (options.referenceConfig.empty() || referenceTried)
    return referenceFailure;
  referenceTried = true;
  std::optional<MeasureResult> failed =
      build(options.referenceConfig, reference);
  if (!failed) {
    referenceOut = harness->cloneInitialOutput();
    failed = runAndVerify(*reference.kernel, referenceOut);
  }
  if (!failed)
    return std::nullopt;
  referenceError = "the reference config of paired timing failed (" +
                   stringifyMeasureStatus(failed->status).str() +
                   "): " + failed->message;
  reference = Compiled();
  referenceFailure = std::move(failed);
  return referenceFailure;
}

void InProcessCPUMeasurer::Impl::warmUpOnce(const Kernel &kernel,
                                            ArrayRef<Buffer *> args) {
  if (warmedUp)
    return;
  warmedUp = true;
  double seconds = std::clamp(options.firstWarmupSeconds, 0.0, 10.0);
  if (!(seconds > 0))
    return;
  llvm::SmallVector<Buffer *> referenceArgs;
  if (reference.kernel)
    referenceArgs = harness->getRunArguments(referenceOut);
  double start = now();
  // The calls were verified (or run) once already; an error here would show
  // again in the timed calls.
  while (now() - start < seconds) {
    llvm::consumeError(kernel.run(args));
    if (reference.kernel)
      llvm::consumeError(reference.kernel->run(referenceArgs));
  }
}

std::optional<MeasureResult>
InProcessCPUMeasurer::Impl::compile(StringRef attrText) {
  double start = now();
  compiled = Compiled();
  if (std::optional<MeasureResult> failed = build(attrText, compiled)) {
    failed->costSeconds = now() - start;
    return failed;
  }
  compileSeconds = now() - start;
  return std::nullopt;
}

std::optional<MeasureResult>
InProcessCPUMeasurer::Impl::build(StringRef attrText, Compiled &out) {
  auto finish = [](MeasureResult r) {
    return std::optional<MeasureResult>(std::move(r));
  };
  std::string diagText;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (!diagText.empty())
      diagText += "\n";
    diagText += diag.str();
    return success();
  });

  auto attr = dyn_cast_or_null<TileConfigAttr>(parseAttribute(attrText, &ctx));
  if (!attr)
    return finish(MeasureResult::failure(
        MeasureStatus::Invalid, "cannot parse config '" + attrText.str() +
                                    "': " + diagText));
  // The config was verified against the op once, where it was made
  // (configToAttr); a config that does not fit fails the tiling pass, whose
  // reason becomes the CompileError's message.
  OwningOpRef<ModuleOp> variant = kernel->clone();
  setConfig(getKernelOp(*variant), attr);
  if (llvm::Error err = prepareForExecution(*variant, /*strict=*/true))
    return finish(MeasureResult::failure(MeasureStatus::CompileError,
                                         llvm::toString(std::move(err))));
  PassManager pm(&ctx, ModuleOp::getOperationName());
  CPULoweringOptions lowering;
  lowering.threads = options.threads;
  lowering.tile = true;
  lowering.defaultConfigs = false;
  lowering.emitCInterface = true;
  buildCPULoweringPipeline(pm, lowering);
  if (failed(pm.run(*variant)))
    return finish(MeasureResult::failure(
        MeasureStatus::CompileError, "lowering failed: " + diagText));
  llvm::Expected<std::unique_ptr<ExecutionModule>> module =
      ExecutionModule::create(*variant);
  if (!module)
    return finish(
        MeasureResult::failure(MeasureStatus::CompileError,
                               "JIT failed: " + toString(module.takeError())));
  llvm::Expected<Kernel> fn = (*module)->getKernel(kKernelFunctionName);
  if (!fn)
    return finish(MeasureResult::failure(
        MeasureStatus::CompileError,
        "kernel lookup failed: " + toString(fn.takeError())));
  out.module = std::move(*module);
  out.kernel = *fn;
  return std::nullopt;
}

std::optional<MeasureResult>
InProcessCPUMeasurer::Impl::runAndVerify(const Kernel &kernel, Buffer &out) {
  if (llvm::Error err = kernel.run(harness->getRunArguments(out)))
    return MeasureResult::failure(MeasureStatus::RuntimeError,
                                  toString(std::move(err)));
  if (!options.verify)
    return std::nullopt;
  llvm::Expected<ComparisonResult> cmp = harness->verify(out);
  if (!cmp)
    return MeasureResult::failure(MeasureStatus::RuntimeError,
                                  toString(cmp.takeError()));
  if (!cmp->passed)
    return MeasureResult::failure(MeasureStatus::WrongResult,
                                  "output differs from the reference: " +
                                      cmp->summary());
  return std::nullopt;
}

MeasureResult
InProcessCPUMeasurer::Impl::run(const std::function<void(StringRef)> &phase,
                                bool alone) {
  double start = now();
  auto finish = [&](MeasureResult r) {
    r.costSeconds = now() - start + compileSeconds;
    return r;
  };
  if (!compiled.kernel)
    return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                         "no compiled variant to run"));
  auto setPhase = [&](StringRef name) {
    if (phase)
      phase(name);
  };
  const Kernel &fn = *compiled.kernel;
  setPhase("run");
  // One copy of the output serves the verified run and the timing (timed
  // calls keep accumulating into it).
  Buffer out = harness->cloneInitialOutput();
  if (std::optional<MeasureResult> failed = runAndVerify(fn, out))
    return finish(std::move(*failed));
  setPhase("time");
  llvm::SmallVector<Buffer *> args = harness->getRunArguments(out);
  warmUpOnce(fn, args);
  double flops = harness->getProblem().flops;
  MeasureResult result;
  if (reference.kernel && !alone) {
    llvm::SmallVector<Buffer *> referenceArgs =
        harness->getRunArguments(referenceOut);
    llvm::Expected<PairedTimeStats> timing = fn.timePaired(
        args, *reference.kernel, referenceArgs, options.timing);
    if (!timing)
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           toString(timing.takeError())));
    const TimeStats &stats = timing->subject;
    result = MeasureResult::success(
        stats, computeGFlops(flops, stats.median));
    result.relative = timing->ratio.median;
    result.referenceSeconds = timing->reference.median;
  } else {
    llvm::Expected<TimeStats> timing = fn.time(args, options.timing);
    if (!timing)
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           toString(timing.takeError())));
    result = MeasureResult::success(
        *timing, computeGFlops(flops, timing->median));
    if (!referenceError.empty() && !alone)
      result.message = "timed alone: " + referenceError;
  }
  return finish(std::move(result));
}

InProcessCPUMeasurer::InProcessCPUMeasurer(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
InProcessCPUMeasurer::~InProcessCPUMeasurer() = default;

llvm::Expected<std::unique_ptr<InProcessCPUMeasurer>>
InProcessCPUMeasurer::create(StringRef kernelText,
                             const CPUMeasureOptions &options) {
  auto impl = std::make_unique<Impl>(kernelText, options);
  if (llvm::Error err = impl->init())
    return std::move(err);
  return std::unique_ptr<InProcessCPUMeasurer>(
      new InProcessCPUMeasurer(std::move(impl)));
}

MeasureResult
InProcessCPUMeasurer::measure(StringRef attrText,
                              std::function<void(StringRef)> phase) {
  if (phase)
    phase("reference");
  impl->setUpReference(); // A failure is said in the result (timed alone).
  if (phase)
    phase("compile");
  if (std::optional<MeasureResult> failed = impl->compile(attrText))
    return *failed;
  return impl->run(phase);
}

std::optional<MeasureResult> InProcessCPUMeasurer::prepareReference() {
  return impl->setUpReference();
}

std::optional<MeasureResult>
InProcessCPUMeasurer::compile(StringRef attrText) {
  return impl->compile(attrText);
}

MeasureResult InProcessCPUMeasurer::run(std::function<void(StringRef)> phase,
                                        bool alone) {
  return impl->run(phase, alone);
}

//===----------------------------------------------------------------------===//
// CPUMeasurer (isolated)
//===----------------------------------------------------------------------===//

/// Marker the worker writes to stderr when it enters a phase.
static constexpr llvm::StringLiteral kPhaseMarker = "tiletune-worker-phase: ";

/// Worker protocol: "P" builds and checks the reference of paired timing
/// (answer: "ok" or an encoded failed result); "C<attr text>" compiles a
/// variant (answer: "ok" or an encoded failed result); "R" verifies and
/// times it (answer: an encoded result), paired when this worker holds the
/// reference; "A" verifies and times it alone.
std::string mlir::tiletune::getProblemKernelText(const Problem &problem) {
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  initializeContext(ctx);
  FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(&ctx, problem);
  return failed(kernel) ? std::string() : printKernelModule(**kernel);
}

CPUMeasurer::CPUMeasurer(const Problem &problem,
                         const CPUMeasureOptions &options)
    : CPUMeasurer(getProblemKernelText(problem), options) {}

CPUMeasurer::CPUMeasurer(std::string kernelText,
                         const CPUMeasureOptions &options)
    : kernelText(std::move(kernelText)), options(options) {
  // State that lives in the worker process only: the measurer is created on
  // the first request there (after the fork), never in the tuner.
  auto state = std::make_shared<std::unique_ptr<InProcessCPUMeasurer>>();
  auto initError = std::make_shared<std::string>();
  std::string k = this->kernelText;
  CPUMeasureOptions o = options;
  auto handler = [state, initError, k, o](StringRef request) -> std::string {
    auto phase = [](StringRef name) {
      llvm::errs() << kPhaseMarker << name << "\n";
      llvm::errs().flush();
    };
    if (!*state && initError->empty()) {
      phase("setup");
      llvm::Expected<std::unique_ptr<InProcessCPUMeasurer>> created =
          InProcessCPUMeasurer::create(k, o);
      if (!created)
        *initError = toString(created.takeError());
      else
        *state = std::move(*created);
    }
    if (!*state)
      return encodeMeasureResult(MeasureResult::failure(
          MeasureStatus::CompileError,
          "cannot set up the measurement: " + *initError));
    if (request == "P") {
      phase("reference");
      if (std::optional<MeasureResult> failed = (*state)->prepareReference())
        return encodeMeasureResult(*failed);
      return "ok";
    }
    if (request.consume_front("C")) {
      phase("compile");
      if (std::optional<MeasureResult> failed = (*state)->compile(request))
        return encodeMeasureResult(*failed);
      return "ok";
    }
    return encodeMeasureResult((*state)->run(phase, request == "A"));
  };
  WorkerOptions workerOptions;
  workerOptions.timeoutSeconds = options.timeoutSeconds;
  workerOptions.captureStderr = true;
  server = std::make_unique<ForkServer>(handler, workerOptions);
}

CPUMeasurer::~CPUMeasurer() = default;

llvm::Error CPUMeasurer::start() { return server->start(); }

unsigned CPUMeasurer::getNumWorkerStarts() const {
  return server->getNumStarts();
}

llvm::Error CPUMeasurer::prepare(double compileTimeoutSeconds) {
  ensureReference(compileTimeoutSeconds > 0 ? compileTimeoutSeconds
                                            : options.timeoutSeconds);
  return start();
}

MeasureResult CPUMeasurer::call(StringRef request, double timeoutSeconds) {
  llvm::Expected<WorkerResult> answer = server->call(request, timeoutSeconds);
  if (!answer)
    return MeasureResult::failure(MeasureStatus::RuntimeError,
                                  "worker failure: " +
                                      toString(answer.takeError()));
  if (answer->succeeded()) {
    if (answer->output == "ok")
      return MeasureResult::success(TimeStats());
    llvm::Expected<MeasureResult> decoded = decodeMeasureResult(answer->output);
    if (decoded)
      return std::move(*decoded);
    return MeasureResult::failure(MeasureStatus::RuntimeError,
                                  "bad worker answer: " +
                                      toString(decoded.takeError()));
  }
  // Find the phase the worker was in and keep the other stderr lines.
  StringRef lastPhase = request == "P" ? "reference" : "compile";
  std::string otherLines;
  llvm::SmallVector<StringRef> lines;
  StringRef(answer->stderrTail).split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    if (line.starts_with(kPhaseMarker)) {
      lastPhase = line.drop_front(kPhaseMarker.size()).trim();
      otherLines.clear();
      continue;
    }
    otherLines += line.str() + "\n";
  }
  MeasureStatus status =
      answer->status == WorkerStatus::Timeout ? MeasureStatus::Timeout
      : (lastPhase == "compile" || lastPhase == "setup" ||
         lastPhase == "reference")
          ? MeasureStatus::CompileError
          : MeasureStatus::RuntimeError;
  std::string message =
      "worker " + answer->describe() + " during " + lastPhase.str();
  StringRef tail = StringRef(otherLines).trim();
  if (tail.size() > 2000)
    tail = tail.take_back(2000);
  if (!tail.empty())
    message += ": " + tail.str();
  return MeasureResult::failure(status, message);
}

void CPUMeasurer::ensureReference(double compileTimeoutSeconds) {
  if (options.referenceConfig.empty() || !referenceError.empty())
    return;
  // A worker that is running and was started when the reference was built
  // last holds it; a fresh worker (the first, or one restarted after a
  // crash or timeout of a candidate) builds it once before its first
  // candidate.
  if (server->isRunning() && referenceWorkerStart == server->getNumStarts())
    return;
  double limit = options.referenceTimeoutSeconds > 0
                     ? options.referenceTimeoutSeconds
                     : compileTimeoutSeconds + options.timeoutSeconds;
  MeasureResult result = call("P", limit);
  if (result.ok()) {
    referenceWorkerStart = server->getNumStarts();
    return;
  }
  // Not tried again: a reference that fails (or kills the worker: out of
  // memory, a crash, a timeout) would fail the same way in every worker. The
  // worker does not hold it (it failed there, or the worker is gone), and
  // later workers are not asked to build it: the variants are timed alone.
  referenceError = "the reference config of paired timing failed (" +
                   stringifyMeasureStatus(result.status).str() +
                   "): " + result.message;
}

MeasureResult CPUMeasurer::saidAlone(MeasureResult result) const {
  if (result.ok() && result.relative <= 0 &&
      !options.referenceConfig.empty() && result.message.empty() &&
      !referenceError.empty())
    result.message = "timed alone: " + referenceError;
  return result;
}

std::optional<MeasureResult> CPUMeasurer::compile(StringRef attrText,
                                                  double timeoutSeconds) {
  double start = now();
  double limit = timeoutSeconds > 0 ? timeoutSeconds : options.timeoutSeconds;
  ensureReference(limit);
  MeasureResult result = call(("C" + attrText).str(), limit);
  if (result.ok())
    return std::nullopt;
  result.costSeconds = now() - start;
  return result;
}

MeasureResult CPUMeasurer::run(double timeoutSeconds, bool alone) {
  MeasureResult result =
      call(alone ? "A" : "R",
           timeoutSeconds > 0 ? timeoutSeconds : options.timeoutSeconds);
  return alone ? result : saidAlone(std::move(result));
}

MeasureResult CPUMeasurer::measure(StringRef attrText,
                                   double compileTimeoutSeconds,
                                   double runTimeoutSeconds, bool alone) {
  double start = now();
  if (compileTimeoutSeconds <= 0)
    compileTimeoutSeconds = options.timeoutSeconds;
  if (runTimeoutSeconds <= 0)
    runTimeoutSeconds = options.timeoutSeconds;
  ensureReference(compileTimeoutSeconds);
  MeasureResult result = call(("C" + attrText).str(), compileTimeoutSeconds);
  if (result.ok())
    result = run(runTimeoutSeconds, alone);
  result.costSeconds = now() - start;
  return result;
}
