//===- Queries.cpp - Reading runs and measurements back -------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The queries of TileTuneDatabase that return what was recorded, row by
// row: runs (by id, all, the resumable one), the measurements of a run, the
// problems and their descriptions. The rankings are in BestConfig.cpp.
//
//===----------------------------------------------------------------------===//

#include "DatabaseImpl.h"
#include "SQLite.h"

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Runs
//===----------------------------------------------------------------------===//

Expected<RunInfo> TileTuneDatabase::readRunRow(Statement &stmt) {
  RunInfo run;
  run.id = stmt.getInt(0);
  run.problemKey = stmt.getText(1);
  run.problemDescription = stmt.getText(2);
  run.target = stmt.readTarget(3);
  run.algorithm = stmt.getText(8);
  run.seed = seedFromSql(stmt.getInt(9));
  run.budgetTrials = stmt.getInt(10);
  run.budgetSeconds = stmt.getDouble(11);
  run.options = stmt.getText(12);
  run.toolVersion = stmt.getText(13);
  run.startedAt = stmt.getDouble(14);
  run.finishedAt = stmt.getDouble(15);
  run.elapsedSeconds = stmt.getDouble(16);
  std::string status = stmt.getText(17);
  std::optional<RunStatus> parsed = parseRunStatus(status);
  if (!parsed)
    return llvm::createStringError("tuning database '" + path + "': run " +
                                   llvm::Twine(run.id) +
                                   " has an unknown status '" + status + "'");
  run.status = *parsed;
  run.strategyState = stmt.getText(18);
  run.resultConfigKey = stmt.getText(19);
  run.owner = stmt.getText(20);
  return run;
}

Expected<RunInfo> TileTuneDatabase::getRun(int64_t runId) {
  Statement stmt(*this, std::string("SELECT ") + kRunColumns + kRunJoins +
                            "WHERE r.id = ?1");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, runId);
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return llvm::createStringError("tuning database '" + path +
                                   "': no run with id " + llvm::Twine(runId));
  return readRunRow(stmt);
}

Expected<llvm::SmallVector<RunInfo, 0>>
TileTuneDatabase::listRuns(StringRef problemKey) {
  Statement stmt(*this, std::string("SELECT ") + kRunColumns + kRunJoins +
                            "WHERE ?1 = '' OR p.key = ?1 ORDER BY r.id");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, problemKey);
  llvm::SmallVector<RunInfo, 0> runs;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return runs;
    Expected<RunInfo> run = readRunRow(stmt);
    if (!run)
      return run.takeError();
    runs.push_back(std::move(*run));
  }
}

Expected<std::optional<RunInfo>>
TileTuneDatabase::findResumableRun(StringRef problemKey,
                                   const TargetInfo &target,
                                   StringRef algorithm, uint64_t seed) {
  Statement stmt(*this, std::string("SELECT ") + kRunColumns + kRunJoins +
                            "WHERE p.key = ?1 AND t.key = ?2 AND "
                            "r.algorithm = ?3 AND r.seed = ?4 AND "
                            "r.status != 'finished' ORDER BY r.id DESC "
                            "LIMIT 1");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, problemKey)
      .bind(2, StringRef(target.key()))
      .bind(3, algorithm)
      .bind(4, seedToSql(seed));
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return std::nullopt;
  Expected<RunInfo> run = readRunRow(stmt);
  if (!run)
    return run.takeError();
  return std::optional<RunInfo>(std::move(*run));
}

//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

Expected<llvm::SmallVector<MeasurementRecord, 0>>
TileTuneDatabase::measurementsOfRun(int64_t runId) {
  Statement stmt(*this, std::string("SELECT ") + kMeasurementColumns +
                            pairedColumns().str() +
                            " FROM measurements m WHERE m.run_id = ?1 "
                            "ORDER BY m.trial");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, runId);
  llvm::SmallVector<MeasurementRecord, 0> records;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return records;
    auto column = [](MeasurementColumn c) { return columnOf(0, c); };
    MeasurementRecord record;
    record.runId = runId;
    record.trial = stmt.getInt(column(MeasurementColumn::Trial));
    std::string role = stmt.getText(column(MeasurementColumn::Role));
    std::string status = stmt.getText(column(MeasurementColumn::Status));
    std::optional<MeasurementRole> parsedRole = parseMeasurementRole(role);
    std::optional<MeasureStatus> parsedStatus = parseMeasureStatus(status);
    if (!parsedRole || !parsedStatus)
      return llvm::createStringError(
          "tuning database '" + path + "': measurement " +
          llvm::Twine(record.trial) + " of run " + llvm::Twine(runId) +
          " has an unknown role or status ('" + role + "', '" + status + "')");
    record.role = *parsedRole;
    record.configKey = stmt.getText(column(MeasurementColumn::ConfigKey));
    record.config = stmt.getText(column(MeasurementColumn::Config));
    MeasureResult &result = record.result;
    result.status = *parsedStatus;
    // The statistics are NULL unless the measurement was Ok; the repeat
    // count is always there.
    TimeStats time = stmt.readTimeStats(column(MeasurementColumn::Mean));
    if (!stmt.isNull(column(MeasurementColumn::Median))) {
      result.time = time;
      result.gflops = stmt.getDouble(column(MeasurementColumn::Gflops));
      if (!stmt.isNull(column(MeasurementColumn::Relative)))
        result.relative = stmt.getDouble(column(MeasurementColumn::Relative));
    }
    result.time.repeats = time.repeats;
    result.message = stmt.getText(column(MeasurementColumn::Message));
    result.costSeconds = stmt.getDouble(column(MeasurementColumn::CostSeconds));
    record.createdAt = stmt.getDouble(column(MeasurementColumn::CreatedAt));
    records.push_back(std::move(record));
  }
}

//===----------------------------------------------------------------------===//
// Problems
//===----------------------------------------------------------------------===//

Expected<llvm::SmallVector<std::string>> TileTuneDatabase::listProblems() {
  Statement stmt(*this, "SELECT DISTINCT p.key FROM problems p JOIN runs r ON "
                        "r.problem_id = p.id ORDER BY p.key");
  if (Error err = stmt.status())
    return std::move(err);
  llvm::SmallVector<std::string> keys;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return keys;
    keys.push_back(stmt.getText(0));
  }
}

Expected<std::string>
TileTuneDatabase::getProblemDescription(StringRef problemKey) {
  Statement stmt(*this, "SELECT description FROM problems WHERE key = ?1");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, problemKey);
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return llvm::createStringError("tuning database '" + path +
                                   "': no problem '" + problemKey + "'");
  return stmt.getText(0);
}
