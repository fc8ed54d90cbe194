//===- SQLite.cpp - SQLite plumbing of the tuning database ----------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Prepared statements, transactions, SQLite error messages (with a hint at
// the likely cause) and the shared row decoders of TileTuneDatabase.
//
//===----------------------------------------------------------------------===//

#include "SQLite.h"

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Errors and plain SQL
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Statement
//===----------------------------------------------------------------------===//

TileTuneDatabase::Statement::Statement(TileTuneDatabase &owner, StringRef sql)
    : owner(owner) {
  rc = sqlite3_prepare_v2(owner.db, sql.data(), static_cast<int>(sql.size()),
                          &stmt, nullptr);
}

Error TileTuneDatabase::Statement::status() const {
  if (rc == SQLITE_OK)
    return Error::success();
  return owner.sqliteError("preparing a query");
}

TileTuneDatabase::Statement &
TileTuneDatabase::Statement::bind(int index, StringRef value) {
  // A null data pointer would bind SQL NULL; an empty StringRef is "".
  note(sqlite3_bind_text(stmt, index, value.data() ? value.data() : "",
                         static_cast<int>(value.size()), SQLITE_TRANSIENT));
  return *this;
}

Expected<bool> TileTuneDatabase::Statement::step() {
  if (rc != SQLITE_OK)
    return owner.sqliteError("binding query parameters");
  int result = sqlite3_step(stmt);
  if (result == SQLITE_ROW)
    return true;
  if (result == SQLITE_DONE)
    return false;
  return owner.sqliteError("running a query");
}

Error TileTuneDatabase::Statement::run() {
  while (true) {
    Expected<bool> row = step();
    if (!row)
      return row.takeError();
    if (!*row)
      return Error::success();
  }
}

std::string TileTuneDatabase::Statement::getText(int col) {
  const unsigned char *text = sqlite3_column_text(stmt, col);
  int size = sqlite3_column_bytes(stmt, col);
  return text ? std::string(reinterpret_cast<const char *>(text), size) : "";
}

//===----------------------------------------------------------------------===//
// Transaction
//===----------------------------------------------------------------------===//

Transaction::~Transaction() {
  if (active)
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
}

int Transaction::begin() {
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  active = rc == SQLITE_OK;
  return rc;
}

int Transaction::commit() {
  int rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK)
    active = false;
  return rc;
}

//===----------------------------------------------------------------------===//
// Row decoders
//===----------------------------------------------------------------------===//

TargetInfo TileTuneDatabase::Statement::readTarget(int firstColumn) {
  TargetInfo target;
  target.kind = getText(firstColumn);
  target.model = getText(firstColumn + 1);
  target.features = getText(firstColumn + 2);
  target.threads = static_cast<unsigned>(getInt(firstColumn + 3));
  target.toolchain = getText(firstColumn + 4);
  return target;
}

TimeStats TileTuneDatabase::Statement::readTimeStats(int firstColumn) {
  TimeStats time;
  time.mean = getDouble(firstColumn);
  time.median = getDouble(firstColumn + 1);
  time.min = getDouble(firstColumn + 2);
  time.max = getDouble(firstColumn + 3);
  time.stddev = getDouble(firstColumn + 4);
  time.repeats = static_cast<unsigned>(getInt(firstColumn + 5));
  return time;
}
