//===- MeasurementTest.cpp - Tests of typed measurement results -----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Measurement.h"
#include "tiletune/Support/Padding.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

TEST(MeasurementTest, StatusNamesRoundTrip) {
  for (MeasureStatus status :
       {MeasureStatus::Ok, MeasureStatus::Invalid, MeasureStatus::CompileError,
        MeasureStatus::RuntimeError, MeasureStatus::WrongResult,
        MeasureStatus::Timeout}) {
    std::optional<MeasureStatus> parsed =
        parseMeasureStatus(stringifyMeasureStatus(status));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, status);
  }
  EXPECT_EQ(stringifyMeasureStatus(MeasureStatus::WrongResult), "wrong_result");
  EXPECT_FALSE(parseMeasureStatus("OK").has_value());
  EXPECT_FALSE(parseMeasureStatus("").has_value());
}

TEST(MeasurementTest, StatsFromSamples) {
  TimeStats stats = TimeStats::fromSamples({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(stats.repeats, 4u);
  EXPECT_DOUBLE_EQ(stats.min, 1.0);
  EXPECT_DOUBLE_EQ(stats.max, 4.0);
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
  EXPECT_DOUBLE_EQ(stats.mean, 2.5);
  // Sample standard deviation of 1..4: sqrt(5/3).
  EXPECT_NEAR(stats.stddev, 1.2909944487, 1e-9);
  EXPECT_DOUBLE_EQ(stats.seconds(), 2.5);

  TimeStats odd = TimeStats::fromSamples({5.0, 1.0, 3.0});
  EXPECT_DOUBLE_EQ(odd.median, 3.0);
  TimeStats one = TimeStats::fromSamples({7.0});
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  EXPECT_EQ(TimeStats::fromSamples({}).repeats, 0u);
}

TEST(MeasurementTest, Constructors) {
  MeasureResult ok = MeasureResult::success(TimeStats::fromSamples({1e-3}), 5);
  EXPECT_TRUE(ok.ok());
  EXPECT_DOUBLE_EQ(ok.gflops, 5);
  MeasureResult bad =
      MeasureResult::failure(MeasureStatus::CompileError, "pass failed");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message, "pass failed");
}

TEST(PaddingTest, PadsOnlySizesWithoutGoodDivisors) {
  // n: to a multiple of the vector length once longer than two vectors.
  EXPECT_EQ(getCPUPaddedSize("n", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("n", 1000, 16), 1008);
  EXPECT_EQ(getCPUPaddedSize("n", 1024, 16), 1024);
  EXPECT_EQ(getCPUPaddedSize("n", 29, 16), 29);
  EXPECT_EQ(getCPUPaddedSize("n", 1000, 8), 1000); // f64: 8 lanes
  // m: to a multiple of 8 when no divisor in [4, 12] exists.
  EXPECT_EQ(getCPUPaddedSize("m", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("m", 131, 16), 136);
  EXPECT_EQ(getCPUPaddedSize("m", 1000, 16), 1000);
  EXPECT_EQ(getCPUPaddedSize("m", 49, 16), 49); // 7 divides it
  EXPECT_EQ(getCPUPaddedSize("m", 13, 16), 13);
  EXPECT_EQ(getCPUPaddedSize("m", 1, 16), 1);
  // k: to a multiple of 16 when longer than 64 and not a multiple of 8.
  EXPECT_EQ(getCPUPaddedSize("k", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("k", 1000, 16), 1000);
  EXPECT_EQ(getCPUPaddedSize("k", 61, 16), 61);
  // Other loops never.
  EXPECT_EQ(getCPUPaddedSize("b", 127, 16), 127);
  EXPECT_EQ(getCPUPaddedSize("f", 127, 16), 127);
  EXPECT_TRUE(isCPUPaddableOpKind("matmul"));
  EXPECT_TRUE(isCPUPaddableOpKind("batch_matmul"));
  EXPECT_FALSE(isCPUPaddableOpKind("conv_2d_nhwc_hwcf"));
}

TEST(MeasurementTest, NormalizeToReference) {
  // Measured 2, 3, 4 ms while the reference ran at 2 ms: ratio 1.5. At the
  // run's reference speed of 1 ms it ranks as 1.5 ms.
  MeasureResult r = MeasureResult::success(
      TimeStats::fromSamples({2e-3, 3e-3, 4e-3}), 1.0);
  r.relative = 1.5;
  r.referenceSeconds = 2e-3;
  r.normalizeToReference(1e-3, /*flops=*/3e6);
  EXPECT_DOUBLE_EQ(r.rawSeconds, 3e-3);
  EXPECT_DOUBLE_EQ(r.time.median, 1.5e-3);
  EXPECT_DOUBLE_EQ(r.time.min, 1e-3);
  EXPECT_DOUBLE_EQ(r.time.max, 2e-3);
  EXPECT_DOUBLE_EQ(r.gflops, 2.0);
  // Normalizing twice does nothing.
  r.normalizeToReference(5e-3, 3e6);
  EXPECT_DOUBLE_EQ(r.time.median, 1.5e-3);

  // Timed alone, failed, or no scale: left alone.
  MeasureResult alone =
      MeasureResult::success(TimeStats::fromSamples({2e-3}), 1.0);
  alone.normalizeToReference(1e-3, 3e6);
  EXPECT_DOUBLE_EQ(alone.time.median, 2e-3);
  EXPECT_EQ(alone.rawSeconds, 0.0);
  MeasureResult failed =
      MeasureResult::failure(MeasureStatus::Timeout, "too slow");
  failed.relative = 2;
  failed.normalizeToReference(1e-3, 3e6);
  EXPECT_EQ(failed.rawSeconds, 0.0);
  MeasureResult noScale =
      MeasureResult::success(TimeStats::fromSamples({2e-3}), 1.0);
  noScale.relative = 2;
  noScale.normalizeToReference(0, 3e6);
  EXPECT_DOUBLE_EQ(noScale.time.median, 2e-3);
}

} // namespace
