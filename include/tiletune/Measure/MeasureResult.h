//===- MeasureResult.h - Typed results of measuring one variant -*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The outcome of measuring one configuration: a status that says what went
// wrong (if anything) and the time statistics of the runs. Failures are data,
// never lost: the tuner records every one of them in the tuning database.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_MEASURERESULT_H
#define TILETUNE_MEASURE_MEASURERESULT_H

#include "tiletune/Measure/Timing.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace tiletune {

/// What happened when a configuration was measured.
enum class MeasureStatus : uint8_t {
  /// Compiled, ran, and (where verified) produced the right answer.
  Ok,
  /// The configuration was rejected before compilation (constraint violated,
  /// the passes refused the attribute, ...).
  Invalid,
  /// Building the variant failed (pass failure, LLVM/JIT error, or the build
  /// crashed the worker).
  CompileError,
  /// The variant crashed or failed while running.
  RuntimeError,
  /// The variant ran but its output did not match the reference.
  WrongResult,
  /// The variant did not finish within its time limit and was killed.
  Timeout,
};

/// Returns the stable lowercase name of \p status ("ok", "invalid",
/// "compile_error", "runtime_error", "wrong_result", "timeout"). These names
/// are stored in the database and the JSON export.
llvm::StringRef stringifyMeasureStatus(MeasureStatus status);

/// Parses a name produced by stringifyMeasureStatus; std::nullopt otherwise.
std::optional<MeasureStatus> parseMeasureStatus(llvm::StringRef name);

/// Why a configuration was measured within a run.
enum class MeasurementRole : uint8_t {
  /// The caller-supplied default configuration, measured first.
  Default,
  /// A candidate proposed by the search strategy.
  Search,
  /// A re-measurement at the end of the run (winner and default).
  Final,
};

/// Returns "default", "search" or "final".
llvm::StringRef stringifyMeasurementRole(MeasurementRole role);
/// Parses a name produced by stringifyMeasurementRole.
std::optional<MeasurementRole> parseMeasurementRole(llvm::StringRef name);

/// Where the time of one measurement went, seconds of wall clock. The
/// worker fills the busy times of its phases; the measurer that drives the
/// worker adds how long the tuner waited for the compile and for the run
/// (in a pipelined measurer a compile mostly overlaps the previous
/// candidate's timing, so its wait is shorter than its busy time). The tuner
/// sums them into its throughput breakdown (TuneResult::throughput).
struct MeasurePhases {
  /// Our MLIR passes: parsing the config, the tiletune-lower-cpu pipeline.
  double passSeconds = 0;
  /// LLVM: translation to LLVM IR, IR optimisation, code generation (JIT).
  double codegenSeconds = 0;
  /// The verified run against the reference.
  double verifySeconds = 0;
  /// Warm-up and timed samples (with paired timing, the reference's too).
  double timingSeconds = 0;
  /// The compiled variant came from the worker's cache (no passes, no
  /// codegen).
  bool cacheHit = false;
  /// Wall clock the caller waited for the compile, and for the run (verify +
  /// timing + worker round trips); 0 where the measurer does not say.
  double compileWaitSeconds = 0;
  double runWaitSeconds = 0;
};

/// The full result of measuring one configuration.
struct MeasureResult {
  MeasureStatus status = MeasureStatus::Invalid;
  /// Valid only when status == Ok. The variant's own measured time per call
  /// (median of its samples, with min, max, mean and stddev). Never rescaled
  /// by another variant's measurement: what is shown and stored is what was
  /// measured.
  TimeStats time;
  /// Paired timing: the median over samples of the variant's time divided by
  /// the time of the reference variant timed just before and after it
  /// (Timing.h, measurePaired); 0 when the variant was timed alone. It may
  /// rank variants (the tuner's cost), it never changes `time`.
  double relative = 0;
  /// Paired timing: the reference variant's median time per call during this
  /// measurement, seconds (0 when timed alone).
  double referenceSeconds = 0;
  /// Achieved GFLOP/s at the measured median time; 0 when unknown or not
  /// Ok. The tuner fills it in from the problem's flop count when the
  /// measurer leaves it at 0.
  double gflops = 0;
  /// Human-readable reason for a failure (compiler diagnostics, signal, ...).
  std::string message;
  /// Wall-clock seconds this measurement cost in total (build + runs).
  double costSeconds = 0;
  /// Where that time went (not stored in the database).
  MeasurePhases phases;

  bool ok() const { return status == MeasureStatus::Ok; }

  /// A successful result with the given statistics.
  static MeasureResult success(const TimeStats &time, double gflops = 0);
  /// A failed result with the given status (must not be Ok) and reason.
  static MeasureResult failure(MeasureStatus status, llvm::StringRef message);
};

/// Serialises a MeasureResult to JSON text and back: the protocol between
/// a measurer and its worker process. The statistics travel, the raw
/// samples do not.
std::string encodeMeasureResult(const MeasureResult &result);
llvm::Expected<MeasureResult> decodeMeasureResult(llvm::StringRef text);

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_MEASURE_MEASURERESULT_H
