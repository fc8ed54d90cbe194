//===- GPUMeasurer.h - Compile, run and time kernels on a GPU --*- C++ -*-===//
//
// The GPU side of the tuner's measurement: a kernel function (one tunable
// op) with a cuda config is lowered by the same `tiletune-lower-gpu`
// pipeline a user's compile runs, checked with ptxas (legality filter),
// JIT-compiled with mlir::ExecutionEngine against libtiletune_cuda_runtime,
// run on device buffers, verified against the C++ reference and timed with
// CUDA events. Without a GPU every entry point returns a clear "no CUDA
// device" failure; the compile-only ranking works everywhere ptxas exists.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_GPUMEASURER_H
#define TILETUNE_MEASURE_GPUMEASURER_H

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/GPU/GPULowering.h"
#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/GPU/PTXAS.h"
#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Measure/Measurer.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/Space.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::tiletune {

/// Path of libtiletune_cuda_runtime.so: $TILETUNE_CUDA_RUNTIME when set,
/// else the library built with TileTune (empty when it was not built).
std::string getCudaRuntimeLibraryPath();

/// Loads the runtime library and asks it for a device. False, with the
/// reason ("no CUDA driver: ...", "no CUDA device: ...", "runtime library
/// not found ...") in `reason`, when kernels cannot run here.
bool isCudaDeviceAvailable(std::string *reason = nullptr);

/// The CUDA device kernels run on.
struct CudaDeviceInfo {
  /// Name, memory and driver as the runtime describes them.
  std::string description;
  /// Compute capability as major * 10 + minor (e.g. 90).
  int computeCapability = 0;
  /// The matching chip of the lowering ("sm_90").
  std::string chip;
};

/// The device of the runtime library; an error with the reason (as
/// isCudaDeviceAvailable gives it) when there is none.
llvm::Expected<CudaDeviceInfo> getCudaDeviceInfo();

/// Options of the GPU measurement.
struct GPUMeasureOptions {
  GPUMeasureOptions() { lowering.format = "isa"; }
  /// Lowering; format "isa" (PTX JIT-compiled by the driver at load time)
  /// needs no CUDA toolkit on the GPU machine.
  GPULoweringOptions lowering;
  /// Untimed runs before timing (timing.warmupRuns) and timed runs
  /// (timing.repeats), with the CPU measurer's defaults. Each timed run is
  /// one launch bracketed by CUDA events, so the batching options
  /// (minSampleSeconds, maxCallsPerSample) do not apply.
  TimingOptions timing;
  /// When > 0: a variant whose first run (launch to completion, wall time)
  /// takes longer than this many seconds is recorded as a timeout and not
  /// timed, so slow variants do not eat the tuning budget. (GPU variants run
  /// in the tuning process: a kernel that never finishes cannot be stopped,
  /// only one that is slow.)
  double runTimeoutSeconds = 0;
  /// Compare the output of one run against the C++ reference.
  bool verify = true;
  /// Seed of the random inputs (uniform in [-1, 1]).
  uint64_t seed = 0x7117e5eed;
  /// Reject kernels that ptxas reports as spilling or over the SM's
  /// resources (skipped, with a note, when ptxas is not installed).
  bool checkResources = true;
  /// A kernel ptxas needs longer than this to assemble is rejected as
  /// illegal (its unrolled body is far too large to be fast; the driver's
  /// JIT would take as long).
  unsigned ptxasTimeoutSeconds = 20;
  /// When ptxas ran (format "isa"), load the cubin it made instead of the
  /// PTX, so the driver does not compile the kernel a second time.
  bool loadPtxasCubin = true;
  /// Runtime library; empty = getCudaRuntimeLibraryPath().
  std::string runtimeLibrary;
};

/// A kernel lowered for the GPU with its PTX and ptxas verdict.
struct GPUCompiledKernel {
  OwningOpRef<ModuleOp> module;
  GPUKernelPlan plan;
  llvm::SmallVector<std::string> ptx;
  /// Set when ptxas ran.
  std::optional<PtxasReport> ptxas;
  ResourceVerdict verdict;
};

/// Copies `kernel`, sets `config` on the single tunable op of function
/// `funcName` (null keeps the op's own config) and lowers the copy with
/// `options.lowering`; runs ptxas on the PTX when `options.checkResources`
/// and ptxas is available. Errors carry the diagnostics.
llvm::Expected<GPUCompiledKernel>
compileForGPU(ModuleOp kernel, llvm::StringRef funcName, TileConfigAttr config,
              const GPUMeasureOptions &options = {});

/// A variant compiled and loaded, ready to run: what prepareGPUVariant
/// makes (possibly on another thread, in another context) and
/// runPreparedGPUVariant runs.
struct GPUPreparedVariant {
  GPUPreparedVariant();
  GPUPreparedVariant(GPUPreparedVariant &&);
  GPUPreparedVariant &operator=(GPUPreparedVariant &&);
  ~GPUPreparedVariant();

  /// Set when the variant cannot run (Invalid, CompileError).
  std::optional<MeasureResult> failure;
  GPUKernelPlan plan;
  std::optional<PtxasReport> ptxas;
  ResourceVerdict verdict;
  /// The reference computation of the kernel's op.
  std::unique_ptr<ReferenceProblem> problem;
  /// The JIT-compiled host code (its constructors loaded the GPU binary).
  std::unique_ptr<ExecutionModule> engine;
  std::unique_ptr<Kernel> kernel;
  /// Time spent preparing, seconds.
  double prepareSeconds = 0;
};

/// Compiles one variant (compileForGPU), JIT-compiles the host code and
/// loads the GPU binary. Touches only `kernel`'s context, so threads with
/// contexts of their own can prepare variants concurrently. Does not check
/// for a device (a load without one fails when the variant runs).
GPUPreparedVariant prepareGPUVariant(ModuleOp kernel, llvm::StringRef funcName,
                                     TileConfigAttr config,
                                     const GPUMeasureOptions &options = {});

/// The seeded inputs and reference output of one kernel (its
/// KernelHarness), kept across the variants of that kernel (computing the
/// reference on the CPU costs more than timing a variant on the GPU).
struct GPUReferenceCache {
  std::optional<KernelHarness> harness;
};

/// Runs a prepared variant: random inputs, one run verified against the C++
/// reference (taken from `cache` when it holds the output of the same
/// kernel and seed, else computed and stored there), warm-up, timed runs.
/// Returns the preparation's failure as is.
MeasureResult runPreparedGPUVariant(GPUPreparedVariant &prepared,
                                    const GPUMeasureOptions &options = {},
                                    GPUReferenceCache *cache = nullptr);

/// Compiles, runs, verifies and times one variant (prepareGPUVariant then
/// runPreparedGPUVariant). Failures are typed (Invalid: rejected by the
/// plan or ptxas; CompileError; RuntimeError, including "no CUDA device";
/// WrongResult).
MeasureResult measureOnGPU(ModuleOp kernel, llvm::StringRef funcName,
                           TileConfigAttr config,
                           const GPUMeasureOptions &options = {});

/// One config ranked without a GPU.
struct CompileOnlyScore {
  TileConfigAttr config;
  bool legal = false;
  /// Why it is illegal, or the compile error.
  std::string reason;
  int registers = 0;
  int64_t sharedBytes = 0;
  double occupancy = 0.0;
  int64_t threadsPerBlock = 0;
};

/// Ranks `configs` by the legality filter alone: each is lowered and
/// assembled with ptxas; legal ones come first, by descending occupancy,
/// then fewer registers. Needs ptxas (an error otherwise).
llvm::Expected<llvm::SmallVector<CompileOnlyScore>>
rankConfigsCompileOnly(ModuleOp kernel, llvm::StringRef funcName,
                       llvm::ArrayRef<TileConfigAttr> configs,
                       const GPUMeasureOptions &options = {});

/// The Tuner's measurer for one cuda problem: each config becomes a
/// `#tiletune.config<cuda, ...>` on the problem's standalone kernel; the
/// variant is prepared (lowered by tiletune-lower-gpu, checked and
/// assembled by ptxas, host code JIT-compiled, binary loaded) and then run,
/// verified against the CPU reference and timed with CUDA events, exactly
/// as measureOnGPU does. Preparation runs on `compileThreads` threads, each
/// with an MLIR context of its own, while this thread runs the variants
/// prepared so far one at a time on the GPU, so the GPU never times two
/// kernels at once.
class GPUProblemMeasurer : public Measurer {
public:
  /// `compileThreads` = 0: one per core but one. `kernelText`: the kernel
  /// module to measure variants of (printKernelModule of
  /// buildKernelModule(op) for the user's op); empty: the kernel built from
  /// `problem` alone. Errors when the kernel cannot be built.
  static llvm::Expected<std::unique_ptr<GPUProblemMeasurer>>
  create(MLIRContext *ctx, const Problem &problem, const Space &space,
         const GPUMeasureOptions &options, unsigned compileThreads = 0,
         std::string kernelText = "");
  ~GPUProblemMeasurer() override;

  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override;

  /// Number of compile threads.
  unsigned getNumCompileThreads() const { return workers.size(); }

private:
  /// The context and kernel copy of one compile thread.
  struct Worker {
    std::unique_ptr<MLIRContext> context;
    OwningOpRef<ModuleOp> kernel;
  };

  GPUProblemMeasurer(MLIRContext *ctx, const Problem &problem,
                     const Space &space, const GPUMeasureOptions &options,
                     std::string kernelText, unsigned compileThreads);
  /// Prepares the variant of `attrText` on `worker`'s context.
  GPUPreparedVariant prepare(Worker &worker, const std::string &attrText);

  MLIRContext *ctx;
  Problem problem;
  Space space;
  GPUMeasureOptions options;
  std::string kernelText;
  std::vector<Worker> workers;
  /// The CPU reference output, computed for the first variant verified.
  GPUReferenceCache reference;
};

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_GPUMEASURER_H
