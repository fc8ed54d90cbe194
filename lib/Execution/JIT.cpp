//===- JIT.cpp - JIT-compile and run lowered kernels ----------------------===//
//
// ExecutionEngine set-up for the host CPU, signature reconciliation after
// lowering, and descriptor marshalling for `_mlir_ciface_` calls.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/JIT.h"
#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/Support/CPUDescription.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <utility>

#ifndef TILETUNE_MLIR_LIB_DIR
#error "TILETUNE_MLIR_LIB_DIR must be defined by the build"
#endif
#ifndef TILETUNE_OPENMP_RUNTIME
#error "TILETUNE_OPENMP_RUNTIME must be defined by the build"
#endif

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Runtime libraries and the host target.
//===----------------------------------------------------------------------===//

std::string mlir::tiletune::getMLIRLibraryDir() {
  if (auto env = llvm::sys::Process::GetEnv("TILETUNE_MLIR_LIB_DIR"))
    if (!env->empty())
      return *env;
  return TILETUNE_MLIR_LIB_DIR;
}

std::string mlir::tiletune::getCRunnerUtilsPath() {
  llvm::SmallString<256> path(getMLIRLibraryDir());
  llvm::sys::path::append(path, "libmlir_c_runner_utils.so");
  return std::string(path);
}

std::string mlir::tiletune::getOpenMPRuntimePath() {
  if (auto env = llvm::sys::Process::GetEnv("TILETUNE_OPENMP_RUNTIME"))
    if (!env->empty())
      return *env;
  return TILETUNE_OPENMP_RUNTIME;
}

llvm::SmallVector<std::string> mlir::tiletune::getDefaultSharedLibraries() {
  return {getCRunnerUtilsPath(), getOpenMPRuntimePath()};
}

/// What the JIT compiles for `cpu`: its LLVM names, and its vector width
/// where that is below its registers'.
static TargetDescription toTargetDescription(const CPUDescription &cpu) {
  return {cpu.triple, cpu.cpu, cpu.features,
          cpu.vectorBits < cpu.registerBits ? cpu.vectorBits : 0};
}

TargetDescription mlir::tiletune::getHostTarget() {
  return toTargetDescription(getHostCPUDescription());
}

/// Registers the host's LLVM target once per process.
static void initializeNativeTarget() {
  static std::once_flag initTargets;
  std::call_once(initTargets, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The target `options` ask for (CPUDescription: the host unless
/// overridden; `features` apply on top of the host's or the CPU's own).
static llvm::Expected<TargetDescription>
resolveTarget(const JITOptions &options) {
  llvm::Expected<CPUDescription> cpu =
      describeTargetCPU(options.cpu, options.features);
  if (!cpu)
    return cpu.takeError();
  return toTargetDescription(*cpu);
}

llvm::Error mlir::tiletune::checkJITOptions(const JITOptions &options) {
  if (options.optLevel > 3)
    return llvm::createStringError(
        llvm::formatv("the optimisation level must be between 0 and 3, got {0}",
                      options.optLevel));
  if (options.codegenOptLevel > 3 || options.codegenOptLevel < -1)
    return llvm::createStringError(llvm::formatv(
        "the code generation level must be between 0 and 3, got {0}",
        options.codegenOptLevel));
  llvm::Expected<CPUDescription> cpu =
      describeTargetCPU(options.cpu, options.features);
  if (!cpu)
    return cpu.takeError();
  return checkRunsOnHost(*cpu);
}

llvm::Error mlir::tiletune::setOpenMPNumThreads(int numThreads,
                                                llvm::StringRef runtimePath) {
  if (numThreads < 1)
    return llvm::createStringError(
        llvm::formatv("invalid OpenMP thread count {0}", numThreads));
  std::string path =
      runtimePath.empty() ? getOpenMPRuntimePath() : runtimePath.str();
  std::string error;
  auto lib =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
  if (!lib.isValid())
    return llvm::createStringError(llvm::formatv(
        "cannot load the OpenMP runtime '{0}': {1}", path, error));
  void *sym = lib.getAddressOfSymbol("omp_set_num_threads");
  if (!sym)
    return llvm::createStringError(llvm::formatv(
        "'{0}' does not define omp_set_num_threads", path));
  reinterpret_cast<void (*)(int)>(sym)(numThreads);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Calling `_mlir_ciface_` functions.
//===----------------------------------------------------------------------===//

namespace {
template <size_t... I>
void callWithPointers(void *function, void *const *p,
                      std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(function)(p[I]...);
}

using Trampoline = void (*)(void *, void *const *);

template <size_t N> void trampoline(void *function, void *const *p) {
  callWithPointers(function, p, std::make_index_sequence<N>());
}

template <size_t... N>
constexpr std::array<Trampoline, sizeof...(N)>
makeTrampolines(std::index_sequence<N...>) {
  return {&trampoline<N>...};
}

constexpr auto kTrampolines =
    makeTrampolines(std::make_index_sequence<kMaxKernelPointerArgs + 1>());
} // namespace

llvm::Error mlir::tiletune::callCInterface(void *function,
                                           llvm::ArrayRef<void *> pointers) {
  if (!function)
    return llvm::createStringError("null kernel function");
  if (pointers.size() > kMaxKernelPointerArgs)
    return llvm::createStringError(
        llvm::formatv("kernels with {0} pointer arguments are not supported "
                      "(at most {1})",
                      pointers.size(), kMaxKernelPointerArgs));
  kTrampolines[pointers.size()](function, pointers.data());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Kernel.
//===----------------------------------------------------------------------===//

/// Words of the result storage of `sig` (all result descriptors back to
/// back: a struct of descriptor structs has no padding, every field is 8
/// bytes).
static unsigned getResultWords(const KernelSignature &sig) {
  unsigned words = 0;
  for (const MemRefInfo &r : sig.results)
    words += getDescriptorWords(r.shape.size());
  return words;
}

/// Marker MLIR stores as the allocated pointer of memrefs of globals.
static constexpr intptr_t kGlobalMemRefMarker = 0xdeadbeef;

/// Frees the storage of results the kernel allocated itself: not null, not
/// a global (marker pointer), not one of the argument buffers, once each.
static void releaseResults(const KernelSignature &sig,
                           llvm::ArrayRef<int64_t> resultWords,
                           llvm::ArrayRef<Buffer *> args) {
  llvm::SmallVector<void *> freed;
  unsigned offset = 0;
  for (const MemRefInfo &r : sig.results) {
    void *allocated = reinterpret_cast<void *>(
        static_cast<intptr_t>(resultWords[offset]));
    offset += getDescriptorWords(r.shape.size());
    if (!allocated ||
        reinterpret_cast<intptr_t>(allocated) == kGlobalMemRefMarker ||
        llvm::is_contained(freed, allocated) ||
        llvm::any_of(args, [&](Buffer *b) {
          return b->getRawData() == allocated;
        }))
      continue;
    freed.push_back(allocated);
    std::free(allocated);
  }
}

llvm::Error Kernel::checkArguments(llvm::ArrayRef<Buffer *> args) const {
  if (args.size() != signature->args.size())
    return llvm::createStringError(
        llvm::formatv("@{0} takes {1} arguments, {2} given", signature->name,
                      signature->args.size(), args.size()));
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg || !arg->isValid())
      return llvm::createStringError(
          llvm::formatv("argument #{0} of @{1} is not a valid buffer", i,
                        signature->name));
    if (!signature->args[i].matches(*arg))
      return llvm::createStringError(llvm::formatv(
          "argument #{0} of @{1}: expected {2}, got a {3} buffer", i,
          signature->name, signature->args[i].str(), arg->getTypeString()));
  }
  if (args.size() + (signature->results.empty() ? 0 : 1) >
      kMaxKernelPointerArgs)
    return llvm::createStringError(llvm::formatv(
        "@{0} has too many arguments for the runner (at most {1})",
        signature->name, kMaxKernelPointerArgs));
  return llvm::Error::success();
}

void Kernel::invoke(llvm::SmallVectorImpl<void *> &pointers,
                    llvm::MutableArrayRef<int64_t> resultWords,
                    llvm::ArrayRef<Buffer *> args, bool keep) const {
  std::fill(resultWords.begin(), resultWords.end(), 0);
  kTrampolines[pointers.size()](function, pointers.data());
  if (!keep && !signature->results.empty())
    releaseResults(*signature, resultWords, args);
}

llvm::Error Kernel::run(llvm::ArrayRef<Buffer *> args,
                        llvm::SmallVectorImpl<Buffer> *results) const {
  if (auto err = checkArguments(args))
    return err;
  llvm::SmallVector<MemRefDescriptor> descriptors;
  for (Buffer *arg : args)
    descriptors.push_back(MemRefDescriptor::fromBuffer(*arg));
  llvm::SmallVector<int64_t> resultWords(getResultWords(*signature), 0);
  llvm::SmallVector<void *> pointers;
  if (!signature->results.empty())
    pointers.push_back(resultWords.data());
  for (MemRefDescriptor &d : descriptors)
    pointers.push_back(d.getStructPtr());

  invoke(pointers, resultWords, args, /*keep=*/true);

  // Copy results out, then release what the kernel allocated.
  llvm::Error error = llvm::Error::success();
  if (results)
    results->clear();
  unsigned offset = 0;
  for (const MemRefInfo &r : signature->results) {
    unsigned rank = r.shape.size();
    MemRefDescriptor desc =
        MemRefDescriptor::fromWords(rank, resultWords.data() + offset);
    offset += getDescriptorWords(rank);
    if (!results || error)
      continue;
    if (desc.getSizes() != llvm::ArrayRef<int64_t>(r.shape)) {
      error = llvm::createStringError(
          llvm::formatv("@{0} returned a memref whose sizes differ from {1}",
                        signature->name, r.str()));
      continue;
    }
    auto buffer = desc.copyToBuffer(r.elementType);
    if (!buffer) {
      error = buffer.takeError();
      continue;
    }
    results->push_back(std::move(*buffer));
  }
  releaseResults(*signature, resultWords, args);
  return error;
}

llvm::Expected<std::function<void()>>
Kernel::bindCall(llvm::ArrayRef<Buffer *> args) const {
  if (auto err = checkArguments(args))
    return std::move(err);
  struct State {
    llvm::SmallVector<MemRefDescriptor> descriptors;
    llvm::SmallVector<int64_t> resultWords;
    llvm::SmallVector<void *> pointers;
    llvm::SmallVector<Buffer *> args;
  };
  auto state = std::make_shared<State>();
  for (Buffer *arg : args)
    state->descriptors.push_back(MemRefDescriptor::fromBuffer(*arg));
  state->resultWords.assign(getResultWords(*signature), 0);
  if (!signature->results.empty())
    state->pointers.push_back(state->resultWords.data());
  for (MemRefDescriptor &d : state->descriptors)
    state->pointers.push_back(d.getStructPtr());
  state->args.assign(args.begin(), args.end());

  if (signature->results.empty()) {
    // The common case: call the wrapper directly, nothing else in the loop.
    Trampoline call = kTrampolines[state->pointers.size()];
    return std::function<void()>(
        [call, fn = function, state] { call(fn, state->pointers.data()); });
  }
  Kernel self = *this;
  return std::function<void()>([self, state] {
    self.invoke(state->pointers, state->resultWords, state->args,
                /*keep=*/false);
  });
}

llvm::Expected<TimeStats>
Kernel::time(llvm::ArrayRef<Buffer *> args, const TimingOptions &options,
             llvm::ArrayRef<unsigned> coldArgs) const {
  llvm::Expected<std::function<void()>> call = bindCall(args);
  if (!call)
    return call.takeError();
  for (unsigned index : coldArgs)
    if (index >= args.size())
      return llvm::createStringError(llvm::formatv(
          "cannot evict argument {0}: the kernel has {1} arguments", index,
          args.size()));
  if (coldArgs.empty())
    return measure(*call, options);
  auto evict = [&] {
    for (unsigned index : coldArgs)
      evictFromCaches(args[index]->getRawData(), args[index]->getByteSize());
  };
  return measure(*call, options, evict);
}

llvm::Expected<std::function<void()>> Kernel::bindRotatingCall(
    llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets) const {
  if (argSets.empty())
    return llvm::createStringError("no argument set to call the kernel on");
  std::vector<std::function<void()>> calls;
  calls.reserve(argSets.size());
  for (const llvm::SmallVector<Buffer *> &args : argSets) {
    llvm::Expected<std::function<void()>> call = bindCall(args);
    if (!call)
      return call.takeError();
    calls.push_back(std::move(*call));
  }
  if (calls.size() == 1)
    return std::move(calls.front());
  auto next = std::make_shared<size_t>(0);
  return std::function<void()>([calls = std::move(calls), next] {
    calls[*next]();
    *next = *next + 1 == calls.size() ? 0 : *next + 1;
  });
}

llvm::Expected<TimeStats>
Kernel::timeRotating(llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets,
                     const TimingOptions &options) const {
  llvm::Expected<std::function<void()>> call = bindRotatingCall(argSets);
  if (!call)
    return call.takeError();
  return measure(*call, options);
}

llvm::Expected<PairedTimeStats>
Kernel::timePaired(llvm::ArrayRef<Buffer *> args, const Kernel &reference,
                   llvm::ArrayRef<Buffer *> referenceArgs,
                   const TimingOptions &options) const {
  llvm::SmallVector<Buffer *> subjectSet(args), referenceSet(referenceArgs);
  return timePairedRotating(subjectSet, reference, referenceSet, options);
}

llvm::Expected<PairedTimeStats> Kernel::timePairedRotating(
    llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets,
    const Kernel &reference,
    llvm::ArrayRef<llvm::SmallVector<Buffer *>> referenceSets,
    const TimingOptions &options) const {
  llvm::Expected<std::function<void()>> call = bindRotatingCall(argSets);
  if (!call)
    return call.takeError();
  llvm::Expected<std::function<void()>> referenceCall =
      reference.bindRotatingCall(referenceSets);
  if (!referenceCall)
    return referenceCall.takeError();
  return measurePaired(*call, *referenceCall, options);
}

//===----------------------------------------------------------------------===//
// ExecutionModule.
//===----------------------------------------------------------------------===//

ExecutionModule::~ExecutionModule() = default;

namespace {
/// Ranks of the memref descriptors an llvm.func takes, expanded as
/// (ptr, ptr, i64 offset, i64 x rank sizes, i64 x rank strides) each;
/// std::nullopt when the parameters do not follow that pattern.
std::optional<SmallVector<unsigned>>
getExpandedDescriptorRanks(ArrayRef<Type> params) {
  SmallVector<unsigned> ranks;
  size_t i = 0;
  while (i < params.size()) {
    if (i + 2 >= params.size() || !isa<LLVM::LLVMPointerType>(params[i]) ||
        !isa<LLVM::LLVMPointerType>(params[i + 1]))
      return std::nullopt;
    size_t j = i + 2;
    while (j < params.size() && params[j].isInteger(64))
      ++j;
    size_t ints = j - (i + 2);
    if (ints % 2 != 1)
      return std::nullopt;
    ranks.push_back((ints - 1) / 2);
    i = j;
  }
  return ranks;
}

/// Rank of a descriptor struct type, std::nullopt if `type` is not one.
std::optional<unsigned> getDescriptorRank(Type type) {
  auto st = dyn_cast<LLVM::LLVMStructType>(type);
  if (!st)
    return std::nullopt;
  ArrayRef<Type> body = st.getBody();
  if (body.size() == 3 && isa<LLVM::LLVMPointerType>(body[0]) &&
      isa<LLVM::LLVMPointerType>(body[1]) && body[2].isInteger(64))
    return 0u;
  if (body.size() != 5 || !isa<LLVM::LLVMPointerType>(body[0]) ||
      !isa<LLVM::LLVMPointerType>(body[1]) || !body[2].isInteger(64))
    return std::nullopt;
  auto sizes = dyn_cast<LLVM::LLVMArrayType>(body[3]);
  auto strides = dyn_cast<LLVM::LLVMArrayType>(body[4]);
  if (!sizes || !strides || sizes != strides)
    return std::nullopt;
  return static_cast<unsigned>(sizes.getNumElements());
}

/// Ranks of the memref results of a lowered function.
std::optional<SmallVector<unsigned>> getResultRanks(Type resultType) {
  if (isa<LLVM::LLVMVoidType>(resultType))
    return SmallVector<unsigned>{};
  if (auto rank = getDescriptorRank(resultType))
    return SmallVector<unsigned>{*rank};
  auto st = dyn_cast<LLVM::LLVMStructType>(resultType);
  if (!st)
    return std::nullopt;
  SmallVector<unsigned> ranks;
  for (Type t : st.getBody()) {
    auto rank = getDescriptorRank(t);
    if (!rank)
      return std::nullopt;
    ranks.push_back(*rank);
  }
  return ranks;
}

bool ranksMatch(ArrayRef<MemRefInfo> infos, ArrayRef<unsigned> ranks) {
  if (infos.size() != ranks.size())
    return false;
  for (auto [info, rank] : llvm::zip(infos, ranks))
    if (info.shape.size() != rank)
      return false;
  return true;
}

/// Reconciles the recorded (pre-lowering) signature of `func` with its
/// lowered LLVM function type.
llvm::Expected<KernelSignature> reconcileSignature(LLVM::LLVMFuncOp func,
                                                   ModuleOp module) {
  auto recorded = getKernelSignature(module, func.getSymName());
  if (!recorded)
    return recorded.takeError();
  LLVM::LLVMFunctionType type = func.getFunctionType();
  auto argRanks = getExpandedDescriptorRanks(type.getParams());
  auto resultRanks = getResultRanks(type.getReturnType());
  if (!argRanks || !resultRanks)
    return llvm::createStringError(llvm::formatv(
        "lowered @{0} does not take and return only memref descriptors",
        func.getSymName()));
  KernelSignature sig = std::move(*recorded);
  if (ranksMatch(sig.args, *argRanks) && ranksMatch(sig.results, *resultRanks))
    return sig;
  if (resultRanks->empty() && ranksMatch(sig.args, *argRanks)) {
    // drop-equivalent-buffer-results: the results were arguments.
    sig.results.clear();
    return sig;
  }
  if (resultRanks->empty()) {
    KernelSignature outParams = sig;
    outParams.args.append(sig.results.begin(), sig.results.end());
    outParams.results.clear();
    if (ranksMatch(outParams.args, *argRanks))
      return outParams;
  }
  return llvm::createStringError(llvm::formatv(
      "lowered @{0} takes {1} memref(s) and returns {2}, which does not match "
      "its recorded signature {3}",
      func.getSymName(), argRanks->size(), resultRanks->size(), sig.str()));
}
} // namespace

bool mlir::tiletune::keepFreedMemoryInProcess() {
  static const bool kept = [] {
    const char *env = std::getenv("TILETUNE_KEEP_FREED_MEMORY");
    if (env && llvm::StringRef(env) == "0")
      return false;
#if defined(__GLIBC__)
    // Measured on a 2-core VM: an NCHW ResNet-50 3x3 conv whose layout
    // buffers (2.4 MB) were mapped and faulted in on every call ran at
    // 21 GFLOP/s instead of 174.
    constexpr int kMaxMmapThreshold = 32 << 20; // glibc's largest allowed.
    bool ok = mallopt(M_MMAP_THRESHOLD, kMaxMmapThreshold) == 1;
    ok &= mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
    return ok;
#else
    return false;
#endif
  }();
  return kept;
}

llvm::Expected<std::unique_ptr<ExecutionModule>>
ExecutionModule::create(ModuleOp module, const JITOptions &options) {
  initializeNativeTarget();
  (void)keepFreedMemoryInProcess();
  if (llvm::Error err = checkJITOptions(options))
    return err;

  MLIRContext *context = module.getContext();
  DiagnosticCapture diagnostics(context,
                                DiagnosticCapture::Kinds::ErrorsAndWarnings);
  auto withDiagnostics = [&](const llvm::Twine &message) {
    std::string text = message.str();
    if (!diagnostics.empty())
      text += ":\n" + diagnostics.text();
    return llvm::createStringError(text);
  };

  if (failed(verify(module)))
    return withDiagnostics("the module does not verify");
  for (Operation &op : module.getBody()->getOperations()) {
    // gpu.binary (device code of a GPU lowering) translates to a global
    // and constructors that load it, once its translation is registered.
    if (!isa<LLVM::LLVMDialect>(op.getDialect()) &&
        op.getDialect()->getNamespace() != "omp" &&
        op.getName().getStringRef() != "gpu.binary")
      return withDiagnostics(llvm::formatv(
          "the module is not lowered to the LLVM dialect: it still contains "
          "'{0}' (run a lowering pipeline first)",
          op.getName().getStringRef()));
  }

  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);

  // Target machine: host CPU and features unless overridden.
  llvm::Expected<TargetDescription> resolved = resolveTarget(options);
  if (!resolved)
    return resolved.takeError();
  TargetDescription target = std::move(*resolved);
  llvm::CodeGenOptLevel cgLevel =
      llvm::CodeGenOpt::getLevel(options.codegenOptLevel >= 0
                                     ? options.codegenOptLevel
                                     : static_cast<int>(options.optLevel))
          .value_or(llvm::CodeGenOptLevel::Aggressive);
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(target.triple)};
  builder.setCPU(target.cpu);
  SmallVector<StringRef> featureList;
  llvm::StringRef(target.features)
      .split(featureList, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::vector<std::string> features;
  for (StringRef f : featureList)
    features.push_back(f.str());
  builder.addFeatures(features);
  builder.setCodeGenOptLevel(cgLevel);
  auto engineTM = builder.createTargetMachine();
  if (!engineTM)
    return engineTM.takeError();
  auto optTM = builder.createTargetMachine();
  if (!optTM)
    return optTM.takeError();

  for (const std::string &lib : options.sharedLibraries)
    if (!llvm::sys::fs::exists(lib))
      return llvm::createStringError(llvm::formatv(
          "shared library '{0}' does not exist (set TILETUNE_MLIR_LIB_DIR / "
          "TILETUNE_OPENMP_RUNTIME or JITOptions::sharedLibraries)",
          lib));
  SmallVector<StringRef> libRefs(options.sharedLibraries.begin(),
                                 options.sharedLibraries.end());

  // ExecutionEngine::create aborts on an error returned by the transformer
  // (cantFail), so the optimiser's error is stashed and reported here.
  auto optimize = makeOptimizingTransformer(options.optLevel,
                                            /*sizeLevel=*/0, optTM->get());
  std::string optimizeError;
  auto transformer = [&](llvm::Module *m) -> llvm::Error {
    if (target.maxVectorBits > 0)
      for (llvm::Function &function : *m)
        if (!function.isDeclaration() &&
            !function.hasFnAttribute("min-legal-vector-width"))
          function.addFnAttr("min-legal-vector-width",
                             std::to_string(target.maxVectorBits));
    if (llvm::Error err = optimize(m))
      optimizeError = llvm::toString(std::move(err));
    return llvm::Error::success();
  };

  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = cgLevel;
  engineOptions.sharedLibPaths = libRefs;
  engineOptions.enableGDBNotificationListener = false;
  // TILETUNE_PERF_JIT=1: tell perf about the JIT-compiled functions (a
  // jit-<pid>.dump for `perf record -k mono` + `perf inject --jit`,
  // docs/Benchmarks.md "Profiling").
  const char *perfJit = std::getenv("TILETUNE_PERF_JIT");
  engineOptions.enablePerfNotificationListener =
      perfJit && StringRef(perfJit) == "1";

  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*engineTM));
  if (!engine)
    return withDiagnostics("JIT compilation failed: " +
                           llvm::toString(engine.takeError()));
  if (!optimizeError.empty())
    return withDiagnostics("LLVM optimisation failed: " + optimizeError);

  std::unique_ptr<ExecutionModule> result(new ExecutionModule());
  result->engine = std::move(*engine);
  result->target = std::move(target);
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func->hasAttr(kSignatureAttrName) || func.isExternal() ||
        func.getSymName().starts_with("_mlir_ciface_"))
      continue;
    auto sig = reconcileSignature(func, module);
    if (!sig) {
      result->signatureErrors[func.getSymName()] =
          llvm::toString(sig.takeError());
      continue;
    }
    result->signatures[func.getSymName()] = std::move(*sig);
  }
  // External functions no loaded library defines make every lookup fail
  // with a terse ORC message; remember them to explain such failures.
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = func.getSymName();
    if (func.isExternal() && !name.starts_with("llvm.") &&
        !llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      result->unresolvedSymbols.push_back(name.str());
  }
  return std::move(result);
}

llvm::Expected<Kernel> ExecutionModule::getKernel(llvm::StringRef name) {
  auto errIt = signatureErrors.find(name);
  if (errIt != signatureErrors.end())
    return llvm::createStringError(errIt->second);
  auto it = signatures.find(name);
  if (it == signatures.end())
    return llvm::createStringError(llvm::formatv(
        "no kernel @{0} in the compiled module (a function carrying the '{1}' "
        "attribute; see prepareForExecution)",
        name, kSignatureAttrName));
  std::string wrapper = ("_mlir_ciface_" + name).str();
  auto fn = engine->lookup(wrapper);
  if (!fn) {
    std::string message = llvm::toString(fn.takeError());
    if (!unresolvedSymbols.empty())
      return llvm::createStringError(llvm::formatv(
          "cannot compile @{0}: external symbol(s) not found in the process "
          "or the linked libraries: {1} ({2})",
          name, llvm::join(unresolvedSymbols, ", "), message));
    return llvm::createStringError(llvm::formatv(
        "cannot find {0} (was @{1} marked '{2}' before lowering?): {3}",
        wrapper, name, kEmitCInterfaceAttrName, message));
  }
  // Materialisation succeeded, so every symbol resolved; run global
  // constructors (none in our kernels, but cheap and required in general).
  engine->initialize();
  return Kernel(&it->second, *fn);
}
