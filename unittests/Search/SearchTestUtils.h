//===- SearchTestUtils.h - Strategy driver + conformance check --*- C++ -*-===//
//
// Reusable pieces for testing search strategies on the synthetic objectives
// of tiletune/Search/Testing/Landscapes.h: a synchronous driver loop and a
// generic "strategy conformance" check (determinism under a seed, no
// duplicates, no invalid proposals, budget, exact resume from saved state).
// Header-only; include from a GoogleTest file and call
// checkStrategyConformance / runStrategy.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_UNITTESTS_SEARCH_SEARCHTESTUTILS_H
#define TILETUNE_UNITTESTS_SEARCH_SEARCHTESTUTILS_H

#include "tiletune/Search/Strategy.h"
#include "tiletune/Search/Testing/Landscapes.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Space/Space.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace mlir::tiletune::testing {

/// Parses a key into a config of `space` (fails the test on error).
inline Config keyToConfig(const Space &space, llvm::StringRef key) {
  auto c = space.parseKey(key);
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return space.getDefault();
  }
  return *c;
}

/// What a run of a strategy produced.
struct RunLog {
  /// Keys of all proposals, in order.
  llvm::SmallVector<std::string> Keys;
  /// Best successful result.
  std::optional<TrialResult> Best;
  /// Trials measured.
  uint64_t NumTrials = 0;
  /// A proposal repeated an earlier one.
  bool SawDuplicate = false;
  /// A proposal violated the space.
  bool SawInvalid = false;
  /// Trial at which the optimum was first measured (if it was).
  std::optional<uint64_t> OptimumAt;
};

/// Creates a strategy through the registry; fails the test on error.
inline std::unique_ptr<Strategy> makeStrategy(llvm::StringRef name,
                                              const Space &space,
                                              const StrategyOptions &options,
                                              uint64_t seed) {
  auto s = createStrategy(name, space, options, seed);
  if (!s) {
    ADD_FAILURE() << llvm::toString(s.takeError());
    return nullptr;
  }
  return std::move(*s);
}

/// Synchronous driver: propose min(batch, budget - measured), measure,
/// observe, until `budget` trials were measured, the strategy has nothing
/// more to propose, or `maxCalls` propose() calls were made. Appends to
/// `log` (so a run can be continued on a resumed strategy).
inline void runStrategy(Strategy &s, const Landscape &l, unsigned batch,
                        uint64_t budget, RunLog &log,
                        uint64_t maxCalls = UINT64_MAX) {
  std::set<std::string> keys(log.Keys.begin(), log.Keys.end());
  for (uint64_t call = 0; call < maxCalls && log.NumTrials < budget; ++call) {
    unsigned n = unsigned(std::min<uint64_t>(batch, budget - log.NumTrials));
    llvm::SmallVector<Trial> trials = s.propose(n);
    if (trials.empty())
      break;
    EXPECT_LE(trials.size(), n) << s.getName().str();
    llvm::SmallVector<TrialResult> results;
    for (const Trial &t : trials) {
      std::string key = l.S.getKey(t.Cfg);
      if (!keys.insert(key).second)
        log.SawDuplicate = true;
      if (!l.S.isValid(t.Cfg))
        log.SawInvalid = true;
      log.Keys.push_back(key);
      TrialResult r = l.Evaluate(t.Cfg);
      r.Id = t.Id;
      if (r.isOk() && (!log.Best || r.Cost < log.Best->Cost))
        log.Best = r;
      if (t.Cfg == l.Optimum && !log.OptimumAt)
        log.OptimumAt = log.NumTrials;
      ++log.NumTrials;
      results.push_back(std::move(r));
    }
    if (llvm::Error e = s.observe(results)) {
      ADD_FAILURE() << llvm::toString(std::move(e));
      return;
    }
  }
}

/// Runs a fresh strategy and returns its log.
inline RunLog runFresh(llvm::StringRef name, const Landscape &l,
                       const StrategyOptions &options, uint64_t seed,
                       unsigned batch, uint64_t budget) {
  RunLog log;
  auto s = makeStrategy(name, l.S, options, seed);
  if (s)
    runStrategy(*s, l, batch, budget, log);
  return log;
}

/// Saves a strategy's state to JSON text and loads it into a fresh one.
inline std::unique_ptr<Strategy> roundTripState(const Strategy &s) {
  std::string text = llvm::formatv("{0}", s.saveState()).str();
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    ADD_FAILURE() << llvm::toString(parsed.takeError());
    return nullptr;
  }
  StrategyOptions given = s.getOptions();
  auto fresh = makeStrategy(s.getName(), s.getSpace(), given, s.getSeed());
  if (!fresh)
    return nullptr;
  if (llvm::Error e = fresh->loadState(*parsed)) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return nullptr;
  }
  return fresh;
}

/// Runs `name` on `l` for seeds 1..5 in batches of 8 until the optimum is
/// measured or `budget` trials are spent; expects the optimum every time.
inline void expectFindsOptimum(llvm::StringRef name, const Landscape &l,
                               uint64_t budget,
                               const StrategyOptions &opts = {}) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto s = makeStrategy(name, l.S, opts, seed);
    ASSERT_TRUE(s);
    RunLog log;
    while (log.NumTrials < budget && !log.OptimumAt) {
      uint64_t before = log.NumTrials;
      runStrategy(*s, l, 8, std::min<uint64_t>(budget, before + 8), log);
      if (log.NumTrials == before)
        break;
    }
    ASSERT_TRUE(log.Best.has_value()) << name.str() << " seed " << seed;
    EXPECT_EQ(log.Best->Cost, l.OptimumCost)
        << name.str() << " on " << l.Name << " seed " << seed << ": best "
        << l.S.getKey(log.Best->Cfg) << " after " << log.NumTrials;
  }
}

/// The generic conformance check of one strategy on one landscape:
/// determinism under a seed, no duplicate or invalid proposals, nothing
/// dropped by the base class, the budget ("max_trials") respected, the best
/// result consistent with the history, and exact resume (with and without
/// pending trials) at several cut points.
inline void checkStrategyConformance(llvm::StringRef name, const Landscape &l,
                                     const StrategyOptions &options,
                                     unsigned batch, uint64_t budget,
                                     uint64_t seed = 42) {
  SCOPED_TRACE(("strategy " + name + " on " + l.Name).str());
  // Determinism and validity.
  RunLog a = runFresh(name, l, options, seed, batch, budget);
  RunLog b = runFresh(name, l, options, seed, batch, budget);
  EXPECT_EQ(a.Keys, b.Keys) << "not deterministic under a seed";
  EXPECT_FALSE(a.SawDuplicate) << "proposed a config twice";
  EXPECT_FALSE(a.SawInvalid) << "proposed a config that violates the space";
  EXPECT_GT(a.NumTrials, 0u);

  // Base-class bookkeeping and best.
  {
    auto s = makeStrategy(name, l.S, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log);
    EXPECT_EQ(s->getNumDropped(), 0u) << "proposeImpl produced duplicates or "
                                         "invalid configs";
    EXPECT_EQ(s->getNumPending(), 0u);
    EXPECT_EQ(s->getHistory().size(), log.NumTrials);
    auto best = s->getBest();
    ASSERT_EQ(best.has_value(), log.Best.has_value());
    if (best)
      EXPECT_EQ(best->Cost, log.Best->Cost);
  }

  // Budget through the common option.
  {
    StrategyOptions limited = options;
    uint64_t limit = std::max<uint64_t>(1, budget / 3);
    limited["max_trials"] = std::to_string(limit);
    auto s = makeStrategy(name, l.S, limited, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log);
    EXPECT_LE(log.NumTrials, limit) << "budget exceeded";
    EXPECT_LE(s->getNumProposed(), limit);
    if (log.NumTrials == limit) {
      EXPECT_TRUE(s->isDone());
      EXPECT_TRUE(s->propose(batch).empty());
    }
  }

  // Resume: save -> load -> continue == uninterrupted. Cuts are counted in
  // propose() calls so that both runs make exactly the same calls.
  for (uint64_t calls : {uint64_t(1), uint64_t(3), uint64_t(7)}) {
    SCOPED_TRACE("resume after " + std::to_string(calls) + " calls");
    auto s = makeStrategy(name, l.S, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log, calls);
    if (log.NumTrials >= a.NumTrials)
      continue;
    auto resumed = roundTripState(*s);
    ASSERT_TRUE(resumed);
    runStrategy(*resumed, l, batch, budget, log);
    EXPECT_EQ(log.Keys, a.Keys) << "resumed run diverged";
  }

  // Resume with pending trials: propose, save, load, then observe on the
  // loaded instance.
  {
    auto s = makeStrategy(name, l.S, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log, 4);
    if (log.NumTrials < budget) {
      llvm::SmallVector<Trial> pending = s->propose(
          unsigned(std::min<uint64_t>(batch, budget - log.NumTrials)));
      auto resumed = roundTripState(*s);
      ASSERT_TRUE(resumed);
      EXPECT_EQ(resumed->getNumPending(), pending.size());
      llvm::SmallVector<TrialResult> results;
      for (const Trial &t : pending) {
        log.Keys.push_back(l.S.getKey(t.Cfg));
        TrialResult r = l.Evaluate(t.Cfg);
        r.Id = t.Id;
        results.push_back(r);
        ++log.NumTrials;
      }
      EXPECT_FALSE(bool(resumed->observe(results)));
      runStrategy(*resumed, l, batch, budget, log);
      EXPECT_EQ(log.Keys, a.Keys) << "resume with pending trials diverged";
    }
  }

  // Observing an unknown or repeated trial is an error, not a crash.
  {
    auto s = makeStrategy(name, l.S, options, seed);
    ASSERT_TRUE(s);
    llvm::SmallVector<Trial> t = s->propose(1);
    ASSERT_EQ(t.size(), 1u);
    TrialResult r = l.Evaluate(t[0].Cfg);
    r.Id = t[0].Id + 1000;
    llvm::Error e1 = s->observe({r});
    EXPECT_TRUE(bool(e1));
    llvm::consumeError(std::move(e1));
    r.Id = t[0].Id;
    EXPECT_FALSE(bool(s->observe({r})));
    llvm::Error e2 = s->observe({r});
    EXPECT_TRUE(bool(e2));
    llvm::consumeError(std::move(e2));
  }
}

//===----------------------------------------------------------------------===//
// Shared test spaces and landscapes
//===----------------------------------------------------------------------===//

/// The G-BFS/N-A2C space of a 64^3 matmul (49392 configs).
inline Space paperSpace() { return buildPaperMatmulSpace(64, 64, 64); }
inline constexpr const char *kPaperOptimum = "m=[2,4,2,4];k=[8,8];n=[4,2,4,2]";

/// A CPU matmul space with all four parameter kinds and constraints.
inline Space cpuSpace() {
  auto p = makeProblemSpec("matmul", "cpu", {32, 32, 32});
  return *buildSpace(*p);
}
inline constexpr const char *kCpuOptimum =
    "m=[2,2,2,4];n=[1,2,2,8];k=[4,8];order=[n,k,m];vectorize=true;pack=b;"
    "unroll=4";

/// A small space (1200 configs) that grid and random can exhaust.
inline Space tinySpace() { return buildPaperMatmulSpace(8, 4, 8); }
inline constexpr const char *kTinyOptimum = "m=[2,1,2,2];k=[2,2];n=[1,2,2,2]";

/// The smooth landscape of paperSpace() with its optimum at kPaperOptimum.
inline Landscape smoothPaper() {
  Space s = paperSpace();
  return makeSmoothLandscape(s, keyToConfig(s, kPaperOptimum));
}

/// Every `name=value` in `bad` makes creating strategy `name` fail (on
/// paperSpace()), and every option of the strategy is documented.
inline void expectOptionsChecked(
    llvm::StringRef name,
    std::initializer_list<std::pair<const char *, const char *>> bad) {
  const StrategyInfo *info = StrategyRegistry::get().lookup(name);
  ASSERT_NE(info, nullptr) << name.str();
  for (const OptionInfo &o : info->Options)
    EXPECT_FALSE(o.Help.empty()) << o.Name;
  for (auto [option, value] : bad) {
    auto s = createStrategy(name, paperSpace(), {{option, value}});
    EXPECT_FALSE(bool(s)) << option << "=" << value;
    if (!s)
      llvm::consumeError(s.takeError());
  }
}

} // namespace mlir::tiletune::testing

#endif // TILETUNE_UNITTESTS_SEARCH_SEARCHTESTUTILS_H
