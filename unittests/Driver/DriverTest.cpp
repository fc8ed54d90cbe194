//===- DriverTest.cpp - Tests of the driver's spaces, flows and measuring -===//
//
// Tuning spaces and default configs (CPU conversion round trips, cuda spaces
// the GPU passes accept, padded prime matmuls), apply from a database, the
// tuner loop over the GPU measurer, and the measurers driven from the
// default config: variants in a CPU worker, paired timing ranked by the
// ratio to the reference, the GPU measurer's batches.
//
//===----------------------------------------------------------------------===//

#include "ModuleFixture.h"

#include "tiletune/Driver/Driver.h"
#include "tiletune/Driver/GPUDriver.h"
#include "tiletune/Driver/TuningSpace.h"
#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/GPU/PTXAS.h"
#include "tiletune/Measure/CPUMeasurer.h"
#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Padding.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <chrono>
#include <random>
#include <thread>

#ifdef __linux__
#include <csignal>
#include <fstream>
#include <sys/types.h>
#include <unistd.h>
#endif

using namespace mlir;
using namespace mlir::tiletune;

namespace {

class DriverTest : public ModuleFixture {
protected:
  /// The module's first CPU problem, its space and default config, and a
  /// batch of that default followed by `extra` valid configs sampled with
  /// `seed`.
  struct Sampled {
    Problem problem;
    std::optional<Space> space;
    Config def;
    SmallVector<Config> batch;
  };
  /// The first CPU problem of module `text` and its space.
  void firstCPUProblemOf(const char *text, Problem &problem,
                         std::optional<Space> &space) {
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
    ASSERT_TRUE(m);
    FailureOr<ProblemSet> set = collectProblems(*m, "cpu");
    ASSERT_TRUE(succeeded(set));
    problem = set->problems[0];
    llvm::Expected<Space> built = buildProblemSpace(problem);
    ASSERT_TRUE(bool(built)) << toString(built.takeError());
    space.emplace(std::move(*built));
  }
  void sampleFirstProblem(unsigned seed, int extra, Sampled &out) {
    FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
    ASSERT_TRUE(succeeded(set));
    out.problem = set->problems[0];
    llvm::Expected<Space> space = buildProblemSpace(out.problem);
    ASSERT_TRUE(bool(space)) << toString(space.takeError());
    out.space.emplace(std::move(*space));
    out.def = getDefaultConfig(&ctx, out.problem, *out.space, 1);
    std::mt19937_64 rng(seed);
    out.batch = {out.def};
    for (int i = 0; i < extra; ++i) {
      std::optional<Config> other = out.space->sampleValid(rng);
      ASSERT_TRUE(other.has_value());
      out.batch.push_back(*other);
    }
  }
  /// Measurement options of the tests: 1 thread, `repeats` samples of at
  /// least 0.1 ms.
  static CPUMeasureOptions quickOptions(unsigned repeats = 2) {
    CPUMeasureOptions options;
    options.threads = 1;
    options.timing.repeats = repeats;
    options.timing.minSampleSeconds = 1e-4;
    return options;
  }
};

TEST_F(DriverTest, ConfigsConvertToAttributesAndBack) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  std::mt19937_64 rng(42);
  for (const Problem &p : set->problems) {
    llvm::Expected<Space> space = buildProblemSpace(p);
    ASSERT_TRUE(bool(space)) << toString(space.takeError());
    for (int i = 0; i < 20; ++i) {
      std::optional<Config> config = space->sampleValid(rng);
      ASSERT_TRUE(config.has_value());
      llvm::Expected<TileConfigAttr> attr =
          configToAttr(&ctx, p, *space, *config);
      ASSERT_TRUE(bool(attr)) << toString(attr.takeError());
      llvm::Expected<Config> back = attrToConfig(p, *space, *attr);
      ASSERT_TRUE(bool(back)) << toString(back.takeError());
      EXPECT_EQ(space->getKey(*back), space->getKey(*config));
    }
    // The default config is a point of the space.
    Config def = getDefaultConfig(&ctx, p, *space, 1);
    EXPECT_TRUE(space->isValid(def));
  }
}

/// Pins are checked against the space, not against its default: with m's
/// register slot pinned and unroll pinned, neither the heuristic's config
/// projected onto the pins (4096-element register tile) nor the pinned
/// space's own default (unroll 8 does not divide its cache tile) is valid,
/// yet hundreds of configs are; the default config is then the nearest valid
/// one, and it converts to an attribute (the run's paired reference).
TEST_F(DriverTest, DefaultConfigOfAPinnedSpaceIsValid) {
  // The figures below are AVX-512's (AVX2 pads m = 128 to 144 for its 6-row
  // tiles); nothing here runs.
  DefaultTargetCPUScope target;
  ASSERT_FALSE(llvm::errorToBool(target.use("znver4", "")));
  const char *text = R"mlir(
func.func @mm(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>,
              %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>)
                     outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
)mlir";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(m);
  FailureOr<ProblemSet> set = collectProblems(*m, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  for (const char *fixed : {"unroll=8;m=[1,1,1,*];n=[1,1,*,*]",
                            "unroll=2;m=[1,1,1,*]"}) {
    llvm::Expected<Space> space = buildTuningSpace(&ctx, p, fixed);
    ASSERT_TRUE(bool(space)) << toString(space.takeError());
    // The situation of the bug: the pinned space's own default breaks a
    // constraint.
    EXPECT_FALSE(space->isValid(space->getDefault())) << fixed;
    std::string log;
    llvm::raw_string_ostream os(log);
    Config def = getDefaultConfig(&ctx, p, *space, 1, &os);
    std::string reason;
    EXPECT_TRUE(space->isValid(def, &reason))
        << fixed << ": " << space->getKey(def) << ": " << reason;
    EXPECT_EQ(space->getValue(def, "m").back(), 128) << space->getKey(def);
    EXPECT_NE(log.find("starting from the nearest valid config"),
              std::string::npos)
        << log;
    llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, def);
    EXPECT_TRUE(bool(attr)) << toString(attr.takeError());
  }
}

/// AutoMCL's space G of the OpEvo paper's conv C2 (batch 1; NCHW, which the
/// default config computes as NHWC) on one thread, as `tiletune tune
/// --algorithm=automcl` builds it. The strategy's configs go to the tuner,
/// which reads them in the tuning space: G must keep that encoding (a
/// pinned `layout=nhwc` used to reach the tuner as `layout=native`, some
/// such configs breaking its register-file constraint), G must hold many
/// configs (its vector-width filter used to ignore the layout, which left
/// the sampler almost nothing), and 32 trials are 32 configs the tuner
/// accepts, for every seed.
TEST_F(DriverTest, AutoMCLProposesConvConfigsTheTunerAccepts) {
  const char *text = R"mlir(
func.func @c2(%i: tensor<1x64x31x31xf32>, %f: tensor<192x64x5x5xf32>,
              %o: tensor<1x192x27x27xf32>) -> tensor<1x192x27x27xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
         ins(%i, %f : tensor<1x64x31x31xf32>, tensor<192x64x5x5xf32>)
         outs(%o : tensor<1x192x27x27xf32>) -> tensor<1x192x27x27xf32>
  return %r : tensor<1x192x27x27xf32>
}
)mlir";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(m);
  FailureOr<ProblemSet> set = collectProblems(*m, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> full = buildTuningSpace(&ctx, p, "");
  ASSERT_TRUE(bool(full)) << toString(full.takeError());
  // One thread (the paper protocol) and two (pfactor(2): f takes them).
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Config def = getDefaultConfig(&ctx, p, *full, threads);
    ASSERT_TRUE(full->isValid(def));
    llvm::Expected<Space> g =
        getSearchSpace("automcl", p, *full, threads, &def);
    ASSERT_TRUE(bool(g)) << toString(g.takeError());
    EXPECT_NE(g->getName().find("tile sizes"), std::string::npos)
        << g->getName().str();

    // Many configs: at least 1% of uniform draws from G's product space are
    // valid (6% on 1 and 5% on 2 threads here; about one in 1600 before).
    std::mt19937_64 rng(1);
    unsigned valid = 0;
    const unsigned draws = 20000;
    for (unsigned i = 0; i < draws; ++i)
      valid += g->isValid(g->sample(rng));
    EXPECT_GE(valid, draws / 100) << g->countProduct() << " product points";

    for (uint64_t seed : {1, 2, 3}) {
      llvm::Expected<std::unique_ptr<Strategy>> strategy = createStrategy(
          "automcl", *g,
          {{"batch", "8"}, {"sample_size", "2000"}, {"max_trials", "32"}},
          seed);
      ASSERT_TRUE(bool(strategy)) << toString(strategy.takeError());
      unsigned measured = 0;
      for (int round = 0; round < 100 && !(*strategy)->isDone(); ++round) {
        llvm::SmallVector<Trial> trials = (*strategy)->propose(8);
        if (trials.empty())
          break;
        std::vector<TrialResult> results;
        for (const Trial &t : trials) {
          // What the tuner checks, in its own space.
          std::string reason;
          EXPECT_TRUE(full->isValid(t.cfg, &reason))
              << "seed " << seed << ": " << full->getKey(t.cfg) << ": "
              << reason;
          EXPECT_EQ(full->getKey(t.cfg), g->getKey(t.cfg)) << "seed " << seed;
          // The template's options are the default config's, `layout`
          // included (nhwc on Zen 5 and Haswell).
          for (llvm::StringRef option :
               {"order", "vectorize", "unroll", "layout"})
            EXPECT_EQ(full->getValue(t.cfg, option),
                      full->getValue(def, option))
                << option.str() << ", seed " << seed;
          TrialResult r;
          r.id = t.id;
          r.cfg = t.cfg;
          // A smooth synthetic cost: wider register tiles are faster.
          int64_t tile = 1;
          for (llvm::StringRef d : {"f", "oh", "ow"})
            tile *= full->getValue(t.cfg, d).back();
          r.cost = 1.0 + 1.0 / double(tile);
          results.push_back(std::move(r));
        }
        measured += results.size();
        llvm::Error err = (*strategy)->observe(results);
        ASSERT_FALSE(bool(err)) << toString(std::move(err));
      }
      EXPECT_EQ(measured, 32u) << "seed " << seed;
    }
  }
}

TEST_F(DriverTest, CudaTuningSpaceHoldsOnlyConfigsTheGPUPassesAccept) {
  // Both op kinds of the module plus a BERT-sized matmul: every config of
  // the tuning space has a kernel plan within the GPU limits, and every
  // product-space point the constraint rejects is rejected by the plan, the
  // limits or the accumulator bound for the reason it gives.
  const char *bert = R"mlir(
func.func @h(%a: tensor<512x1024xf32>, %b: tensor<1024x1024xf32>,
             %c: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x1024xf32>, tensor<1024x1024xf32>)
                     outs(%c : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
)mlir";
  OwningOpRef<ModuleOp> big = parseSourceString<ModuleOp>(bert, &ctx);
  ASSERT_TRUE(big);
  std::vector<Problem> problems;
  for (ModuleOp m : {*module, *big}) {
    FailureOr<ProblemSet> set = collectProblems(m, "cuda");
    ASSERT_TRUE(succeeded(set));
    problems.insert(problems.end(), set->problems.begin(), set->problems.end());
  }
  ASSERT_EQ(problems.size(), 3u);
  std::mt19937_64 rng(7);
  for (const Problem &p : problems) {
    SCOPED_TRACE(p.getKey());
    llvm::Expected<Space> space = buildTuningSpace(&ctx, p);
    ASSERT_TRUE(bool(space)) << toString(space.takeError());
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(&ctx, p);
    ASSERT_TRUE(succeeded(kernel));
    Operation *op = getKernelOp(**kernel);
    unsigned accepted = 0, rejected = 0;
    for (int i = 0; i < 300; ++i) {
      Config c = space->sample(rng);
      bool valid = space->isValid(c);
      llvm::Expected<TileConfigAttr> attr =
          buildConfigAttr(&ctx, p, *space, c);
      ASSERT_TRUE(bool(attr)) << toString(attr.takeError());
      setConfig(op, *attr);
      std::string reason;
      FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
      bool passesAccept =
          succeeded(plan) && succeeded(checkGPULimits(*plan, {}, &reason));
      if (valid) {
        ++accepted;
        EXPECT_TRUE(passesAccept) << space->getKey(c) << ": " << reason;
        EXPECT_LE(plan->outputsPerThread, 255);
      } else {
        ++rejected;
        EXPECT_TRUE(!passesAccept || plan->outputsPerThread > 255)
            << space->getKey(c);
      }
    }
    EXPECT_GT(accepted, 0u);
    // The heuristic default (tiletune-default-gpu-config) is a point of
    // the tuning space, not its one-thread-per-block start state.
    Config def = getDefaultConfig(&ctx, p, *space, 1);
    EXPECT_TRUE(space->isValid(def)) << space->getKey(def);
    if (p.getDimSize("m") == 512)
      EXPECT_NE(def, space->getDefault());
    // The big matmul's product space is mostly illegal on a GPU.
    if (p.getDimSize("m") == 512)
      EXPECT_GT(rejected, accepted);
  }
}

TEST_F(DriverTest, GPUMeasurerPreparesOnThreadsAndReportsInOrder) {
  if (!findPtxas() || getCudaRuntimeLibraryPath().empty())
    GTEST_SKIP() << "needs ptxas and the CUDA runtime library";
  FailureOr<ProblemSet> set = collectProblems(*module, "cuda");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0]; // matmul 8x12x16
  llvm::Expected<Space> space = buildTuningSpace(&ctx, p);
  ASSERT_TRUE(bool(space)) << toString(space.takeError());
  GPUMeasureOptions options;
  options.timing.repeats = 3;
  llvm::Expected<std::unique_ptr<GPUProblemMeasurer>> measurer =
      GPUProblemMeasurer::create(&ctx, p, *space, options, 3);
  ASSERT_TRUE(bool(measurer)) << toString(measurer.takeError());
  EXPECT_EQ((*measurer)->getNumCompileThreads(), 3u);
  // Six distinct valid configs, and one the space rejects in the middle.
  std::mt19937_64 rng(3);
  SmallVector<Config> batch;
  ConfigSet seen;
  while (batch.size() < 6) {
    std::optional<Config> c = space->sampleValid(rng);
    ASSERT_TRUE(c.has_value());
    if (seen.insert(*c).second)
      batch.push_back(*c);
  }
  // (Every config of this small problem fits a GPU: break a factor list.)
  Config bad = batch[0];
  bad.getSlots()[0] = 3;
  ASSERT_FALSE(space->isValid(bad));
  batch.insert(batch.begin() + 3, bad);
  std::vector<std::pair<size_t, MeasureResult>> results;
  llvm::Error err = (*measurer)->measure(
      batch, MeasureRequest(), [&](size_t i, const MeasureResult &r) {
        results.emplace_back(i, r);
        return true;
      });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  ASSERT_EQ(results.size(), batch.size());
  // Every result says where its time went (the throughput summary counts
  // the rest as idle): the compiled variants their preparation.
  for (auto [k, entry] : llvm::enumerate(results)) {
    const MeasurePhases &phases = entry.second.phases;
    EXPECT_GE(phases.compileWaitSeconds, 0.0);
    EXPECT_GE(phases.runWaitSeconds, 0.0);
    if (k != 3)
      EXPECT_GT(phases.codegenSeconds, 0.0) << k;
  }
  bool gpu = isCudaDeviceAvailable();
  for (auto [k, entry] : llvm::enumerate(results)) {
    auto &[i, r] = entry;
    EXPECT_EQ(i, k) << "results come in batch order";
    if (i == 3) {
      EXPECT_EQ(r.status, MeasureStatus::Invalid);
      continue;
    }
    if (gpu)
      EXPECT_EQ(r.status, MeasureStatus::Ok) << r.message;
    else
      EXPECT_EQ(r.status, MeasureStatus::RuntimeError) << r.message;
    EXPECT_GT(r.costSeconds, 0.0);
  }
  // A sink that stops after two results gets no more.
  unsigned calls = 0;
  err = (*measurer)->measure(batch, MeasureRequest(),
                             [&](size_t, const MeasureResult &) {
                               return ++calls < 2;
                             });
  ASSERT_FALSE(bool(err));
  EXPECT_EQ(calls, 2u);
  // The tuner's run limit: on a GPU, a limit below any kernel's run time
  // makes every valid variant a timeout after its first run (without one,
  // the missing device is reported first).
  MeasureRequest tight;
  tight.runTimeoutSeconds = 1e-9;
  results.clear();
  err = (*measurer)->measure(batch, tight,
                             [&](size_t i, const MeasureResult &r) {
                               results.emplace_back(i, r);
                               return true;
                             });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  ASSERT_EQ(results.size(), batch.size());
  for (auto &[i, r] : results) {
    if (i == 3)
      continue;
    if (gpu) {
      EXPECT_EQ(r.status, MeasureStatus::Timeout) << r.message;
      EXPECT_NE(r.message.find("over the limit"), std::string::npos)
          << r.message;
    } else {
      EXPECT_EQ(r.status, MeasureStatus::RuntimeError) << r.message;
    }
  }
}

TEST_F(DriverTest, ApplyUsesRecordedCudaResultsWithoutAGPU) {
  if (isCudaDeviceAvailable())
    GTEST_SKIP() << "with a GPU, apply uses the device's own target";
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletune-apply", dir));
  std::string path = (dir + "/t.db").str();
  auto db = TileTuneDatabase::open(path, OpenMode::CreateIfMissing);
  ASSERT_TRUE(bool(db)) << toString(db.takeError());
  FailureOr<ProblemSet> set = collectProblems(*module, "cuda");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildTuningSpace(&ctx, p);
  ASSERT_TRUE(bool(space));
  std::mt19937_64 rng(4);
  Config config = *space->sampleValid(rng);
  llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, config);
  ASSERT_TRUE(bool(attr));
  // Results of a GPU this machine does not have.
  auto record = [&](const std::string &model) {
    RunInfo run;
    run.problemKey = p.getKey();
    run.target.kind = "cuda";
    run.target.model = model;
    run.target.features = "sm_90";
    run.target.threads = 0;
    run.target.toolchain = "test";
    run.algorithm = "gbfs";
    ASSERT_FALSE(bool((*db)->recordRun(run)));
    MeasurementRecord m;
    m.runId = run.id;
    m.trial = 0;
    m.role = MeasurementRole::Search;
    m.configKey = space->getKey(config);
    m.config = llvm::formatv("{0}", space->toJSON(config)).str();
    m.result = MeasureResult::success(TimeStats::fromSamples({1e-4}), 1.0);
    ASSERT_FALSE(bool((*db)->recordMeasurement(m, 0.1)));
  };
  record("Test GPU A");
  llvm::Expected<TargetInfo> chosen = selectApplyTarget(**db, "cuda", 1);
  ASSERT_TRUE(bool(chosen)) << toString(chosen.takeError());
  EXPECT_EQ(chosen->model, "Test GPU A");
  llvm::Expected<ApplyStats> stats = applyDatabase(*module, **db, *chosen, false);
  ASSERT_TRUE(bool(stats)) << toString(stats.takeError());
  EXPECT_EQ(stats->applied, 2u); // both ops of the matmul problem
  Operation *op = set->ops[0][0];
  ASSERT_TRUE(getConfig(op));
  EXPECT_EQ(getConfig(op), *attr);
  // Two GPUs: the choice needs a key.
  record("Test GPU B");
  llvm::Expected<TargetInfo> ambiguous = selectApplyTarget(**db, "cuda", 1);
  ASSERT_FALSE(bool(ambiguous));
  EXPECT_NE(toString(ambiguous.takeError()).find("--target-key"),
            std::string::npos);
  llvm::Expected<TargetInfo> byKey =
      selectApplyTarget(**db, "cuda", 1, chosen->key());
  ASSERT_TRUE(bool(byKey));
  EXPECT_EQ(byKey->model, "Test GPU A");
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(DriverTest, TunerLoopRunsTheGPUMeasurerToTheEnd) {
  // The cuda tuning loop as tuneModule builds it (space, warm-started
  // strategy, GPU measurer, database), minus the device check: without a
  // GPU every variant fails at run time, and the run still ends cleanly
  // with every result recorded; with one, it finds a best config.
  if (!findPtxas() || getCudaRuntimeLibraryPath().empty())
    GTEST_SKIP() << "needs ptxas and the CUDA runtime library";
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletune-gpuloop", dir));
  auto db = TileTuneDatabase::open((dir + "/t.db").str(),
                                   OpenMode::CreateIfMissing);
  ASSERT_TRUE(bool(db)) << toString(db.takeError());
  FailureOr<ProblemSet> set = collectProblems(*module, "cuda");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildTuningSpace(&ctx, p);
  ASSERT_TRUE(bool(space));
  Config def = getDefaultConfig(&ctx, p, *space, 1);
  auto strategy = createStrategy(
      "opevo", *space, {{"start_config", space->getKey(def)}}, 1);
  ASSERT_TRUE(bool(strategy)) << toString(strategy.takeError());
  GPUMeasureOptions options;
  options.timing.repeats = 3;
  auto measurer = GPUProblemMeasurer::create(&ctx, p, *space, options, 2);
  ASSERT_TRUE(bool(measurer));
  TunerOptions topts;
  topts.problemKey = p.getKey();
  topts.target.kind = "cuda";
  topts.target.model = "test";
  topts.maxTrials = 10;
  topts.batchSize = 4;
  topts.flops = p.getFlops();
  topts.showProgress = false;
  Tuner tuner(*space, **strategy, **measurer, **db, topts);
  llvm::Expected<TuneResult> result = tuner.run(def);
  ASSERT_TRUE(bool(result)) << toString(result.takeError());
  EXPECT_EQ(result->trials, 10);
  llvm::Expected<SmallVector<MeasurementRecord, 0>> records =
      (*db)->measurementsOfRun(result->runId);
  ASSERT_TRUE(bool(records));
  EXPECT_GE(records->size(), 10u);
  if (isCudaDeviceAvailable()) {
    EXPECT_TRUE(result->best.has_value());
  } else {
    EXPECT_FALSE(result->best.has_value());
    for (const MeasurementRecord &r : *records)
      EXPECT_EQ(r.result.status, MeasureStatus::RuntimeError)
          << r.configKey << ": " << r.result.message;
  }
  llvm::sys::fs::remove_directories(dir);
}

/// Measures real variants of the 8x12x16 matmul: the default config and a
/// tiled one run and verify; a malformed config is Invalid.
TEST_F(DriverTest, MeasuresVariantsInAWorker) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildProblemSpace(p);
  ASSERT_TRUE(bool(space));
  CPUMeasureOptions options;
  options.threads = 1;
  options.timing.repeats = 2;
  options.timing.minSampleSeconds = 1e-4;
  options.timeoutSeconds = 60;
  CPUMeasurer measurer(p, options);
  Config def = getDefaultConfig(&ctx, p, *space, 1);
  llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, def);
  ASSERT_TRUE(bool(attr));
  MeasureResult ok = measurer.measure(printAttr(*attr));
  EXPECT_EQ(ok.status, MeasureStatus::Ok) << ok.message;
  EXPECT_GT(ok.time.median, 0.0);
  EXPECT_GT(ok.gflops, 0.0);

  std::mt19937_64 rng(3);
  std::optional<Config> other = space->sampleValid(rng);
  ASSERT_TRUE(other.has_value());
  attr = configToAttr(&ctx, p, *space, *other);
  ASSERT_TRUE(bool(attr));
  MeasureResult ok2 = measurer.measure(printAttr(*attr));
  EXPECT_EQ(ok2.status, MeasureStatus::Ok) << ok2.message;

  MeasureResult bad = measurer.measure("#tiletune.config<cpu, bogus>");
  EXPECT_EQ(bad.status, MeasureStatus::Invalid);
  // A config that parses but does not fit the op (a cache tile of 3 in a
  // parallel tile of 8) is refused by the tiling pass, with its reason.
  MeasureResult misfit = measurer.measure(
      "#tiletune.config<cpu, parallel = {m = 8, n = 12}, "
      "cache = {m = 3, n = 12, k = 16}, register = {m = 3, n = 12}>");
  EXPECT_EQ(misfit.status, MeasureStatus::CompileError);
  EXPECT_NE(misfit.message.find("lowering failed"), std::string::npos)
      << misfit.message;
  EXPECT_NE(misfit.message.find("does not divide"), std::string::npos)
      << misfit.message;
  // One worker served every request.
  EXPECT_EQ(measurer.getNumWorkerStarts(), 1u);
  // Timed alone: no ratio.
  EXPECT_EQ(ok.relative, 0.0);
  EXPECT_EQ(ok.referenceSeconds, 0.0);
}

/// Weights as in the model: the weight argument is timed through copies
/// (paired and alone), the variant is verified on the original, and a
/// weight index that is not an input fails the measurement with the reason.
TEST_F(DriverTest, WeightCopiesAreTimedInTurn) {
  EXPECT_EQ(getWeightCopies(1000, 0), 1u);
  EXPECT_EQ(getWeightCopies(0, 1000), 1u);
  EXPECT_EQ(getWeightCopies(1000, 1000), 1u);
  EXPECT_EQ(getWeightCopies(1000, 1001), 2u);
  EXPECT_EQ(getWeightCopies(1000, 4000), 4u);
  EXPECT_EQ(getWeightCopies(1, 1u << 20), kMaxWeightCopies);

  Sampled s;
  sampleFirstProblem(5, 1, s);
  CPUMeasureOptions options = quickOptions(3);
  options.weightArguments = {1};
  options.weightsFootprintBytes = 1 << 20; // B (768 bytes): 256 copies.
  llvm::Expected<TileConfigAttr> def =
      configToAttr(&ctx, s.problem, *s.space, s.def);
  ASSERT_TRUE(bool(def));
  options.referenceConfig = printAttr(*def);
  CPUMeasurer measurer(s.problem, options);
  for (const Config &config : s.batch) {
    llvm::Expected<TileConfigAttr> attr =
        configToAttr(&ctx, s.problem, *s.space, config);
    ASSERT_TRUE(bool(attr));
    MeasureResult paired = measurer.measure(printAttr(*attr));
    EXPECT_EQ(paired.status, MeasureStatus::Ok) << paired.message;
    EXPECT_GT(paired.relative, 0.0);
    MeasureResult alone =
        measurer.measure(printAttr(*attr), 0, 0, /*alone=*/true);
    EXPECT_EQ(alone.status, MeasureStatus::Ok) << alone.message;
    EXPECT_GT(alone.time.median, 0.0);
  }

  CPUMeasureOptions bad = quickOptions();
  bad.weightArguments = {2}; // the output
  bad.weightsFootprintBytes = 1 << 20;
  CPUMeasurer badMeasurer(s.problem, bad);
  MeasureResult refused = badMeasurer.measure(printAttr(*def));
  EXPECT_NE(refused.status, MeasureStatus::Ok);
  EXPECT_NE(refused.message.find("weight argument 2 is not an input"),
            std::string::npos)
      << refused.message;
}

/// A config measured again in the same worker reuses its compiled variant
/// (no passes, no codegen), is measured again for real, and the phases of
/// each measurement say where its time went.
TEST_F(DriverTest, RepeatedConfigHitsTheCompileCache) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildProblemSpace(p);
  ASSERT_TRUE(bool(space));
  CPUMeasureOptions options;
  options.threads = 1;
  options.timing.repeats = 2;
  options.timing.minSampleSeconds = 1e-4;
  CPUMeasurer measurer(p, options);
  Config def = getDefaultConfig(&ctx, p, *space, 1);
  llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, def);
  ASSERT_TRUE(bool(attr));
  MeasureResult first = measurer.measure(printAttr(*attr));
  ASSERT_EQ(first.status, MeasureStatus::Ok) << first.message;
  EXPECT_FALSE(first.phases.cacheHit);
  EXPECT_GT(first.phases.passSeconds, 0.0);
  EXPECT_GT(first.phases.codegenSeconds, 0.0);
  EXPECT_GT(first.phases.timingSeconds, 0.0);
  EXPECT_GT(first.phases.compileWaitSeconds, 0.0);
  EXPECT_GT(first.phases.runWaitSeconds, 0.0);
  MeasureResult again = measurer.measure(printAttr(*attr));
  ASSERT_EQ(again.status, MeasureStatus::Ok) << again.message;
  EXPECT_TRUE(again.phases.cacheHit);
  EXPECT_EQ(again.phases.passSeconds, 0.0);
  EXPECT_EQ(again.phases.codegenSeconds, 0.0);
  EXPECT_EQ(again.time.repeats, 2u);
  EXPECT_GT(again.time.median, 0.0);

  // Without a cache it is compiled again.
  options.compileCacheSize = 0;
  CPUMeasurer uncached(p, options);
  EXPECT_FALSE(uncached.measure(printAttr(*attr)).phases.cacheHit);
  MeasureResult rebuilt = uncached.measure(printAttr(*attr));
  EXPECT_FALSE(rebuilt.phases.cacheHit);
  EXPECT_GT(rebuilt.phases.codegenSeconds, 0.0);
}

/// A candidate slower than the early-stop limit is stopped after
/// stopAfterRepeats samples and recorded with those samples, saying so.
TEST_F(DriverTest, SlowCandidateIsStoppedEarlyWithItsSamples) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildProblemSpace(p);
  ASSERT_TRUE(bool(space));
  CPUMeasureOptions options;
  options.threads = 1;
  options.timing.repeats = 10;
  options.timing.stopAfterRepeats = 3;
  options.timing.minSampleSeconds = 1e-4;
  CPUMeasurer measurer(p, options);
  Config def = getDefaultConfig(&ctx, p, *space, 1);
  llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, def);
  ASSERT_TRUE(bool(attr));
  // A limit of 1 ns: every real kernel is "clearly slower".
  MeasureResult stopped = measurer.measure(printAttr(*attr), 0, 0,
                                           /*alone=*/false, EarlyStop{1e-9, 0});
  ASSERT_EQ(stopped.status, MeasureStatus::Ok) << stopped.message;
  EXPECT_TRUE(stopped.time.stoppedEarly);
  EXPECT_EQ(stopped.time.repeats, 3u);
  EXPECT_GT(stopped.time.median, 0.0);
  EXPECT_NE(stopped.message.find("stopped early after 3 of 10 samples"),
            std::string::npos)
      << stopped.message;
  // Under a generous limit it takes all its samples.
  MeasureResult full = measurer.measure(printAttr(*attr), 0, 0,
                                        /*alone=*/false, EarlyStop{10.0, 0});
  ASSERT_EQ(full.status, MeasureStatus::Ok) << full.message;
  EXPECT_FALSE(full.time.stoppedEarly);
  EXPECT_EQ(full.time.repeats, 10u);
  EXPECT_TRUE(full.message.empty()) << full.message;

  // Paired timing stops on the ratio to the reference (through the worker
  // protocol): the default config against itself has a ratio near 1, above
  // a limit of 0.001 and far below one of 100. The stop takes the smallest
  // ratio, so a reference sample stretched by preemption on a loaded machine
  // lowers it: with 1 ms samples a 0.001 ratio would need a reference sample
  // preempted for 2 s (with 0.1 ms samples and a limit of 0.01, 20 ms did,
  // and CI saw it).
  options.referenceConfig = printAttr(*attr);
  options.timing.minSampleSeconds = 1e-3;
  CPUMeasurer paired(p, options);
  MeasureResult byRatio = paired.measure(printAttr(*attr), 0, 0,
                                         /*alone=*/false, EarlyStop{0, 1e-3});
  ASSERT_EQ(byRatio.status, MeasureStatus::Ok) << byRatio.message;
  EXPECT_TRUE(byRatio.time.stoppedEarly)
      << "median ratio " << byRatio.relative << "; " << byRatio.message;
  EXPECT_EQ(byRatio.time.repeats, 3u);
  EXPECT_GT(byRatio.relative, 0.0);
  EXPECT_NE(byRatio.message.find("ratio to the reference"), std::string::npos)
      << byRatio.message;
  MeasureResult notByRatio = paired.measure(
      printAttr(*attr), 0, 0, /*alone=*/false, EarlyStop{0, 100.0});
  ASSERT_EQ(notByRatio.status, MeasureStatus::Ok) << notByRatio.message;
  EXPECT_FALSE(notByRatio.time.stoppedEarly);
  EXPECT_EQ(notByRatio.time.repeats, 10u);
}

/// A matmul with prime sizes: its CPU space factorizes the padded loops, the
/// configs built from its points pad the op, they convert back to the same
/// points, and the padded variants measure Ok (verified) in a worker.
TEST_F(DriverTest, PrimeMatmulsAreTunedAtPaddedSizes) {
  const char *prime = R"mlir(
func.func @p(%a: tensor<131x67xf32>, %b: tensor<67x127xf32>,
             %c: tensor<131x127xf32>) -> tensor<131x127xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<131x67xf32>, tensor<67x127xf32>)
                     outs(%c : tensor<131x127xf32>) -> tensor<131x127xf32>
  return %r : tensor<131x127xf32>
}
)mlir";
  Problem p;
  std::optional<Space> space;
  ASSERT_NO_FATAL_FAILURE(firstCPUProblemOf(prime, p, space));
  auto total = [&](StringRef name) {
    return cast<FactorizationParam>(space->getParameter(*space->lookup(name)))
        .getTotal();
  };
  // m is padded for the rows of the host's two-vector register tiles (136
  // with AVX-512's 8 rows, 144 with AVX2's 6): the padding rule of the
  // spaces, for this host, since the variants below run on it.
  CPUDescription cpu = getDefaultTargetCPU();
  int64_t paddedM =
      getCPUPaddedSize("m", 131, cpu.getLanes(/*elementBytes=*/4),
                       cpu.getRegisterRows(/*vectors=*/2, /*elementBytes=*/4));
  EXPECT_EQ(total("m"), paddedM);
  EXPECT_EQ(total("n"), 128);
  EXPECT_EQ(total("k"), 72);

  Config def = getDefaultConfig(&ctx, p, *space, 1);
  llvm::Expected<TileConfigAttr> attr = configToAttr(&ctx, p, *space, def);
  ASSERT_TRUE(bool(attr)) << toString(attr.takeError());
  EXPECT_NE(printAttr(*attr).find(
                "pad = {k = 72, m = " + std::to_string(paddedM) + ", n = 128}"),
            std::string::npos)
      << printAttr(*attr);
  llvm::Expected<Config> back = attrToConfig(p, *space, *attr);
  ASSERT_TRUE(bool(back)) << toString(back.takeError());
  EXPECT_EQ(space->getKey(*back), space->getKey(def));

  CPUMeasureOptions options;
  options.threads = 1;
  options.timing.repeats = 2;
  options.timing.minSampleSeconds = 1e-4;
  CPUMeasurer measurer(p, options);
  MeasureResult ok = measurer.measure(printAttr(*attr));
  EXPECT_EQ(ok.status, MeasureStatus::Ok) << ok.message;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3; ++i) {
    std::optional<Config> other = space->sampleValid(rng);
    ASSERT_TRUE(other.has_value());
    llvm::Expected<TileConfigAttr> otherAttr =
        configToAttr(&ctx, p, *space, *other);
    ASSERT_TRUE(bool(otherAttr)) << toString(otherAttr.takeError());
    MeasureResult r = measurer.measure(printAttr(*otherAttr));
    EXPECT_EQ(r.status, MeasureStatus::Ok)
        << printAttr(*otherAttr) << ": " << r.message;
  }
}

/// A default config naming a conv compute (`compute = im2col_X`, the
/// default of a 1x1 NCHW conv per image) is the space point with `im2col`
/// and that compute's `pack`: the tuner starts from it.
TEST_F(DriverTest, ConvComputeDefaultIsASpacePoint) {
  // An AVX-512 config (8 x 16 x 2 would not fit AVX2's registers); nothing
  // here runs.
  DefaultTargetCPUScope target;
  ASSERT_FALSE(llvm::errorToBool(target.use("znver4", "")));
  const char *conv = R"mlir(
func.func @c(%i: tensor<2x64x16x16xf32>, %f: tensor<64x64x1x1xf32>,
             %o: tensor<2x64x16x16xf32>) -> tensor<2x64x16x16xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<2x64x16x16xf32>, tensor<64x64x1x1xf32>)
    outs(%o : tensor<2x64x16x16xf32>) -> tensor<2x64x16x16xf32>
  return %0 : tensor<2x64x16x16xf32>
}
)mlir";
  Problem p;
  std::optional<Space> space;
  ASSERT_NO_FATAL_FAILURE(firstCPUProblemOf(conv, p, space));
  auto attr = llvm::cast<TileConfigAttr>(parseAttribute(
      "#tiletune.config<cpu, parallel = {f = 64, n = 2, oh = 16, ow = 16}, "
      "cache = {c = 64, f = 64, kh = 1, kw = 1, oh = 16, ow = 16}, "
      "register = {f = 8, oh = 16, ow = 2}, compute = im2col_rpmmv, "
      "order = [oh, ow, c, kh, kw, f], unroll = 4, vectorize = true>",
      &ctx));
  llvm::Expected<Config> point = attrToConfig(p, *space, attr);
  ASSERT_TRUE(bool(point)) << toString(point.takeError());
  std::string key = space->getKey(*point);
  EXPECT_NE(key.find("im2col=true"), std::string::npos) << key;
  EXPECT_NE(key.find("pack=b;"), std::string::npos) << key;
  std::string why;
  EXPECT_TRUE(space->isValid(*point, &why)) << why;
  // The space's own default config is found as it is.
  std::string log;
  llvm::raw_string_ostream os(log);
  Config def = getDefaultConfig(&ctx, p, *space, 1, &os);
  EXPECT_EQ(log.find("is not in the tuning space"), std::string::npos) << log;
  EXPECT_NE(space->getKey(def).find("im2col=true"), std::string::npos);
}

/// The default of a batch-1 small-map 1x1 NCHW conv (the GEMM through NHWC
/// with RPMMV since 2026-12-02, DNMM332 before, whose cache tile had to be
/// kept within the L2) is a point of the tuning space: the tuner starts
/// from it, not from the untiled config.
TEST_F(DriverTest, SmallMapNchwConvDefaultIsASpacePoint) {
  const char *conv = R"mlir(
func.func @c(%i: tensor<1x512x7x7xf32>, %f: tensor<2048x512x1x1xf32>,
             %o: tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>)
    outs(%o : tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32>
  return %0 : tensor<1x2048x7x7xf32>
}
)mlir";
  Problem p;
  std::optional<Space> space;
  ASSERT_NO_FATAL_FAILURE(firstCPUProblemOf(conv, p, space));
  std::string log;
  llvm::raw_string_ostream os(log);
  Config def = getDefaultConfig(&ctx, p, *space, 1, &os);
  EXPECT_EQ(log.find("is not in the tuning space"), std::string::npos) << log;
  std::string key = space->getKey(def);
  EXPECT_NE(key.find("pack=b;"), std::string::npos) << key;
  EXPECT_NE(key.find("im2col=true"), std::string::npos) << key;
}

/// Paired timing: with the default config as the reference, every Ok result
/// carries the ratio to it beside its measured times, which the problem
/// measurer never rescales. A reference that does not build leaves the
/// variants timed alone, saying why.
TEST_F(DriverTest, PairedTimingRanksByTheRatioToTheReference) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  const Problem &p = set->problems[0];
  llvm::Expected<Space> space = buildProblemSpace(p);
  ASSERT_TRUE(bool(space));
  Config def = getDefaultConfig(&ctx, p, *space, 1);
  llvm::Expected<TileConfigAttr> defAttr = configToAttr(&ctx, p, *space, def);
  ASSERT_TRUE(bool(defAttr));
  std::mt19937_64 rng(5);
  std::optional<Config> other = space->sampleValid(rng);
  ASSERT_TRUE(other.has_value());

  CPUMeasureOptions options;
  options.threads = 1;
  options.timing.repeats = 5;
  options.timing.minSampleSeconds = 1e-4;
  options.referenceConfig = printAttr(*defAttr);

  // The worker alone: raw times plus the ratio. The reference against
  // itself is close to 1 (same code, samples interleaved).
  CPUMeasurer worker(p, options);
  MeasureResult self = worker.measure(options.referenceConfig);
  ASSERT_EQ(self.status, MeasureStatus::Ok) << self.message;
  EXPECT_GT(self.referenceSeconds, 0.0);
  EXPECT_GT(self.relative, 0.5);
  EXPECT_LT(self.relative, 2.0);

  // The problem measurer reports what was measured: never rescaled by the
  // reference's speed (the ratio travels beside the measured times).
  CPUProblemMeasurer measurer(&ctx, p, *space, options);
  SmallVector<MeasureResult> results;
  MeasureRequest request;
  llvm::Error err = measurer.measure(
      {def, *other}, request, [&](size_t, const MeasureResult &r) {
        results.push_back(r);
        return true;
      });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  ASSERT_EQ(results.size(), 2u);
  for (const MeasureResult &r : results) {
    ASSERT_EQ(r.status, MeasureStatus::Ok) << r.message;
    EXPECT_GT(r.relative, 0.0);
    EXPECT_GT(r.referenceSeconds, 0.0);
    // The statistics are the variant's own samples: min <= median <= max.
    EXPECT_LE(r.time.min, r.time.median);
    EXPECT_LE(r.time.median, r.time.max);
    EXPECT_NEAR(r.gflops, p.getFlops() / r.time.median * 1e-9,
                1e-9 * r.gflops);
  }
  // The second variant's time is its own, not the ratio times the first
  // result's reference time (what version 2 recorded).
  EXPECT_NE(results[1].time.median,
            results[1].relative * results[0].referenceSeconds);

  // A reference that does not build: timed alone, with the reason.
  options.referenceConfig = "#tiletune.config<cpu, bogus>";
  CPUMeasurer broken(p, options);
  MeasureResult alone = broken.measure(printAttr(*defAttr));
  ASSERT_EQ(alone.status, MeasureStatus::Ok) << alone.message;
  EXPECT_EQ(alone.relative, 0.0);
  EXPECT_NE(alone.message.find("timed alone: the reference config of paired "
                               "timing failed (invalid)"),
            std::string::npos)
      << alone.message;
  // It is tried once, not again for every variant.
  MeasureResult again = broken.measure(printAttr(*defAttr));
  ASSERT_EQ(again.status, MeasureStatus::Ok) << again.message;
  EXPECT_EQ(again.relative, 0.0);
  EXPECT_EQ(broken.getNumWorkerStarts(), 1u);
}

/// Paired timing with a reference whose build kills the worker (as a
/// compiler out-of-memory does; here its time limit kills it): the
/// reference is built apart from the candidates, once, so the candidates
/// are not failed with it: they are measured, timed alone, saying why. A
/// candidate that crashes its worker does not make later ones fail either.
/// (Before, every worker built the reference while setting up for its first
/// candidate, so a reference that killed the worker failed every candidate
/// as a compile error "during setup".)
TEST_F(DriverTest, PairedTimingSurvivesAReferenceThatKillsTheWorker) {
  Sampled sampled;
  ASSERT_NO_FATAL_FAILURE(sampleFirstProblem(9, 3, sampled));
  const Problem &p = sampled.problem;
  const Space *space = &*sampled.space;
  const SmallVector<Config> &batch = sampled.batch;
  llvm::Expected<TileConfigAttr> defAttr =
      configToAttr(&ctx, p, *space, sampled.def);
  ASSERT_TRUE(bool(defAttr));

  CPUMeasureOptions options = quickOptions();
  options.referenceConfig = printAttr(*defAttr);
  // No build of the reference finishes in a microsecond: the worker building
  // it is killed.
  options.referenceTimeoutSeconds = 1e-6;

  CPUMeasurer worker(p, options);
  for (int i = 0; i < 3; ++i) {
    MeasureResult r = worker.measure(printAttr(*defAttr));
    ASSERT_EQ(r.status, MeasureStatus::Ok) << r.message;
    EXPECT_EQ(r.relative, 0.0);
    EXPECT_NE(r.message.find("timed alone: the reference config of paired "
                             "timing failed (timeout): worker timed out"),
              std::string::npos)
        << r.message;
  }
  // The worker killed while building the reference, and one that measured
  // all three candidates: the reference was not built again.
  EXPECT_EQ(worker.getNumWorkerStarts(), 2u);
  EXPECT_NE(worker.getReferenceError().find("(timeout)"), std::string::npos)
      << worker.getReferenceError();

  // The tuner's measurer, one worker and two pipelined ones: every
  // candidate measured.
  for (bool overlap : {false, true}) {
    CPUProblemMeasurer measurer(&ctx, p, *space, options, overlap);
    SmallVector<MeasureResult> results(batch.size());
    llvm::Error err = measurer.measure(
        batch, MeasureRequest(), [&](size_t i, const MeasureResult &r) {
          results[i] = r;
          return true;
        });
    ASSERT_FALSE(bool(err)) << toString(std::move(err));
    for (const MeasureResult &r : results) {
      EXPECT_EQ(r.status, MeasureStatus::Ok) << overlap << ": " << r.message;
      EXPECT_NE(r.message.find("timed alone"), std::string::npos) << r.message;
    }
  }

  // A working reference is built once per worker, again only in a worker
  // restarted after a candidate killed the previous one.
  options.referenceTimeoutSeconds = 0;
  CPUMeasurer paired(p, options);
  MeasureResult first = paired.measure(printAttr(*defAttr));
  ASSERT_EQ(first.status, MeasureStatus::Ok) << first.message;
  EXPECT_GT(first.relative, 0.0);
  MeasureResult killed = paired.measure(printAttr(*defAttr), 60, 1e-6);
  EXPECT_EQ(killed.status, MeasureStatus::Timeout) << killed.message;
  MeasureResult after = paired.measure(printAttr(*defAttr));
  ASSERT_EQ(after.status, MeasureStatus::Ok) << after.message;
  EXPECT_GT(after.relative, 0.0);
  EXPECT_TRUE(paired.getReferenceError().empty());
  EXPECT_EQ(paired.getNumWorkerStarts(), 2u);
}

#ifdef __linux__
/// SIGKILLs every child process of this process (the measurers' workers);
/// returns how many.
static int killChildProcesses() {
  int killed = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it("/proc", ec), end;
       !ec && it != end; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    int pid = 0;
    if (name.getAsInteger(10, pid))
      continue;
    std::ifstream stat(it->path() + "/stat");
    std::string line;
    std::getline(stat, line);
    // pid (comm) state ppid ...: the comm may hold spaces and parentheses.
    size_t close = line.rfind(')');
    if (close == std::string::npos)
      continue;
    int ppid = 0;
    char state = 0;
    if (sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 &&
        ppid == getpid() && ::kill(pid, SIGKILL) == 0)
      ++killed;
  }
  return killed;
}

/// Workers killed in the middle of a pipelined batch (as an out-of-memory
/// kill would), one while it compiles, the other between two requests: the
/// candidate in flight fails, the workers are restarted for the later ones,
/// and the next batches are measured whole. (A worker restarted from a
/// thread that ends with the batch would be killed with it by
/// PR_SET_PDEATHSIG, failing the next batch's first call to it; one that
/// died between requests failed the next request.)
TEST_F(DriverTest, PipelinedWorkersKilledMidBatchAreRestartedForGood) {
  Sampled sampled;
  ASSERT_NO_FATAL_FAILURE(sampleFirstProblem(23, 5, sampled));
  const SmallVector<Config> &batch = sampled.batch;
  CPUMeasureOptions options = quickOptions();
  CPUProblemMeasurer measurer(&ctx, sampled.problem, *sampled.space, options,
                              /*overlap=*/true);
  SmallVector<MeasureResult> results(batch.size());
  llvm::Error err = measurer.measure(
      batch, MeasureRequest(), [&](size_t i, const MeasureResult &r) {
        results[i] = r;
        if (i == 0) {
          EXPECT_GE(killChildProcesses(), 1);
          // Let them die before the next request.
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
        return true;
      });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_EQ(results[0].status, MeasureStatus::Ok) << results[0].message;
  for (size_t i = 2; i < batch.size(); ++i)
    EXPECT_EQ(results[i].status, MeasureStatus::Ok)
        << i << ": " << results[i].message;
  for (int round = 0; round < 2; ++round) {
    err = measurer.measure(batch, MeasureRequest(),
                           [&](size_t i, const MeasureResult &r) {
                             EXPECT_EQ(r.status, MeasureStatus::Ok)
                                 << round << ", " << i << ": " << r.message;
                             return true;
                           });
    ASSERT_FALSE(bool(err)) << toString(std::move(err));
  }
}
#endif

/// The two pipelined workers of the tuner's measurer compile at once and
/// take turns timing: the results still reach the sink once each, in
/// candidate order, all measured; a sink that says stop gets no further
/// result, and the workers are in a state to measure the next batch.
TEST_F(DriverTest, PipelinedWorkersReportInOrderAndStopWhenTold) {
  Sampled sampled;
  ASSERT_NO_FATAL_FAILURE(sampleFirstProblem(17, 6, sampled));
  const SmallVector<Config> &batch = sampled.batch;
  CPUMeasureOptions options = quickOptions();
  int compileCPU = -1, timingCPU = -1;
  pickPinnedCPUs(1, compileCPU, timingCPU);
  options.compileCPU = compileCPU;
  options.timingCPU = timingCPU;
  CPUProblemMeasurer measurer(&ctx, sampled.problem, *sampled.space, options,
                              /*overlap=*/true);

  std::vector<size_t> order;
  llvm::Error err = measurer.measure(
      batch, MeasureRequest(), [&](size_t i, const MeasureResult &r) {
        EXPECT_EQ(r.status, MeasureStatus::Ok) << i << ": " << r.message;
        EXPECT_GT(r.time.median, 0.0) << i;
        order.push_back(i);
        return true;
      });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  std::vector<size_t> expected(batch.size());
  for (size_t i = 0; i < expected.size(); ++i)
    expected[i] = i;
  EXPECT_EQ(order, expected);

  // Stop after the third result: nothing more arrives.
  order.clear();
  err = measurer.measure(batch, MeasureRequest(),
                         [&](size_t i, const MeasureResult &) {
                           order.push_back(i);
                           return i < 2;
                         });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));

  // Candidates whose compile is killed (a time limit no compile meets):
  // each is a timeout, and the workers restarted for the later ones still
  // measure the next batch (a worker forked by a thread that ends with the
  // batch would be killed with it, failing the next batch's first call).
  MeasureRequest tooShort;
  tooShort.compileTimeoutSeconds = 1e-6;
  order.clear();
  err = measurer.measure(llvm::ArrayRef(batch).take_front(4), tooShort,
                         [&](size_t i, const MeasureResult &r) {
                           EXPECT_EQ(r.status, MeasureStatus::Timeout)
                               << i << ": " << r.message;
                           order.push_back(i);
                           return true;
                         });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));

  // And the next batch is measured whole.
  order.clear();
  err = measurer.measure(llvm::ArrayRef(batch).take_front(3), MeasureRequest(),
                         [&](size_t i, const MeasureResult &r) {
                           EXPECT_EQ(r.status, MeasureStatus::Ok) << r.message;
                           order.push_back(i);
                           return true;
                         });
  ASSERT_FALSE(bool(err)) << toString(std::move(err));
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));
}

// Two versions of a model measured in alternation: every sample of both
// (the reference one more: before each subject sample and after the last)
// and a ratio per subject sample.
TEST_F(DriverTest, ModelsAreMeasuredInAlternation) {
  const char *text = R"mlir(
func.func @m(%a: tensor<24x40xf32>, %b: tensor<40x32xf32>,
             %c: tensor<24x32xf32>) -> tensor<24x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x40xf32>, tensor<40x32xf32>)
                     outs(%c : tensor<24x32xf32>) -> tensor<24x32xf32>
  return %r : tensor<24x32xf32>
}
)mlir";
  OwningOpRef<ModuleOp> untuned = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(untuned);
  OwningOpRef<ModuleOp> tuned = untuned->clone();
  TuneOptions options;
  options.threads = 1;
  options.timing.repeats = 4;
  options.timing.minSampleSeconds = 1e-4;
  // Early stops of the options do not cut the pair short.
  options.timing.stopAboveSeconds = 1e-9;
  options.timing.stopAfterRepeats = 1;
  llvm::Expected<PairedTimeStats> paired =
      measureModelsPaired(*tuned, *untuned, options);
  ASSERT_TRUE(bool(paired)) << toString(paired.takeError());
  EXPECT_EQ(paired->subject.repeats, 4u);
  EXPECT_EQ(paired->reference.repeats, 5u);
  EXPECT_EQ(paired->ratio.repeats, 4u);
  EXPECT_GT(paired->subject.median, 0);
  EXPECT_GT(paired->reference.median, 0);
  EXPECT_GT(paired->ratio.median, 0);

  // A reference that cannot be run (two public functions: no entry) fails
  // the pair, rather than timing the subject alone.
  llvm::Expected<PairedTimeStats> failed =
      measureModelsPaired(*tuned, *module, options);
  ASSERT_FALSE(bool(failed));
  EXPECT_NE(toString(failed.takeError()).find("2 public functions"),
            std::string::npos);
}

} // namespace
