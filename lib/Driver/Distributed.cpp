//===- Distributed.cpp - Tuning with measurement on MPI ranks -------------===//
//
// Rank 0 describes each problem as a JSON job (the Problem, the kernel's
// text, the pinned parameters and the CPU measurement options); a worker
// rank rebuilds the same space and an ordinary CPUProblemMeasurer from it.
// Without TILETUNE_ENABLE_MPI every entry point is an error saying so.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Distributed.h"

#include "tiletune/Driver/TuningSpace.h"
#include "tiletune/Measure/CPUMeasurer.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Target.h"

#if TILETUNE_ENABLE_MPI
#include "tiletune/Measure/MPIMeasurer.h"
#endif

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tiletune;

#if !TILETUNE_ENABLE_MPI

static llvm::Error notBuilt() {
  return llvm::createStringError(
      "--distributed=mpi: this tiletune was built without MPI "
      "(TILETUNE_ENABLE_MPI=OFF; install openmpi-bin and libopenmpi-dev and "
      "reconfigure)");
}

bool mlir::tiletune::isDistributedMeasurementBuilt() { return false; }
llvm::Expected<int> mlir::tiletune::startDistributed(int *, char ***) {
  return notBuilt();
}
void mlir::tiletune::endDistributed(int, bool) {}
llvm::Error mlir::tiletune::runDistributedWorker(MLIRContext &) {
  return notBuilt();
}
llvm::Error mlir::tiletune::connectDistributedWorkers(const TargetInfo &,
                                                      unsigned,
                                                      const TuneOptions &) {
  return notBuilt();
}
llvm::Expected<std::unique_ptr<Measurer>>
mlir::tiletune::createDistributedMeasurer(const Problem &, const Space &,
                                          const std::string &,
                                          const CPUMeasureOptions &, bool,
                                          const TuneOptions &) {
  return notBuilt();
}

#else

bool mlir::tiletune::isDistributedMeasurementBuilt() { return true; }

llvm::Expected<int> mlir::tiletune::startDistributed(int *argc, char ***argv) {
  if (!isLaunchedByMPI())
    return llvm::createStringError(
        "--distributed=mpi: this process was not started by an MPI launcher; "
        "run `mpirun -n N tiletune tune ... --distributed=mpi` (or `srun -n "
        "N ...` under Slurm) with N >= 2: rank 0 searches and writes the "
        "database, ranks 1..N-1 measure");
  if (llvm::Error err = initializeMPI(argc, argv))
    return std::move(err);
  if (getMPISize() < 2) {
    finalizeMPI(1);
    return llvm::createStringError(
        "--distributed=mpi needs at least 2 ranks (rank 0 searches, ranks "
        "1..N-1 measure); this job has 1: run it with mpirun -n N, N >= 2");
  }
  return getMPIRank();
}

void mlir::tiletune::endDistributed(int exitCode, bool abort) {
  finalizeMPI(exitCode, abort);
}

/// The job's CPU measurement options and back.
static llvm::json::Value encodeCPUOptions(const CPUMeasureOptions &o) {
  return llvm::json::Object{
      {"threads", int64_t(o.threads)},
      {"fuse_epilogues", o.fuseEpilogues},
      {"warmup_runs", int64_t(o.timing.warmupRuns)},
      {"repeats", int64_t(o.timing.repeats)},
      {"min_sample_seconds", o.timing.minSampleSeconds},
      {"max_calls_per_sample", int64_t(o.timing.maxCallsPerSample)},
      {"first_warmup_seconds", o.firstWarmupSeconds},
      {"seed", std::to_string(o.seed)},
      {"verify", o.verify},
      {"timeout_seconds", o.timeoutSeconds},
      {"reference_config", o.referenceConfig},
      {"reference_timeout_seconds", o.referenceTimeoutSeconds},
      {"jit_opt_level", int64_t(o.jitOptLevel)},
      {"jit_codegen_opt_level", int64_t(o.jitCodegenOptLevel)},
      {"compile_cache_size", int64_t(o.compileCacheSize)},
      {"early_stop_factor", o.earlyStopFactor},
      {"precision_stop", o.precisionStop},
      {"stop_after_repeats", int64_t(o.timing.stopAfterRepeats)}};
}

static llvm::Expected<CPUMeasureOptions>
decodeCPUOptions(const llvm::json::Object &obj) {
  CPUMeasureOptions o;
  std::optional<int64_t> threads = obj.getInteger("threads");
  std::optional<int64_t> warmup = obj.getInteger("warmup_runs");
  std::optional<int64_t> repeats = obj.getInteger("repeats");
  std::optional<double> minSample = obj.getNumber("min_sample_seconds");
  std::optional<int64_t> maxCalls = obj.getInteger("max_calls_per_sample");
  std::optional<double> firstWarmup = obj.getNumber("first_warmup_seconds");
  std::optional<llvm::StringRef> seed = obj.getString("seed");
  std::optional<bool> verify = obj.getBoolean("verify");
  std::optional<double> timeout = obj.getNumber("timeout_seconds");
  std::optional<llvm::StringRef> reference = obj.getString("reference_config");
  std::optional<double> referenceTimeout =
      obj.getNumber("reference_timeout_seconds");
  std::optional<int64_t> jitOpt = obj.getInteger("jit_opt_level");
  std::optional<int64_t> jitCodegenOpt =
      obj.getInteger("jit_codegen_opt_level");
  std::optional<int64_t> cacheSize = obj.getInteger("compile_cache_size");
  std::optional<double> earlyStop = obj.getNumber("early_stop_factor");
  std::optional<int64_t> stopAfter = obj.getInteger("stop_after_repeats");
  uint64_t seedValue = 0;
  if (!jitOpt || *jitOpt < 0 || *jitOpt > 3 || !jitCodegenOpt ||
      *jitCodegenOpt < -1 || *jitCodegenOpt > 3 || !cacheSize ||
      *cacheSize < 0 || !earlyStop || !(*earlyStop >= 0) || !stopAfter ||
      *stopAfter < 1)
    return llvm::createStringError(
        "the job's measurement options are incomplete or out of range");
  if (!threads || *threads < 1 || *threads > kMaxThreads || !warmup ||
      *warmup < 0 || !repeats || *repeats < 1 || !minSample || !maxCalls ||
      *maxCalls < 1 || !firstWarmup || !seed ||
      seed->getAsInteger(10, seedValue) || !verify || !timeout || !reference ||
      !referenceTimeout)
    return llvm::createStringError(
        "the job's measurement options are incomplete or out of range");
  o.threads = unsigned(*threads);
  o.timing.warmupRuns = unsigned(*warmup);
  o.timing.repeats = unsigned(*repeats);
  o.timing.minSampleSeconds = *minSample;
  o.timing.maxCallsPerSample = unsigned(*maxCalls);
  o.timing.stopAfterRepeats = unsigned(*stopAfter);
  if (llvm::Error err = validateTimingOptions(o.timing))
    return std::move(err);
  o.firstWarmupSeconds = *firstWarmup;
  o.seed = seedValue;
  o.verify = *verify;
  o.timeoutSeconds = *timeout;
  o.referenceConfig = reference->str();
  o.referenceTimeoutSeconds = *referenceTimeout;
  o.jitOptLevel = unsigned(*jitOpt);
  o.jitCodegenOptLevel = int(*jitCodegenOpt);
  o.compileCacheSize = unsigned(*cacheSize);
  o.earlyStopFactor = *earlyStop;
  std::optional<double> precision = obj.getNumber("precision_stop");
  if (!precision || !(*precision >= 0 && *precision <= 1))
    return llvm::createStringError(
        "the job's measurement options are incomplete or out of range");
  o.precisionStop = *precision;
  std::optional<bool> fuse = obj.getBoolean("fuse_epilogues");
  if (!fuse)
    return llvm::createStringError(
        "the job's measurement options are incomplete or out of range");
  o.fuseEpilogues = *fuse;
  return o;
}

/// What a worker's measurer takes to answer one config at most: the
/// CPUProblemMeasurer's compile and run limits (with the reference of
/// paired timing built first) plus a margin for the worker process's start.
static double resultTimeout(const CPUMeasureOptions &o,
                            const MeasureRequest &request) {
  double perRun = request.runTimeoutSeconds > 0 ? request.runTimeoutSeconds
                                                : o.timeoutSeconds;
  double compile = request.compileTimeoutSeconds > 0
                       ? request.compileTimeoutSeconds
                       : o.timeoutSeconds;
  double samples = double(1 + o.timing.warmupRuns + o.timing.repeats);
  double run =
      2.0 + samples * std::max(perRun, 2 * o.timing.minSampleSeconds);
  double reference = 0;
  if (!o.referenceConfig.empty())
    reference = (o.referenceTimeoutSeconds > 0 ? o.referenceTimeoutSeconds
                                               : compile + o.timeoutSeconds) +
                run;
  return compile + run + reference + o.firstWarmupSeconds + 60;
}

llvm::Error mlir::tiletune::connectDistributedWorkers(
    const TargetInfo &target, unsigned threads, const TuneOptions &options) {
  MPIHello hello;
  hello.mcpu = options.mcpu;
  hello.mattr = options.mattr;
  hello.threads = threads;
  hello.version = getTileTuneVersionLine();
  return connectMPIWorkers(hello, target, options.log);
}

llvm::Expected<std::unique_ptr<Measurer>>
mlir::tiletune::createDistributedMeasurer(
    const Problem &problem, const Space &space, const std::string &kernelText,
    const CPUMeasureOptions &measureOptions, bool overlap,
    const TuneOptions &options) {
  llvm::json::Object job{{"problem", problem.toJSON()},
                         {"kernel", kernelText},
                         {"fixed", options.fixed},
                         {"overlap_compile", overlap},
                         {"measure", encodeCPUOptions(measureOptions)}};
  MPIMeasurerOptions mpiOptions;
  mpiOptions.resultTimeoutSeconds = [measureOptions](
                                        const MeasureRequest &request) {
    return resultTimeout(measureOptions, request);
  };
  mpiOptions.stopFlag = options.stopFlag;
  mpiOptions.log = options.log;
  return std::unique_ptr<Measurer>(std::make_unique<MPIProblemMeasurer>(
      space, llvm::json::Value(std::move(job)), std::move(mpiOptions)));
}

llvm::Error mlir::tiletune::runDistributedWorker(MLIRContext &ctx) {
  MPIWorkerHooks hooks;
  unsigned threads = 1;
  hooks.connect = [&](const MPIHello &hello) -> llvm::Expected<TargetInfo> {
    // The target rank 0 records: the host's own unless it named one, which
    // this host must be able to run.
    if (!hello.mcpu.empty() || !hello.mattr.empty())
      if (llvm::Error err =
              describeRunnableCPU(hello.mcpu, hello.mattr).takeError())
        return std::move(err);
    if (llvm::Error err = setDefaultTargetCPU(hello.mcpu, hello.mattr))
      return std::move(err);
    threads = hello.threads;
    return getCPUTarget(threads);
  };
  hooks.createMeasurer =
      [&](const llvm::json::Value &value) -> llvm::Expected<MPIWorkerMeasurer> {
    const llvm::json::Object *job = value.getAsObject();
    const llvm::json::Value *problemValue = job ? job->get("problem") : nullptr;
    std::optional<llvm::StringRef> kernel =
        job ? job->getString("kernel") : std::nullopt;
    std::optional<llvm::StringRef> fixed =
        job ? job->getString("fixed") : std::nullopt;
    std::optional<bool> overlapCompile =
        job ? job->getBoolean("overlap_compile") : std::nullopt;
    const llvm::json::Object *measure =
        job ? job->getObject("measure") : nullptr;
    if (!problemValue || !kernel || !fixed || !overlapCompile || !measure)
      return llvm::createStringError("the problem's job is incomplete");
    llvm::Expected<Problem> problem = Problem::fromJSON(*problemValue);
    if (!problem)
      return problem.takeError();
    llvm::Expected<CPUMeasureOptions> measureOptions =
        decodeCPUOptions(*measure);
    if (!measureOptions)
      return measureOptions.takeError();
    llvm::Expected<Space> space =
        buildTuningSpace(&ctx, *problem, *fixed, measureOptions->threads);
    if (!space)
      return space.takeError();
    // Compile ahead while timing only when the timed kernels leave one of
    // this host's cores idle.
    bool overlap = *overlapCompile && measureOptions->threads < resolveThreads(0);
    MPIWorkerMeasurer worker;
    worker.space = std::make_unique<Space>(std::move(*space));
    worker.measurer = std::make_unique<CPUProblemMeasurer>(
        &ctx, *problem, *worker.space, *measureOptions, overlap,
        kernel->str());
    return worker;
  };
  return runMPIWorker(hooks);
}

#endif // TILETUNE_ENABLE_MPI
