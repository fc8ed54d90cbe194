//===- TuningTest.cpp - The public C++ tuning API -------------------------===//
//
// tune() and tuneOp() of tiletune/Tuning.h on the fixture's module (a matmul
// used twice and a conv): the callback sees every measured variant, a Stop
// or a cancel token ends the run early with its measurements kept in the
// database, one op can be tuned alone, bad options fail before the database
// is touched, and registerAllTileTune registers the tuning passes too.
//
//===----------------------------------------------------------------------===//

#include "ModuleFixture.h"

#include "tiletune/Database/Database.h"
#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/InitAll.h"
#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Tuning.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>
#include <thread>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

class TuningTest : public ModuleFixture {
protected:
  void SetUp() override {
    ModuleFixture::SetUp();
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletune-api", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Quick options: few trials, one thread, short timing, a fresh database.
  TuningOptions quickOptions(llvm::StringRef dbName = "tuning.db") {
    TuningOptions options;
    options.algorithm = "random";
    options.trials = 3;
    options.threads = 1;
    options.batchSize = 2;
    options.seed = 7;
    options.timing.repeats = 1;
    options.timing.warmupRuns = 0;
    options.timing.minSampleSeconds = 1e-4;
    options.pairedTiming = false;
    options.overlapCompile = false;
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, dbName);
    options.databasePath = path.str().str();
    return options;
  }

  /// The measurements recorded in `path` for every run, in total.
  size_t countMeasurements(const std::string &path) {
    auto db = TileTuneDatabase::open(path, OpenMode::ReadOnly);
    EXPECT_TRUE(static_cast<bool>(db)) << llvm::toString(db.takeError());
    if (!db)
      return 0;
    auto runs = (*db)->listRuns();
    EXPECT_TRUE(static_cast<bool>(runs));
    size_t count = 0;
    for (const RunInfo &run : *runs) {
      auto records = (*db)->measurementsOfRun(run.id);
      EXPECT_TRUE(static_cast<bool>(records));
      count += records->size();
    }
    return count;
  }

  /// The ops of `name` in the module, in walk order.
  SmallVector<Operation *> opsNamed(llvm::StringRef name) {
    SmallVector<Operation *> ops;
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == name)
        ops.push_back(op);
    });
    return ops;
  }

  llvm::SmallString<128> dir;
};

TEST_F(TuningTest, CallbackSeesEveryMeasuredVariant) {
  TuningOptions options = quickOptions();
  std::vector<TuningEvent> events;
  options.callback = [&](const TuningEvent &event) {
    events.push_back(event);
    return TuningAction::Continue;
  };
  llvm::Expected<TuningResult> result = tune(*module, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_EQ(result->problems.size(), 2u);
  EXPECT_FALSE(result->stopped);
  EXPECT_EQ(result->databasePath, options.databasePath);

  // Every event names its problem and variant; the best so far never gets
  // slower; every recorded measurement was seen.
  EXPECT_EQ(events.size(), countMeasurements(options.databasePath));
  unsigned perProblem[2] = {0, 0};
  double lastBest[2] = {0, 0};
  for (const TuningEvent &event : events) {
    ASSERT_LT(event.problemIndex, 2u);
    EXPECT_EQ(event.numProblems, 2u);
    EXPECT_EQ(event.problemKey,
              result->problems[event.problemIndex].problemKey);
    EXPECT_FALSE(event.configKey.empty());
    EXPECT_FALSE(event.replayed);
    ++perProblem[event.problemIndex];
    if (event.status == "ok") {
      EXPECT_GT(event.seconds, 0);
      EXPECT_GT(event.gflops, 0);
    }
    if (!event.bestKey.empty() && event.role != "final") {
      double &last = lastBest[event.problemIndex];
      EXPECT_TRUE(last == 0 || event.bestSeconds <= last);
      last = event.bestSeconds;
    }
  }
  // The first event of a problem is its default config.
  EXPECT_EQ(events.front().role, "default");
  for (unsigned i = 0; i < 2; ++i) {
    const ProblemTuningResult &p = result->problems[i];
    EXPECT_GE(perProblem[i], 3u) << p.problemKey; // trials + re-measurements
    EXPECT_EQ(p.trials, 3);
    ASSERT_TRUE(p.tuned()) << p.problemKey << ": " << p.defaultMessage;
    EXPECT_EQ(p.bestConfigText, printAttr(p.bestConfig));
    EXPECT_GT(p.bestGflops, 0);
    EXPECT_GT(p.bestSeconds, 0);
    EXPECT_GT(p.defaultGflops, 0);
    EXPECT_EQ(p.stopReason, "budget");
    EXPECT_GT(p.runId, 0);
  }
  EXPECT_EQ(result->problems[0].numOps, 2u);
  // The best configs are set on the ops.
  for (Operation *op : opsNamed("linalg.matmul"))
    EXPECT_EQ(getConfig(op), result->problems[0].bestConfig);
  for (Operation *op : opsNamed("linalg.conv_2d_nhwc_hwcf"))
    EXPECT_EQ(getConfig(op), result->problems[1].bestConfig);
}

TEST_F(TuningTest, CallbackStopEndsTheRunAndKeepsItsResults) {
  TuningOptions options = quickOptions();
  options.trials = 20;
  unsigned calls = 0;
  options.callback = [&](const TuningEvent &) {
    return ++calls == 2 ? TuningAction::Stop : TuningAction::Continue;
  };
  llvm::Expected<TuningResult> result = tune(*module, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->stopped);
  // Stopped within the first problem: the second was not started.
  ASSERT_EQ(result->problems.size(), 1u);
  EXPECT_EQ(result->problems[0].stopReason, "stopped");
  EXPECT_LT(result->problems[0].trials, 20);
  EXPECT_EQ(calls, 2u);
  // What was measured is in the database.
  EXPECT_EQ(countMeasurements(options.databasePath), 2u);

  // ...and the run continues from there with resume.
  TuningOptions again = options;
  again.callback = nullptr;
  again.resume = true;
  llvm::Expected<TuningResult> resumed = tune(*module, again);
  ASSERT_TRUE(static_cast<bool>(resumed))
      << llvm::toString(resumed.takeError());
  EXPECT_FALSE(resumed->stopped);
  ASSERT_EQ(resumed->problems.size(), 2u);
  EXPECT_EQ(resumed->problems[0].runId, result->problems[0].runId);
  EXPECT_EQ(resumed->problems[0].replayed, 2);
  EXPECT_EQ(resumed->problems[0].trials, 20);
}

TEST_F(TuningTest, CancelTokenStopsTheRunFromAnotherThread) {
  TuningOptions options = quickOptions();
  options.trials = 1000;
  CancelToken token;
  options.cancel = &token;
  unsigned calls = 0;
  options.callback = [&](const TuningEvent &) {
    if (++calls == 3) {
      // Another thread cancels; the run ends at the next poll.
      std::thread canceller([&] { token.cancel(); });
      canceller.join();
    }
    return TuningAction::Continue;
  };
  llvm::Expected<TuningResult> result = tune(*module, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(token.isCancelled());
  EXPECT_TRUE(result->stopped);
  ASSERT_EQ(result->problems.size(), 1u);
  EXPECT_EQ(result->problems[0].stopReason, "stopped");
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(countMeasurements(options.databasePath), 3u);
}

TEST_F(TuningTest, CancelledBeforeTheStartMeasuresNothing) {
  TuningOptions options = quickOptions();
  CancelToken token;
  token.cancel();
  options.cancel = &token;
  unsigned calls = 0;
  options.callback = [&](const TuningEvent &) {
    ++calls;
    return TuningAction::Continue;
  };
  llvm::Expected<TuningResult> result = tune(*module, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->stopped);
  EXPECT_TRUE(result->problems.empty());
  EXPECT_EQ(calls, 0u);
  for (Operation *op : opsNamed("linalg.matmul"))
    EXPECT_FALSE(getConfig(op));
}

TEST_F(TuningTest, TunesASingleOp) {
  TuningOptions options = quickOptions();
  options.trials = 2;
  SmallVector<Operation *> convs = opsNamed("linalg.conv_2d_nhwc_hwcf");
  ASSERT_EQ(convs.size(), 1u);
  std::set<std::string> problems;
  options.callback = [&](const TuningEvent &event) {
    problems.insert(event.problemKey);
    EXPECT_EQ(event.numProblems, 1u);
    return TuningAction::Continue;
  };
  llvm::Expected<ProblemTuningResult> result = tuneOp(convs[0], options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(problems.size(), 1u);
  EXPECT_TRUE(llvm::StringRef(result->problemKey).starts_with("conv_2d_nhwc"))
      << result->problemKey;
  EXPECT_EQ(result->numOps, 1u);
  ASSERT_TRUE(result->tuned());
  EXPECT_EQ(getConfig(convs[0]), result->bestConfig);
  // The rest of the module is left alone.
  for (Operation *op : opsNamed("linalg.matmul"))
    EXPECT_FALSE(getConfig(op));

  // An op that cannot be tuned is an error, not a crash.
  Operation *func = convs[0]->getParentOp();
  llvm::Expected<ProblemTuningResult> bad = tuneOp(func, options);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("cannot tune 'func.func'"),
            std::string::npos);
}

TEST_F(TuningTest, BadOptionsFailBeforeTheDatabaseIsTouched) {
  struct Case {
    std::function<void(TuningOptions &)> set;
    const char *message;
  } cases[] = {
      {[](TuningOptions &o) { o.strategyOptions["bogus"] = "1"; },
       "unknown option 'bogus' of random (valid: max_trials, start_config"},
      {[](TuningOptions &o) {
         o.algorithm = "gbfs";
         o.strategyOptions["rho"] = "many";
       },
       "option 'rho': 'many' is not an integer"},
      {[](TuningOptions &o) { o.fixed = "tile=4"; },
       "--fix: unknown parameter 'tile' (parameters on cpu: m, n, k"},
      // Valid for the matmul, not for the conv (the second problem): still
      // an error before the first measurement.
      {[](TuningOptions &o) { o.fixed = "m=[8,1,1,1]"; },
       "parameter 'm'"},
      {[](TuningOptions &o) { o.algorithm = "magic"; },
       "unknown algorithm 'magic' (known: "},
  };
  for (auto &c : cases) {
    TuningOptions options = quickOptions("bad.db");
    c.set(options);
    unsigned calls = 0;
    options.callback = [&](const TuningEvent &) {
      ++calls;
      return TuningAction::Continue;
    };
    llvm::Expected<TuningResult> result = tune(*module, options);
    ASSERT_FALSE(static_cast<bool>(result)) << c.message;
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
    EXPECT_EQ(calls, 0u);
    EXPECT_FALSE(llvm::sys::fs::exists(options.databasePath)) << c.message;
  }
  // Nothing was set on the ops.
  for (Operation *op : opsNamed("linalg.matmul"))
    EXPECT_FALSE(getConfig(op));
}

TEST(TuningRegistration, RegisterAllTileTuneRegistersEverything) {
  DialectRegistry registry;
  registerAllTileTune(registry);
  EXPECT_TRUE(llvm::is_contained(registry.getDialectNames(), "tiletune"));
  EXPECT_NE(PassInfo::lookup("tiletune-default-config"), nullptr);
  EXPECT_NE(PassInfo::lookup("tiletune-autotune"), nullptr);
  EXPECT_NE(PassInfo::lookup("tiletune-apply-db"), nullptr);
}

} // namespace

namespace {

// The option check builds each strategy over a small probe space: every
// algorithm must accept every one of its documented options at its default
// there (or a valid option would be refused before any work starts).
TEST(TuningValidation, EveryAlgorithmAcceptsItsDocumentedDefaults) {
  for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
    StrategyOptions options;
    for (const OptionInfo &o : getCommonOptions())
      options[o.name] = o.defaultValue;
    for (const OptionInfo &o : info->options)
      options[o.name] = o.defaultValue;
    for (llvm::StringRef target : {"cpu", "cuda"}) {
      llvm::Error err = validateStrategyOptions(info->name, options, target);
      EXPECT_FALSE(static_cast<bool>(err))
          << info->name << " on " << target.str() << ": "
          << llvm::toString(std::move(err));
    }
  }
}

} // namespace
