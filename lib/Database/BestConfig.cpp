//===- BestConfig.cpp - The best known config and the report --------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// How TileTuneDatabase ranks results: a finished run counts with its result
// (its fastest confirmation round), any other run with its fastest Ok
// measurement; the fastest measured median wins. bestConfig() answers for one
// target and, when allowed, falls back to the most similar other target;
// report() aggregates per problem, target and algorithm with the same ranking.
//
//===----------------------------------------------------------------------===//

#include "SQLite.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
/// The condition selecting a finished run's result measurement: its fastest
/// Ok confirmation (role 'final') when it was confirmed, as the tuner
/// reports it (TuneResult::bestResult), else its latest Ok measurement.
constexpr const char *kFinishedResultWhere =
    "r.status = 'finished' AND r.result_config_key != '' AND "
    "m.config_key = r.result_config_key AND m.trial = (SELECT m2.trial "
    "FROM measurements m2 WHERE m2.run_id = r.id AND m2.config_key = "
    "r.result_config_key AND m2.status = 'ok' ORDER BY m2.role = 'final' "
    "DESC, CASE WHEN m2.role = 'final' THEN m2.median_s ELSE -m2.trial END "
    "LIMIT 1)";
/// The condition selecting every Ok measurement of a run without a result.
constexpr const char *kOpenRunWhere =
    "(r.status != 'finished' OR r.result_config_key = '')";

/// A target (other than the one asked for) with results for the problem.
struct ForeignTarget {
  int64_t id = 0;
  TargetInfo target;
  /// similarity() to the target asked for.
  int score = 0;
};

/// How much of \p wanted a target of the same kind shares: the model counts
/// most, then the features, then the toolchain.
int similarity(const TargetInfo &candidate, const TargetInfo &wanted) {
  return (candidate.model == wanted.model ? 4 : 0) +
         (candidate.features == wanted.features ? 2 : 0) +
         (candidate.toolchain == wanted.toolchain ? 1 : 0);
}

/// The order in which foreign targets are tried: the higher score first,
/// then the nearer thread count, then the older target.
bool isMoreSimilar(const ForeignTarget &a, const ForeignTarget &b,
                   const TargetInfo &wanted) {
  if (a.score != b.score)
    return a.score > b.score;
  auto distance = [&](const ForeignTarget &c) {
    return std::abs(static_cast<int64_t>(c.target.threads) -
                    static_cast<int64_t>(wanted.threads));
  };
  if (distance(a) != distance(b))
    return distance(a) < distance(b);
  return a.id < b.id;
}
} // namespace

Expected<std::optional<BestConfig>>
TileTuneDatabase::bestOfRuns(StringRef whereSql, int64_t problemId,
                             int64_t targetId, StringRef algorithm) {
  // Candidates: the final (latest Ok) measurement of each finished run's
  // result, and the fastest Ok measurement of every other run. Bare columns
  // next to MIN() take their values from the row with the minimum (SQLite).
  std::string sql =
      std::string("SELECT r.id, r.algorithm, m.config_key, m.config, "
                  "m.mean_s, MIN(m.median_s), m.min_s, m.max_s, m.stddev_s, "
                  "m.repeats, m.gflops FROM runs r JOIN measurements m ON "
                  "m.run_id = r.id WHERE r.problem_id = ?1 AND "
                  "r.target_id = ?2 AND (?3 = '' OR r.algorithm = ?3) AND "
                  "m.status = 'ok' AND ") +
      whereSql.str() + " GROUP BY r.id";
  Statement stmt(*this, sql);
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, problemId).bind(2, targetId).bind(3, algorithm);
  std::optional<BestConfig> best;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    if (stmt.isNull(5))
      continue;
    double seconds = stmt.getDouble(5);
    if (best && best->time.median <= seconds)
      continue;
    BestConfig candidate;
    candidate.runId = stmt.getInt(0);
    candidate.algorithm = stmt.getText(1);
    candidate.configKey = stmt.getText(2);
    candidate.config = stmt.getText(3);
    candidate.time = stmt.readTimeStats(4);
    candidate.gflops = stmt.getDouble(10);
    best = std::move(candidate);
  }
  return best;
}


Expected<std::optional<BestConfig>>
TileTuneDatabase::bestConfig(StringRef problemKey, const TargetInfo &target,
                             const BestConfigOptions &options) {
  Expected<std::optional<int64_t>> problemId = lookupProblemId(problemKey);
  if (!problemId)
    return problemId.takeError();
  if (!*problemId)
    return std::nullopt;
  Expected<std::optional<int64_t>> targetId = lookupTargetId(target);
  if (!targetId)
    return targetId.takeError();

  auto bestFor = [&](int64_t tid) -> Expected<std::optional<BestConfig>> {
    std::optional<BestConfig> best;
    for (const char *where : {kFinishedResultWhere, kOpenRunWhere}) {
      Expected<std::optional<BestConfig>> found =
          bestOfRuns(where, **problemId, tid, "");
      if (!found)
        return found.takeError();
      if (*found && (!best || (*found)->time.median < best->time.median))
        best = std::move(**found);
    }
    return best;
  };

  if (*targetId) {
    Expected<std::optional<BestConfig>> exact = bestFor(**targetId);
    if (!exact)
      return exact.takeError();
    if (*exact) {
      (*exact)->problemKey = problemKey.str();
      (*exact)->target = target;
      (*exact)->exactTarget = true;
      return exact;
    }
  }
  if (!options.allowForeignTargets)
    return std::nullopt;

  // Other targets of the same kind, most similar first.
  Statement stmt(*this, std::string("SELECT DISTINCT t.id, ") + kTargetColumns +
                            " FROM targets t JOIN runs r ON r.target_id = "
                            "t.id WHERE r.problem_id = ?1 AND t.kind = ?2");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, **problemId).bind(2, StringRef(target.kind));
  llvm::SmallVector<ForeignTarget> candidates;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    ForeignTarget candidate;
    candidate.id = stmt.getInt(0);
    candidate.target = stmt.readTarget(1);
    if (*targetId && candidate.id == **targetId)
      continue;
    candidate.score = similarity(candidate.target, target);
    candidates.push_back(std::move(candidate));
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const ForeignTarget &a, const ForeignTarget &b) {
              return isMoreSimilar(a, b, target);
            });
  for (ForeignTarget &candidate : candidates) {
    Expected<std::optional<BestConfig>> found = bestFor(candidate.id);
    if (!found)
      return found.takeError();
    if (*found) {
      (*found)->problemKey = problemKey.str();
      (*found)->target = candidate.target;
      (*found)->exactTarget = false;
      return found;
    }
  }
  return std::nullopt;
}


Expected<llvm::SmallVector<ReportRow, 0>>
TileTuneDatabase::report(const TargetInfo *target) {
  Statement groups(*this,
                   std::string("SELECT p.key, r.problem_id, r.target_id, ") +
                       kTargetColumns +
                       ", r.algorithm, COUNT(*), SUM(r.elapsed_seconds) FROM "
                       "runs r JOIN problems p ON p.id = r.problem_id JOIN "
                       "targets t ON t.id = r.target_id WHERE ?1 = '' OR "
                       "t.key = ?1 GROUP BY r.problem_id, r.target_id, "
                       "r.algorithm ORDER BY p.key, t.key, r.algorithm");
  if (Error err = groups.status())
    return std::move(err);
  groups.bind(1, StringRef(target ? target->key() : std::string()));
  llvm::SmallVector<ReportRow, 0> rows;
  llvm::SmallVector<std::pair<int64_t, int64_t>> ids;
  while (true) {
    Expected<bool> row = groups.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    ReportRow report;
    report.problemKey = groups.getText(0);
    ids.push_back({groups.getInt(1), groups.getInt(2)});
    report.target = groups.readTarget(3);
    report.algorithm = groups.getText(8);
    report.runs = static_cast<unsigned>(groups.getInt(9));
    report.secondsUsed = groups.getDouble(10);
    rows.push_back(std::move(report));
  }

  for (auto [index, report] : llvm::enumerate(rows)) {
    auto [problemId, targetId] = ids[index];
    Statement counts(*this,
                     "SELECT COUNT(*), COALESCE(SUM(m.status = 'ok'), 0) FROM "
                     "measurements m JOIN runs r ON r.id = m.run_id WHERE "
                     "r.problem_id = ?1 AND r.target_id = ?2 AND "
                     "r.algorithm = ?3 AND m.role != 'final'");
    if (Error err = counts.status())
      return std::move(err);
    counts.bind(1, problemId)
        .bind(2, targetId)
        .bind(3, StringRef(report.algorithm));
    Expected<bool> row = counts.step();
    if (!row)
      return row.takeError();
    report.trials = counts.getInt(0);
    report.okTrials = counts.getInt(1);

    // The default config's time as the tuner reports it: its fastest
    // confirmation round (role 'final'), or without one its fastest first
    // measurement. The best config's time is taken the same way, so a run
    // that kept the default reports 1.00x instead of measurement noise.
    Statement defaults(
        *this, "SELECT m.median_s, m.gflops, m.config_key FROM measurements "
               "m JOIN runs r ON r.id = m.run_id WHERE r.problem_id = ?1 AND "
               "r.target_id = ?2 AND r.algorithm = ?3 AND m.status = 'ok' "
               "AND m.role != 'search' AND m.config_key IN (SELECT "
               "d.config_key FROM measurements d JOIN runs dr ON dr.id = "
               "d.run_id WHERE dr.problem_id = ?1 AND dr.target_id = ?2 AND "
               "dr.algorithm = ?3 AND d.role = 'default') ORDER BY m.role = "
               "'final' DESC, m.median_s ASC LIMIT 1");
    if (Error err = defaults.status())
      return std::move(err);
    defaults.bind(1, problemId)
        .bind(2, targetId)
        .bind(3, StringRef(report.algorithm));
    row = defaults.step();
    if (!row)
      return row.takeError();
    if (*row && !defaults.isNull(0)) {
      report.defaultSeconds = defaults.getDouble(0);
      report.defaultGflops = defaults.getDouble(1);
      report.defaultConfigKey = defaults.getText(2);
    }

    for (const char *where : {kFinishedResultWhere, kOpenRunWhere}) {
      Expected<std::optional<BestConfig>> best =
          bestOfRuns(where, problemId, targetId, report.algorithm);
      if (!best)
        return best.takeError();
      if (*best && (report.bestConfigKey.empty() ||
                    (*best)->time.median < report.bestSeconds)) {
        report.bestConfigKey = (*best)->configKey;
        report.bestConfig = (*best)->config;
        report.bestSeconds = (*best)->time.median;
        report.bestGflops = (*best)->gflops;
      }
    }
  }
  return rows;
}

