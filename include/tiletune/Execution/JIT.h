//===- JIT.h - JIT-compile and run lowered kernels --------------*- C++ -*-===//
//
// Compiles a module lowered to the LLVM dialect with mlir::ExecutionEngine
// for the host CPU (its name and all its features, so AVX-512 is used where
// present), links the MLIR C runner utilities and the OpenMP runtime, and
// calls kernels through their `_mlir_ciface_` wrappers with memref
// descriptors built from Buffers. Kernels can be run once (with results
// copied out) or timed with the shared methodology of Timing.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_JIT_H
#define TILETUNE_EXECUTION_JIT_H

#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/MemRefDescriptor.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Support/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::tiletune {

//===----------------------------------------------------------------------===//
// Runtime libraries and the host target.
//===----------------------------------------------------------------------===//

/// Directory of the MLIR runtime libraries: $TILETUNE_MLIR_LIB_DIR when set,
/// else `<MLIR install prefix>/lib` of the MLIR TileTune was built against.
std::string getMLIRLibraryDir();

/// Path of libmlir_c_runner_utils.so in getMLIRLibraryDir().
std::string getCRunnerUtilsPath();

/// Path of the OpenMP runtime that JIT-compiled OpenMP code calls:
/// $TILETUNE_OPENMP_RUNTIME when set, else the libomp.so found next to the
/// MLIR libraries at configure time.
std::string getOpenMPRuntimePath();

/// The libraries linked into every engine by default: the C runner utils
/// and the OpenMP runtime.
llvm::SmallVector<std::string> getDefaultSharedLibraries();

/// A target to compile for.
struct TargetDescription {
  std::string triple;
  std::string cpu;
  /// Comma-separated LLVM feature string ("+avx512f,+fma,...").
  std::string features;
  /// The widest vectors the code may use, where the CPU's registers are
  /// wider (an AVX-512 CPU whose LLVM tuning prefers 256 bits); 0 where it
  /// may use whole registers. LLVM honours a preference only in functions
  /// that carry "min-legal-vector-width": MLIR emits none, and its 16-wide
  /// vectors became zmm on a 256-bit target (a 1024^3 matmul then ran at
  /// 104 % of that target's peak). The JIT gives every function the
  /// attribute.
  int64_t maxVectorBits = 0;
};

/// The host: process triple, llvm::sys::getHostCPUName() and every feature
/// llvm::sys::getHostCPUFeatures() reports, present or not
/// (getHostCPUDescription()).
TargetDescription getHostTarget();

/// Sets the number of threads of the OpenMP runtime at `runtimePath` (default
/// getOpenMPRuntimePath()) for OpenMP code run from the calling thread,
/// loading the runtime first if needed (omp_set_num_threads).
llvm::Error setOpenMPNumThreads(int numThreads,
                                llvm::StringRef runtimePath = "");

/// Makes the process keep the memory that kernels free (glibc: no mmap for
/// blocks up to 32 MiB, no trimming of the heap below 1 GiB), so that a
/// kernel's temporaries (layout and padding buffers, per-call allocations of
/// the lowering) are reused by its next call instead of being mapped afresh
/// and faulted in page by page; a framework's caching allocator does the
/// same. ExecutionModule::create calls it once per process, so every figure
/// the tools measure is of a kernel called in such a process.
/// TILETUNE_KEEP_FREED_MEMORY=0 in the environment turns it off (to measure
/// a kernel in a process that returns memory to the OS). Returns whether the
/// setting is in effect. Processes that call JIT-compiled kernels on their
/// own (embedders) can call it first.
bool keepFreedMemoryInProcess();

//===----------------------------------------------------------------------===//
// Engines and kernels.
//===----------------------------------------------------------------------===//

/// Options of ExecutionModule::create.
struct JITOptions {
  /// LLVM IR optimisation level (0-3) and code generation level.
  unsigned optLevel = kDefaultJITOptLevel;
  /// Code generation level (0-3) when it differs from `optLevel` (-1: the
  /// same). Instruction selection and register allocation change with it.
  int codegenOptLevel = -1;
  /// Target CPU name (LLVM's, as `mcpu`); `cpu` and `features` both empty
  /// mean the process's default target (getDefaultTargetCPU(): the host
  /// unless a tool chose another).
  std::string cpu;
  /// Target features (LLVM's `mattr`: "+avx2,-avx512f"), applied on top of
  /// the host's features (no `cpu`) or the CPU's own (describeCPU).
  std::string features;
  /// Shared libraries to link; by default getDefaultSharedLibraries().
  llvm::SmallVector<std::string> sharedLibraries = getDefaultSharedLibraries();
};

/// Checks `options` before anything is compiled or run: the optimisation
/// level (0-3), that `cpu` names a CPU LLVM knows and `features` only known
/// "+name"/"-name" entries, and that this host has every feature the
/// resulting target enables (code for a missing one would die with an
/// illegal instruction). Each error says what is wrong and what is valid.
/// ExecutionModule::create checks the same; front-ends call it first.
llvm::Error checkJITOptions(const JITOptions &options);

class ExecutionModule;

/// One callable kernel of an ExecutionModule. Cheap to copy; valid while its
/// ExecutionModule lives.
class Kernel {
public:
  const KernelSignature &getSignature() const { return *signature; }
  llvm::StringRef getName() const { return signature->name; }
  /// Address of `_mlir_ciface_<name>`: takes a pointer to the result
  /// descriptors first when the function has results, then one descriptor
  /// pointer per argument.
  void *getCInterfaceFunction() const { return function; }

  /// Checks that `args` match the signature (count, element types, shapes).
  llvm::Error checkArguments(llvm::ArrayRef<Buffer *> args) const;

  /// Calls the kernel once on `args`. Memref results (tensor functions
  /// bufferized at the function boundary) are copied into `results` when
  /// given and their storage released when the kernel allocated it.
  llvm::Error run(llvm::ArrayRef<Buffer *> args,
                  llvm::SmallVectorImpl<Buffer> *results = nullptr) const;

  /// Times calls of the kernel on `args` with measure(). The arguments are
  /// reused across calls (an accumulating kernel keeps accumulating; copy
  /// the output first if it matters). The arguments at `coldArgs` (indices
  /// into `args`) are evicted from the caches before every call, outside
  /// the timed region (evictFromCaches; one call per sample), so that their
  /// trip from memory is timed, as for a model's weights that exceed the
  /// caches.
  llvm::Expected<TimeStats> time(llvm::ArrayRef<Buffer *> args,
                                 const TimingOptions &options = {},
                                 llvm::ArrayRef<unsigned> coldArgs = {}) const;

  /// Times calls of the kernel on `args` interleaved with calls of
  /// `reference` on `referenceArgs` (measurePaired): the ratio of the two
  /// is robust against a machine whose speed drifts. Argument buffers are
  /// reused across calls as in time().
  llvm::Expected<PairedTimeStats>
  timePaired(llvm::ArrayRef<Buffer *> args, const Kernel &reference,
             llvm::ArrayRef<Buffer *> referenceArgs,
             const TimingOptions &options = {}) const;

  /// time() and timePaired() over several argument sets (each as `args`):
  /// successive calls take the sets in turn, so that a set's buffers have
  /// been pushed out of the caches by the other sets' since its last call,
  /// as a model's weights are by the other ops' weights (the CPU measurer's
  /// weight copies, CPUMeasureOptions::weightArguments). One set is time()
  /// and timePaired() themselves.
  llvm::Expected<TimeStats>
  timeRotating(llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets,
               const TimingOptions &options = {}) const;
  llvm::Expected<PairedTimeStats>
  timePairedRotating(llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets,
                     const Kernel &reference,
                     llvm::ArrayRef<llvm::SmallVector<Buffer *>> referenceSets,
                     const TimingOptions &options = {}) const;

private:
  friend class ExecutionModule;
  Kernel(const KernelSignature *signature, void *function)
      : signature(signature), function(function) {}
  /// A callable that calls the kernel on `args` with descriptors prepared
  /// once (for timing loops).
  llvm::Expected<std::function<void()>>
  bindCall(llvm::ArrayRef<Buffer *> args) const;
  /// A callable whose successive calls call the kernel on `argSets` in
  /// turn (bindCall of each; one set: bindCall itself).
  llvm::Expected<std::function<void()>>
  bindRotatingCall(llvm::ArrayRef<llvm::SmallVector<Buffer *>> argSets) const;
  /// One call with prepared descriptor pointers; releases results the kernel
  /// allocated unless `keep` is set. `resultWords` is the result storage.
  void invoke(llvm::SmallVectorImpl<void *> &pointers,
              llvm::MutableArrayRef<int64_t> resultWords,
              llvm::ArrayRef<Buffer *> args, bool keep) const;

  const KernelSignature *signature;
  void *function;
};

/// A JIT-compiled module. Owns the ExecutionEngine; kernels looked up from
/// it stay valid until it is destroyed.
class ExecutionModule {
public:
  /// JIT-compiles `module`, which must be fully lowered to the LLVM dialect
  /// (plus translatable dialects such as omp). The module is translated to
  /// LLVM IR, optimised at `options.optLevel` for the target machine and
  /// compiled. Every error (untranslatable IR, a missing shared library, a
  /// code generation failure) comes back as an llvm::Error carrying the
  /// diagnostics, never as a crash. The module is not modified.
  static llvm::Expected<std::unique_ptr<ExecutionModule>>
  create(ModuleOp module, const JITOptions &options = {});

  ~ExecutionModule();
  ExecutionModule(const ExecutionModule &) = delete;
  ExecutionModule &operator=(const ExecutionModule &) = delete;

  /// Looks up kernel `name`: its `_mlir_ciface_` wrapper must exist (see
  /// prepareForExecution) and its llvm.func must carry the signature
  /// attribute. The lowered signature is reconciled with the recorded one:
  /// results dropped by `drop-equivalent-buffer-results` disappear and
  /// results turned into trailing arguments (`buffer-results-to-out-params`)
  /// become arguments.
  llvm::Expected<Kernel> getKernel(llvm::StringRef name);

  /// The target the module was compiled for.
  const TargetDescription &getTarget() const { return target; }

  /// Underlying engine, for uses this class does not cover.
  ExecutionEngine &getEngine() { return *engine; }

private:
  ExecutionModule() = default;

  std::unique_ptr<ExecutionEngine> engine;
  TargetDescription target;
  /// Signatures of the module's annotated functions, as lowered.
  llvm::StringMap<KernelSignature> signatures;
  /// Lookup failures or reconciliation errors, reported by getKernel.
  llvm::StringMap<std::string> signatureErrors;
  /// External functions of the module that no loaded library defines.
  llvm::SmallVector<std::string> unresolvedSymbols;
};

/// Calls `function` (a `_mlir_ciface_` wrapper) with `pointers` as its
/// pointer arguments. Supports up to kMaxKernelPointerArgs arguments.
llvm::Error callCInterface(void *function, llvm::ArrayRef<void *> pointers);

/// Largest number of pointer arguments callCInterface supports (the result
/// pointer included). Whole models take their weights as arguments: ResNet-50
/// from scripts/gen-models.py has 55 (docs/Models.md).
constexpr unsigned kMaxKernelPointerArgs = 64;

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_JIT_H
