//===- AutoMCLTest.cpp - Tests of the AutoMCL AutoConfig strategy ---------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Algorithm 2's batch schedule (random first batch, training only after a
// whole batch was measured, best-predicted batches after), exhaustive and
// sampled prediction, the generic conformance check (also on AutoMCL's
// filtered space) and finding known optima within stated budgets.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

/// AutoMCL's filtered space: ideal-cache filter + pfactor thread grid.
Space filteredSpace() {
  auto p = makeProblemSpec("matmul", "cpu", {64, 64, 64});
  Space base = *buildSpace(*p);
  CacheModel m;
  m.cacheBytes = 32 * 1024;
  m.lineBytes = m.vectorBytes = 64; // pinned: not the host's
  return *restrictToThreadGrid(*filterByIdealCacheModel(base, *p, m), *p, 4);
}

/// Sampled prediction with small batches keeps the conformance runs fast.
StrategyOptions fastOptions() {
  return {{"batch", "16"},
          {"exhaustive_limit", "0"},
          {"sample_size", "1000"},
          {"num_rounds", "100"}};
}

/// The strategy-specific part of a strategy's saved state.
llvm::json::Object stateOf(const Strategy &s) {
  llvm::json::Value saved = s.saveState();
  return *saved.getAsObject()->getObject("state");
}

TEST(AutoMCL, RegisteredWithPaperDefaults) {
  auto s = makeStrategy("automcl", paperSpace(), {}, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->getOptions().at("batch"), "64");
  EXPECT_EQ(s->getOptions().at("loss"), "reg");
}

TEST(AutoMCL, BadOptionsAreErrors) {
  expectOptionsChecked("automcl", {{"loss", "l1"},
                                   {"batch", "0"},
                                   {"sample_size", "-3"},
                                   {"eta", "0"},
                                   {"whatever", "1"}});
}

TEST(AutoMCL, TrainsOnlyAfterTheWholeBatchWasMeasured) {
  Space s = paperSpace();
  Landscape l = makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum));
  auto st = makeStrategy("automcl", s, {}, 2); // batch 64
  ASSERT_TRUE(st);
  // The random first batch N is handed out in whatever chunks are asked.
  SmallVector<Trial> a = st->propose(40);
  SmallVector<Trial> b = st->propose(40);
  EXPECT_EQ(a.size(), 40u);
  EXPECT_EQ(b.size(), 24u);
  // N is used up but not measured: nothing until it is.
  EXPECT_TRUE(st->propose(10).empty());
  double bestRandom = 1e9;
  auto measure = [&](llvm::ArrayRef<Trial> trials) {
    SmallVector<TrialResult> results;
    for (const Trial &t : trials) {
      TrialResult r = l.evaluate(t.cfg);
      r.id = t.id;
      bestRandom = std::min(bestRandom, r.cost);
      results.push_back(r);
    }
    ASSERT_FALSE(bool(st->observe(results)));
  };
  measure(a);
  EXPECT_TRUE(st->propose(10).empty()); // 24 still pending
  EXPECT_EQ(stateOf(*st).getInteger("refills"), 0);
  measure(b);
  // Now the model ranks the space and the next N is its best 64.
  SmallVector<Trial> next = st->propose(100);
  EXPECT_EQ(next.size(), 64u);
  EXPECT_EQ(stateOf(*st).getInteger("refills"), 1);
  EXPECT_EQ(stateOf(*st).getString("last_error"), "");
  double bestModel = 1e9;
  for (const Trial &t : next)
    bestModel = std::min(bestModel, l.evaluate(t.cfg).cost);
  EXPECT_LT(bestModel, bestRandom);
}

TEST(AutoMCL, FailuresOnlyKeepSearchingRandomly) {
  auto st = makeStrategy("automcl", paperSpace(), fastOptions(), 4);
  ASSERT_TRUE(st);
  uint64_t n = 0;
  while (n < 48) {
    SmallVector<Trial> t = st->propose(8);
    ASSERT_FALSE(t.empty());
    SmallVector<TrialResult> r;
    for (const Trial &x : t)
      r.push_back({x.id, x.cfg, TrialStatus::CompileError, 0, "synthetic"});
    n += t.size();
    ASSERT_FALSE(bool(st->observe(r)));
  }
  EXPECT_FALSE(st->getBest().has_value());
  EXPECT_EQ(stateOf(*st).getString("last_error"), "");
}

/// The `im2col` values `count` proposals of `st` use.
std::set<std::string> proposedIm2col(Strategy &st, const Space &space,
                                     unsigned count) {
  std::set<std::string> values;
  const auto &im2col =
      llvm::cast<CategoricalParam>(space.getParameter(*space.lookup("im2col")));
  for (const Trial &t : st.propose(count))
    values.insert(im2col.getChoice(space.getValue(t.cfg, "im2col")).str());
  return values;
}

TEST(AutoMCL, ConvComputeDirectIsThePapersCONVOpt) {
  auto p = makeProblemSpec("conv_2d_nhwc_hwcf", "cpu", {1, 8, 8, 16, 3, 3, 8});
  ASSERT_TRUE(bool(p));
  Space space = *buildSpace(*p);
  // Default: the compute is searched, both values are proposed.
  auto searched = makeStrategy("automcl", space, {{"batch", "64"}}, 1);
  ASSERT_TRUE(searched);
  EXPECT_EQ(stateOf(*searched).getString("compute"), "");
  EXPECT_EQ(proposedIm2col(*searched, space, 64),
            (std::set<std::string>{"false", "true"}));
  // conv_compute = direct (the paper protocol): only im2col = false, and a
  // compute model given alongside does not change that.
  auto direct = makeStrategy(
      "automcl", space,
      {{"batch", "64"}, {"conv_compute", "direct"}, {"compute_model", "x"}}, 1);
  ASSERT_TRUE(direct);
  EXPECT_EQ(stateOf(*direct).getString("compute"), "direct");
  EXPECT_EQ(proposedIm2col(*direct, space, 64), std::set<std::string>{"false"});
  // A matmul has no im2col: the option changes nothing.
  EXPECT_TRUE(
      makeStrategy("automcl", cpuSpace(), {{"conv_compute", "direct"}}, 1));
  expectOptionsChecked("automcl", {{"conv_compute", "im2col"}});
}

//===----------------------------------------------------------------------===//
// Conformance
//===----------------------------------------------------------------------===//

TEST(AutoMCLConformance, SmoothPaperSpace) {
  Space s = paperSpace();
  checkStrategyConformance(
      "automcl", makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum)),
      fastOptions(), 8, 120);
}

TEST(AutoMCLConformance, InvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  checkStrategyConformance(
      "automcl", makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)),
      fastOptions(), 5, 100, 3);
}

TEST(AutoMCLConformance, FilteredSpaceBatchOfOne) {
  Space f = filteredSpace();
  std::mt19937_64 rng(5);
  Config opt = *f.sampleValid(rng, 100000);
  checkStrategyConformance("automcl", makeNoisyLandscape(f, opt), fastOptions(),
                           1, 40);
}

TEST(AutoMCLConformance, ExhaustsTinySpaceWithExhaustivePrediction) {
  Space s = buildPaperMatmulSpace(8, 4, 8); // 1200 configs
  Landscape l =
      makeSmoothLandscape(s, keyToConfig(s, "m=[2,1,2,2];k=[2,2];n=[1,2,2,2]"));
  RunLog log = runFresh("automcl", l, {{"batch", "100"}, {"num_rounds", "50"}},
                        9, 50, 5000);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
  EXPECT_EQ(log.numTrials, s.countProduct());
  // The model's first batch after the random one contains the optimum.
  ASSERT_TRUE(log.optimumAt.has_value());
  EXPECT_LT(*log.optimumAt, 200u);
}

//===----------------------------------------------------------------------===//
// Finding known optima
//===----------------------------------------------------------------------===//

// Budgets: 256 trials (0.5% of the 49392-point paper space) with the
// default batch of 64 and exhaustive prediction of the space.
TEST(AutoMCLFindsOptimum, SmoothWithDefaults) {
  Space s = paperSpace();
  expectFindsOptimum("automcl",
                     makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum)), 256,
                     {});
}

TEST(AutoMCLFindsOptimum, NoisyWithDefaults) {
  Space s = paperSpace();
  expectFindsOptimum(
      "automcl", makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum)), 256, {});
}

// Sampled prediction (the space is treated as too large to predict
// exhaustively): 320 trials.
TEST(AutoMCLFindsOptimum, SmoothWithSampledPrediction) {
  Space s = paperSpace();
  expectFindsOptimum(
      "automcl", makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum)), 320,
      {{"batch", "16"}, {"exhaustive_limit", "1000"}, {"sample_size", "5000"}});
}

} // namespace
