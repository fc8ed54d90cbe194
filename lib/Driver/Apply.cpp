//===- Apply.cpp - Best configs of a database onto a module ---------------===//
//
// applyDatabase and the choice of the target whose results apply.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Driver.h"

#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tiletune;

llvm::Expected<ApplyStats>
mlir::tiletune::applyDatabase(ModuleOp module, TileTuneDatabase &db,
                              const TargetInfo &target, bool overrideConfigs) {
  MLIRContext *ctx = module.getContext();
  ApplyStats stats;
  FailureOr<ProblemSet> set =
      collectProblems(module, target.kind, /*allowEmpty=*/true);
  if (failed(set))
    return llvm::createStringError(
        "the module has ops that cannot be tuned (see the "
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
      return llvm::createStringError(
          "database config '" + (*best)->configKey + "' of " +
          problem.getKey() +
          " does not fit its space: " + toString(config.takeError()));
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

llvm::Expected<TargetInfo>
mlir::tiletune::selectApplyTarget(TileTuneDatabase &db, StringRef kind,
                                  unsigned threads, StringRef key) {
  if (llvm::Error err = checkKnownTarget(kind))
    return std::move(err);
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
      return llvm::createStringError("no " + kind + " target with key '" + key +
                                     "' in the database");
    return it->second;
  }
  if (targets.size() == 1)
    return targets.begin()->second;
  if (targets.empty())
    return llvm::createStringError("no " + kind +
                                   " results in the database (and no " + kind +
                                   " device here)");
  std::string list;
  for (auto &[k, t] : targets)
    list += "\n  " + t.describe();
  return llvm::createStringError(
      "the database has results of several " + kind +
      " targets; pick one with --target-key:" + list);
}
