//===- Timing.h - Repeated timing of a callable -----------------*- C++ -*-===//
//
// The measurement methodology shared by the CPU and GPU measurers, the JIT
// runner and the benchmarks: warm-up calls, then `repeats` samples, each
// timing a batch of calls long enough to be measured reliably, summarised as
// mean, median, min, max and standard deviation of the time per call
// (TimeStats, the one timing-statistics type of TileTune: the database, the
// tuner and the reports read the same struct). Pure C++ on LLVM Support.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_TIMING_H
#define TILETUNE_MEASURE_TIMING_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir::tiletune {

/// How to time a callable.
struct TimingOptions {
  /// Untimed calls before the first sample (page faults, cache and branch
  /// predictor warm-up, OpenMP thread pool start).
  unsigned warmupRuns = 2;
  /// Number of timed samples (at least 1).
  unsigned repeats = 10;
  /// A sample times a batch of back-to-back calls whose total duration is at
  /// least this many seconds, so that kernels of a few microseconds are not
  /// dominated by clock resolution. The batch size is calibrated from the
  /// warm-up calls; slow kernels use batches of one call.
  double minSampleSeconds = 1e-3;
  /// Upper bound on the calls of one batch.
  unsigned maxCallsPerSample = 1u << 20;
  /// Early stop: once `stopAfterRepeats` samples are taken, sampling stops
  /// as soon as the fastest sample so far took more than this many seconds
  /// per call (0: never). The statistics then summarise the samples taken
  /// (TimeStats::repeats < repeats); nothing is extrapolated. The tuner sets
  /// it to a multiple of the best time so far, so a candidate that is
  /// clearly slower costs a few samples instead of all of them.
  double stopAboveSeconds = 0;
  /// Samples taken before the early stop may end the timing (at least 1).
  unsigned stopAfterRepeats = 3;
  /// Early stop of paired timing (measurePaired) on the drift-free measure:
  /// once `stopAfterRepeats` samples are taken, sampling stops as soon as
  /// the smallest ratio so far of a subject sample to the reference samples
  /// around it exceeds this (0: never). Either threshold may stop a paired
  /// timing.
  double stopAboveRatio = 0;
  /// Precision stop of paired timing: once `precisionAfterRepeats` samples
  /// are taken, sampling stops as soon as the spread of the ratios so far,
  /// (max - min) / median, is at most this (0: never). The candidate's
  /// ratio to the reference is then known to within that spread; more
  /// samples would not change its rank beyond it. Not an early stop of a
  /// slow candidate (TimeStats::stoppedEarly stays false).
  double stopBelowRatioSpread = 0;
  /// Samples taken before the precision stop may end the timing (>= 2).
  unsigned precisionAfterRepeats = 5;
};

/// When a search candidate's timing may stop early: it is clearly slower
/// than the best so far (TimingOptions::stopAboveSeconds / stopAboveRatio;
/// 0 = not this way).
struct EarlyStop {
  double seconds = 0;
  double ratio = 0;
  /// TimingOptions::stopBelowRatioSpread (paired timing; 0 = off).
  double ratioSpread = 0;
  bool any() const { return seconds > 0 || ratio > 0 || ratioSpread > 0; }
};

/// The ranges validateTimingOptions accepts. They keep every derived limit
/// (a worker's deadline is about repeats x sample length) far from overflow
/// and a single variant's timing below a few hours.
constexpr unsigned kMaxWarmupRuns = 10000;
constexpr unsigned kMaxRepeats = 100000;
constexpr double kMaxMinSampleSeconds = 60.0;

/// Checks `options` against the ranges above (and maxCallsPerSample >= 1);
/// the message names the valid range. Every front-end calls it before any
/// work starts; measure() and measurePaired() check again.
llvm::Error validateTimingOptions(const TimingOptions &options);

/// Statistics of the time per call of one variant, in seconds.
struct TimeStats {
  double mean = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  /// Sample standard deviation (n - 1 denominator; 0 for one sample).
  double stddev = 0;
  /// Number of timed samples the statistics summarise.
  unsigned repeats = 0;
  /// Calls timed together in each sample (1 when unknown).
  unsigned callsPerSample = 1;
  /// The timing stopped early (TimingOptions::stopAboveSeconds): `repeats`
  /// samples were taken instead of the number asked for.
  bool stoppedEarly = false;
  /// Time per call of every sample, in the order measured. Kept by the
  /// timing functions; empty where only the summary travels (worker
  /// protocol, database).
  llvm::SmallVector<double> samples;

  /// Computes all statistics from per-call times `samples` (seconds) and
  /// keeps them. An empty list gives all zeros and `repeats` = 0.
  static TimeStats fromSamples(llvm::ArrayRef<double> samples,
                               unsigned callsPerSample = 1);

  /// The statistic that ranks variants: the median (robust to the outliers
  /// of a noisy machine).
  double seconds() const { return median; }
  /// Coefficient of variation (stddev / mean), 0 when mean is 0.
  double relativeStddev() const { return mean > 0 ? stddev / mean : 0.0; }
  /// "mean 1.234 ms, median ..., min ..., max ..., stddev ... (n samples x
  /// k calls)".
  std::string summary() const;
};

/// Times `fn` according to `options`. Fails only on invalid options. With
/// `beforeEachCall`, that runs before every call of `fn` (warm-up calls
/// included) outside the timed region, and every sample times one call.
llvm::Expected<TimeStats>
measure(llvm::function_ref<void()> fn, const TimingOptions &options = {},
        llvm::function_ref<void()> beforeEachCall = nullptr);

/// Evicts the cache lines of `bytes` bytes at `data` from every cache level
/// (x86 `clflush`; nothing elsewhere), so that the next call that reads
/// them finds them in memory, as a model's weights are when the ops before
/// have gone through more data than the caches hold.
void evictFromCaches(const void *data, size_t bytes);

/// Timing of a subject interleaved with a reference (measurePaired).
struct PairedTimeStats {
  /// Time per call of the subject.
  TimeStats subject;
  /// Time per call of the reference (one sample more than the subject: one
  /// before every subject sample and one after the last).
  TimeStats reference;
  /// Per subject sample: its time divided by the mean of the two reference
  /// samples around it. The median of these ranks the subject.
  TimeStats ratio;
};

/// Times `subject` interleaved with `reference`: both are warmed up and
/// calibrated separately (batch sizes as in measure()), then the samples
/// alternate reference, subject, reference, ..., reference, so every subject
/// sample has reference samples taken just before and just after it under
/// the same machine conditions. A machine whose speed drifts between samples
/// (frequency, other tenants, a compile on a sibling core) moves both, and
/// the ratio cancels most of it. Fails only on invalid options.
llvm::Expected<PairedTimeStats>
measurePaired(llvm::function_ref<void()> subject,
              llvm::function_ref<void()> reference,
              const TimingOptions &options = {});

/// Whether a paired timing whose ratios so far are `ratios` is precise
/// enough for the precision stop of `options` (stopBelowRatioSpread,
/// precisionAfterRepeats).
bool isPreciseEnough(llvm::ArrayRef<double> ratios,
                     const TimingOptions &options);

/// GFLOP/s achieved by `flops` floating-point operations in `seconds`.
inline double computeGFlops(double flops, double seconds) {
  return seconds > 0 ? flops / seconds * 1e-9 : 0.0;
}

/// Formats a duration in seconds with a readable unit ("812.3 us").
std::string formatDuration(double seconds);

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_TIMING_H
