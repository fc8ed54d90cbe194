//===- TuneOptions.cpp - What a tuning run is asked to do -----------------===//
//
// Validation shared by the front-ends, thread and target resolution, and
// opening the tuning database.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/TuneOptions.h"

#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Support/ProblemSpec.h"
#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tiletune;

unsigned mlir::tiletune::resolveThreads(unsigned threads) {
  if (threads > 0)
    return threads;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

TargetInfo mlir::tiletune::getCPUTarget(unsigned threads) {
  return TargetInfo::forCPU(getDefaultTargetCPU(), resolveThreads(threads));
}

std::string mlir::tiletune::listAlgorithms() {
  std::string known;
  for (const StrategyInfo *info : StrategyRegistry::get().getAll())
    known += (known.empty() ? "" : ", ") + info->name;
  return known;
}

/// A small space of every op kind on `target` (probes for validating
/// options without a module); op kinds whose space cannot be built are left
/// out.
static std::vector<Space> getProbeSpaces(llvm::StringRef target) {
  std::vector<Space> spaces;
  for (llvm::StringRef kind : {"matmul", "batch_matmul", "conv_2d_nhwc_hwcf",
                               "conv_2d_nchw_fchw"}) {
    std::optional<OpKind> opKind = symbolizeOpKind(kind);
    if (!opKind)
      continue;
    llvm::SmallVector<int64_t> sizes(getLoopTemplates(*opKind).size(), 8);
    llvm::Expected<ProblemSpec> spec = makeProblemSpec(kind, target, sizes);
    if (!spec) {
      llvm::consumeError(spec.takeError());
      continue;
    }
    llvm::Expected<Space> space = buildSpace(*spec);
    if (!space) {
      llvm::consumeError(space.takeError());
      continue;
    }
    spaces.push_back(std::move(*space));
  }
  return spaces;
}

std::string mlir::tiletune::listTunableParameters(llvm::StringRef target) {
  std::vector<std::string> names;
  for (const Space &space : getProbeSpaces(target))
    for (unsigned i = 0, e = space.getNumParameters(); i < e; ++i) {
      std::string name = space.getParameter(i).getName().str();
      if (!llvm::is_contained(names, name))
        names.push_back(std::move(name));
    }
  return llvm::join(names, ", ");
}

llvm::Error mlir::tiletune::validateFixedParameters(llvm::StringRef fixed,
                                                    llvm::StringRef target) {
  std::vector<Space> probes = getProbeSpaces(target);
  if (probes.empty())
    return llvm::Error::success(); // Nothing to check against.
  llvm::SmallVector<llvm::StringRef> items;
  fixed.split(items, ';', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (item.empty())
      continue;
    auto [rawName, value] = item.split('=');
    llvm::StringRef name = rawName.trim();
    if (!item.contains('=') || value.trim().empty())
      return llvm::createStringError(
          "--fix: '" + item + "' gives no value; write 'name=value' (" +
          "parameters on " + target + ": " + listTunableParameters(target) +
          ")");
    bool known = llvm::any_of(
        probes, [&](const Space &s) { return s.lookup(name).has_value(); });
    if (!known)
      return llvm::createStringError(
          "--fix: unknown parameter '" + name + "' (parameters on " + target +
          ": " + listTunableParameters(target) + ")");
  }
  return llvm::Error::success();
}

llvm::Error
mlir::tiletune::validateStrategyOptions(llvm::StringRef algorithm,
                                        const StrategyOptions &options,
                                        llvm::StringRef target) {
  const StrategyInfo *info = StrategyRegistry::get().lookup(algorithm);
  if (!info)
    return llvm::createStringError("unknown algorithm '" + algorithm +
                                   "' (known: " + listAlgorithms() + ")");
  std::vector<std::string> known;
  for (const OptionInfo &o : getCommonOptions())
    known.push_back(o.name);
  for (const OptionInfo &o : info->options)
    known.push_back(o.name);
  for (const auto &[name, value] : options)
    if (!llvm::is_contained(known, name))
      return llvm::createStringError(
          "--algorithm-options: unknown option '" + name + "' of " +
          algorithm + " (valid: " + llvm::join(known, ", ") + ")");
  if (options.empty())
    return llvm::Error::success();
  // The values: the strategy checks them when it is built, so build it over
  // a small space of the target (start_config names a config of a real
  // problem's space and is checked when each problem's strategy is built).
  StrategyOptions probeOptions = options;
  probeOptions.erase("start_config");
  // automcl's compute model is read (or refused, with a message) for each
  // problem's space; the probe is not a problem.
  probeOptions.erase("compute_model");
  std::vector<Space> probes = getProbeSpaces(target);
  if (probes.empty() || probeOptions.empty())
    return llvm::Error::success();
  llvm::Expected<std::unique_ptr<Strategy>> probe =
      createStrategy(algorithm, probes.front(), probeOptions, /*seed=*/0);
  if (!probe)
    return llvm::createStringError("--algorithm-options: " +
                                   llvm::toString(probe.takeError()));
  return llvm::Error::success();
}

bool mlir::tiletune::tunesWithEpilogues(const TuneOptions &options) {
  return options.target == kTargetCPU && options.fuseEpilogues;
}

llvm::Error mlir::tiletune::validateTuneOptions(const TuneOptions &options) {
  if (!StrategyRegistry::get().lookup(options.algorithm))
    return llvm::createStringError("unknown algorithm '" + options.algorithm +
                                   "' (known: " + listAlgorithms() + ")");
  if (options.trials < 0 || options.trials > kMaxTrials)
    return llvm::createStringError(llvm::formatv(
        "the trial budget must be between 0 and {0} (0: no limit), got {1}",
        kMaxTrials, options.trials));
  // Written so that NaN fails too; infinity is "no limit", spelled 0.
  if (!(options.seconds >= 0 && options.seconds <= kMaxSeconds))
    return llvm::createStringError(llvm::formatv(
        "the time budget must be between 0 and {0:f0} seconds (0: no limit), "
        "got {1}",
        kMaxSeconds, options.seconds));
  if (!(options.timeBudgetSeconds >= 0 &&
        options.timeBudgetSeconds <= kMaxSeconds))
    return llvm::createStringError(llvm::formatv(
        "the model time budget must be between 0 and {0:f0} seconds (0: "
        "none), got {1}",
        kMaxSeconds, options.timeBudgetSeconds));
  if (options.timeBudgetSeconds > 0 &&
      options.timeBudgetSeconds < kMinModelBudgetSeconds)
    return llvm::createStringError(llvm::formatv(
        "the model time budget of {0} s is too small for one measurement "
        "(the model's end-to-end run and one variant's compile and timing "
        "take seconds); give at least {1:f0}s",
        options.timeBudgetSeconds, kMinModelBudgetSeconds));
  if (options.timeBudgetSeconds > 0 && options.target != kTargetCPU)
    return llvm::createStringError(
        "a model time budget tunes on the cpu target only (the end-to-end "
        "run is JIT-compiled for this CPU)");
  if (options.distributed != "none" && options.distributed != "mpi")
    return llvm::createStringError("unknown distributed measurement '" +
                                   options.distributed +
                                   "' (known: none, mpi)");
  if (options.distributed == "mpi" && options.target != kTargetCPU)
    return llvm::createStringError(
        "--distributed=mpi measures on the cpu target only");
  if (options.distributed == "mpi" && options.timeBudgetSeconds > 0)
    return llvm::createStringError(
        "--distributed=mpi does not tune a whole model under --time-budget "
        "(the model's end-to-end time is measured on one machine): give "
        "--trials or --seconds per problem");
  if (options.trials == 0 && options.seconds == 0 &&
      options.timeBudgetSeconds == 0)
    return llvm::createStringError(
        "no budget: give a number of trials and/or seconds");
  if (llvm::Error err = checkKnownTarget(options.target))
    return err;
  if (options.target == "cpu" &&
      (!options.mcpu.empty() || !options.mattr.empty()))
    if (llvm::Error err =
            describeRunnableCPU(options.mcpu, options.mattr).takeError())
      return err;
  if (llvm::Error err = checkThreadCount(options.threads))
    return err;
  if (options.batchSize < 1 || options.batchSize > kMaxBatchSize)
    return llvm::createStringError(
        llvm::formatv("the batch size must be between 1 and {0}, got {1}",
                      kMaxBatchSize, options.batchSize));
  if (options.weights != "warm" && options.weights != "model")
    return llvm::createStringError("unknown weights mode '" + options.weights +
                                   "' (known: warm, model)");
  if (options.warmStartFrom != "none" && options.warmStartFrom != "db")
    return llvm::createStringError("unknown warm start '" +
                                   options.warmStartFrom +
                                   "' (known: none, db)");
  if (!(options.warmStartDistance >= 0 &&
        std::isfinite(options.warmStartDistance)))
    return llvm::createStringError(llvm::formatv(
        "the warm start distance must be a finite number >= 0, got {0}",
        options.warmStartDistance));
  if (!(options.earlyStopFactor == 0 ||
        (options.earlyStopFactor >= 1 && options.earlyStopFactor <= 1000)))
    return llvm::createStringError(llvm::formatv(
        "the early-stop factor must be 0 (off) or between 1 and 1000, got {0}",
        options.earlyStopFactor));
  if (!(options.precisionStop >= 0 && options.precisionStop <= 0.5))
    return llvm::createStringError(llvm::formatv(
        "the precision stop must be between 0 (off) and 0.5, got {0}",
        options.precisionStop));
  if (options.jitOptLevel > 3)
    return llvm::createStringError(llvm::formatv(
        "the JIT optimisation level must be between 0 and 3, got {0}",
        options.jitOptLevel));
  if (options.jitCodegenOptLevel < -1 || options.jitCodegenOptLevel > 3)
    return llvm::createStringError(llvm::formatv(
        "the JIT code generation level must be between 0 and 3, got {0}",
        options.jitCodegenOptLevel));
  if (options.compileCacheSize > 1024)
    return llvm::createStringError(llvm::formatv(
        "the compile cache must hold between 0 and 1024 variants, got {0}",
        options.compileCacheSize));
  if (llvm::Error err = validateTimingOptions(options.timing))
    return err;
  if (llvm::Error err = validateFixedParameters(options.fixed, options.target))
    return err;
  if (!llvm::is_contained(getProtocols(), llvm::StringRef(options.protocol)))
    return llvm::createStringError("unknown protocol '" + options.protocol +
                                   "' (known: default, paper)");
  if (llvm::Error err = validateStrategyOptions(
          options.algorithm, options.strategyOptions, options.target))
    return err;
  // The protocol's presets must be accepted too.
  StrategyOptions withProtocol = options.strategyOptions;
  if (llvm::Error err =
          applyProtocol(options.algorithm, options.protocol, withProtocol))
    return err;
  return validateStrategyOptions(options.algorithm, withProtocol,
                                 options.target);
}

llvm::Expected<std::unique_ptr<TileTuneDatabase>>
mlir::tiletune::openTuningDatabase(llvm::StringRef path, OpenMode mode) {
  std::string file = path.empty() ? getDefaultDatabasePath() : path.str();
  if (mode == OpenMode::ReadOnly) {
    if (!llvm::sys::fs::exists(file))
      return llvm::createStringError("tuning database '" + file +
                                     "' does not exist");
  } else if (path.empty()) {
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(file));
  }
  return TileTuneDatabase::open(file, mode);
}
