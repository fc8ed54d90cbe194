//===- Report.cpp - Spaces, outcomes and database reports -----------------===//
//
// printOutcomes (after tuneModule), printSpaces and printReport.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Driver.h"

#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::tiletune;

void mlir::tiletune::printOutcomes(ArrayRef<ProblemOutcome> outcomes,
                                   StringRef algorithm, llvm::raw_ostream &os) {
  os << llvm::formatv("{0,-44} {1,-8} {2,10} {3,10} {4,8} {5,7} {6,8}\n",
                      "problem", "algo", "best GF/s", "dflt GF/s", "speedup",
                      "trials", "time s");
  for (const ProblemOutcome &o : outcomes) {
    const TuneResult &r = o.result;
    double speedup =
        r.bestResult.ok() && r.defaultResult.ok() &&
                r.bestResult.time.seconds() > 0
            ? r.defaultResult.time.seconds() / r.bestResult.time.seconds()
            : 0;
    os << llvm::formatv("{0,-44} {1,-8} {2,10:F2} {3,10:F2} {4,7:F2}x {5,7} "
                        "{6,8:F1}\n",
                        o.problem.getKey(), algorithm, r.bestResult.gflops,
                        r.defaultResult.gflops, speedup, r.trials,
                        r.elapsedSeconds);
  }
}

llvm::Error
mlir::tiletune::checkProblemsTuned(ArrayRef<ProblemOutcome> outcomes) {
  std::string message;
  for (const ProblemOutcome &outcome : outcomes) {
    const TuneResult &result = outcome.result;
    if (result.best || result.trials == 0)
      continue;
    if (!message.empty())
      message += "\n";
    message += llvm::formatv(
        "every measurement of {0} failed ({1} trial(s); the default config: "
        "{2}: {3}); its ops were not tuned (`tiletune export` lists the "
        "failures)",
        outcome.problem.getKey(), result.trials,
        stringifyMeasureStatus(result.defaultResult.status),
        StringRef(result.defaultResult.message).rtrim());
  }
  if (message.empty())
    return llvm::Error::success();
  return llvm::createStringError(message);
}

llvm::Error mlir::tiletune::printSpaces(ModuleOp module, StringRef target,
                                        unsigned threads, llvm::raw_ostream &os,
                                        StringRef fixed, StringRef algorithm) {
  FailureOr<ProblemSet> set = collectProblems(module, target);
  if (failed(set))
    return llvm::createStringError(
        "the module cannot be tuned (see the errors above)");
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<Space> space =
        buildTuningSpace(module.getContext(), problem, fixed, threads);
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
            f->getPinned(), os, [&](int64_t v) { v > 0 ? os << v : os << '*'; },
            ",");
        os << "]";
      }
      os << "\n";
    }
    os << "  constraints:";
    for (const Constraint &c : space->getConstraints())
      os << " " << c.name;
    os << "\n  product size: " << space->countProduct() << "\n";
    llvm::Expected<uint64_t> valid = space->countValid(2000000);
    if (valid)
      os << "  valid configs: " << *valid << "\n";
    else {
      llvm::consumeError(valid.takeError());
      os << "  valid configs: (too many to enumerate)\n";
    }
    Config def =
        getDefaultConfig(module.getContext(), problem, *space, threads);
    os << "  default config: " << space->getKey(def) << "\n";
    if (algorithm.empty())
      continue;
    llvm::Expected<Space> search =
        getSearchSpace(algorithm, problem, *space, threads, &def);
    if (!search)
      return search.takeError();
    if (search->getName() == space->getName())
      continue;
    os << "  " << algorithm << " search space: " << search->getName() << "\n";
    os << "    constraints:";
    for (const Constraint &c : search->getConstraints())
      os << " " << c.name;
    os << "\n    product size: " << search->countProduct() << "\n";
    llvm::Expected<uint64_t> searchValid = search->countValid(2000000);
    if (searchValid)
      os << "    valid configs: " << *searchValid << "\n";
    else {
      llvm::consumeError(searchValid.takeError());
      os << "    valid configs: (too many to enumerate)\n";
    }
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
    os << llvm::formatv(
        "  {0,-44} {1,-8} {2,10:F2} {3,10} {4,8} {5,7} {6,6} "
        "{7,8:F1}  {8}\n",
        row.problemKey, row.algorithm, row.bestGflops,
        row.defaultGflops ? llvm::formatv("{0:F2}", *row.defaultGflops).str()
                          : std::string("-"),
        speedup > 0 ? llvm::formatv("{0:F2}x", speedup).str()
                    : std::string("-"),
        row.trials, row.okTrials, row.secondsUsed,
        row.bestConfigKey.empty() ? std::string("-")
        : row.bestConfigKey == row.defaultConfigKey
            ? row.bestConfigKey + " (the default, kept: no variant was faster)"
            : row.bestConfigKey);
  }
  return llvm::Error::success();
}
