//===- TimingTest.cpp - Tests of the timing statistics --------------------===//
//
// Sanity of measure() and measurePaired() (call counts, batch calibration,
// ordering of min <= median <= max). No timing assertions. The statistics
// of known samples are tested in MeasureResultTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/Timing.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

using namespace mlir::tiletune;

namespace {

TEST(TimingTest, MeasureCountsCallsAndOrdersStats) {
  unsigned calls = 0;
  TimingOptions opts;
  opts.warmupRuns = 3;
  opts.repeats = 5;
  opts.minSampleSeconds = 0; // one call per sample
  auto stats = measure([&] { ++calls; }, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_EQ(calls, 3u + 5u);
  EXPECT_EQ(stats->callsPerSample, 1u);
  EXPECT_EQ(stats->samples.size(), 5u);
  EXPECT_LE(stats->min, stats->median);
  EXPECT_LE(stats->median, stats->max);
  EXPECT_LE(stats->min, stats->mean);
  EXPECT_LE(stats->mean, stats->max);
}

TEST(TimingTest, TinyCallsAreBatched) {
  volatile double sink = 0;
  unsigned calls = 0;
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 3;
  opts.minSampleSeconds = 2e-3;
  auto stats = measure(
      [&] {
        ++calls;
        sink = sink + 1.0;
      },
      opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_GT(stats->callsPerSample, 1u);
  EXPECT_EQ(calls, 1u + 3u * stats->callsPerSample);
  EXPECT_GT(stats->mean, 0.0);
}

TEST(TimingTest, SlowCallsAreNotBatched) {
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 2;
  opts.minSampleSeconds = 1e-3;
  auto stats = measure(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_EQ(stats->callsPerSample, 1u);
  EXPECT_GE(stats->min, 1.5e-3);
}

TEST(TimingTest, BeforeEachCallRunsUntimedBeforeEveryCallOfOneCallSamples) {
  // Tiny calls that a 1 ms sample would batch: with a hook, every sample is
  // one call, each preceded by the hook (warm-ups too), and the hook's
  // sleep is not in the times.
  unsigned calls = 0, hooks = 0;
  bool hookBeforeEachCall = true;
  TimingOptions opts;
  opts.warmupRuns = 2;
  opts.repeats = 4;
  opts.minSampleSeconds = 1e-3;
  auto stats = measure(
      [&] {
        hookBeforeEachCall &= hooks == calls + 1;
        ++calls;
      },
      opts,
      [&] {
        ++hooks;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      });
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_EQ(calls, 2u + 4u);
  EXPECT_EQ(hooks, calls);
  EXPECT_TRUE(hookBeforeEachCall);
  EXPECT_EQ(stats->callsPerSample, 1u);
  EXPECT_EQ(stats->samples.size(), 4u);
  EXPECT_LT(stats->max, 1e-3);
}

TEST(TimingTest, EvictFromCachesKeepsTheData) {
  // Eviction writes nothing back that differs: the data stays as it was
  // (odd sizes and an unaligned start included).
  std::vector<float> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = float(i) * 0.5f;
  evictFromCaches(data.data() + 1, (data.size() - 3) * sizeof(float));
  evictFromCaches(data.data(), 0);
  for (size_t i = 0; i < data.size(); ++i)
    EXPECT_EQ(data[i], float(i) * 0.5f);
}

TEST(TimingTest, RejectsInvalidOptions) {
  TimingOptions opts;
  opts.repeats = 0;
  auto stats = measure([] {}, opts);
  EXPECT_FALSE(static_cast<bool>(stats));
  llvm::consumeError(stats.takeError());
}

/// Each timing option has a range, named by the error; NaN and values that
/// would overflow the workers' deadlines are out of range.
TEST(TimingTest, ValidateTimingOptionsChecksRanges) {
  auto message = [](TimingOptions opts) -> std::string {
    llvm::Error err = validateTimingOptions(opts);
    return err ? llvm::toString(std::move(err)) : "";
  };
  EXPECT_EQ(message({}), "");
  TimingOptions opts;
  opts.repeats = 4000000000u;
  EXPECT_EQ(message(opts), "the number of timed repeats must be between 1 and "
                           "100000, got 4000000000");
  opts = {};
  opts.repeats = kMaxRepeats;
  opts.warmupRuns = kMaxWarmupRuns;
  opts.minSampleSeconds = kMaxMinSampleSeconds;
  EXPECT_EQ(message(opts), "");
  opts.warmupRuns = kMaxWarmupRuns + 1;
  EXPECT_NE(message(opts).find("warm-up runs must be between 0 and 10000"),
            std::string::npos);
  for (double bad : {-5e-3, 1e9, std::nan(""), HUGE_VAL}) {
    opts = {};
    opts.minSampleSeconds = bad;
    EXPECT_NE(message(opts).find("the minimum sample duration must be between "
                                 "0 and 60000 ms"),
              std::string::npos)
        << bad;
    // measure() refuses them too, without calling the function.
    bool called = false;
    auto stats = measure([&] { called = true; }, opts);
    EXPECT_FALSE(static_cast<bool>(stats));
    llvm::consumeError(stats.takeError());
    EXPECT_FALSE(called);
  }
}

TEST(TimingTest, PairedTimingAlternatesAndRatiosUseTheSamplesAround) {
  // Call log: 'r' reference, 's' subject. One call per sample.
  std::string log;
  TimingOptions opts;
  opts.warmupRuns = 2;
  opts.repeats = 4;
  opts.minSampleSeconds = 0;
  auto stats = measurePaired([&] { log += 's'; }, [&] { log += 'r'; }, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  // Warm-up of the reference, then of the subject, then r s r s r s r s r.
  EXPECT_EQ(log, "rr" "ss" "rsrsrsrsr");
  EXPECT_EQ(stats->subject.samples.size(), 4u);
  EXPECT_EQ(stats->reference.samples.size(), 5u);
  ASSERT_EQ(stats->ratio.samples.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) {
    double around = 0.5 * (stats->reference.samples[i] +
                           stats->reference.samples[i + 1]);
    if (around > 0)
      EXPECT_DOUBLE_EQ(stats->ratio.samples[i],
                       stats->subject.samples[i] / around);
  }
}

TEST(TimingTest, PairedTimingCalibratesEachSideAndRanksBySleepRatio) {
  // A 6 ms subject against a 2 ms reference, both slow enough to be sampled
  // one call at a time; a tiny reference is batched on its own. Sleeps only
  // last longer than asked, so the bounds are loose.
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 3;
  opts.minSampleSeconds = 1e-3;
  auto stats = measurePaired(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(6)); },
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_EQ(stats->subject.callsPerSample, 1u);
  EXPECT_EQ(stats->reference.callsPerSample, 1u);
  EXPECT_GT(stats->ratio.median, 1.2);
  EXPECT_LT(stats->ratio.median, 6.0);

  volatile double sink = 0;
  auto tiny = measurePaired(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); },
      [&] { sink = sink + 1.0; }, opts);
  ASSERT_TRUE(static_cast<bool>(tiny));
  EXPECT_GT(tiny->reference.callsPerSample, 1u);
  EXPECT_EQ(tiny->subject.callsPerSample, 1u);

  opts.repeats = 0;
  auto bad = measurePaired([] {}, [] {}, opts);
  EXPECT_FALSE(static_cast<bool>(bad));
  llvm::consumeError(bad.takeError());
}

TEST(TimingTest, EarlyStopEndsASlowSubjectAndKeepsItsSamples) {
  // A 2 ms call against a 1 ms limit: stopped after the 3 samples the early
  // stop waits for; the statistics are those of the 3 samples measured.
  unsigned calls = 0;
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 10;
  opts.minSampleSeconds = 0;
  opts.stopAboveSeconds = 1e-3;
  opts.stopAfterRepeats = 3;
  auto slow = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  auto stats = measure(slow, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_TRUE(stats->stoppedEarly);
  EXPECT_EQ(stats->repeats, 3u);
  EXPECT_EQ(stats->samples.size(), 3u);
  EXPECT_EQ(calls, 1u + 3u);
  EXPECT_GE(stats->min, 1.5e-3);

  // The same call under a limit it does not exceed takes every sample.
  opts.stopAboveSeconds = 1.0;
  stats = measure(slow, opts);
  ASSERT_TRUE(static_cast<bool>(stats));
  EXPECT_FALSE(stats->stoppedEarly);
  EXPECT_EQ(stats->repeats, 10u);

  // Paired: the subject stops early, the reference keeps one sample more.
  opts.stopAboveSeconds = 1e-3;
  auto paired = measurePaired(
      slow, [] {}, opts);
  ASSERT_TRUE(static_cast<bool>(paired));
  EXPECT_TRUE(paired->subject.stoppedEarly);
  EXPECT_EQ(paired->subject.repeats, 3u);
  EXPECT_EQ(paired->reference.repeats, 4u);
  EXPECT_EQ(paired->ratio.repeats, 3u);

  // Bad thresholds are refused.
  opts.stopAboveSeconds = -1;
  llvm::Error err = validateTimingOptions(opts);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
  opts.stopAboveSeconds = 0;
  opts.stopAfterRepeats = 0;
  err = validateTimingOptions(opts);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
}

TEST(TimingTest, PairedEarlyStopUsesTheRatioToTheReference) {
  // A 10 ms subject against a 1 ms reference (ratio about 10; sleeps only
  // overshoot, and a loaded machine would have to stretch the reference's
  // sleeps five-fold to bring it to 2). Under a ratio limit of 2 it stops
  // after 3 samples, whatever the seconds would say; under a limit of 100 it
  // takes every sample. The seconds threshold is off.
  auto subject = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  auto reference = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 8;
  opts.minSampleSeconds = 0;
  opts.stopAfterRepeats = 3;
  opts.stopAboveRatio = 2.0;
  auto stopped = measurePaired(subject, reference, opts);
  ASSERT_TRUE(static_cast<bool>(stopped));
  EXPECT_TRUE(stopped->subject.stoppedEarly);
  EXPECT_EQ(stopped->subject.repeats, 3u);
  EXPECT_EQ(stopped->reference.repeats, 4u);
  EXPECT_GT(stopped->ratio.min, 2.0);

  opts.stopAboveRatio = 100.0;
  auto full = measurePaired(subject, reference, opts);
  ASSERT_TRUE(static_cast<bool>(full));
  EXPECT_FALSE(full->subject.stoppedEarly);
  EXPECT_EQ(full->subject.repeats, 8u);

  // The ratio threshold does not apply to measure() (no reference there).
  auto alone = measure(subject, opts);
  ASSERT_TRUE(static_cast<bool>(alone));
  EXPECT_FALSE(alone->stoppedEarly);

  // A negative or infinite ratio limit is refused.
  for (double bad : {-1.0, std::numeric_limits<double>::infinity()}) {
    opts.stopAboveRatio = bad;
    llvm::Error err = validateTimingOptions(opts);
    EXPECT_TRUE(static_cast<bool>(err));
    llvm::consumeError(std::move(err));
  }
}

TEST(TimingTest, PrecisionStopRule) {
  TimingOptions opts;
  opts.precisionAfterRepeats = 5;
  opts.stopBelowRatioSpread = 0.03;
  // Fewer samples than asked for: never.
  EXPECT_FALSE(isPreciseEnough({1.0, 1.0, 1.0, 1.0}, opts));
  // Spread (max - min) / median = 0.02 / 1.0: within 3 %.
  EXPECT_TRUE(isPreciseEnough({1.00, 1.01, 0.99, 1.00, 1.01}, opts));
  // 0.05 / 1.0: not within 3 %.
  EXPECT_FALSE(isPreciseEnough({1.00, 1.05, 1.00, 1.00, 1.02}, opts));
  // The median of an even count is the mean of the middle two.
  EXPECT_TRUE(isPreciseEnough({2.0, 2.04, 2.02, 2.01, 2.03, 2.0}, opts));
  opts.stopBelowRatioSpread = 0; // Off.
  EXPECT_FALSE(isPreciseEnough({1.0, 1.0, 1.0, 1.0, 1.0}, opts));
}

TEST(TimingTest, PrecisionStopEndsAPairedTimingWhoseRatiosAgree) {
  // Subject and reference both sleep 2 ms, so their ratios are near 1. A
  // timing that stops before its 12 samples has taken at least the 5 the
  // precision stop waits for and has ratios within the spread limit (how
  // many samples that takes depends on the machine's load); it is not an
  // early stop of a slow candidate.
  auto twoMs = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 12;
  opts.minSampleSeconds = 0;
  opts.precisionAfterRepeats = 5;
  opts.stopBelowRatioSpread = 1.0;
  auto precise = measurePaired(twoMs, twoMs, opts);
  ASSERT_TRUE(static_cast<bool>(precise));
  EXPECT_FALSE(precise->subject.stoppedEarly);
  unsigned taken = precise->subject.repeats;
  EXPECT_GE(taken, 5u);
  EXPECT_EQ(precise->reference.repeats, taken + 1);
  EXPECT_EQ(precise->ratio.samples.size(), taken);
  if (taken < 12)
    EXPECT_TRUE(isPreciseEnough(precise->ratio.samples, opts));

  // Off: every sample.
  opts.stopBelowRatioSpread = 0;
  auto full = measurePaired(twoMs, twoMs, opts);
  ASSERT_TRUE(static_cast<bool>(full));
  EXPECT_EQ(full->subject.repeats, 12u);

  // Out of range.
  opts.stopBelowRatioSpread = 1.5;
  llvm::Error err = validateTimingOptions(opts);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
  opts.stopBelowRatioSpread = 0.1;
  opts.precisionAfterRepeats = 1;
  err = validateTimingOptions(opts);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
}

TEST(TimingTest, GFlopsAndFormatting) {
  EXPECT_DOUBLE_EQ(computeGFlops(2e9, 0.5), 4.0);
  EXPECT_EQ(computeGFlops(1.0, 0.0), 0.0);
  EXPECT_EQ(formatDuration(1.5e-3), "1.500 ms");
  EXPECT_EQ(formatDuration(2.0), "2.000 s");
}

} // namespace
