//===- ProtocolTest.cpp - Paper protocol presets and G-BFS batch 1 -------===//
//
// The "paper" protocol presets of every strategy (values, explicit options
// win, unknown protocols), G-BFS's expand=one (Algorithm 1's pop-one-state
// order at any batch size, checked against the cheapest unexpanded state on
// a synthetic objective), and the xgb `features` option.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Space/OperatorSpaces.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <set>

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

StrategyOptions paperOptions(llvm::StringRef algorithm,
                             StrategyOptions explicitOptions = {}) {
  if (llvm::Error e = applyProtocol(algorithm, "paper", explicitOptions))
    ADD_FAILURE() << llvm::toString(std::move(e));
  return explicitOptions;
}

TEST(Protocol, PaperPresets) {
  StrategyOptions gbfs = paperOptions("gbfs");
  EXPECT_EQ(gbfs["rho"], "5");
  EXPECT_EQ(gbfs["restart"], "false");
  EXPECT_EQ(gbfs["expand"], "one");
  EXPECT_EQ(gbfs["start"], "default");
  StrategyOptions na2c = paperOptions("na2c");
  EXPECT_EQ(na2c["steps"], "3");
  EXPECT_EQ(na2c["soft_start_steps"], "3");
  EXPECT_EQ(na2c["max_steps"], "3");
  StrategyOptions opevo = paperOptions("opevo");
  EXPECT_EQ(opevo["lambda"], "8");
  EXPECT_EQ(opevo["rho"], "8");
  EXPECT_EQ(opevo["q"], "0.5");
  StrategyOptions xgb = paperOptions("xgb");
  EXPECT_EQ(xgb["features"], "itervar");
  EXPECT_EQ(xgb["loss"], "rank");
  EXPECT_EQ(xgb["plan_size"], "64");
  EXPECT_EQ(paperOptions("automcl")["conv_compute"], "direct");
  // Explicit options win over the presets.
  EXPECT_EQ(paperOptions("gbfs", {{"rho", "7"}})["rho"], "7");
  // The default protocol adds nothing.
  StrategyOptions none;
  ASSERT_FALSE(bool(applyProtocol("gbfs", "default", none)));
  EXPECT_TRUE(none.empty());
}

TEST(Protocol, EveryStrategyAcceptsItsPresets) {
  for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
    StrategyOptions o = paperOptions(info->name);
    EXPECT_TRUE(makeStrategy(info->name, cpuSpace(), o, 1)) << info->name;
    EXPECT_TRUE(makeStrategy(info->name, paperSpace(), o, 1)) << info->name;
  }
}

TEST(Protocol, UnknownProtocolOrAlgorithm) {
  StrategyOptions o;
  llvm::Error e = applyProtocol("gbfs", "bogus", o);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(llvm::toString(std::move(e)),
            "unknown protocol 'bogus' (known: default, paper)");
  llvm::Error e2 = applyProtocol("nope", "paper", o);
  ASSERT_TRUE(bool(e2));
  EXPECT_NE(llvm::toString(std::move(e2)).find("unknown search strategy"),
            std::string::npos);
}

TEST(GBFS, ExpandOneIsAlgorithm1AtAnyBatch) {
  // Algorithm 1 pops one state, measures its rho sampled neighbours, then
  // pops again. With expand=one the proposals are the same whatever the
  // batch, and equal the batch-1 order of the default expand=fill.
  Space s = paperSpace();
  Landscape l = makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum));
  StrategyOptions one = {{"expand", "one"}, {"restart", "false"}};
  for (uint64_t seed = 0; seed < 3; ++seed) {
    RunLog batch1 = runFresh("gbfs", l, one, seed, 1, 200);
    RunLog batch8 = runFresh("gbfs", l, one, seed, 8, 200);
    RunLog fill1 = runFresh("gbfs", l, {{"restart", "false"}}, seed, 1, 200);
    EXPECT_EQ(batch1.keys, batch8.keys) << "seed " << seed;
    EXPECT_EQ(batch1.keys, fill1.keys) << "seed " << seed;
    RunLog fill8 = runFresh("gbfs", l, {{"restart", "false"}}, seed, 8, 200);
    EXPECT_NE(batch1.keys, fill8.keys)
        << "expand=fill at batch 8 should expand several states per batch";
  }
}

TEST(GBFS, ExpandOneMeasuresOneStatesNeighboursPerBatch) {
  // Every batch is a subset of the neighbours of one state: the cheapest
  // measured state not expanded yet (states whose sampled neighbours were
  // all visited give nothing and are skipped, as in Algorithm 1).
  Space s = paperSpace();
  Landscape l = makeNoisyLandscape(s, keyToConfig(s, kPaperOptimum));
  auto g = makeStrategy("gbfs", s, {{"expand", "one"}, {"rho", "5"}}, 4);
  ASSERT_TRUE(g);
  std::set<std::pair<double, uint64_t>> unexpanded; // (cost, trial id)
  std::map<uint64_t, Config> configs;
  unsigned batches = 0;
  for (unsigned call = 0; call < 60; ++call) {
    SmallVector<Trial> trials = g->propose(8);
    if (trials.empty())
      break;
    ASSERT_LE(trials.size(), 5u) << "more than rho neighbours in a batch";
    if (call > 0) {
      bool matched = false;
      while (!unexpanded.empty() && !matched) {
        auto top = *unexpanded.begin();
        unexpanded.erase(unexpanded.begin());
        SmallVector<Config> nbrs;
        s.getNeighbors(configs[top.second], nbrs);
        matched = llvm::all_of(trials, [&](const Trial &t) {
          return llvm::is_contained(nbrs, t.cfg);
        });
      }
      ASSERT_TRUE(matched) << "batch " << call
                           << " is not one queued state's neighbours";
      ++batches;
    }
    SmallVector<TrialResult> results;
    for (const Trial &t : trials) {
      TrialResult r = l.evaluate(t.cfg);
      r.id = t.id;
      if (r.isOk()) {
        unexpanded.insert({r.cost, r.id});
        configs[r.id] = r.cfg;
      }
      results.push_back(std::move(r));
    }
    ASSERT_FALSE(bool(g->observe(results)));
  }
  EXPECT_GT(batches, 20u);
}

TEST(GBFS, ExpandOptionIsChecked) {
  auto s = createStrategy("gbfs", paperSpace(), {{"expand", "two"}});
  ASSERT_FALSE(bool(s));
  EXPECT_NE(llvm::toString(s.takeError()).find("'expand' must be"),
            std::string::npos);
}

TEST(XGB, FeaturesOption) {
  auto bad = createStrategy("xgb", cpuSpace(), {{"features", "ast"}});
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("'features' must be"),
            std::string::npos);
  // Both feature sets drive a full plan cycle on an op's space; the plans
  // after the first fit differ (different models).
  Space s = cpuSpace();
  Landscape l = makeNoisyLandscape(s, keyToConfig(s, kCpuOptimum));
  StrategyOptions small = {{"plan_size", "16"}, {"sa_chains", "16"},
                           {"sa_iterations", "40"}};
  StrategyOptions itervar = small, knob = small;
  itervar["features"] = "itervar";
  knob["features"] = "knob";
  RunLog a = runFresh("xgb", l, itervar, 3, 8, 48);
  RunLog b = runFresh("xgb", l, knob, 3, 8, 48);
  ASSERT_EQ(a.numTrials, 48u);
  ASSERT_EQ(b.numTrials, 48u);
  EXPECT_FALSE(a.sawDuplicate || a.sawInvalid);
  // The first 16 (random, before any fit) coincide; the model's plans not.
  EXPECT_TRUE(std::equal(a.keys.begin(), a.keys.begin() + 16, b.keys.begin()));
  EXPECT_NE(a.keys, b.keys);
}

} // namespace
