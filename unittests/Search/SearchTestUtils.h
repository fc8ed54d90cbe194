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
  llvm::SmallVector<std::string> keys;
  /// Best successful result.
  std::optional<TrialResult> best;
  /// Trials measured.
  uint64_t numTrials = 0;
  /// A proposal repeated an earlier one.
  bool sawDuplicate = false;
  /// A proposal violated the space.
  bool sawInvalid = false;
  /// Trial at which the optimum was first measured (if it was).
  std::optional<uint64_t> optimumAt;
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
  std::set<std::string> keys(log.keys.begin(), log.keys.end());
  for (uint64_t call = 0; call < maxCalls && log.numTrials < budget; ++call) {
    unsigned n = unsigned(std::min<uint64_t>(batch, budget - log.numTrials));
    llvm::SmallVector<Trial> trials = s.propose(n);
    if (trials.empty())
      break;
    EXPECT_LE(trials.size(), n) << s.getName().str();
    llvm::SmallVector<TrialResult> results;
    for (const Trial &t : trials) {
      std::string key = l.space.getKey(t.cfg);
      if (!keys.insert(key).second)
        log.sawDuplicate = true;
      if (!l.space.isValid(t.cfg))
        log.sawInvalid = true;
      log.keys.push_back(key);
      TrialResult r = l.evaluate(t.cfg);
      r.id = t.id;
      if (r.isOk() && (!log.best || r.cost < log.best->cost))
        log.best = r;
      if (t.cfg == l.optimum && !log.optimumAt)
        log.optimumAt = log.numTrials;
      ++log.numTrials;
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
  auto s = makeStrategy(name, l.space, options, seed);
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
    auto s = makeStrategy(name, l.space, opts, seed);
    ASSERT_TRUE(s);
    RunLog log;
    while (log.numTrials < budget && !log.optimumAt) {
      uint64_t before = log.numTrials;
      runStrategy(*s, l, 8, std::min<uint64_t>(budget, before + 8), log);
      if (log.numTrials == before)
        break;
    }
    ASSERT_TRUE(log.best.has_value()) << name.str() << " seed " << seed;
    EXPECT_EQ(log.best->cost, l.optimumCost)
        << name.str() << " on " << l.name << " seed " << seed << ": best "
        << l.space.getKey(log.best->cfg) << " after " << log.numTrials;
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
  SCOPED_TRACE(("strategy " + name + " on " + l.name).str());
  // Determinism and validity.
  RunLog a = runFresh(name, l, options, seed, batch, budget);
  RunLog b = runFresh(name, l, options, seed, batch, budget);
  EXPECT_EQ(a.keys, b.keys) << "not deterministic under a seed";
  EXPECT_FALSE(a.sawDuplicate) << "proposed a config twice";
  EXPECT_FALSE(a.sawInvalid) << "proposed a config that violates the space";
  EXPECT_GT(a.numTrials, 0u);

  // Base-class bookkeeping and best.
  {
    auto s = makeStrategy(name, l.space, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log);
    EXPECT_EQ(s->getNumDropped(), 0u) << "proposeImpl produced duplicates or "
                                         "invalid configs";
    EXPECT_EQ(s->getNumPending(), 0u);
    EXPECT_EQ(s->getHistory().size(), log.numTrials);
    auto best = s->getBest();
    ASSERT_EQ(best.has_value(), log.best.has_value());
    if (best)
      EXPECT_EQ(best->cost, log.best->cost);
  }

  // Budget through the common option.
  {
    StrategyOptions limited = options;
    uint64_t limit = std::max<uint64_t>(1, budget / 3);
    limited["max_trials"] = std::to_string(limit);
    auto s = makeStrategy(name, l.space, limited, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log);
    EXPECT_LE(log.numTrials, limit) << "budget exceeded";
    EXPECT_LE(s->getNumProposed(), limit);
    if (log.numTrials == limit) {
      EXPECT_TRUE(s->isDone());
      EXPECT_TRUE(s->propose(batch).empty());
    }
  }

  // Resume: save -> load -> continue == uninterrupted. Cuts are counted in
  // propose() calls so that both runs make exactly the same calls.
  for (uint64_t calls : {uint64_t(1), uint64_t(3), uint64_t(7)}) {
    SCOPED_TRACE("resume after " + std::to_string(calls) + " calls");
    auto s = makeStrategy(name, l.space, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log, calls);
    if (log.numTrials >= a.numTrials)
      continue;
    auto resumed = roundTripState(*s);
    ASSERT_TRUE(resumed);
    runStrategy(*resumed, l, batch, budget, log);
    EXPECT_EQ(log.keys, a.keys) << "resumed run diverged";
  }

  // Resume with pending trials: propose, save, load, then observe on the
  // loaded instance.
  {
    auto s = makeStrategy(name, l.space, options, seed);
    ASSERT_TRUE(s);
    RunLog log;
    runStrategy(*s, l, batch, budget, log, 4);
    if (log.numTrials < budget) {
      llvm::SmallVector<Trial> pending = s->propose(
          unsigned(std::min<uint64_t>(batch, budget - log.numTrials)));
      auto resumed = roundTripState(*s);
      ASSERT_TRUE(resumed);
      EXPECT_EQ(resumed->getNumPending(), pending.size());
      llvm::SmallVector<TrialResult> results;
      for (const Trial &t : pending) {
        log.keys.push_back(l.space.getKey(t.cfg));
        TrialResult r = l.evaluate(t.cfg);
        r.id = t.id;
        results.push_back(r);
        ++log.numTrials;
      }
      EXPECT_FALSE(bool(resumed->observe(results)));
      runStrategy(*resumed, l, batch, budget, log);
      EXPECT_EQ(log.keys, a.keys) << "resume with pending trials diverged";
    }
  }

  // Observing an unknown or repeated trial is an error, not a crash.
  {
    auto s = makeStrategy(name, l.space, options, seed);
    ASSERT_TRUE(s);
    llvm::SmallVector<Trial> t = s->propose(1);
    ASSERT_EQ(t.size(), 1u);
    TrialResult r = l.evaluate(t[0].cfg);
    r.id = t[0].id + 1000;
    llvm::Error e1 = s->observe({r});
    EXPECT_TRUE(bool(e1));
    llvm::consumeError(std::move(e1));
    r.id = t[0].id;
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
  // The same space on every CPU: without the host's register-file and cache
  // bounds (the optimum and the landscapes are pinned to it).
  SpaceOptions options;
  options.vectorRegisters = 0;
  options.cacheBytes = 0;
  return *buildSpace(*p, options);
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
  for (const OptionInfo &o : info->options)
    EXPECT_FALSE(o.help.empty()) << o.name;
  for (auto [option, value] : bad) {
    auto s = createStrategy(name, paperSpace(), {{option, value}});
    EXPECT_FALSE(bool(s)) << option << "=" << value;
    if (!s)
      llvm::consumeError(s.takeError());
  }
}

} // namespace mlir::tiletune::testing

#endif // TILETUNE_UNITTESTS_SEARCH_SEARCHTESTUTILS_H
