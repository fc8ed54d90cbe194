//===- CPUMeasurer.h - Measuring configs of a problem on the CPU -*- C++ -*-===//
//
// Measures one configuration of a problem the way a user's compile builds
// it: the candidate `#tiletune.config` is set on a copy of the standalone
// kernel of the user's op (buildKernelModule: a clone of the op with all its
// attributes), lowered by buildCPULoweringPipeline (the passes of
// `tiletune-lower-cpu`), JIT-compiled for the host, run on seeded inputs,
// checked against the C++ reference and only then timed (warm-up, repeats,
// a minimum sample duration). All of it runs in a persistent worker process
// (ForkServer) with a time limit, so compile errors, crashes, hangs and wrong
// answers come back as typed MeasureResults and the tuner survives them.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_CPUMEASURER_H
#define TILETUNE_MEASURE_CPUMEASURER_H

#include "tiletune/Measure/MeasureResult.h"
#include "tiletune/Measure/Measurer.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Measure/Worker.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlir::tiletune {

/// Options of CPU measurements.
struct CPUMeasureOptions {
  /// OpenMP threads of the kernels (the pipeline's `threads` option).
  unsigned threads = 1;
  /// The pipeline's `fuse-epilogues` option (the kernel of a problem with
  /// an epilogue holds the chain after the op).
  bool fuseEpilogues = true;
  /// Warm-up, repeats and minimum sample duration.
  TimingOptions timing;
  /// Before its first timing, a worker process runs the variant (and, with
  /// paired timing, the reference) back to back for at least this many
  /// seconds, so that the first measured variant of a run (the default) is
  /// not timed on a cold core (clock ramp, first-touch page faults, OpenMP
  /// pool start). Clamped to [0, 10]; 0: only the per-variant warm-up calls.
  double firstWarmupSeconds = 0.2;
  /// Seed of the generated inputs.
  uint64_t seed = 0;
  /// Check every variant against the reference before timing it.
  bool verify = true;
  /// Default time limit of one measurement (compile + verify + time), in
  /// seconds, when the caller gives none.
  double timeoutSeconds = 60;
  /// Paired timing: a config (attribute text) of the problem that is built
  /// once per worker and timed interleaved with every variant; results then
  /// carry `relative` and `referenceSeconds` (see Timing.h, measurePaired).
  /// Empty: variants are timed alone. It is built on demand, apart from the
  /// candidates: when it cannot be built or checked, or kills the worker
  /// (out of memory, crash, timeout), it is not tried again and the variants
  /// are timed alone, their results saying so ("timed alone: ...").
  std::string referenceConfig;
  /// Time limit of building and checking the reference in a worker, in
  /// seconds; <= 0: the candidate's compile limit plus timeoutSeconds.
  double referenceTimeoutSeconds = 0;
  /// LLVM optimisation level of the JIT (IR passes and code generation,
  /// JITOptions::optLevel). What our passes emit is already tiled,
  /// vectorised and unrolled; docs/Tuning.md ("Throughput") has what each
  /// level costs and gives.
  unsigned jitOptLevel = kDefaultJITOptLevel;
  /// Code generation level of the JIT (-1: jitOptLevel).
  int jitCodegenOptLevel = -1;
  /// Compiled variants a worker keeps by config, so that a config measured
  /// again (the winner's confirmation) is not compiled again (0: none).
  unsigned compileCacheSize = 8;
  /// Early stop of a search candidate, after timing.stopAfterRepeats
  /// samples: with paired timing and MeasureRequest::incumbentRelative r > 0,
  /// once its smallest ratio to the reference exceeds earlyStopFactor x r;
  /// otherwise, with MeasureRequest::incumbentSeconds t > 0, once its
  /// fastest sample exceeds earlyStopFactor x t. It is recorded with the
  /// samples it took (0: never stop early).
  double earlyStopFactor = 2.0;
  /// Precision stop of a paired search candidate: its timing ends once its
  /// ratios to the reference, after timing.precisionAfterRepeats samples,
  /// spread by at most this fraction of their median (0: off). The winner's
  /// confirmation always takes every sample.
  double precisionStop = 0.03;
  /// Core pinning of a worker (both >= 0: on): it moves to `compileCPU`
  /// while it compiles and to `timingCPU` while it verifies and times
  /// (-1: the OS schedules). CPUProblemMeasurer's two pipelined workers
  /// each get one core for both (the two cores pickPinnedCPUs chose), so a
  /// compile never runs on the core that times. A variant
  /// timed alone (the winner's confirmation, nothing compiling) runs on
  /// every core the worker started with: pinned, a core kept busy by another
  /// process would slow it down although another core is idle.
  int compileCPU = -1;
  int timingCPU = -1;
  /// Timing with a model's weights where a model run has them: the kernel
  /// arguments at these indices (the op's weights) get copies that together
  /// take at least `weightsFootprintBytes` (at most kMaxWeightCopies), and
  /// successive timed calls take the copies in turn (Kernel::timeRotating).
  /// A call then finds its weights pushed out of the caches by as many bytes
  /// as the model's other weights push between two runs of the op. The
  /// verified run and the reference output use the original. Empty or 0:
  /// the weights stay where the previous call left them (warm).
  llvm::SmallVector<unsigned> weightArguments;
  uint64_t weightsFootprintBytes = 0;
};

/// The most copies of a kernel's weights that timing rotates through
/// (CPUMeasureOptions::weightArguments); small weights then cover less than
/// the footprint.
constexpr unsigned kMaxWeightCopies = 256;

/// How many copies of weights of `weightBytes` bytes cover a footprint of
/// `footprintBytes` (1 when either is 0), at most kMaxWeightCopies.
unsigned getWeightCopies(uint64_t weightBytes, uint64_t footprintBytes);

/// Measures configs of one problem inside the calling process (no
/// isolation). This is what the worker process runs; use CPUMeasurer from a
/// tuner. Not thread-safe; owns its own MLIRContext (multithreading off).
class InProcessCPUMeasurer {
public:
  /// Parses the kernel module `kernelText` (printKernelModule of
  /// buildKernelModule's result), allocates seeded inputs and computes the
  /// reference (KernelHarness).
  static llvm::Expected<std::unique_ptr<InProcessCPUMeasurer>>
  create(llvm::StringRef kernelText, const CPUMeasureOptions &options);
  ~InProcessCPUMeasurer();

  /// Measures the config given as attribute text ("#tiletune.config<...>"),
  /// made for this kernel's op and verified against it (configToAttr): text
  /// that does not parse is Invalid, a config that does not fit the op fails
  /// the tiling pass (CompileError with its reason).
  /// When `phase` is given it is set to "compile", "verify" or "time" as
  /// the work proceeds (the worker reports it so a crash can be typed).
  /// Paired timing: builds the reference first (once; prepareReference).
  MeasureResult measure(llvm::StringRef attrText,
                        std::function<void(llvm::StringRef)> phase = {});
  /// Paired timing: builds and checks the reference config once (later
  /// calls return the first answer); run() pairs with it once it is built.
  /// Returns the failed result, or std::nullopt on success or without a
  /// reference config.
  std::optional<MeasureResult> prepareReference();
  /// The first half of measure(): compiles the variant and keeps it for
  /// run(). Returns the failed result, or std::nullopt on success.
  std::optional<MeasureResult> compile(llvm::StringRef attrText);
  /// The second half: verifies and times the variant compiled last (paired
  /// with the reference when it is built, unless `alone`).
  /// `stop`: the timing stops early once the candidate is clearly slower
  /// (TimingOptions::stopAboveSeconds / stopAboveRatio).
  MeasureResult run(std::function<void(llvm::StringRef)> phase = {},
                    bool alone = false, EarlyStop stop = {});

  /// The phases of the last compile() (MeasurePhases::cacheHit when the
  /// variant came from the cache of compiled variants).
  const MeasurePhases &getCompilePhases() const;

  class Impl;

private:
  explicit InProcessCPUMeasurer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Chooses the two cores of a pipelined measurer among those this process
/// may run on: with 1 kernel thread and at least 2 allowed cores, the first
/// (`compileCPU`) and the last (`timingCPU`); CPUProblemMeasurer gives one
/// to each of its two workers, which compile and time there. Otherwise both
/// -1 (no pinning).
void pickPinnedCPUs(unsigned threads, int &compileCPU, int &timingCPU);

/// The kernel module built from `problem` alone, as text (empty when it
/// cannot be built).
std::string getProblemKernelText(const Problem &problem);

/// Measures configs of one problem in an isolated worker process. The
/// worker is forked lazily on the first measurement and restarted after a
/// crash or a timeout.
class CPUMeasurer {
public:
  /// Measures variants of the kernel module `kernelText` (printKernelModule
  /// of buildKernelModule's result for the user's op).
  CPUMeasurer(std::string kernelText, const CPUMeasureOptions &options);
  /// Measures variants of the kernel built from `problem` alone.
  CPUMeasurer(const Problem &problem, const CPUMeasureOptions &options);
  ~CPUMeasurer();

  /// Measures one config (attribute text): compiles it within
  /// `compileTimeoutSeconds`, then verifies and times it within
  /// `runTimeoutSeconds` (<= 0: the options' default for either). With
  /// `alone`, the variant is timed by itself even with paired timing (the
  /// way a user's program calls it back to back). Never fails: problems of
  /// the worker machinery come back as failed results.
  MeasureResult measure(llvm::StringRef attrText,
                        double compileTimeoutSeconds = 0,
                        double runTimeoutSeconds = 0, bool alone = false,
                        EarlyStop stop = {});

  /// The two halves of measure(), for callers that pipeline them: compile
  /// keeps the variant in the worker (returns std::nullopt on success or the
  /// failed result); run verifies and times the variant compiled last
  /// (stopping early as `stop` says), its
  /// phases including those of the compile.
  std::optional<MeasureResult> compile(llvm::StringRef attrText,
                                       double timeoutSeconds = 0);
  MeasureResult run(double timeoutSeconds = 0, bool alone = false,
                    EarlyStop stop = {});

  /// Starts the worker process now (before the caller starts threads).
  llvm::Error start();
  /// Readies the worker for the next compile() from another thread: with
  /// paired timing, has it build the reference (if it does not hold it and
  /// it did not fail before, within `compileTimeoutSeconds` plus the
  /// options' limit), then starts it. Call it from the thread that calls
  /// run(): a worker dies with the thread that forked it.
  llvm::Error prepare(double compileTimeoutSeconds = 0);

  /// Paired timing: why the variants are timed alone (the reference failed
  /// once, in-process or by killing the worker); empty while pairing works
  /// or before it was tried.
  const std::string &getReferenceError() const { return referenceError; }

  /// How many worker processes were started so far.
  unsigned getNumWorkerStarts() const;

  const CPUMeasureOptions &getOptions() const { return options; }

private:
  /// One request to the worker; failures of the worker become results.
  MeasureResult call(llvm::StringRef request, double timeoutSeconds);
  /// Paired timing: has the worker build the reference unless it holds it
  /// or it failed before (then disables pairing).
  void ensureReference(double compileTimeoutSeconds);
  /// An Ok result timed alone in a paired run says why.
  MeasureResult saidAlone(MeasureResult result) const;

  std::string kernelText;
  CPUMeasureOptions options;
  std::unique_ptr<ForkServer> server;
  /// Paired timing: why variants are timed alone (empty while pairing).
  std::string referenceError;
  /// getNumStarts() of the worker that built the reference (0: none).
  unsigned referenceWorkerStart = 0;
  /// Wall clock of the last compile() call, seconds.
  double lastCompileWait = 0;
};


/// The Tuner's measurer for one CPU problem: converts configs to attributes
/// and measures them in isolated worker processes (CPUMeasurer). With
/// `overlapCompile`, two workers take the candidates in turn, each on its
/// own core (the two that pickPinnedCPUs chose): both compile at once, and
/// their timings take turns in candidate order, so that while one verifies
/// and times candidate i the other compiles candidate i+1 on the other core
/// (use it only when a core is left idle by the timed kernels, i.e. threads
/// < cores, so that the compilation does not disturb the timing).
class CPUProblemMeasurer : public Measurer {
public:
  /// Measures variants of the kernel module `kernelText` (printKernelModule
  /// of buildKernelModule(op) for the user's op); empty: of the kernel built
  /// from `problem` alone.
  CPUProblemMeasurer(MLIRContext *ctx, const Problem &problem,
                     const Space &space, const CPUMeasureOptions &options,
                     bool overlapCompile = false, std::string kernelText = "");
  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override;

private:
  /// Notes the reference's time of a paired result (for time limits) and
  /// returns the result unchanged.
  MeasureResult noted(MeasureResult result);
  /// The early stop of a request: with paired timing on the candidate's
  /// ratio to the reference, else on its seconds per call (none: zeros).
  EarlyStop stopAbove(const MeasureRequest &request) const;
  /// `options` for a pipelined worker living on core `cpu` (compiling and
  /// timing there) when pinning is on (compileCPU and timingCPU set and
  /// different); else unpinned.
  static CPUMeasureOptions onCore(CPUMeasureOptions options, int cpu);

  MLIRContext *ctx;
  Problem problem;
  Space space;
  CPUMeasureOptions options;
  /// The kernel module the workers measure variants of.
  std::string kernelText;
  CPUMeasurer worker;
  /// The second worker when compilation overlaps with timing.
  std::unique_ptr<CPUMeasurer> secondWorker;
  /// Config (attribute text) -> the worker (0 or 1) that compiled it last,
  /// whose cache holds it: a re-measurement goes to that worker.
  llvm::StringMap<unsigned> compiledBy;
  /// Paired timing: the reference's median time per call in the latest
  /// paired result (0 before the first); it bounds the reference's time
  /// limit, nothing else.
  double referenceSeconds = 0;
};

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_CPUMEASURER_H
