//===- DatabaseTest.cpp - Tests of the SQLite tuning database -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Database/Database.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <csignal>
#include <fstream>
#include <grp.h>
#include <random>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir::tiletune;

namespace {

/// A fresh temporary directory per test, removed afterwards.
class DatabaseTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("tiletune-db-test", directory));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

  std::unique_ptr<TileTuneDatabase>
  openOrFail(llvm::StringRef path, OpenMode mode = OpenMode::CreateIfMissing) {
    auto db = TileTuneDatabase::open(path, mode);
    if (!db) {
      ADD_FAILURE() << llvm::toString(db.takeError());
      return nullptr;
    }
    return std::move(*db);
  }

  /// The error message of opening \p path (fails the test if it opens).
  std::string openError(llvm::StringRef path,
                        OpenMode mode = OpenMode::CreateIfMissing) {
    auto db = TileTuneDatabase::open(path, mode);
    if (db) {
      ADD_FAILURE() << "opening '" << path.str() << "' should fail";
      return "";
    }
    return llvm::toString(db.takeError());
  }

  /// A writer process commits records until it is SIGKILLed; every record
  /// it saw committed must be in the file.
  void checkKilledWriter(SyncMode sync);

  llvm::SmallString<128> directory;
};

TargetInfo testTarget(unsigned threads = 1) {
  TargetInfo target;
  target.model = "Test CPU (znver5)";
  target.features = "avx2,avx512f,fma";
  target.threads = threads;
  target.toolchain = "tiletune 0.1.0; LLVM 22.1.8";
  return target;
}

RunInfo makeRun(llvm::StringRef problem = "matmul/f32/m=64,n=64,k=64",
                TargetInfo target = testTarget(),
                llvm::StringRef algo = "random", uint64_t seed = 7) {
  RunInfo run;
  run.problemKey = problem.str();
  run.problemDescription = R"({"op":"matmul","m":64,"n":64,"k":64})";
  run.target = std::move(target);
  run.algorithm = algo.str();
  run.seed = seed;
  run.budgetTrials = 100;
  run.budgetSeconds = 60;
  run.options = R"({"batch":8})";
  return run;
}

MeasurementRecord makeRecord(int64_t runId, int64_t trial, double seconds,
                             MeasurementRole role = MeasurementRole::Search,
                             MeasureStatus status = MeasureStatus::Ok) {
  MeasurementRecord record;
  record.runId = runId;
  record.trial = trial;
  record.role = role;
  record.configKey = "cfg" + std::to_string(trial);
  record.config = R"({"tile":)" + std::to_string(trial) + "}";
  if (status == MeasureStatus::Ok) {
    record.result = MeasureResult::success(
        TimeStats::fromSamples({seconds, seconds * 1.1, seconds * 0.9}),
        1.0 / seconds);
  } else {
    record.result = MeasureResult::failure(status, "failed on purpose");
  }
  record.result.costSeconds = 0.05;
  return record;
}

void expectOk(llvm::Error err) {
  EXPECT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
}

TEST_F(DatabaseTest, SchemaIsVersionedAndMarked) {
  std::string path = file("tune.db");
  ASSERT_TRUE(openOrFail(path) != nullptr);
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  auto queryInt = [&](const char *sql) {
    sqlite3_stmt *stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &stmt, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    int64_t value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
  };
  EXPECT_EQ(queryInt("PRAGMA user_version"), TileTuneDatabase::kSchemaVersion);
  EXPECT_EQ(queryInt("PRAGMA application_id"),
            TileTuneDatabase::kApplicationId);
  EXPECT_EQ(queryInt("SELECT count(*) FROM meta WHERE key = 'tool' AND "
                     "value = 'tiletune'"),
            1);
  sqlite3_stmt *stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0)),
               "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

TEST_F(DatabaseTest, RunAndMeasurementsRoundTrip) {
  std::string path = file("tune.db");
  RunInfo run = makeRun();
  run.seed = ~uint64_t(0) - 5; // Does not fit in a signed 64-bit integer.
  run.owner = "host:1:2";
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    expectOk(db->recordRun(run));
    EXPECT_GT(run.id, 0);
    EXPECT_GT(run.startedAt, 0);
    EXPECT_EQ(run.toolVersion, getTileTuneVersion());
    MeasurementRecord first =
        makeRecord(run.id, 0, 2e-3, MeasurementRole::Default);
    expectOk(db->recordMeasurement(first, 0.5));
    MeasurementRecord second = makeRecord(run.id, 1, 0, MeasurementRole::Search,
                                          MeasureStatus::CompileError);
    expectOk(db->recordMeasurement(second, 0.7));
    MeasurementRecord third = makeRecord(run.id, 2, 1e-3);
    third.result.relative = 0.5;
    expectOk(db->recordMeasurement(third, 0.9));
  }
  auto db = openOrFail(path, OpenMode::ReadOnly);
  ASSERT_TRUE(db);
  llvm::Expected<RunInfo> back = db->getRun(run.id);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->problemKey, run.problemKey);
  EXPECT_EQ(back->problemDescription, run.problemDescription);
  EXPECT_EQ(back->target, run.target);
  EXPECT_EQ(back->algorithm, "random");
  EXPECT_EQ(back->seed, run.seed);
  EXPECT_EQ(back->budgetTrials, 100);
  EXPECT_DOUBLE_EQ(back->budgetSeconds, 60);
  EXPECT_EQ(back->options, run.options);
  EXPECT_EQ(back->status, RunStatus::Running);
  EXPECT_DOUBLE_EQ(back->elapsedSeconds, 0.9);
  EXPECT_DOUBLE_EQ(back->startedAt, run.startedAt);
  EXPECT_EQ(back->owner, "host:1:2");

  auto records = db->measurementsOfRun(run.id);
  ASSERT_TRUE(static_cast<bool>(records))
      << llvm::toString(records.takeError());
  ASSERT_EQ(records->size(), 3u);
  const MeasurementRecord &r0 = (*records)[0];
  EXPECT_EQ(r0.trial, 0);
  EXPECT_EQ(r0.role, MeasurementRole::Default);
  EXPECT_EQ(r0.configKey, "cfg0");
  EXPECT_EQ(r0.config, R"({"tile":0})");
  EXPECT_EQ(r0.result.status, MeasureStatus::Ok);
  EXPECT_DOUBLE_EQ(r0.result.time.median, 2e-3);
  EXPECT_DOUBLE_EQ(r0.result.time.min, 2e-3 * 0.9);
  EXPECT_DOUBLE_EQ(r0.result.time.max, 2e-3 * 1.1);
  EXPECT_EQ(r0.result.time.repeats, 3u);
  EXPECT_DOUBLE_EQ(r0.result.gflops, 500);
  EXPECT_DOUBLE_EQ(r0.result.costSeconds, 0.05);
  EXPECT_GT(r0.createdAt, 0);
  const MeasurementRecord &r1 = (*records)[1];
  EXPECT_EQ(r1.result.status, MeasureStatus::CompileError);
  EXPECT_EQ(r1.result.message, "failed on purpose");
  EXPECT_EQ(r1.result.time.repeats, 0u);
  // Paired timing: the ratio comes back beside the measured times.
  EXPECT_EQ(r0.result.relative, 0.0);
  const MeasurementRecord &r2 = (*records)[2];
  EXPECT_DOUBLE_EQ(r2.result.relative, 0.5);

  // A read-only database refuses writes with a clear error.
  RunInfo other = makeRun();
  llvm::Error err = db->recordRun(other);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("read"), std::string::npos);
}

/// A version-1 file (before the paired-timing columns) is read as is when
/// opened read-only and upgraded in place when opened for writing; what it
/// held survives.
TEST_F(DatabaseTest, Version1FilesAreReadAndUpgraded) {
  std::string path = file("v1.db");
  RunInfo run = makeRun();
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    expectOk(db->recordRun(run));
    MeasurementRecord first =
        makeRecord(run.id, 0, 2e-3, MeasurementRole::Default);
    expectOk(db->recordMeasurement(first, 0.5));
  }
  // Turn it into the version-1 layout.
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "ALTER TABLE measurements DROP COLUMN relative; "
                         "ALTER TABLE measurements DROP COLUMN raw_median_s; "
                         "UPDATE meta SET value = '1' WHERE key = "
                         "'schema_version'; PRAGMA user_version=1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  auto countPairedColumns = [&]() {
    sqlite3 *check = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &check), SQLITE_OK);
    sqlite3_stmt *stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(check,
                                 "SELECT count(*) FROM pragma_table_info("
                                 "'measurements') WHERE name IN ('relative', "
                                 "'raw_median_s')",
                                 -1, &stmt, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(check);
    return n;
  };
  ASSERT_EQ(countPairedColumns(), 0);
  {
    auto db = openOrFail(path, OpenMode::ReadOnly);
    ASSERT_TRUE(db);
    auto records = db->measurementsOfRun(run.id);
    ASSERT_TRUE(static_cast<bool>(records))
        << llvm::toString(records.takeError());
    ASSERT_EQ(records->size(), 1u);
    EXPECT_DOUBLE_EQ((*records)[0].result.time.median, 2e-3);
    std::string text;
    llvm::raw_string_ostream os(text);
    expectOk(db->exportJSONL(os));
    EXPECT_NE(text.find("\"median\""), std::string::npos);
    EXPECT_EQ(countPairedColumns(), 0);
  }
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    EXPECT_EQ(countPairedColumns(), 2);
    MeasurementRecord second = makeRecord(run.id, 1, 1e-3);
    second.result.relative = 0.5;
    expectOk(db->recordMeasurement(second, 0.7));
    auto records = db->measurementsOfRun(run.id);
    ASSERT_TRUE(static_cast<bool>(records))
        << llvm::toString(records.takeError());
    ASSERT_EQ(records->size(), 2u);
    EXPECT_EQ((*records)[0].result.relative, 0.0);
    EXPECT_DOUBLE_EQ((*records)[1].result.relative, 0.5);
  }
  // Opening the upgraded file again changes nothing.
  EXPECT_TRUE(openOrFail(path) != nullptr);
  EXPECT_EQ(countPairedColumns(), 2);
}

/// Version 2 stored a paired-timed measurement's statistics rescaled to the
/// run's reference speed, with the measured median in raw_median_s. Read-only
/// readers see the measured times through a view; opening for writing
/// restores them in place (version 3).
TEST_F(DatabaseTest, Version2RescaledTimesAreRestoredToMeasuredTimes) {
  std::string path = file("v2.db");
  RunInfo run = makeRun();
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    expectOk(db->recordRun(run));
    // Recorded as version 2 did: measured 3 ms, rescaled to 1 ms.
    MeasurementRecord rescaled = makeRecord(run.id, 0, 1e-3);
    rescaled.result.relative = 0.5;
    expectOk(db->recordMeasurement(rescaled, 0.5));
    MeasurementRecord alone = makeRecord(run.id, 1, 2e-3);
    expectOk(db->recordMeasurement(alone, 0.6));
  }
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "UPDATE measurements SET raw_median_s = 3e-3 WHERE "
                         "trial = 0; UPDATE meta SET value = '2' WHERE key = "
                         "'schema_version'; PRAGMA user_version=2",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  auto expectMeasured = [&](TileTuneDatabase &db) {
    auto records = db.measurementsOfRun(run.id);
    ASSERT_TRUE(static_cast<bool>(records))
        << llvm::toString(records.takeError());
    ASSERT_EQ(records->size(), 2u);
    const MeasureResult &r0 = (*records)[0].result;
    EXPECT_DOUBLE_EQ(r0.time.median, 3e-3);
    EXPECT_DOUBLE_EQ(r0.time.min, 3e-3 * 0.9);
    EXPECT_DOUBLE_EQ(r0.time.max, 3e-3 * 1.1);
    EXPECT_NEAR(r0.gflops, 1.0 / 3e-3, 1e-9);
    EXPECT_DOUBLE_EQ(r0.relative, 0.5);
    // Timed alone: as recorded.
    EXPECT_DOUBLE_EQ((*records)[1].result.time.median, 2e-3);
    std::string text;
    llvm::raw_string_ostream os(text);
    expectOk(db.exportJSONL(os));
    EXPECT_NE(text.find("\"median\":0.003"), std::string::npos) << text;
    EXPECT_EQ(text.find("raw_median"), std::string::npos) << text;
  };
  {
    auto db = openOrFail(path, OpenMode::ReadOnly);
    ASSERT_TRUE(db);
    expectMeasured(*db);
  }
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    expectMeasured(*db);
  }
  // Upgraded in place, once.
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt *stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw,
                               "SELECT median_s, raw_median_s IS NULL, "
                               "(SELECT value FROM meta WHERE key = "
                               "'schema_version') FROM measurements WHERE "
                               "trial = 0",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_DOUBLE_EQ(sqlite3_column_double(stmt, 0), 3e-3);
  EXPECT_EQ(sqlite3_column_int64(stmt, 1), 1);
  EXPECT_STREQ(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 2)),
               "3");
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  auto db = openOrFail(path);
  ASSERT_TRUE(db);
  expectMeasured(*db);
}

TEST_F(DatabaseTest, RejectsBadRecords) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  RunInfo run = makeRun();
  run.options = "{not json";
  llvm::Error err = db->recordRun(run);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("not valid JSON"),
            std::string::npos);

  run = makeRun();
  expectOk(db->recordRun(run));
  MeasurementRecord record = makeRecord(run.id, 0, 1e-3);
  expectOk(db->recordMeasurement(record, 1));
  // The same trial index twice.
  MeasurementRecord again = makeRecord(run.id, 0, 1e-3);
  err = db->recordMeasurement(again, 1);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("UNIQUE"), std::string::npos);
  // An unknown run.
  MeasurementRecord orphan = makeRecord(run.id + 100, 0, 1e-3);
  err = db->recordMeasurement(orphan, 1);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("FOREIGN KEY"),
            std::string::npos);
  // A config that is not JSON.
  MeasurementRecord bad = makeRecord(run.id, 1, 1e-3);
  bad.config = "tile=4";
  err = db->recordMeasurement(bad, 1);
  ASSERT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
  // An ok result with a non-finite time.
  MeasurementRecord nan = makeRecord(run.id, 1, 1e-3);
  nan.result.time.median = std::nan("");
  err = db->recordMeasurement(nan, 1);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("non-finite"),
            std::string::npos);
  // Nothing of the failed writes is left behind.
  auto records = db->measurementsOfRun(run.id);
  ASSERT_TRUE(static_cast<bool>(records));
  EXPECT_EQ(records->size(), 1u);
}

TEST_F(DatabaseTest, MissingFileAndDirectory) {
  std::string missing = openError(file("missing.db"), OpenMode::ReadOnly);
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  std::string dir = openError(directory.str());
  EXPECT_NE(dir.find("directory"), std::string::npos) << dir;
  EXPECT_FALSE(llvm::sys::fs::exists(file("missing.db")));
}

/// Writes a database holding one run with one measurement; returns the run.
RunInfo writeOneRun(TileTuneDatabase &db) {
  RunInfo run = makeRun();
  expectOk(db.recordRun(run));
  MeasurementRecord record =
      makeRecord(run.id, 0, 2e-3, MeasurementRole::Default);
  expectOk(db.recordMeasurement(record, 0.5));
  return run;
}

/// A reader of a WAL database normally creates `<db>-shm` next to it. Where
/// it cannot (here: both side files are dangling symbolic links, which fail
/// to open even for root, as a read-only directory does for other users),
/// the database is still read - it used to be "not a TileTune tuning
/// database" - and nothing is written.
TEST_F(DatabaseTest, ReadersNeedNotWriteNextToTheDatabase) {
  std::string path = file("tune.db");
  RunInfo run;
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    run = writeOneRun(*db);
  }
  ASSERT_FALSE(llvm::sys::fs::exists(path + "-shm"));
  ASSERT_FALSE(
      llvm::sys::fs::create_link("/nonexistent-tiletune/shm", path + "-shm"));
  ASSERT_FALSE(
      llvm::sys::fs::create_link("/nonexistent-tiletune/wal", path + "-wal"));
  auto db = openOrFail(path, OpenMode::ReadOnly);
  ASSERT_TRUE(db);
  llvm::Expected<RunInfo> back = db->getRun(run.id);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->problemKey, run.problemKey);
  auto runs = db->listRuns();
  ASSERT_TRUE(static_cast<bool>(runs)) << llvm::toString(runs.takeError());
  EXPECT_EQ(runs->size(), 1u);
}

/// A read-only database in a read-only directory, as another user sees it:
/// readers read it (report, export and apply-db open it this way), writers
/// get a clear "read-only" error when opening, nothing is created. As root,
/// permissions do not apply, so the check runs in a child process switched
/// to the user "nobody"; it is skipped only when that switch is impossible.
TEST_F(DatabaseTest, ReadOnlyDatabaseOfAnotherUser) {
  namespace fs = llvm::sys::fs;
  // As root, the other user must reach the directory: the temporary
  // directory a test runner gives may be private (0700), /tmp is not.
  bool asRoot = ::geteuid() == 0;
  std::string dir = directory.str().str();
  if (asRoot) {
    char model[] = "/tmp/tiletune-readonly-XXXXXX";
    ASSERT_NE(::mkdtemp(model), nullptr);
    dir = model;
  }
  auto inDir = [&](llvm::StringRef name) {
    llvm::SmallString<128> joined(dir);
    llvm::sys::path::append(joined, name);
    return std::string(joined);
  };
  std::string path = inDir("tune.db");
  RunInfo run;
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    run = writeOneRun(*db);
  }
  ASSERT_FALSE(fs::setPermissions(path, fs::perms(0444)));
  ASSERT_FALSE(fs::setPermissions(dir, fs::perms(0555)));

  // 0: as expected; 1-4: what failed; 77: cannot take another user's place.
  auto check = [&]() -> int {
    auto reader = TileTuneDatabase::open(path, OpenMode::ReadOnly);
    if (!reader) {
      llvm::errs() << "reader: " << llvm::toString(reader.takeError()) << "\n";
      return 1;
    }
    llvm::Expected<RunInfo> back = (*reader)->getRun(run.id);
    if (!back || back->problemKey != run.problemKey) {
      if (!back)
        llvm::errs() << "getRun: " << llvm::toString(back.takeError()) << "\n";
      return 1;
    }
    reader->reset();
    for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::CreateIfMissing}) {
      auto writer = TileTuneDatabase::open(path, mode);
      if (writer)
        return 2;
      std::string message = llvm::toString(writer.takeError());
      if (message.find("is read-only: the file is not writable") ==
          std::string::npos) {
        llvm::errs() << "writer: " << message << "\n";
        return 2;
      }
    }
    auto creator = TileTuneDatabase::open(inDir("new.db"));
    if (creator)
      return 3;
    std::string message = llvm::toString(creator.takeError());
    if (message.find("is read-only: its directory is not writable") ==
        std::string::npos) {
      llvm::errs() << "creator: " << message << "\n";
      return 3;
    }
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::path::filename(it->path()) != "tune.db") {
        llvm::errs() << "created: " << it->path() << "\n";
        return 4;
      }
    return 0;
  };

  int result = 0;
  if (!asRoot) {
    result = check();
  } else {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The nobody user of Debian and most systems.
      constexpr uid_t kNobody = 65534;
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 ||
          ::setuid(kNobody) != 0 || ::access(path.c_str(), R_OK) != 0)
        ::_exit(77);
      ::_exit(check());
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died with a signal";
    result = WEXITSTATUS(status);
  }
  ASSERT_FALSE(fs::setPermissions(dir, fs::perms(0755)));
  if (asRoot)
    fs::remove_directories(dir);
  if (result == 77)
    GTEST_SKIP() << "running as root and cannot switch to another user "
                    "(setuid or access to the temporary directory failed): "
                    "the permissions cannot be simulated";
  EXPECT_EQ(result, 0) << "1: not readable, 2: writer not refused as "
                          "read-only, 3: creating in a read-only directory "
                          "not refused, 4: a file was created";
}

TEST_F(DatabaseTest, RandomBytesAreRejected) {
  std::string path = file("random.db");
  {
    std::mt19937_64 rng(1234);
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 8192; ++i)
      out.put(static_cast<char>(rng() & 0xff));
  }
  for (OpenMode mode : {OpenMode::CreateIfMissing, OpenMode::ReadOnly}) {
    std::string message = openError(path, mode);
    EXPECT_NE(message.find("is not a TileTune tuning database"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
  // A text file.
  std::string text = file("notes.txt");
  {
    std::ofstream out(text);
    out << "these are my notes, not a database\n";
  }
  std::string message = openError(text);
  EXPECT_NE(message.find("is not a TileTune tuning database"),
            std::string::npos)
      << message;
}

TEST_F(DatabaseTest, DamagedDatabaseGivesErrorsNotCrashes) {
  std::string path = file("damaged.db");
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    RunInfo run = makeRun();
    expectOk(db->recordRun(run));
    for (int trial = 0; trial < 60; ++trial) {
      MeasurementRecord record = makeRecord(run.id, trial, 1e-3 * (trial + 1));
      record.result.message = std::string(1000, 'm');
      expectOk(db->recordMeasurement(record, trial));
    }
  }
  // Closing checkpointed the WAL into the main file; damage every page after
  // the first (the header page stays valid, so SQLite opens the file).
  uint64_t size = 0;
  ASSERT_FALSE(llvm::sys::fs::file_size(path, size));
  ASSERT_GT(size, 8192u);
  {
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    std::mt19937_64 rng(99);
    for (uint64_t offset = 4096 + 100; offset < size; offset += 512) {
      io.seekp(static_cast<std::streamoff>(offset));
      for (int i = 0; i < 64; ++i)
        io.put(static_cast<char>(rng() & 0xff));
    }
  }
  auto db = TileTuneDatabase::open(path);
  if (!db) {
    std::string message = llvm::toString(db.takeError());
    EXPECT_NE(message.find(path), std::string::npos) << message;
    return;
  }
  // Opening may succeed when the damaged pages are not read; then queries
  // and the integrity check must report the damage.
  bool sawError = false;
  llvm::Error check = (*db)->verifyIntegrity();
  if (check) {
    sawError = true;
    EXPECT_NE(llvm::toString(std::move(check)).find("corrupt"),
              std::string::npos);
  }
  auto records = (*db)->measurementsOfRun(1);
  if (!records) {
    sawError = true;
    llvm::consumeError(records.takeError());
  }
  std::string sink;
  llvm::raw_string_ostream os(sink);
  if (llvm::Error err = (*db)->exportJSONL(os)) {
    sawError = true;
    llvm::consumeError(std::move(err));
  }
  EXPECT_TRUE(sawError);
}

/// Timestamps a damaged or hand-edited database holds are exported as no
/// time, not converted out of range (found by the database fuzzer under
/// UBSan: "1.3e+166 is outside the range of representable values").
TEST_F(DatabaseTest, ExportOfOutOfRangeTimestampsGivesNoTime) {
  std::string path = file("times.db");
  {
    auto db = openOrFail(path);
    ASSERT_TRUE(db);
    RunInfo run = makeRun();
    expectOk(db->recordRun(run));
    for (int trial = 0; trial < 4; ++trial) {
      MeasurementRecord record = makeRecord(run.id, trial, 1e-3);
      expectOk(db->recordMeasurement(record, trial));
    }
  }
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "UPDATE measurements SET created_at = CASE trial "
                         "WHEN 0 THEN 1.3e166 WHEN 1 THEN -1e300 "
                         "WHEN 2 THEN 253402300800.0 ELSE created_at END",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  auto db = TileTuneDatabase::open(path);
  ASSERT_TRUE(static_cast<bool>(db)) << llvm::toString(db.takeError());
  std::string text;
  llvm::raw_string_ostream os(text);
  expectOk((*db)->exportJSONL(os));
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).rtrim('\n').split(lines, '\n');
  ASSERT_EQ(lines.size(), 4u);
  for (auto [index, line] : llvm::enumerate(lines)) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    ASSERT_TRUE(static_cast<bool>(value)) << llvm::toString(value.takeError());
    std::optional<llvm::StringRef> timestamp =
        value->getAsObject()->getString("timestamp");
    ASSERT_TRUE(timestamp);
    if (index < 3)
      EXPECT_EQ(timestamp->str(), "") << line.str();
    else
      EXPECT_TRUE(timestamp->ends_with("Z")) << line.str();
  }
}

TEST_F(DatabaseTest, ForeignSQLiteFilesAreRejected) {
  // Another tool's database.
  std::string foreign = file("foreign.db");
  sqlite3 *raw = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "CREATE TABLE measurements(x); "
                         "INSERT INTO measurements VALUES (1)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  std::string message = openError(foreign);
  EXPECT_NE(message.find("another application"), std::string::npos) << message;

  // Our application id but no meta table naming the tool.
  std::string fake = file("fake.db");
  ASSERT_EQ(sqlite3_open(fake.c_str(), &raw), SQLITE_OK);
  std::string sql = "PRAGMA application_id=" +
                    std::to_string(TileTuneDatabase::kApplicationId) +
                    "; PRAGMA user_version=1; CREATE TABLE t(x);";
  ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  message = openError(fake);
  EXPECT_NE(message.find("meta"), std::string::npos) << message;

  // A TileTune database from a newer schema.
  std::string newer = file("newer.db");
  ASSERT_TRUE(openOrFail(newer) != nullptr);
  ASSERT_EQ(sqlite3_open(newer.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(raw);
  message = openError(newer);
  EXPECT_NE(message.find("newer TileTune"), std::string::npos) << message;
}

TEST_F(DatabaseTest, KilledWriterLosesNoCommittedRecord) {
  for (SyncMode sync : {SyncMode::Normal, SyncMode::Full})
    checkKilledWriter(sync);
}

void DatabaseTest::checkKilledWriter(SyncMode sync) {
  SCOPED_TRACE(sync == SyncMode::Full ? "full sync" : "normal sync");
  std::string path =
      file(sync == SyncMode::Full ? "killed-full.db" : "killed-normal.db");
  int progress[2];
  ASSERT_EQ(pipe(progress), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The writer: commits records as fast as it can and reports each
    // committed trial index to the parent.
    close(progress[0]);
    auto db = TileTuneDatabase::open(path, OpenMode::CreateIfMissing, sync);
    if (!db)
      _exit(2);
    RunInfo run = makeRun();
    if ((*db)->recordRun(run))
      _exit(3);
    for (int64_t trial = 0;; ++trial) {
      MeasurementRecord record = makeRecord(run.id, trial, 1e-3);
      if ((*db)->recordMeasurement(record, trial))
        _exit(4);
      if (write(progress[1], &trial, sizeof(trial)) != sizeof(trial))
        _exit(5);
    }
  }
  close(progress[1]);
  int64_t lastCommitted = -1, trial;
  while (lastCommitted < 30 &&
         read(progress[0], &trial, sizeof(trial)) == sizeof(trial))
    lastCommitted = trial;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(progress[0]);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "writer exited early with status " << WEXITSTATUS(status);
  ASSERT_GE(lastCommitted, 30);

  // Every record the writer saw committed is there, with contiguous trials.
  auto db = openOrFail(path);
  ASSERT_TRUE(db);
  auto records = db->measurementsOfRun(1);
  ASSERT_TRUE(static_cast<bool>(records))
      << llvm::toString(records.takeError());
  ASSERT_GE(static_cast<int64_t>(records->size()), lastCommitted + 1);
  for (auto [index, record] : llvm::enumerate(*records))
    EXPECT_EQ(record.trial, static_cast<int64_t>(index));
  auto run = db->getRun(1);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->status, RunStatus::Running);
  expectOk(db->verifyIntegrity());
}

TEST_F(DatabaseTest, FindResumableRun) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  RunInfo finished = makeRun();
  expectOk(db->recordRun(finished));
  expectOk(db->updateRunStatus(finished.id, RunStatus::Finished, 3,
                               llvm::StringRef()));
  RunInfo other = makeRun("matmul/f32/m=64,n=64,k=64", testTarget(), "random",
                          /*seed=*/8);
  expectOk(db->recordRun(other));

  auto found = db->findResumableRun("matmul/f32/m=64,n=64,k=64", testTarget(),
                                    "random", 7);
  ASSERT_TRUE(static_cast<bool>(found));
  EXPECT_FALSE(found->has_value()) << "a finished run is not resumable";

  RunInfo open1 = makeRun();
  expectOk(db->recordRun(open1));
  RunInfo open2 = makeRun();
  expectOk(db->recordRun(open2));
  expectOk(db->updateRunStatus(open2.id, RunStatus::Interrupted, 1));
  found = db->findResumableRun("matmul/f32/m=64,n=64,k=64", testTarget(),
                               "random", 7);
  ASSERT_TRUE(static_cast<bool>(found) && found->has_value());
  EXPECT_EQ((*found)->id, open2.id) << "the most recent open run";
  EXPECT_EQ((*found)->status, RunStatus::Interrupted);

  // Any difference in target, algorithm or problem: nothing to resume.
  for (auto [problem, target, algo] :
       {std::make_tuple("matmul/f32/m=64,n=64,k=64", testTarget(4), "random"),
        std::make_tuple("matmul/f32/m=64,n=64,k=64", testTarget(), "grid"),
        std::make_tuple("matmul/f32/m=32,n=64,k=64", testTarget(), "random")}) {
    auto none = db->findResumableRun(problem, target, algo, 7);
    ASSERT_TRUE(static_cast<bool>(none));
    EXPECT_FALSE(none->has_value());
  }
}

TEST_F(DatabaseTest, ClaimRunIsACompareAndSwap) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  RunInfo run = makeRun();
  run.owner = "a:1:1";
  expectOk(db->recordRun(run));
  auto claimed = db->claimRun(run.id, "a:1:1", "b:2:2");
  ASSERT_TRUE(static_cast<bool>(claimed));
  EXPECT_TRUE(*claimed);
  // A second claimer that saw the old owner loses.
  claimed = db->claimRun(run.id, "a:1:1", "c:3:3");
  ASSERT_TRUE(static_cast<bool>(claimed));
  EXPECT_FALSE(*claimed);
  auto back = db->getRun(run.id);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->owner, "b:2:2");
}

TEST_F(DatabaseTest, BestConfigRespectsTargets) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  const char *problem = "matmul/f32/m=64,n=64,k=64";
  // A run on another machine (4 threads) with a very fast result.
  RunInfo foreign = makeRun(problem, testTarget(4));
  expectOk(db->recordRun(foreign));
  MeasurementRecord fast = makeRecord(foreign.id, 0, 1e-6);
  expectOk(db->recordMeasurement(fast, 1));

  auto best = db->bestConfig(problem, testTarget(1));
  ASSERT_TRUE(static_cast<bool>(best));
  EXPECT_FALSE(best->has_value()) << "a foreign result was applied silently";

  BestConfigOptions allow;
  allow.allowForeignTargets = true;
  best = db->bestConfig(problem, testTarget(1), allow);
  ASSERT_TRUE(static_cast<bool>(best) && best->has_value());
  EXPECT_FALSE((*best)->exactTarget);
  EXPECT_EQ((*best)->target, testTarget(4));
  EXPECT_EQ((*best)->configKey, "cfg0");

  // A local run: failures are ignored, the fastest Ok result wins, and the
  // exact target is preferred over the faster foreign result.
  RunInfo local = makeRun(problem, testTarget(1));
  expectOk(db->recordRun(local));
  MeasurementRecord r0 =
      makeRecord(local.id, 0, 3e-3, MeasurementRole::Default);
  MeasurementRecord r1 = makeRecord(local.id, 1, 0, MeasurementRole::Search,
                                    MeasureStatus::WrongResult);
  MeasurementRecord r2 = makeRecord(local.id, 2, 2e-3);
  MeasurementRecord r3 = makeRecord(local.id, 3, 2.5e-3);
  for (MeasurementRecord *record : {&r0, &r1, &r2, &r3})
    expectOk(db->recordMeasurement(*record, 1));
  best = db->bestConfig(problem, testTarget(1), allow);
  ASSERT_TRUE(static_cast<bool>(best) && best->has_value());
  EXPECT_TRUE((*best)->exactTarget);
  EXPECT_EQ((*best)->target, testTarget(1));
  EXPECT_EQ((*best)->configKey, "cfg2");
  EXPECT_DOUBLE_EQ((*best)->time.median, 2e-3);
  EXPECT_EQ((*best)->runId, local.id);

  // Finishing the run with its result re-measured: the re-measurement
  // counts, not the (luckier) search measurement.
  MeasurementRecord final =
      makeRecord(local.id, 4, 2.2e-3, MeasurementRole::Final);
  final.configKey = "cfg2";
  expectOk(db->recordMeasurement(final, 2));
  expectOk(db->updateRunStatus(local.id, RunStatus::Finished, 2, "cfg2"));
  best = db->bestConfig(problem, testTarget(1));
  ASSERT_TRUE(static_cast<bool>(best) && best->has_value());
  EXPECT_EQ((*best)->configKey, "cfg2");
  EXPECT_DOUBLE_EQ((*best)->time.median, 2.2e-3);

  // Unknown problem: nothing.
  best = db->bestConfig("conv/none", testTarget(1), allow);
  ASSERT_TRUE(static_cast<bool>(best));
  EXPECT_FALSE(best->has_value());
  // Another target kind is never a fallback.
  TargetInfo gpu = testTarget(1);
  gpu.kind = "cuda";
  best = db->bestConfig(problem, gpu, allow);
  ASSERT_TRUE(static_cast<bool>(best));
  EXPECT_FALSE(best->has_value());
}

TEST_F(DatabaseTest, ReportAggregates) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  const char *p1 = "matmul/f32/m=64,n=64,k=64";
  const char *p2 = "conv/f32/n=1";
  RunInfo a = makeRun(p1, testTarget(), "random", 1);
  RunInfo b = makeRun(p1, testTarget(), "random", 2);
  RunInfo c = makeRun(p1, testTarget(), "grid", 1);
  RunInfo d = makeRun(p2, testTarget(), "random", 1);
  for (RunInfo *run : {&a, &b, &c, &d})
    expectOk(db->recordRun(*run));
  auto add = [&](RunInfo &run, int64_t trial, double seconds,
                 MeasurementRole role, MeasureStatus status, double elapsed) {
    MeasurementRecord record = makeRecord(run.id, trial, seconds, role, status);
    expectOk(db->recordMeasurement(record, elapsed));
  };
  add(a, 0, 4e-3, MeasurementRole::Default, MeasureStatus::Ok, 1);
  add(a, 1, 1e-3, MeasurementRole::Search, MeasureStatus::Ok, 2);
  add(a, 2, 0, MeasurementRole::Search, MeasureStatus::Timeout, 3);
  add(b, 0, 5e-3, MeasurementRole::Default, MeasureStatus::Ok, 1.5);
  add(b, 1, 2e-3, MeasurementRole::Search, MeasureStatus::Ok, 2.5);
  add(c, 0, 4e-3, MeasurementRole::Default, MeasureStatus::Ok, 1);
  // Grid's default config re-measured at the end of its run, faster this
  // time: the report takes the default's best time over both measurements,
  // as it does for the best config.
  MeasurementRecord finalDefault =
      makeRecord(c.id, 1, 3e-3, MeasurementRole::Final);
  finalDefault.configKey = "cfg0";
  expectOk(db->recordMeasurement(finalDefault, 1.2));
  add(d, 0, 0, MeasurementRole::Default, MeasureStatus::RuntimeError, 1);

  auto problems = db->listProblems();
  ASSERT_TRUE(static_cast<bool>(problems));
  ASSERT_EQ(problems->size(), 2u);
  EXPECT_EQ((*problems)[0], p2);
  EXPECT_EQ((*problems)[1], p1);

  auto rows = db->report();
  ASSERT_TRUE(static_cast<bool>(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 3u);
  const ReportRow &conv = (*rows)[0];
  EXPECT_EQ(conv.problemKey, p2);
  EXPECT_EQ(conv.trials, 1);
  EXPECT_EQ(conv.okTrials, 0);
  EXPECT_TRUE(conv.bestConfigKey.empty());
  EXPECT_FALSE(conv.defaultSeconds.has_value());
  const ReportRow &grid = (*rows)[1];
  EXPECT_EQ(grid.algorithm, "grid");
  EXPECT_EQ(grid.runs, 1u);
  EXPECT_EQ(grid.trials, 1);
  ASSERT_TRUE(grid.defaultSeconds.has_value());
  EXPECT_DOUBLE_EQ(*grid.defaultSeconds, 3e-3);
  const ReportRow &random = (*rows)[2];
  EXPECT_EQ(random.algorithm, "random");
  EXPECT_EQ(random.runs, 2u);
  EXPECT_EQ(random.trials, 5);
  EXPECT_EQ(random.okTrials, 4);
  EXPECT_DOUBLE_EQ(random.secondsUsed, 3 + 2.5);
  EXPECT_EQ(random.bestConfigKey, "cfg1");
  EXPECT_DOUBLE_EQ(random.bestSeconds, 1e-3);
  EXPECT_DOUBLE_EQ(random.bestGflops, 1000);
  ASSERT_TRUE(random.defaultSeconds.has_value());
  EXPECT_DOUBLE_EQ(*random.defaultSeconds, 4e-3);
  EXPECT_EQ(random.target, testTarget());

  // Restricted to another target: nothing.
  TargetInfo other = testTarget(8);
  auto none = db->report(&other);
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_TRUE(none->empty());
}

TEST_F(DatabaseTest, ExportJSONLinesParses) {
  auto db = openOrFail(file("tune.db"));
  ASSERT_TRUE(db);
  RunInfo run = makeRun();
  expectOk(db->recordRun(run));
  MeasurementRecord ok = makeRecord(run.id, 0, 1e-3, MeasurementRole::Default);
  MeasurementRecord bad =
      makeRecord(run.id, 1, 0, MeasurementRole::Search, MeasureStatus::Timeout);
  bad.result.message = "line one\nline \"two\"";
  expectOk(db->recordMeasurement(ok, 1));
  expectOk(db->recordMeasurement(bad, 2));

  std::string text;
  llvm::raw_string_ostream os(text);
  expectOk(db->exportJSONL(os));
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).rtrim('\n').split(lines, '\n');
  ASSERT_EQ(lines.size(), 2u);
  for (auto [index, line] : llvm::enumerate(lines)) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    ASSERT_TRUE(static_cast<bool>(value)) << llvm::toString(value.takeError());
    llvm::json::Object *object = value->getAsObject();
    ASSERT_TRUE(object);
    EXPECT_EQ(object->getInteger("run"), run.id);
    EXPECT_EQ(object->getInteger("trial"), static_cast<int64_t>(index));
    EXPECT_EQ(object->getString("problem"), run.problemKey);
    EXPECT_EQ(object->getString("algorithm"), "random");
    EXPECT_EQ(object->getInteger("seed"), 7);
    const llvm::json::Object *target = object->getObject("target");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->getString("key"), run.target.key());
    // The config is embedded as JSON, not as a string.
    const llvm::json::Object *config = object->getObject("config");
    ASSERT_TRUE(config);
    EXPECT_EQ(config->getInteger("tile"), static_cast<int64_t>(index));
    EXPECT_TRUE(object->getString("timestamp")->ends_with("Z"));
  }
  llvm::json::Value second = *llvm::json::parse(lines[1]);
  EXPECT_EQ(second.getAsObject()->getString("status"), "timeout");
  EXPECT_EQ(second.getAsObject()->getString("message"), bad.result.message);
  EXPECT_EQ(*second.getAsObject()->get("time"), llvm::json::Value(nullptr));
  llvm::json::Value first = *llvm::json::parse(lines[0]);
  const llvm::json::Object *time = first.getAsObject()->getObject("time");
  ASSERT_TRUE(time);
  EXPECT_DOUBLE_EQ(*time->getNumber("median"), 1e-3);
  EXPECT_EQ(time->getInteger("repeats"), 3);
}

/// The JSON Lines export of \p db.
std::string exportText(TileTuneDatabase &db) {
  std::string text;
  llvm::raw_string_ostream os(text);
  expectOk(db.exportJSONL(os));
  return text;
}

TEST_F(DatabaseTest, ImportRoundTripsExport) {
  auto source = openOrFail(file("source.db"));
  ASSERT_TRUE(source);
  const std::string problem = "matmul/f32/m=64,n=64,k=64";
  RunInfo finished = makeRun(problem, testTarget(), "random", ~uint64_t(0));
  expectOk(source->recordRun(finished));
  MeasurementRecord def =
      makeRecord(finished.id, 0, 2e-3, MeasurementRole::Default);
  MeasurementRecord fast = makeRecord(finished.id, 1, 1e-3);
  fast.result.relative = 0.5;
  MeasurementRecord failed = makeRecord(
      finished.id, 2, 0, MeasurementRole::Search, MeasureStatus::CompileError);
  // The finished run's result is cfg0 (as re-measured), not the faster cfg1:
  // the import must keep the result key for bestConfig to agree.
  MeasurementRecord remeasured =
      makeRecord(finished.id, 3, 1.5e-3, MeasurementRole::Final);
  remeasured.configKey = def.configKey;
  for (MeasurementRecord *record : {&def, &fast, &failed, &remeasured})
    expectOk(source->recordMeasurement(*record, 1));
  expectOk(source->updateRunStatus(finished.id, RunStatus::Finished, 3,
                                   def.configKey));
  RunInfo open = makeRun(problem, testTarget(4), "gbfs", 3);
  expectOk(source->recordRun(open));
  MeasurementRecord openRecord = makeRecord(open.id, 0, 5e-4);
  expectOk(source->recordMeasurement(openRecord, 1));
  std::string exported = exportText(*source);

  auto copy = openOrFail(file("copy.db"));
  ASSERT_TRUE(copy);
  llvm::Expected<ImportStats> stats =
      copy->importJSONL({{"source.jsonl", exported}});
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->lines, 5);
  EXPECT_EQ(stats->runsAdded, 2);
  EXPECT_EQ(stats->measurementsAdded, 5);
  EXPECT_EQ(stats->duplicates, 0);
  EXPECT_EQ(stats->targets.size(), 2u);
  EXPECT_EQ(exportText(*copy), exported);
  for (unsigned threads : {1u, 4u}) {
    auto a = source->bestConfig(problem, testTarget(threads));
    auto b = copy->bestConfig(problem, testTarget(threads));
    ASSERT_TRUE(a && *a && b && *b);
    EXPECT_EQ((*a)->configKey, (*b)->configKey);
    EXPECT_EQ((*a)->time.median, (*b)->time.median);
  }
  EXPECT_EQ((*copy->bestConfig(problem, testTarget(1)))->configKey,
            def.configKey);

  // Importing it again, or the source's own export into the source, adds
  // nothing.
  stats = copy->importJSONL({{"again.jsonl", exported}});
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->measurementsAdded, 0);
  EXPECT_EQ(stats->duplicates, 5);
  stats = source->importJSONL({{"self.jsonl", exported}});
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->runsAdded, 0);
  EXPECT_EQ(exportText(*source), exported);

  // A run continued after the export: only its new trials are added, and it
  // takes the later state.
  MeasurementRecord later = makeRecord(open.id, 1, 4e-4);
  expectOk(source->recordMeasurement(later, 2));
  expectOk(source->updateRunStatus(open.id, RunStatus::Finished, 2,
                                   later.configKey));
  stats = copy->importJSONL({{"later.jsonl", exportText(*source)}});
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->measurementsAdded, 1);
  EXPECT_EQ(stats->runsExtended, 1);
  EXPECT_EQ(exportText(*copy), exportText(*source));
}

TEST_F(DatabaseTest, ImportIsAllOrNothing) {
  auto source = openOrFail(file("source.db"));
  ASSERT_TRUE(source);
  RunInfo run = makeRun();
  expectOk(source->recordRun(run));
  for (int64_t trial : {0, 1}) {
    MeasurementRecord record = makeRecord(run.id, trial, 1e-3);
    expectOk(source->recordMeasurement(record, 1));
  }
  std::string good = exportText(*source);

  auto target = openOrFail(file("target.db"));
  ASSERT_TRUE(target);
  RunInfo mine = makeRun("conv/f32/x", testTarget(), "grid", 1);
  expectOk(target->recordRun(mine));
  MeasurementRecord record = makeRecord(mine.id, 0, 1e-3);
  expectOk(target->recordMeasurement(record, 1));
  std::string before = exportText(*target);

  auto importError = [&](std::string second) {
    llvm::Expected<ImportStats> stats =
        target->importJSONL({{"good.jsonl", good}, {"second.jsonl", second}});
    if (stats) {
      ADD_FAILURE() << "the import should fail";
      return std::string();
    }
    return llvm::toString(stats.takeError());
  };
  llvm::StringRef firstLine = llvm::StringRef(good).split('\n').first;
  EXPECT_EQ(importError("\n\n{\"run\": "),
            "second.jsonl:3: not valid JSON: [1:8, byte=8]: Unexpected EOF");
  EXPECT_EQ(importError("[1, 2]\n"), "second.jsonl:1: not a JSON object");
  std::string noTrial = firstLine.str();
  size_t at = noTrial.find("\"trial\":");
  ASSERT_NE(at, std::string::npos);
  noTrial.replace(at, 8, "\"tr1al\":");
  EXPECT_EQ(importError(noTrial), "second.jsonl:1: missing field 'trial'");
  std::string noTime = firstLine.str();
  at = noTime.find("\"time\":{");
  ASSERT_NE(at, std::string::npos);
  noTime.replace(at, 8, "\"time\":null,\"x\":{");
  EXPECT_EQ(importError(noTime),
            "second.jsonl:1: an ok measurement needs a 'time' object");
  // The same trial twice in one input.
  EXPECT_EQ(importError(firstLine.str() + "\n" + firstLine.str()),
            "second.jsonl:2: trial 0 of run 1 appears again (first on line 1)");
  EXPECT_EQ(exportText(*target), before);
  // The good input alone imports.
  llvm::Expected<ImportStats> stats = target->importJSONL({{"good", good}});
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->measurementsAdded, 2);
}

TEST_F(DatabaseTest, ImportChecksTheTarget) {
  auto source = openOrFail(file("source.db"));
  ASSERT_TRUE(source);
  RunInfo run = makeRun("matmul/f32/m=64,n=64,k=64", testTarget(4));
  expectOk(source->recordRun(run));
  MeasurementRecord record = makeRecord(run.id, 0, 1e-3);
  expectOk(source->recordMeasurement(record, 1));
  std::string text = exportText(*source);

  auto target = openOrFail(file("target.db"));
  ASSERT_TRUE(target);
  // Another CPU: refused.
  TargetInfo other = testTarget(4);
  other.model = "Other CPU (znver4)";
  ImportOptions options;
  options.expectedTarget = &other;
  llvm::Expected<ImportStats> stats =
      target->importJSONL({{"in.jsonl", text}}, options);
  ASSERT_FALSE(static_cast<bool>(stats));
  std::string message = llvm::toString(stats.takeError());
  EXPECT_NE(message.find("in.jsonl:1: the record was measured on another "
                         "target (" +
                         testTarget(4).describe() + ") than this machine (" +
                         other.describe() + ")"),
            std::string::npos)
      << message;
  EXPECT_TRUE(exportText(*target).empty());
  // The same machine with another thread count: accepted, kept as measured.
  TargetInfo here = testTarget(1);
  options.expectedTarget = &here;
  stats = target->importJSONL({{"in.jsonl", text}}, options);
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  auto best = target->bestConfig(run.problemKey, testTarget(4));
  ASSERT_TRUE(best && *best);
  EXPECT_EQ((*best)->configKey, record.configKey);
  auto none = target->bestConfig(run.problemKey, testTarget(1));
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_FALSE(*none);
}

} // namespace
