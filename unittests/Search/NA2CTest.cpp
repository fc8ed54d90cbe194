//===- NA2CTest.cpp - Tests of the N-A2C search strategy ------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The labelled action set, the start state and batch collection of
// Algorithm 2, the generic conformance check (determinism, no duplicates,
// validity, budget, exact resume) and finding known optima of synthetic
// landscapes within stated budgets.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Search/NA2C.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "gtest/gtest.h"

#include <chrono>
#include <set>

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

TEST(NA2CActions, PaperSpaceLabelsAreThePapersMoves) {
  Space s = paperSpace();
  NeighborActionSpace actions(s);
  // m and n: one prime (2), 4 slots -> 4*3 moves each; k: 2 slots -> 2.
  EXPECT_EQ(actions.getNumActions(), 12u + 2u + 12u);
  Config start = s.getDefault(); // [[64,1,1,1],[64,1],[64,1,1,1]]
  SmallVector<std::pair<unsigned, Config>> out;
  actions.getActions(start, out);
  // From the default only "move a 2 out of slot 0" is possible: 3 + 1 + 3.
  EXPECT_EQ(out.size(), 7u);
  for (const auto &[a, next] : out) {
    EXPECT_EQ(actions.labelMove(start, next), a);
    EXPECT_NE(actions.describe(a).find("move 2 from 0"), std::string::npos)
        << actions.describe(a);
  }
}

TEST(NA2CActions, LabelsCoverTheNeighbourhoodOfEveryKind) {
  // A CPU space (factorization, permutation, categorical, discrete, with
  // constraints) and a non-power-of-two factorization.
  auto p = makeProblemSpec("matmul", "cpu", {24, 36, 20});
  ASSERT_TRUE(bool(p));
  for (Space s : {cpuSpace(), *buildSpace(*p)}) {
    NeighborActionSpace actions(s);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 50; ++i) {
      std::optional<Config> c = s.sampleValid(rng);
      ASSERT_TRUE(c.has_value());
      SmallVector<Config> neighbors;
      s.getNeighbors(*c, neighbors);
      std::set<Config> validNeighbors;
      for (const Config &n : neighbors)
        if (s.isValid(n))
          validNeighbors.insert(n);
      SmallVector<std::pair<unsigned, Config>> out;
      actions.getActions(*c, out);
      std::set<Config> reached;
      std::set<unsigned> labels;
      for (const auto &[a, next] : out) {
        EXPECT_LT(a, actions.getNumActions());
        EXPECT_TRUE(labels.insert(a).second) << "label used twice";
        EXPECT_TRUE(s.isValid(next));
        EXPECT_EQ(actions.labelMove(*c, next), a);
        EXPECT_NE(actions.describe(a), "invalid action");
        reached.insert(next);
      }
      EXPECT_EQ(reached, validNeighbors);
    }
  }
}

TEST(NA2CActions, NonNeighboursHaveNoLabel) {
  Space s = paperSpace();
  NeighborActionSpace actions(s);
  Config a = keyToConfig(s, "m=[2,4,2,4];k=[8,8];n=[4,2,4,2]");
  Config b = keyToConfig(s, "m=[8,1,2,4];k=[8,8];n=[4,2,4,2]");  // moves a 4
  Config c = keyToConfig(s, "m=[4,2,2,4];k=[4,16];n=[4,2,4,2]"); // two params
  EXPECT_FALSE(actions.labelMove(a, b).has_value());
  EXPECT_FALSE(actions.labelMove(a, c).has_value());
  EXPECT_FALSE(actions.labelMove(a, a).has_value());
}

TEST(NA2C, RegisteredWithPaperDefaults) {
  auto s = makeStrategy("na2c", paperSpace(), {}, 0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->getOptions().at("steps"), "3");
  EXPECT_EQ(s->getOptions().at("start"), "default");
}

TEST(NA2C, BadOptionsAreErrors) {
  expectOptionsChecked("na2c", {{"tau", "1.5"},
                                {"steps", "0"},
                                {"start", "middle"},
                                {"gamma", "x"},
                                {"bogus", "1"}});
  auto s = createStrategy("na2c", paperSpace(),
                          {{"steps", "5"}, {"max_steps", "4"}});
  EXPECT_FALSE(bool(s));
  if (!s)
    llvm::consumeError(s.takeError());
}

TEST(NA2C, StartsFromTheDefaultStateThenExploresItsNeighbourhood) {
  Landscape l = smoothPaper();
  auto s = makeStrategy("na2c", l.space, {}, 3);
  ASSERT_TRUE(s);
  SmallVector<Trial> first = s->propose(8);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].cfg, l.space.getDefault());
  // Nothing else until s0 is measured.
  EXPECT_TRUE(s->propose(8).empty());
  TrialResult r = l.evaluate(first[0].cfg);
  r.id = first[0].id;
  ASSERT_FALSE(bool(s->observe({r})));
  // The next batch is collected by soft-start episodes (T = 6 steps) from
  // s0: every candidate is within 6 moves of it.
  SmallVector<Trial> batch = s->propose(100);
  EXPECT_EQ(batch.size(), 8u); // batch_size
  NeighborActionSpace actions(l.space);
  for (const Trial &t : batch) {
    EXPECT_LE(configDistance(l.space, t.cfg, l.space.getDefault()), 6.0)
        << l.space.getKey(t.cfg);
    EXPECT_NE(t.cfg, l.space.getDefault());
  }
}

TEST(NA2C, ReplayMemoryAndNetworksAreUpdatedAfterEachBatch) {
  Landscape l = smoothPaper();
  auto s = makeStrategy("na2c", l.space, {}, 4);
  ASSERT_TRUE(s);
  RunLog log;
  runStrategy(*s, l, 8, 1, log);
  llvm::json::Value before = s->saveState();
  runStrategy(*s, l, 8, 1 + 8 * 3, log);
  llvm::json::Value after = s->saveState();
  const llvm::json::Object *sb = before.getAsObject()->getObject("state");
  const llvm::json::Object *sa = after.getAsObject()->getObject("state");
  ASSERT_TRUE(sb && sa);
  EXPECT_EQ(sb->getArray("memory")->size(), 0u);
  // Every measured batch member entered the memory with its transition.
  EXPECT_EQ(sa->getArray("memory")->size(), 24u);
  EXPECT_NE(*sb->getArray("actor"), *sa->getArray("actor"));
  EXPECT_NE(*sb->getArray("critic"), *sa->getArray("critic"));
  // Soft start: T went 6 -> 5 -> 4 -> 3 over the three batches.
  EXPECT_EQ(sa->getInteger("steps"), 3);
}

TEST(NA2C, FailedStartFallsBackToRandomExploration) {
  Space s = paperSpace();
  Config start = s.getDefault();
  Landscape l = makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum));
  auto base = l.evaluate;
  l.evaluate = [base, start](const Config &c) {
    TrialResult r = base(c);
    if (c == start)
      r.status = TrialStatus::CompileError;
    return r;
  };
  RunLog log = runFresh("na2c", l, {}, 5, 8, 60);
  EXPECT_EQ(log.numTrials, 60u);
  EXPECT_FALSE(log.sawDuplicate);
  ASSERT_TRUE(log.best.has_value());
}

TEST(NA2C, ExhaustsATinySpaceWithoutRepeats) {
  Space s = buildPaperMatmulSpace(8, 4, 8); // 1200 configs
  Landscape l =
      makeNoisyLandscape(s, keyToConfig(s, "m=[2,1,2,2];k=[2,2];n=[1,2,2,2]"));
  auto st = makeStrategy("na2c", s, {}, 9);
  ASSERT_TRUE(st);
  RunLog log;
  runStrategy(*st, l, 16, 5000, log);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
  EXPECT_EQ(log.numTrials, s.countProduct());
  EXPECT_TRUE(st->isDone());
  EXPECT_TRUE(log.optimumAt.has_value());
}

//===----------------------------------------------------------------------===//
// Conformance
//===----------------------------------------------------------------------===//

TEST(NA2CConformance, SmoothPaperSpace) {
  checkStrategyConformance("na2c", smoothPaper(), {}, 8, 120);
}

TEST(NA2CConformance, InvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  checkStrategyConformance(
      "na2c", makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)), {}, 5,
      100, 3);
}

TEST(NA2CConformance, FilteredSpaceBatchOfOne) {
  auto p = makeProblemSpec("matmul", "cpu", {64, 64, 64});
  Space base = *buildSpace(*p);
  CacheModel m;
  m.cacheBytes = 32 * 1024;
  m.lineBytes = m.vectorBytes = 64; // pinned: not the host's
  Space f = *restrictToThreadGrid(*filterByIdealCacheModel(base, *p, m), *p, 4);
  std::mt19937_64 rng(5);
  Config opt = *f.sampleValid(rng, 100000);
  checkStrategyConformance("na2c", makeNoisyLandscape(f, opt), {}, 1, 40);
}

//===----------------------------------------------------------------------===//
// Finding known optima
//===----------------------------------------------------------------------===//

// Budgets: 400 trials (0.8% of the 49392-point paper space) on the smooth
// bowl, 500 on the rugged one, 600 on the CPU space with failing regions.
TEST(NA2CFindsOptimum, Smooth) {
  expectFindsOptimum("na2c", smoothPaper(), 400);
}

TEST(NA2CFindsOptimum, Noisy) {
  Space s = paperSpace();
  expectFindsOptimum("na2c",
                     makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum)), 500);
}

TEST(NA2CFindsOptimum, InvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  expectFindsOptimum(
      "na2c", makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)), 600);
}

} // namespace

namespace {

// Training stops at the strategy's deadline: a run whose every batch would
// train for minutes still proposes and observes promptly.
TEST(NA2C, TrainingStopsAtTheDeadline) {
  Landscape l = smoothPaper();
  auto strategy =
      makeStrategy("na2c", l.space, {{"train_steps", "1000000"}}, 3);
  ASSERT_TRUE(strategy);
  strategy->setDeadline(Deadline::in(0.2));
  auto start = std::chrono::steady_clock::now();
  RunLog log;
  runStrategy(*strategy, l, 8, 48, log);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, 20.0);
  EXPECT_EQ(log.numTrials, 48u);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
}

} // namespace
