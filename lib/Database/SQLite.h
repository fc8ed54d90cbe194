//===- SQLite.h - SQLite plumbing of the tuning database --------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The thin layer over the SQLite C API that the rest of TileTuneDatabase is
// written in (private to lib/Database): a prepared statement with typed
// binds and columns and decoders of the column groups that several queries
// select (a target, a set of time statistics), and an immediate transaction
// that rolls back unless committed.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_DATABASE_SQLITE_H
#define TILETUNE_LIB_DATABASE_SQLITE_H

#include "tiletune/Database/Database.h"

#include <sqlite3.h>

#include <string>

namespace mlir {
namespace tiletune {

/// A prepared statement with typed binds and columns, and decoders of the
/// column groups several queries select. Bind errors are kept and reported
/// by the next step(); the statement is finalized on destruction.
class TileTuneDatabase::Statement {
public:
  Statement(TileTuneDatabase &owner, llvm::StringRef sql);
  ~Statement() { sqlite3_finalize(stmt); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  /// The error of preparing the statement, if any.
  llvm::Error status() const;

  Statement &bind(int index, int64_t value) {
    note(sqlite3_bind_int64(stmt, index, value));
    return *this;
  }
  Statement &bind(int index, double value) {
    note(sqlite3_bind_double(stmt, index, value));
    return *this;
  }
  /// Binds text; an empty (even a null) StringRef binds "", never NULL.
  Statement &bind(int index, llvm::StringRef value);
  Statement &bindNull(int index) {
    note(sqlite3_bind_null(stmt, index));
    return *this;
  }

  /// Advances: true when a row is available, false when done.
  llvm::Expected<bool> step();

  /// Runs a statement that returns no rows (or ignores them).
  llvm::Error run();

  bool isNull(int col) { return sqlite3_column_type(stmt, col) == SQLITE_NULL; }
  int64_t getInt(int col) { return sqlite3_column_int64(stmt, col); }
  double getDouble(int col) { return sqlite3_column_double(stmt, col); }
  /// The column as text; "" for NULL.
  std::string getText(int col);

  /// Decodes a target from the five columns of detail::kTargetColumns
  /// starting at \p firstColumn.
  TargetInfo readTarget(int firstColumn);
  /// Decodes time statistics from six columns starting at \p firstColumn:
  /// mean_s, median_s, min_s, max_s, stddev_s, repeats (NULL reads as 0).
  TimeStats readTimeStats(int firstColumn);

private:
  /// Keeps the first failing result code of the binds.
  void note(int result) {
    if (rc == SQLITE_OK)
      rc = result;
  }

  TileTuneDatabase &owner;
  sqlite3_stmt *stmt = nullptr;
  int rc = SQLITE_OK;
};

namespace detail {

/// The target columns (targets table aliased `t`) in the order
/// Statement::readTarget() decodes them.
constexpr const char *kTargetColumns =
    "t.kind, t.model, t.features, t.threads, t.toolchain";

/// BEGIN IMMEDIATE ... COMMIT; rolls back when not committed.
class Transaction {
public:
  explicit Transaction(sqlite3 *db) : db(db) {}
  ~Transaction();
  Transaction(const Transaction &) = delete;
  Transaction &operator=(const Transaction &) = delete;

  /// Starts the transaction; returns the SQLite result code.
  int begin();
  /// Commits; returns the SQLite result code (the transaction stays active,
  /// and is rolled back, when it fails).
  int commit();

private:
  sqlite3 *db;
  bool active = false;
};

} // namespace detail
} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_LIB_DATABASE_SQLITE_H
