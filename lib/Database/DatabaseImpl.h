//===- DatabaseImpl.h - Internals shared by the database files --*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// What several source files of TileTuneDatabase agree on (private to
// lib/Database): the column lists of run and measurement rows with the
// position of every column, how a seed is stored, and the clock.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_DATABASE_DATABASEIMPL_H
#define TILETUNE_LIB_DATABASE_DATABASEIMPL_H

#include <cstdint>
#include <cstring>
#include <string>

namespace mlir {
namespace tiletune {
namespace detail {

/// The columns every run query selects, in the order readRunRow expects.
constexpr const char *kRunColumns =
    "r.id, p.key, p.description, t.kind, t.model, t.features, t.threads, "
    "t.toolchain, r.algorithm, r.seed, r.budget_trials, r.budget_seconds, "
    "r.options, r.tool_version, r.started_at, r.finished_at, "
    "r.elapsed_seconds, r.status, r.strategy_state, r.result_config_key, "
    "r.owner";
/// The number of columns in kRunColumns.
constexpr int kNumRunColumns = 21;
/// The tables kRunColumns reads from (runs `r`, problems `p`, targets `t`).
constexpr const char *kRunJoins =
    " FROM runs r JOIN problems p ON p.id = r.problem_id "
    "JOIN targets t ON t.id = r.target_id ";

/// The columns of a measurement (table aliased `m`) that queries select, up
/// to the paired-timing ones; TileTuneDatabase::pairedColumns() follows.
constexpr const char *kMeasurementColumns =
    "m.trial, m.role, m.config_key, m.config, m.status, m.mean_s, m.median_s, "
    "m.min_s, m.max_s, m.stddev_s, m.repeats, m.gflops, m.message, m.cost_s, "
    "m.created_at, ";

/// The position of each column of kMeasurementColumns + pairedColumns(),
/// relative to the first of them. Mean to Repeats are in the order
/// Statement::readTimeStats() decodes.
enum class MeasurementColumn : int {
  Trial,
  Role,
  ConfigKey,
  Config,
  Status,
  Mean,
  Median,
  Min,
  Max,
  Stddev,
  Repeats,
  Gflops,
  Message,
  CostSeconds,
  CreatedAt,
  Relative,
  RawMedian,
};

/// The index of \p column in a row whose measurement columns start at
/// \p firstColumn.
constexpr int columnOf(int firstColumn, MeasurementColumn column) {
  return firstColumn + static_cast<int>(column);
}

/// Seeds are unsigned 64-bit; SQLite stores them as the signed integer with
/// the same bits.
inline int64_t seedToSql(uint64_t seed) {
  int64_t value;
  memcpy(&value, &seed, sizeof(value));
  return value;
}
inline uint64_t seedFromSql(int64_t value) {
  uint64_t seed;
  memcpy(&seed, &value, sizeof(seed));
  return seed;
}

/// The current Unix time in seconds.
double unixNow();

/// "2025-01-31T12:34:56.789Z" for a Unix time in seconds; "" for <= 0.
std::string isoTime(double unixSeconds);

} // namespace detail
} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_LIB_DATABASE_DATABASEIMPL_H
