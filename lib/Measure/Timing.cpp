//===- Timing.cpp - Repeated timing of a callable -------------------------===//
//
// Warm-up, batch calibration, sampling and summary statistics.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/Timing.h"

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

using namespace mlir::tiletune;

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

std::string mlir::tiletune::formatDuration(double seconds) {
  if (seconds >= 1.0)
    return llvm::formatv("{0:f3} s", seconds).str();
  if (seconds >= 1e-3)
    return llvm::formatv("{0:f3} ms", seconds * 1e3).str();
  if (seconds >= 1e-6)
    return llvm::formatv("{0:f3} us", seconds * 1e6).str();
  return llvm::formatv("{0:f1} ns", seconds * 1e9).str();
}

std::string TimeStats::summary() const {
  return llvm::formatv("mean {0}, median {1}, min {2}, max {3}, stddev {4} "
                       "({5} samples x {6} calls)",
                       formatDuration(mean), formatDuration(median),
                       formatDuration(min), formatDuration(max),
                       formatDuration(stddev), repeats, callsPerSample)
      .str();
}

TimeStats TimeStats::fromSamples(llvm::ArrayRef<double> samples,
                                 unsigned callsPerSample) {
  TimeStats stats;
  stats.callsPerSample = callsPerSample;
  if (samples.empty())
    return stats;
  stats.samples.assign(samples.begin(), samples.end());
  llvm::SmallVector<double> sorted(samples.begin(), samples.end());
  llvm::sort(sorted);
  size_t n = sorted.size();
  stats.repeats = static_cast<unsigned>(n);
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.median =
      n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double sum = 0.0;
  for (double s : samples)
    sum += s;
  stats.mean = sum / n;
  if (n > 1) {
    double sq = 0.0;
    for (double s : samples)
      sq += (s - stats.mean) * (s - stats.mean);
    stats.stddev = std::sqrt(sq / (n - 1));
  }
  return stats;
}

llvm::Error
mlir::tiletune::validateTimingOptions(const TimingOptions &options) {
  if (options.repeats < 1 || options.repeats > kMaxRepeats)
    return llvm::createStringError(llvm::formatv(
        "the number of timed repeats must be between 1 and {0}, got {1}",
        kMaxRepeats, options.repeats));
  if (options.warmupRuns > kMaxWarmupRuns)
    return llvm::createStringError(llvm::formatv(
        "the number of warm-up runs must be between 0 and {0}, got {1}",
        kMaxWarmupRuns, options.warmupRuns));
  // Written so that NaN fails too.
  if (!(options.minSampleSeconds >= 0.0 &&
        options.minSampleSeconds <= kMaxMinSampleSeconds))
    return llvm::createStringError(llvm::formatv(
        "the minimum sample duration must be between 0 and {0:f0} ms, got {1} "
        "ms",
        kMaxMinSampleSeconds * 1e3, options.minSampleSeconds * 1e3));
  if (options.maxCallsPerSample == 0)
    return llvm::createStringError(
        "the maximum number of calls per sample must be at least 1");
  if (!(options.stopAboveSeconds >= 0.0 &&
        std::isfinite(options.stopAboveSeconds)))
    return llvm::createStringError(llvm::formatv(
        "the early-stop threshold must be a finite number of seconds >= 0, "
        "got {0}",
        options.stopAboveSeconds));
  if (options.stopAfterRepeats == 0)
    return llvm::createStringError(
        "the samples before an early stop must be at least 1");
  if (!(options.stopAboveRatio >= 0 &&
        options.stopAboveRatio < std::numeric_limits<double>::infinity()))
    return llvm::createStringError(llvm::formatv(
        "the early-stop ratio must be a finite number >= 0, got {0}",
        options.stopAboveRatio));
  if (!(options.stopBelowRatioSpread >= 0 &&
        options.stopBelowRatioSpread <= 1))
    return llvm::createStringError(llvm::formatv(
        "the precision stop's ratio spread must be between 0 and 1, got {0}",
        options.stopBelowRatioSpread));
  if (options.precisionAfterRepeats < 2)
    return llvm::createStringError(
        "the samples before a precision stop must be at least 2");
  return llvm::Error::success();
}

/// Warm-up calls; the fastest one calibrates the batch size. One untimed
/// calibration call is made even when no warm-up is asked for. Returns the
/// calls per sample (1 with a `beforeEachCall`, which runs before each).
static unsigned warmUpAndCalibrate(llvm::function_ref<void()> fn,
                                   const TimingOptions &options,
                                   llvm::function_ref<void()> beforeEachCall) {
  double fastest = 0.0;
  unsigned calibrationCalls = std::max(options.warmupRuns, 1u);
  for (unsigned i = 0; i < calibrationCalls; ++i) {
    if (beforeEachCall)
      beforeEachCall();
    auto start = Clock::now();
    fn();
    double t = secondsSince(start);
    fastest = i == 0 ? t : std::min(fastest, t);
  }
  unsigned calls = 1;
  if (!beforeEachCall && fastest < options.minSampleSeconds) {
    double wanted = std::ceil(options.minSampleSeconds /
                              std::max(fastest, 1e-9));
    calls = static_cast<unsigned>(
        std::min<double>(wanted, options.maxCallsPerSample));
    calls = std::max(calls, 1u);
  }
  return calls;
}

/// Whether the early stop of `options` ends a timing whose samples so far
/// are `samples`.
static bool shouldStopEarly(llvm::ArrayRef<double> samples,
                            const TimingOptions &options) {
  if (options.stopAboveSeconds <= 0 ||
      samples.size() < options.stopAfterRepeats)
    return false;
  return *llvm::min_element(samples) > options.stopAboveSeconds;
}

bool mlir::tiletune::isPreciseEnough(llvm::ArrayRef<double> ratios,
                                     const TimingOptions &options) {
  if (options.stopBelowRatioSpread <= 0 ||
      ratios.size() < options.precisionAfterRepeats)
    return false;
  TimeStats stats = TimeStats::fromSamples(ratios);
  return stats.median > 0 &&
         (stats.max - stats.min) / stats.median <= options.stopBelowRatioSpread;
}

/// One sample: `calls` back-to-back calls, seconds per call.
static double sample(llvm::function_ref<void()> fn, unsigned calls) {
  auto start = Clock::now();
  for (unsigned c = 0; c < calls; ++c)
    fn();
  return secondsSince(start) / calls;
}

llvm::Expected<TimeStats>
mlir::tiletune::measure(llvm::function_ref<void()> fn,
                        const TimingOptions &options,
                        llvm::function_ref<void()> beforeEachCall) {
  if (llvm::Error err = validateTimingOptions(options))
    return std::move(err);
  unsigned calls = warmUpAndCalibrate(fn, options, beforeEachCall);
  llvm::SmallVector<double> samples;
  samples.reserve(options.repeats);
  bool stopped = false;
  for (unsigned r = 0; r < options.repeats && !stopped; ++r) {
    if (beforeEachCall)
      beforeEachCall();
    samples.push_back(sample(fn, calls));
    stopped = r + 1 < options.repeats && shouldStopEarly(samples, options);
  }
  TimeStats stats = TimeStats::fromSamples(samples, calls);
  stats.stoppedEarly = stopped;
  return stats;
}

llvm::Expected<PairedTimeStats>
mlir::tiletune::measurePaired(llvm::function_ref<void()> subject,
                              llvm::function_ref<void()> reference,
                              const TimingOptions &options) {
  if (llvm::Error err = validateTimingOptions(options))
    return std::move(err);
  unsigned referenceCalls = warmUpAndCalibrate(reference, options, nullptr);
  unsigned subjectCalls = warmUpAndCalibrate(subject, options, nullptr);
  llvm::SmallVector<double> subjectSamples, referenceSamples, ratios;
  referenceSamples.push_back(sample(reference, referenceCalls));
  bool stopped = false;
  for (unsigned r = 0; r < options.repeats && !stopped; ++r) {
    subjectSamples.push_back(sample(subject, subjectCalls));
    referenceSamples.push_back(sample(reference, referenceCalls));
    double around = 0.5 * (referenceSamples[r] + referenceSamples[r + 1]);
    ratios.push_back(around > 0 ? subjectSamples.back() / around : 0.0);
    if (r + 1 >= options.repeats)
      break;
    stopped = shouldStopEarly(subjectSamples, options) ||
              (options.stopAboveRatio > 0 &&
               ratios.size() >= options.stopAfterRepeats &&
               *llvm::min_element(ratios) > options.stopAboveRatio);
    if (!stopped && isPreciseEnough(ratios, options))
      break;
  }
  PairedTimeStats stats;
  stats.subject = TimeStats::fromSamples(subjectSamples, subjectCalls);
  stats.subject.stoppedEarly = stopped;
  stats.reference = TimeStats::fromSamples(referenceSamples, referenceCalls);
  stats.ratio = TimeStats::fromSamples(ratios);
  return stats;
}

void mlir::tiletune::evictFromCaches(const void *data, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  // One clflush per 64-byte line (the x86 line size; a larger line is
  // flushed whole by any address in it).
  const char *begin = static_cast<const char *>(data);
  for (size_t offset = 0; offset < bytes; offset += 64)
    _mm_clflush(begin + offset);
  if (bytes > 0)
    _mm_clflush(begin + bytes - 1);
  _mm_mfence();
#else
  (void)data;
  (void)bytes;
#endif
}
