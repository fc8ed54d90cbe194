//===- GPUMeasurer.cpp - Compile, run and time kernels on a GPU -----------===//
//
// Implements GPUMeasurer.h. The runtime library is opened at run time (never
// linked), so this code runs, and reports "no CUDA device", on machines
// without a GPU.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/GPUMeasurer.h"

#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::tiletune;

std::string mlir::tiletune::getCudaRuntimeLibraryPath() {
  if (const char *env = std::getenv("TILETUNE_CUDA_RUNTIME"))
    if (*env)
      return env;
#ifdef TILETUNE_CUDA_RUNTIME_PATH
  return TILETUNE_CUDA_RUNTIME_PATH;
#else
  return "";
#endif
}

namespace {
/// The entry points of libtiletune_cuda_runtime this file uses.
struct RuntimeAPI {
  int (*init)() = nullptr;
  const char *(*getError)() = nullptr;
  void (*clearError)() = nullptr;
  void (*setQuiet)(int) = nullptr;
  void *(*malloc)(size_t) = nullptr;
  void (*free)(void *) = nullptr;
  int (*toDevice)(void *, const void *, size_t) = nullptr;
  int (*toHost)(void *, const void *, size_t) = nullptr;
  int (*synchronize)() = nullptr;
  int (*profileBegin)() = nullptr;
  int (*profileEnd)(float *, int) = nullptr;
  int (*describe)(char *, size_t) = nullptr;
  int (*computeCapability)() = nullptr;
};
} // namespace

/// Loads the runtime library (once per path) and resolves its entry points.
static llvm::Expected<RuntimeAPI> loadRuntime(StringRef path) {
  std::string lib = path.empty() ? getCudaRuntimeLibraryPath() : path.str();
  if (lib.empty())
    return llvm::createStringError("no CUDA runtime: TileTune was built without the CUDA "
                     "toolkit (set TILETUNE_CUDA_RUNTIME to "
                     "libtiletune_cuda_runtime.so)");
  std::string error;
  auto dl = llvm::sys::DynamicLibrary::getPermanentLibrary(lib.c_str(), &error);
  if (!dl.isValid())
    return llvm::createStringError("cannot load the CUDA runtime library " + lib + ": " +
                     error);
  RuntimeAPI api;
  bool missing = false;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dl.getAddressOfSymbol(name));
    missing |= fn == nullptr;
  };
  get(api.init, "tiletuneCudaInit");
  get(api.getError, "tiletuneCudaGetError");
  get(api.clearError, "tiletuneCudaClearError");
  get(api.setQuiet, "tiletuneCudaSetQuiet");
  get(api.malloc, "tiletuneCudaMalloc");
  get(api.free, "tiletuneCudaFree");
  get(api.toDevice, "tiletuneCudaCopyToDevice");
  get(api.toHost, "tiletuneCudaCopyToHost");
  get(api.synchronize, "tiletuneCudaSynchronize");
  get(api.profileBegin, "tiletuneCudaProfileBegin");
  get(api.profileEnd, "tiletuneCudaProfileEnd");
  get(api.describe, "tiletuneCudaDeviceDescription");
  get(api.computeCapability, "tiletuneCudaComputeCapability");
  if (missing)
    return llvm::createStringError(lib + " is not a TileTune CUDA runtime (missing "
                           "tiletuneCuda* symbols)");
  api.setQuiet(1);
  return api;
}

/// Why the device is unusable, or "" when it is.
static std::string deviceProblem(const RuntimeAPI &api) {
  if (api.init())
    return "";
  const char *error = api.getError();
  return std::string("no CUDA device: ") + (error ? error : "unknown reason");
}

bool mlir::tiletune::isCudaDeviceAvailable(std::string *reason) {
  llvm::Expected<RuntimeAPI> api = loadRuntime("");
  if (!api) {
    std::string message = llvm::toString(api.takeError());
    if (reason)
      *reason = message;
    return false;
  }
  std::string problem = deviceProblem(*api);
  if (reason)
    *reason = problem;
  return problem.empty();
}

llvm::Expected<CudaDeviceInfo> mlir::tiletune::getCudaDeviceInfo() {
  llvm::Expected<RuntimeAPI> api = loadRuntime("");
  if (!api)
    return api.takeError();
  std::string problem = deviceProblem(*api);
  if (!problem.empty())
    return llvm::createStringError(problem);
  CudaDeviceInfo info;
  char description[256] = {0};
  api->describe(description, sizeof(description));
  info.description = description;
  info.computeCapability = api->computeCapability();
  if (info.computeCapability <= 0)
    return llvm::createStringError("cannot read the compute capability of the CUDA device");
  info.chip = "sm_" + std::to_string(info.computeCapability);
  return info;
}

/// The single tunable op of `func`, or null.
static Operation *findTunableOp(func::FuncOp func) {
  Operation *found = nullptr;
  unsigned count = 0;
  func.walk([&](Operation *op) {
    if (succeeded(matchTunableOp(op))) {
      found = op;
      ++count;
    }
  });
  return count == 1 ? found : nullptr;
}

/// Replaces the PTX object of the module's gpu.binary by `cubin`.
static void embedCubin(ModuleOp module, StringRef cubin) {
  module.walk([&](gpu::BinaryOp binary) {
    ArrayAttr objects = binary.getObjects();
    if (objects.size() != 1)
      return;
    auto object = dyn_cast<gpu::ObjectAttr>(objects[0]);
    if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
      return;
    auto replaced = gpu::ObjectAttr::get(
        module.getContext(), object.getTarget(), gpu::CompilationTarget::Binary,
        StringAttr::get(module.getContext(), cubin), object.getProperties(),
        object.getKernels());
    binary.setObjectsAttr(ArrayAttr::get(module.getContext(), {replaced}));
  });
}

llvm::Expected<GPUCompiledKernel>
mlir::tiletune::compileForGPU(ModuleOp kernel, StringRef funcName,
                              TileConfigAttr config,
                              const GPUMeasureOptions &options) {
  GPUCompiledKernel result;
  result.module = OwningOpRef<ModuleOp>(cast<ModuleOp>(kernel->clone()));
  auto func = result.module->lookupSymbol<func::FuncOp>(funcName);
  if (!func)
    return llvm::createStringError("no function @" + funcName + " in the module");
  Operation *op = findTunableOp(func);
  if (!op)
    return llvm::createStringError("@" + funcName + " must contain exactly one tunable op");
  if (config)
    setConfig(op, config);
  std::string reason;
  FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
  if (failed(plan))
    return llvm::createStringError("invalid cuda config: " + reason);
  result.plan = *plan;
  if (llvm::Error error = prepareForExecution(*result.module))
    return std::move(error);
  if (llvm::Error error = lowerToGPUBinary(*result.module, options.lowering))
    return std::move(error);
  if (options.lowering.format == "isa") {
    llvm::Expected<SmallVector<std::string>> ptx = extractPTX(*result.module);
    if (!ptx)
      return ptx.takeError();
    result.ptx = std::move(*ptx);
  }
  result.verdict.legal = true;
  if (options.checkResources && !result.ptx.empty() && findPtxas()) {
    std::string cubin;
    bool embed = options.loadPtxasCubin && result.ptx.size() == 1;
    llvm::Expected<PtxasReport> report =
        runPtxas(result.ptx.front(), options.lowering.chip, "",
                 options.ptxasTimeoutSeconds, embed ? &cubin : nullptr);
    if (!report) {
      // ptxas refusing the PTX (e.g. too much shared data) is illegality.
      result.verdict.legal = false;
      result.verdict.reason = llvm::toString(report.takeError());
      return result;
    }
    result.ptxas = std::move(*report);
    SMResources limits = SMResources::forChip(options.lowering.chip);
    for (const KernelResources &k : result.ptxas->kernels) {
      ResourceVerdict verdict =
          checkResources(k, result.plan.threadsPerBlock, limits);
      if (!verdict.legal || result.verdict.occupancy == 0.0)
        result.verdict = verdict;
      if (!verdict.legal)
        break;
    }
    if (embed && result.verdict.legal && !cubin.empty())
      embedCubin(*result.module, cubin);
  }
  return result;
}

/// A descriptor (allocated, aligned, offset, sizes, strides) of a row-major
/// device buffer of `shape`.
static SmallVector<int64_t> deviceDescriptor(void *data,
                                             ArrayRef<int64_t> shape) {
  SmallVector<int64_t> words;
  int64_t ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  words.push_back(ptr);
  words.push_back(ptr);
  words.push_back(0);
  for (int64_t s : shape)
    words.push_back(s);
  int64_t stride = 1;
  SmallVector<int64_t> strides(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  words.append(strides.begin(), strides.end());
  return words;
}

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

GPUPreparedVariant::GPUPreparedVariant() = default;
GPUPreparedVariant::GPUPreparedVariant(GPUPreparedVariant &&) = default;
GPUPreparedVariant &
GPUPreparedVariant::operator=(GPUPreparedVariant &&) = default;
GPUPreparedVariant::~GPUPreparedVariant() = default;

GPUPreparedVariant mlir::tiletune::prepareGPUVariant(
    ModuleOp kernel, StringRef funcName, TileConfigAttr config,
    const GPUMeasureOptions &options) {
  auto start = std::chrono::steady_clock::now();
  GPUPreparedVariant prepared;
  auto fail = [&](MeasureStatus status, const Twine &message) {
    prepared.failure = MeasureResult::failure(status, message.str());
    prepared.prepareSeconds = secondsSince(start);
    return std::move(prepared);
  };
  auto func = kernel.lookupSymbol<func::FuncOp>(funcName);
  if (!func)
    return fail(MeasureStatus::Invalid, "no function @" + funcName);
  llvm::Expected<ReferenceProblem> problemInfo = analyzeSingleOpKernel(func);
  if (!problemInfo)
    return fail(MeasureStatus::Invalid, llvm::toString(problemInfo.takeError()));
  prepared.problem = std::make_unique<ReferenceProblem>(std::move(*problemInfo));
  llvm::Expected<KernelSignature> signature = getKernelSignature(func);
  if (!signature)
    return fail(MeasureStatus::Invalid, llvm::toString(signature.takeError()));

  llvm::Expected<GPUCompiledKernel> compiled =
      compileForGPU(kernel, funcName, config, options);
  if (!compiled) {
    std::string message = llvm::toString(compiled.takeError());
    MeasureStatus status = StringRef(message).starts_with("invalid cuda config")
                               ? MeasureStatus::Invalid
                               : MeasureStatus::CompileError;
    return fail(status, message);
  }
  prepared.plan = compiled->plan;
  prepared.ptxas = compiled->ptxas;
  prepared.verdict = compiled->verdict;
  if (!compiled->verdict.legal)
    return fail(MeasureStatus::Invalid,
                "rejected by ptxas resources: " + compiled->verdict.reason);

  // The engine translates gpu.binary ops: register their translations.
  {
    DialectRegistry registry;
    registerAllGPUToLLVMIRTranslations(registry);
    compiled->module->getContext()->appendDialectRegistry(registry);
  }
  JITOptions jit;
  jit.sharedLibraries.push_back(options.runtimeLibrary.empty()
                                    ? getCudaRuntimeLibraryPath()
                                    : options.runtimeLibrary);
  llvm::Expected<std::unique_ptr<ExecutionModule>> engine =
      ExecutionModule::create(*compiled->module, jit);
  if (!engine)
    return fail(MeasureStatus::CompileError,
                llvm::toString(engine.takeError()));
  prepared.engine = std::move(*engine);
  // Looking the kernel up runs the module's constructors, which load the
  // GPU binary into the device context (on this thread; the runtime keeps
  // errors per thread, so a failed load is reported here, with its reason).
  llvm::Expected<RuntimeAPI> api = loadRuntime(options.runtimeLibrary);
  if (api)
    api->clearError();
  llvm::Expected<Kernel> fn = prepared.engine->getKernel(funcName);
  if (!fn)
    return fail(MeasureStatus::CompileError, llvm::toString(fn.takeError()));
  if (!api) {
    llvm::consumeError(api.takeError()); // running reports it
  } else if (const char *error = api->getError()) {
    std::string message = error;
    api->clearError();
    // Without a device every load fails; running says so. With one, the
    // binary itself was refused.
    if (deviceProblem(*api).empty())
      return fail(MeasureStatus::CompileError,
                  "loading the GPU binary failed: " + message);
  }
  prepared.kernel = std::make_unique<Kernel>(*fn);
  // The lowered IR is not needed any more; drop it here, on the thread that
  // owns its context.
  compiled->module = nullptr;
  prepared.prepareSeconds = secondsSince(start);
  return prepared;
}

MeasureResult
mlir::tiletune::runPreparedGPUVariant(GPUPreparedVariant &prepared,
                                      const GPUMeasureOptions &options,
                                      GPUReferenceCache *cache) {
  auto start = std::chrono::steady_clock::now();
  auto finish = [&](MeasureResult result) {
    result.costSeconds = prepared.prepareSeconds + secondsSince(start);
    return result;
  };
  if (prepared.failure)
    return finish(*prepared.failure);
  llvm::Expected<RuntimeAPI> api = loadRuntime(options.runtimeLibrary);
  if (!api)
    return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                         llvm::toString(api.takeError())));
  std::string problem = deviceProblem(*api);
  if (!problem.empty())
    return finish(MeasureResult::failure(MeasureStatus::RuntimeError, problem));
  // A module load that failed while preparing left its error on that
  // thread; here, a kernel without its module fails at launch.
  api->clearError();
  const ReferenceProblem *problemInfo = prepared.problem.get();
  Kernel *fn = prepared.kernel.get();
  const KernelSignature &lowered = fn->getSignature();
  if (!lowered.results.empty())
    return finish(MeasureResult::failure(
        MeasureStatus::Invalid,
        "the lowered kernel returns buffers; GPU kernels must write their "
        "output into an argument"));
  if (lowered.args.size() + 1 > kMaxKernelPointerArgs)
    return finish(MeasureResult::failure(MeasureStatus::Invalid,
                                         "too many kernel arguments"));

  // Host inputs (seeded by the harness; the inputs depend only on the
  // kernel's signature and the seed, so a cached harness of the same kernel
  // applies, with its reference output), device copies.
  GPUReferenceCache local;
  GPUReferenceCache &refs = cache ? *cache : local;
  auto fits = [&](const KernelHarness &harness) {
    if (harness.getSeed() != options.seed ||
        harness.getArguments().size() != lowered.args.size())
      return false;
    for (auto [buffer, arg] : llvm::zip(harness.getArguments(), lowered.args))
      if (!arg.matches(buffer))
        return false;
    return true;
  };
  if (!refs.harness || !fits(*refs.harness)) {
    llvm::Expected<KernelHarness> harness = KernelHarness::create(
        *problemInfo, lowered.args, options.seed, /*computeExpected=*/false);
    if (!harness)
      return finish(MeasureResult::failure(
          MeasureStatus::RuntimeError, llvm::toString(harness.takeError())));
    refs.harness = std::move(*harness);
  }
  llvm::MutableArrayRef<Buffer> host = refs.harness->getArguments();
  SmallVector<void *> device;
  llvm::scope_exit releaseDevice([&] {
    for (void *ptr : device)
      api->free(ptr);
  });
  SmallVector<SmallVector<int64_t>> descriptors;
  for (Buffer &buffer : host) {
    void *ptr = api->malloc(buffer.getByteSize());
    if (!ptr || api->toDevice(ptr, buffer.getRawData(), buffer.getByteSize()))
      return finish(MeasureResult::failure(
          MeasureStatus::RuntimeError,
          std::string("device buffer: ") +
              (api->getError() ? api->getError() : "allocation failed")));
    device.push_back(ptr);
    descriptors.push_back(deviceDescriptor(ptr, buffer.getShape()));
  }
  SmallVector<void *> pointers;
  for (auto &words : descriptors)
    pointers.push_back(words.data());
  auto call = [&]() -> llvm::Error {
    if (llvm::Error error = callCInterface(fn->getCInterfaceFunction(),
                                           pointers))
      return error;
    if (const char *error = api->getError()) {
      std::string message = error;
      api->clearError();
      return llvm::createStringError(message);
    }
    return llvm::Error::success();
  };

  // The first run, to completion: checked against the run time limit, then
  // (when verifying) against the reference.
  {
    auto launched = std::chrono::steady_clock::now();
    if (llvm::Error error = call())
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           llvm::toString(std::move(error))));
    if (api->synchronize())
      return finish(MeasureResult::failure(
          MeasureStatus::RuntimeError,
          std::string("running the kernel: ") +
              (api->getError() ? api->getError() : "synchronize failed")));
    double firstRun = secondsSince(launched);
    if (options.runTimeoutSeconds > 0 && firstRun > options.runTimeoutSeconds)
      return finish(MeasureResult::failure(
          MeasureStatus::Timeout,
          llvm::formatv("the first run took {0:f3} s, over the limit of "
                        "{1:f3} s; not timed",
                        firstRun, options.runTimeoutSeconds)
              .str()));
  }
  if (options.verify) {
    unsigned out = problemInfo->outArg;
    if (out >= host.size())
      return finish(MeasureResult::failure(MeasureStatus::Invalid,
                                           "output argument not found"));
    llvm::Expected<Buffer> actual = lowered.args[out].allocate();
    if (!actual)
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           llvm::toString(actual.takeError())));
    if (api->synchronize() ||
        api->toHost(actual->getRawData(), device[out], actual->getByteSize()))
      return finish(MeasureResult::failure(
          MeasureStatus::RuntimeError,
          std::string("reading the result: ") +
              (api->getError() ? api->getError() : "copy failed")));
    llvm::Expected<ComparisonResult> comparison =
        refs.harness->verify(*actual);
    if (!comparison)
      return finish(MeasureResult::failure(
          MeasureStatus::RuntimeError, llvm::toString(comparison.takeError())));
    if (!comparison->passed)
      return finish(MeasureResult::failure(MeasureStatus::WrongResult,
                                           comparison->summary()));
  }

  // Warm-up, then one profiling window: kernels run back to back and each
  // launch is bracketed by CUDA events.
  for (unsigned i = 0; i < options.timing.warmupRuns; ++i)
    if (llvm::Error error = call())
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           llvm::toString(std::move(error))));
  unsigned repeats = std::max(1u, options.timing.repeats);
  if (api->profileBegin())
    return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                         "cannot start CUDA event timing"));
  for (unsigned i = 0; i < repeats; ++i)
    if (llvm::Error error = call()) {
      api->profileEnd(nullptr, 0);
      return finish(MeasureResult::failure(MeasureStatus::RuntimeError,
                                           llvm::toString(std::move(error))));
    }
  std::vector<float> ms(repeats * 8);
  int launches = api->profileEnd(ms.data(), static_cast<int>(ms.size()));
  if (launches <= 0 || launches % repeats != 0)
    return finish(MeasureResult::failure(
        MeasureStatus::RuntimeError,
        std::string("CUDA event timing failed") +
            (api->getError() ? std::string(": ") + api->getError() : "")));
  unsigned perCall = launches / repeats;
  SmallVector<double> seconds;
  for (unsigned i = 0; i < repeats; ++i) {
    double total = 0;
    for (unsigned j = 0; j < perCall; ++j)
      total += ms[i * perCall + j] * 1e-3;
    seconds.push_back(total);
  }
  TimeStats stats = TimeStats::fromSamples(seconds);
  double gflops =
      stats.median > 0 ? problemInfo->flops / stats.median / 1e9 : 0.0;
  return finish(MeasureResult::success(stats, gflops));
}


MeasureResult mlir::tiletune::measureOnGPU(ModuleOp kernel, StringRef funcName,
                                           TileConfigAttr config,
                                           const GPUMeasureOptions &options) {
  // The device comes first: without one nothing else is worth doing.
  llvm::Expected<RuntimeAPI> api = loadRuntime(options.runtimeLibrary);
  if (!api)
    return MeasureResult::failure(MeasureStatus::RuntimeError,
                                  llvm::toString(api.takeError()));
  std::string problem = deviceProblem(*api);
  if (!problem.empty())
    return MeasureResult::failure(MeasureStatus::RuntimeError, problem);
  GPUPreparedVariant prepared =
      prepareGPUVariant(kernel, funcName, config, options);
  return runPreparedGPUVariant(prepared, options);
}

llvm::Expected<SmallVector<CompileOnlyScore>>
mlir::tiletune::rankConfigsCompileOnly(ModuleOp kernel, StringRef funcName,
                                       ArrayRef<TileConfigAttr> configs,
                                       const GPUMeasureOptions &options) {
  if (!findPtxas())
    return llvm::createStringError("compile-only ranking needs ptxas (install the CUDA "
                     "toolkit or set TILETUNE_PTXAS)");
  GPUMeasureOptions compileOptions = options;
  compileOptions.lowering.format = "isa";
  compileOptions.checkResources = true;
  compileOptions.loadPtxasCubin = false; // nothing is loaded
  SmallVector<CompileOnlyScore> scores;
  for (TileConfigAttr config : configs) {
    CompileOnlyScore score;
    score.config = config;
    llvm::Expected<GPUCompiledKernel> compiled =
        compileForGPU(kernel, funcName, config, compileOptions);
    if (!compiled) {
      score.reason = llvm::toString(compiled.takeError());
      scores.push_back(std::move(score));
      continue;
    }
    score.threadsPerBlock = compiled->plan.threadsPerBlock;
    score.legal = compiled->verdict.legal;
    score.reason = compiled->verdict.reason;
    score.occupancy = compiled->verdict.occupancy;
    if (compiled->ptxas && !compiled->ptxas->kernels.empty()) {
      score.registers = compiled->ptxas->kernels.front().registers;
      score.sharedBytes = compiled->ptxas->kernels.front().sharedBytes;
    }
    scores.push_back(std::move(score));
  }
  // Sorted stably (ties keep the input order) without std::stable_sort's
  // deprecated temporary buffer.
  SmallVector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t i, size_t j) {
    const CompileOnlyScore &a = scores[i], &b = scores[j];
    if (a.legal != b.legal)
      return a.legal;
    if (a.occupancy != b.occupancy)
      return a.occupancy > b.occupancy;
    if (a.registers != b.registers)
      return a.registers < b.registers;
    return i < j;
  });
  SmallVector<CompileOnlyScore> sorted;
  for (size_t i : order)
    sorted.push_back(std::move(scores[i]));
  return sorted;
}
