//===- Database.cpp - SQLite store of every tuning measurement ------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Implementation of TileTuneDatabase on the SQLite C API. All SQL lives in
// this file; see docs/Database.md for the schema and the durability rules.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Database/Database.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <sqlite3.h>

#include <cerrno>
#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>

using namespace mlir::tiletune;
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

namespace {
/// The schema of version 2. Times are Unix seconds (REAL); the time
/// statistics of a measurement are NULL unless its status is 'ok'. With
/// paired timing, `relative` is the variant's median time ratio to the
/// reference variant timed around it and `raw_median_s` its measured median
/// (the *_s statistics are then normalized to the run's reference speed);
/// both are NULL for variants timed alone.
constexpr const char *kSchemaSql = R"sql(
CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE targets(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  model TEXT NOT NULL,
  features TEXT NOT NULL,
  threads INTEGER NOT NULL,
  toolchain TEXT NOT NULL
);
CREATE TABLE problems(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT ''
);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  problem_id INTEGER NOT NULL REFERENCES problems(id),
  target_id INTEGER NOT NULL REFERENCES targets(id),
  algorithm TEXT NOT NULL,
  seed INTEGER NOT NULL,
  budget_trials INTEGER NOT NULL DEFAULT 0,
  budget_seconds REAL NOT NULL DEFAULT 0,
  options TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL,
  started_at REAL NOT NULL,
  finished_at REAL NOT NULL DEFAULT 0,
  elapsed_seconds REAL NOT NULL DEFAULT 0,
  status TEXT NOT NULL
    CHECK(status IN ('running', 'finished', 'failed', 'interrupted')),
  strategy_state TEXT NOT NULL DEFAULT '',
  result_config_key TEXT NOT NULL DEFAULT '',
  owner TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_search ON runs(problem_id, target_id, algorithm, seed);
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  trial INTEGER NOT NULL,
  role TEXT NOT NULL CHECK(role IN ('default', 'search', 'final')),
  config_key TEXT NOT NULL,
  config TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('ok', 'invalid', 'compile_error',
                                        'runtime_error', 'wrong_result',
                                        'timeout')),
  mean_s REAL,
  median_s REAL,
  min_s REAL,
  max_s REAL,
  stddev_s REAL,
  repeats INTEGER NOT NULL DEFAULT 0,
  gflops REAL,
  message TEXT NOT NULL DEFAULT '',
  cost_s REAL NOT NULL DEFAULT 0,
  created_at REAL NOT NULL,
  relative REAL,
  raw_median_s REAL,
  UNIQUE(run_id, trial)
);
CREATE INDEX measurements_by_config ON measurements(run_id, config_key);
)sql";

constexpr const char *kToolName = "tiletune";

double unixNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// "2025-01-31T12:34:56.789Z" for a Unix time in seconds.
std::string isoTime(double unixSeconds) {
  if (unixSeconds <= 0)
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

/// The JSON value of stored JSON text; the text as a string when it does not
/// parse (so that an export never fails on one bad row), null when empty.
llvm::json::Value jsonOrString(StringRef text) {
  if (text.empty())
    return nullptr;
  Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    return std::move(*parsed);
  llvm::consumeError(parsed.takeError());
  return text.str();
}

/// A JSON number, or null for a value JSON cannot express (inf, NaN).
llvm::json::Value number(double value) {
  if (!std::isfinite(value))
    return nullptr;
  return value;
}

int64_t seedToSql(uint64_t seed) {
  int64_t value;
  memcpy(&value, &seed, sizeof(value));
  return value;
}

uint64_t seedFromSql(int64_t value) {
  uint64_t seed;
  memcpy(&seed, &value, sizeof(seed));
  return seed;
}
} // namespace

//===----------------------------------------------------------------------===//
// Statement: a prepared statement with typed binds and columns
//===----------------------------------------------------------------------===//

class TileTuneDatabase::Statement {
public:
  Statement(TileTuneDatabase &owner, StringRef sql) : owner(owner) {
    rc = sqlite3_prepare_v2(owner.db, sql.data(), static_cast<int>(sql.size()),
                            &stmt, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  /// The error of preparing the statement, if any.
  Error status() const {
    if (rc == SQLITE_OK)
      return Error::success();
    return owner.sqliteError("preparing a query");
  }

  Statement &bind(int index, int64_t value) {
    note(sqlite3_bind_int64(stmt, index, value));
    return *this;
  }
  Statement &bind(int index, double value) {
    note(sqlite3_bind_double(stmt, index, value));
    return *this;
  }
  Statement &bind(int index, StringRef value) {
    // A null data pointer would bind SQL NULL; an empty StringRef is "".
    note(sqlite3_bind_text(stmt, index, value.data() ? value.data() : "",
                           static_cast<int>(value.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement &bindNull(int index) {
    note(sqlite3_bind_null(stmt, index));
    return *this;
  }

  /// Advances: true when a row is available, false when done.
  Expected<bool> step() {
    if (rc != SQLITE_OK)
      return owner.sqliteError("binding query parameters");
    int result = sqlite3_step(stmt);
    if (result == SQLITE_ROW)
      return true;
    if (result == SQLITE_DONE)
      return false;
    return owner.sqliteError("running a query");
  }

  /// Runs a statement that returns no rows (or ignores them).
  Error run() {
    while (true) {
      Expected<bool> row = step();
      if (!row)
        return row.takeError();
      if (!*row)
        return Error::success();
    }
  }

  bool isNull(int col) { return sqlite3_column_type(stmt, col) == SQLITE_NULL; }
  int64_t getInt(int col) { return sqlite3_column_int64(stmt, col); }
  double getDouble(int col) { return sqlite3_column_double(stmt, col); }
  std::string getText(int col) {
    const unsigned char *text = sqlite3_column_text(stmt, col);
    int size = sqlite3_column_bytes(stmt, col);
    return text ? std::string(reinterpret_cast<const char *>(text), size) : "";
  }

private:
  void note(int result) {
    if (rc == SQLITE_OK)
      rc = result;
  }

  TileTuneDatabase &owner;
  sqlite3_stmt *stmt = nullptr;
  int rc = SQLITE_OK;
};

namespace {
/// BEGIN IMMEDIATE ... COMMIT; rolls back when not committed.
class Transaction {
public:
  explicit Transaction(sqlite3 *db) : db(db) {}
  ~Transaction() {
    if (active)
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  int begin() {
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    active = rc == SQLITE_OK;
    return rc;
  }
  int commit() {
    int rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK)
      active = false;
    return rc;
  }

private:
  sqlite3 *db;
  bool active = false;
};
} // namespace

//===----------------------------------------------------------------------===//
// Opening and schema
//===----------------------------------------------------------------------===//

TileTuneDatabase::TileTuneDatabase(sqlite3 *handle, std::string path,
                                   bool readOnly)
    : db(handle), path(std::move(path)), readOnly(readOnly) {}

TileTuneDatabase::~TileTuneDatabase() { sqlite3_close_v2(db); }

Error TileTuneDatabase::sqliteError(StringRef what) const {
  int code = sqlite3_extended_errcode(db);
  std::string hint;
  int primary = code & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
    hint = " (the file is corrupt or not a TileTune database)";
  else if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    hint = " (another process holds the database lock)";
  else if (primary == SQLITE_READONLY)
    hint = " (the database is read-only)";
  return llvm::createStringError("tuning database '" + path + "': " + what +
                                 " failed: " + sqlite3_errmsg(db) + hint);
}

Error TileTuneDatabase::execute(StringRef sql) {
  std::string text = sql.str();
  char *message = nullptr;
  int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK)
    return Error::success();
  std::string reason = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  std::string hint;
  if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
    hint = " (the file is corrupt or not a TileTune database)";
  return llvm::createStringError("tuning database '" + path + "': " + reason +
                                 hint);
}

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

  int flags = SQLITE_OPEN_NOMUTEX;
  if (mode == OpenMode::ReadOnly)
    flags |= SQLITE_OPEN_READONLY;
  else
    flags |= SQLITE_OPEN_READWRITE;
  if (mode == OpenMode::CreateIfMissing)
    flags |= SQLITE_OPEN_CREATE;
  sqlite3 *handle = nullptr;
  std::string pathText = path.str();
  int rc = sqlite3_open_v2(pathText.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string reason = handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
    sqlite3_close_v2(handle);
    return llvm::createStringError("cannot open tuning database '" + path +
                                   "': " + reason);
  }
  sqlite3_extended_result_codes(handle, 1);
  sqlite3_busy_timeout(handle, 10000);
  std::unique_ptr<TileTuneDatabase> database(
      new TileTuneDatabase(handle, pathText, mode == OpenMode::ReadOnly));
  if (Error err = database->checkOrCreateSchema(sync))
    return std::move(err);
  return std::move(database);
}

Error TileTuneDatabase::checkOrCreateSchema(SyncMode sync) {
  auto notOurs = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        "'" + path + "' is not a TileTune tuning database: " + why);
  };

  // The first read of the file: a file that is not SQLite fails here.
  int64_t applicationId = 0, userVersion = 0, numObjects = 0;
  {
    Statement stmt(*this, "PRAGMA application_id");
    Error prepared = stmt.status();
    bool readable = !prepared;
    llvm::consumeError(std::move(prepared));
    if (readable) {
      Expected<bool> row = stmt.step();
      readable = row && *row;
      if (!row)
        llvm::consumeError(row.takeError());
    }
    if (!readable)
      return notOurs(llvm::Twine("cannot read it as SQLite (") +
                     sqlite3_errmsg(db) + ")");
    applicationId = stmt.getInt(0);
  }
  {
    Expected<int64_t> version = readUserVersion();
    if (!version)
      return version.takeError();
    userVersion = *version;
  }
  {
    Statement stmt(*this, "SELECT count(*) FROM sqlite_master");
    if (Error err = stmt.status()) {
      llvm::consumeError(std::move(err));
      return notOurs(llvm::Twine("cannot read its schema (") +
                     sqlite3_errmsg(db) + ")");
    }
    Expected<bool> row = stmt.step();
    if (!row) {
      llvm::consumeError(row.takeError());
      return notOurs(llvm::Twine("cannot read its schema (") +
                     sqlite3_errmsg(db) + ")");
    }
    numObjects = stmt.getInt(0);
  }

  if (applicationId == 0 && userVersion == 0 && numObjects == 0) {
    // A new, empty file: create the schema.
    if (readOnly)
      return notOurs("the file is empty");
    if (Error err = execute("PRAGMA journal_mode=WAL"))
      return err;
    Transaction transaction(db);
    if (transaction.begin() != SQLITE_OK)
      return sqliteError("starting the schema transaction");
    if (Error err = execute(kSchemaSql))
      return err;
    Statement meta(*this, "INSERT INTO meta(key, value) VALUES "
                          "('tool', ?1), ('schema_version', ?2), "
                          "('created_by', ?3), ('created_at', ?4)");
    if (Error err = meta.status())
      return err;
    meta.bind(1, StringRef(kToolName))
        .bind(2, StringRef(std::to_string(kSchemaVersion)))
        .bind(3, StringRef(("tiletune " + getTileTuneVersion()).str()))
        .bind(4, StringRef(isoTime(unixNow())));
    if (Error err = meta.run())
      return err;
    if (Error err =
            execute("PRAGMA application_id=" + std::to_string(kApplicationId)))
      return err;
    if (Error err =
            execute("PRAGMA user_version=" + std::to_string(kSchemaVersion)))
      return err;
    if (transaction.commit() != SQLITE_OK)
      return sqliteError("creating the schema");
  } else {
    if (applicationId != kApplicationId) {
      std::string what;
      llvm::raw_string_ostream os(what);
      os << "it is an SQLite database of another application (application_id "
         << llvm::format_hex(static_cast<uint32_t>(applicationId), 10)
         << ", expected "
         << llvm::format_hex(static_cast<uint32_t>(kApplicationId), 10) << ", "
         << numObjects << " schema objects)";
      return notOurs(what);
    }
    // Our application id: check the meta table and the schema version.
    Statement tool(*this, "SELECT value FROM meta WHERE key = 'tool'");
    if (Error err = tool.status()) {
      llvm::consumeError(std::move(err));
      return notOurs("its 'meta' table is missing (corrupt file?)");
    }
    Expected<bool> row = tool.step();
    if (!row)
      return row.takeError();
    if (!*row || tool.getText(0) != kToolName)
      return notOurs("its 'meta' table does not name the tool 'tiletune'");
    if (userVersion > kSchemaVersion)
      return llvm::createStringError(
          "tuning database '" + path + "' has schema version " +
          llvm::Twine(userVersion) +
          ", written by a newer TileTune; this build reads version " +
          llvm::Twine(kSchemaVersion));
    if (userVersion < 1)
      return notOurs("its schema version " + llvm::Twine(userVersion) +
                     " is invalid (corrupt file?)");
    for (StringRef table : {"targets", "problems", "runs", "measurements"}) {
      Statement exists(*this, "SELECT 1 FROM sqlite_master WHERE type = "
                              "'table' AND name = ?1");
      if (Error err = exists.status())
        return err;
      exists.bind(1, table);
      Expected<bool> found = exists.step();
      if (!found)
        return found.takeError();
      if (!*found)
        return notOurs("table '" + table + "' is missing (corrupt file?)");
    }
    if (!readOnly)
      if (Error err = execute("PRAGMA journal_mode=WAL"))
        return err;
    if (userVersion < 2) {
      // Version 1 lacks the paired-timing columns: add them (both NULL for
      // what was recorded before), or read without them.
      if (readOnly) {
        hasPairedColumns = false;
      } else {
        Transaction transaction(db);
        if (transaction.begin() != SQLITE_OK)
          return sqliteError("starting the schema upgrade");
        // Another process may have upgraded it since it was read above.
        Expected<int64_t> current = readUserVersion();
        if (!current)
          return current.takeError();
        if (*current < 2)
          if (Error err = execute(
                "ALTER TABLE measurements ADD COLUMN relative REAL; "
                "ALTER TABLE measurements ADD COLUMN raw_median_s REAL; "
                "UPDATE meta SET value = '2' WHERE key = 'schema_version'; "
                "PRAGMA user_version=2"))
            return err;
        if (transaction.commit() != SQLITE_OK)
          return sqliteError("upgrading the schema to version 2");
      }
    }
  }
  // Durability: in WAL mode a committed transaction is in the WAL file when
  // COMMIT returns (so it survives the death of this process); with
  // synchronous=FULL it has also been fsync'ed (so it survives a power loss).
  if (Error err =
          execute(sync == SyncMode::Full
                      ? "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON"
                      : "PRAGMA synchronous=NORMAL; "
                        "PRAGMA foreign_keys=ON"))
    return err;
  return Error::success();
}

Expected<int64_t> TileTuneDatabase::readUserVersion() {
  Statement stmt(*this, "PRAGMA user_version");
  if (Error err = stmt.status())
    return std::move(err);
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  return stmt.getInt(0);
}

StringRef TileTuneDatabase::pairedColumns() const {
  return hasPairedColumns ? "m.relative, m.raw_median_s" : "NULL, NULL";
}

Error TileTuneDatabase::verifyIntegrity() {
  Statement stmt(*this, "PRAGMA quick_check");
  if (Error err = stmt.status())
    return err;
  std::string problems;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    std::string line = stmt.getText(0);
    if (line != "ok")
      problems += (problems.empty() ? "" : "; ") + line;
  }
  if (problems.empty())
    return Error::success();
  return llvm::createStringError("tuning database '" + path +
                                 "' is corrupt: " + problems);
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
  if (result.ok() && result.rawSeconds > 0)
    stmt.bind(18, result.rawSeconds);
  else
    stmt.bindNull(18);
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

//===----------------------------------------------------------------------===//
// Run owners
//===----------------------------------------------------------------------===//

/// Field 22 of /proc/<pid>/stat (start time in clock ticks after boot), or
/// "" where it cannot be read.
static std::string processStartTime(int64_t pid) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(
      "/proc/" + std::to_string(pid) + "/stat");
  if (!buffer)
    return "";
  // The command name (field 2) is parenthesised and may contain spaces.
  StringRef text = (*buffer)->getBuffer();
  size_t close = text.rfind(')');
  if (close == StringRef::npos)
    return "";
  llvm::SmallVector<StringRef> fields;
  text.drop_front(close + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  // fields[0] is field 3 (state); field 22 is fields[19].
  return fields.size() > 19 ? fields[19].str() : "";
}

static std::string hostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0)
    return "unknown-host";
  return name;
}

std::string mlir::tiletune::getCurrentRunOwner() {
  int64_t pid = getpid();
  return hostName() + ":" + std::to_string(pid) + ":" + processStartTime(pid);
}

std::optional<bool> mlir::tiletune::isRunOwnerAlive(StringRef owner) {
  auto [host, rest] = owner.split(':');
  auto [pidText, startTime] = rest.split(':');
  int64_t pid = 0;
  if (owner.empty() || pidText.getAsInteger(10, pid) || pid <= 0)
    return false;
  if (host != hostName())
    return std::nullopt;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)
    return false;
  // The pid is in use; it is the owner only if it started at the same time
  // (pids are reused).
  std::string current = processStartTime(pid);
  if (!startTime.empty() && !current.empty())
    return current == startTime;
  return true;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// The columns every run query selects, in the order readRunRow expects.
static constexpr const char *kRunColumns =
    "r.id, p.key, p.description, t.kind, t.model, t.features, t.threads, "
    "t.toolchain, r.algorithm, r.seed, r.budget_trials, r.budget_seconds, "
    "r.options, r.tool_version, r.started_at, r.finished_at, "
    "r.elapsed_seconds, r.status, r.strategy_state, r.result_config_key, "
    "r.owner";
static constexpr const char *kRunJoins =
    " FROM runs r JOIN problems p ON p.id = r.problem_id "
    "JOIN targets t ON t.id = r.target_id ";

Expected<RunInfo> TileTuneDatabase::readRunRow(Statement &stmt) {
  RunInfo run;
  run.id = stmt.getInt(0);
  run.problemKey = stmt.getText(1);
  run.problemDescription = stmt.getText(2);
  run.target.kind = stmt.getText(3);
  run.target.model = stmt.getText(4);
  run.target.features = stmt.getText(5);
  run.target.threads = static_cast<unsigned>(stmt.getInt(6));
  run.target.toolchain = stmt.getText(7);
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

Expected<llvm::SmallVector<MeasurementRecord, 0>>
TileTuneDatabase::measurementsOfRun(int64_t runId) {
  Statement stmt(*this,
                 "SELECT m.trial, m.role, m.config_key, m.config, m.status, "
                 "m.mean_s, m.median_s, m.min_s, m.max_s, m.stddev_s, "
                 "m.repeats, m.gflops, m.message, m.cost_s, m.created_at, " +
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
    MeasurementRecord record;
    record.runId = runId;
    record.trial = stmt.getInt(0);
    std::string role = stmt.getText(1);
    std::string status = stmt.getText(4);
    std::optional<MeasurementRole> parsedRole = parseMeasurementRole(role);
    std::optional<MeasureStatus> parsedStatus = parseMeasureStatus(status);
    if (!parsedRole || !parsedStatus)
      return llvm::createStringError(
          "tuning database '" + path + "': measurement " +
          llvm::Twine(record.trial) + " of run " + llvm::Twine(runId) +
          " has an unknown role or status ('" + role + "', '" + status + "')");
    record.role = *parsedRole;
    record.configKey = stmt.getText(2);
    record.config = stmt.getText(3);
    MeasureResult &result = record.result;
    result.status = *parsedStatus;
    if (!stmt.isNull(6)) {
      result.time.mean = stmt.getDouble(5);
      result.time.median = stmt.getDouble(6);
      result.time.min = stmt.getDouble(7);
      result.time.max = stmt.getDouble(8);
      result.time.stddev = stmt.getDouble(9);
      result.gflops = stmt.getDouble(11);
      if (!stmt.isNull(15))
        result.relative = stmt.getDouble(15);
      if (!stmt.isNull(16))
        result.rawSeconds = stmt.getDouble(16);
    }
    result.time.repeats = static_cast<unsigned>(stmt.getInt(10));
    result.message = stmt.getText(12);
    result.costSeconds = stmt.getDouble(13);
    record.createdAt = stmt.getDouble(14);
    records.push_back(std::move(record));
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
    candidate.time.mean = stmt.getDouble(4);
    candidate.time.median = seconds;
    candidate.time.min = stmt.getDouble(6);
    candidate.time.max = stmt.getDouble(7);
    candidate.time.stddev = stmt.getDouble(8);
    candidate.time.repeats = static_cast<unsigned>(stmt.getInt(9));
    candidate.gflops = stmt.getDouble(10);
    best = std::move(candidate);
  }
  return best;
}

namespace {
/// The condition selecting a finished run's result measurement (its latest
/// Ok measurement, i.e. the final re-measurement when there was one).
constexpr const char *kFinishedResultWhere =
    "r.status = 'finished' AND r.result_config_key != '' AND "
    "m.config_key = r.result_config_key AND m.trial = (SELECT MAX(m2.trial) "
    "FROM measurements m2 WHERE m2.run_id = r.id AND m2.config_key = "
    "r.result_config_key AND m2.status = 'ok')";
/// The condition selecting every Ok measurement of a run without a result.
constexpr const char *kOpenRunWhere =
    "(r.status != 'finished' OR r.result_config_key = '')";
} // namespace

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
  Statement stmt(*this, "SELECT DISTINCT t.id, t.kind, t.model, t.features, "
                        "t.threads, t.toolchain FROM targets t JOIN runs r ON "
                        "r.target_id = t.id WHERE r.problem_id = ?1 AND "
                        "t.kind = ?2");
  if (Error err = stmt.status())
    return std::move(err);
  stmt.bind(1, **problemId).bind(2, StringRef(target.kind));
  struct Candidate {
    int64_t id;
    TargetInfo target;
    int score;
  };
  llvm::SmallVector<Candidate> candidates;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    Candidate c;
    c.id = stmt.getInt(0);
    c.target.kind = stmt.getText(1);
    c.target.model = stmt.getText(2);
    c.target.features = stmt.getText(3);
    c.target.threads = static_cast<unsigned>(stmt.getInt(4));
    c.target.toolchain = stmt.getText(5);
    if (*targetId && c.id == **targetId)
      continue;
    c.score = (c.target.model == target.model ? 4 : 0) +
              (c.target.features == target.features ? 2 : 0) +
              (c.target.toolchain == target.toolchain ? 1 : 0);
    candidates.push_back(std::move(c));
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const Candidate &a, const Candidate &b) {
              if (a.score != b.score)
                return a.score > b.score;
              auto distance = [&](const Candidate &c) {
                return std::abs(static_cast<int64_t>(c.target.threads) -
                                static_cast<int64_t>(target.threads));
              };
              if (distance(a) != distance(b))
                return distance(a) < distance(b);
              return a.id < b.id;
            });
  for (Candidate &candidate : candidates) {
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

Expected<llvm::SmallVector<ReportRow, 0>>
TileTuneDatabase::report(const TargetInfo *target) {
  Statement groups(*this,
                   "SELECT p.key, r.problem_id, r.target_id, t.kind, t.model, "
                   "t.features, t.threads, t.toolchain, r.algorithm, "
                   "COUNT(*), SUM(r.elapsed_seconds) FROM runs r JOIN "
                   "problems p ON p.id = r.problem_id JOIN targets t ON t.id "
                   "= r.target_id WHERE ?1 = '' OR t.key = ?1 GROUP BY "
                   "r.problem_id, r.target_id, r.algorithm ORDER BY p.key, "
                   "t.key, r.algorithm");
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
    report.target.kind = groups.getText(3);
    report.target.model = groups.getText(4);
    report.target.features = groups.getText(5);
    report.target.threads = static_cast<unsigned>(groups.getInt(6));
    report.target.toolchain = groups.getText(7);
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

    // The default config's best time over all its measurements: the first
    // one and the re-measurement at the end of a run. The best config's
    // time is a minimum over the same kinds of measurements, so a run whose
    // winner is the default reports 1.00x instead of measurement noise.
    Statement defaults(
        *this, "SELECT MIN(m.median_s), m.gflops FROM measurements m JOIN "
               "runs r ON r.id = m.run_id WHERE r.problem_id = ?1 AND "
               "r.target_id = ?2 AND r.algorithm = ?3 AND m.status = 'ok' "
               "AND m.role != 'search' AND m.config_key IN (SELECT "
               "d.config_key FROM measurements d JOIN runs dr ON dr.id = "
               "d.run_id WHERE dr.problem_id = ?1 AND dr.target_id = ?2 AND "
               "dr.algorithm = ?3 AND d.role = 'default')");
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

Error TileTuneDatabase::exportJSONL(llvm::raw_ostream &os) {
  Statement stmt(*this,
                 std::string("SELECT ") + kRunColumns +
                     ", m.trial, m.role, m.config_key, m.config, m.status, "
                     "m.mean_s, m.median_s, m.min_s, m.max_s, m.stddev_s, "
                     "m.repeats, m.gflops, m.message, m.cost_s, m.created_at, " +
                     pairedColumns().str() + kRunJoins +
                     "JOIN measurements m ON m.run_id = r.id "
                     "ORDER BY r.id, m.trial");
  if (Error err = stmt.status())
    return err;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return Error::success();
    Expected<RunInfo> run = readRunRow(stmt);
    if (!run)
      return run.takeError();
    constexpr int m = 21; // First measurement column.
    llvm::json::Object line{
        {"run", run->id},
        {"problem", run->problemKey},
        {"target", run->target.toJSON()},
        {"algorithm", run->algorithm},
        {"seed", run->seed},
        {"run_status", stringifyRunStatus(run->status)},
        {"tool_version", run->toolVersion},
        {"trial", stmt.getInt(m)},
        {"role", stmt.getText(m + 1)},
        {"config_key", stmt.getText(m + 2)},
        {"config", jsonOrString(stmt.getText(m + 3))},
        {"status", stmt.getText(m + 4)},
        {"message", stmt.getText(m + 12)},
        {"cost_seconds", number(stmt.getDouble(m + 13))},
        {"timestamp", isoTime(stmt.getDouble(m + 14))},
    };
    if (!stmt.isNull(m + 6)) {
      line["time"] =
          llvm::json::Object{{"mean", number(stmt.getDouble(m + 5))},
                             {"median", number(stmt.getDouble(m + 6))},
                             {"min", number(stmt.getDouble(m + 7))},
                             {"max", number(stmt.getDouble(m + 8))},
                             {"stddev", number(stmt.getDouble(m + 9))},
                             {"repeats", stmt.getInt(m + 10)}};
      line["gflops"] = number(stmt.getDouble(m + 11));
      if (!stmt.isNull(m + 15))
        line["paired"] =
            llvm::json::Object{{"relative", number(stmt.getDouble(m + 15))},
                               {"raw_median", number(stmt.getDouble(m + 16))}};
    } else {
      line["time"] = nullptr;
      line["gflops"] = nullptr;
    }
    os << llvm::json::Value(std::move(line)) << '\n';
  }
}
