//===- Measurement.h - Typed results of measuring one variant ---*- C++ -*-===//
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

#ifndef TILETUNE_SUPPORT_MEASUREMENT_H
#define TILETUNE_SUPPORT_MEASUREMENT_H

#include "llvm/ADT/ArrayRef.h"
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

/// Summary statistics over the timed repetitions of one variant, in seconds.
struct TimeStats {
  double mean = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;
  /// Number of timed repetitions the statistics summarise.
  unsigned repeats = 0;

  /// Computes all statistics from raw per-repetition times. The sample
  /// standard deviation (n-1) is used; it is 0 for a single sample.
  static TimeStats fromSamples(llvm::ArrayRef<double> samples);

  /// The statistic that ranks variants: the median (robust to the outliers of
  /// a noisy machine).
  double seconds() const { return median; }
};

/// The full result of measuring one configuration.
struct MeasureResult {
  MeasureStatus status = MeasureStatus::Invalid;
  /// Valid only when status == Ok. The statistics that rank the variant:
  /// measured wall times, or with paired timing (`relative` > 0, after
  /// normalizeToReference) the measured times rescaled to the speed the
  /// reference variant had at the start of the run.
  TimeStats time;
  /// Paired timing: the median over samples of the variant's time divided by
  /// the time of the reference variant timed just before and after it
  /// (Timing.h, measurePaired); 0 when the variant was timed alone.
  double relative = 0;
  /// Paired timing: the reference variant's median time per call during this
  /// measurement, seconds (0 when timed alone).
  double referenceSeconds = 0;
  /// The variant's measured median when `time` was normalized to a reference
  /// speed, seconds (0 when `time` holds the measured times).
  double rawSeconds = 0;
  /// Achieved GFLOP/s at the median time; 0 when unknown or not Ok. The
  /// tuner fills it in from the problem's flop count when the measurer
  /// leaves it at 0.
  double gflops = 0;
  /// Human-readable reason for a failure (compiler diagnostics, signal, ...).
  std::string message;
  /// Wall-clock seconds this measurement cost in total (build + runs).
  double costSeconds = 0;

  bool ok() const { return status == MeasureStatus::Ok; }

  /// Rescales `time` of a paired-timed Ok result to the reference speed
  /// `referenceScaleSeconds` (the reference's time per call that all results
  /// of a run are expressed in): the median becomes relative * scale, the
  /// other statistics keep their proportions to it, the measured median is
  /// kept in rawSeconds and gflops follow the new median when `flops` > 0.
  /// Results without `relative`, failures and already normalized results
  /// are left alone.
  void normalizeToReference(double referenceScaleSeconds, double flops);

  /// A successful result with the given statistics.
  static MeasureResult success(const TimeStats &time, double gflops = 0);
  /// A failed result with the given status (must not be Ok) and reason.
  static MeasureResult failure(MeasureStatus status, llvm::StringRef message);
};

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_SUPPORT_MEASUREMENT_H
