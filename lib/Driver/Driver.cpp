//===- Driver.cpp - Tuning whole modules, applying and reporting ----------===//
//
// tuneModule / applyDatabase / printSpaces / printReport and the Tuner's
// CPU measurer.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Driver.h"

#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Transforms/DefaultConfig.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <map>
#include <thread>

using namespace mlir;
using namespace mlir::tiletune;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string mlir::tiletune::getDefaultDatabasePath() {
  llvm::SmallString<256> path;
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    path = *xdg;
  } else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("HOME");
             home && !home->empty()) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    path = ".";
  }
  llvm::sys::path::append(path, "tiletune", "tuning.db");
  return std::string(path);
}

unsigned mlir::tiletune::resolveThreads(unsigned threads) {
  if (threads > 0)
    return threads;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

TargetInfo mlir::tiletune::getCPUTarget(unsigned threads) {
  return TargetInfo::detectHostCPU(resolveThreads(threads));
}

//===----------------------------------------------------------------------===//
// Spaces and defaults
//===----------------------------------------------------------------------===//

/// `config` of `full` moved into `space`, a pinned copy of `full`: every
/// parameter keeps its value where the pins allow it and takes the pinned
/// default otherwise.
static Config projectOntoPinned(const Space &space, const Space &full,
                                const Config &config) {
  Config out = space.getDefault();
  for (unsigned i = 0, e = space.getNumParameters(); i < e; ++i) {
    const Parameter &param = space.getParameter(i);
    std::string text;
    llvm::raw_string_ostream os(text);
    full.getParameter(i).print(full.getValue(config, i), os);
    ParamValue value(param.getWidth());
    if (llvm::Error err = param.parse(text, value)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    out = space.withValue(out, i, value);
  }
  if (!space.isValid(out) && space.isValid(space.getDefault()))
    return space.getDefault();
  return out;
}

Config mlir::tiletune::getDefaultConfig(MLIRContext *ctx,
                                        const Problem &problem,
                                        const Space &space, unsigned threads) {
  {
    TileConfigAttr attr;
    if (problem.target == kTargetCPU) {
      CPUTarget target;
      target.threads = resolveThreads(threads);
      attr = computeDefaultCPUConfig(ctx, toTunableOp(ctx, problem), target);
    } else {
      SmallVector<int64_t> strides(problem.strides.begin(),
                                   problem.strides.end());
      SmallVector<int64_t> dilations(problem.dilations.begin(),
                                     problem.dilations.end());
      attr = computeDefaultCUDAConfig(ctx, toTunableOp(ctx, problem), strides,
                                      dilations);
    }
    llvm::Expected<Space> full = buildProblemSpace(problem);
    if (attr && full) {
      llvm::Expected<Config> config = attrToConfig(problem, *full, attr);
      if (config)
        return projectOntoPinned(space, *full, *config);
      llvm::consumeError(config.takeError());
    }
    if (!full)
      llvm::consumeError(full.takeError());
  }
  return space.getDefault();
}

llvm::Expected<Space> mlir::tiletune::buildTuningSpace(MLIRContext *ctx,
                                                       const Problem &problem,
                                                       StringRef fixed) {
  llvm::Expected<Space> space = buildProblemSpace(problem);
  if (space && problem.target != kTargetCPU)
    space = withGPUKernelLimits(ctx, problem, *space);
  if (!space || fixed.trim().empty())
    return space;
  llvm::Expected<Space> pinned = space->withPinned(fixed);
  if (!pinned)
    return makeError("--fix: " + toString(pinned.takeError()));
  std::mt19937_64 rng(0);
  if (!pinned->sampleValidIf(rng, [](const Config &) { return true; }))
    return makeError("--fix '" + fixed + "' leaves no valid config of " +
                     problem.describe());
  return pinned;
}

llvm::Expected<Space> mlir::tiletune::getSearchSpace(StringRef algorithm,
                                                     const Problem &problem,
                                                     const Space &space,
                                                     unsigned threads) {
  if (algorithm != "automcl" || problem.target != kTargetCPU)
    return space;
  ProblemSpec spec = toProblemSpec(problem);
  llvm::Expected<Space> grid =
      restrictToThreadGrid(space, spec, resolveThreads(threads));
  if (!grid)
    return grid.takeError();
  CacheModel model; // L2 of one core (1 MiB), 64-byte lines and vectors.
  return filterByIdealCacheModel(*grid, spec, model);
}

//===----------------------------------------------------------------------===//
// tuneModule
//===----------------------------------------------------------------------===//

static std::string jsonText(const llvm::json::Value &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

llvm::Expected<std::vector<ProblemOutcome>>
mlir::tiletune::tuneModule(ModuleOp module, const TuneOptions &options) {
  MLIRContext *ctx = module.getContext();
  if (!StrategyRegistry::get().lookup(options.algorithm)) {
    std::string known;
    for (const StrategyInfo *info : StrategyRegistry::get().getAll())
      known += (known.empty() ? "" : ", ") + info->name;
    return makeError("unknown algorithm '" + options.algorithm +
                     "' (known: " + known + ")");
  }
  if (options.trials <= 0 && options.seconds <= 0)
    return makeError("no budget: give a number of trials and/or seconds");
  if (!isKnownTarget(options.target))
    return makeError("unknown target '" + options.target +
                     "' (expected cpu or cuda)");
  bool cuda = options.target != kTargetCPU;
  unsigned threads = resolveThreads(options.threads);
  TargetInfo target;
  if (cuda) {
    llvm::Expected<TargetInfo> device = getCudaTarget();
    if (!device)
      return makeError("cannot tune for cuda on this machine: " +
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
  FailureOr<ProblemSet> set = collectProblems(module, options.target);
  if (failed(set))
    return makeError("the module cannot be tuned (see the errors above)");

  std::string dbPath = options.databasePath.empty() ? getDefaultDatabasePath()
                                                    : options.databasePath;
  if (options.databasePath.empty())
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(dbPath));
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
      TileTuneDatabase::open(dbPath, OpenMode::CreateIfMissing);
  if (!db)
    return db.takeError();

  std::vector<ProblemOutcome> outcomes;
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    if (options.log)
      *options.log << llvm::formatv("[{0}/{1}] tuning {2} ({3} op{4}) with "
                                    "{5}\n",
                                    index + 1, set->problems.size(),
                                    problem.describe(), set->ops[index].size(),
                                    set->ops[index].size() == 1 ? "" : "s",
                                    options.algorithm);
    llvm::Expected<Space> space = buildTuningSpace(ctx, problem, options.fixed);
    if (!space)
      return space.takeError();
    llvm::Expected<Space> searchSpace =
        getSearchSpace(options.algorithm, problem, *space, threads);
    if (!searchSpace)
      return searchSpace.takeError();
    Config defaultConfig = getDefaultConfig(ctx, problem, *space, threads);
    StrategyOptions strategyOptions = options.strategyOptions;
    // Warm start: the strategy starts from the default config (measured
    // first anyway) instead of its paper's start state.
    if (options.warmStart && !strategyOptions.count("start_config") &&
        searchSpace->isValid(defaultConfig))
      strategyOptions["start_config"] = searchSpace->getKey(defaultConfig);
    llvm::Expected<std::unique_ptr<Strategy>> strategy = createStrategy(
        options.algorithm, *searchSpace, strategyOptions, options.seed);
    if (!strategy)
      return strategy.takeError();

    // What is measured: a clone of the module's first op of this problem,
    // with all its attributes.
    Operation *firstOp = set->ops[index].front();
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(firstOp);
    if (failed(kernel)) {
      firstOp->emitError() << "cannot build the standalone kernel of this op";
      return makeError("cannot build the kernel of " + problem.describe());
    }
    std::string kernelText = printKernelModule(**kernel);

    std::unique_ptr<Measurer> measurer;
    if (cuda) {
      GPUMeasureOptions measureOptions;
      measureOptions.lowering.chip = target.features; // the device's sm_XY
      measureOptions.lowering.format = "isa";
      measureOptions.warmupRuns = options.timing.warmupRuns;
      measureOptions.repeats = options.timing.repeats;
      measureOptions.verify = true;
      llvm::Expected<std::unique_ptr<GPUProblemMeasurer>> gpu =
          GPUProblemMeasurer::create(ctx, problem, *space, measureOptions,
                                     /*compileThreads=*/0, kernelText);
      if (!gpu)
        return gpu.takeError();
      measurer = std::move(*gpu);
    } else {
      CPUMeasureOptions measureOptions;
      measureOptions.threads = threads;
      measureOptions.timing = options.timing;
      measureOptions.seed = options.seed;
      measureOptions.verify = true;
      if (options.pairedTiming) {
        llvm::Expected<TileConfigAttr> reference =
            configToAttr(ctx, problem, *space, defaultConfig);
        if (!reference)
          return reference.takeError();
        measureOptions.referenceConfig = printAttr(*reference);
      }
      // Overlap compilation with timing only when the timed kernels leave a
      // core idle.
      bool overlap = options.overlapCompile && threads < resolveThreads(0);
      measurer = std::make_unique<CPUProblemMeasurer>(
          ctx, problem, *space, measureOptions, overlap, kernelText);
    }

    TunerOptions tunerOptions;
    tunerOptions.problemKey = problem.getKey();
    tunerOptions.problemDescription = jsonText(problem.toJSON());
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

    Tuner tuner(*space, **strategy, *measurer, **db, tunerOptions);
    llvm::Expected<TuneResult> result = tuner.run(defaultConfig);
    if (!result)
      return makeError("tuning " + problem.describe() + " failed: " +
                       toString(result.takeError()));
    ProblemOutcome outcome;
    outcome.problem = problem;
    outcome.numOps = set->ops[index].size();
    outcome.result = *result;
    if (result->best) {
      llvm::Expected<TileConfigAttr> attr =
          configToAttr(ctx, problem, *space, *result->best);
      if (!attr)
        return attr.takeError();
      outcome.bestAttr = printAttr(*attr);
      for (Operation *op : set->ops[index])
        setConfig(op, *attr);
    }
    if (options.log) {
      if (result->best)
        *options.log << llvm::formatv(
            "  best {0:F2} GFLOP/s ({1}), default {2:F2} GFLOP/s, {3} trials "
            "in {4:F1} s{5}\n",
            result->bestResult.gflops, result->bestKey,
            result->defaultResult.gflops, result->trials,
            result->elapsedSeconds,
            result->replayed ? llvm::formatv(" ({0} replayed)",
                                             result->replayed)
                                   .str()
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

void mlir::tiletune::printOutcomes(ArrayRef<ProblemOutcome> outcomes,
                                   StringRef algorithm, llvm::raw_ostream &os) {
  os << llvm::formatv("{0,-44} {1,-8} {2,10} {3,10} {4,8} {5,7} {6,8}\n",
                      "problem", "algo", "best GF/s", "dflt GF/s", "speedup",
                      "trials", "time s");
  for (const ProblemOutcome &o : outcomes) {
    const TuneResult &r = o.result;
    double speedup = r.bestResult.ok() && r.defaultResult.ok() &&
                             r.bestResult.time.seconds() > 0
                         ? r.defaultResult.time.seconds() /
                               r.bestResult.time.seconds()
                         : 0;
    os << llvm::formatv("{0,-44} {1,-8} {2,10:F2} {3,10:F2} {4,7:F2}x {5,7} "
                        "{6,8:F1}\n",
                        o.problem.getKey(), algorithm, r.bestResult.gflops,
                        r.defaultResult.gflops, speedup, r.trials,
                        r.elapsedSeconds);
  }
}

//===----------------------------------------------------------------------===//
// applyDatabase
//===----------------------------------------------------------------------===//

llvm::Expected<ApplyStats>
mlir::tiletune::applyDatabase(ModuleOp module, TileTuneDatabase &db,
                              const TargetInfo &target, bool overrideConfigs) {
  MLIRContext *ctx = module.getContext();
  ApplyStats stats;
  FailureOr<ProblemSet> set =
      collectProblems(module, target.kind, /*allowEmpty=*/true);
  if (failed(set))
    return makeError("the module has ops that cannot be tuned (see the "
                     "errors above)");
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<std::optional<BestConfig>> best =
        db.bestConfig(problem.getKey(), target);
    if (!best)
      return best.takeError();
    if (!*best) {
      stats.missing += set->ops[index].size();
      continue;
    }
    llvm::Expected<Space> space = buildProblemSpace(problem);
    if (!space)
      return space.takeError();
    llvm::Expected<Config> config = space->parseKey((*best)->configKey);
    if (!config)
      return makeError("database config '" + (*best)->configKey + "' of " +
                       problem.getKey() +
                       " does not fit its space: " +
                       toString(config.takeError()));
    llvm::Expected<TileConfigAttr> attr =
        configToAttr(ctx, problem, *space, *config);
    if (!attr)
      return attr.takeError();
    for (Operation *op : set->ops[index]) {
      if (getConfig(op) && !overrideConfigs) {
        ++stats.kept;
        continue;
      }
      setConfig(op, *attr);
      ++stats.applied;
    }
  }
  return stats;
}

/// The first informative line of a multi-line failure message, shortened.
static std::string summarizeReason(StringRef reason) {
  SmallVector<StringRef> lines;
  reason.split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string text;
  for (StringRef line : lines) {
    line = line.trim();
    if (line.empty() || line.starts_with("note:"))
      continue;
    text += (text.empty() ? "" : " ") + line.str();
    if (!line.ends_with(":"))
      break; // a heading such as "GPU lowering failed:" continues
  }
  if (text.size() > 240)
    text = text.substr(0, 237) + "...";
  return text;
}

llvm::Error mlir::tiletune::rankModuleCompileOnly(ModuleOp module,
                                                  const TuneOptions &options,
                                                  StringRef chip,
                                                  unsigned show,
                                                  llvm::raw_ostream &os) {
  MLIRContext *ctx = module.getContext();
  GPULoweringOptions lowering;
  lowering.chip = chip.str();
  lowering.format = "isa";
  std::string reason;
  if (failed(validateGPULoweringOptions(lowering, &reason)))
    return makeError(reason);
  if (options.trials <= 0)
    return makeError("compile-only ranking needs a number of trials");
  FailureOr<ProblemSet> set = collectProblems(module, "cuda");
  if (failed(set))
    return makeError("the module cannot be tuned (see the errors above)");
  os << "compile-only ranking for " << chip
     << ": configs ordered by the ptxas legality filter, then occupancy and "
        "registers; nothing was run or timed\n";
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<Space> space = buildTuningSpace(ctx, problem, options.fixed);
    if (!space)
      return space.takeError();
    if (options.log)
      *options.log << llvm::formatv("[{0}/{1}] ranking {2} configs of {3}\n",
                                    index + 1, set->problems.size(),
                                    options.trials, problem.describe());
    llvm::Expected<SmallVector<RankedConfig>> ranked = rankProblemCompileOnly(
        ctx, problem, *space, options.trials, options.seed, lowering);
    if (!ranked)
      return ranked.takeError();
    unsigned legal = llvm::count_if(
        *ranked, [](const RankedConfig &r) { return r.score.legal; });
    os << "problem " << problem.getKey() << ": " << legal << " of "
       << ranked->size() << " configs legal\n";
    for (const RankedConfig &r : llvm::ArrayRef(*ranked).take_front(show)) {
      if (r.score.legal)
        os << llvm::formatv("  legal   occupancy {0,4:F2} regs {1,3} smem "
                            "{2,6} threads {3,4}  {4}\n",
                            r.score.occupancy, r.score.registers,
                            r.score.sharedBytes, r.score.threadsPerBlock,
                            r.key);
      else
        os << "  ILLEGAL " << r.key << ": " << summarizeReason(r.score.reason)
           << "\n";
    }
    if (ranked->empty() || !ranked->front().score.legal) {
      os << "  no legal config: the ops are left untouched\n";
      continue;
    }
    for (Operation *op : set->ops[index])
      setConfig(op, ranked->front().score.config);
  }
  return llvm::Error::success();
}

llvm::Expected<TargetInfo>
mlir::tiletune::selectApplyTarget(TileTuneDatabase &db, StringRef kind,
                                  unsigned threads, StringRef key) {
  if (!isKnownTarget(kind))
    return makeError("unknown target '" + kind + "' (expected cpu or cuda)");
  if (kind == kTargetCPU && key.empty())
    return getCPUTarget(threads);
  if (kind != kTargetCPU && key.empty()) {
    llvm::Expected<TargetInfo> device = getCudaTarget();
    if (device)
      return *device;
    llvm::consumeError(device.takeError());
  }
  // The recorded targets of this kind (or the one with this key).
  llvm::Expected<SmallVector<RunInfo, 0>> runs = db.listRuns();
  if (!runs)
    return runs.takeError();
  std::map<std::string, TargetInfo> targets;
  for (const RunInfo &run : *runs)
    if (run.target.kind == kind)
      targets.emplace(run.target.key(), run.target);
  if (!key.empty()) {
    auto it = targets.find(key.str());
    if (it == targets.end())
      return makeError("no " + kind + " target with key '" + key +
                       "' in the database");
    return it->second;
  }
  if (targets.size() == 1)
    return targets.begin()->second;
  if (targets.empty())
    return makeError("no " + kind + " results in the database (and no " +
                     kind + " device here)");
  std::string list;
  for (auto &[k, t] : targets)
    list += "\n  " + t.describe();
  return makeError("the database has results of several " + kind +
                   " targets; pick one with --target-key:" + list);
}

//===----------------------------------------------------------------------===//
// printSpaces / printReport
//===----------------------------------------------------------------------===//

llvm::Error mlir::tiletune::printSpaces(ModuleOp module, StringRef target,
                                        unsigned threads,
                                        llvm::raw_ostream &os,
                                        StringRef fixed) {
  FailureOr<ProblemSet> set = collectProblems(module, target);
  if (failed(set))
    return makeError("the module cannot be tuned (see the errors above)");
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<Space> space = buildTuningSpace(module.getContext(), problem, fixed);
    if (!space)
      return space.takeError();
    os << "problem " << problem.getKey() << " (" << set->ops[index].size()
       << " op" << (set->ops[index].size() == 1 ? "" : "s") << ", "
       << llvm::formatv("{0:F3}", problem.getFlops() * 1e-9) << " GFLOP)\n";
    os << "  parameters:\n";
    for (unsigned i = 0, e = space->getNumParameters(); i < e; ++i) {
      const Parameter &param = space->getParameter(i);
      os << llvm::formatv("    {0,-10} {1,-14} {2} value{3}", param.getName(),
                          stringifyParamKind(param.getKind()), param.count(),
                          param.count() == 1 ? "" : "s");
      if (const auto *f = dyn_cast<FactorizationParam>(&param)) {
        os << " (" << f->getTotal();
        int64_t size = problem.getDimSize(param.getName());
        if (size > 0 && size != f->getTotal())
          os << " = " << size << " padded";
        os << " into " << f->getNumFactors() << " factors)";
      }
      const auto *f = dyn_cast<FactorizationParam>(&param);
      if (param.count() == 1) {
        ParamValue value(param.getWidth());
        param.getDefault(value);
        os << ", fixed to ";
        param.print(value, os);
      } else if (f && !f->getPinned().empty()) {
        os << ", fixed slots [";
        llvm::interleave(
            f->getPinned(), os,
            [&](int64_t v) { v > 0 ? os << v : os << '*'; }, ",");
        os << "]";
      }
      os << "\n";
    }
    os << "  constraints:";
    for (const Constraint &c : space->getConstraints())
      os << " " << c.Name;
    os << "\n  product size: " << space->countProduct() << "\n";
    llvm::Expected<uint64_t> valid = space->countValid(2000000);
    if (valid)
      os << "  valid configs: " << *valid << "\n";
    else {
      llvm::consumeError(valid.takeError());
      os << "  valid configs: (too many to enumerate)\n";
    }
    Config def = getDefaultConfig(module.getContext(), problem, *space,
                                  threads);
    os << "  default config: " << space->getKey(def) << "\n";
  }
  return llvm::Error::success();
}

llvm::Error mlir::tiletune::printReport(TileTuneDatabase &db,
                                        const TargetInfo *target,
                                        llvm::raw_ostream &os) {
  auto rows = db.report(target);
  if (!rows)
    return rows.takeError();
  if (rows->empty()) {
    os << "no tuning results"
       << (target ? " for " + target->describe() : std::string()) << "\n";
    return llvm::Error::success();
  }
  std::string lastTarget;
  for (const ReportRow &row : *rows) {
    if (row.target.key() != lastTarget) {
      lastTarget = row.target.key();
      os << "target " << row.target.describe() << "\n";
      os << llvm::formatv("  {0,-44} {1,-8} {2,10} {3,10} {4,8} {5,7} {6,6} "
                          "{7,8}  {8}\n",
                          "problem", "algo", "best GF/s", "dflt GF/s",
                          "speedup", "trials", "ok", "time s", "best config");
    }
    double speedup = row.defaultSeconds && row.bestSeconds > 0
                         ? *row.defaultSeconds / row.bestSeconds
                         : 0;
    os << llvm::formatv("  {0,-44} {1,-8} {2,10:F2} {3,10} {4,8} {5,7} {6,6} "
                        "{7,8:F1}  {8}\n",
                        row.problemKey, row.algorithm, row.bestGflops,
                        row.defaultGflops
                            ? llvm::formatv("{0:F2}", *row.defaultGflops).str()
                            : std::string("-"),
                        speedup > 0 ? llvm::formatv("{0:F2}x", speedup).str()
                                    : std::string("-"),
                        row.trials, row.okTrials, row.secondsUsed,
                        row.bestConfigKey.empty() ? std::string("-")
                                                  : row.bestConfigKey);
  }
  return llvm::Error::success();
}
