//===- MeasureResultTest.cpp - Tests of typed measurement results ---------===//
//
// Status names, time statistics of known samples, the worker codec, and a
// paired result keeping its measured time.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/MeasureResult.h"

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
  EXPECT_TRUE(TimeStats::fromSamples({}).samples.empty());

  // The samples are kept in measured order, with the batch size.
  TimeStats batched = TimeStats::fromSamples({3.0, 1.0}, 16);
  EXPECT_EQ(batched.callsPerSample, 16u);
  ASSERT_EQ(batched.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(batched.samples[0], 3.0);
  EXPECT_NE(batched.summary().find("(2 samples x 16 calls)"),
            std::string::npos);
}

TEST(MeasureResultCodec, RoundTrips) {
  TimeStats t;
  t.mean = 2e-3;
  t.median = 1.5e-3;
  t.min = 1e-3;
  t.max = 4e-3;
  t.stddev = 5e-4;
  t.repeats = 7;
  MeasureResult r = MeasureResult::success(t, 12.5);
  r.costSeconds = 0.25;
  r.relative = 1.25;
  r.referenceSeconds = 1.2e-3;
  r.time.stoppedEarly = true;
  r.phases.passSeconds = 0.01;
  r.phases.codegenSeconds = 0.05;
  r.phases.verifySeconds = 0.002;
  r.phases.timingSeconds = 0.2;
  r.phases.cacheHit = true;
  r.phases.compileWaitSeconds = 0.03;
  r.phases.runWaitSeconds = 0.21;
  llvm::Expected<MeasureResult> back =
      decodeMeasureResult(encodeMeasureResult(r));
  ASSERT_TRUE(bool(back));
  EXPECT_TRUE(back->time.stoppedEarly);
  EXPECT_DOUBLE_EQ(back->phases.passSeconds, 0.01);
  EXPECT_DOUBLE_EQ(back->phases.codegenSeconds, 0.05);
  EXPECT_DOUBLE_EQ(back->phases.verifySeconds, 0.002);
  EXPECT_DOUBLE_EQ(back->phases.timingSeconds, 0.2);
  EXPECT_TRUE(back->phases.cacheHit);
  EXPECT_DOUBLE_EQ(back->phases.compileWaitSeconds, 0.03);
  EXPECT_DOUBLE_EQ(back->phases.runWaitSeconds, 0.21);
  EXPECT_EQ(back->status, MeasureStatus::Ok);
  EXPECT_DOUBLE_EQ(back->relative, 1.25);
  EXPECT_DOUBLE_EQ(back->referenceSeconds, 1.2e-3);
  EXPECT_DOUBLE_EQ(back->time.median, 1.5e-3);
  EXPECT_EQ(back->time.repeats, 7u);
  EXPECT_DOUBLE_EQ(back->gflops, 12.5);
  MeasureResult f =
      MeasureResult::failure(MeasureStatus::WrongResult, "off by one");
  back = decodeMeasureResult(encodeMeasureResult(f));
  ASSERT_TRUE(bool(back));
  EXPECT_EQ(back->status, MeasureStatus::WrongResult);
  EXPECT_EQ(back->message, "off by one");
  back = decodeMeasureResult("{\"status\": \"fine\"}");
  EXPECT_FALSE(bool(back));
  llvm::consumeError(back.takeError());
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

TEST(MeasurementTest, PairedResultKeepsItsMeasuredTime) {
  // Measured 2, 3, 4 ms while the reference ran at 2 ms: ratio 1.5. The
  // ratio travels beside the measured statistics and never replaces them.
  MeasureResult r = MeasureResult::success(
      TimeStats::fromSamples({2e-3, 3e-3, 4e-3}), /*gflops=*/1.0);
  r.relative = 1.5;
  r.referenceSeconds = 2e-3;
  llvm::Expected<MeasureResult> back =
      decodeMeasureResult(encodeMeasureResult(r));
  ASSERT_TRUE(bool(back));
  EXPECT_DOUBLE_EQ(back->time.median, 3e-3);
  EXPECT_DOUBLE_EQ(back->time.min, 2e-3);
  EXPECT_DOUBLE_EQ(back->time.max, 4e-3);
  EXPECT_DOUBLE_EQ(back->gflops, 1.0);
  EXPECT_DOUBLE_EQ(back->relative, 1.5);
  EXPECT_DOUBLE_EQ(back->referenceSeconds, 2e-3);
}

} // namespace
