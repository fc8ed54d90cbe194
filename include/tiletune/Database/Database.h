//===- Database.h - SQLite store of every tuning measurement ----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// TileTuneDatabase records every measurement of every tuning run in one
// SQLite file: the problem, the target it ran on (machine and toolchain), the
// run's algorithm, seed and options, and per measurement the config, status
// and time statistics. Each result is committed in its own transaction (WAL
// journal) before the next candidate runs, so a killed tuner loses
// nothing and can resume. Queries answer "best config for this problem on
// this target" (never from another target unless explicitly allowed),
// aggregate reports, and export to JSON Lines and import (merge) of such
// exports. See docs/Database.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DATABASE_DATABASE_H
#define TILETUNE_DATABASE_DATABASE_H

#include "tiletune/Measure/MeasureResult.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

struct sqlite3;

namespace mlir {
namespace tiletune {

/// Lifecycle of a tuning run.
enum class RunStatus : uint8_t {
  /// Started and not (yet) ended; after a kill it stays so and is resumable.
  Running,
  /// Ended normally: budget spent, final re-measurement done.
  Finished,
  /// Ended by an error (e.g. the measurer failed); resumable.
  Failed,
  /// Stopped early on request (callback, signal); resumable.
  Interrupted,
};

/// Returns "running", "finished", "failed" or "interrupted".
llvm::StringRef stringifyRunStatus(RunStatus status);
/// Parses a name produced by stringifyRunStatus.
std::optional<RunStatus> parseRunStatus(llvm::StringRef name);

/// One tuning run: a search for one problem on one target.
struct RunInfo {
  /// Assigned by recordRun().
  int64_t id = 0;
  /// Opaque problem key, e.g. "matmul/f32/m=512,n=1024,k=1024".
  std::string problemKey;
  /// JSON text describing the problem (shapes, types, ...); may be empty.
  std::string problemDescription;
  TargetInfo target;
  /// Search algorithm name, e.g. "random", "gbfs".
  std::string algorithm;
  uint64_t seed = 0;
  /// Trial budget; 0 means none.
  int64_t budgetTrials = 0;
  /// Wall-clock budget in seconds; 0 means none.
  double budgetSeconds = 0;
  /// JSON text of the algorithm's and the tuner's options; may be empty.
  std::string options;
  /// Version of the tool that started the run (default: this build).
  std::string toolVersion;
  /// Unix times in seconds; finishedAt is 0 while not ended.
  double startedAt = 0;
  double finishedAt = 0;
  /// Tuning time spent so far (updated with every measurement).
  double elapsedSeconds = 0;
  RunStatus status = RunStatus::Running;
  /// Opaque serialised strategy state, if the tuner saved one.
  std::string strategyState;
  /// Config key of the run's result (set when the run finished).
  std::string resultConfigKey;
  /// The process tuning the run, as getCurrentRunOwner() writes it
  /// ("host:pid:start-time"); empty when unknown.
  std::string owner;
};

/// One measurement of one configuration in one run.
struct MeasurementRecord {
  int64_t runId = 0;
  /// Position in the run, 0-based, contiguous; unique per run.
  int64_t trial = 0;
  MeasurementRole role = MeasurementRole::Search;
  /// Canonical key of the configuration (used for de-duplication).
  std::string configKey;
  /// JSON text of the configuration.
  std::string config;
  MeasureResult result;
  /// Unix time in seconds at which it was recorded (set by the database).
  double createdAt = 0;
};

/// The answer of bestConfig().
struct BestConfig {
  std::string problemKey;
  /// The target the result was measured on.
  TargetInfo target;
  /// False when the result comes from another target (only with
  /// BestConfigOptions::allowForeignTargets): never apply it silently.
  bool exactTarget = true;
  int64_t runId = 0;
  std::string algorithm;
  std::string configKey;
  std::string config;
  TimeStats time;
  double gflops = 0;
};

/// Options of bestConfig().
struct BestConfigOptions {
  /// When the exact target has no result, fall back to the most similar
  /// target of the same kind (same model and features first). The answer's
  /// exactTarget is then false and its target names where it came from.
  bool allowForeignTargets = false;
};

/// One row of report(): aggregates per problem, target and algorithm.
struct ReportRow {
  std::string problemKey;
  TargetInfo target;
  std::string algorithm;
  unsigned runs = 0;
  /// Measurements of candidates (default and search roles).
  int64_t trials = 0;
  /// How many of them were Ok.
  int64_t okTrials = 0;
  /// Tuning time of the runs, summed.
  double secondsUsed = 0;
  /// The best result (as bestConfig() ranks them); empty when none was Ok.
  std::string bestConfigKey;
  std::string bestConfig;
  double bestSeconds = 0;
  double bestGflops = 0;
  /// The default config's measured time: its fastest confirmation round,
  /// or without one its fastest first measurement, if any was Ok.
  std::optional<double> defaultSeconds;
  std::optional<double> defaultGflops;
  /// The default config's key (empty when defaultSeconds is unset). When it
  /// equals bestConfigKey, no variant was faster and the default is kept.
  std::string defaultConfigKey;
};

/// One input of importJSONL(): JSON Lines text as exportJSONL() writes it.
struct JSONLSource {
  /// Names the input in error messages ("results.jsonl:12: ...").
  std::string name;
  llvm::StringRef text;
};

/// Options of importJSONL().
struct ImportOptions {
  /// When set, every record must have been measured on this machine: its
  /// target must equal this one in everything but the thread count (results
  /// are kept per thread count anyway). A record of another target is then
  /// an error naming its line, and nothing is imported. When null, records
  /// of every target are imported, each under its own target (which is
  /// what `apply` and bestConfig() select by, so they are never applied to
  /// another machine silently).
  const TargetInfo *expectedTarget = nullptr;
};

/// What importJSONL() did.
struct ImportStats {
  /// Non-blank lines read.
  int64_t lines = 0;
  /// Runs created, and runs already present that received new measurements.
  int64_t runsAdded = 0;
  int64_t runsExtended = 0;
  /// Measurements written, and measurements skipped because the database
  /// already held them (same run and trial with the same config and status).
  int64_t measurementsAdded = 0;
  int64_t duplicates = 0;
  /// Descriptions of the targets the records belong to, sorted.
  llvm::SmallVector<std::string> targets;
};

/// How to open a database file.
enum class OpenMode : uint8_t {
  /// Create the file and schema when missing; read and write.
  CreateIfMissing,
  /// The file must exist; read and write.
  ReadWrite,
  /// The file must exist; queries only.
  ReadOnly,
};

/// How hard a commit waits for the disk.
enum class SyncMode : uint8_t {
  /// Committed results survive a kill -9 or a crash of the tuner (the WAL
  /// has been written when COMMIT returns), but a power loss or an OS crash
  /// may lose the last ones (SQLite synchronous=NORMAL in WAL mode). The
  /// default: about 0.5 ms per result instead of an fsync (several ms).
  Normal,
  /// Also fsync on every commit: committed results survive a power loss too
  /// (SQLite synchronous=FULL).
  Full,
};

/// A TileTune tuning database (one SQLite file). Not thread-safe: use one
/// object per thread. Several processes may use one file at once (WAL mode,
/// busy timeout).
class TileTuneDatabase {
public:
  /// The schema version this build writes and reads (PRAGMA user_version).
  /// Version 2 added the paired-timing columns of measurements (relative,
  /// raw_median_s); a version-1 file is upgraded in place when opened for
  /// writing and read as is (without them) when opened read-only.
  /// Version 3 stores measured times only: version 2 rescaled paired-timed
  /// statistics to the run's reference speed (measured median in
  /// raw_median_s); a version-2 file is restored to measured times in place
  /// when opened for writing, and read through a view that restores them
  /// when opened read-only.
  static constexpr int kSchemaVersion = 3;
  /// The SQLite application id of TileTune files (PRAGMA application_id).
  static constexpr int32_t kApplicationId = 0x54547442; // "TTtB"

  /// Opens (or creates) the database at \p path. Fails with a clear message
  /// for a missing file (unless created), a file that is not SQLite or is
  /// corrupt, an SQLite file of another tool, or a schema from a newer
  /// TileTune.
  static llvm::Expected<std::unique_ptr<TileTuneDatabase>>
  open(llvm::StringRef path, OpenMode mode = OpenMode::CreateIfMissing,
       SyncMode sync = SyncMode::Normal);

  ~TileTuneDatabase();
  TileTuneDatabase(const TileTuneDatabase &) = delete;
  TileTuneDatabase &operator=(const TileTuneDatabase &) = delete;

  /// The file this database was opened from.
  llvm::StringRef getPath() const { return path; }

  /// Records a new run (and its problem and target, if new) in one
  /// transaction; sets run.id, run.startedAt (if 0) and run.toolVersion (if
  /// empty). Problem description, options and strategy state must be valid
  /// JSON text or empty.
  llvm::Error recordRun(RunInfo &run);

  /// Records one measurement and the run's elapsed time in one committed
  /// transaction; sets record.createdAt. Fails if the run does not exist, the
  /// trial index is taken, or the config is not valid JSON.
  llvm::Error recordMeasurement(MeasurementRecord &record,
                                double runElapsedSeconds);

  /// Ends (or re-opens) a run: sets its status, elapsed time, finishedAt
  /// (now, for a status other than Running; 0 otherwise) and result config.
  llvm::Error updateRunStatus(int64_t runId, RunStatus status,
                              double elapsedSeconds,
                              llvm::StringRef resultConfigKey = "");

  /// Stores an opaque strategy state for \p runId.
  llvm::Error saveStrategyState(int64_t runId, llvm::StringRef state);

  /// Makes \p newOwner the owner of a run if its owner is still
  /// \p expectedOwner (an atomic compare-and-swap, so two processes cannot
  /// both take over a run). Returns whether the claim succeeded.
  llvm::Expected<bool> claimRun(int64_t runId, llvm::StringRef expectedOwner,
                                llvm::StringRef newOwner);

  /// The run with this id.
  llvm::Expected<RunInfo> getRun(int64_t runId);

  /// All runs, oldest first; only those of \p problemKey when not empty.
  llvm::Expected<llvm::SmallVector<RunInfo, 0>>
  listRuns(llvm::StringRef problemKey = "");

  /// All measurements of a run ordered by trial index.
  llvm::Expected<llvm::SmallVector<MeasurementRecord, 0>>
  measurementsOfRun(int64_t runId);

  /// The most recent run of this problem, target (exact key), algorithm and
  /// seed that has not finished (status running, failed or interrupted).
  llvm::Expected<std::optional<RunInfo>>
  findResumableRun(llvm::StringRef problemKey, const TargetInfo &target,
                   llvm::StringRef algorithm, uint64_t seed);

  /// The best known configuration of \p problemKey on \p target. For a
  /// finished run its result (as re-measured at the end) counts; for other
  /// runs their fastest Ok measurement. Only results of exactly this target
  /// are considered unless options.allowForeignTargets is set.
  llvm::Expected<std::optional<BestConfig>>
  bestConfig(llvm::StringRef problemKey, const TargetInfo &target,
             const BestConfigOptions &options = {});

  /// The keys of all problems with at least one run, sorted.
  llvm::Expected<llvm::SmallVector<std::string>> listProblems();

  /// The problem description JSON text recorded for \p problemKey.
  llvm::Expected<std::string> getProblemDescription(llvm::StringRef problemKey);

  /// Aggregates per problem, target and algorithm, sorted by problem key,
  /// target key, algorithm. Restricted to \p target when given.
  llvm::Expected<llvm::SmallVector<ReportRow, 0>>
  report(const TargetInfo *target = nullptr);

  /// Writes every measurement as one self-contained JSON object per line
  /// (run, problem, target, config, status, times), ordered by run and trial.
  llvm::Error exportJSONL(llvm::raw_ostream &os);

  /// Imports JSON Lines written by exportJSONL() (possibly by other machines
  /// and into other databases) in one transaction: either every record is
  /// written or, on any error, nothing is. Each record keeps its target. A
  /// run is identified by problem, target, algorithm, seed and start time,
  /// so importing the same export twice, or an export of this very
  /// database, adds nothing; a measurement is identified by its run and
  /// trial, and one that is present with another config or status is a
  /// conflict (an error). Errors name the input and line ("name:line:").
  llvm::Expected<ImportStats> importJSONL(llvm::ArrayRef<JSONLSource> sources,
                                          const ImportOptions &options = {});

  /// Runs SQLite's quick_check over the whole file; an error describes the
  /// first problem found.
  llvm::Error verifyIntegrity();

private:
  TileTuneDatabase(sqlite3 *handle, std::string path, bool readOnly);
  class Statement;
  llvm::Error execute(llvm::StringRef sql);
  llvm::Error sqliteError(llvm::StringRef what) const;
  llvm::Error checkOrCreateSchema(SyncMode sync);
  llvm::Expected<int64_t> findOrInsertTarget(const TargetInfo &target);
  llvm::Expected<int64_t> findOrInsertProblem(llvm::StringRef key,
                                              llvm::StringRef description);
  llvm::Expected<std::optional<int64_t>> lookupTargetId(const TargetInfo &t);
  llvm::Expected<std::optional<int64_t>> lookupProblemId(llvm::StringRef key);
  llvm::Expected<std::optional<BestConfig>>
  bestOfRuns(llvm::StringRef whereSql, int64_t problemId, int64_t targetId,
             llvm::StringRef algorithm);
  llvm::Expected<RunInfo> readRunRow(Statement &stmt);

  /// PRAGMA user_version of the file (the schema version).
  llvm::Expected<int64_t> readUserVersion();
  /// The paired-timing columns of `measurements` as selected by queries
  /// ("m.relative, m.raw_median_s", or NULLs in a read-only version-1 file).
  llvm::StringRef pairedColumns() const;

  sqlite3 *db = nullptr;
  std::string path;
  bool readOnly = false;
  /// Upgrades a version-2 file to measured times (version 3), or shadows
  /// its measurements with a view that restores them when read-only.
  llvm::Error restoreMeasuredTimes();
  /// The file has the paired-timing columns (schema version >= 2).
  bool hasPairedColumns = true;
};

/// The owner token of this process for RunInfo::owner:
/// "hostname:pid:start-time" (the start time tells a reused pid apart).
std::string getCurrentRunOwner();

/// Whether the process named by an owner token is still running: true or
/// false on this host, std::nullopt when the token names another host (it
/// cannot be checked from here). An empty or malformed token is not alive.
std::optional<bool> isRunOwnerAlive(llvm::StringRef owner);

/// The user's tuning database: ~/.cache/tiletune/tuning.db
/// ($XDG_CACHE_HOME is honoured).
std::string getDefaultDatabasePath();

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_DATABASE_DATABASE_H
