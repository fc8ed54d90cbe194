//===- CostModelTest.cpp - Tests of the XGBoost cost model ----------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/CostModel.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace mlir::tiletune;

namespace {

/// Fails the test with the error's message when `err` is an error.
#define ASSERT_NO_ERROR(expr)                                                  \
  do {                                                                         \
    llvm::Error err_ = (expr);                                                 \
    ASSERT_FALSE(static_cast<bool>(err_)) << llvm::toString(std::move(err_));  \
  } while (false)
/// Expects `expr` to produce an error (and consumes it).
#define EXPECT_IS_ERROR(expr)                                                  \
  do {                                                                         \
    llvm::Error err_ = (expr);                                                 \
    EXPECT_TRUE(static_cast<bool>(err_));                                      \
    llvm::consumeError(std::move(err_));                                       \
  } while (false)
/// Unwraps an Expected or fails the test with its message.
#define ASSERT_EXPECTED(var, expr)                                             \
  auto var = (expr);                                                           \
  ASSERT_TRUE(static_cast<bool>(var)) << llvm::toString(var.takeError())

/// Spearman rank correlation (no tie correction; inputs are continuous).
double spearman(llvm::ArrayRef<float> a, llvm::ArrayRef<float> b) {
  auto ranks = [](llvm::ArrayRef<float> v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(),
              [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size(); ++i)
      r[idx[i]] = static_cast<double>(i);
    return r;
  };
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = static_cast<double>(a.size());
  double mean = (n - 1) / 2, cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

/// A smooth function of 3 features with a known optimum at (0.3, 0.7, 1).
float landscape(const float *x) {
  return -(x[0] - 0.3f) * (x[0] - 0.3f) - (x[1] - 0.7f) * (x[1] - 0.7f) +
         0.5f * x[2];
}

void sample(unsigned rows, std::mt19937_64 &rng, FeatureMatrix &x,
            std::vector<float> &y) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  x.resize(rows, 3);
  y.resize(rows);
  for (unsigned r = 0; r < rows; ++r) {
    for (unsigned c = 0; c < 3; ++c)
      x(r, c) = u(rng);
    y[r] = landscape(x.row(r).data());
  }
}

XGBoostOptions smallOptions(const char *objective) {
  XGBoostOptions opts;
  opts.objective = objective;
  opts.numRounds = 60;
  opts.earlyStoppingRounds = 0;
  opts.numThreads = 1;
  opts.seed = 42;
  return opts;
}

TEST(CostModelTest, LibraryVersionIsReported) {
  std::string v = XGBoostModel::getLibraryVersion();
  EXPECT_FALSE(v.empty());
  EXPECT_NE(v, "0.0.0");
}

class ObjectiveTest : public ::testing::TestWithParam<const char *> {};

TEST_P(ObjectiveTest, FitsKnownFunctionOrder) {
  std::mt19937_64 rng(1);
  FeatureMatrix xTrain, xTest;
  std::vector<float> yTrain, yTest;
  sample(400, rng, xTrain, yTrain);
  sample(300, rng, xTest, yTest);
  XGBoostModel model(smallOptions(GetParam()));
  ASSERT_FALSE(model.isTrained());
  ASSERT_NO_ERROR(model.fit(xTrain, yTrain));
  EXPECT_TRUE(model.isTrained());
  EXPECT_EQ(model.getNumTrees(), 60u);
  ASSERT_EXPECTED(pred, model.predict(xTest));
  ASSERT_EQ(pred->size(), yTest.size());
  EXPECT_GT(spearman(*pred, yTest), 0.9);
  // The best held-out point by prediction is close to the true best.
  size_t bestPred =
      std::max_element(pred->begin(), pred->end()) - pred->begin();
  float trueBest = *std::max_element(yTest.begin(), yTest.end());
  EXPECT_GT(yTest[bestPred], trueBest - 0.1f);
}

INSTANTIATE_TEST_SUITE_P(Objectives, ObjectiveTest,
                         ::testing::Values("rank:pairwise",
                                           "reg:squarederror"));

TEST(CostModelTest, DeterministicUnderSeed) {
  std::mt19937_64 rng(2);
  FeatureMatrix x;
  std::vector<float> y;
  sample(200, rng, x, y);
  XGBoostOptions opts = smallOptions("rank:pairwise");
  opts.subsample = 0.7; // exercise the seeded row sampling
  XGBoostModel a(opts), b(opts);
  ASSERT_NO_ERROR(a.fit(x, y));
  ASSERT_NO_ERROR(b.fit(x, y));
  ASSERT_EXPECTED(pa, a.predict(x));
  ASSERT_EXPECTED(pb, b.predict(x));
  EXPECT_EQ(*pa, *pb);
}

TEST(CostModelTest, EarlyStoppingStopsBeforeTheRoundLimit) {
  std::mt19937_64 rng(3);
  FeatureMatrix x;
  std::vector<float> y;
  sample(100, rng, x, y);
  XGBoostOptions opts = smallOptions("rank:pairwise");
  opts.numRounds = 2000;
  opts.earlyStoppingRounds = 10;
  opts.recallK = 16;
  XGBoostModel model(opts);
  ASSERT_NO_ERROR(model.fit(x, y));
  EXPECT_LT(model.getNumTrees(), 2000u);
  EXPECT_GE(model.getNumTrees(), 1u);
  ASSERT_EXPECTED(pred, model.predict(x));
  EXPECT_GT(averageTopKRecall(*pred, y, 16), 0.5);
}

TEST(CostModelTest, ErrorsAreReportedNotFatal) {
  FeatureMatrix x(4, 2);
  x << 1, 2, 3, 4, 5, 6, 7, 8;
  std::vector<float> y = {1, 2, 3, 4};
  XGBoostModel model(smallOptions("reg:squarederror"));
  // Predict before fit.
  EXPECT_IS_ERROR(model.predict(x).takeError());
  // Target count mismatch.
  std::vector<float> shortY = {1, 2};
  EXPECT_IS_ERROR(model.fit(x, shortY));
  // Non-finite target.
  std::vector<float> nanY = {1, NAN, 3, 4};
  EXPECT_IS_ERROR(model.fit(x, nanY));
  // Unknown objective: XGBoost's own error comes back as an llvm::Error.
  XGBoostModel bad(smallOptions("no:such-objective"));
  llvm::Error err = bad.fit(x, y);
  ASSERT_TRUE(static_cast<bool>(err));
  std::string msg = llvm::toString(std::move(err));
  EXPECT_NE(msg.find("xgboost"), std::string::npos) << msg;
  EXPECT_FALSE(bad.isTrained());
  // Width mismatch at prediction.
  ASSERT_NO_ERROR(model.fit(x, y));
  FeatureMatrix wide(1, 3);
  wide << 1, 2, 3;
  EXPECT_IS_ERROR(model.predict(wide).takeError());
}

TEST(CostModelTest, AverageTopKRecall) {
  std::vector<float> t = {5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(averageTopKRecall(t, t, 3), 1.0);
  std::vector<float> reversed = {1, 2, 3, 4, 5};
  // top-1: {4} vs {0} -> 0; top-2: {4,3} vs {0,1} -> 0; top-3: {2} common.
  EXPECT_NEAR(averageTopKRecall(reversed, t, 3), (0.0 + 0.0 + 1.0 / 3) / 3,
              1e-12);
  std::vector<float> swapped = {4, 5, 3, 2, 1};
  // top-1 wrong, top-2 and top-3 exact.
  EXPECT_NEAR(averageTopKRecall(swapped, t, 3), (0.0 + 1.0 + 1.0) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(averageTopKRecall(t, t, 100), 1.0);
}

} // namespace
