//===- Measurer.h - The interface of every measurer -------------*- C++ -*-===//
//
// What the tuner asks of a measurer and how results come back. The tuner
// knows only this interface; the CPU measurer (CPUMeasurer.h), the GPU
// measurer (GPUMeasurer.h) and the synthetic measurers of the tests
// implement it. MLIR-free, so the tuning loop links no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_MEASURER_H
#define TILETUNE_MEASURE_MEASURER_H

#include "tiletune/Measure/MeasureResult.h"
#include "tiletune/Space/Space.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstddef>

namespace mlir::tiletune {

/// What the tuner asks of one measure() call.
struct MeasureRequest {
  /// Why the batch is measured (the final re-measurement may use more
  /// repetitions).
  MeasurementRole role = MeasurementRole::Search;
  /// Limit for one execution of a variant, in seconds: a variant that runs
  /// longer is killed and reported as MeasureStatus::Timeout. It scales with
  /// the best time so far (see TunerOptions::timeoutFactor).
  double runTimeoutSeconds = 0;
  /// Limit for building one variant, in seconds (<= 0: none).
  double compileTimeoutSeconds = 0;
  /// The best (lowest) measured median time per call so far, seconds (0:
  /// none, or no early stop wanted). A measurer may stop timing a candidate
  /// once it is clearly slower than this (CPUMeasureOptions::earlyStopFactor)
  /// and report it with the samples it took (TimeStats::stoppedEarly); the
  /// tuner sets it for search candidates only.
  double incumbentSeconds = 0;
  /// The same incumbent's median time ratio to the reference of paired
  /// timing (MeasureResult::relative; 0: none). A paired measurer stops on
  /// this instead of seconds.
  double incumbentRelative = 0;
};

/// Called by a Measurer for each result as soon as it is known: the index of
/// the config in the batch and its result. Returns false when the tuner
/// wants the measurer to stop (the remaining configs of the batch are then
/// dropped and measured again later, e.g. after a resume).
using MeasureResultSink =
    llvm::function_ref<bool(size_t index, const MeasureResult &result)>;

/// Measures configurations: builds, runs, times and verifies variants.
/// The MLIR side implements it with JIT-compiled kernels in isolated worker
/// processes; tests use synthetic measurers.
///
/// A measurer receives whole batches so that it can compile upcoming
/// candidates while earlier ones are timed, as long as that does not disturb
/// the timings (e.g. compile in a worker that is idle during timing, or
/// compile the whole batch before timing any of it). Failures of a variant
/// are results (a MeasureStatus), never errors; an llvm::Error means the
/// measuring machinery itself broke and ends the run (it stays resumable).
class Measurer {
public:
  virtual ~Measurer();

  /// Measures \p batch, calling \p sink exactly once per config (in any
  /// order) unless the sink returned false; then it should return soon. The
  /// sink records the result in the database before it returns, so call it
  /// before starting to time the next variant, and from the thread that
  /// called measure(). Returning before reporting every config, without an
  /// error and without being stopped, is an error of the measurer that the
  /// tuner reports.
  virtual llvm::Error measure(llvm::ArrayRef<Config> batch,
                              const MeasureRequest &request,
                              MeasureResultSink sink) = 0;

  /// Called with every result read back from the database when a run is
  /// resumed, in recorded order, before anything new is measured, for a
  /// measurer that keeps state across a run. The default does nothing.
  virtual void replayed(const MeasureResult &result);
};

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_MEASURER_H
