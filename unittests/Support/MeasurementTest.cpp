//===- MeasurementTest.cpp - Tests of typed measurement results -----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Measurement.h"

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

} // namespace
