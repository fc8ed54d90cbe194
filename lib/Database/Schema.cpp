//===- Schema.cpp - Schema of the tuning database and its upgrades --------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The SQL schema (version 3), what opening a file checks before trusting it
// (SQLite, application id, meta table, schema version, tables), creating the
// schema in a new file, the in-place upgrades from versions 1 and 2, the
// durability
// pragmas, and SQLite's integrity check. The next migration goes here.
//
//===----------------------------------------------------------------------===//

#include "DatabaseImpl.h"
#include "SQLite.h"

#include "llvm/Support/Format.h"

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
/// The schema of version 3. Times are Unix seconds (REAL); the time
/// statistics of a measurement are NULL unless its status is 'ok', and they
/// are the variant's measured times (median, min, max, mean, stddev of its
/// samples) with `gflops` at the measured median. With paired timing,
/// `relative` is the variant's median time ratio to the reference variant
/// timed around it (NULL for variants timed alone); it ranks, it never
/// rescales the times. `raw_median_s` is always NULL since version 3
/// (version 2 kept the measured median there and rescaled the *_s
/// statistics to the run's reference speed; the upgrade restores them).
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

/// Version 2 -> 3: a paired-timed row of version 2 holds its statistics
/// rescaled to the run's reference speed and its measured median in
/// raw_median_s. Restore what was measured: the median, the other statistics
/// in their recorded proportion to it, GFLOP/s at the measured median.
constexpr const char *kRestoreMeasuredTimesSql =
    "UPDATE measurements SET mean_s = mean_s * raw_median_s / median_s, "
    "min_s = min_s * raw_median_s / median_s, "
    "max_s = max_s * raw_median_s / median_s, "
    "stddev_s = stddev_s * raw_median_s / median_s, "
    "gflops = gflops * median_s / raw_median_s, median_s = raw_median_s "
    "WHERE raw_median_s > 0 AND median_s > 0; "
    "UPDATE measurements SET raw_median_s = NULL "
    "WHERE raw_median_s IS NOT NULL; ";

/// The same restoration as a column expression, for reading a version-2 file
/// that cannot be upgraded (opened read-only).
std::string restoredColumn(StringRef column) {
  const char *when = "CASE WHEN raw_median_s > 0 AND median_s > 0 THEN ";
  if (column == "median_s")
    return std::string(when) + "raw_median_s ELSE median_s END AS median_s";
  if (column == "gflops")
    return std::string(when) +
           "gflops * median_s / raw_median_s ELSE gflops END AS gflops";
  if (column == "mean_s" || column == "min_s" || column == "max_s" ||
      column == "stddev_s")
    return (when + column + " * raw_median_s / median_s ELSE " + column +
            " END AS " + column)
        .str();
  if (column == "raw_median_s")
    return "NULL AS raw_median_s";
  return column.str();
}
} // namespace

//===----------------------------------------------------------------------===//
// Checking and creating the schema
//===----------------------------------------------------------------------===//

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
    if (userVersion < 3 && hasPairedColumns) {
      if (Error err = restoreMeasuredTimes())
        return err;
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

//===----------------------------------------------------------------------===//
// Schema version and integrity
//===----------------------------------------------------------------------===//

Expected<int64_t> TileTuneDatabase::readUserVersion() {
  Statement stmt(*this, "PRAGMA user_version");
  if (Error err = stmt.status())
    return std::move(err);
  Expected<bool> row = stmt.step();
  if (!row)
    return row.takeError();
  return stmt.getInt(0);
}

Error TileTuneDatabase::restoreMeasuredTimes() {
  if (!readOnly) {
    Transaction transaction(db);
    if (transaction.begin() != SQLITE_OK)
      return sqliteError("starting the schema upgrade");
    // Another process may have upgraded it since it was read.
    Expected<int64_t> current = readUserVersion();
    if (!current)
      return current.takeError();
    if (*current < 3)
      if (Error err = execute(std::string(kRestoreMeasuredTimesSql) +
                              "UPDATE meta SET value = '3' WHERE key = "
                              "'schema_version'; PRAGMA user_version=3"))
        return err;
    if (transaction.commit() != SQLITE_OK)
      return sqliteError("upgrading the schema to version 3");
    return Error::success();
  }
  // Read-only: a temporary view of the same name shadows the table (SQLite
  // resolves unqualified names in `temp` first) and shows measured times.
  Statement columns(*this, "PRAGMA main.table_info(measurements)");
  if (Error err = columns.status())
    return err;
  std::string select;
  while (true) {
    Expected<bool> row = columns.step();
    if (!row)
      return row.takeError();
    if (!*row)
      break;
    select += (select.empty() ? "" : ", ") + restoredColumn(columns.getText(1));
  }
  return execute("CREATE TEMP VIEW measurements AS SELECT " + select +
                 " FROM main.measurements");
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
