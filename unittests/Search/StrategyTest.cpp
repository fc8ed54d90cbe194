//===- StrategyTest.cpp - Tests of grid, random, G-BFS and OpEvo ---------===//
//
// Registry and options, the generic conformance check (determinism, no
// duplicates, validity, budget, exact resume) for each strategy, and
// finding the known optimum of synthetic landscapes within stated budgets.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

const char *kMyStrategies[] = {"grid", "random", "gbfs", "opevo"};

TEST(Registry, BuiltinsAreRegistered) {
  for (const char *name : kMyStrategies) {
    const StrategyInfo *info = StrategyRegistry::get().lookup(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_FALSE(info->summary.empty());
    for (const OptionInfo &o : info->options)
      EXPECT_FALSE(o.help.empty()) << name << "." << o.name;
  }
}

TEST(Registry, DefaultsArePaperValues) {
  auto gbfs = makeStrategy("gbfs", paperSpace(), {}, 0);
  ASSERT_TRUE(gbfs);
  EXPECT_EQ(gbfs->getOptions().at("rho"), "5");
  auto opevo = makeStrategy("opevo", paperSpace(), {}, 0);
  ASSERT_TRUE(opevo);
  EXPECT_EQ(opevo->getOptions().at("lambda"), "8");
  EXPECT_EQ(opevo->getOptions().at("rho"), "8");
  EXPECT_EQ(opevo->getOptions().at("q"), "0.5");
  EXPECT_EQ(opevo->getOptions().at("max_trials"), "0");
}

TEST(Registry, ErrorsAreReported) {
  auto expectError = [](llvm::Expected<std::unique_ptr<Strategy>> s,
                        llvm::StringRef needle) {
    ASSERT_FALSE(bool(s));
    std::string msg = llvm::toString(s.takeError());
    EXPECT_NE(msg.find(needle.str()), std::string::npos) << msg;
  };
  expectError(createStrategy("nope", paperSpace()), "unknown search strategy");
  expectError(createStrategy("gbfs", paperSpace(), {{"rhoo", "5"}}),
              "unknown option 'rhoo'");
  expectError(createStrategy("gbfs", paperSpace(), {{"rho", "x"}}),
              "not an integer");
  expectError(createStrategy("gbfs", paperSpace(), {{"rho", "0"}}), "rho");
  expectError(createStrategy("opevo", paperSpace(), {{"q", "1.5"}}), "q");
  expectError(createStrategy("random", paperSpace(), {{"max_trials", "-1"}}),
              "max_trials");
  expectError(createStrategy("gbfs", paperSpace(), {{"start", "middle"}}),
              "start");
  expectError(createStrategy("grid", Space()), "empty space");
}

TEST(Registry, ParseOptions) {
  auto o = parseStrategyOptions("rho=3, restart=false");
  ASSERT_TRUE(bool(o));
  EXPECT_EQ(o->at("rho"), "3");
  EXPECT_EQ(o->at("restart"), "false");
  auto bad = parseStrategyOptions("rho");
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
  auto dup = parseStrategyOptions("a=1,a=2");
  EXPECT_FALSE(bool(dup));
  llvm::consumeError(dup.takeError());
}

TEST(Registry, ChoiceOptions) {
  StrategyOptions o = {{"loss", "reg"}, {"start", "sideways"}};
  auto loss = getChoiceOption(o, "loss", {"rank", "reg"});
  ASSERT_TRUE(bool(loss));
  EXPECT_EQ(*loss, "reg");
  auto start = getChoiceOption(o, "start", {"default", "random", "untiled"});
  ASSERT_FALSE(bool(start));
  EXPECT_EQ(llvm::toString(start.takeError()),
            "option 'start' must be 'default', 'random' or 'untiled', got "
            "'sideways'");
  auto missing = getChoiceOption(o, "features", {"itervar", "knob"});
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()), "option 'features': missing");
}

TEST(Registry, StatusNames) {
  for (TrialStatus s : {TrialStatus::Ok, TrialStatus::Invalid,
                        TrialStatus::CompileError, TrialStatus::RuntimeError,
                        TrialStatus::WrongResult, TrialStatus::Timeout})
    EXPECT_EQ(parseMeasureStatus(stringifyMeasureStatus(s)), s);
  EXPECT_FALSE(parseMeasureStatus("crashed").has_value());
}

//===----------------------------------------------------------------------===//
// Conformance
//===----------------------------------------------------------------------===//

class Conformance : public ::testing::TestWithParam<const char *> {};

TEST_P(Conformance, SmoothPaperSpace) {
  checkStrategyConformance(GetParam(), smoothPaper(), {}, 8, 120);
}

TEST_P(Conformance, InvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  checkStrategyConformance(
      GetParam(), makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)),
      {}, 5, 100, 3);
}

TEST_P(Conformance, FilteredSpaceBatchOfOne) {
  // A space transformed by AutoMCL's filters: every proposal must satisfy
  // the added constraints.
  auto p = makeProblemSpec("matmul", "cpu", {8, 16, 16});
  Space base = *buildSpace(*p);
  CacheModel m;
  m.cacheBytes = 32 * 1024;
  m.lineBytes = m.vectorBytes = 64; // pinned: not the host's
  Space f = *restrictToThreadGrid(*filterByIdealCacheModel(base, *p, m), *p, 4);
  std::mt19937_64 rng(5);
  Config opt = *f.sampleValid(rng, 100000);
  checkStrategyConformance(GetParam(), makeNoisyLandscape(f, opt), {}, 1, 40);
}

TEST_P(Conformance, ExhaustsTinySpaceWithoutRepeats) {
  Space s = tinySpace();
  Landscape l = makeSmoothLandscape(s, keyToConfig(s, kTinyOptimum));
  StrategyOptions opts;
  RunLog log = runFresh(GetParam(), l, opts, 9, 16, 5000);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
  // grid, random and (restarting) G-BFS visit the whole space; OpEvo
  // finds the optimum long before.
  if (llvm::StringRef(GetParam()) != "opevo")
    EXPECT_EQ(log.numTrials, s.countProduct());
  EXPECT_TRUE(log.optimumAt.has_value());
}

INSTANTIATE_TEST_SUITE_P(MyStrategies, Conformance,
                         ::testing::ValuesIn(kMyStrategies));

//===----------------------------------------------------------------------===//
// Warm start (option "start_config")
//===----------------------------------------------------------------------===//

TEST(WarmStart, EveryStrategyStartsFromTheGivenConfig) {
  Space s = paperSpace();
  std::mt19937_64 rng(11);
  Config start = *s.sampleValid(rng);
  ASSERT_NE(start, s.getDefault());
  for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
    SCOPED_TRACE(info->name);
    StrategyOptions opts{{"start_config", s.getKey(start)}};
    auto st = makeStrategy(info->name, s, opts, 3);
    ASSERT_TRUE(st);
    auto first = st->propose(8);
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first[0].cfg, start) << s.getKey(first[0].cfg);
    // G-BFS expands the start state, as it would the paper's s0.
    if (info->name == "gbfs") {
      ASSERT_FALSE(bool(st->observe(
          {{first[0].id, first[0].cfg, TrialStatus::Ok, 1.0, ""}})));
      SmallVector<Config> nbrs;
      s.getNeighbors(start, nbrs);
      for (const Trial &t : st->propose(5))
        EXPECT_TRUE(llvm::is_contained(nbrs, t.cfg));
    }
    // The rest of a run keeps every guarantee (no duplicates, valid,
    // budget, deterministic, resumable).
    checkStrategyConformance(info->name, smoothPaper(), opts, 8, 60);
  }
}

TEST(WarmStart, BadStartIsAnError) {
  Space s = paperSpace();
  for (const char *bad : {"m=[3,1,1,1];k=[64,1];n=[64,1,1,1]", "nonsense"}) {
    auto st = createStrategy("gbfs", s, {{"start_config", bad}}, 1);
    EXPECT_FALSE(bool(st)) << bad;
    if (!st)
      EXPECT_NE(toString(st.takeError()).find("option 'start_config'"),
                std::string::npos);
  }
}

/// Option "seed_configs": every strategy proposes the start config and then
/// the seeds (repeats once), before anything of its own, in batches as large
/// as asked; G-BFS then expands the best of them.
TEST(WarmStart, SeedsComeRightAfterTheStart) {
  Space s = paperSpace();
  std::mt19937_64 rng(5);
  Config start = *s.sampleValid(rng);
  SmallVector<Config> seeds;
  while (seeds.size() < 3) {
    Config c = *s.sampleValid(rng);
    if (c != start && !llvm::is_contained(seeds, c))
      seeds.push_back(c);
  }
  std::string seedText = s.getKey(seeds[0]) + "|" + s.getKey(start) + " | " +
                         s.getKey(seeds[1]) + "|" + s.getKey(seeds[2]) + "|" +
                         s.getKey(seeds[0]);
  for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
    SCOPED_TRACE(info->name);
    StrategyOptions opts{{"start_config", s.getKey(start)},
                         {"seed_configs", seedText}};
    auto st = makeStrategy(info->name, s, opts, 3);
    ASSERT_TRUE(st);
    EXPECT_EQ(st->getOptions().at("seed_configs"), seedText);
    auto first = st->propose(3);
    ASSERT_EQ(first.size(), 3u);
    EXPECT_EQ(first[0].cfg, start);
    EXPECT_EQ(first[1].cfg, seeds[0]);
    EXPECT_EQ(first[2].cfg, seeds[1]);
    // The rest of the seeds alone, even when more are asked for.
    auto second = st->propose(8);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].cfg, seeds[2]);
    SmallVector<TrialResult> results;
    for (const Trial &t : first)
      results.push_back({t.id, t.cfg, TrialStatus::Ok, 2.0, ""});
    results.push_back({second[0].id, second[0].cfg, TrialStatus::Ok, 1.0, ""});
    ASSERT_FALSE(bool(st->observe(results)));
    auto next = st->propose(5);
    EXPECT_FALSE(next.empty());
    if (info->name == "gbfs") {
      SmallVector<Config> nbrs;
      s.getNeighbors(seeds[2], nbrs);
      for (const Trial &t : next)
        EXPECT_TRUE(llvm::is_contained(nbrs, t.cfg)) << s.getKey(t.cfg);
    }
    checkStrategyConformance(info->name, smoothPaper(), opts, 8, 60);
  }
  // Without a start config the seeds come first.
  auto st = makeStrategy("random", s, {{"seed_configs", s.getKey(seeds[1])}}, 1);
  ASSERT_TRUE(st);
  auto first = st->propose(4);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].cfg, seeds[1]);
}

TEST(WarmStart, BadSeedIsAnError) {
  Space s = paperSpace();
  std::string good = s.getKey(s.getDefault());
  for (const char *bad : {"m=[3,1,1,1];k=[64,1];n=[64,1,1,1]", "nonsense"}) {
    auto st = createStrategy("opevo", s, {{"seed_configs", good + "|" + bad}}, 1);
    EXPECT_FALSE(bool(st)) << bad;
    if (!st)
      EXPECT_NE(toString(st.takeError()).find("option 'seed_configs'"),
                std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Strategy-specific behaviour
//===----------------------------------------------------------------------===//

TEST(Grid, MixedRadixOrder) {
  Space s = tinySpace();
  auto g = makeStrategy("grid", s, {}, 0);
  ASSERT_TRUE(g);
  auto trials = g->propose(5);
  ASSERT_EQ(trials.size(), 5u);
  for (unsigned i = 0; i < 5; ++i)
    EXPECT_EQ(s.rank(trials[i].cfg), i);
  auto g2 = makeStrategy("grid", s, {{"start", "100"}}, 0);
  EXPECT_EQ(s.rank(g2->propose(1)[0].cfg), 100u);
}

TEST(Random, ExhaustsConstrainedSpace) {
  // Only 1/4 of the product space is valid; random must still hand out
  // every valid config exactly once and then stop.
  Space s = tinySpace().withConstraint(
      {"k-split",
       [](const Space &sp, const Config &c) -> std::optional<std::string> {
         if (sp.getValue(c, "k")[0] == 2)
           return std::nullopt;
         return std::string("k outer must be 2");
       }});
  uint64_t valid = *s.countValid();
  Landscape l =
      makeSmoothLandscape(s, *s.parseKey("m=[8,1,1,1];k=[2,2];n=[8,1,1,1]"));
  RunLog log = runFresh("random", l, {{"max_attempts", "20"}}, 4, 7, 100000);
  EXPECT_EQ(log.numTrials, valid);
  EXPECT_FALSE(log.sawDuplicate);
  EXPECT_FALSE(log.sawInvalid);
}

TEST(GBFS, StartsFromDefaultAndExpandsNeighbours) {
  Space s = paperSpace();
  auto g = makeStrategy("gbfs", s, {}, 1);
  ASSERT_TRUE(g);
  auto first = g->propose(8);
  ASSERT_EQ(first.size(), 1u) << "the start state is measured alone";
  EXPECT_EQ(s.getKey(first[0].cfg), "m=[64,1,1,1];k=[64,1];n=[64,1,1,1]");
  // Nothing more until the start state's cost is known.
  EXPECT_TRUE(g->propose(8).empty());
  ASSERT_FALSE(bool(
      g->observe({{first[0].id, first[0].cfg, TrialStatus::Ok, 1.0, ""}})));
  auto next = g->propose(5);
  EXPECT_EQ(next.size(), 5u);
  SmallVector<Config> nbrs;
  s.getNeighbors(first[0].cfg, nbrs);
  for (const Trial &t : next)
    EXPECT_TRUE(llvm::is_contained(nbrs, t.cfg));
}

TEST(GBFS, DoesNotStopWhenSampledNeighboursWereVisited) {
  // Small rho and no restarts: many popped states have all their sampled
  // neighbours visited already; G-BFS must then move on to the next queued
  // state, so it stops only when every measured state has been expanded.
  Space s = tinySpace();
  Landscape l = makeNoisyLandscape(s, keyToConfig(s, kTinyOptimum));
  for (const char *rho : {"1", "2", "3"})
    for (uint64_t seed = 0; seed < 5; ++seed) {
      auto g =
          makeStrategy("gbfs", s, {{"rho", rho}, {"restart", "false"}}, seed);
      ASSERT_TRUE(g);
      RunLog log;
      runStrategy(*g, l, 1, 100000, log);
      EXPECT_TRUE(g->isDone());
      EXPECT_FALSE(log.sawDuplicate);
      llvm::json::Value saved = g->saveState();
      const llvm::json::Object *state = saved.getAsObject()->getObject("state");
      ASSERT_TRUE(state);
      size_t ok = 0;
      for (const TrialResult &r : g->getHistory())
        ok += r.isOk();
      EXPECT_EQ(state->getArray("popped")->size(), ok)
          << "stopped with states left in the queue (rho " << rho << ")";
    }
  // With rho >= the largest degree G-BFS is exhaustive (paper, section 3.3).
  auto full =
      makeStrategy("gbfs", s, {{"rho", "1000"}, {"restart", "false"}}, 3);
  RunLog all;
  runStrategy(*full, l, 4, 100000, all);
  EXPECT_EQ(all.numTrials, s.countProduct());
}

TEST(GBFS, FailedStatesAreNotExpanded) {
  Space s = tinySpace();
  auto g = makeStrategy("gbfs", s, {{"restart", "false"}}, 0);
  auto t = g->propose(1);
  ASSERT_FALSE(bool(
      g->observe({{t[0].id, t[0].cfg, TrialStatus::CompileError, 0, "boom"}})));
  EXPECT_TRUE(g->propose(4).empty());
  EXPECT_TRUE(g->isDone());
  EXPECT_FALSE(g->getBest().has_value());
}

TEST(OpEvo, InitialPopulationIsLambdaRandomConfigs) {
  Space s = paperSpace();
  auto e = makeStrategy("opevo", s, {{"lambda", "6"}}, 2);
  auto t = e->propose(100);
  EXPECT_EQ(t.size(), 6u) << "first the lambda random configs, then wait";
  EXPECT_TRUE(e->propose(100).empty());
}

TEST(OpEvo, AllFailuresStillProgress) {
  // Zero fitness everywhere: recombination falls back to uniform parents
  // and the search keeps proposing new configs.
  Space s = tinySpace();
  auto e = makeStrategy("opevo", s, {}, 2);
  uint64_t n = 0;
  for (int round = 0; round < 20; ++round) {
    auto t = e->propose(8);
    ASSERT_FALSE(t.empty());
    SmallVector<TrialResult> r;
    for (const Trial &x : t)
      r.push_back({x.id, x.cfg, TrialStatus::WrongResult, 0, ""});
    n += t.size();
    ASSERT_FALSE(bool(e->observe(r)));
  }
  EXPECT_EQ(n, 160u);
  EXPECT_FALSE(e->getBest().has_value());
}

//===----------------------------------------------------------------------===//
// Finding known optima (budgets are stated in the test names' comments)
//===----------------------------------------------------------------------===//

Landscape multimodalPaper() {
  Space s = paperSpace();
  // Decoy basins near the G-BFS start state.
  return makeMultimodalLandscape(
      s, keyToConfig(s, kPaperOptimum),
      {keyToConfig(s, "m=[1,1,8,8];k=[1,64];n=[1,8,8,1]"),
       keyToConfig(s, "m=[4,4,4,1];k=[2,32];n=[1,1,4,16]")});
}

// Budgets: G-BFS 400 trials (0.8% of the 49392-point space); OpEvo 600.
TEST(FindsOptimum, GBFSSmooth) {
  expectFindsOptimum("gbfs", smoothPaper(), 400);
}
TEST(FindsOptimum, OpEvoSmooth) {
  expectFindsOptimum("opevo", smoothPaper(), 600);
}

TEST(FindsOptimum, GBFSNoisy) {
  Space s = paperSpace();
  expectFindsOptimum("gbfs",
                     makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum)), 600);
}
TEST(FindsOptimum, OpEvoNoisy) {
  Space s = paperSpace();
  expectFindsOptimum("opevo",
                     makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum)), 800);
}

TEST(FindsOptimum, GBFSMultimodal) {
  expectFindsOptimum("gbfs", multimodalPaper(), 800);
}
TEST(FindsOptimum, OpEvoMultimodal) {
  expectFindsOptimum("opevo", multimodalPaper(), 800);
}

TEST(FindsOptimum, GBFSInvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  expectFindsOptimum(
      "gbfs", makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)), 1500);
}
TEST(FindsOptimum, OpEvoInvalidRegionsCpuSpace) {
  Space s = cpuSpace();
  expectFindsOptimum("opevo",
                     makeInvalidRegionLandscape(s, keyToConfig(s, kCpuOptimum)),
                     1500);
}

TEST(FindsOptimum, GridAndRandomByExhaustion) {
  Space s = tinySpace();
  Landscape l = makeNoisyLandscape(s, keyToConfig(s, kTinyOptimum));
  expectFindsOptimum("grid", l, s.countProduct());
  expectFindsOptimum("random", l, s.countProduct());
}

} // namespace
