//===- JITTest.cpp - Tests of lowering, JIT compilation and calls ---------===//
//
// Lowers small kernels with the upstream pipeline, JIT-compiles them and
// checks their results against the C++ references; descriptor marshalling
// across ranks; tensor functions; and the error paths (nothing crashes).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/EpilogueReference.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/Lowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;
using namespace mlir::tiletune;

namespace {

class JITTest : public ::testing::Test {
protected:
  JITTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(llvm::StringRef source) {
    auto module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "cannot parse test input";
    return module;
  }

  /// Parses, prepares and lowers with `pipeline`, then JIT-compiles.
  std::unique_ptr<ExecutionModule>
  compile(llvm::StringRef source,
          llvm::StringRef pipeline = getUntiledLoweringPipeline()) {
    auto module = parse(source);
    if (!module)
      return nullptr;
    llvm::Error err = prepareForExecution(*module);
    EXPECT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
    llvm::Error lowerErr = runPassPipeline(*module, pipeline);
    EXPECT_FALSE(static_cast<bool>(lowerErr))
        << llvm::toString(std::move(lowerErr));
    auto compiled = ExecutionModule::create(*module);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    return compiled ? std::move(*compiled) : nullptr;
  }

  MLIRContext context;
};

constexpr const char *kMatmul = R"mlir(
func.func @matmul(%A: memref<24x40xf32>, %B: memref<40x36xf32>,
                  %C: memref<24x36xf32>) {
  linalg.matmul ins(%A, %B : memref<24x40xf32>, memref<40x36xf32>)
                outs(%C : memref<24x36xf32>)
  return
}
)mlir";

TEST_F(JITTest, MatmulMatchesReference) {
  auto compiled = compile(kMatmul);
  ASSERT_TRUE(compiled);
  EXPECT_FALSE(compiled->getTarget().cpu.empty());
  auto kernel = compiled->getKernel("matmul");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ(kernel->getSignature().args.size(), 3u);
  EXPECT_TRUE(kernel->getSignature().results.empty());

  auto args = kernel->getSignature().allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  for (auto [i, b] : llvm::enumerate(*args))
    b.fillRandom(100 + i);
  Buffer expected = (*args)[2].clone();
  ASSERT_FALSE(static_cast<bool>(
      referenceMatmul((*args)[0], (*args)[1], expected)));
  SmallVector<Buffer *> ptrs = {&(*args)[0], &(*args)[1], &(*args)[2]};
  llvm::Error runErr = kernel->run(ptrs);
  ASSERT_FALSE(static_cast<bool>(runErr)) << llvm::toString(std::move(runErr));
  auto cmp = compareBuffers((*args)[2], expected,
                            Tolerance::forReduction(ElementType::F32, 40));
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(cmp->passed) << cmp->summary();

  // Timing runs the same kernel; the stats are consistent.
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 3;
  auto stats = kernel->time(ptrs, opts);
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->samples.size(), 3u);
  EXPECT_GT(stats->min, 0.0);
  EXPECT_LE(stats->min, stats->max);
}

TEST_F(JITTest, ArgumentsAreChecked) {
  auto compiled = compile(kMatmul);
  ASSERT_TRUE(compiled);
  auto kernel = compiled->getKernel("matmul");
  ASSERT_TRUE(static_cast<bool>(kernel));
  Buffer a = llvm::cantFail(Buffer::create(ElementType::F32, {24, 40}));
  Buffer wrong = llvm::cantFail(Buffer::create(ElementType::F32, {40, 35}));
  Buffer c = llvm::cantFail(Buffer::create(ElementType::F32, {24, 36}));
  llvm::Error err = kernel->run({&a, &wrong, &c});
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("argument #1"),
            std::string::npos);
  llvm::Error countErr = kernel->run({&a, &c});
  EXPECT_TRUE(static_cast<bool>(countErr));
  llvm::consumeError(std::move(countErr));
  auto missing = compiled->getKernel("nope");
  EXPECT_FALSE(static_cast<bool>(missing));
  llvm::consumeError(missing.takeError());
}

// Loads one element of each argument at a fixed multi-index, so a wrong size
// or stride in any descriptor reads a different value.
constexpr const char *kRanks = R"mlir(
func.func @ranks(%a: memref<5xf64>, %b: memref<2x3x4xf64>,
                 %c: memref<2x2x3x2xf64>, %d: memref<1x2x1x3x1x2x2xf64>,
                 %e: memref<f64>, %out: memref<3x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %va = memref.load %a[%c4] : memref<5xf64>
  %vb = memref.load %b[%c1, %c2, %c3] : memref<2x3x4xf64>
  %vc = memref.load %c[%c1, %c0, %c2, %c1] : memref<2x2x3x2xf64>
  %vd = memref.load %d[%c0, %c1, %c0, %c2, %c0, %c1, %c1]
      : memref<1x2x1x3x1x2x2xf64>
  %ve = memref.load %e[] : memref<f64>
  memref.store %va, %out[%c0, %c0] : memref<3x2xf64>
  memref.store %vb, %out[%c0, %c1] : memref<3x2xf64>
  memref.store %vc, %out[%c1, %c0] : memref<3x2xf64>
  memref.store %vd, %out[%c1, %c1] : memref<3x2xf64>
  memref.store %ve, %out[%c2, %c0] : memref<3x2xf64>
  return
}
)mlir";

TEST_F(JITTest, DescriptorsOfRanksZeroToSeven) {
  auto compiled = compile(kRanks);
  ASSERT_TRUE(compiled);
  auto kernel = compiled->getKernel("ranks");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  auto args = kernel->getSignature().allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  // Element value = its linear index + 1000 * argument number.
  for (auto [i, b] : llvm::enumerate(*args))
    for (int64_t j = 0; j < b.getNumElements(); ++j)
      b.setFromDouble(j, 1000.0 * i + j);
  Buffer &out = (*args)[5];
  out.fillConstant(-1);
  SmallVector<Buffer *> ptrs;
  for (Buffer &b : *args)
    ptrs.push_back(&b);
  ASSERT_FALSE(static_cast<bool>(kernel->run(ptrs)));
  const double *o = out.getData<double>();
  EXPECT_EQ(o[0], 4.0);
  EXPECT_EQ(o[1], 1000.0 + (1 * 12 + 2 * 4 + 3));
  EXPECT_EQ(o[2], 2000.0 + (1 * 12 + 0 * 6 + 2 * 2 + 1));
  EXPECT_EQ(o[3], 3000.0 + (1 * 12 + 2 * 4 + 1 * 2 + 1));
  EXPECT_EQ(o[4], 4000.0);
  EXPECT_EQ(o[5], -1.0);
}

constexpr const char *kTensorMatmul = R"mlir(
func.func @tmm(%A: tensor<8x16xf32>, %B: tensor<16x12xf32>,
               %C: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x12xf32>)
                     outs(%C : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %r : tensor<8x12xf32>
}
)mlir";

/// Runs @tmm lowered with `pipeline` and checks its output (in `results` or
/// in the third argument).
void checkTensorMatmul(JITTest *, ExecutionModule &compiled,
                       unsigned expectedArgs, unsigned expectedResults) {
  auto kernel = compiled.getKernel("tmm");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ(kernel->getSignature().args.size(), expectedArgs);
  ASSERT_EQ(kernel->getSignature().results.size(), expectedResults);
  auto args = kernel->getSignature().allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  for (auto [i, b] : llvm::enumerate(*args))
    b.fillRandom(7 + i);
  Buffer expected = (*args)[2].clone();
  ASSERT_FALSE(static_cast<bool>(
      referenceMatmul((*args)[0], (*args)[1], expected)));
  SmallVector<Buffer *> ptrs;
  for (Buffer &b : *args)
    ptrs.push_back(&b);
  SmallVector<Buffer> results;
  llvm::Error err = kernel->run(ptrs, &results);
  ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
  ASSERT_EQ(results.size(), expectedResults);
  const Buffer &actual =
      expectedResults ? results[0] : (*args)[expectedArgs - 1];
  auto cmp = compareBuffers(actual, expected,
                            Tolerance::forReduction(ElementType::F32, 16));
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(cmp->passed) << cmp->summary();
  // Timing a kernel with results releases what it allocates each call.
  TimingOptions opts;
  opts.warmupRuns = 1;
  opts.repeats = 2;
  auto stats = kernel->time(ptrs, opts);
  EXPECT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
}

// Adds 1 to its argument's only element: how often each buffer was called.
constexpr const char *kCount = R"mlir(
func.func @count(%n: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %v = memref.load %n[%c0] : memref<1xf32>
  %s = arith.addf %v, %one : f32
  memref.store %s, %n[%c0] : memref<1xf32>
  return
}
)mlir";

TEST_F(JITTest, RotatingTimingCallsTheSetsInTurn) {
  auto compiled = compile(kCount);
  ASSERT_TRUE(compiled);
  auto kernel = compiled->getKernel("count");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  auto counter = [] {
    Buffer b = llvm::cantFail(Buffer::create(ElementType::F32, {1}));
    b.getData<float>()[0] = 0;
    return b;
  };
  SmallVector<Buffer> counters;
  for (int i = 0; i < 5; ++i)
    counters.push_back(counter());
  auto count = [&](int i) { return counters[i].getData<float>()[0]; };
  // One call per sample: 2 warm-up calls and 3 samples.
  TimingOptions opts;
  opts.warmupRuns = 2;
  opts.repeats = 3;
  opts.minSampleSeconds = 0;
  SmallVector<SmallVector<Buffer *>> sets = {
      {&counters[0]}, {&counters[1]}, {&counters[2]}};
  auto stats = kernel->timeRotating(sets, opts);
  ASSERT_TRUE(static_cast<bool>(stats)) << llvm::toString(stats.takeError());
  // Calls 0..4 take sets 0, 1, 2, 0, 1.
  EXPECT_EQ(count(0), 2.0f);
  EXPECT_EQ(count(1), 2.0f);
  EXPECT_EQ(count(2), 1.0f);

  // Paired: the reference's 6 calls (2 warm-up, 4 samples) alternate its
  // two sets; the subject's 5 go round its three (now from 2, 2, 1).
  SmallVector<SmallVector<Buffer *>> referenceSets = {{&counters[3]},
                                                      {&counters[4]}};
  auto paired = kernel->timePairedRotating(sets, *kernel, referenceSets, opts);
  ASSERT_TRUE(static_cast<bool>(paired)) << llvm::toString(paired.takeError());
  EXPECT_EQ(count(0), 4.0f);
  EXPECT_EQ(count(1), 4.0f);
  EXPECT_EQ(count(2), 2.0f);
  EXPECT_EQ(count(3), 3.0f);
  EXPECT_EQ(count(4), 3.0f);

  // No set is an error, a set of the wrong arguments too.
  auto none = kernel->timeRotating({}, opts);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no argument set"),
            std::string::npos);
  Buffer wrong = llvm::cantFail(Buffer::create(ElementType::F32, {2}));
  SmallVector<SmallVector<Buffer *>> bad = {{&counters[0]}, {&wrong}};
  auto mismatch = kernel->timeRotating(bad, opts);
  EXPECT_FALSE(static_cast<bool>(mismatch));
  llvm::consumeError(mismatch.takeError());
}

TEST_F(JITTest, TensorFunctionReturningItsArgument) {
  // %C is writable: the result is %C's buffer, returned as a memref.
  auto compiled = compile(kTensorMatmul);
  ASSERT_TRUE(compiled);
  checkTensorMatmul(this, *compiled, 3, 1);
}

TEST_F(JITTest, TensorFunctionReturningAllocation) {
  // A read-only %C makes bufferization allocate the result, which the
  // runner copies out and frees.
  std::string source = kTensorMatmul;
  source.replace(source.find("%C: tensor<8x12xf32>"),
                 strlen("%C: tensor<8x12xf32>"),
                 "%C: tensor<8x12xf32> {bufferization.writable = false}");
  auto compiled = compile(source);
  ASSERT_TRUE(compiled);
  checkTensorMatmul(this, *compiled, 3, 1);
}

TEST_F(JITTest, TensorFunctionWithOutParams) {
  // A read-only %C makes bufferization allocate the result; moved into an
  // out-parameter it becomes a trailing fourth argument.
  std::string source = kTensorMatmul;
  source.replace(source.find("%C: tensor<8x12xf32>"),
                 strlen("%C: tensor<8x12xf32>"),
                 "%C: tensor<8x12xf32> {bufferization.writable = false}");
  std::string pipeline = getUntiledLoweringPipeline().str();
  size_t pos = pipeline.find("convert-linalg-to-loops");
  ASSERT_NE(pos, std::string::npos);
  pipeline.insert(pos, "buffer-results-to-out-params{modify-public-functions},");
  auto compiled = compile(source, pipeline);
  ASSERT_TRUE(compiled);
  auto kernel = compiled->getKernel("tmm");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_EQ(kernel->getSignature().args.size(), 4u);
  auto args = kernel->getSignature().allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  for (unsigned i = 0; i < 3; ++i)
    (*args)[i].fillRandom(i);
  Buffer expected = (*args)[2].clone();
  ASSERT_FALSE(static_cast<bool>(
      referenceMatmul((*args)[0], (*args)[1], expected)));
  SmallVector<Buffer *> ptrs;
  for (Buffer &b : *args)
    ptrs.push_back(&b);
  ASSERT_FALSE(static_cast<bool>(kernel->run(ptrs)));
  auto cmp = compareBuffers((*args)[3], expected,
                            Tolerance::forReduction(ElementType::F32, 16));
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(cmp->passed) << cmp->summary();
}

TEST_F(JITTest, UntiledPipelineFreesItsBuffers) {
  // tensor.pad bufferizes to an allocation; the untiled pipeline must free
  // it (it leaked one buffer per call, found by LeakSanitizer).
  auto module = parse(R"mlir(
func.func @padded(%a: tensor<3x5xf32>, %b: tensor<7x2xf32>,
                  %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<3x5xf32> to tensor<4x7xf32>
  %r = linalg.matmul ins(%p, %b : tensor<4x7xf32>, tensor<7x2xf32>)
                     outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  llvm::Error err = prepareForExecution(*module);
  ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
  err = runPassPipeline(*module, getUntiledLoweringPipeline());
  ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
  unsigned mallocs = 0, frees = 0;
  module->walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (callee && (*callee == "malloc" || *callee == "aligned_alloc"))
      ++mallocs;
    if (callee && *callee == "free")
      ++frees;
  });
  EXPECT_GE(mallocs, 1u);
  EXPECT_GE(frees, 1u);

  // And it runs right: the result is the matmul of the padded operand.
  auto compiled = ExecutionModule::create(*module);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  auto kernel = (*compiled)->getKernel("padded");
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  auto args = kernel->getSignature().allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  for (unsigned i = 0; i < args->size(); ++i)
    (*args)[i].fillRandom(i + 1);
  // The kernel may accumulate into %c's buffer: keep the initial values.
  Buffer c = (*args)[2].clone();
  SmallVector<Buffer *> ptrs;
  for (Buffer &b : *args)
    ptrs.push_back(&b);
  SmallVector<Buffer> results;
  ASSERT_FALSE(static_cast<bool>(kernel->run(ptrs, &results)));
  ASSERT_EQ(results.size(), 1u);
  auto at = [](const Buffer &buf, int64_t cols, int64_t i, int64_t j) {
    return reinterpret_cast<const float *>(buf.getRawData())[i * cols + j];
  };
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      float expect = at(c, 2, i, j);
      for (int64_t k = 0; k < 7; ++k) {
        // %p[i][k] = %a[i][k - 1] inside the low/high padding, else 0.
        float p = (i < 3 && k >= 1 && k <= 5) ? at((*args)[0], 5, i, k - 1)
                                              : 0.0f;
        expect += p * at((*args)[1], 2, k, j);
      }
      EXPECT_NEAR(at(results.front(), 2, i, j), expect, 1e-4f)
          << "at " << i << "," << j;
    }
}

TEST_F(JITTest, UnloweredModuleIsAnError) {
  auto module = parse(kMatmul);
  ASSERT_TRUE(module);
  ASSERT_FALSE(static_cast<bool>(prepareForExecution(*module)));
  auto compiled = ExecutionModule::create(*module);
  ASSERT_FALSE(static_cast<bool>(compiled));
  std::string msg = llvm::toString(compiled.takeError());
  EXPECT_NE(msg.find("not lowered"), std::string::npos) << msg;
}

TEST_F(JITTest, UnresolvedSymbolIsAnError) {
  // Calls a function no library defines: compilation succeeds, lookup
  // reports the missing symbol instead of crashing.
  auto module = parse(R"mlir(
    llvm.func @tiletune_no_such_function()
    llvm.func @k() attributes {llvm.emit_c_interface,
                               tiletune_exec.signature = () -> ()} {
      llvm.call @tiletune_no_such_function() : () -> ()
      llvm.return
    }
    llvm.func @_mlir_ciface_k() attributes {llvm.emit_c_interface} {
      llvm.call @k() : () -> ()
      llvm.return
    }
  )mlir");
  ASSERT_TRUE(module);
  auto compiled = ExecutionModule::create(*module);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  auto kernel = (*compiled)->getKernel("k");
  ASSERT_FALSE(static_cast<bool>(kernel));
  std::string msg = llvm::toString(kernel.takeError());
  EXPECT_NE(msg.find("tiletune_no_such_function"), std::string::npos) << msg;
}

TEST_F(JITTest, MissingCInterfaceIsAnError) {
  auto module = parse(kMatmul);
  ASSERT_TRUE(module);
  // Record the signature but do not ask for the C interface.
  ASSERT_FALSE(static_cast<bool>(prepareForExecution(*module)));
  module->walk([](func::FuncOp f) { f->removeAttr(kEmitCInterfaceAttrName); });
  ASSERT_FALSE(static_cast<bool>(
      runPassPipeline(*module, getUntiledLoweringPipeline())));
  auto compiled = ExecutionModule::create(*module);
  ASSERT_TRUE(static_cast<bool>(compiled));
  auto kernel = (*compiled)->getKernel("matmul");
  ASSERT_FALSE(static_cast<bool>(kernel));
  std::string msg = llvm::toString(kernel.takeError());
  EXPECT_NE(msg.find("_mlir_ciface_matmul"), std::string::npos) << msg;
}

TEST_F(JITTest, BadSharedLibraryIsAnError) {
  auto module = parse(kMatmul);
  ASSERT_TRUE(module);
  ASSERT_FALSE(static_cast<bool>(prepareForExecution(*module)));
  ASSERT_FALSE(static_cast<bool>(
      runPassPipeline(*module, getUntiledLoweringPipeline())));
  JITOptions opts;
  opts.sharedLibraries = {"/nonexistent/libnothing.so"};
  auto compiled = ExecutionModule::create(*module, opts);
  ASSERT_FALSE(static_cast<bool>(compiled));
  llvm::consumeError(compiled.takeError());
}

/// --mcpu/--mattr are checked before anything is compiled: an unknown CPU
/// or feature used to end in "LLVM ERROR", a feature the host lacks in
/// SIGILL. FMA4 and XOP (AMD Bulldozer only) are on no CPU this runs on.
TEST_F(JITTest, TargetOptionsAreChecked) {
  auto message = [](JITOptions opts) -> std::string {
    llvm::Error err = checkJITOptions(opts);
    return err ? llvm::toString(std::move(err)) : "";
  };
  EXPECT_EQ(message({}), "");
  JITOptions opts;
  opts.cpu = "bogus";
  EXPECT_NE(message(opts).find("unknown CPU 'bogus'"), std::string::npos);
  opts = {};
  opts.features = "+bogus";
  EXPECT_NE(message(opts).find("unknown CPU feature 'bogus'"),
            std::string::npos);
  opts.features = "avx2";
  EXPECT_NE(message(opts).find("must start with '+' (enable) or '-'"),
            std::string::npos);
  opts.features = "+fma4,+xop";
  std::string missing = message(opts);
  EXPECT_NE(missing.find("lacks fma4"), std::string::npos) << missing;
  EXPECT_NE(missing.find("illegal instruction"), std::string::npos);
  // The host's own CPU, or fewer features, are fine.
  opts = {};
  opts.cpu = getHostTarget().cpu;
  EXPECT_EQ(message(opts), "");
  opts.features = "-avx512f,-evex512";
  EXPECT_EQ(message(opts), "");
  opts = {};
  opts.optLevel = 4;
  EXPECT_NE(message(opts).find("between 0 and 3"), std::string::npos);

  // ExecutionModule::create checks the same before compiling.
  auto module = parse(kMatmul);
  ASSERT_TRUE(module);
  ASSERT_FALSE(static_cast<bool>(prepareForExecution(*module)));
  ASSERT_FALSE(static_cast<bool>(
      runPassPipeline(*module, getUntiledLoweringPipeline())));
  opts = {};
  opts.cpu = "bogus";
  auto compiled = ExecutionModule::create(*module, opts);
  ASSERT_FALSE(static_cast<bool>(compiled));
  EXPECT_NE(llvm::toString(compiled.takeError()).find("unknown CPU 'bogus'"),
            std::string::npos);
}

TEST_F(JITTest, PipelineErrors) {
  auto module = parse(kMatmul);
  ASSERT_TRUE(module);
  llvm::Error parseErr = runPassPipeline(*module, "no-such-pass");
  ASSERT_TRUE(static_cast<bool>(parseErr));
  EXPECT_NE(llvm::toString(std::move(parseErr)).find("no-such-pass"),
            std::string::npos);
  // builtin.module(...) is unwrapped rather than silently nested.
  ASSERT_FALSE(static_cast<bool>(runPassPipeline(
      *module, ("builtin.module(" + getUntiledLoweringPipeline() + ")")
                   .str())));
  bool lowered = true;
  module->walk([&](func::FuncOp) { lowered = false; });
  EXPECT_TRUE(lowered);
}

TEST_F(JITTest, SignaturesAndSingleOpAnalysis) {
  auto module = parse(R"mlir(
    func.func @conv(%I: memref<2x9x9x3xf32>, %F: memref<3x3x3x8xf32>,
                    %O: memref<2x4x4x8xf32>) {
      linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>,
                                dilations = dense<1> : tensor<2xi64>}
        ins(%I, %F : memref<2x9x9x3xf32>, memref<3x3x3x8xf32>)
        outs(%O : memref<2x4x4x8xf32>)
      return
    }
    func.func @two(%A: memref<4x4xf32>, %B: memref<4x4xf32>,
                   %C: memref<4x4xf32>) {
      linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>)
                    outs(%C : memref<4x4xf32>)
      linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>)
                    outs(%C : memref<4x4xf32>)
      return
    }
    func.func @dyn(%A: memref<?x4xf32>) {
      return
    }
    func.func @ints(%A: memref<4xi32>) {
      return
    }
  )mlir");
  ASSERT_TRUE(module);
  auto sig = getKernelSignature(*module, "conv");
  ASSERT_TRUE(static_cast<bool>(sig));
  EXPECT_EQ(sig->str(), "@conv(memref<2x9x9x3xf32>, memref<3x3x3x8xf32>, "
                        "memref<2x4x4x8xf32>) -> ()");
  auto problem =
      analyzeSingleOpKernel(module->lookupSymbol<func::FuncOp>("conv"));
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  EXPECT_EQ(problem->kind, OpKind::ConvNhwcHwcf);
  EXPECT_EQ(problem->conv.strides[0], 2);
  EXPECT_EQ(problem->reductionLength, 27);
  EXPECT_DOUBLE_EQ(problem->flops, 2.0 * 2 * 4 * 4 * 8 * 27);
  EXPECT_FALSE(problem->outputIsResult);

  auto two = analyzeSingleOpKernel(module->lookupSymbol<func::FuncOp>("two"));
  ASSERT_FALSE(static_cast<bool>(two));
  EXPECT_NE(llvm::toString(two.takeError()).find("more than one"),
            std::string::npos);
  for (const char *name : {"dyn", "ints"}) {
    auto bad = getKernelSignature(*module, name);
    EXPECT_FALSE(static_cast<bool>(bad)) << name;
    llvm::consumeError(bad.takeError());
  }
  auto none = getKernelSignature(*module, "absent");
  EXPECT_FALSE(static_cast<bool>(none));
  llvm::consumeError(none.takeError());
  // Non-strict preparation skips unsupported functions; strict fails.
  EXPECT_FALSE(static_cast<bool>(prepareForExecution(*module)));
  llvm::Error strict = prepareForExecution(*module, /*strict=*/true);
  EXPECT_TRUE(static_cast<bool>(strict));
  llvm::consumeError(std::move(strict));
}

// A kernel with an epilogue (bias along n with ReLU, then a scaling in
// place, a clamp by a captured constant): analyzeSingleOpKernel accepts it
// and its reference applies the chain to the matmul's result. The expected
// values are computed here by hand.
TEST_F(JITTest, EpilogueReferenceAppliesTheChain) {
  auto module = parse(R"mlir(
    func.func @k(%A: memref<3x2xf32>, %B: memref<2x4xf32>,
                 %C: memref<3x4xf32>, %bias: memref<4xf32>) {
      %half = arith.constant 0.5 : f32
      %zero = arith.constant 0.0 : f32
      %a = bufferization.to_tensor %A restrict : memref<3x2xf32> to tensor<3x2xf32>
      %b = bufferization.to_tensor %B restrict : memref<2x4xf32> to tensor<2x4xf32>
      %c = bufferization.to_tensor %C restrict writable : memref<3x4xf32> to tensor<3x4xf32>
      %v = bufferization.to_tensor %bias restrict : memref<4xf32> to tensor<4xf32>
      %e = tensor.empty() : tensor<3x4xf32>
      %mm = linalg.matmul ins(%a, %b : tensor<3x2xf32>, tensor<2x4xf32>)
                          outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                            affine_map<(i, j) -> (j)>,
                                            affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%mm, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {
      ^bb0(%x: f32, %y: f32, %o: f32):
        %s = arith.addf %x, %y : f32
        %m = arith.maximumf %s, %zero : f32
        linalg.yield %m : f32
      } -> tensor<3x4xf32>
      %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          outs(%r : tensor<3x4xf32>) {
      ^bb0(%x: f32):
        %p = arith.mulf %x, %half : f32
        %big = arith.cmpf ogt, %p, %half : f32
        %q = arith.select %big, %half, %p : f32
        linalg.yield %q : f32
      } -> tensor<3x4xf32>
      bufferization.materialize_in_destination %h in restrict writable %C
        : (tensor<3x4xf32>, memref<3x4xf32>) -> ()
      return
    }
  )mlir");
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("k");
  auto problem = analyzeSingleOpKernel(func);
  ASSERT_TRUE(static_cast<bool>(problem))
      << llvm::toString(problem.takeError());
  ASSERT_TRUE(problem->epilogue);
  EXPECT_EQ(problem->epilogue->size(), 2u);
  ASSERT_EQ(problem->epilogue->getArguments().size(), 1u);
  EXPECT_EQ(problem->epilogue->getArguments()[0], 3u);
  auto sig = getKernelSignature(func);
  ASSERT_TRUE(static_cast<bool>(sig));
  auto args = sig->allocateArguments();
  ASSERT_TRUE(static_cast<bool>(args));
  for (auto [i, buffer] : llvm::enumerate(*args))
    buffer.fillRandom(7 + i);
  Buffer out = (*args)[2].clone();
  ASSERT_FALSE(static_cast<bool>(problem->compute(*args, out)));
  int clamped = 0, zeroed = 0;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      double sum = (*args)[2].getAsDouble(i * 4 + j);
      for (int64_t k = 0; k < 2; ++k)
        sum += (*args)[0].getAsDouble(i * 2 + k) *
               (*args)[1].getAsDouble(k * 4 + j);
      double value = std::max(sum + (*args)[3].getAsDouble(j), 0.0) * 0.5;
      clamped += value > 0.5;
      zeroed += value == 0.0;
      value = value > 0.5 ? 0.5 : value;
      EXPECT_NEAR(out.getAsDouble(i * 4 + j), value, 1e-5) << i << "," << j;
    }
  // The seeded inputs exercise the ReLU (some zeros).
  EXPECT_GT(zeroed, 0);
  (void)clamped;

  // A chain op the reference cannot evaluate is an error naming it.
  auto bad = parse(R"mlir(
    func.func @k(%A: memref<2x2xf32>, %B: memref<2x2xf32>, %C: memref<2x2xf32>) {
      %a = bufferization.to_tensor %A restrict : memref<2x2xf32> to tensor<2x2xf32>
      %b = bufferization.to_tensor %B restrict : memref<2x2xf32> to tensor<2x2xf32>
      %c = bufferization.to_tensor %C restrict writable : memref<2x2xf32> to tensor<2x2xf32>
      %mm = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>)
                          outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
      %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          outs(%mm : tensor<2x2xf32>) {
      ^bb0(%x: f32):
        %p = math.erf %x : f32
        linalg.yield %p : f32
      } -> tensor<2x2xf32>
      bufferization.materialize_in_destination %h in restrict writable %C
        : (tensor<2x2xf32>, memref<2x2xf32>) -> ()
      return
    }
  )mlir");
  ASSERT_TRUE(bad);
  auto refused = analyzeSingleOpKernel(bad->lookupSymbol<func::FuncOp>("k"));
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("linalg.generic"),
            std::string::npos);
}

} // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILETUNE_UNDER_ASAN 1
#endif
#endif

// (Not under AddressSanitizer: its allocator replaces glibc's, so neither
// mallopt nor mallinfo2 applies.)
#if defined(__GLIBC__) && !defined(TILETUNE_UNDER_ASAN)
// Once a process runs kernels, a block the size of a kernel's temporaries
// (here 4 MiB) comes from the heap, not from a fresh mapping that every call
// would fault in again; and freeing it keeps it.
TEST(KeepFreedMemoryTest, LargeBlocksStayInTheHeap) {
  const char *env = std::getenv("TILETUNE_KEEP_FREED_MEMORY");
  if (env && std::string(env) == "0")
    GTEST_SKIP() << "TILETUNE_KEEP_FREED_MEMORY=0";
  ASSERT_TRUE(mlir::tiletune::keepFreedMemoryInProcess());
  size_t mappedBefore = mallinfo2().hblkhd;
  void *block = std::malloc(4 << 20);
  ASSERT_NE(block, nullptr);
  static_cast<volatile char *>(block)[0] = 1;
  EXPECT_EQ(mallinfo2().hblkhd, mappedBefore);
  size_t heapBefore = mallinfo2().arena;
  std::free(block);
  EXPECT_EQ(mallinfo2().arena, heapBefore);
}
#endif
