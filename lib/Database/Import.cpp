//===- Import.cpp - Import (merge) of JSON Lines exports ------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// importJSONL(): reads what exportJSONL() writes, from one or more inputs,
// and adds it to this database in one transaction. Every line is parsed and
// checked first (errors name "input:line"); then the runs are matched
// against those already present (same problem, target, algorithm, seed and
// start time) and only the measurements the database lacks are written.
// Exports written before the run fields were added (no "run_started_at")
// are still read: their runs are identified by their earliest measurement.
//
//===----------------------------------------------------------------------===//

#include "DatabaseImpl.h"
#include "SQLite.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <ctime>
#include <map>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
/// One parsed line.
struct ImportedLine {
  /// Position of the line, for messages ("name:line").
  unsigned source = 0;
  int64_t lineNumber = 0;
  /// The run id of the exporting database (only groups lines).
  int64_t exportedRunId = 0;
  RunInfo run;
  /// The run's start time came from the line (not from the fallback).
  bool hasStartTime = false;
  MeasurementRecord record;
  /// NULL statistics (ok results whose numbers JSON could not express do
  /// not exist: they are rejected).
  bool hasTime = false;
  bool hasRelative = false;
};

/// Parses "2025-01-31T12:34:56.789Z" (isoTime()) into Unix seconds.
std::optional<double> parseIsoTime(StringRef text) {
  struct tm parts = {};
  int millis = 0;
  char zone = 0;
  if (sscanf(text.str().c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c",
             &parts.tm_year, &parts.tm_mon, &parts.tm_mday, &parts.tm_hour,
             &parts.tm_min, &parts.tm_sec, &millis, &zone) != 8 ||
      zone != 'Z')
    return std::nullopt;
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  time_t whole = timegm(&parts);
  if (whole == static_cast<time_t>(-1))
    return std::nullopt;
  return static_cast<double>(whole) + millis / 1000.0;
}

/// JSON text of a stored-JSON field as exportJSONL() writes it: null is
/// empty, a string is the text that was not JSON, anything else is JSON.
std::string storedText(const llvm::json::Value *value) {
  if (!value || value->kind() == llvm::json::Value::Null)
    return "";
  if (std::optional<StringRef> text = value->getAsString())
    return text->str();
  std::string out;
  llvm::raw_string_ostream os(out);
  os << *value;
  return out;
}

/// Reads the fields of one line; the error says which field is wrong.
class LineParser {
public:
  explicit LineParser(const llvm::json::Object &object) : object(object) {}

  Error string(StringRef name, std::string &out, bool required = true) {
    const llvm::json::Value *value = object.get(name);
    if (!value) {
      if (required)
        return missing(name);
      return Error::success();
    }
    std::optional<StringRef> text = value->getAsString();
    if (!text)
      return wrongType(name, "a string");
    out = text->str();
    return Error::success();
  }

  Error integer(StringRef name, int64_t &out, bool required = true) {
    const llvm::json::Value *value = object.get(name);
    if (!value) {
      if (required)
        return missing(name);
      return Error::success();
    }
    std::optional<int64_t> number = value->getAsInteger();
    if (!number)
      return wrongType(name, "an integer");
    out = *number;
    return Error::success();
  }

  /// A number; null (a value JSON cannot express) reads as NaN.
  Error number(StringRef name, double &out, bool required = true) {
    const llvm::json::Value *value = object.get(name);
    if (!value) {
      if (required)
        return missing(name);
      return Error::success();
    }
    if (value->kind() == llvm::json::Value::Null) {
      out = std::nan("");
      return Error::success();
    }
    std::optional<double> number = value->getAsNumber();
    if (!number)
      return wrongType(name, "a number");
    out = *number;
    return Error::success();
  }

  static Error missing(StringRef name) {
    return llvm::createStringError("missing field '" + name + "'");
  }
  static Error wrongType(StringRef name, StringRef what) {
    return llvm::createStringError("field '" + name + "' is not " + what);
  }

private:
  const llvm::json::Object &object;
};

/// A statistic of an Ok measurement: present, finite and not negative.
Error timeField(const llvm::json::Object &time, StringRef name, double &out) {
  std::optional<double> value = time.getNumber(name);
  if (!value || !std::isfinite(*value) || *value < 0)
    return llvm::createStringError(
        "an ok measurement needs a finite, non-negative 'time." + name + "'");
  out = *value;
  return Error::success();
}

/// Parses one line of an export into \p line.
Error parseLine(StringRef text, ImportedLine &line) {
  Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::createStringError("not valid JSON: " +
                                   llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return llvm::createStringError("not a JSON object");
  LineParser fields(*object);
  RunInfo &run = line.run;
  MeasurementRecord &record = line.record;

  if (Error err = fields.integer("run", line.exportedRunId))
    return err;
  if (Error err = fields.string("problem", run.problemKey))
    return err;
  if (run.problemKey.empty())
    return llvm::createStringError("field 'problem' is empty");
  const llvm::json::Value *target = object->get("target");
  if (!target)
    return LineParser::missing("target");
  Expected<TargetInfo> parsedTarget = TargetInfo::fromJSON(*target);
  if (!parsedTarget)
    return parsedTarget.takeError();
  run.target = std::move(*parsedTarget);
  if (std::optional<StringRef> key = target->getAsObject()->getString("key");
      key && *key != run.target.key())
    return llvm::createStringError(
        "the target's key " + *key + " does not match its fields (key " +
        run.target.key() + "): the line was edited or damaged");
  if (Error err = fields.string("algorithm", run.algorithm))
    return err;
  if (run.algorithm.empty())
    return llvm::createStringError("field 'algorithm' is empty");
  const llvm::json::Value *seed = object->get("seed");
  if (!seed)
    return LineParser::missing("seed");
  std::optional<uint64_t> seedValue = seed->getAsUINT64();
  if (!seedValue)
    return LineParser::wrongType("seed", "an unsigned integer");
  run.seed = *seedValue;
  std::string runStatus;
  if (Error err = fields.string("run_status", runStatus))
    return err;
  std::optional<RunStatus> status = parseRunStatus(runStatus);
  if (!status)
    return llvm::createStringError("unknown run_status '" + runStatus + "'");
  run.status = *status;
  if (Error err = fields.string("tool_version", run.toolVersion))
    return err;
  run.problemDescription = storedText(object->get("problem_description"));
  run.options = storedText(object->get("run_options"));
  line.hasStartTime = object->get("run_started_at") != nullptr;
  if (Error err = fields.number("run_started_at", run.startedAt, false))
    return err;
  if (Error err = fields.number("run_finished_at", run.finishedAt, false))
    return err;
  if (Error err =
          fields.number("run_elapsed_seconds", run.elapsedSeconds, false))
    return err;
  if (Error err =
          fields.string("run_result_config_key", run.resultConfigKey, false))
    return err;
  if (Error err = fields.integer("budget_trials", run.budgetTrials, false))
    return err;
  if (Error err = fields.number("budget_seconds", run.budgetSeconds, false))
    return err;
  for (double *value : {&run.startedAt, &run.finishedAt, &run.elapsedSeconds,
                        &run.budgetSeconds})
    if (!std::isfinite(*value))
      *value = 0;
  if (line.hasStartTime && run.startedAt <= 0)
    return llvm::createStringError("field 'run_started_at' is not a time");

  record.runId = 0;
  if (Error err = fields.integer("trial", record.trial))
    return err;
  if (record.trial < 0)
    return llvm::createStringError("field 'trial' is negative");
  std::string role;
  if (Error err = fields.string("role", role))
    return err;
  std::optional<MeasurementRole> parsedRole = parseMeasurementRole(role);
  if (!parsedRole)
    return llvm::createStringError("unknown role '" + role + "'");
  record.role = *parsedRole;
  if (Error err = fields.string("config_key", record.configKey))
    return err;
  if (record.configKey.empty())
    return llvm::createStringError("field 'config_key' is empty");
  record.config = storedText(object->get("config"));
  if (record.config.empty())
    return LineParser::missing("config");
  std::string measureStatus;
  if (Error err = fields.string("status", measureStatus))
    return err;
  std::optional<MeasureStatus> parsedStatus = parseMeasureStatus(measureStatus);
  if (!parsedStatus)
    return llvm::createStringError("unknown status '" + measureStatus + "'");
  MeasureResult &result = record.result;
  result.status = *parsedStatus;
  if (Error err = fields.string("message", result.message, false))
    return err;
  if (Error err = fields.number("cost_seconds", result.costSeconds, false))
    return err;
  if (!std::isfinite(result.costSeconds))
    result.costSeconds = 0;

  // The exact time, or the millisecond one of older exports.
  record.createdAt = std::nan("");
  if (Error err = fields.number("created_at", record.createdAt, false))
    return err;
  if (!std::isfinite(record.createdAt)) {
    std::string timestamp;
    if (Error err = fields.string("timestamp", timestamp))
      return err;
    std::optional<double> parsedTime = parseIsoTime(timestamp);
    // An empty timestamp is what the export writes for a time it cannot
    // show; the record is still worth keeping.
    if (!parsedTime && !timestamp.empty())
      return llvm::createStringError("field 'timestamp' is not a time: '" +
                                     timestamp + "'");
    record.createdAt = parsedTime.value_or(0);
  }

  const llvm::json::Object *time = object->getObject("time");
  if (result.ok()) {
    if (!time)
      return llvm::createStringError("an ok measurement needs a 'time' object");
    for (auto [name, out] :
         {std::pair<StringRef, double *>{"mean", &result.time.mean},
          {"median", &result.time.median},
          {"min", &result.time.min},
          {"max", &result.time.max},
          {"stddev", &result.time.stddev}})
      if (Error err = timeField(*time, name, *out))
        return err;
    std::optional<int64_t> repeats = time->getInteger("repeats");
    if (!repeats || *repeats < 0)
      return llvm::createStringError(
          "an ok measurement needs a non-negative integer 'time.repeats'");
    result.time.repeats = static_cast<unsigned>(*repeats);
    std::optional<double> gflops = object->getNumber("gflops");
    if (!gflops || !std::isfinite(*gflops) || *gflops < 0)
      return llvm::createStringError(
          "an ok measurement needs a finite, non-negative 'gflops'");
    result.gflops = *gflops;
    line.hasTime = true;
    if (const llvm::json::Object *paired = object->getObject("paired")) {
      if (std::optional<double> relative = paired->getNumber("relative")) {
        result.relative = *relative;
        line.hasRelative = std::isfinite(*relative);
      }
      // Exports of schema version 2 rescaled the times by the paired ratio
      // and kept the measured median as `raw_median`: restore what was
      // measured, as the schema upgrade does (docs/Database.md).
      std::optional<double> raw = paired->getNumber("raw_median");
      if (raw && std::isfinite(*raw) && *raw > 0 && result.time.median > 0) {
        double factor = *raw / result.time.median;
        result.time.mean *= factor;
        result.time.min *= factor;
        result.time.max *= factor;
        result.time.stddev *= factor;
        result.time.median = *raw;
        result.gflops /= factor;
      }
    }
  }
  return Error::success();
}

/// Whether \p a and \p b describe the same run (everything the export
/// repeats on each of its lines).
bool sameRun(const RunInfo &a, const RunInfo &b) {
  return a.problemKey == b.problemKey && a.target == b.target &&
         a.algorithm == b.algorithm && a.seed == b.seed &&
         a.status == b.status && a.toolVersion == b.toolVersion &&
         a.startedAt == b.startedAt && a.finishedAt == b.finishedAt &&
         a.elapsedSeconds == b.elapsedSeconds &&
         a.resultConfigKey == b.resultConfigKey;
}

/// The thread count does not matter for "measured on this machine".
bool sameMachine(const TargetInfo &a, const TargetInfo &b) {
  return a.kind == b.kind && a.model == b.model && a.features == b.features &&
         a.toolchain == b.toolchain;
}
} // namespace

Expected<ImportStats>
TileTuneDatabase::importJSONL(llvm::ArrayRef<JSONLSource> sources,
                              const ImportOptions &options) {
  if (readOnly)
    return llvm::createStringError("tuning database '" + path +
                                   "' is open read-only: cannot import");
  ImportStats stats;

  // 1. Parse and check every line before writing anything.
  std::vector<ImportedLine> lines;
  // The lines of each exported run, by (input, exported run id).
  std::map<std::pair<unsigned, int64_t>, llvm::SmallVector<size_t>> runs;
  llvm::StringSet<> targets;
  for (unsigned sourceIndex = 0; sourceIndex < sources.size(); ++sourceIndex) {
    const JSONLSource &source = sources[sourceIndex];
    llvm::SmallVector<StringRef> texts;
    source.text.split(texts, '\n');
    for (size_t index = 0; index < texts.size(); ++index) {
      auto at = [&](const llvm::Twine &message) {
        return llvm::createStringError(source.name + ":" +
                                       llvm::Twine(index + 1) + ": " + message);
      };
      StringRef text = texts[index].rtrim('\r');
      if (text.trim().empty())
        continue;
      ++stats.lines;
      ImportedLine line;
      line.source = sourceIndex;
      line.lineNumber = index + 1;
      if (Error err = parseLine(text, line))
        return at(llvm::toString(std::move(err)));
      if (options.expectedTarget &&
          !sameMachine(line.run.target, *options.expectedTarget))
        return at("the record was measured on another target (" +
                  line.run.target.describe() + ") than this machine (" +
                  options.expectedTarget->describe() +
                  "); import it on purpose to keep it under its own target "
                  "(tiletune import --allow-other-target)");
      llvm::SmallVector<size_t> &group =
          runs[{sourceIndex, line.exportedRunId}];
      if (!group.empty()) {
        const ImportedLine &first = lines[group.front()];
        if (!sameRun(first.run, line.run))
          return at("run " + llvm::Twine(line.exportedRunId) +
                    " is described differently on line " +
                    llvm::Twine(first.lineNumber));
        for (size_t other : group)
          if (lines[other].record.trial == line.record.trial)
            return at("trial " + llvm::Twine(line.record.trial) + " of run " +
                      llvm::Twine(line.exportedRunId) +
                      " appears again (first on line " +
                      llvm::Twine(lines[other].lineNumber) + ")");
      }
      targets.insert(line.run.target.describe());
      group.push_back(lines.size());
      lines.push_back(std::move(line));
    }
  }
  for (const auto &entry : targets)
    stats.targets.push_back(entry.getKey().str());
  llvm::sort(stats.targets);

  // 2. Write in one transaction: on any error the destructor rolls back.
  Transaction transaction(db);
  if (transaction.begin() != SQLITE_OK)
    return sqliteError("starting the import transaction");
  for (auto &[runKey, group] : runs) {
    RunInfo run = lines[group.front()].run;
    // Older exports: the run's first measurement stands for its start.
    if (!lines[group.front()].hasStartTime)
      for (size_t index : group)
        if (run.startedAt <= 0 || lines[index].record.createdAt < run.startedAt)
          run.startedAt = lines[index].record.createdAt;

    Expected<int64_t> problemId =
        findOrInsertProblem(run.problemKey, run.problemDescription);
    if (!problemId)
      return problemId.takeError();
    Expected<int64_t> targetId = findOrInsertTarget(run.target);
    if (!targetId)
      return targetId.takeError();

    Statement find(*this, "SELECT id, elapsed_seconds FROM runs WHERE "
                          "problem_id = ?1 AND target_id = ?2 AND "
                          "algorithm = ?3 AND seed = ?4 AND started_at = ?5 "
                          "ORDER BY id LIMIT 1");
    if (Error err = find.status())
      return std::move(err);
    find.bind(1, *problemId)
        .bind(2, *targetId)
        .bind(3, StringRef(run.algorithm))
        .bind(4, seedToSql(run.seed))
        .bind(5, run.startedAt);
    Expected<bool> found = find.step();
    if (!found)
      return found.takeError();
    int64_t runId = 0;
    bool existed = *found;
    double existingElapsed = 0;
    if (existed) {
      runId = find.getInt(0);
      existingElapsed = find.getDouble(1);
    } else {
      Statement insert(
          *this,
          "INSERT INTO runs(problem_id, target_id, algorithm, seed, "
          "budget_trials, budget_seconds, options, tool_version, started_at, "
          "finished_at, elapsed_seconds, status, strategy_state, "
          "result_config_key, owner) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
          "?9, ?10, ?11, ?12, '', ?13, '')");
      if (Error err = insert.status())
        return std::move(err);
      insert.bind(1, *problemId)
          .bind(2, *targetId)
          .bind(3, StringRef(run.algorithm))
          .bind(4, seedToSql(run.seed))
          .bind(5, run.budgetTrials)
          .bind(6, run.budgetSeconds)
          .bind(7, StringRef(run.options))
          .bind(8, StringRef(run.toolVersion))
          .bind(9, run.startedAt)
          .bind(10, run.finishedAt)
          .bind(11, run.elapsedSeconds)
          .bind(12, stringifyRunStatus(run.status))
          .bind(13, StringRef(run.resultConfigKey));
      if (Error err = insert.run())
        return std::move(err);
      runId = sqlite3_last_insert_rowid(db);
      ++stats.runsAdded;
    }

    int64_t added = 0;
    for (size_t index : group) {
      const ImportedLine &line = lines[index];
      const MeasurementRecord &record = line.record;
      auto at = [&](const llvm::Twine &message) {
        return llvm::createStringError(sources[line.source].name + ":" +
                                       llvm::Twine(line.lineNumber) + ": " +
                                       message);
      };
      if (existed) {
        Statement present(*this, "SELECT config_key, status FROM "
                                 "measurements WHERE run_id = ?1 AND "
                                 "trial = ?2");
        if (Error err = present.status())
          return std::move(err);
        present.bind(1, runId).bind(2, record.trial);
        Expected<bool> row = present.step();
        if (!row)
          return row.takeError();
        if (*row) {
          std::string key = present.getText(0), status = present.getText(1);
          if (key != record.configKey ||
              status != stringifyMeasureStatus(record.result.status))
            return at("trial " + llvm::Twine(record.trial) + " of this run " +
                      "is already in the database with another result (" + key +
                      ", " + status + " instead of " + record.configKey + ", " +
                      stringifyMeasureStatus(record.result.status) + ")");
          ++stats.duplicates;
          continue;
        }
      }
      Statement insert(
          *this,
          "INSERT INTO measurements(run_id, trial, role, config_key, config, "
          "status, mean_s, median_s, min_s, max_s, stddev_s, repeats, gflops, "
          "message, cost_s, created_at, relative, raw_median_s) VALUES (?1, "
          "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
          "?17, ?18)");
      if (Error err = insert.status())
        return std::move(err);
      const MeasureResult &result = record.result;
      insert.bind(1, runId)
          .bind(2, record.trial)
          .bind(3, stringifyMeasurementRole(record.role))
          .bind(4, StringRef(record.configKey))
          .bind(5, StringRef(record.config))
          .bind(6, stringifyMeasureStatus(result.status))
          .bind(12,
                static_cast<int64_t>(line.hasTime ? result.time.repeats : 0))
          .bind(14, StringRef(result.message))
          .bind(15, result.costSeconds)
          .bind(16, record.createdAt);
      if (line.hasTime)
        insert.bind(7, result.time.mean)
            .bind(8, result.time.median)
            .bind(9, result.time.min)
            .bind(10, result.time.max)
            .bind(11, result.time.stddev)
            .bind(13, result.gflops);
      else
        for (int column : {7, 8, 9, 10, 11, 13})
          insert.bindNull(column);
      if (line.hasRelative)
        insert.bind(17, result.relative);
      else
        insert.bindNull(17);
      insert.bindNull(18); // raw_median_s: NULL since schema version 3.
      if (Error err = insert.run())
        return at(llvm::toString(std::move(err)));
      ++added;
    }
    stats.measurementsAdded += added;

    // A run present here that the import continues (e.g. it was resumed on
    // the other machine after an earlier export): take its later state.
    if (existed && added > 0) {
      ++stats.runsExtended;
      if (run.elapsedSeconds > existingElapsed) {
        Statement update(*this, "UPDATE runs SET status = ?1, "
                                "finished_at = ?2, elapsed_seconds = ?3, "
                                "result_config_key = ?4 WHERE id = ?5");
        if (Error err = update.status())
          return std::move(err);
        update.bind(1, stringifyRunStatus(run.status))
            .bind(2, run.finishedAt)
            .bind(3, run.elapsedSeconds)
            .bind(4, StringRef(run.resultConfigKey))
            .bind(5, runId);
        if (Error err = update.run())
          return std::move(err);
      }
    }
  }
  if (transaction.commit() != SQLITE_OK)
    return sqliteError("committing the import");
  return stats;
}
