//===- GPUTest.cpp - Tests of the GPU plan, lowering, ptxas and measurer --===//
//
// Everything here runs without a GPU; parts that need ptxas skip when it is
// not installed, parts that need a device skip when there is none.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPULowering.h"
#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/GPU/PTXAS.h"
#include "tiletune/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "gtest/gtest.h"

#include <thread>
#include <vector>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

constexpr const char *kMatmul = R"mlir(
func.func @matmul(%A: memref<512x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<512x1024xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<512x1024xf32>, memref<1024x1024xf32>) outs(%C : memref<512x1024xf32>)
  return
}
)mlir";

class GPUTest : public ::testing::Test {
protected:
  GPUTest() { initializeContext(context); }

  OwningOpRef<ModuleOp> parse(const char *source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  Operation *firstMatmul(ModuleOp module) {
    Operation *found = nullptr;
    module.walk([&](linalg::MatmulOp op) { found = op; });
    return found;
  }

  TileConfigAttr parseConfig(const char *text) {
    return dyn_cast_or_null<TileConfigAttr>(parseAttribute(text, &context));
  }

  MLIRContext context;
};

TEST_F(GPUTest, PlanOfOpEvoMatmulTemplate) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  std::string reason;
  FailureOr<GPUKernelPlan> plan = planGPUKernel(firstMatmul(*module), &reason);
  ASSERT_TRUE(succeeded(plan)) << reason;
  // n is the innermost loop: x. 1024/64 = 16 blocks in x, 512/64 = 8 in y.
  EXPECT_EQ(plan->gridDims, (std::array<int64_t, 3>{16, 8, 1}));
  EXPECT_EQ(plan->blockDims, (std::array<int64_t, 3>{16, 16, 1}));
  EXPECT_EQ(plan->threadsPerBlock, 256);
  EXPECT_EQ(plan->numBlocks, 128);
  // A tile 64x16 and B tile 16x64 of f32.
  EXPECT_EQ(plan->sharedBytes, 2 * 64 * 16 * 4);
  ASSERT_EQ(plan->sharedTiles.size(), 2u);
  EXPECT_EQ(plan->sharedTiles[0].copyTile, (SmallVector<int64_t>{1, 4}));
  // 2x2 vthreads of a 2x2 register tile.
  EXPECT_EQ(plan->outputsPerThread, 16);
  EXPECT_TRUE(succeeded(checkGPULimits(*plan)));
}

TEST_F(GPUTest, LimitsRejectTooManyThreadsAndSharedMemory) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  Operation *op = firstMatmul(*module);
  setConfig(op, parseConfig(
                    "#tiletune.config<cuda, block = {m = 128, n = 128}, "
                    "vthread = {m = 64, n = 64}, thread = {m = 1, n = 2}, "
                    "shared = {k = 64}, register = {k = 4}>"));
  std::string reason;
  FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
  ASSERT_TRUE(succeeded(plan)) << reason;
  EXPECT_TRUE(failed(checkGPULimits(*plan, GPULimits(), &reason)));
  EXPECT_NE(reason.find("threads per block"), std::string::npos) << reason;
  GPULimits roomy;
  roomy.maxThreadsPerBlock = 4096;
  roomy.maxBlockDims = {4096, 4096, 64};
  EXPECT_TRUE(failed(checkGPULimits(*plan, roomy, &reason)));
  EXPECT_NE(reason.find("shared memory"), std::string::npos) << reason;
}

TEST_F(GPUTest, CpuConfigIsNotAGPUPlan) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  Operation *op = firstMatmul(*module);
  setConfig(op, parseConfig("#tiletune.config<cpu, parallel = {m = 512, n = "
                            "1024}, cache = {m = 64, n = 64, k = 64}, "
                            "register = {m = 8, n = 32}>"));
  std::string reason;
  EXPECT_TRUE(failed(planGPUKernel(op, &reason)));
  EXPECT_NE(reason.find("not 'cuda'"), std::string::npos) << reason;
}

TEST(GPULoweringOptionsTest, RejectsTargetsThatWouldAbortLLVM) {
  GPULoweringOptions options;
  std::string reason;
  EXPECT_TRUE(succeeded(validateGPULoweringOptions(options, &reason)));
  options.features = "+ptx60";
  EXPECT_TRUE(failed(validateGPULoweringOptions(options, &reason)));
  EXPECT_NE(reason.find("does not support sm_90"), std::string::npos);
  options.features = "";
  options.chip = "sm_12";
  EXPECT_TRUE(failed(validateGPULoweringOptions(options, &reason)));
  options.chip = "sm_80";
  options.format = "exe";
  EXPECT_TRUE(failed(validateGPULoweringOptions(options, &reason)));
}

TEST(PtxasTest, ParsesTheResourceReport) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'matmul_kernel' for 'sm_90'\n"
      "ptxas info    : Function properties for matmul_kernel\n"
      "    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 63 registers, used 1 barriers, 8192 bytes smem, "
      "380 bytes cmem[0]\n"
      "ptxas info    : Compile time = 82.037 ms\n";
  llvm::Expected<PtxasReport> report = parsePtxasOutput(log);
  ASSERT_TRUE(static_cast<bool>(report)) << llvm::toString(report.takeError());
  EXPECT_EQ(report->arch, "sm_90");
  ASSERT_EQ(report->kernels.size(), 1u);
  const KernelResources &k = report->kernels.front();
  EXPECT_EQ(k.name, "matmul_kernel");
  EXPECT_EQ(k.registers, 63);
  EXPECT_EQ(k.barriers, 1);
  EXPECT_EQ(k.sharedBytes, 8192);
  EXPECT_EQ(k.stackFrameBytes, 16);
  EXPECT_EQ(k.spillStoreBytes, 12);
  EXPECT_EQ(k.spillLoadBytes, 8);

  llvm::Expected<PtxasReport> none = parsePtxasOutput("garbage\n");
  EXPECT_FALSE(static_cast<bool>(none));
  llvm::consumeError(none.takeError());
}

TEST(PtxasTest, LegalityAndOccupancy) {
  KernelResources k;
  k.registers = 64;
  k.sharedBytes = 8192;
  SMResources sm90 = SMResources::forChip("sm_90");
  ResourceVerdict verdict = checkResources(k, 256, sm90);
  EXPECT_TRUE(verdict.legal) << verdict.reason;
  // 64 regs x 256 threads = 16384 per block -> 4 blocks; threads: 8 blocks.
  EXPECT_EQ(verdict.blocksPerSM, 4);
  EXPECT_DOUBLE_EQ(verdict.occupancy, 0.5);

  k.spillStoreBytes = 4;
  EXPECT_FALSE(checkResources(k, 256, sm90).legal);
  k.spillStoreBytes = 0;
  k.registers = 255;
  // 255 regs round to 256 per thread: 1024 threads need 262144 registers.
  EXPECT_FALSE(checkResources(k, 1024, sm90).legal);
  k.registers = 32;
  k.sharedBytes = 64 * 1024;
  EXPECT_FALSE(checkResources(k, 128, sm90).legal);
}

TEST_F(GPUTest, CompilesToPTXAndAssemblesWithPtxas) {
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  GPUMeasureOptions options;
  llvm::Expected<GPUCompiledKernel> compiled =
      compileForGPU(*module, "matmul", nullptr, options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  ASSERT_EQ(compiled->ptx.size(), 1u);
  EXPECT_NE(compiled->ptx[0].find(".target sm_90"), std::string::npos);
  EXPECT_NE(compiled->ptx[0].find("fma.rn.f32"), std::string::npos);
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  ASSERT_TRUE(compiled->ptxas.has_value());
  ASSERT_EQ(compiled->ptxas->kernels.size(), 1u);
  const KernelResources &k = compiled->ptxas->kernels.front();
  EXPECT_EQ(k.sharedBytes, 8192);
  EXPECT_GT(k.registers, 0);
  EXPECT_LE(k.registers, 255);
  EXPECT_TRUE(compiled->verdict.legal) << compiled->verdict.reason;
  EXPECT_GT(compiled->verdict.occupancy, 0.0);

  // Assembling garbage fails with ptxas' log in the error.
  llvm::Expected<PtxasReport> bad = runPtxas("this is not ptx", "sm_90");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("ptxas failed"),
            std::string::npos);
}

TEST_F(GPUTest, CompileOnlyRankingPutsIllegalConfigsLast) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  SmallVector<TileConfigAttr> configs = {
      // 4096 threads per block: rejected before ptxas.
      parseConfig("#tiletune.config<cuda, block = {m = 64, n = 64}, vthread "
                  "= {m = 64, n = 64}, thread = {m = 1, n = 1}, shared = {k "
                  "= 16}, register = {k = 4}>"),
      parseConfig("#tiletune.config<cuda, block = {m = 64, n = 64}, vthread "
                  "= {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k "
                  "= 16}, register = {k = 4}>"),
      parseConfig("#tiletune.config<cuda, block = {m = 32, n = 64}, vthread "
                  "= {m = 32, n = 64}, thread = {m = 4, n = 4}, shared = {k "
                  "= 8}, register = {k = 2}>"),
  };
  for (TileConfigAttr config : configs)
    ASSERT_TRUE(config);
  llvm::Expected<SmallVector<CompileOnlyScore>> ranked =
      rankConfigsCompileOnly(*module, "matmul", configs);
  ASSERT_TRUE(static_cast<bool>(ranked)) << llvm::toString(ranked.takeError());
  ASSERT_EQ(ranked->size(), 3u);
  EXPECT_TRUE((*ranked)[0].legal) << (*ranked)[0].reason;
  EXPECT_TRUE((*ranked)[1].legal) << (*ranked)[1].reason;
  EXPECT_FALSE((*ranked)[2].legal);
  EXPECT_EQ((*ranked)[2].config, configs[0]);
  EXPECT_GE((*ranked)[0].occupancy, (*ranked)[1].occupancy);
}

TEST_F(GPUTest, MeasurementWithoutAGPUIsAClearRuntimeError) {
  std::string reason;
  if (isCudaDeviceAvailable(&reason))
    GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(reason.empty());
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  MeasureResult result = measureOnGPU(*module, "matmul", nullptr);
  EXPECT_EQ(result.status, MeasureStatus::RuntimeError);
  EXPECT_NE(result.message.find("CUDA"), std::string::npos) << result.message;
}

TEST_F(GPUTest, MeasuresAndVerifiesOnAGPU) {
  std::string reason;
  if (!isCudaDeviceAvailable(&reason))
    GTEST_SKIP() << reason;
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  GPUMeasureOptions options;
  options.timing.repeats = 5;
  MeasureResult result = measureOnGPU(*module, "matmul", nullptr, options);
  ASSERT_EQ(result.status, MeasureStatus::Ok) << result.message;
  EXPECT_GT(result.time.median, 0.0);
  EXPECT_EQ(result.time.repeats, 5u);
  EXPECT_GT(result.gflops, 0.0);
}

/// Configs of kMatmul's op for the concurrency tests (all legal).
constexpr const char *kThreadConfigs[] = {
    "#tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = "
    "32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>",
    "#tiletune.config<cuda, block = {m = 128, n = 64}, vthread = {m = 64, n = "
    "32}, thread = {m = 2, n = 2}, shared = {k = 8}, register = {k = 2}>",
    "#tiletune.config<cuda, block = {m = 64, n = 128}, vthread = {m = 32, n = "
    "32}, thread = {m = 2, n = 4}, shared = {k = 8}, register = {k = 8}>",
    "#tiletune.config<cuda, block = {m = 32, n = 64}, vthread = {m = 16, n = "
    "16}, thread = {m = 2, n = 4}, shared = {k = 32}, register = {k = 4}>",
};

/// Prepares every config of kThreadConfigs on its own thread with its own
/// context, as the tuner's compile workers do.
std::vector<GPUPreparedVariant>
prepareConcurrently(std::vector<std::unique_ptr<MLIRContext>> &contexts,
                    const GPUMeasureOptions &options) {
  std::vector<GPUPreparedVariant> prepared(std::size(kThreadConfigs));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < prepared.size(); ++i) {
    contexts.push_back(
        std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED));
    initializeContext(*contexts.back());
  }
  for (size_t i = 0; i < prepared.size(); ++i)
    threads.emplace_back([&, i] {
      MLIRContext &ctx = *contexts[i];
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kMatmul, &ctx);
      auto config =
          dyn_cast_or_null<TileConfigAttr>(parseAttribute(kThreadConfigs[i], &ctx));
      if (!module || !config)
        return;
      prepared[i] = prepareGPUVariant(*module, "matmul", config, options);
    });
  for (std::thread &t : threads)
    t.join();
  return prepared;
}

TEST(GPUPrepareTest, VariantsPrepareConcurrentlyInTheirOwnContexts) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  if (getCudaRuntimeLibraryPath().empty())
    GTEST_SKIP() << "built without the CUDA runtime library";
  GPUMeasureOptions options;
  std::vector<std::unique_ptr<MLIRContext>> contexts;
  std::vector<GPUPreparedVariant> prepared =
      prepareConcurrently(contexts, options);
  for (auto [i, p] : llvm::enumerate(prepared)) {
    SCOPED_TRACE(kThreadConfigs[i]);
    ASSERT_FALSE(p.failure.has_value()) << p.failure->message;
    ASSERT_TRUE(p.ptxas.has_value());
    EXPECT_TRUE(p.verdict.legal);
    EXPECT_GT(p.plan.threadsPerBlock, 1);
    ASSERT_TRUE(p.engine && p.kernel);
    EXPECT_EQ(p.kernel->getSignature().args.size(), 3u);
    EXPECT_GT(p.prepareSeconds, 0.0);
    // Without a device, running says so; with one, the variant is correct.
    MeasureResult result = runPreparedGPUVariant(p, options);
    if (isCudaDeviceAvailable())
      EXPECT_EQ(result.status, MeasureStatus::Ok) << result.message;
    else
      EXPECT_EQ(result.status, MeasureStatus::RuntimeError);
  }
}

TEST_F(GPUTest, PtxasCubinReplacesThePTXObject) {
  if (!findPtxas())
    GTEST_SKIP() << "ptxas not installed";
  OwningOpRef<ModuleOp> module = parse(kMatmul);
  ASSERT_TRUE(module);
  GPUMeasureOptions options;
  auto formatOf = [](ModuleOp m) {
    std::optional<gpu::CompilationTarget> format;
    m.walk([&](gpu::BinaryOp b) {
      format = cast<gpu::ObjectAttr>(b.getObjects()[0]).getFormat();
    });
    return format;
  };
  llvm::Expected<GPUCompiledKernel> withCubin =
      compileForGPU(*module, "matmul", nullptr, options);
  ASSERT_TRUE(bool(withCubin)) << toString(withCubin.takeError());
  EXPECT_EQ(formatOf(*withCubin->module), gpu::CompilationTarget::Binary);
  options.loadPtxasCubin = false;
  llvm::Expected<GPUCompiledKernel> withPTX =
      compileForGPU(*module, "matmul", nullptr, options);
  ASSERT_TRUE(bool(withPTX)) << toString(withPTX.takeError());
  EXPECT_EQ(formatOf(*withPTX->module), gpu::CompilationTarget::Assembly);
}

} // namespace
