//===- WarmStartTest.cpp - Tests of warm start from similar problems ------===//
//
// Problem distances (comparable problems only), adapting configs of one
// problem to another's space (valid there, tile sizes kept where they
// divide, constraints repaired), and the seeds the database gives a new
// problem (nearest first; other op kinds, element types and targets
// excluded).
//
//===----------------------------------------------------------------------===//

#include "ModuleFixture.h"

#include "tiletune/Driver/Driver.h"
#include "tiletune/Driver/WarmStart.h"
#include "tiletune/Problem/Problem.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

class WarmStartTest : public ModuleFixture {
protected:
  /// The problem of a single `kind` op ("matmul" or "batch_matmul") of
  /// sizes m x n x k (batch b) and element type `type`.
  Problem problemOf(int64_t m, int64_t n, int64_t k, const char *type = "f32",
                    int64_t b = 0) {
    std::string text;
    if (b == 0)
      text = llvm::formatv(R"mlir(
func.func @f(%a: memref<{0}x{2}x{3}>, %b: memref<{2}x{1}x{3}>,
             %c: memref<{0}x{1}x{3}>) {
  linalg.matmul ins(%a, %b : memref<{0}x{2}x{3}>, memref<{2}x{1}x{3}>)
                outs(%c : memref<{0}x{1}x{3}>)
  return
}
)mlir",
                           m, n, k, type)
                 .str();
    else
      text = llvm::formatv(R"mlir(
func.func @f(%a: memref<{4}x{0}x{2}x{3}>, %b: memref<{4}x{2}x{1}x{3}>,
             %c: memref<{4}x{0}x{1}x{3}>) {
  linalg.batch_matmul ins(%a, %b : memref<{4}x{0}x{2}x{3}>,
                                   memref<{4}x{2}x{1}x{3}>)
                      outs(%c : memref<{4}x{0}x{1}x{3}>)
  return
}
)mlir",
                           m, n, k, type, b)
                 .str();
    OwningOpRef<ModuleOp> m2 = parseSourceString<ModuleOp>(text, &ctx);
    EXPECT_TRUE(m2);
    FailureOr<ProblemSet> set = collectProblems(*m2, "cpu");
    EXPECT_TRUE(succeeded(set));
    return set->problems.front();
  }

  Space spaceOf(const Problem &p) {
    llvm::Expected<Space> space = buildTuningSpace(&ctx, p);
    EXPECT_TRUE(bool(space)) << toString(space.takeError());
    return std::move(*space);
  }
};

TEST_F(WarmStartTest, DistanceComparesOnlyTheSameFamily) {
  Problem a = problemOf(64, 64, 64);
  std::optional<double> d = problemDistance(a, problemOf(60, 64, 64));
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, std::log2(64.0 / 60.0), 1e-12);
  EXPECT_EQ(problemDistance(a, a), 0.0);
  // Symmetric, and grows with the size ratio.
  EXPECT_EQ(problemDistance(problemOf(60, 64, 64), a), d);
  EXPECT_GT(*problemDistance(a, problemOf(128, 64, 64)), *d);
  EXPECT_NEAR(*problemDistance(a, problemOf(128, 128, 64)), std::sqrt(2.0),
              1e-12);
  // Another element type or op kind: not comparable.
  EXPECT_FALSE(problemDistance(a, problemOf(64, 64, 64, "f64")).has_value());
  EXPECT_FALSE(
      problemDistance(a, problemOf(64, 64, 64, "f32", 2)).has_value());
  Problem cuda = a;
  cuda.target = "cuda";
  EXPECT_FALSE(problemDistance(a, cuda).has_value());
}

/// A factorization keeps the old tile sizes where they divide the new size
/// and takes the nearest legal ones where they do not.
TEST_F(WarmStartTest, FactorizationKeepsTileSizes) {
  Space space("test");
  space.addParameter(std::make_shared<FactorizationParam>("m", 32, 4));
  space.addParameter(std::make_shared<FactorizationParam>("n", 60, 3));
  Config base = space.getDefault();
  // From a 64 x 64 problem: m tiles 32/16/4 (they divide 32: kept); n
  // tiles 16/4 become 20/4 (the innermost tile kept, 16 -> 20 the nearest
  // multiple of 4 dividing 60).
  llvm::json::Value old = llvm::json::Object{
      {"m", llvm::json::Array{2, 2, 4, 4}},
      {"n", llvm::json::Array{4, 4, 4}}};
  std::optional<Config> adapted = adaptConfig(old, space, base);
  ASSERT_TRUE(adapted.has_value());
  EXPECT_EQ(space.getKey(*adapted), "m=[1,2,4,4];n=[3,5,4]");
  // A parameter the old config lacks keeps the base value.
  llvm::json::Value partial =
      llvm::json::Object{{"m", llvm::json::Array{1, 2, 4, 4}}};
  adapted = adaptConfig(partial, space, base);
  ASSERT_TRUE(adapted.has_value());
  EXPECT_EQ(space.getValue(*adapted, 1), space.getValue(base, 1));
  // A value that is not a factor list keeps the base value too.
  llvm::json::Value bad = llvm::json::Object{{"m", "x"}, {"n", 3}};
  adapted = adaptConfig(bad, space, base);
  ASSERT_TRUE(adapted.has_value());
  EXPECT_EQ(*adapted, base);
  EXPECT_FALSE(adaptConfig(llvm::json::Value("no"), space, base));
}

/// A constraint the adapted config violates is repaired to the nearest valid
/// config by neighbour steps.
TEST_F(WarmStartTest, ConstraintViolationsAreRepaired) {
  Space space("test");
  space.addParameter(std::make_shared<FactorizationParam>("m", 64, 2));
  space.addConstraint({"inner-at-most-8",
                       [](const Space &s, const Config &c)
                           -> std::optional<std::string> {
                         if (s.getValue(c, 0u)[1] > 8)
                           return std::string("inner factor > 8");
                         return std::nullopt;
                       }});
  llvm::json::Value old =
      llvm::json::Object{{"m", llvm::json::Array{1, 32}}};
  std::optional<Config> adapted = adaptConfig(old, space, space.getDefault());
  ASSERT_TRUE(adapted.has_value());
  EXPECT_TRUE(space.isValid(*adapted));
  // One prime moved from 32: 16 (still invalid), then 8.
  EXPECT_EQ(space.getKey(*adapted), "m=[8,8]");
}

/// Configs of a 64^3 matmul adapted to other sizes (a prime one too) are
/// valid in their CPU tuning spaces; a config adapted to its own space is
/// itself.
TEST_F(WarmStartTest, AdaptedConfigsAreValidInTheNewSpace) {
  Problem source = problemOf(64, 64, 64);
  Space sourceSpace = spaceOf(source);
  std::mt19937_64 rng(7);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{60, 64, 64},
                         {96, 48, 72},
                         {61, 64, 17},
                         {256, 8, 64}}) {
    Problem target = problemOf(m, n, k);
    Space targetSpace = spaceOf(target);
    Config base = getDefaultConfig(&ctx, target, targetSpace, 1);
    for (int i = 0; i < 30; ++i) {
      std::optional<Config> config = sourceSpace.sampleValid(rng);
      ASSERT_TRUE(config.has_value());
      llvm::json::Value json = sourceSpace.toJSON(*config);
      std::optional<Config> adapted = adaptConfig(json, targetSpace, base);
      ASSERT_TRUE(adapted.has_value()) << sourceSpace.getKey(*config);
      std::string reason;
      EXPECT_TRUE(targetSpace.isValid(*adapted, &reason))
          << sourceSpace.getKey(*config) << " -> "
          << targetSpace.getKey(*adapted) << ": " << reason;
      std::optional<Config> same = adaptConfig(
          json, sourceSpace, getDefaultConfig(&ctx, source, sourceSpace, 1));
      ASSERT_TRUE(same.has_value());
      EXPECT_EQ(sourceSpace.getKey(*same), sourceSpace.getKey(*config));
    }
  }
}

TEST_F(WarmStartTest, SeedsComeFromTheNearestSimilarProblems) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletune-warm", dir));
  auto db = TileTuneDatabase::open((dir + "/t.db").str(),
                                   OpenMode::CreateIfMissing);
  ASSERT_TRUE(bool(db)) << toString(db.takeError());
  TargetInfo here = getCPUTarget(1);
  TargetInfo other = getCPUTarget(2);
  std::mt19937_64 rng(11);
  // Records one run of `p` on `target` whose only result is a random valid
  // config; returns that config's key.
  auto record = [&](const Problem &p, const TargetInfo &target) {
    Space space = spaceOf(p);
    Config config = *space.sampleValid(rng);
    RunInfo run;
    run.problemKey = p.getKey();
    run.problemDescription = llvm::formatv("{0}", p.toJSON()).str();
    run.target = target;
    run.algorithm = "random";
    EXPECT_FALSE(bool((*db)->recordRun(run)));
    MeasurementRecord m;
    m.runId = run.id;
    m.trial = 0;
    m.role = MeasurementRole::Search;
    m.configKey = space.getKey(config);
    m.config = llvm::formatv("{0}", space.toJSON(config)).str();
    m.result = MeasureResult::success(TimeStats::fromSamples({1e-4}), 5.0);
    EXPECT_FALSE(bool((*db)->recordMeasurement(m, 0.1)));
    return m.configKey;
  };
  Problem problem = problemOf(60, 64, 64);
  record(problemOf(128, 128, 64), here);      // distance sqrt(1.1^2 + 1)
  record(problemOf(1024, 1024, 1024), here);  // too far
  record(problemOf(64, 64, 64, "f64"), here); // another element type
  record(problemOf(64, 64, 64, "f32", 2), here); // another op kind
  record(problemOf(62, 64, 64), other);       // another thread count
  std::string nearKey = record(problemOf(64, 64, 64), here);
  record(problem, here); // the problem itself is never its own seed

  Space space = spaceOf(problem);
  Config base = getDefaultConfig(&ctx, problem, space, 1);
  llvm::Expected<llvm::SmallVector<WarmStartSeed>> seeds =
      findWarmStartSeeds(**db, problem, here, space, base);
  ASSERT_TRUE(bool(seeds)) << toString(seeds.takeError());
  ASSERT_EQ(seeds->size(), 2u);
  EXPECT_EQ((*seeds)[0].problemKey, problemOf(64, 64, 64).getKey());
  EXPECT_EQ((*seeds)[0].sourceConfigKey, nearKey);
  EXPECT_NEAR((*seeds)[0].distance, std::log2(64.0 / 60.0), 1e-12);
  EXPECT_EQ((*seeds)[1].problemKey, problemOf(128, 128, 64).getKey());
  for (const WarmStartSeed &seed : *seeds) {
    EXPECT_TRUE(space.isValid(seed.config));
    EXPECT_EQ(seed.configKey, space.getKey(seed.config));
    EXPECT_NE(seed.config, base);
  }
  // Fewer problems, a smaller distance.
  WarmStartOptions one;
  one.maxProblems = 1;
  seeds = findWarmStartSeeds(**db, problem, here, space, base, one);
  ASSERT_TRUE(bool(seeds));
  ASSERT_EQ(seeds->size(), 1u);
  EXPECT_EQ((*seeds)[0].sourceConfigKey, nearKey);
  WarmStartOptions close;
  close.maxDistance = 0.05;
  seeds = findWarmStartSeeds(**db, problem, here, space, base, close);
  ASSERT_TRUE(bool(seeds));
  EXPECT_TRUE(seeds->empty());
  // On the other target only the 62 x 64 x 64 result is similar.
  seeds = findWarmStartSeeds(**db, problem, other, space, base);
  ASSERT_TRUE(bool(seeds));
  ASSERT_EQ(seeds->size(), 1u);
  EXPECT_EQ((*seeds)[0].problemKey, problemOf(62, 64, 64).getKey());
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
