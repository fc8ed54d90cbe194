//===- TunerTest.cpp - Tests of the generic tuning loop -------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The loop is driven by real strategies over a small space and a synthetic
// measurer whose results are a deterministic function of the config (with
// failing regions), so an interrupted and resumed run can be compared
// record by record with an uninterrupted one.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuner/Tuner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir::tiletune;

namespace {

Space makeSpace() {
  Space space("tuner test space");
  space.addParameter(std::make_shared<FactorizationParam>("m", 64, 3));
  space.addParameter(std::make_shared<FactorizationParam>("n", 32, 2));
  std::vector<std::string> dims = {"m", "n", "k"};
  space.addParameter(std::make_shared<PermutationParam>("order", dims));
  std::vector<std::string> flags = {"true", "false"};
  space.addParameter(std::make_shared<CategoricalParam>("vectorize", flags));
  return space;
}

TargetInfo testTarget() {
  TargetInfo target;
  target.model = "Synthetic CPU";
  target.features = "fma";
  target.threads = 1;
  target.toolchain = "test";
  return target;
}

/// Results are a deterministic function of the config key: a bowl over the
/// log2 factors with its optimum at m = [4,4,4], n = [8,4], plus failing
/// regions chosen by a stable hash.
class SyntheticMeasurer : public Measurer {
public:
  explicit SyntheticMeasurer(const Space &space) : space(space) {}

  MeasureResult evaluate(const Config &config, MeasurementRole role) const {
    std::string key = space.getKey(config);
    uint64_t hash = llvm::xxh3_64bits(key);
    if (key != defaultKey) {
      if (hash % 11 == 0)
        return MeasureResult::failure(MeasureStatus::CompileError,
                                      "synthetic compile error");
      if (hash % 13 == 0)
        return MeasureResult::failure(MeasureStatus::Timeout,
                                      "synthetic timeout");
      if (hash % 17 == 0)
        return MeasureResult::failure(MeasureStatus::WrongResult,
                                      "synthetic wrong result");
    }
    double cost = 1;
    llvm::ArrayRef<int64_t> m = space.getValue(config, 0);
    llvm::ArrayRef<int64_t> n = space.getValue(config, 1);
    for (int64_t f : m)
      cost += std::pow(std::log2(double(f)) - 2, 2);
    cost += std::pow(std::log2(double(n[0])) - 3, 2);
    cost +=
        0.1 * space.getValue(config, 2)[0] + 0.5 * space.getValue(config, 3)[0];
    double seconds = cost * 1e-3;
    if (role == MeasurementRole::Final && slowFinalWinner && key != defaultKey)
      seconds *= 100;
    MeasureResult result = MeasureResult::success(
        TimeStats::fromSamples({seconds * 0.99, seconds, seconds * 1.02}));
    result.costSeconds = 0.001;
    return result;
  }

  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override {
    requests.push_back(request);
    // Report in reverse order: completion order need not be batch order.
    for (size_t k = batch.size(); k-- > 0;) {
      ++calls;
      if (killAtCall && calls == killAtCall)
        raise(SIGKILL);
      if (failAtCall && calls == failAtCall)
        return llvm::createStringError("synthetic measurer breakdown");
      measured.push_back({space.getKey(batch[k]), request.role});
      if (!sink(k, evaluate(batch[k], request.role)))
        return llvm::Error::success();
    }
    return llvm::Error::success();
  }

  void replayed(const MeasureResult &result) override {
    replayedResults.push_back(result);
  }

  const Space &space;
  std::string defaultKey;
  bool slowFinalWinner = false;
  int64_t killAtCall = 0;
  int64_t failAtCall = 0;
  int64_t calls = 0;
  std::vector<std::pair<std::string, MeasurementRole>> measured;
  std::vector<MeasureRequest> requests;
  /// What the tuner handed back on resume (Measurer::replayed).
  std::vector<MeasureResult> replayedResults;
};

/// One record without its timestamp, for comparing runs.
struct Row {
  int64_t trial;
  MeasurementRole role;
  std::string key;
  MeasureStatus status;
  double median;
  bool operator==(const Row &o) const {
    return trial == o.trial && role == o.role && key == o.key &&
           status == o.status && median == o.median;
  }
};

std::ostream &operator<<(std::ostream &os, const Row &row) {
  return os << row.trial << ' ' << stringifyMeasurementRole(row.role).str()
            << ' ' << row.key << ' ' << stringifyMeasureStatus(row.status).str()
            << ' ' << row.median;
}

class TunerTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("tiletune-tuner-test", directory));
    space = makeSpace();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

  std::unique_ptr<TileTuneDatabase> openDb(llvm::StringRef name) {
    auto db = TileTuneDatabase::open(file(name));
    if (!db) {
      ADD_FAILURE() << llvm::toString(db.takeError());
      return nullptr;
    }
    return std::move(*db);
  }

  /// True times per config key for the confirmation tests: the default
  /// takes 1 ms, a third of the other configs `others` seconds, the rest 2
  /// ms.
  std::function<double(llvm::StringRef)> truthFavouring(double others) const {
    std::string defaultKey = space.getKey(space.getDefault());
    return [defaultKey, others](llvm::StringRef key) {
      if (key == defaultKey)
        return 1e-3;
      return llvm::xxh3_64bits(key) % 3 == 0 ? others : 2e-3;
    };
  }

  std::unique_ptr<Strategy> makeStrategy(llvm::StringRef name,
                                         uint64_t seed = 42) {
    auto strategy = createStrategy(name, space, {}, seed);
    if (!strategy) {
      ADD_FAILURE() << llvm::toString(strategy.takeError());
      return nullptr;
    }
    return std::move(*strategy);
  }

  TunerOptions baseOptions() const {
    TunerOptions options;
    options.problemKey = "synthetic/m=64,n=32";
    options.problemDescription = R"({"op":"synthetic"})";
    options.target = testTarget();
    options.maxTrials = 40;
    options.batchSize = 4;
    options.flops = 2e6;
    options.showProgress = false;
    return options;
  }

  /// Runs the tuner to completion; fails the test on an error.
  std::optional<TuneResult> tune(TileTuneDatabase &db, Strategy &strategy,
                                 SyntheticMeasurer &measurer,
                                 const TunerOptions &options) {
    measurer.defaultKey = space.getKey(space.getDefault());
    return tuneWith(db, strategy, measurer, options);
  }

  /// A `random` run with the base options on a fresh database.
  std::optional<TuneResult> tuneRandom(Measurer &measurer) {
    auto db = openDb("tune.db");
    auto strategy = makeStrategy("random");
    if (!db || !strategy)
      return std::nullopt;
    return tuneWith(*db, *strategy, measurer, baseOptions());
  }

  std::optional<TuneResult> tuneWith(TileTuneDatabase &db, Strategy &strategy,
                                     Measurer &measurer,
                                     const TunerOptions &options) {
    Tuner tuner(space, strategy, measurer, db, options);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    if (!result) {
      ADD_FAILURE() << llvm::toString(result.takeError());
      return std::nullopt;
    }
    return *result;
  }

  std::vector<Row> rows(TileTuneDatabase &db, int64_t runId) {
    std::vector<Row> out;
    auto records = db.measurementsOfRun(runId);
    if (!records) {
      ADD_FAILURE() << llvm::toString(records.takeError());
      return out;
    }
    for (const MeasurementRecord &r : *records)
      out.push_back({r.trial, r.role, r.configKey, r.result.status,
                     r.result.time.median});
    return out;
  }

  llvm::SmallString<128> directory;
  Space space;
};

TEST_F(TunerTest, RunRecordsEverythingAndFinishes) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  std::optional<TuneResult> result =
      tune(*db, *strategy, measurer, baseOptions());
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_EQ(result->stopReason, "budget");
  EXPECT_EQ(result->trials, 40);
  EXPECT_FALSE(result->resumed);
  EXPECT_EQ(result->replayed, 0);

  std::vector<Row> recorded = rows(*db, result->runId);
  // 40 trials + the confirmation: the winner, the runner-up and the default
  // in 3 rounds, then (the noise-free winner leads the default) the winner
  // and the default alone until the winner was the faster of the two in 3
  // rounds.
  ASSERT_FALSE(result->bestIsDefault);
  ASSERT_EQ(recorded.size(), 55u);
  EXPECT_EQ(recorded[0].role, MeasurementRole::Default);
  EXPECT_EQ(recorded[0].key, space.getKey(space.getDefault()));
  llvm::StringSet<> seen;
  int failures = 0;
  for (size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(recorded[i].trial, static_cast<int64_t>(i));
    if (i >= 40) {
      EXPECT_EQ(recorded[i].role, MeasurementRole::Final);
      continue;
    }
    EXPECT_TRUE(seen.insert(recorded[i].key).second)
        << "measured twice: " << recorded[i].key;
    failures += recorded[i].status != MeasureStatus::Ok;
  }
  EXPECT_GT(failures, 0) << "the synthetic failures were not exercised";
  // The confirmation measures three configs, the default among them, each
  // once per round.
  llvm::StringMap<int> finals;
  llvm::StringMap<double> fastestFinal;
  for (size_t i = 40; i < recorded.size(); ++i) {
    ++finals[recorded[i].key];
    auto [it, inserted] =
        fastestFinal.try_emplace(recorded[i].key, recorded[i].median);
    if (!inserted)
      it->second = std::min(it->second, recorded[i].median);
  }
  ASSERT_EQ(finals.size(), 3u);
  EXPECT_EQ(finals.lookup(recorded[0].key), 6);
  EXPECT_EQ(finals.lookup(result->bestKey), 6);
  for (const auto &entry : finals)
    if (entry.first() != recorded[0].key && entry.first() != result->bestKey)
      EXPECT_EQ(entry.second, 3) << entry.first().str();

  // The result is the fastest confirmed config, never slower than the
  // default, with its measured time.
  ASSERT_TRUE(result->best.has_value());
  EXPECT_EQ(result->bestKey, space.getKey(*result->best));
  ASSERT_TRUE(result->defaultResult.ok());
  EXPECT_LE(result->bestResult.time.seconds(),
            result->defaultResult.time.seconds());
  for (const auto &entry : fastestFinal)
    EXPECT_LE(fastestFinal.lookup(result->bestKey), entry.second);
  EXPECT_DOUBLE_EQ(result->bestResult.time.median,
                   fastestFinal.lookup(result->bestKey));
  EXPECT_DOUBLE_EQ(result->defaultResult.time.median,
                   fastestFinal.lookup(recorded[0].key));
  // GFLOP/s filled in from the flop count.
  EXPECT_NEAR(result->bestResult.gflops,
              2e6 / result->bestResult.time.median / 1e9, 1e-9);

  // The database agrees.
  auto run = db->getRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->status, RunStatus::Finished);
  EXPECT_EQ(run->resultConfigKey, result->bestKey);
  EXPECT_EQ(run->algorithm, "random");
  EXPECT_EQ(run->seed, 42u);
  auto best = db->bestConfig("synthetic/m=64,n=32", testTarget());
  ASSERT_TRUE(static_cast<bool>(best) && best->has_value());
  EXPECT_EQ((*best)->configKey, result->bestKey);
  // The stored config is structured JSON.
  auto records = db->measurementsOfRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(records));
  llvm::Expected<llvm::json::Value> config =
      llvm::json::parse((*records)[0].config);
  ASSERT_TRUE(static_cast<bool>(config));
  const llvm::json::Object *object = config->getAsObject();
  ASSERT_TRUE(object);
  EXPECT_TRUE(object->getArray("m"));
  EXPECT_TRUE(object->getArray("order"));
  EXPECT_TRUE(object->getString("vectorize"));
  EXPECT_EQ(object->getString("key"), (*records)[0].configKey);
}

TEST_F(TunerTest, DeterministicUnderSeed) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  std::vector<std::vector<Row>> runs;
  for (uint64_t seed : {5, 5, 6}) {
    auto strategy = makeStrategy("random", seed);
    ASSERT_TRUE(strategy);
    SyntheticMeasurer measurer(space);
    std::optional<TuneResult> result =
        tune(*db, *strategy, measurer, baseOptions());
    ASSERT_TRUE(result);
    runs.push_back(rows(*db, result->runId));
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_NE(runs[0], runs[2]);
}

TEST_F(TunerTest, DefaultIsNeverMeasuredTwice) {
  // Make the default config the grid's very first proposal.
  auto probe = makeStrategy("grid");
  ASSERT_TRUE(probe);
  llvm::SmallVector<Trial> first = probe->propose(1);
  ASSERT_EQ(first.size(), 1u);
  Config defaultConfig = first[0].cfg;

  auto db = openDb("tune.db");
  auto strategy = makeStrategy("grid");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  measurer.defaultKey = space.getKey(defaultConfig);
  TunerOptions options = baseOptions();
  options.maxTrials = 12;
  Tuner tuner(space, *strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(defaultConfig);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  llvm::StringMap<int> counts;
  for (const auto &[key, role] : measurer.measured)
    if (role != MeasurementRole::Final)
      ++counts[key];
  for (const auto &entry : counts)
    EXPECT_EQ(entry.second, 1) << entry.first().str();
  EXPECT_EQ(counts.size(), 12u);
  EXPECT_EQ(counts.lookup(space.getKey(defaultConfig)), 1);
  // The strategy saw the default's result for its own proposal.
  ASSERT_FALSE(strategy->getHistory().empty());
  EXPECT_EQ(strategy->getHistory()[0].cfg, defaultConfig);
}

TEST_F(TunerTest, NoisyWinnerFallsBackToDefault) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  measurer.slowFinalWinner = true;
  std::optional<TuneResult> result =
      tune(*db, *strategy, measurer, baseOptions());
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->best.has_value());
  EXPECT_TRUE(result->bestIsDefault);
  EXPECT_EQ(*result->best, space.getDefault());
  EXPECT_LE(result->bestResult.time.seconds(),
            result->defaultResult.time.seconds());
  auto run = db->getRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->resultConfigKey, space.getKey(space.getDefault()));
}

/// A measurer whose noise hits the first measurement: each config has a
/// true time, and the first config of every measure() call (a cold start, or
/// a burst of load that begins with the batch) is measured `coldFactor`
/// times slower; so is the run's very first measurement when `coldStart`.
class ColdFirstMeasurer : public Measurer {
public:
  ColdFirstMeasurer(const Space &space, std::string defaultKey,
                    std::function<double(llvm::StringRef)> trueSeconds)
      : space(space), defaultKey(std::move(defaultKey)),
        trueSeconds(std::move(trueSeconds)) {}

  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override {
    for (size_t k = 0; k < batch.size(); ++k) {
      std::string key = space.getKey(batch[k]);
      double seconds = trueSeconds(key) * noise(request, k, key);
      ++calls;
      MeasureResult result = MeasureResult::success(
          TimeStats::fromSamples({seconds, seconds * 1.01, seconds * 0.99}));
      // Paired timing against the default, as noisy as the times.
      result.relative = seconds / trueSeconds(defaultKey);
      if (!sink(k, result))
        break;
    }
    return llvm::Error::success();
  }

  /// How much slower than its true time the `k`-th config of a batch is
  /// measured.
  virtual double noise(const MeasureRequest &, size_t k, llvm::StringRef) {
    return k == 0 ? coldFactor : 1.0;
  }

  const Space &space;
  std::string defaultKey;
  std::function<double(llvm::StringRef)> trueSeconds;
  double coldFactor = 3;
  int64_t calls = 0;
};

/// The confirmation picks the truly faster config although the noise hits
/// the first measurement of every batch: the search's winner (truly 10 %
/// faster than the default) is measured first in a batch and looks 2.7x
/// slower there. One re-measurement of the winner and the default, the
/// winner first, kept the slower default; interleaved rounds measure each
/// candidate quietly at least once.
TEST_F(TunerTest, ConfirmationPicksTheTrulyFasterConfig) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  std::string defaultKey = space.getKey(space.getDefault());
  auto truth = truthFavouring(0.9e-3);
  ColdFirstMeasurer measurer(space, defaultKey, truth);
  Tuner tuner(space, *strategy, measurer, *db, baseOptions());
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->best.has_value());
  EXPECT_FALSE(result->bestIsDefault);
  EXPECT_DOUBLE_EQ(truth(result->bestKey), 0.9e-3) << result->bestKey;
  // What is shown is measured (its quiet rounds), not rescaled.
  EXPECT_DOUBLE_EQ(result->bestResult.time.median, 0.9e-3);
  EXPECT_DOUBLE_EQ(result->defaultResult.time.median, 1e-3);
  // The database's best is the same measurement.
  auto best = db->bestConfig("synthetic/m=64,n=32", testTarget());
  ASSERT_TRUE(static_cast<bool>(best) && best->has_value());
  EXPECT_EQ((*best)->configKey, result->bestKey);
  EXPECT_DOUBLE_EQ((*best)->time.median, result->bestResult.time.median);
}

/// No config is truly faster than the default, but the default's first
/// measurement is cold (3x slower), so the search crowns a slower config:
/// the confirmation keeps the default and says so.
TEST_F(TunerTest, ConfirmationKeepsTheDefaultWhenNothingIsFaster) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  std::string defaultKey = space.getKey(space.getDefault());
  auto truth = truthFavouring(1.2e-3);
  ColdFirstMeasurer measurer(space, defaultKey, truth);
  std::string progress;
  llvm::raw_string_ostream progressStream(progress);
  TunerOptions options = baseOptions();
  options.showProgress = true;
  options.progressStream = &progressStream;
  Tuner tuner(space, *strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_TRUE(result->best.has_value());
  EXPECT_TRUE(result->bestIsDefault);
  EXPECT_EQ(result->bestKey, defaultKey);
  EXPECT_DOUBLE_EQ(result->bestResult.time.median, 1e-3);
  EXPECT_NE(progress.find("the default config is kept (no variant was "
                          "faster)"),
            std::string::npos)
      << progress;
  // The last progress line shows the confirmed best: 2e6 flop in 1 ms.
  EXPECT_NE(progress.rfind("best 2.0 GFLOP/s 1 ms"), std::string::npos)
      << progress;
  llvm::Expected<llvm::SmallVector<ReportRow, 0>> rows = db->report(nullptr);
  ASSERT_TRUE(static_cast<bool>(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].bestConfigKey, defaultKey);
  EXPECT_EQ((*rows)[0].defaultConfigKey, defaultKey);
  ASSERT_TRUE((*rows)[0].defaultSeconds.has_value());
  EXPECT_DOUBLE_EQ(*(*rows)[0].defaultSeconds, (*rows)[0].bestSeconds);
}

/// A measurer for the confirmation under a load that comes and goes: each
/// config has a true time; the default's first `slowDefaultFinals` final
/// measurements are `slowFactor` times slower (the load hit each of its
/// rounds), every other measurement is quiet.
class LoadedDefaultMeasurer : public ColdFirstMeasurer {
public:
  using ColdFirstMeasurer::ColdFirstMeasurer;

  double noise(const MeasureRequest &request, size_t,
               llvm::StringRef key) override {
    if (request.role != MeasurementRole::Final)
      return 1.0;
    finals.push_back(key.str());
    return key == defaultKey && defaultFinals++ < slowDefaultFinals ? slowFactor
                                                                    : 1.0;
  }

  int slowDefaultFinals = 3;
  double slowFactor = 1.3;
  int defaultFinals = 0;
  std::vector<std::string> finals;
};

/// The load slowed every one of the default's three confirmation rounds, so
/// a variant 20% slower than the default led after them (CI at stop 55 kept
/// such a variant); in the rounds of the pair that follow, the default's
/// first quiet round puts it ahead again and it is kept.
TEST_F(TunerTest, ConfirmationKeepsADefaultTheLoadHitInEveryRound) {
  std::string defaultKey = space.getKey(space.getDefault());
  LoadedDefaultMeasurer measurer(space, defaultKey, truthFavouring(1.2e-3));
  std::optional<TuneResult> result = tuneRandom(measurer);
  ASSERT_TRUE(result && result->best);
  EXPECT_TRUE(result->bestIsDefault) << result->bestKey;
  EXPECT_DOUBLE_EQ(result->bestResult.time.median, 1e-3);
  // The search's winner is the default (no variant is faster): 3 rounds of
  // it and the runner-up, then one round of the pair: the default leads.
  ASSERT_EQ(measurer.finals.size(), 8u);
  EXPECT_EQ(llvm::count(measurer.finals, defaultKey), 4);
}

/// Without a quiet round of the default in sight, the pair's rounds end
/// after 3 * confirmRounds, and the fastest rounds decide: the variant that
/// the load never slowed wins, with its own measured time.
TEST_F(TunerTest, ConfirmationOfThePairEnds) {
  std::string defaultKey = space.getKey(space.getDefault());
  LoadedDefaultMeasurer measurer(space, defaultKey, truthFavouring(1.2e-3));
  measurer.slowDefaultFinals = 1000;
  std::optional<TuneResult> result = tuneRandom(measurer);
  ASSERT_TRUE(result && result->best);
  EXPECT_FALSE(result->bestIsDefault);
  EXPECT_DOUBLE_EQ(result->bestResult.time.median, 1.2e-3);
  EXPECT_DOUBLE_EQ(result->defaultResult.time.median, 1.3e-3);
  // 3 rounds of the default (the search's winner) and the runner-up, then 3
  // more rounds of the pair (the variant was the faster one in each).
  EXPECT_EQ(measurer.finals.size(), 12u);
}

TEST_F(TunerTest, TimeoutsScaleWithTheBestTime) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.initialRunTimeoutSeconds = 7;
  options.timeoutFactor = 1000;
  options.runTimeoutFloorSeconds = 0.001;
  options.compileTimeoutSeconds = 33;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  ASSERT_GE(measurer.requests.size(), 3u);
  EXPECT_EQ(measurer.requests[0].role, MeasurementRole::Default);
  EXPECT_DOUBLE_EQ(measurer.requests[0].runTimeoutSeconds, 7);
  // After the default, the limit is 1000x the best median so far, and it
  // never grows.
  std::vector<Row> recorded = rows(*db, result->runId);
  double best = recorded[0].median;
  size_t trial = 1;
  for (size_t i = 1; i < measurer.requests.size(); ++i) {
    const MeasureRequest &request = measurer.requests[i];
    EXPECT_DOUBLE_EQ(request.runTimeoutSeconds, 1000 * best) << "batch " << i;
    EXPECT_DOUBLE_EQ(request.compileTimeoutSeconds, 33);
    // Search candidates may stop early against the best median so far; the
    // confirmation never does.
    EXPECT_DOUBLE_EQ(request.incumbentSeconds,
                     request.role == MeasurementRole::Search ? best : 0.0)
        << "batch " << i;
    // Advance `best` over this batch's records.
    size_t batch = request.role == MeasurementRole::Final ? 2 : 4;
    for (size_t k = 0; k < batch && trial < recorded.size(); ++k, ++trial)
      if (recorded[trial].status == MeasureStatus::Ok &&
          recorded[trial].role != MeasurementRole::Final)
        best = std::min(best, recorded[trial].median);
  }
  EXPECT_EQ(measurer.requests.back().role, MeasurementRole::Final);
  EXPECT_DOUBLE_EQ(measurer.requests[0].incumbentSeconds, 0.0);
  // Every measurement of the session is in the throughput breakdown.
  EXPECT_EQ(result->throughput.measured, int64_t(recorded.size()));
  EXPECT_GT(result->throughput.wallSeconds, 0.0);
  EXPECT_NE(result->throughput.summary().find("variants in"),
            std::string::npos);
}

TEST_F(TunerTest, PatienceStopsTheSearch) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.patience = 6;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stopReason, "patience");
  // The last 6 search trials did not beat the best before them.
  std::vector<Row> recorded = rows(*db, result->runId);
  std::vector<Row> trials;
  for (const Row &row : recorded)
    if (row.role != MeasurementRole::Final)
      trials.push_back(row);
  ASSERT_GE(trials.size(), 7u);
  double bestBefore = 1e30;
  for (size_t i = 0; i + 6 < trials.size(); ++i)
    if (trials[i].status == MeasureStatus::Ok)
      bestBefore = std::min(bestBefore, trials[i].median);
  for (size_t i = trials.size() - 6; i < trials.size(); ++i)
    if (trials[i].status == MeasureStatus::Ok)
      EXPECT_GE(trials[i].median, bestBefore);
}

TEST_F(TunerTest, TimeBudgetStopsTheSearch) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  /// Each measurement takes 10 ms of wall time.
  struct SlowMeasurer : SyntheticMeasurer {
    using SyntheticMeasurer::SyntheticMeasurer;
    llvm::Error measure(llvm::ArrayRef<Config> batch,
                        const MeasureRequest &request,
                        MeasureResultSink sink) override {
      for (size_t k = 0; k < batch.size(); ++k) {
        usleep(10000);
        if (!sink(k, evaluate(batch[k], request.role)))
          break;
      }
      return llvm::Error::success();
    }
  } measurer(space);
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.maxSeconds = 0.25;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_GE(result->elapsedSeconds, 0.25);
  EXPECT_GE(result->trials, 5);
  EXPECT_LE(result->trials, 30);
  EXPECT_GT(result->variantsPerSecond, 0);
}

/// A strategy whose proposals take `proposeSeconds` of wall time each (a
/// slow model fit): with `pollDeadline` it stops at Strategy's deadline like
/// the real ones, otherwise it sleeps through it. Proposes random configs.
class SlowStrategy : public Strategy {
public:
  SlowStrategy(const Space &space, double proposeSeconds, bool pollDeadline)
      : Strategy("slow-test", space, commonDefaults(), 1),
        proposeSeconds(proposeSeconds), pollDeadline(pollDeadline) {}

  static StrategyOptions commonDefaults() {
    StrategyOptions options;
    for (const OptionInfo &info : getCommonOptions())
      options[info.name] = info.defaultValue;
    return options;
  }

protected:
  void proposeImpl(unsigned maxCount,
                   llvm::SmallVectorImpl<Config> &out) override {
    auto until =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(proposeSeconds));
    while (std::chrono::steady_clock::now() < until &&
           !(pollDeadline && deadlinePassed()))
      usleep(1000);
    ConfigSet local;
    for (unsigned attempt = 0; out.size() < maxCount && attempt < 1000;
         ++attempt) {
      std::optional<Config> c = getSpace().sampleValid(getRng());
      if (c && !wasProposed(*c) && local.insert(*c).second)
        out.push_back(*c);
    }
  }

private:
  double proposeSeconds;
  bool pollDeadline;
};

/// Each measurement takes `delay` seconds of wall time.
struct DelayedMeasurer : SyntheticMeasurer {
  DelayedMeasurer(const Space &space, double delay)
      : SyntheticMeasurer(space), delay(delay) {}
  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override {
    for (size_t k = 0; k < batch.size(); ++k) {
      usleep(useconds_t(delay * 1e6));
      ++calls;
      measured.push_back({space.getKey(batch[k]), request.role});
      if (!sink(k, evaluate(batch[k], request.role)))
        break;
    }
    return llvm::Error::success();
  }
  double delay;
};

// A proposal that would take 30 s stops at the end of the budget: the run
// ends near it (well under 3x), and what was proposed after the deadline is
// not measured.
TEST_F(TunerTest, TheTimeBudgetBoundsASlowProposal) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  SlowStrategy strategy(space, 30.0, /*pollDeadline=*/true);
  DelayedMeasurer measurer(space, 0.01);
  measurer.defaultKey = space.getKey(space.getDefault());
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.maxSeconds = 0.5;
  Tuner tuner(space, strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_GE(result->elapsedSeconds, 0.5);
  EXPECT_LT(result->elapsedSeconds, 1.5);
  EXPECT_EQ(result->trials, 1); // the default
  EXPECT_EQ(result->unmeasuredAtDeadline, int64_t(options.batchSize));
  for (const auto &[key, role] : measurer.measured)
    EXPECT_NE(role, MeasurementRole::Search) << key;
}

// A strategy that ignores the deadline overruns it by one proposal at most.
TEST_F(TunerTest, TheTimeBudgetEndsTheSearchAfterAnUninterruptibleProposal) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  SlowStrategy strategy(space, 0.1, /*pollDeadline=*/false);
  DelayedMeasurer measurer(space, 0.005);
  measurer.defaultKey = space.getKey(space.getDefault());
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.maxSeconds = 0.5;
  Tuner tuner(space, strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_LT(result->elapsedSeconds, 1.5);
  EXPECT_GE(result->trials, 2);
}

// A batch that would take 0.64 s stops at the first result after the end
// of a 0.3 s budget: what was measured is recorded and observed, the rest
// is dropped.
TEST_F(TunerTest, TheTimeBudgetEndsABatchInFlight) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  DelayedMeasurer measurer(space, 0.04);
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.maxSeconds = 0.3;
  options.batchSize = 16;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_LT(result->elapsedSeconds, 0.9);
  EXPECT_LT(result->searchEndSeconds, 0.6);
  EXPECT_GT(result->unmeasuredAtDeadline, 0);
  int64_t searched = 0;
  for (const Row &row : rows(*db, result->runId))
    searched += row.role == MeasurementRole::Search;
  EXPECT_EQ(searched + 1, result->trials);
  EXPECT_EQ(searched + result->unmeasuredAtDeadline, 16);
  // The strategy observed what was measured; the rest stays pending.
  EXPECT_EQ(int64_t(strategy->getHistory().size()), searched);
  EXPECT_EQ(int64_t(strategy->getNumPending()), result->unmeasuredAtDeadline);
}

// A run whose budget ended a batch, interrupted during its confirmation,
// resumes with the same budget: the partial batch is replayed, nothing is
// searched again, and the run finishes where it ended.
TEST_F(TunerTest, ResumeAfterTheTimeBudgetEndedABatch) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  std::vector<Row> before;
  int64_t trials = 0;
  {
    auto strategy = makeStrategy("random");
    DelayedMeasurer measurer(space, 0.04);
    TunerOptions options = baseOptions();
    options.maxTrials = 0;
    options.maxSeconds = 0.3;
    options.batchSize = 16;
    options.callback = [](const TunerEvent &e) {
      return e.record->role != MeasurementRole::Final;
    };
    std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, RunStatus::Interrupted);
    ASSERT_GT(result->unmeasuredAtDeadline, 0);
    trials = result->trials;
    before = rows(*db, result->runId);
  }
  auto strategy = makeStrategy("random");
  DelayedMeasurer measurer(space, 0.04);
  TunerOptions options = baseOptions();
  options.maxTrials = 0;
  options.maxSeconds = 0.3;
  options.batchSize = 16;
  options.resume = true;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_EQ(result->trials, trials);
  for (const auto &[key, role] : measurer.measured)
    EXPECT_EQ(role, MeasurementRole::Final) << key;
  std::vector<Row> after = rows(*db, result->runId);
  ASSERT_GE(after.size(), before.size());
  EXPECT_EQ(std::vector<Row>(after.begin(), after.begin() + before.size()),
            before);
}

TEST_F(TunerTest, SmallSpaceIsExhausted) {
  Space tiny("tiny");
  std::vector<std::string> flags = {"a", "b", "c"};
  tiny.addParameter(std::make_shared<CategoricalParam>("choice", flags));
  tiny.addParameter(std::make_shared<FactorizationParam>("m", 4, 2));
  auto db = openDb("tune.db");
  auto strategy = createStrategy("grid", tiny, {}, 1);
  ASSERT_TRUE(db && strategy);
  /// Cost depends only on the slots.
  struct TinyMeasurer : Measurer {
    llvm::Error measure(llvm::ArrayRef<Config> batch, const MeasureRequest &,
                        MeasureResultSink sink) override {
      for (size_t k = 0; k < batch.size(); ++k) {
        double seconds = 1e-3 * (1 + batch[k][0] + batch[k][1]);
        ++calls;
        if (!sink(k, MeasureResult::success(TimeStats::fromSamples({seconds}))))
          break;
      }
      return llvm::Error::success();
    }
    int calls = 0;
  } measurer;
  TunerOptions options = baseOptions();
  options.maxTrials = 100;
  Tuner tuner(tiny, **strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(tiny.getDefault());
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->stopReason, "exhausted");
  // 3 choices x 3 factorizations of 4 into 2 factors, each measured once.
  EXPECT_EQ(result->trials, 9);
  ASSERT_TRUE(result->best.has_value());
  EXPECT_EQ((*result->best)[0], 0);
  EXPECT_EQ((*result->best)[1], 1);
}

TEST_F(TunerTest, InvalidTimesFromTheMeasurerBecomeFailures) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  /// Reports NaN, zero and infinite times for some configs.
  struct BrokenMeasurer : SyntheticMeasurer {
    using SyntheticMeasurer::SyntheticMeasurer;
    llvm::Error measure(llvm::ArrayRef<Config> batch,
                        const MeasureRequest &request,
                        MeasureResultSink sink) override {
      for (size_t k = 0; k < batch.size(); ++k) {
        MeasureResult result = evaluate(batch[k], request.role);
        if (result.ok() && ++okCount % 3 == 0)
          result.time.median = okCount % 2 ? std::nan("") : 0.0;
        if (result.ok() && okCount % 5 == 0)
          result.gflops = INFINITY;
        if (!sink(k, result))
          break;
      }
      return llvm::Error::success();
    }
    int okCount = 0;
  } measurer(space);
  TunerOptions options = baseOptions();
  options.flops = 0;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  auto records = db->measurementsOfRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(records));
  int invalid = 0;
  for (const MeasurementRecord &record : *records) {
    if (record.result.message.find("invalid time statistics") !=
        std::string::npos) {
      ++invalid;
      EXPECT_EQ(record.result.status, MeasureStatus::RuntimeError);
    }
    if (record.result.ok()) {
      EXPECT_GT(record.result.time.median, 0);
      EXPECT_TRUE(std::isfinite(record.result.gflops));
    }
  }
  EXPECT_GT(invalid, 0);
  // The export stays valid JSON.
  std::string text;
  llvm::raw_string_ostream os(text);
  ASSERT_FALSE(static_cast<bool>(db->exportJSONL(os)));
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).rtrim('\n').split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    EXPECT_TRUE(static_cast<bool>(value)) << line.str();
    if (!value)
      llvm::consumeError(value.takeError());
  }
}

TEST_F(TunerTest, BadOptionsAreErrors) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  SyntheticMeasurer measurer(space);
  auto expectError = [&](TunerOptions options, const Config &defaultConfig,
                         llvm::StringRef needle) {
    auto strategy = makeStrategy("random");
    ASSERT_TRUE(strategy);
    Tuner tuner(space, *strategy, measurer, *db, options);
    llvm::Expected<TuneResult> result = tuner.run(defaultConfig);
    ASSERT_FALSE(static_cast<bool>(result));
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find(needle.str()), std::string::npos) << message;
  };
  TunerOptions noBudget = baseOptions();
  noBudget.maxTrials = 0;
  expectError(noBudget, space.getDefault(), "no budget");
  TunerOptions noBatch = baseOptions();
  noBatch.batchSize = 0;
  expectError(noBatch, space.getDefault(), "batch size");
  Config broken = space.getDefault();
  broken.getSlots()[0] = 3; // m factors no longer multiply to 64.
  expectError(baseOptions(), broken, "not valid");
  EXPECT_EQ(measurer.calls, 0);
}

TEST_F(TunerTest, ProgressLineAndSilence) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.showProgress = true;
    options.progressStream = &os;
    ASSERT_TRUE(tune(*db, *strategy, measurer, options));
  }
  EXPECT_NE(text.find("40/40 trials"), std::string::npos) << text;
  EXPECT_NE(text.find("GFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("variants/s"), std::string::npos) << text;
  EXPECT_NE(text.find("finished (budget)"), std::string::npos) << text;

  std::string quiet;
  llvm::raw_string_ostream qs(quiet);
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.showProgress = false;
  options.progressStream = &qs;
  ASSERT_TRUE(tune(*db, *strategy, measurer, options));
  EXPECT_TRUE(quiet.empty()) << quiet;
}

TEST_F(TunerTest, CallbackSeesEveryResultAndCanStop) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  std::vector<int64_t> trials;
  options.callback = [&](const TunerEvent &event) {
    trials.push_back(event.record->trial);
    EXPECT_FALSE(event.replayed);
    EXPECT_EQ(event.maxTrials, 40);
    return event.trialsDone < 10; // Stop in the middle of a batch.
  };
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, RunStatus::Interrupted);
  EXPECT_EQ(result->stopReason, "stopped");
  EXPECT_EQ(result->trials, 10);
  ASSERT_EQ(trials.size(), 10u);
  for (size_t i = 0; i < trials.size(); ++i)
    EXPECT_EQ(trials[i], static_cast<int64_t>(i));
  auto run = db->getRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->status, RunStatus::Interrupted);
}

TEST_F(TunerTest, StopFlagInterrupts) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  std::atomic<bool> stop{false};
  TunerOptions options = baseOptions();
  options.stopFlag = &stop;
  options.callback = [&](const TunerEvent &event) {
    if (event.trialsDone == 5)
      stop = true;
    return true;
  };
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, RunStatus::Interrupted);
  EXPECT_EQ(result->trials, 5);
}

TEST_F(TunerTest, ResumeWithOtherSettingsIsAClearError) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.callback = [](const TunerEvent &e) { return e.trialsDone < 6; };
    ASSERT_TRUE(tune(*db, *strategy, measurer, options));
  }
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  options.batchSize = 5;
  measurer.defaultKey = space.getKey(space.getDefault());
  Tuner tuner(space, *strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("cannot resume run 1"), std::string::npos) << message;
  EXPECT_NE(message.find("its setting 'batch_size' was 4, now 5"),
            std::string::npos)
      << message;
  EXPECT_EQ(measurer.calls, 0);
}

/// A run on a time budget that was stopped in its final re-measurement:
/// resumed with a smaller (or the same, already spent) time budget, it
/// replays its search and ends where it did, with the recorded final
/// re-measurement (was: a replay error, the search asking for another
/// batch); resumed with a larger one, the error says that a run that reached
/// its final re-measurement cannot be extended.
TEST_F(TunerTest, ResumeWithASmallerTimeBudgetEndsWhereTheRunDid) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  int64_t searched = 0;
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.maxTrials = 0;
    options.maxSeconds = 0.2;
    // 10 ms per result; stop at the first final re-measurement.
    options.callback = [](const TunerEvent &e) {
      usleep(10000);
      return e.record->role != MeasurementRole::Final;
    };
    std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, RunStatus::Interrupted);
    searched = result->trials;
    ASSERT_GE(searched, 2);
  }
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.resume = true;
    options.maxTrials = 0;
    options.maxSeconds = 1000;
    measurer.defaultKey = space.getKey(space.getDefault());
    Tuner tuner(space, *strategy, measurer, *db, options);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    ASSERT_FALSE(static_cast<bool>(result));
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find("cannot resume run 1: it ended its search before "
                           "trial " +
                           std::to_string(searched) +
                           " and recorded its final re-measurement"),
              std::string::npos)
        << message;
    EXPECT_EQ(measurer.calls, 0);
  }
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  options.maxTrials = 0;
  options.maxSeconds = 0.05;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_EQ(result->stopReason, "time");
  EXPECT_EQ(result->trials, searched);
  // Only the rest of the confirmation (3 rounds of at most 3 configs, one
  // recorded before) is measured now.
  EXPECT_LE(measurer.calls, 8);
}

/// A changed strategy option is named itself, with both values, not only as
/// the whole option object.
TEST_F(TunerTest, ResumeWithAnotherStrategyOptionNamesIt) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  auto gbfs = [&](const char *rho) -> std::unique_ptr<Strategy> {
    auto strategy = createStrategy("gbfs", space, {{"rho", rho}}, 42);
    if (!strategy) {
      ADD_FAILURE() << llvm::toString(strategy.takeError());
      return nullptr;
    }
    return std::move(*strategy);
  };
  {
    auto strategy = gbfs("5");
    ASSERT_TRUE(strategy);
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.callback = [](const TunerEvent &e) { return e.trialsDone < 6; };
    ASSERT_TRUE(tune(*db, *strategy, measurer, options));
  }
  auto strategy = gbfs("3");
  ASSERT_TRUE(strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  Tuner tuner(space, *strategy, measurer, *db, options);
  llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("its setting 'strategy_options.rho' was "),
            std::string::npos)
      << message;
  EXPECT_EQ(measurer.calls, 0);
}

/// The measurement method is part of a run's settings: a run timed one way
/// (e.g. paired) is not continued with times taken another way, in either
/// direction, and the error names the setting and both values (also when it
/// is absent on one side, as "measurement" is for unpaired runs).
TEST_F(TunerTest, ResumeWithAnotherMeasurementMethodIsAClearError) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.measurement = "paired";
    options.callback = [](const TunerEvent &e) { return e.trialsDone < 6; };
    ASSERT_TRUE(tune(*db, *strategy, measurer, options));
  }
  for (const char *method : {"", "other"}) {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.resume = true;
    options.measurement = method;
    Tuner tuner(space, *strategy, measurer, *db, options);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    ASSERT_FALSE(static_cast<bool>(result)) << method;
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find("cannot resume run 1"), std::string::npos)
        << message;
    std::string expected =
        std::string("its setting 'measurement' was \"paired\", now ") +
        (*method ? "\"other\"" : "absent");
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(measurer.calls, 0);
  }
  // The same method continues it.
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  options.measurement = "paired";
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
}

TEST_F(TunerTest, ARunTunedByALiveProcessIsNotResumed) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  TunerOptions options = baseOptions();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Tunes until its 6th measurement, then hangs there.
    close(ready[0]);
    auto db = TileTuneDatabase::open(file("tune.db"));
    auto strategy = createStrategy("random", space, {}, 42);
    if (!db || !strategy)
      _exit(2);
    struct HangingMeasurer : SyntheticMeasurer {
      using SyntheticMeasurer::SyntheticMeasurer;
      llvm::Error measure(llvm::ArrayRef<Config> batch,
                          const MeasureRequest &request,
                          MeasureResultSink sink) override {
        for (size_t k = 0; k < batch.size(); ++k) {
          if (++calls == 6) {
            char byte = 1;
            (void)!write(fd, &byte, 1);
            while (true)
              pause();
          }
          if (!sink(k, evaluate(batch[k], request.role)))
            break;
        }
        return llvm::Error::success();
      }
      int fd = -1;
    } measurer(space);
    measurer.fd = ready[1];
    Tuner tuner(space, **strategy, measurer, **db, options);
    (void)!tuner.run(space.getDefault());
    _exit(3);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);

  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  TunerOptions resume = options;
  resume.resume = true;
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    Tuner tuner(space, *strategy, measurer, *db, resume);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    ASSERT_FALSE(static_cast<bool>(result));
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find("being tuned right now by process"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(std::to_string(child)), std::string::npos)
        << message;
    EXPECT_EQ(measurer.calls, 0);
  }

  // Once that process is gone the run can be resumed.
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, resume);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->replayed, 5);
  EXPECT_EQ(result->status, RunStatus::Finished);
  auto run = db->getRun(result->runId);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->owner, getCurrentRunOwner());
}

TEST(RunOwnerTest, LivenessOfOwnerTokens) {
  std::string me = getCurrentRunOwner();
  EXPECT_EQ(isRunOwnerAlive(me), std::optional<bool>(true));
  EXPECT_EQ(isRunOwnerAlive(""), std::optional<bool>(false));
  EXPECT_EQ(isRunOwnerAlive("garbage"), std::optional<bool>(false));
  // The same pid with another start time is a reused pid: not the owner.
  std::string reused = me.substr(0, me.rfind(':') + 1) + "1";
  EXPECT_EQ(isRunOwnerAlive(reused), std::optional<bool>(false));
  // A process that has exited.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(0);
  waitpid(child, nullptr, 0);
  std::string host = me.substr(0, me.find(':'));
  EXPECT_EQ(isRunOwnerAlive(host + ":" + std::to_string(child) + ":5"),
            std::optional<bool>(false));
  // Another host cannot be checked.
  EXPECT_EQ(isRunOwnerAlive("another-host-name.invalid:1:1"), std::nullopt);
}

/// --resume with nothing to resume starts a new run and says so, even
/// without progress output; when an unfinished run of the problem exists
/// with another seed, algorithm or thread count, the notice names the
/// difference.
TEST_F(TunerTest, ResumeWithNothingToResumeStartsANewRun) {
  auto db = openDb("tune.db");
  auto strategy = makeStrategy("random");
  ASSERT_TRUE(db && strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  std::string text;
  llvm::raw_string_ostream os(text);
  options.progressStream = &os;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->resumed);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_NE(text.find("warning: nothing to resume: no unfinished run of "
                      "'synthetic/m=64,n=32' with algorithm 'random', seed "
                      "42 and target"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; starting a new run"), std::string::npos) << text;

  // An interrupted run with seed 42 and 1 thread; resuming with seed 7 and
  // 2 threads finds nothing to resume, and says what differs.
  {
    auto first = makeStrategy("random");
    SyntheticMeasurer m(space);
    TunerOptions o = baseOptions();
    o.callback = [](const TunerEvent &e) { return e.trialsDone < 6; };
    std::optional<TuneResult> r = tune(*db, *first, m, o);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, RunStatus::Interrupted);
  }
  text.clear();
  auto other = makeStrategy("random", 7);
  SyntheticMeasurer m(space);
  TunerOptions o = baseOptions();
  o.resume = true;
  o.target.threads = 2;
  o.progressStream = &os;
  result = tune(*db, *other, m, o);
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->resumed);
  EXPECT_NE(text.find("(the most recent unfinished run of this problem, run 2, "
                      "was tuned with seed 42 (now 7), threads 1 (now 2))"),
            std::string::npos)
      << text;
}

/// A run that has measured more trials than the budget it is resumed with
/// is not replayed in part: the resume stops at once, saying the budget is
/// spent and what budget continues it (was: a replay error about the final
/// re-measurement). A budget as large as what was measured continues it.
TEST_F(TunerTest, ResumeWithASmallerTrialBudgetSaysItIsSpent) {
  auto db = openDb("tune.db");
  ASSERT_TRUE(db);
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.callback = [](const TunerEvent &e) { return e.trialsDone < 9; };
    std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->trials, 9);
  }
  {
    auto strategy = makeStrategy("random");
    SyntheticMeasurer measurer(space);
    TunerOptions options = baseOptions();
    options.resume = true;
    options.maxTrials = 4;
    measurer.defaultKey = space.getKey(space.getDefault());
    Tuner tuner(space, *strategy, measurer, *db, options);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    ASSERT_FALSE(static_cast<bool>(result));
    std::string message = llvm::toString(result.takeError());
    EXPECT_NE(message.find("cannot resume run 1 of 'synthetic/m=64,n=32'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("its trial budget is already spent: it has "
                           "measured 9 trials, more than the trial budget of "
                           "4 (resume with a trial budget of at least 9"),
              std::string::npos)
        << message;
    EXPECT_EQ(measurer.calls, 0);
  }
  auto strategy = makeStrategy("random");
  SyntheticMeasurer measurer(space);
  TunerOptions options = baseOptions();
  options.resume = true;
  options.maxTrials = 9;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_EQ(result->trials, 9);
  EXPECT_GE(result->replayed, 9);
}

//===----------------------------------------------------------------------===//
// Resume: no measurement lost, none repeated, identical continuation
//===----------------------------------------------------------------------===//

/// How the first session ends.
enum class Interruption { Kill9, MeasurerError, Callback };

struct ResumeCase {
  const char *strategy;
  Interruption interruption;
  /// Where the first session stops (the n-th measurement).
  int64_t at;
  /// TunerOptions::checkpointSeconds of both sessions.
  double checkpointSeconds;
};

std::string caseName(const ::testing::TestParamInfo<ResumeCase> &info) {
  const char *how[] = {"Kill9", "MeasurerError", "Callback"};
  return std::string(info.param.strategy) + "_" +
         how[static_cast<int>(info.param.interruption)] + "_at" +
         std::to_string(info.param.at) +
         (info.param.checkpointSeconds < 0 ? "_replayAll" : "_checkpoints");
}

class TunerResumeTest : public TunerTest,
                        public ::testing::WithParamInterface<ResumeCase> {};

TEST_P(TunerResumeTest, ContinuesExactly) {
  const ResumeCase &param = GetParam();
  TunerOptions options = baseOptions();
  options.checkpointSeconds = param.checkpointSeconds;

  // The reference: one uninterrupted run.
  std::vector<Row> reference;
  {
    auto db = openDb("reference.db");
    auto strategy = makeStrategy(param.strategy);
    ASSERT_TRUE(db && strategy);
    SyntheticMeasurer measurer(space);
    std::optional<TuneResult> result = tune(*db, *strategy, measurer, options);
    ASSERT_TRUE(result);
    reference = rows(*db, result->runId);
    ASSERT_GT(reference.size(), size_t(param.at));
  }

  // The first session, stopped after `at` measurements.
  std::string path = file("resumed.db");
  if (param.interruption == Interruption::Kill9) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto db = TileTuneDatabase::open(path);
      auto strategy = createStrategy(param.strategy, space, {}, 42);
      if (!db || !strategy)
        _exit(2);
      SyntheticMeasurer measurer(space);
      measurer.defaultKey = space.getKey(space.getDefault());
      measurer.killAtCall = param.at + 1;
      Tuner tuner(space, **strategy, measurer, **db, options);
      (void)!tuner.run(space.getDefault());
      _exit(3); // Not reached: the measurer kills the process.
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the first session did not die by SIGKILL";
  } else {
    auto db = openDb("resumed.db");
    auto strategy = makeStrategy(param.strategy);
    ASSERT_TRUE(db && strategy);
    SyntheticMeasurer measurer(space);
    measurer.defaultKey = space.getKey(space.getDefault());
    TunerOptions first = options;
    if (param.interruption == Interruption::MeasurerError)
      measurer.failAtCall = param.at + 1;
    else
      first.callback = [&](const TunerEvent &e) {
        return e.record->trial + 1 < param.at;
      };
    Tuner tuner(space, *strategy, measurer, *db, first);
    llvm::Expected<TuneResult> result = tuner.run(space.getDefault());
    if (param.interruption == Interruption::MeasurerError) {
      ASSERT_FALSE(static_cast<bool>(result));
      std::string message = llvm::toString(result.takeError());
      EXPECT_NE(message.find("breakdown"), std::string::npos) << message;
      EXPECT_NE(message.find("resume"), std::string::npos) << message;
      auto run = db->getRun(1);
      ASSERT_TRUE(static_cast<bool>(run));
      EXPECT_EQ(run->status, RunStatus::Failed);
    } else {
      ASSERT_TRUE(static_cast<bool>(result))
          << llvm::toString(result.takeError());
      EXPECT_EQ(result->status, RunStatus::Interrupted);
    }
  }

  // What the first session left: exactly its `at` measurements, in order.
  auto db = openDb("resumed.db");
  ASSERT_TRUE(db);
  std::vector<Row> before = rows(*db, 1);
  ASSERT_EQ(before.size(), size_t(param.at));
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(before[i], reference[i]) << "trial " << i;

  // The second session resumes.
  auto strategy = makeStrategy(param.strategy);
  ASSERT_TRUE(strategy);
  SyntheticMeasurer measurer(space);
  TunerOptions second = options;
  second.resume = true;
  std::optional<TuneResult> result = tune(*db, *strategy, measurer, second);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->resumed);
  EXPECT_EQ(result->runId, 1);
  EXPECT_EQ(result->status, RunStatus::Finished);
  EXPECT_EQ(result->replayed, param.at);
  // The measurer saw every recorded result, in order, before measuring.
  ASSERT_EQ(measurer.replayedResults.size(), size_t(param.at));
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(measurer.replayedResults[i].status, before[i].status);
    EXPECT_EQ(measurer.replayedResults[i].time.median, before[i].median);
  }

  // None lost, none repeated, and the same continuation.
  std::vector<Row> after = rows(*db, 1);
  ASSERT_EQ(after.size(), reference.size());
  for (size_t i = 0; i < after.size(); ++i)
    EXPECT_EQ(after[i], reference[i]) << "trial " << i;
  EXPECT_EQ(measurer.calls, int64_t(reference.size()) - param.at);
  ASSERT_EQ(measurer.measured.size(), reference.size() - param.at);
  for (size_t i = 0; i < measurer.measured.size(); ++i)
    EXPECT_EQ(measurer.measured[i].first, reference[param.at + i].key);
  auto run = db->getRun(1);
  ASSERT_TRUE(static_cast<bool>(run));
  EXPECT_EQ(run->status, RunStatus::Finished);
}

// Every registered strategy resumes exactly. The default is trial 0;
// batches of 4 follow (trials 1-4, 5-8, ...), so
// `at` = 11 stops in the middle of a batch and 9 right after one; 41 stops
// between the two final re-measurements.
INSTANTIATE_TEST_SUITE_P(
    Strategies, TunerResumeTest,
    ::testing::Values(ResumeCase{"random", Interruption::Kill9, 11, 0},
                      ResumeCase{"random", Interruption::Kill9, 11, -1},
                      ResumeCase{"random", Interruption::Kill9, 41, 0},
                      ResumeCase{"grid", Interruption::Kill9, 11, 0},
                      ResumeCase{"na2c", Interruption::Kill9, 11, 0},
                      ResumeCase{"na2c", Interruption::Kill9, 23, -1},
                      ResumeCase{"xgb", Interruption::Kill9, 11, 0},
                      ResumeCase{"xgb", Interruption::Kill9, 23, -1},
                      ResumeCase{"automcl", Interruption::Kill9, 11, 0},
                      ResumeCase{"gbfs", Interruption::Kill9, 11, 0},
                      ResumeCase{"gbfs", Interruption::Kill9, 23, -1},
                      ResumeCase{"opevo", Interruption::Kill9, 14, 0},
                      ResumeCase{"opevo", Interruption::Kill9, 9, -1},
                      ResumeCase{"random", Interruption::MeasurerError, 7, 0},
                      ResumeCase{"opevo", Interruption::Callback, 10, 0},
                      ResumeCase{"random", Interruption::Callback, 41, 0},
                      ResumeCase{"random", Interruption::Callback, 9, 0},
                      ResumeCase{"gbfs", Interruption::Callback, 1, -1}),
    caseName);

} // namespace
