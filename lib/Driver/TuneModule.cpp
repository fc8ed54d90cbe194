//===- TuneModule.cpp - Tuning every tunable op of a module ---------------===//
//
// For each unique problem of a module: the tuning space, the strategy, the
// target's measurer over a clone of the problem's first op, the generic
// Tuner, and the best config written back onto every op of the problem.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Coverage.h"
#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Driver/Driver.h"

#include "tiletune/Driver/Distributed.h"
#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/Driver/WarmStart.h"
#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Measure/CPUMeasurer.h"
#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Transforms/Pipelines.h"
#include "tiletune/Tuner/TaskScheduler.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::tiletune;

/// Checks, before a measurer allocates anything, that the buffers measuring
/// `problem` needs fit in the memory available: its operands and
/// `outputCopies` more copies of its output (reference output, the copy a
/// run writes, the paired reference's copy), in each of `workers` worker
/// processes.
static llvm::Error checkProblemFitsInMemory(const Problem &problem,
                                            unsigned workers,
                                            unsigned outputCopies,
                                            uint64_t weightCopyBytes = 0) {
  std::optional<ElementType> type = parseElementType(problem.elementType);
  if (!type)
    return llvm::Error::success(); // Not a type the harness measures.
  uint64_t perWorker = 0;
  std::string types;
  for (auto [i, shape] : llvm::enumerate(problem.operandShapes)) {
    std::optional<uint64_t> bytes = getBufferByteSize(*type, shape);
    uint64_t copies = 1 + (i + 1 == problem.operandShapes.size() ? outputCopies
                                                                  : 0);
    if (!bytes || *bytes > (UINT64_MAX / 4) / copies / workers ||
        perWorker > UINT64_MAX / 4 / workers)
      return llvm::createStringError("cannot measure " + problem.describe() +
                                     ": the size of its operands overflows");
    perWorker += *bytes * copies;
    std::string shapeText;
    for (int64_t dim : shape)
      shapeText += std::to_string(dim) + "x";
    types += (types.empty() ? "" : ", ") + shapeText + problem.elementType;
  }
  perWorker += weightCopyBytes;
  std::string what = "cannot measure " + problem.describe() +
                     ": its operands (" + types + ") and " +
                     std::to_string(outputCopies) +
                     " more copies of the output";
  if (weightCopyBytes > 0)
    what +=
        " and " + std::to_string(weightCopyBytes) + " bytes of weight copies";
  if (workers > 1)
    what += ", in each of " + std::to_string(workers) + " worker processes,";
  return checkMemoryAvailable(perWorker * workers, what);
}

/// Where the weight `value` comes from, through pads, reshapes and casts: an
/// argument of a function of the module, or a constant that is not a
/// splat (weights inlined by the frontend); null if it is computed.
static Value getWeightSource(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto pad = dyn_cast<tensor::PadOp>(def)) {
      value = pad.getSource();
    } else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                   tensor::CastOp, memref::CollapseShapeOp,
                   memref::ExpandShapeOp, memref::CastOp>(def)) {
      value = def->getOperand(0);
    } else if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      bool splat = dense && dense.isSplat();
      return isa<ShapedType>(value.getType()) && !splat ? value : Value();
    } else {
      return Value();
    }
  }
  auto arg = cast<BlockArgument>(value);
  if (!isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return Value();
  return arg;
}

/// The weights of a tunable op (TuneOptions::weights): its inputs after the
/// first that are function arguments or constants (getWeightSource), as
/// operand indices (which are the indices of its standalone kernel's
/// arguments, buildKernelModule).
static llvm::SmallVector<unsigned> getWeightOperands(Operation *op) {
  llvm::SmallVector<unsigned> weights;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return weights;
  for (int64_t i = 1; i < linalgOp.getNumDpsInputs(); ++i)
    if (getWeightSource(op->getOperand(i)))
      weights.push_back(static_cast<unsigned>(i));
  return weights;
}

/// The bytes of the module's weights: every distinct function argument or
/// constant that is a weight of an op of `set`.
static uint64_t getWeightsFootprint(const ProblemSet &set) {
  llvm::DenseSet<Value> seen;
  uint64_t bytes = 0;
  for (const auto &ops : set.ops)
    for (Operation *op : ops)
      for (unsigned index : getWeightOperands(op)) {
        Value source = getWeightSource(op->getOperand(index));
        auto type = dyn_cast<ShapedType>(source.getType());
        if (!seen.insert(source).second || !type || !type.hasStaticShape())
          continue;
        bytes += static_cast<uint64_t>(type.getNumElements()) *
                 ((type.getElementTypeBitWidth() + 7) / 8);
      }
  return bytes;
}

/// The measurer of one problem on `target`: the GPU measurer for cuda, else
/// the CPU measurer (paired with `defaultConfig` unless options say
/// otherwise, overlapping compilation with timing when a core is idle).
static llvm::Expected<std::unique_ptr<Measurer>> createProblemMeasurer(
    MLIRContext *ctx, const Problem &problem, const Space &space,
    const std::string &kernelText, const Config &defaultConfig,
    const TargetInfo &target, const TuneOptions &options,
    llvm::ArrayRef<unsigned> weightArguments, uint64_t weightsFootprintBytes) {
  if (options.target != kTargetCPU) {
    // Host buffers: the operands and the reference output.
    if (llvm::Error err = checkProblemFitsInMemory(problem, 1, 1))
      return std::move(err);
    GPUMeasureOptions measureOptions;
    measureOptions.lowering.chip = target.features; // the device's sm_XY
    measureOptions.lowering.format = "isa";
    measureOptions.timing = options.timing;
    measureOptions.verify = true;
    llvm::Expected<std::unique_ptr<GPUProblemMeasurer>> gpu =
        GPUProblemMeasurer::create(ctx, problem, space, measureOptions,
                                   /*compileThreads=*/0, kernelText);
    if (!gpu)
      return gpu.takeError();
    return std::unique_ptr<Measurer>(std::move(*gpu));
  }
  unsigned threads = resolveThreads(options.threads);
  CPUMeasureOptions measureOptions;
  measureOptions.threads = threads;
  measureOptions.fuseEpilogues = options.fuseEpilogues;
  measureOptions.timing = options.timing;
  measureOptions.seed = options.seed;
  measureOptions.verify = true;
  measureOptions.earlyStopFactor = options.earlyStopFactor;
  measureOptions.precisionStop = options.precisionStop;
  measureOptions.compileCacheSize = options.compileCacheSize;
  measureOptions.jitOptLevel = options.jitOptLevel;
  measureOptions.jitCodegenOptLevel = options.jitCodegenOptLevel;
  measureOptions.weightArguments.assign(weightArguments.begin(),
                                        weightArguments.end());
  measureOptions.weightsFootprintBytes = weightsFootprintBytes;
  if (options.pairedTiming) {
    llvm::Expected<TileConfigAttr> reference =
        configToAttr(ctx, problem, space, defaultConfig);
    if (!reference)
      return reference.takeError();
    measureOptions.referenceConfig = printAttr(*reference);
  }
  // Measured on the worker ranks of an MPI job: each decides itself
  // whether a core is left for compiling ahead.
  if (options.distributed == "mpi")
    return createDistributedMeasurer(problem, space, kernelText,
                                     measureOptions, options.overlapCompile,
                                     options);
  // Overlap compilation with timing only when the timed kernels leave a
  // core idle.
  bool overlap = options.overlapCompile && threads < resolveThreads(0);
  if (overlap && options.pinCores)
    pickPinnedCPUs(threads, measureOptions.compileCPU,
                   measureOptions.timingCPU);
  // Each worker holds the operands, the reference output, the output a run
  // writes and (paired) the reference config's output.
  uint64_t weightCopyBytes =
      weightArguments.empty() ? 0 : weightsFootprintBytes;
  if (llvm::Error err = checkProblemFitsInMemory(problem, overlap ? 2 : 1,
                                                 options.pairedTiming ? 3 : 2,
                                                 weightCopyBytes))
    return std::move(err);
  return std::unique_ptr<Measurer>(std::make_unique<CPUProblemMeasurer>(
      ctx, problem, space, measureOptions, overlap, kernelText));
}

/// Warm start from the database (TuneOptions::warmStartFrom): sets the
/// strategy option "seed_configs" of `problem` to the adapted best configs of
/// similar problems and says which on `log`. A resumed run keeps the seeds
/// it was started with (they are part of its recorded settings).
static llvm::Error seedFromDatabase(TileTuneDatabase &db,
                                   const Problem &problem,
                                   const TargetInfo &target,
                                   const Space &searchSpace,
                                   const Config &defaultConfig,
                                   const TuneOptions &options,
                                   StrategyOptions &strategyOptions,
                                   llvm::raw_ostream *log) {
  if (options.warmStartFrom != "db" || options.protocol == "paper" ||
      strategyOptions.count("seed_configs"))
    return llvm::Error::success();
  if (options.resume) {
    llvm::Expected<std::optional<RunInfo>> run = db.findResumableRun(
        problem.getKey(), target, options.algorithm, options.seed);
    if (!run)
      return run.takeError();
    if (*run) {
      std::string seeds;
      if (llvm::Expected<llvm::json::Value> recorded =
              llvm::json::parse((*run)->options)) {
        const llvm::json::Object *root = recorded->getAsObject();
        const llvm::json::Object *trajectory =
            root ? root->getObject("trajectory") : nullptr;
        const llvm::json::Object *recordedOptions =
            trajectory ? trajectory->getObject("strategy_options") : nullptr;
        if (recordedOptions)
          if (std::optional<llvm::StringRef> text =
                  recordedOptions->getString("seed_configs"))
            seeds = text->str();
      } else {
        llvm::consumeError(recorded.takeError());
      }
      strategyOptions["seed_configs"] = seeds;
      llvm::SmallVector<llvm::StringRef> keys;
      splitSeedConfigs(seeds, keys);
      if (log && !keys.empty())
        *log << llvm::formatv("  warm start: run {0} continues with its {1} "
                              "seed config{2}\n",
                              (*run)->id, keys.size(),
                              keys.size() == 1 ? "" : "s");
      return llvm::Error::success();
    }
  }
  WarmStartOptions warm;
  warm.maxProblems = options.warmStartProblems;
  warm.maxDistance = options.warmStartDistance;
  llvm::Expected<llvm::SmallVector<WarmStartSeed>> seeds = findWarmStartSeeds(
      db, problem, target, searchSpace, defaultConfig, warm);
  if (!seeds)
    return seeds.takeError();
  std::vector<std::string> keys;
  for (const WarmStartSeed &seed : *seeds)
    keys.push_back(seed.configKey);
  strategyOptions["seed_configs"] = joinSeedConfigs(keys);
  if (!log)
    return llvm::Error::success();
  if (seeds->empty()) {
    *log << "  warm start: no similar problem with results on this target in "
            "the database\n";
    return llvm::Error::success();
  }
  *log << llvm::formatv("  warm start: {0} seed config{1} from similar "
                        "problems:\n",
                        seeds->size(), seeds->size() == 1 ? "" : "s");
  for (const WarmStartSeed &seed : *seeds)
    *log << llvm::formatv("    {0} (distance {1:F2}, best {2:F2} GFLOP/s: "
                          "{3}) -> {4}\n",
                          seed.problemKey, seed.distance, seed.sourceGflops,
                          seed.sourceConfigKey, seed.configKey);
  return llvm::Error::success();
}

/// Everything tuning one problem needs before its first measurement: the
/// spaces, the default config, the strategy and the kernel's text. Built for
/// every problem before any is measured, so that a bad `--fix` or strategy
/// option for any of them is an error before the run starts.
struct PreparedProblem {
  std::unique_ptr<Space> space;
  std::unique_ptr<Space> searchSpace;
  Config defaultConfig;
  /// The strategy's options (before the warm start's seeds) and the
  /// strategy built from them (a model run creates a fresh strategy from
  /// them for each round, see tuneModel).
  StrategyOptions strategyOptions;
  std::unique_ptr<Strategy> strategy;
  std::string kernelText;
  /// Weights as in the model (TuneOptions::weights): the kernel arguments
  /// timed through copies, and the bytes the copies cover.
  llvm::SmallVector<unsigned> weightArguments;
  uint64_t weightsFootprintBytes = 0;
  /// What preparing said on the log (printed when the problem is tuned).
  std::string log;
};

static llvm::Expected<PreparedProblem>
prepareProblem(MLIRContext *ctx, const Problem &problem, Operation *firstOp,
               unsigned threads, const TuneOptions &options,
               uint64_t weightsFootprintBytes) {
  PreparedProblem prepared;
  llvm::raw_string_ostream logStream(prepared.log);
  llvm::raw_ostream *log = options.log ? &logStream : nullptr;
  llvm::Expected<Space> space =
      buildTuningSpace(ctx, problem, options.fixed, threads);
  if (!space)
    return space.takeError();
  prepared.space = std::make_unique<Space>(std::move(*space));
  prepared.defaultConfig =
      getDefaultConfig(ctx, problem, *prepared.space, threads, log);
  llvm::Expected<Space> searchSpace =
      getSearchSpace(options.algorithm, problem, *prepared.space, threads,
                     &prepared.defaultConfig);
  if (!searchSpace)
    return searchSpace.takeError();
  prepared.searchSpace = std::make_unique<Space>(std::move(*searchSpace));
  prepared.strategyOptions = options.strategyOptions;
  StrategyOptions &strategyOptions = prepared.strategyOptions;
  if (llvm::Error err =
          applyProtocol(options.algorithm, options.protocol, strategyOptions))
    return std::move(err);
  // Warm start: the strategy starts from the default config (measured
  // first anyway) instead of its paper's start state; never under the
  // paper protocol.
  if (options.warmStart && options.protocol != "paper" &&
      !strategyOptions.count("start_config") &&
      prepared.searchSpace->isValid(prepared.defaultConfig))
    strategyOptions["start_config"] =
        prepared.searchSpace->getKey(prepared.defaultConfig);
  llvm::Expected<std::unique_ptr<Strategy>> strategy =
      createStrategy(options.algorithm, *prepared.searchSpace,
                     strategyOptions, options.seed);
  if (!strategy)
    return strategy.takeError();
  prepared.strategy = std::move(*strategy);

  // What is measured: a clone of the module's first op of this problem,
  // with all its attributes.
  FailureOr<OwningOpRef<ModuleOp>> kernel =
      buildKernelModule(firstOp, /*withEpilogue=*/!problem.epilogue.empty());
  if (failed(kernel)) {
    firstOp->emitError() << "cannot build the standalone kernel of this op";
    return llvm::createStringError("cannot build the kernel of " +
                                   problem.describe());
  }
  prepared.kernelText = printKernelModule(**kernel);
  if (options.weights == "model" && options.target == kTargetCPU) {
    prepared.weightArguments = getWeightOperands(firstOp);
    prepared.weightsFootprintBytes = weightsFootprintBytes;
    uint64_t bytes = 0;
    std::string which;
    std::optional<ElementType> type = parseElementType(problem.elementType);
    for (unsigned index : prepared.weightArguments) {
      if (type)
        bytes +=
            getBufferByteSize(*type, problem.operandShapes[index]).value_or(0);
      which += (which.empty() ? "" : ", ") + std::to_string(index);
    }
    unsigned copies = getWeightCopies(bytes, weightsFootprintBytes);
    bool weightsFound = !prepared.weightArguments.empty();
    // One copy times as warm does, and is recorded as warm.
    if (copies == 1)
      prepared.weightArguments.clear();
    if (log && !weightsFound)
      *log << "  weights: none (no input after the first is an argument of "
              "the function or a constant); timed as they are\n";
    if (log && weightsFound) {
      *log << llvm::formatv("  weights: operand {0} ({1:f2} MB); the model's "
                            "weights: {2:f1} MB (at most twice the L3); ",
                            which, bytes / 1e6, weightsFootprintBytes / 1e6);
      if (copies == 1)
        *log << "timed warm (no other weight pushes them out)\n";
      else
        *log << llvm::formatv(
            "timed through {0} copies in turn{1}\n", copies,
            copies == kMaxWeightCopies ? " (the most, covering less)" : "");
    }
  }
  return prepared;
}

/// The tuning loop's options for `problem` (budgets, measurement, resume
/// and progress from `options`; no callback).
static TunerOptions makeTunerOptions(const Problem &problem,
                                     const PreparedProblem &prepared,
                                     const TargetInfo &target,
                                     const TuneOptions &options) {
  TunerOptions tunerOptions;
  tunerOptions.problemKey = problem.getKey();
  tunerOptions.problemDescription =
      llvm::formatv("{0}", problem.toJSON()).str();
  tunerOptions.target = target;
  tunerOptions.maxTrials = options.trials;
  tunerOptions.maxSeconds = options.seconds;
  tunerOptions.batchSize = std::max(1u, options.batchSize);
  tunerOptions.flops = problem.getFlops();
  if (options.target == kTargetCPU && options.pairedTiming)
    tunerOptions.measurement = "paired";
  // Timed with the weights as in the model: recorded with the footprint, so
  // that a run resumes only with the weights timed the same way.
  if (!prepared.weightArguments.empty())
    tunerOptions.measurement += (tunerOptions.measurement.empty() ? "" : ", ") +
                                llvm::formatv("model weights ({0} bytes)",
                                              prepared.weightsFootprintBytes)
                                    .str();
  tunerOptions.resume = options.resume;
  tunerOptions.showProgress = options.progress != nullptr;
  tunerOptions.progressStream = options.progress;
  tunerOptions.stopFlag = options.stopFlag;
  return tunerOptions;
}

/// prepareProblem() for every problem of `set`, in order; the first error
/// ends it (nothing has been measured or recorded yet).
static llvm::Expected<std::vector<PreparedProblem>>
prepareProblems(MLIRContext *ctx, const ProblemSet &set, unsigned threads,
                const TuneOptions &options) {
  std::vector<PreparedProblem> prepared;
  // Beyond twice the last-level cache, more copies would not move the
  // weights further out (they come from memory), only take memory.
  uint64_t weightsFootprintBytes = 0;
  if (options.weights == "model") {
    weightsFootprintBytes = getWeightsFootprint(set);
    int64_t l3 = detectHostCaches().l3Bytes;
    if (l3 > 0)
      weightsFootprintBytes =
          std::min<uint64_t>(weightsFootprintBytes, 2 * uint64_t(l3));
  }
  for (auto [index, problem] : llvm::enumerate(set.problems)) {
    llvm::Expected<PreparedProblem> one =
        prepareProblem(ctx, problem, set.ops[index].front(), threads, options,
                       weightsFootprintBytes);
    if (!one)
      return one.takeError();
    prepared.push_back(std::move(*one));
  }
  return prepared;
}

static std::vector<SkippedOps>
collectSkippedOps(ModuleOp module, const llvm::DenseSet<Operation *> &tuned,
                  const llvm::DenseMap<Operation *, std::string> &reasons);

/// Adds to `ops` the epilogue chains of the ops of `set`'s problems that
/// have one (they are measured and fused with their op); returns how many.
static size_t addEpilogueOps(const ProblemSet &set,
                             llvm::DenseSet<Operation *> &ops) {
  size_t count = 0;
  for (auto [index, problem] : llvm::enumerate(set.problems)) {
    if (problem.epilogue.empty())
      continue;
    for (Operation *op : set.ops[index])
      if (FailureOr<SmallVector<Operation *>> chain =
              findEpilogueChain(op, /*reason=*/nullptr);
          succeeded(chain))
        for (Operation *chainOp : *chain)
          count += ops.insert(chainOp).second ? 1 : 0;
  }
  return count;
}

/// How much of the module the problems of `set` cover: the number of ops
/// tiled by the tuned configs, and every op left untouched (matmul- and
/// conv-like ops TileTune cannot tile, with the reason, and other computing
/// linalg ops) with its share of the module's FLOPs.
static void printCoverage(ModuleOp module, const ProblemSet &set,
                          llvm::raw_ostream &log) {
  llvm::DenseSet<Operation *> tuned;
  double flops = 0;
  for (auto [index, ops] : llvm::enumerate(set.ops)) {
    tuned.insert(ops.begin(), ops.end());
    flops += set.problems[index].getFlops() * double(ops.size());
  }
  size_t numTuned = tuned.size();
  size_t numEpilogueOps = addEpilogueOps(set, tuned);
  llvm::DenseMap<Operation *, std::string> reasons;
  for (const auto &[op, reason] : set.skipped)
    reasons[op] = reason;
  std::vector<SkippedOps> skipped = collectSkippedOps(module, tuned, reasons);
  for (const SkippedOps &s : skipped)
    flops += s.flops;
  unsigned numSkipped = 0;
  for (const SkippedOps &s : skipped)
    numSkipped += s.count;
  log << llvm::formatv("module: {0} op{1} to tile ({2} distinct problem{3}), "
                       "{4} computing op{5} left untouched\n",
                       numTuned, numTuned == 1 ? "" : "s", set.problems.size(),
                       set.problems.size() == 1 ? "" : "s", numSkipped,
                       numSkipped == 1 ? "" : "s");
  if (numEpilogueOps)
    log << llvm::formatv("module: {0} elementwise op{1} tuned and fused as "
                         "epilogues of the ops to tile\n",
                         numEpilogueOps, numEpilogueOps == 1 ? "" : "s");
  for (const SkippedOps &s : skipped) {
    log << llvm::formatv("module: not tuned: {0} {1} op{2} ({3})", s.count,
                         s.opName, s.count == 1 ? "" : "s", s.reason);
    if (s.countable && flops > 0)
      log << llvm::formatv(", {0:F2}% of the module's FLOPs",
                           100.0 * s.flops / flops);
    else
      log << ", FLOPs not countable (dynamic sizes)";
    log << "\n";
  }
}

llvm::Expected<std::vector<ProblemOutcome>>
mlir::tiletune::tuneModule(ModuleOp module, const TuneOptions &options) {
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  FailureOr<ProblemSet> set =
      collectProblems(module, options.target, /*allowEmpty=*/false,
                      tunesWithEpilogues(options));
  if (failed(set))
    return llvm::createStringError(
        "the module cannot be tuned (see the errors above)");
  if (options.log)
    printCoverage(module, *set, *options.log);
  return tuneProblems(module.getContext(), *set, options);
}

llvm::Expected<std::vector<ProblemOutcome>>
mlir::tiletune::tuneProblems(MLIRContext *ctx, const ProblemSet &set,
                             const TuneOptions &options) {
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  bool cuda = options.target != kTargetCPU;
  unsigned threads = resolveThreads(options.threads);
  // The CPU target asked for is the process's default while the run lasts:
  // the default configs, the JIT in the workers (forked from here) and the
  // recorded target all follow it.
  DefaultTargetCPUScope targetScope;
  if (!cuda)
    if (llvm::Error err = targetScope.use(options.mcpu, options.mattr))
      return std::move(err);
  TargetInfo target;
  if (cuda) {
    llvm::Expected<TargetInfo> device = getCudaTarget();
    if (!device)
      return llvm::createStringError(
          "cannot tune for cuda on this machine: " +
          toString(device.takeError()) +
          "; tune on a machine with an NVIDIA GPU, or rank "
          "configs by the ptxas legality filter alone with "
          "--compile-only");
    target = *device;
    if (options.log)
      *options.log << "target: " << target.describe() << "\n";
  } else {
    target = getCPUTarget(threads);
  }
  // Every worker rank must measure this target.
  if (options.distributed == "mpi")
    if (llvm::Error err = connectDistributedWorkers(target, threads, options))
      return std::move(err);

  // Every problem's space, pins, default and strategy before anything is
  // measured or recorded.
  llvm::Expected<std::vector<PreparedProblem>> preparedOrErr =
      prepareProblems(ctx, set, threads, options);
  if (!preparedOrErr)
    return preparedOrErr.takeError();
  std::vector<PreparedProblem> prepared = std::move(*preparedOrErr);

  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
      openTuningDatabase(options.databasePath, OpenMode::CreateIfMissing);
  if (!db)
    return db.takeError();

  std::vector<ProblemOutcome> outcomes;
  for (auto [index, problem] : llvm::enumerate(set.problems)) {
    // Stopped between problems (or before the first): the rest is not
    // started.
    if (options.stopFlag && options.stopFlag->load(std::memory_order_relaxed))
      break;
    PreparedProblem &p = prepared[index];
    if (options.log)
      *options.log << llvm::formatv("[{0}/{1}] tuning {2} ({3} op{4}) with "
                                    "{5}\n",
                                    index + 1, set.problems.size(),
                                    problem.describe(), set.ops[index].size(),
                                    set.ops[index].size() == 1 ? "" : "s",
                                    options.algorithm)
                   << p.log;

    // Warm start from the database as it is now (with the results of the
    // module's problems tuned before this one): the strategy gets the
    // seeds (prepared above without them, which checked its options).
    StrategyOptions seeded = p.strategyOptions;
    if (llvm::Error err =
            seedFromDatabase(**db, problem, target, *p.searchSpace,
                             p.defaultConfig, options, seeded, options.log))
      return std::move(err);
    if (!seeded["seed_configs"].empty()) {
      llvm::Expected<std::unique_ptr<Strategy>> strategy = createStrategy(
          options.algorithm, *p.searchSpace, seeded, options.seed);
      if (!strategy)
        return strategy.takeError();
      p.strategy = std::move(*strategy);
    }

    llvm::Expected<std::unique_ptr<Measurer>> measurer = createProblemMeasurer(
        ctx, problem, *p.space, p.kernelText, p.defaultConfig, target, options,
        p.weightArguments, p.weightsFootprintBytes);
    if (!measurer)
      return measurer.takeError();

    TunerOptions tunerOptions = makeTunerOptions(problem, p, target, options);
    if (options.onResult)
      tunerOptions.callback = [&, index = unsigned(index),
                               key = tunerOptions.problemKey](
                                  const TunerEvent &event) {
        return options.onResult(key, index, set.problems.size(), event);
      };

    Tuner tuner(*p.space, *p.strategy, **measurer, **db, tunerOptions);
    llvm::Expected<TuneResult> result = tuner.run(p.defaultConfig);
    if (!result)
      return llvm::createStringError(
          "tuning " + problem.describe() +
          " failed: " + toString(result.takeError()));
    ProblemOutcome outcome;
    outcome.problem = problem;
    outcome.numOps = set.ops[index].size();
    outcome.result = *result;
    if (result->best) {
      llvm::Expected<TileConfigAttr> attr =
          configToAttr(ctx, problem, *p.space, *result->best);
      if (!attr)
        return attr.takeError();
      outcome.bestAttr = printAttr(*attr);
      outcome.bestConfig = *attr;
      for (Operation *op : set.ops[index])
        setConfig(op, *attr);
    }
    if (options.log) {
      if (result->best)
        *options.log << llvm::formatv(
            "  best {0:F2} GFLOP/s ({1}), default {2:F2} GFLOP/s, {3} trials "
            "in {4:F1} s{5}\n",
            result->bestResult.gflops,
            result->bestIsDefault
                ? result->bestKey + ": the default, kept: no variant was faster"
                : result->bestKey,
            result->defaultResult.gflops, result->trials,
            result->elapsedSeconds,
            result->replayed
                ? llvm::formatv(" ({0} replayed)", result->replayed).str()
                : std::string());
      else
        *options.log << "  no variant ran correctly; the ops are left "
                        "untouched\n";
      if (result->throughput.measured > 0)
        *options.log << "  throughput: " << result->throughput.summary()
                     << "\n";
    }
    outcomes.push_back(std::move(outcome));
    if (result->status == RunStatus::Interrupted)
      break;
  }
  return outcomes;
}

//===----------------------------------------------------------------------===//
// Whole-model tuning under a time budget
//===----------------------------------------------------------------------===//

namespace {
/// A model's entry function lowered whole, JIT-compiled, with its seeded
/// arguments: what an end-to-end timing calls.
struct CompiledModel {
  std::unique_ptr<ExecutionModule> module;
  std::optional<Kernel> kernel;
  SmallVector<Buffer> args;
  SmallVector<Buffer *> argPtrs;
};
} // namespace

/// Lowers a clone of `module` whole (the configs on its ops, defaults
/// elsewhere) through the pipeline every measurement uses and JIT-compiles
/// its entry (the only public function with a body, as tiletune-run picks
/// it without --entry), with arguments seeded as tiletune-run seeds them.
static llvm::Expected<std::unique_ptr<CompiledModel>>
compileModel(ModuleOp module, const TuneOptions &options, std::string *entry) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic())
      candidates.push_back(func);
  if (candidates.size() != 1)
    return llvm::createStringError(llvm::formatv(
        "the module has {0} public functions with a body; the end-to-end run "
        "needs exactly one",
        candidates.size()));
  std::string name = candidates.front().getSymName().str();
  if (entry)
    *entry = name;
  if (llvm::Expected<KernelSignature> sig =
          getKernelSignature(candidates.front());
      !sig)
    return llvm::createStringError("@" + name + " cannot be run: " +
                                   toString(sig.takeError()));

  OwningOpRef<ModuleOp> clone = module.clone();
  std::string diagText;
  ThreadScopedDiagnosticHandler handler(
      module.getContext(), [&](Diagnostic &diag) {
        diagText += (diagText.empty() ? "" : "\n") + diag.str();
        return success();
      });
  if (llvm::Error err = prepareForExecution(*clone))
    return std::move(err);
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  CPULoweringOptions lowering;
  unsigned threads = resolveThreads(options.threads);
  lowering.threads = threads;
  lowering.fuseEpilogues = options.fuseEpilogues;
  lowering.tile = true;
  lowering.defaultConfigs = true;
  lowering.emitCInterface = true;
  buildCPULoweringPipeline(pm, lowering);
  if (failed(pm.run(*clone)))
    return llvm::createStringError("lowering @" + name +
                                   " failed: " + diagText);
  auto compiled = std::make_unique<CompiledModel>();
  llvm::Expected<std::unique_ptr<ExecutionModule>> executable =
      ExecutionModule::create(*clone);
  if (!executable)
    return executable.takeError();
  compiled->module = std::move(*executable);
  llvm::Expected<Kernel> kernel = compiled->module->getKernel(name);
  if (!kernel)
    return kernel.takeError();
  compiled->kernel = *kernel;
  llvm::Expected<SmallVector<Buffer>> args =
      KernelHarness::seedArguments(kernel->getSignature().args, options.seed);
  if (!args)
    return args.takeError();
  compiled->args = std::move(*args);
  for (Buffer &buffer : compiled->args)
    compiled->argPtrs.push_back(&buffer);
  return compiled;
}

llvm::Expected<TimeStats> mlir::tiletune::measureModelEndToEnd(
    ModuleOp module, const TuneOptions &options, std::string *entry) {
  llvm::Expected<std::unique_ptr<CompiledModel>> compiled =
      compileModel(module, options, entry);
  if (!compiled)
    return compiled.takeError();
  return (*compiled)->kernel->time((*compiled)->argPtrs, options.timing);
}

llvm::Expected<PairedTimeStats>
mlir::tiletune::measureModelsPaired(ModuleOp subject, ModuleOp reference,
                                    const TuneOptions &options) {
  llvm::Expected<std::unique_ptr<CompiledModel>> compiledSubject =
      compileModel(subject, options, /*entry=*/nullptr);
  if (!compiledSubject)
    return compiledSubject.takeError();
  llvm::Expected<std::unique_ptr<CompiledModel>> compiledReference =
      compileModel(reference, options, /*entry=*/nullptr);
  if (!compiledReference)
    return compiledReference.takeError();
  // Every sample of both, however early the timing options would stop.
  TimingOptions timing = options.timing;
  timing.stopAboveSeconds = 0;
  timing.stopAboveRatio = 0;
  timing.stopBelowRatioSpread = 0;
  return (*compiledSubject)
      ->kernel->timePaired((*compiledSubject)->argPtrs,
                           *(*compiledReference)->kernel,
                           (*compiledReference)->argPtrs, timing);
}

namespace {
/// One distinct problem of a model run and where its tuning stands.
struct ModelTask {
  unsigned index = 0; // in the ProblemSet
  int64_t trials = 0;
  double bestSeconds = 0;
  bool started = false;
  bool finished = false; // its run ended (exhausted) or was finalized
  std::optional<TuneResult> result;
};
} // namespace

/// Ops of `module` not in `tuned` that compute (a linalg op whose body has
/// arithmetic), grouped by op name with their FLOPs where countable; tunable
/// families that cannot be tuned carry extractProblem's reason.
static std::vector<SkippedOps>
collectSkippedOps(ModuleOp module, const llvm::DenseSet<Operation *> &tuned,
                  const llvm::DenseMap<Operation *, std::string> &reasons) {
  std::vector<SkippedOps> skipped;
  module.walk([&](linalg::LinalgOp op) {
    if (tuned.contains(op))
      return;
    // Arithmetic ops per iteration of its loops (fill/copy have none).
    int64_t perIteration = 0;
    for (Operation &inner : op.getBlock()->without_terminator())
      perIteration += inner.getNumResults() > 0 ? 1 : 0;
    auto reasonIt = reasons.find(op);
    if (perIteration == 0 && reasonIt == reasons.end())
      return;
    double flops = perIteration;
    bool countable = true;
    for (int64_t size : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(size)) {
        countable = false;
        break;
      }
      flops *= double(size);
    }
    std::string name = op->getName().getStringRef().str();
    std::string reason = reasonIt != reasons.end()
                             ? reasonIt->second
                             : "not a tunable op family";
    auto it = llvm::find_if(skipped, [&](const SkippedOps &s) {
      return s.opName == name && s.reason == reason;
    });
    if (it == skipped.end()) {
      skipped.push_back(SkippedOps{name, 0, 0, true, reason});
      it = skipped.end() - 1;
    }
    ++it->count;
    if (countable)
      it->flops += flops;
    else
      it->countable = false;
  });
  return skipped;
}

llvm::Expected<ModelOutcome>
mlir::tiletune::tuneModel(ModuleOp module, const TuneOptions &options) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  if (options.timeBudgetSeconds <= 0)
    return llvm::createStringError("tuneModel: no time budget given");
  double budget = options.timeBudgetSeconds;
  MLIRContext *ctx = module.getContext();
  // The CPU target asked for is the process's default while the run lasts
  // (as in tuneProblems): default configs, workers, the end-to-end runs.
  DefaultTargetCPUScope targetScope;
  if (llvm::Error err = targetScope.use(options.mcpu, options.mattr))
    return std::move(err);
  llvm::raw_ostream *log = options.log;

  // The distinct problems; ops that cannot be tuned are listed, not errors.
  ProblemSet set;
  llvm::DenseSet<Operation *> tunedOps;
  llvm::DenseMap<Operation *, std::string> reasons;
  module.walk([&](linalg::LinalgOp linalgOp) {
    Operation *op = linalgOp;
    std::string reason;
    if (std::optional<std::string> why = getEmptyOpReason(op)) {
      reasons[op] = *why;
      return;
    }
    FailureOr<Problem> problem = extractProblem(op, options.target, &reason,
                                                tunesWithEpilogues(options));
    if (failed(problem)) {
      // The families TileTune tiles say why this one is not; other ops
      // (matvec, grouped convolutions, ...) are "not a tunable op family".
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNgchwFgchwOp, linalg::Conv2DNhwgcGfhwcOp>(op) ||
          (isa<linalg::GenericOp>(op) && isMatmulOrConvLike(op)))
        reasons[op] = reason;
      return;
    }
    int index = set.find(problem->getKey());
    if (index < 0) {
      set.problems.push_back(*problem);
      set.ops.emplace_back();
      index = int(set.problems.size()) - 1;
    }
    set.ops[index].push_back(op);
    tunedOps.insert(op);
  });

  ModelOutcome outcome;
  llvm::DenseSet<Operation *> covered = tunedOps;
  size_t numEpilogueOps = addEpilogueOps(set, covered);
  outcome.skipped = collectSkippedOps(module, covered, reasons);
  for (auto [index, problem] : llvm::enumerate(set.problems))
    outcome.modelFlops += problem.getFlops() * double(set.ops[index].size());
  for (const SkippedOps &s : outcome.skipped)
    outcome.modelFlops += s.flops;
  if (set.problems.empty())
    return llvm::createStringError(
        "no tunable op in the model (supported: linalg.matmul, "
        "linalg.batch_matmul (A and/or B may be transposed), "
        "linalg.conv_2d_nhwc_hwcf, linalg.conv_2d_nhwc_fhwc, "
        "linalg.conv_2d_nchw_fchw, the grouped linalg.conv_2d_ngchw_fgchw "
        "and linalg.conv_2d_nhwgc_gfhwc, and linalg.generic ops that are one "
        "of "
        "them, with static shapes)");

  unsigned threads = resolveThreads(options.threads);
  TargetInfo target = getCPUTarget(threads);
  llvm::Expected<std::vector<PreparedProblem>> preparedOrErr =
      prepareProblems(ctx, set, threads, options);
  if (!preparedOrErr)
    return preparedOrErr.takeError();
  std::vector<PreparedProblem> prepared = std::move(*preparedOrErr);
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
      openTuningDatabase(options.databasePath, OpenMode::CreateIfMissing);
  if (!db)
    return db.takeError();

  if (log) {
    unsigned numOps = tunedOps.size();
    *log << llvm::formatv("model: {0} tunable op{1}, {2} distinct problem{3} "
                          "(identical ops are tuned once); time budget {4} s\n",
                          numOps, numOps == 1 ? "" : "s",
                          set.problems.size(),
                          set.problems.size() == 1 ? "" : "s", budget);
    if (numEpilogueOps)
      *log << llvm::formatv("model: {0} elementwise op{1} tuned and fused as "
                            "epilogues of the tunable ops\n",
                            numEpilogueOps, numEpilogueOps == 1 ? "" : "s");
    // Which matmul/conv FLOPs go through the tiling at all (ops of those
    // families in forms TileTune does not tile stay untiled, tuned or not).
    analyzeMatmulConvCoverage(module).print(*log, "model: ");
    for (const SkippedOps &s : outcome.skipped) {
      *log << llvm::formatv("model: not tuned: {0} {1} op{2} ({3})", s.count,
                            s.opName, s.count == 1 ? "" : "s", s.reason);
      if (s.countable && outcome.modelFlops > 0)
        *log << llvm::formatv(", {0:F2}% of the model's FLOPs",
                              100.0 * s.flops / outcome.modelFlops);
      else
        *log << ", FLOPs not countable (dynamic sizes)";
      *log << "\n";
    }
  }

  // The model before tuning (kept, to be measured again next to the tuned
  // model at the end, under the same machine conditions).
  OwningOpRef<ModuleOp> original = module.clone();
  double endToEndSeconds = 0;
  {
    Clock::time_point t0 = Clock::now();
    llvm::Expected<TimeStats> before =
        measureModelEndToEnd(module, options, &outcome.entry);
    endToEndSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (before) {
      outcome.before = *before;
      if (log)
        *log << llvm::formatv("model @{0} end-to-end before tuning: median "
                              "{1:F3} ms (min {2:F3} ms, {3} samples; whole "
                              "model, lowered, JIT-compiled and run)\n",
                              outcome.entry, before->median * 1e3,
                              before->min * 1e3, before->repeats);
    } else {
      outcome.endToEndError = toString(before.takeError());
      if (log)
        *log << "model: warning: the end-to-end time is not measured: "
             << outcome.endToEndError << "\n";
    }
  }
  if (elapsed() >= budget)
    return llvm::createStringError(llvm::formatv(
        "the time budget of {0} s is too small: the model's end-to-end run "
        "alone took {1:F1} s before any op was measured; give a larger "
        "--time-budget",
        budget, elapsed()));

  // The scheduler's tasks.
  std::vector<SchedulerTask> schedulerTasks;
  std::vector<ModelTask> tasks(set.problems.size());
  for (auto [index, problem] : llvm::enumerate(set.problems)) {
    schedulerTasks.push_back(SchedulerTask{double(set.ops[index].size()),
                                           problem.getFlops(),
                                           stringifyOpKind(problem.opKind).str()});
    tasks[index].index = index;
  }
  unsigned batch = std::max(1u, options.batchSize);
  TaskSchedulerOptions schedulerOptions;
  // A round is whole batches (a round boundary is then a batch boundary).
  schedulerOptions.roundTrials = batch;
  TaskScheduler scheduler(schedulerTasks, schedulerOptions);

  bool firstMeasurement = true;
  bool tooSmall = false;
  double firstMeasurementSeconds = 0;
  bool userStopped = false;

  // Runs `task` until `extra` more trials were measured (a round), or, with
  // `finalize`, replays it and lets the tuner re-measure the winner and
  // the default (the run is then finished).
  // A round's search ends at `deadline` (the budget less what finishing
  // needs) like a time budget: the strategy's work stops early, a batch in
  // flight stops, and the run is then finished (its winner confirmed).
  auto runRound = [&](ModelTask &task, int64_t extra, bool finalize,
                      Deadline deadline = {}) -> llvm::Error {
    const Problem &problem = set.problems[task.index];
    PreparedProblem &p = prepared[task.index];
    std::unique_ptr<Strategy> fresh;
    Strategy *strategy = p.strategy.get();
    if (task.started) {
      llvm::Expected<std::unique_ptr<Strategy>> created = createStrategy(
          options.algorithm, *p.searchSpace, p.strategyOptions, options.seed);
      if (!created)
        return created.takeError();
      fresh = std::move(*created);
      strategy = fresh.get();
    }
    llvm::Expected<std::unique_ptr<Measurer>> measurer = createProblemMeasurer(
        ctx, problem, *p.space, p.kernelText, p.defaultConfig, target, options,
        p.weightArguments, p.weightsFootprintBytes);
    if (!measurer)
      return measurer.takeError();
    TunerOptions tunerOptions = makeTunerOptions(problem, p, target, options);
    tunerOptions.maxSeconds = 0;
    tunerOptions.deadline = deadline;
    // The round ends through the callback, leaving the run resumable; the
    // final call replays it up to its trials and finishes it.
    tunerOptions.maxTrials = finalize ? task.trials : kMaxTrials;
    tunerOptions.resume = task.started || options.resume;
    tunerOptions.showProgress = false;
    tunerOptions.checkpointSeconds = 0;
    std::optional<int64_t> target;
    tunerOptions.callback = [&](const TunerEvent &event) {
      if (options.onResult &&
          !options.onResult(problem.getKey(), task.index, set.problems.size(),
                            event))
        userStopped = true;
      task.trials = event.trialsDone;
      if (event.best && event.best->result.ok())
        task.bestSeconds = event.best->result.time.seconds();
      if (event.replayed || finalize)
        return !userStopped;
      if (firstMeasurement) {
        firstMeasurement = false;
        firstMeasurementSeconds = elapsed();
        if (firstMeasurementSeconds > budget) {
          tooSmall = true;
          return false;
        }
      }
      if (!target)
        target = event.trialsDone - 1 + extra;
      return !userStopped && event.trialsDone < *target;
    };
    if (!task.started && log)
      *log << llvm::formatv("[{0}/{1}] warm-up: {2} ({3} op{4}) with {5}\n",
                            task.index + 1, set.problems.size(),
                            problem.describe(), set.ops[task.index].size(),
                            set.ops[task.index].size() == 1 ? "" : "s",
                            options.algorithm)
           << p.log;
    Tuner tuner(*p.space, *strategy, **measurer, **db, tunerOptions);
    llvm::Expected<TuneResult> result = tuner.run(p.defaultConfig);
    if (!result)
      return llvm::createStringError("tuning " + problem.describe() +
                                     " failed: " +
                                     toString(result.takeError()));
    task.started = true;
    task.trials = result->trials;
    task.result = *result;
    if (result->status == RunStatus::Finished)
      task.finished = true;
    if (options.stopFlag && options.stopFlag->load(std::memory_order_relaxed))
      userStopped = true;
    return llvm::Error::success();
  };

  // Rounds until the budget, less what finishing needs: the end-to-end
  // run after tuning and, per started problem, its winner and default
  // re-measured (two trials at its measured cost).
  auto reserve = [&] {
    double seconds = endToEndSeconds;
    for (auto [index, task] : llvm::enumerate(tasks))
      if (task.started && !task.finished && task.trials > 0)
        seconds += 2 * scheduler.estimateRoundSeconds(index) /
                   double(schedulerOptions.roundTrials);
    return seconds;
  };
  while (!userStopped) {
    std::optional<unsigned> next =
        scheduler.next(budget - elapsed() - reserve());
    if (!next)
      break;
    ModelTask &task = tasks[*next];
    bool warmUp = !task.started;
    double before = elapsed();
    // Warm-up: the default config and one batch.
    Deadline roundDeadline(
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(budget - reserve())));
    if (llvm::Error err =
            runRound(task, warmUp ? batch + 1 : batch, false, roundDeadline))
      return std::move(err);
    ++outcome.rounds;
    if (tooSmall)
      return llvm::createStringError(llvm::formatv(
          "the time budget of {0} s is too small for one measurement: the "
          "model's end-to-end run and the first measurement of {1} took "
          "{2:F1} s; give a larger --time-budget",
          budget, set.problems[task.index].describe(),
          firstMeasurementSeconds));
    scheduler.record(*next, task.trials, task.bestSeconds, elapsed() - before);
    if (task.finished || task.bestSeconds <= 0)
      scheduler.retire(*next);
    if (log)
      *log << llvm::formatv("round {0}: {1}: {2} trials, best {3:F4} ms; "
                            "objective {4:F4} ms; {5:F1}/{6} s\n",
                            outcome.rounds, set.problems[task.index].getKey(),
                            task.trials, task.bestSeconds * 1e3,
                            scheduler.getObjective() * 1e3, elapsed(), budget);
  }
  outcome.stopped = userStopped;
  // Nothing fitted in what the end-to-end run left of the budget.
  if (outcome.rounds == 0 && !userStopped && !set.problems.empty())
    return llvm::createStringError(llvm::formatv(
        "the time budget of {0} s is too small: the model's end-to-end run "
        "took {1:F1} s and left no time for one measurement; give a larger "
        "--time-budget",
        budget, elapsed()));

  // Finish every started run (winner re-measured against the default), set
  // the best configs on the ops (remembering what they had).
  SmallVector<std::pair<Operation *, TileConfigAttr>> previousConfigs;
  for (ModelTask &task : tasks) {
    const Problem &problem = set.problems[task.index];
    if (!task.started) {
      outcome.untuned.push_back(problem);
      continue;
    }
    if (!task.finished && !userStopped)
      if (llvm::Error err = runRound(task, 0, /*finalize=*/true))
        return std::move(err);
    ProblemOutcome one;
    one.problem = problem;
    one.numOps = set.ops[task.index].size();
    one.result = *task.result;
    if (task.result->best) {
      llvm::Expected<TileConfigAttr> attr = configToAttr(
          ctx, problem, *prepared[task.index].space, *task.result->best);
      if (!attr)
        return attr.takeError();
      one.bestAttr = printAttr(*attr);
      one.bestConfig = *attr;
      // What an op goes back to: its own config, or the default config the
      // lowering would give it (what the untuned model ran).
      llvm::Expected<TileConfigAttr> defaultAttr =
          configToAttr(ctx, problem, *prepared[task.index].space,
                       prepared[task.index].defaultConfig);
      if (!defaultAttr)
        return defaultAttr.takeError();
      for (Operation *op : set.ops[task.index]) {
        TileConfigAttr own = getConfig(op);
        previousConfigs.emplace_back(op, own ? own : *defaultAttr);
        setConfig(op, *attr);
      }
    }
    outcome.problems.push_back(std::move(one));
  }
  if (log && !outcome.untuned.empty())
    *log << llvm::formatv("model: the budget ran out before {0} problem(s) "
                          "got a measurement; their ops keep their configs\n",
                          outcome.untuned.size());

  // The model after tuning, in alternation with the untuned model (the
  // first measurement of the untuned model was printed at the start): on a
  // machine whose speed drifts over minutes (a VM: the same module measured
  // 42.7 ms before a 10-minute run and 44.6-45.0 ms after it), two timings
  // back to back compare the drift as much as the configs.
  auto measureAfter = [&]() -> bool {
    llvm::Expected<PairedTimeStats> paired =
        measureModelsPaired(module, *original, options);
    if (!paired) {
      outcome.endToEndError = toString(paired.takeError());
      return false;
    }
    outcome.before = paired->reference;
    outcome.after = paired->subject;
    outcome.ratio = paired->ratio;
    return true;
  };
  if (outcome.before && measureAfter() && log)
    *log << llvm::formatv(
        "model @{0} end-to-end after tuning: median {1:F3} ms (min {2:F3} "
        "ms, {3} samples); {4:F2}x over the untuned model measured in "
        "alternation with it ({5:F3} ms; median ratio of each tuned sample "
        "to the untuned ones around it {6:F3})\n",
        outcome.entry, outcome.after->median * 1e3, outcome.after->min * 1e3,
        outcome.after->repeats, outcome.before->median / outcome.after->median,
        outcome.before->median * 1e3, outcome.ratio->median);
  // Each problem's winner was faster than its default alone, yet together,
  // in the model, they can run slower. A tuned model slower in alternation
  // (median ratio above 1) is measured once more; when it is still slower
  // the module keeps the configs it had (the default configs where it had
  // none: what the untuned model ran), and says so.
  if (outcome.ratio && outcome.ratio->median > 1) {
    double firstRatio = outcome.ratio->median;
    if (!measureAfter()) {
      // The first run stands (measureAfter left it in place, and said why
      // the second failed in endToEndError).
      if (log)
        *log << "model: warning: the tuned model could not be measured "
                "again ("
             << outcome.endToEndError
             << "); the module keeps its tuned configs\n";
      outcome.endToEndError.clear();
    } else if (outcome.ratio->median > 1) {
      outcome.keptPrevious = true;
      for (auto &[op, config] : previousConfigs)
        setConfig(op, config);
      if (log)
        *log << llvm::formatv(
            "model @{0}: the tuned configs ran slower end to end, twice "
            "(median ratios {1:F3}, then {2:F3}: {3:F3} ms against {4:F3} "
            "ms): the module keeps the configs its ops had before tuning "
            "(their default configs where they had none); the database "
            "keeps every problem's result\n",
            outcome.entry, firstRatio, outcome.ratio->median,
            outcome.after->median * 1e3, outcome.before->median * 1e3);
    } else if (log) {
      *log << llvm::formatv("model @{0}: measured again, the tuned configs ran "
                            "as fast or faster (median ratio {1:F3}, the "
                            "first run {2:F3}): the module keeps them\n",
                            outcome.entry, outcome.ratio->median, firstRatio);
    }
  }
  outcome.elapsedSeconds = elapsed();
  return outcome;
}

void mlir::tiletune::printModelOutcome(const ModelOutcome &outcome,
                                       StringRef algorithm,
                                       llvm::raw_ostream &os) {
  printOutcomes(outcome.problems, algorithm, os);
  for (const Problem &problem : outcome.untuned)
    os << llvm::formatv("{0,-44} not measured (the budget ran out)\n",
                        problem.getKey());
  for (const SkippedOps &s : outcome.skipped) {
    os << llvm::formatv("skipped: {0} x {1} ({2})", s.count, s.opName,
                        s.reason);
    if (s.countable && outcome.modelFlops > 0)
      os << llvm::formatv(", {0:F2}% of the model's FLOPs",
                          100.0 * s.flops / outcome.modelFlops);
    else
      os << ", FLOPs not countable";
    os << "\n";
  }
  auto ms = [](const TimeStats &t) {
    return llvm::formatv("{0:F3} ms (min {1:F3}, max {2:F3}, {3} samples)",
                         t.median * 1e3, t.min * 1e3, t.max * 1e3, t.repeats)
        .str();
  };
  if (outcome.before && outcome.after)
    os << "model @" << outcome.entry << " end-to-end: before "
       << ms(*outcome.before) << ", after " << ms(*outcome.after)
       << llvm::formatv(", speed-up {0:F2}x (measured in alternation; median "
                        "ratio after/before {1:F3}){2}\n",
                        outcome.before->median / outcome.after->median,
                        outcome.ratio ? outcome.ratio->median : 0.0,
                        outcome.keptPrevious
                            ? " (slower: the module keeps the configs it "
                              "had before tuning)"
                            : "");
  else
    os << "model end-to-end: not measured: " << outcome.endToEndError << "\n";
  os << llvm::formatv("model: {0} rounds in {1:F1} s\n", outcome.rounds,
                      outcome.elapsedSeconds);
}
