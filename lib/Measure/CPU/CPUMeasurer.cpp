//===- CPUMeasurer.cpp - Measuring configs of a problem on the CPU --------===//
//
// The in-process measurement (kernel clone + config + the user's CPU
// pipeline + JIT + verification + timing) and its isolated worker wrapper.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/CPUMeasurer.h"

#include "tiletune/Dialect/Diagnostics.h"
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
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <limits>

#ifdef __linux__
#include <sched.h>
#endif

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

  /// A JIT-compiled variant (shared by the cache, the current variant and
  /// the reference).
  struct Compiled {
    std::shared_ptr<ExecutionModule> module;
    std::optional<Kernel> kernel;
  };
  /// A compiled variant kept for a later request of the same config.
  struct CacheEntry {
    std::string attrText;
    Compiled compiled;
    /// Its fastest measured median so far (0: not measured Ok yet).
    double seconds = 0;
  };

  llvm::Error init();
  std::optional<MeasureResult> compile(StringRef attrText);
  MeasureResult run(const std::function<void(StringRef)> &phase,
                    bool alone = false, EarlyStop stop = {});
  /// The cached variant of `attrText`, or null.
  CacheEntry *lookup(StringRef attrText);
  /// Keeps `compiled` as the variant of `attrText`, evicting the entry that
  /// is least likely to be asked for again when the cache is full: one never
  /// measured Ok, else the slowest (the tuner's confirmation asks again for
  /// the fastest ones).
  void remember(StringRef attrText, const Compiled &compiled);

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

  /// The variant compiled last (for run()), its config and phases.
  Compiled compiled;
  std::string compiledAttr;
  double compileSeconds = 0;
  MeasurePhases compilePhases;
  /// Compiled variants by config (options.compileCacheSize at most).
  std::vector<CacheEntry> cache;
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
  /// The copies of the weight arguments beyond the harness's own, per copy
  /// one buffer per entry of options.weightArguments (init()).
  std::vector<std::vector<Buffer>> weightCopies;

  /// The argument sets a timing takes in turn: the harness's arguments with
  /// `out` as output, then the same with each copy of the weights.
  llvm::SmallVector<llvm::SmallVector<Buffer *>>
  getTimedArgumentSets(Buffer &out);
};

unsigned mlir::tiletune::getWeightCopies(uint64_t weightBytes,
                                         uint64_t footprintBytes) {
  if (weightBytes == 0 || footprintBytes <= weightBytes)
    return 1;
  uint64_t copies = (footprintBytes + weightBytes - 1) / weightBytes;
  return static_cast<unsigned>(std::min<uint64_t>(copies, kMaxWeightCopies));
}

llvm::SmallVector<llvm::SmallVector<Buffer *>>
InProcessCPUMeasurer::Impl::getTimedArgumentSets(Buffer &out) {
  llvm::SmallVector<llvm::SmallVector<Buffer *>> sets;
  sets.push_back(harness->getRunArguments(out));
  for (std::vector<Buffer> &copy : weightCopies) {
    llvm::SmallVector<Buffer *> set = sets.front();
    for (auto [index, buffer] : llvm::zip(options.weightArguments, copy))
      set[index] = &buffer;
    sets.push_back(std::move(set));
  }
  return sets;
}

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
  if (!options.weightArguments.empty() && options.weightsFootprintBytes > 0) {
    uint64_t weightBytes = 0;
    for (unsigned index : options.weightArguments) {
      // The output is never a weight (timed calls write it).
      if (index >= harness->getArguments().size() ||
          index == harness->getProblem().outArg)
        return llvm::createStringError(llvm::formatv(
            "weight argument {0} is not an input of the kernel (it has {1} "
            "arguments, the output is argument {2})",
            index, harness->getArguments().size(),
            harness->getProblem().outArg));
      weightBytes += harness->getArguments()[index].getByteSize();
    }
    unsigned copies =
        getWeightCopies(weightBytes, options.weightsFootprintBytes);
    for (unsigned c = 1; c < copies; ++c) {
      std::vector<Buffer> copy;
      for (unsigned index : options.weightArguments)
        copy.push_back(harness->getArguments()[index].clone());
      weightCopies.push_back(std::move(copy));
    }
  }
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

InProcessCPUMeasurer::Impl::CacheEntry *
InProcessCPUMeasurer::Impl::lookup(StringRef attrText) {
  for (CacheEntry &entry : cache)
    if (entry.attrText == attrText)
      return &entry;
  return nullptr;
}

void InProcessCPUMeasurer::Impl::remember(StringRef attrText,
                                          const Compiled &variant) {
  if (options.compileCacheSize == 0 || lookup(attrText))
    return;
  if (cache.size() >= options.compileCacheSize) {
    // Evict a never-measured entry first, else the slowest.
    auto worst =
        llvm::max_element(cache, [](const CacheEntry &a, const CacheEntry &b) {
          auto rank = [](const CacheEntry &e) {
            return e.seconds > 0 ? e.seconds
                                 : std::numeric_limits<double>::max();
          };
          return rank(a) < rank(b);
        });
    cache.erase(worst);
  }
  cache.push_back({attrText.str(), variant, 0});
}

std::optional<MeasureResult>
InProcessCPUMeasurer::Impl::compile(StringRef attrText) {
  double start = now();
  compiled = Compiled();
  compiledAttr.clear();
  compilePhases = MeasurePhases();
  // A config compiled before (the tuner's confirmation re-measures the
  // winner, the runner-up and the default) is not built again; the paired
  // reference is the default config, built once per worker.
  if (CacheEntry *entry = lookup(attrText)) {
    compiled = entry->compiled;
  } else if (options.compileCacheSize > 0 && reference.kernel &&
             attrText == options.referenceConfig) {
    compiled = reference;
    remember(attrText, compiled);
  }
  if (compiled.kernel) {
    compiledAttr = attrText.str();
    compilePhases.cacheHit = true;
    compileSeconds = now() - start;
    return std::nullopt;
  }
  if (std::optional<MeasureResult> failed = build(attrText, compiled)) {
    failed->costSeconds = now() - start;
    failed->phases = compilePhases;
    compiled = Compiled();
    return failed;
  }
  compiledAttr = attrText.str();
  remember(attrText, compiled);
  compileSeconds = now() - start;
  return std::nullopt;
}

std::optional<MeasureResult>
InProcessCPUMeasurer::Impl::build(StringRef attrText, Compiled &out) {
  auto finish = [](MeasureResult r) {
    return std::optional<MeasureResult>(std::move(r));
  };
  std::string diagText;
  ThreadScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
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
  double passStart = now();
  // Whatever build() spends: passes until the JIT starts, codegen after.
  llvm::scope_exit notePasses(
      [&] { compilePhases.passSeconds = now() - passStart; });
  OwningOpRef<ModuleOp> variant = kernel->clone();
  setConfig(getKernelOp(*variant), attr);
  if (llvm::Error err = prepareForExecution(*variant, /*strict=*/true))
    return finish(MeasureResult::failure(MeasureStatus::CompileError,
                                         llvm::toString(std::move(err))));
  PassManager pm(&ctx, ModuleOp::getOperationName());
  CPULoweringOptions lowering;
  lowering.threads = options.threads;
  lowering.fuseEpilogues = options.fuseEpilogues;
  lowering.tile = true;
  lowering.defaultConfigs = false;
  lowering.emitCInterface = true;
  buildCPULoweringPipeline(pm, lowering);
  if (failed(pm.run(*variant)))
    return finish(MeasureResult::failure(
        MeasureStatus::CompileError, "lowering failed: " + diagText));
  notePasses.release();
  compilePhases.passSeconds = now() - passStart;
  double codegenStart = now();
  llvm::scope_exit noteCodegen(
      [&] { compilePhases.codegenSeconds = now() - codegenStart; });
  JITOptions jit;
  jit.optLevel = options.jitOptLevel;
  jit.codegenOptLevel = options.jitCodegenOptLevel;
  llvm::Expected<std::unique_ptr<ExecutionModule>> module =
      ExecutionModule::create(*variant, jit);
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
                                bool alone, EarlyStop stop) {
  double start = now();
  MeasurePhases phases = compilePhases;
  double timingStart = 0;
  auto finish = [&](MeasureResult r) {
    double end = now();
    r.costSeconds = end - start + compileSeconds;
    if (timingStart > 0)
      phases.timingSeconds = end - timingStart;
    phases.verifySeconds = (timingStart > 0 ? timingStart : end) - start;
    r.phases = phases;
    if (r.ok() && !compiledAttr.empty())
      if (CacheEntry *entry = lookup(compiledAttr))
        if (entry->seconds <= 0 || r.time.seconds() < entry->seconds)
          entry->seconds = r.time.seconds();
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
  timingStart = now();
  llvm::SmallVector<Buffer *> args = harness->getRunArguments(out);
  warmUpOnce(fn, args);
  double flops = harness->getProblem().flops;
  TimingOptions timingOptions = options.timing;
  if (stop.seconds > 0)
    timingOptions.stopAboveSeconds = stop.seconds;
  if (stop.ratio > 0)
    timingOptions.stopAboveRatio = stop.ratio;
  if (stop.ratioSpread > 0)
    timingOptions.stopBelowRatioSpread = stop.ratioSpread;
  MeasureResult result;
  double bestRatio = 0;
  if (reference.kernel && !alone) {
    llvm::Expected<PairedTimeStats> timing = fn.timePairedRotating(
        getTimedArgumentSets(out), *reference.kernel,
        getTimedArgumentSets(referenceOut), timingOptions);
    if (!timing)
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           toString(timing.takeError())));
    const TimeStats &stats = timing->subject;
    result = MeasureResult::success(
        stats, computeGFlops(flops, stats.median));
    result.relative = timing->ratio.median;
    result.referenceSeconds = timing->reference.median;
    bestRatio = timing->ratio.min;
  } else {
    llvm::Expected<TimeStats> timing =
        fn.timeRotating(getTimedArgumentSets(out), timingOptions);
    if (!timing)
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           toString(timing.takeError())));
    result = MeasureResult::success(
        *timing, computeGFlops(flops, timing->median));
    if (!referenceError.empty() && !alone)
      result.message = "timed alone: " + referenceError;
  }
  if (result.time.stoppedEarly) {
    // Which threshold stopped it: the ratio one where it was passed.
    bool byRatio = timingOptions.stopAboveRatio > 0 &&
                   bestRatio > timingOptions.stopAboveRatio;
    std::string why =
        byRatio ? llvm::formatv("its smallest time ratio to the reference, "
                                "{0:f3}, is above the limit {1:f3}",
                                bestRatio, timingOptions.stopAboveRatio)
                      .str()
                : llvm::formatv("the fastest took {0}, above the limit {1}",
                                formatDuration(result.time.min),
                                formatDuration(timingOptions.stopAboveSeconds))
                      .str();
    std::string note = llvm::formatv("stopped early after {0} of {1} samples: "
                                     "{2}",
                                     result.time.repeats, timingOptions.repeats,
                                     why)
                           .str();
    result.message =
        result.message.empty() ? note : result.message + "; " + note;
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

const MeasurePhases &InProcessCPUMeasurer::getCompilePhases() const {
  return impl->compilePhases;
}

std::optional<MeasureResult> InProcessCPUMeasurer::prepareReference() {
  return impl->setUpReference();
}

std::optional<MeasureResult>
InProcessCPUMeasurer::compile(StringRef attrText) {
  return impl->compile(attrText);
}

MeasureResult InProcessCPUMeasurer::run(std::function<void(StringRef)> phase,
                                        bool alone, EarlyStop stop) {
  return impl->run(phase, alone, stop);
}

//===----------------------------------------------------------------------===//
// CPUMeasurer (isolated)
//===----------------------------------------------------------------------===//

/// Marker the worker writes to stderr when it enters a phase.
static constexpr llvm::StringLiteral kPhaseMarker = "tiletune-worker-phase: ";

/// Worker protocol: "P" builds and checks the reference of paired timing
/// (answer: "ok" or an encoded failed result); "C<attr text>" compiles a
/// variant (answer: an encoded result, Ok with its phases or failed); "R"
/// verifies and times it (answer: an encoded result), paired when this
/// worker holds the reference; "A" verifies and times it alone. "R" and "A"
/// may be followed by the early-stop thresholds, seconds per call and ratio to
/// the reference, and the precision stop's ratio spread ("R1.25e-02,0,0" or
/// "R0,1.5e+00,2e-02").

void mlir::tiletune::pickPinnedCPUs(unsigned threads, int &compileCPU,
                                    int &timingCPU) {
  compileCPU = timingCPU = -1;
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (threads != 1 || sched_getaffinity(0, sizeof(set), &set) != 0)
    return;
  int first = -1, last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) {
      if (first < 0)
        first = cpu;
      last = cpu;
    }
  if (first >= 0 && last != first) {
    compileCPU = first;
    timingCPU = last;
  }
#else
  (void)threads;
#endif
}

namespace {
/// The cores a worker runs on: pinned to one core while it compiles or
/// times next to a compile, and back on every core it was started with when
/// it times alone (the winner's confirmation), so that a core busy with
/// another process cannot slow a quiet measurement the OS could have moved
/// elsewhere. Best effort: a failing affinity call leaves things as they are.
class CoreAffinity {
public:
  CoreAffinity() {
#ifdef __linux__
    CPU_ZERO(&original);
    saved = sched_getaffinity(0, sizeof(original), &original) == 0;
#endif
  }
  /// Pins the calling process to `cpu` (< 0: nothing).
  void pin(int cpu) {
#ifdef __linux__
    if (cpu < 0 || cpu >= CPU_SETSIZE)
      return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof(set), &set);
#else
    (void)cpu;
#endif
  }
  /// Returns to the cores the worker started with.
  void unpin() {
#ifdef __linux__
    if (saved)
      (void)sched_setaffinity(0, sizeof(original), &original);
#endif
  }

private:
#ifdef __linux__
  cpu_set_t original;
  bool saved = false;
#endif
};
} // namespace

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
    // Created in the worker, before it pins itself anywhere.
    static CoreAffinity affinity;
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
    bool pinned = o.compileCPU >= 0 && o.timingCPU >= 0;
    if (request.consume_front("C")) {
      phase("compile");
      if (pinned)
        affinity.pin(o.compileCPU);
      if (std::optional<MeasureResult> failed = (*state)->compile(request))
        return encodeMeasureResult(*failed);
      MeasureResult compiled = MeasureResult::success(TimeStats());
      compiled.phases = (*state)->getCompilePhases();
      return encodeMeasureResult(compiled);
    }
    bool alone = request.consume_front("A");
    if (!alone)
      request.consume_front("R");
    EarlyStop stop;
    if (!request.empty()) {
      auto [seconds, rest] = request.split(',');
      auto [ratio, spread] = rest.split(',');
      if (seconds.getAsDouble(stop.seconds))
        stop.seconds = 0;
      if (ratio.empty() || ratio.getAsDouble(stop.ratio))
        stop.ratio = 0;
      if (spread.empty() || spread.getAsDouble(stop.ratioSpread))
        stop.ratioSpread = 0;
    }
    if (pinned && alone)
      affinity.unpin();
    else if (pinned)
      affinity.pin(o.timingCPU);
    return encodeMeasureResult((*state)->run(phase, alone, stop));
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
  lastCompileWait = now() - start;
  if (result.ok())
    return std::nullopt;
  result.costSeconds = lastCompileWait;
  result.phases.compileWaitSeconds = lastCompileWait;
  return result;
}

MeasureResult CPUMeasurer::run(double timeoutSeconds, bool alone,
                               EarlyStop stop) {
  std::string request = alone ? "A" : "R";
  if (stop.any())
    request += llvm::formatv("{0:e},{1:e},{2:e}", stop.seconds, stop.ratio,
                             stop.ratioSpread)
                   .str();
  double start = now();
  MeasureResult result = call(
      request, timeoutSeconds > 0 ? timeoutSeconds : options.timeoutSeconds);
  result.phases.runWaitSeconds = now() - start;
  result.phases.compileWaitSeconds = lastCompileWait;
  return alone ? result : saidAlone(std::move(result));
}

MeasureResult CPUMeasurer::measure(StringRef attrText,
                                   double compileTimeoutSeconds,
                                   double runTimeoutSeconds, bool alone,
                                   EarlyStop stop) {
  double start = now();
  if (compileTimeoutSeconds <= 0)
    compileTimeoutSeconds = options.timeoutSeconds;
  if (runTimeoutSeconds <= 0)
    runTimeoutSeconds = options.timeoutSeconds;
  if (std::optional<MeasureResult> failed =
          compile(attrText, compileTimeoutSeconds)) {
    failed->costSeconds = now() - start;
    return *failed;
  }
  MeasureResult result = run(runTimeoutSeconds, alone, stop);
  result.costSeconds = now() - start;
  return result;
}
