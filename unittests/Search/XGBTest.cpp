//===- XGBTest.cpp - Tests of the AutoTVM-style XGBoost strategy ----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Simulated annealing on a known scorer, the plan/refit schedule, the
// generic conformance check and finding known optima of synthetic
// landscapes within stated budgets.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Search/Strategy.h"
#include "tiletune/Search/XGB.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "gtest/gtest.h"

#include <chrono>

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

/// Small settings that keep the tests fast (fewer chains, steps and trees).
StrategyOptions fastOptions() {
  return {{"plan_size", "16"},
          {"sa_chains", "32"},
          {"sa_iterations", "60"},
          {"num_rounds", "100"}};
}

TEST(XGBAnnealing, FindsTheMaximumOfAKnownScore) {
  Space s = paperSpace();
  Config target = keyToConfig(s, kPaperOptimum);
  ConfigScorer score =
      [&](llvm::ArrayRef<Config> cs) -> llvm::Expected<std::vector<float>> {
    std::vector<float> out;
    for (const Config &c : cs)
      out.push_back(-float(configDistance(s, c, target)));
    return out;
  };
  std::mt19937_64 rng(3);
  std::vector<Config> chains;
  AnnealingOptions opts; // AutoTVM defaults
  auto top = annealOnModel(
      s, score, 10, [](const Config &) { return false; }, chains, opts, rng);
  ASSERT_TRUE(bool(top)) << llvm::toString(top.takeError());
  ASSERT_EQ(top->size(), 10u);
  EXPECT_EQ(top->front(), target);
  EXPECT_EQ(chains.size(), opts.chains); // persistent chain positions
  ConfigSet distinct(top->begin(), top->end());
  EXPECT_EQ(distinct.size(), top->size());
  for (const Config &c : *top)
    EXPECT_TRUE(s.isValid(c));
  // Scores are non-increasing.
  for (size_t i = 1; i < top->size(); ++i)
    EXPECT_GE(configDistance(s, (*top)[i], target),
              configDistance(s, (*top)[i - 1], target));

  // Excluded configs never come back; continuing the chains works.
  auto excluded = annealOnModel(
      s, score, 10, [&](const Config &c) { return c == target; }, chains, opts,
      rng);
  ASSERT_TRUE(bool(excluded));
  for (const Config &c : *excluded)
    EXPECT_NE(c, target);
  EXPECT_EQ(configDistance(s, excluded->front(), target), 1.0);
}

TEST(XGBAnnealing, ScorerErrorsPropagate) {
  Space s = paperSpace();
  ConfigScorer failing =
      [](llvm::ArrayRef<Config>) -> llvm::Expected<std::vector<float>> {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "boom");
  };
  std::mt19937_64 rng(1);
  std::vector<Config> chains;
  auto r = annealOnModel(
      s, failing, 4, [](const Config &) { return false; }, chains, {}, rng);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()), "boom");
}

TEST(XGB, RegisteredWithAutoTVMDefaults) {
  const StrategyInfo *info = StrategyRegistry::get().lookup("xgb");
  ASSERT_NE(info, nullptr);
  for (const OptionInfo &o : info->options)
    EXPECT_FALSE(o.help.empty()) << o.name;
  auto s = makeStrategy("xgb", paperSpace(), {}, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->getOptions().at("plan_size"), "64");
  EXPECT_EQ(s->getOptions().at("loss"), "rank");
  EXPECT_EQ(s->getOptions().at("epsilon"), "0.05");
  EXPECT_EQ(s->getOptions().at("sa_chains"), "128");
  EXPECT_EQ(s->getOptions().at("sa_iterations"), "500");
}

TEST(XGB, BadOptionsAreErrors) {
  expectOptionsChecked("xgb", {{"loss", "hinge"},
                               {"plan_size", "0"},
                               {"epsilon", "2"},
                               {"sa_temp_end", "5"},
                               {"sa_persistent", "maybe"},
                               {"unknown", "1"}});
}

TEST(XGB, RandomUntilThePlanSizeThenFollowsTheModel) {
  Space s = paperSpace();
  Landscape l = makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum));
  auto st = makeStrategy("xgb", s, fastOptions(), 2);
  ASSERT_TRUE(st);
  // Proposals stop at the refit point until its results are in.
  SmallVector<Trial> first = st->propose(100);
  EXPECT_EQ(first.size(), 16u);
  EXPECT_TRUE(st->propose(8).empty());
  auto state = [&] {
    return *st->saveState().getAsObject()->getObject("state");
  };
  EXPECT_EQ(state().getInteger("fits"), 0);
  SmallVector<TrialResult> results;
  double bestRandom = 1e9;
  for (const Trial &t : first) {
    TrialResult r = l.evaluate(t.cfg);
    r.id = t.id;
    bestRandom = std::min(bestRandom, r.cost);
    results.push_back(r);
  }
  ASSERT_FALSE(bool(st->observe(results)));
  EXPECT_EQ(state().getInteger("fits"), 1);
  EXPECT_EQ(state().getArray("plan")->size(), 16u);
  EXPECT_EQ(state().getString("last_error"), "");
  // The first planned batch is better than the random one on this bowl.
  RunLog log;
  log.best = std::nullopt;
  runStrategy(*st, l, 16, 16, log);
  ASSERT_TRUE(log.best.has_value());
  EXPECT_LT(log.best->cost, bestRandom);
}

TEST(XGB, FailuresOnlyKeepSearchingRandomly) {
  Space s = paperSpace();
  auto st = makeStrategy("xgb", s, fastOptions(), 4);
  ASSERT_TRUE(st);
  uint64_t n = 0;
  while (n < 64) {
    SmallVector<Trial> t = st->propose(8);
    ASSERT_FALSE(t.empty());
    SmallVector<TrialResult> r;
    for (const Trial &x : t)
      r.push_back({x.id, x.cfg, TrialStatus::RuntimeError, 0, "synthetic"});
    n += t.size();
    ASSERT_FALSE(bool(st->observe(r)));
  }
  EXPECT_EQ(
      st->saveState().getAsObject()->getObject("state")->getInteger("fits"), 0);
}

//===----------------------------------------------------------------------===//
// Conformance
//===----------------------------------------------------------------------===//

TEST(XGBConformance, SmoothPaperSpace) {
  Space s = paperSpace();
  checkStrategyConformance(
      "xgb", makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum)),
      fastOptions(), 8, 120);
}

TEST(XGBConformance, InvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  checkStrategyConformance(
      "xgb", makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)),
      fastOptions(), 5, 100, 3);
}

TEST(XGBConformance, FilteredSpaceBatchOfOne) {
  auto p = makeProblemSpec("matmul", "cpu", {64, 64, 64});
  Space base = *buildSpace(*p);
  CacheModel m;
  m.cacheBytes = 32 * 1024;
  m.lineBytes = m.vectorBytes = 64; // pinned: not the host's
  Space f = *restrictToThreadGrid(*filterByIdealCacheModel(base, *p, m), *p, 4);
  std::mt19937_64 rng(5);
  Config opt = *f.sampleValid(rng, 100000);
  checkStrategyConformance("xgb", makeNoisyLandscape(f, opt), fastOptions(), 1,
                           40);
}

TEST(XGBConformance, ExhaustsTinySpaceWithoutRepeats) {
  Space s = buildPaperMatmulSpace(8, 4, 8); // 1200 configs
  Landscape l =
      makeSmoothLandscape(s, keyToConfig(s, "m=[2,1,2,2];k=[2,2];n=[1,2,2,2]"));
  StrategyOptions opts = fastOptions();
  opts["plan_size"] = "200";
  RunLog log = runFresh("xgb", l, opts, 9, 50, 5000);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
  EXPECT_EQ(log.numTrials, s.countProduct());
}

//===----------------------------------------------------------------------===//
// Finding known optima
//===----------------------------------------------------------------------===//

// Budgets: two plans (128 trials, 0.26% of the 49392-point paper space)
// with AutoTVM's default settings: 64 random trials, then one model plan.
TEST(XGBFindsOptimum, SmoothWithDefaults) {
  expectFindsOptimum(
      "xgb",
      makeSmoothLandscape(paperSpace(),
                          keyToConfig(paperSpace(), kPaperOptimum)),
      128, {});
}

TEST(XGBFindsOptimum, NoisyWithDefaults) {
  Space s = paperSpace();
  expectFindsOptimum(
      "xgb", makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum)), 128, {});
}

TEST(XGBFindsOptimum, ModelBeatsRandomOnTheCpuSpace) {
  // With 30% failing configs and all four parameter kinds the model does
  // not always reach the optimum quickly, but it must clearly beat random
  // sampling with the same budget.
  Space s = cpuSpace();
  Landscape l = makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum));
  double xgbSum = 0, randomSum = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    RunLog x = runFresh(
        "xgb", l,
        {{"plan_size", "32"}, {"sa_chains", "64"}, {"sa_iterations", "100"}},
        seed, 8, 256);
    RunLog r = runFresh("random", l, {}, seed, 8, 256);
    ASSERT_TRUE(x.best && r.best);
    xgbSum += x.best->cost;
    randomSum += r.best->cost;
  }
  EXPECT_LT(xgbSum, randomSum);
  EXPECT_LE(xgbSum / 4, 1.5);
}

} // namespace

//===----------------------------------------------------------------------===//
// The deadline (Strategy::setDeadline)
//===----------------------------------------------------------------------===//

namespace {

/// Seconds `f` takes.
template <typename F> double secondsOf(F &&f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(XGBDeadline, AnnealingStopsAndReturnsWhatItHas) {
  Space s = paperSpace();
  Config target = keyToConfig(s, kPaperOptimum);
  ConfigScorer score =
      [&](llvm::ArrayRef<Config> cs) -> llvm::Expected<std::vector<float>> {
    std::vector<float> out;
    for (const Config &c : cs)
      out.push_back(-float(configDistance(s, c, target)));
    return out;
  };
  // Far more steps than the test could wait for, and no early stop.
  AnnealingOptions opts;
  opts.iterations = 100000000;
  opts.earlyStop = 100000000;
  std::mt19937_64 rng(5);
  std::vector<Config> chains;
  llvm::Expected<std::vector<Config>> top = std::vector<Config>();
  double seconds = secondsOf([&] {
    top = annealOnModel(
        s, score, 8, [](const Config &) { return false; }, chains, opts, rng,
        Deadline::in(0.2));
  });
  ASSERT_TRUE(bool(top)) << llvm::toString(top.takeError());
  EXPECT_LT(seconds, 10.0);
  // The best configs seen until the deadline: a full, valid top set.
  EXPECT_EQ(top->size(), 8u);
  for (const Config &c : *top)
    EXPECT_TRUE(s.isValid(c));
}

TEST(XGBDeadline, ProposalsHonourAPassedDeadline) {
  // A fit of many rounds and long annealing: without the deadline the
  // refit at plan_size results takes far longer than the test allows.
  StrategyOptions options = {
      {"plan_size", "16"},           {"sa_chains", "64"},
      {"sa_iterations", "16000000"}, {"sa_early_stop", "16000000"},
      {"num_rounds", "100000"},      {"early_stopping", "0"}};
  Landscape l = smoothPaper();
  auto strategy = makeStrategy("xgb", l.space, options, 7);
  ASSERT_TRUE(strategy);
  // The first plan is random; its results trigger the refit in observe().
  llvm::SmallVector<Trial> trials = strategy->propose(16);
  ASSERT_EQ(trials.size(), 16u);
  llvm::SmallVector<TrialResult> results;
  for (const Trial &t : trials) {
    TrialResult r = l.evaluate(t.cfg);
    r.id = t.id;
    results.push_back(std::move(r));
  }
  strategy->setDeadline(Deadline::in(0.3));
  double seconds = secondsOf([&] {
    if (llvm::Error e = strategy->observe(results))
      ADD_FAILURE() << llvm::toString(std::move(e));
  });
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(strategy->deadlinePassed());
  // The cut-short model still plans: proposals keep coming, valid and new.
  llvm::SmallVector<Trial> next;
  seconds = secondsOf([&] { next = strategy->propose(8); });
  EXPECT_LT(seconds, 10.0);
  ASSERT_EQ(next.size(), 8u);
  for (const Trial &t : next) {
    EXPECT_TRUE(l.space.isValid(t.cfg));
    EXPECT_EQ(
        llvm::count_if(trials, [&](const Trial &o) { return o.cfg == t.cfg; }),
        0);
  }
  // The deadline is not part of the saved state.
  std::unique_ptr<Strategy> copy = roundTripState(*strategy);
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->getDeadline().isSet());
}

} // namespace
