//===- Database.cpp - SQLite store of every tuning measurement ------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Opening a TileTuneDatabase and everything that writes to it: runs, their
// problems and targets, measurements (one committed transaction each),
// status changes, strategy checkpoints and the owner claim of a resume. The
// schema is in Schema.cpp, the SQLite plumbing in SQLite.cpp, the queries
// in Queries.cpp, BestConfig.cpp and Export.cpp. See docs/Database.md for the
// schema and the durability rules.
//
//===----------------------------------------------------------------------===//

#include "DatabaseImpl.h"
#include "SQLite.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <cmath>
#include <ctime>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Enum names
//===----------------------------------------------------------------------===//

StringRef mlir::tiletune::stringifyRunStatus(RunStatus status) {
  switch (status) {
  case RunStatus::Running:
    return "running";
  case RunStatus::Finished:
    return "finished";
  case RunStatus::Failed:
    return "failed";
  case RunStatus::Interrupted:
    return "interrupted";
  }
  return "unknown";
}

std::optional<RunStatus> mlir::tiletune::parseRunStatus(StringRef name) {
  return llvm::StringSwitch<std::optional<RunStatus>>(name)
      .Case("running", RunStatus::Running)
      .Case("finished", RunStatus::Finished)
      .Case("failed", RunStatus::Failed)
      .Case("interrupted", RunStatus::Interrupted)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

double mlir::tiletune::detail::unixNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string mlir::tiletune::detail::isoTime(double unixSeconds) {
  // No time: not positive, not a number, or after 9999-12-31 (a damaged or
  // hand-edited database); converting those to time_t is undefined.
  constexpr double kYear10000 = 253402300800.0;
  if (!(unixSeconds > 0 && unixSeconds < kYear10000))
    return "";
  time_t whole = static_cast<time_t>(std::floor(unixSeconds));
  int millis = static_cast<int>((unixSeconds - std::floor(unixSeconds)) * 1000);
  struct tm parts;
  gmtime_r(&whole, &parts);
  char buffer[32];
  strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &parts);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << buffer << '.' << llvm::format("%03d", millis) << 'Z';
  return text;
}

namespace {
/// Checks that \p text is empty or valid JSON; \p what names it in errors.
Error checkJSONText(StringRef text, StringRef what) {
  if (text.empty())
    return Error::success();
  Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::createStringError(
        "tuning database: " + what +
        " is not valid JSON: " + llvm::toString(parsed.takeError()));
  return Error::success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

TileTuneDatabase::TileTuneDatabase(sqlite3 *handle, std::string path,
                                   bool readOnly)
    : db(handle), path(std::move(path)), readOnly(readOnly) {}

TileTuneDatabase::~TileTuneDatabase() { sqlite3_close_v2(db); }

namespace {
/// `path` as an SQLite URI ("file:/abs/path"), with the characters that
/// would end or escape the path ('%', '?', '#') and control characters
/// percent-encoded.
std::string toSQLiteURI(StringRef path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  std::string uri = "file:";
  for (unsigned char c : absolute.str()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f)
      uri += llvm::formatv("%{0:X-2}", static_cast<unsigned>(c)).str();
    else
      uri += static_cast<char>(c);
  }
  return uri;
}

/// True when this process may create or write `file`: it exists and is
/// writable, or it does not exist and its directory is writable.
bool canWrite(StringRef file) {
  if (llvm::sys::fs::exists(file))
    return llvm::sys::fs::can_write(file);
  StringRef dir = llvm::sys::path::parent_path(file);
  return llvm::sys::fs::can_write(dir.empty() ? StringRef(".") : dir);
}

/// Opens `name` (a path, or a URI with SQLITE_OPEN_URI in `flags`).
Expected<sqlite3 *> openHandle(StringRef path, const std::string &name,
                               int flags) {
  sqlite3 *handle = nullptr;
  int rc = sqlite3_open_v2(name.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string reason = handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
    sqlite3_close_v2(handle);
    return llvm::createStringError("cannot open tuning database '" + path +
                                   "': " + reason);
  }
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, 10000);
  return handle;
}
} // namespace

Expected<std::unique_ptr<TileTuneDatabase>>
TileTuneDatabase::open(StringRef path, OpenMode mode, SyncMode sync) {
  if (path.empty())
    return llvm::createStringError("tuning database: empty file name");
  bool exists = llvm::sys::fs::exists(path);
  if (exists && llvm::sys::fs::is_directory(path))
    return llvm::createStringError("tuning database '" + path +
                                   "' is a directory, not a file");
  if (!exists && mode != OpenMode::CreateIfMissing)
    return llvm::createStringError("tuning database '" + path +
                                   "' does not exist");
  std::string pathText = path.str();
  bool readOnly = mode == OpenMode::ReadOnly;

  // A writer needs the file and, in WAL mode, its -wal and -shm files (which
  // SQLite creates next to it) to be writable: say so plainly instead of
  // failing on the first write.
  if (!readOnly) {
    std::string why;
    if (exists && !llvm::sys::fs::can_write(path))
      why = "the file is not writable by this user";
    else if (!canWrite(pathText + "-wal") || !canWrite(pathText + "-shm") ||
             (!exists && !canWrite(path)))
      why = "its directory is not writable by this user (SQLite keeps its "
            "journal files next to the database)";
    if (!why.empty())
      return llvm::createStringError(
          "tuning database '" + path + "' is read-only: " + why +
          "; results cannot be recorded there (read it with report, export "
          "or apply, or give a writable --db)");
  }

  int flags = SQLITE_OPEN_NOMUTEX;
  if (readOnly)
    flags |= SQLITE_OPEN_READONLY;
  else
    flags |= SQLITE_OPEN_READWRITE;
  if (mode == OpenMode::CreateIfMissing)
    flags |= SQLITE_OPEN_CREATE;
  Expected<sqlite3 *> handle = openHandle(path, pathText, flags);
  if (!handle)
    return handle.takeError();
  // SQLite opens a write-protected file read-only even when asked to write
  // (e.g. as a user other than the owner): refuse it before any work.
  if (!readOnly && sqlite3_db_readonly(*handle, "main") == 1) {
    sqlite3_close_v2(*handle);
    return llvm::createStringError(
        "tuning database '" + path +
        "' is read-only: the file is not writable by this user; results "
        "cannot be recorded there (read it with report, export or apply, or "
        "give a writable --db)");
  }
  std::unique_ptr<TileTuneDatabase> database(
      new TileTuneDatabase(*handle, pathText, readOnly));
  Error err = database->checkOrCreateSchema(sync);
  if (!err)
    return std::move(database);
  if (!readOnly)
    return std::move(err);

  // A reader of a WAL database must create its -shm (and -wal) file next to
  // it; in a directory it cannot write (a read-only copy, another user's
  // database) that fails with CANTOPEN or READONLY before anything is read.
  // Such a database is opened as immutable instead: no lock, no journal,
  // nothing written - unless a -wal file with content exists, whose results
  // an immutable reader would silently miss.
  int code = sqlite3_extended_errcode(*handle) & 0xff;
  database.reset();
  if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY)
    return std::move(err);
  uint64_t walSize = 0;
  if (!llvm::sys::fs::file_size(pathText + "-wal", walSize) && walSize > 0) {
    return llvm::joinErrors(
        std::move(err),
        llvm::createStringError(
            "tuning database '" + path +
            "' cannot be read without writing next to it: its write-ahead "
            "log '" +
            pathText +
            "-wal' holds results not yet in the main file; open it once as "
            "a user who can write its directory (e.g. `tiletune report`)"));
  }
  llvm::consumeError(std::move(err));
  Expected<sqlite3 *> immutable =
      openHandle(path, toSQLiteURI(path) + "?immutable=1",
                 SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  if (!immutable)
    return immutable.takeError();
  database.reset(new TileTuneDatabase(*immutable, pathText, readOnly));
  if (Error err = database->checkOrCreateSchema(sync))
    return std::move(err);
  return std::move(database);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

Expected<std::optional<int64_t>>
TileTuneDatabase::lookupTargetId(const TargetInfo &target) {
  Statement stmt(*this, "SELECT id FROM targets WHERE key = ?1");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, StringRef(target.key()));
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return std::nullopt;
  return stmt.getInt(0);
}

Expected<std::optional<int64_t>>
TileTuneDatabase::lookupProblemId(StringRef key) {
  Statement stmt(*this, "SELECT id FROM problems WHERE key = ?1");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, key);
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  if (!*row)
    return std::nullopt;
  return stmt.getInt(0);
}

Expected<int64_t> TileTuneDatabase::findOrInsertTarget(const TargetInfo &t) {
  Expected<std::optional<int64_t>> existing = lookupTargetId(t);
  if (!existing)
    return existing.takeError();
  if (*existing)
    return **existing;
  Statement stmt(*this, "INSERT INTO targets(key, kind, model, features, "
                        "threads, toolchain) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, StringRef(t.key()))
      .bind(2, StringRef(t.kind))
      .bind(3, StringRef(t.model))
      .bind(4, StringRef(t.features))
      .bind(5, static_cast<int64_t>(t.threads))
      .bind(6, StringRef(t.toolchain));
  if (Error err = stmt.run())
    return std::move(err);
  return sqlite3_last_insert_rowid(db);
}

Expected<int64_t> TileTuneDatabase::findOrInsertProblem(StringRef key,
                                                        StringRef description) {
  Expected<std::optional<int64_t>> existing = lookupProblemId(key);
  if (!existing)
    return existing.takeError();
  if (*existing) {
    // Keep the first description; fill it in if it was recorded empty.
    if (!description.empty()) {
      Statement stmt(*this, "UPDATE problems SET description = ?1 "
                            "WHERE id = ?2 AND description = ''");
      if (Error err = stmt.status())
        return std::move(err);
      stmt.bind(1, description).bind(2, **existing);
      if (Error err = stmt.run())
        return std::move(err);
    }
    return **existing;
  }
  Statement stmt(*this,
                 "INSERT INTO problems(key, description) VALUES (?1, ?2)");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, key).bind(2, description);
  if (Error err = stmt.run())
    return std::move(err);
  return sqlite3_last_insert_rowid(db);
}

Error TileTuneDatabase::recordRun(RunInfo &run) {
  if (run.problemKey.empty())
    return llvm::createStringError(
        "tuning database: a run needs a problem key");
  if (run.algorithm.empty())
    return llvm::createStringError("tuning database: a run needs an algorithm");
  if (Error err = checkJSONText(run.problemDescription, "problem description"))
    return err;
  if (Error err = checkJSONText(run.options, "run options"))
    return err;
  if (run.startedAt == 0)
    run.startedAt = unixNow();
  if (run.toolVersion.empty())
    run.toolVersion = getTileTuneVersion().str();

  Transaction transaction(db);
  if (transaction.begin() != SQLITE_OK)
    return sqliteError("starting a transaction");
  Expected<int64_t> problemId =
      findOrInsertProblem(run.problemKey, run.problemDescription);
  if (!problemId)
    return problemId.takeError();
  Expected<int64_t> targetId = findOrInsertTarget(run.target);
  if (!targetId)
    return targetId.takeError();
  Statement stmt(*this,
                 "INSERT INTO runs(problem_id, target_id, algorithm, seed, "
                 "budget_trials, budget_seconds, options, tool_version, "
                 "started_at, finished_at, elapsed_seconds, status, "
                 "strategy_state, result_config_key, owner) VALUES (?1, ?2, "
                 "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  if (Error err = stmt.status())
    return err;
  stmt.bind(1, *problemId)
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
      .bind(13, StringRef(run.strategyState))
      .bind(14, StringRef(run.resultConfigKey))
      .bind(15, StringRef(run.owner));
  if (Error err = stmt.run())
    return err;
  run.id = sqlite3_last_insert_rowid(db);
  if (transaction.commit() != SQLITE_OK)
    return sqliteError("committing a new run");
  return Error::success();
}

Error TileTuneDatabase::recordMeasurement(MeasurementRecord &record,
                                          double runElapsedSeconds) {
  if (record.configKey.empty())
    return llvm::createStringError(
        "tuning database: a measurement needs a config key");
  if (Error err = checkJSONText(record.config, "config"))
    return err;
  if (record.result.ok()) {
    const TimeStats &t = record.result.time;
    for (double value :
         {t.mean, t.median, t.min, t.max, t.stddev, record.result.gflops})
      if (!std::isfinite(value) || value < 0)
        return llvm::createStringError(
            "tuning database: an ok measurement of '" + record.configKey +
            "' has a negative or non-finite time statistic or GFLOP/s");
  }
  record.createdAt = unixNow();

  Transaction transaction(db);
  if (transaction.begin() != SQLITE_OK)
    return sqliteError("starting a transaction");
  Statement stmt(*this,
                 "INSERT INTO measurements(run_id, trial, role, config_key, "
                 "config, status, mean_s, median_s, min_s, max_s, stddev_s, "
                 "repeats, gflops, message, cost_s, created_at, relative, "
                 "raw_median_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                 "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
  if (Error err = stmt.status())
    return err;
  const MeasureResult &result = record.result;
  stmt.bind(1, record.runId)
      .bind(2, record.trial)
      .bind(3, stringifyMeasurementRole(record.role))
      .bind(4, StringRef(record.configKey))
      .bind(5, StringRef(record.config))
      .bind(6, stringifyMeasureStatus(result.status));
  if (result.ok()) {
    stmt.bind(7, result.time.mean)
        .bind(8, result.time.median)
        .bind(9, result.time.min)
        .bind(10, result.time.max)
        .bind(11, result.time.stddev)
        .bind(13, result.gflops);
  } else {
    for (int index : {7, 8, 9, 10, 11, 13})
      stmt.bindNull(index);
  }
  if (result.ok() && result.relative > 0)
    stmt.bind(17, result.relative);
  else
    stmt.bindNull(17);
  stmt.bindNull(18); // raw_median_s: unused since schema version 3
  stmt.bind(12, static_cast<int64_t>(result.ok() ? result.time.repeats : 0))
      .bind(14, StringRef(result.message))
      .bind(15, result.costSeconds)
      .bind(16, record.createdAt);
  if (Error err = stmt.run())
    return err;
  Statement update(*this, "UPDATE runs SET elapsed_seconds = ?1 WHERE id = ?2");
  if (Error err = update.status())
    return err;
  update.bind(1, runElapsedSeconds).bind(2, record.runId);
  if (Error err = update.run())
    return err;
  if (transaction.commit() != SQLITE_OK)
    return sqliteError("committing a measurement");
  return Error::success();
}

Error TileTuneDatabase::updateRunStatus(int64_t runId, RunStatus status,
                                        double elapsedSeconds,
                                        StringRef resultConfigKey) {
  Statement stmt(*this, "UPDATE runs SET status = ?1, elapsed_seconds = ?2, "
                        "finished_at = ?3, result_config_key = ?4 "
                        "WHERE id = ?5");
  if (Error err = stmt.status())
    return err;
  stmt.bind(1, stringifyRunStatus(status))
      .bind(2, elapsedSeconds)
      .bind(3, status == RunStatus::Running ? 0.0 : unixNow())
      .bind(4, resultConfigKey)
      .bind(5, runId);
  if (Error err = stmt.run())
    return err;
  if (sqlite3_changes(db) != 1)
    return llvm::createStringError("tuning database '" + path +
                                   "': no run with id " + llvm::Twine(runId));
  return Error::success();
}

Error TileTuneDatabase::saveStrategyState(int64_t runId, StringRef state) {
  Statement stmt(*this, "UPDATE runs SET strategy_state = ?1 WHERE id = ?2");
  if (Error err = stmt.status())
    return err;
  stmt.bind(1, state).bind(2, runId);
  if (Error err = stmt.run())
    return err;
  if (sqlite3_changes(db) != 1)
    return llvm::createStringError("tuning database '" + path +
                                   "': no run with id " + llvm::Twine(runId));
  return Error::success();
}

Expected<bool> TileTuneDatabase::claimRun(int64_t runId,
                                          StringRef expectedOwner,
                                          StringRef newOwner) {
  Statement stmt(*this,
                 "UPDATE runs SET owner = ?1 WHERE id = ?2 AND owner = ?3");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, newOwner).bind(2, runId).bind(3, expectedOwner);
  if (Error err = stmt.run())
    return std::move(err);
  return sqlite3_changes(db) == 1;
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
