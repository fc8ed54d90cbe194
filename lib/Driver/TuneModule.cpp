//===- TuneModule.cpp - Tuning every tunable op of a module ---------------===//
//
// For each unique problem of a module: the tuning space, the strategy, the
// target's measurer over a clone of the problem's first op, the generic
// Tuner, and the best config written back onto every op of the problem.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Driver.h"

#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/Driver/WarmStart.h"
#include "tiletune/Execution/Buffer.h"
#include "tiletune/Measure/CPUMeasurer.h"
#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tiletune;

/// Checks, before a measurer allocates anything, that the buffers measuring
/// `problem` needs fit in the memory available: its operands and
/// `outputCopies` more copies of its output (reference output, the copy a
/// run writes, the paired reference's copy), in each of `workers` worker
/// processes.
static llvm::Error checkProblemFitsInMemory(const Problem &problem,
                                            unsigned workers,
                                            unsigned outputCopies) {
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
  std::string what = "cannot measure " + problem.describe() +
                     ": its operands (" + types + ") and " +
                     std::to_string(outputCopies) +
                     " more copies of the output";
  if (workers > 1)
    what += ", in each of " + std::to_string(workers) + " worker processes,";
  return checkMemoryAvailable(perWorker * workers, what);
}

/// The measurer of one problem on `target`: the GPU measurer for cuda, else
/// the CPU measurer (paired with `defaultConfig` unless options say
/// otherwise, overlapping compilation with timing when a core is idle).
static llvm::Expected<std::unique_ptr<Measurer>>
createProblemMeasurer(MLIRContext *ctx, const Problem &problem,
                      const Space &space, const std::string &kernelText,
                      const Config &defaultConfig, const TargetInfo &target,
                      const TuneOptions &options) {
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
  measureOptions.timing = options.timing;
  measureOptions.seed = options.seed;
  measureOptions.verify = true;
  if (options.pairedTiming) {
    llvm::Expected<TileConfigAttr> reference =
        configToAttr(ctx, problem, space, defaultConfig);
    if (!reference)
      return reference.takeError();
    measureOptions.referenceConfig = printAttr(*reference);
  }
  // Overlap compilation with timing only when the timed kernels leave a
  // core idle.
  bool overlap = options.overlapCompile && threads < resolveThreads(0);
  // Each worker holds the operands, the reference output, the output a run
  // writes and (paired) the reference config's output.
  if (llvm::Error err = checkProblemFitsInMemory(
          problem, overlap ? 2 : 1, options.pairedTiming ? 3 : 2))
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
  if (options.warmStartFrom != "db" || strategyOptions.count("seed_configs"))
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
  /// strategy built from them.
  StrategyOptions strategyOptions;
  std::unique_ptr<Strategy> strategy;
  std::string kernelText;
  /// What preparing said on the log (printed when the problem is tuned).
  std::string log;
};

static llvm::Expected<PreparedProblem>
prepareProblem(MLIRContext *ctx, const Problem &problem, Operation *firstOp,
               unsigned threads, const TuneOptions &options) {
  PreparedProblem prepared;
  llvm::raw_string_ostream logStream(prepared.log);
  llvm::raw_ostream *log = options.log ? &logStream : nullptr;
  llvm::Expected<Space> space = buildTuningSpace(ctx, problem, options.fixed);
  if (!space)
    return space.takeError();
  prepared.space = std::make_unique<Space>(std::move(*space));
  llvm::Expected<Space> searchSpace =
      getSearchSpace(options.algorithm, problem, *prepared.space, threads);
  if (!searchSpace)
    return searchSpace.takeError();
  prepared.searchSpace = std::make_unique<Space>(std::move(*searchSpace));
  prepared.defaultConfig =
      getDefaultConfig(ctx, problem, *prepared.space, threads, log);
  prepared.strategyOptions = options.strategyOptions;
  StrategyOptions &strategyOptions = prepared.strategyOptions;
  // Warm start: the strategy starts from the default config (measured
  // first anyway) instead of its paper's start state.
  if (options.warmStart && !strategyOptions.count("start_config") &&
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
  FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(firstOp);
  if (failed(kernel)) {
    firstOp->emitError() << "cannot build the standalone kernel of this op";
    return llvm::createStringError("cannot build the kernel of " +
                                   problem.describe());
  }
  prepared.kernelText = printKernelModule(**kernel);
  return prepared;
}

llvm::Expected<std::vector<ProblemOutcome>>
mlir::tiletune::tuneModule(ModuleOp module, const TuneOptions &options) {
  if (llvm::Error err = validateTuneOptions(options))
    return std::move(err);
  FailureOr<ProblemSet> set = collectProblems(module, options.target);
  if (failed(set))
    return llvm::createStringError(
        "the module cannot be tuned (see the errors above)");
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
  std::optional<std::pair<std::string, std::string>> previousTarget;
  if (!cuda && (!options.mcpu.empty() || !options.mattr.empty())) {
    previousTarget = getDefaultTargetCPUNames();
    if (llvm::Error err = setDefaultTargetCPU(options.mcpu, options.mattr))
      return std::move(err);
  }
  auto restoreTarget = llvm::make_scope_exit([&] {
    if (previousTarget)
      llvm::consumeError(setDefaultTargetCPU(previousTarget->first,
                                             previousTarget->second));
  });
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

  // Every problem's space, pins, default and strategy before anything is
  // measured or recorded.
  std::vector<PreparedProblem> prepared;
  for (auto [index, problem] : llvm::enumerate(set.problems)) {
    llvm::Expected<PreparedProblem> one = prepareProblem(
        ctx, problem, set.ops[index].front(), threads, options);
    if (!one)
      return one.takeError();
    prepared.push_back(std::move(*one));
  }

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

    llvm::Expected<std::unique_ptr<Measurer>> measurer =
        createProblemMeasurer(ctx, problem, *p.space, p.kernelText,
                              p.defaultConfig, target, options);
    if (!measurer)
      return measurer.takeError();

    TunerOptions tunerOptions;
    tunerOptions.problemKey = problem.getKey();
    tunerOptions.problemDescription =
        llvm::formatv("{0}", problem.toJSON()).str();
    tunerOptions.target = target;
    tunerOptions.maxTrials = options.trials;
    tunerOptions.maxSeconds = options.seconds;
    tunerOptions.batchSize = std::max(1u, options.batchSize);
    tunerOptions.flops = problem.getFlops();
    if (!cuda && options.pairedTiming)
      tunerOptions.measurement = "paired";
    tunerOptions.resume = options.resume;
    tunerOptions.showProgress = options.progress != nullptr;
    tunerOptions.progressStream = options.progress;
    tunerOptions.stopFlag = options.stopFlag;
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
    }
    outcomes.push_back(std::move(outcome));
    if (result->status == RunStatus::Interrupted)
      break;
  }
  return outcomes;
}
