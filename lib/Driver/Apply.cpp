//===- Apply.cpp - Best configs of a database onto a module ---------------===//
//
// applyDatabase and the choice of the target whose results apply.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Driver.h"

#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>

using namespace mlir;
using namespace mlir::tiletune;

/// "1 thread" / "7 threads".
static std::string describeThreads(unsigned threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

/// Why `db` has no best config of `problemKey` on `target`: no run at all,
/// runs on this target without a successful measurement, or runs on other
/// targets only (naming what differs: the thread count, the CPU, its
/// features or the toolchain).
static std::string explainMissing(TileTuneDatabase &db, StringRef problemKey,
                                  const TargetInfo &target) {
  llvm::Expected<SmallVector<RunInfo, 0>> runs = db.listRuns(problemKey);
  if (!runs) {
    llvm::consumeError(runs.takeError());
    return ("the database has no result for " + problemKey).str();
  }
  if (runs->empty())
    return ("the database has no result for " + problemKey).str();
  std::set<unsigned> otherThreads;
  std::set<std::string> differences;
  for (const RunInfo &run : *runs) {
    const TargetInfo &t = run.target;
    if (t == target)
      return ("the database's runs of " + problemKey + " on " +
              target.describe() + " have no successful measurement")
          .str();
    if (t.kind != target.kind) {
      differences.insert("another target kind (" + t.kind + ")");
      continue;
    }
    if (t.model != target.model)
      differences.insert("another " + t.kind + " (" + t.model + ")");
    else if (t.features != target.features)
      differences.insert("other CPU features");
    else if (t.toolchain != target.toolchain)
      differences.insert("another toolchain (" + t.toolchain + ")");
    else if (t.threads != target.threads)
      otherThreads.insert(t.threads);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the database has " << problemKey << " only";
  if (!otherThreads.empty()) {
    os << " at ";
    llvm::interleave(
        otherThreads, os, [&](unsigned t) { os << describeThreads(t); },
        " or ");
    os << " (this compile: " << describeThreads(target.threads)
       << "; results are applied at the thread count they were tuned with)";
    if (!differences.empty())
      os << " and";
  }
  if (!differences.empty()) {
    os << " for ";
    llvm::interleave(differences, os, " or ");
  }
  if (!differences.empty() || otherThreads.empty())
    os << (differences.empty() ? " for other targets" : "")
       << " (this compile: " << target.describe() << ")";
  return text;
}

llvm::Expected<ApplyStats>
mlir::tiletune::applyDatabase(ModuleOp module, TileTuneDatabase &db,
                              const TargetInfo &target, bool overrideConfigs) {
  MLIRContext *ctx = module.getContext();
  ApplyStats stats;
  // CPU ops are looked up with their epilogue (and constant init) first
  // (what the tuner measures by default), then with the epilogue but the
  // init read from the output (a database from before the init was part of
  // the problem), then alone (a run tuned without epilogues).
  FailureOr<ProblemSet> set =
      collectProblems(module, target.kind, /*allowEmpty=*/true,
                      /*withEpilogue=*/target.kind == kTargetCPU);
  if (failed(set))
    return llvm::createStringError(
        "the module has ops that cannot be tuned (see the "
        "errors above)");
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<std::optional<BestConfig>> best =
        db.bestConfig(problem.getKey(), target);
    Problem fallback = problem;
    if (best && !*best && fallback.initValue) {
      fallback.initValue.reset();
      best = db.bestConfig(fallback.getKey(), target);
    }
    if (best && !*best && !fallback.epilogue.empty()) {
      fallback.epilogue.clear();
      best = db.bestConfig(fallback.getKey(), target);
    }
    if (!best)
      return best.takeError();
    if (!*best) {
      stats.missing += set->ops[index].size();
      std::string reason = explainMissing(db, problem.getKey(), target);
      for (Operation *op : set->ops[index])
        stats.missingOps.push_back({op, reason});
      continue;
    }
    // The space of the thread count the result was tuned with (its padded
    // sizes depend on it): results apply at that count only.
    llvm::Expected<Space> space =
        buildProblemSpace(problem, resolveThreads(target.threads));
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

void mlir::tiletune::emitApplyRemarks(ModuleOp module, const ApplyStats &stats,
                                      const TargetInfo &target, StringRef what,
                                      bool withSummary) {
  for (const ApplyStats::MissingOp &missing : stats.missingOps)
    missing.op->emitRemark()
        << what << ": no tuned config applied: " << missing.reason;
  if (!withSummary)
    return;
  // At the module's location, without the module printed as a note.
  InFlightDiagnostic summary = emitRemark(module.getLoc());
  summary << what << ": applied " << stats.applied << " tuned config(s) of "
          << target.describe();
  if (stats.kept)
    summary << "; " << stats.kept
            << " op(s) kept the config they had (override replaces it)";
  if (stats.missing)
    summary << "; " << stats.missing
            << " op(s) have no result and keep no config (see the remarks "
               "on them; they are lowered untiled unless "
               "--tiletune-default-config gives them one)";
}
