//===- KernelHarnessTest.cpp - Tests of the kernel harness ----------------===//
//
// Seeded arguments (argument i from seed + i), the reference output, and
// verification that accepts the reference and rejects a wrong output.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/KernelHarness.h"

#include "tiletune/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

const char *kKernel = R"mlir(
func.func @k(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
  linalg.matmul ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>)
                outs(%c : memref<4x5xf32>)
  return
}
func.func @notone(%a: memref<4x6xf32>, %c: memref<4x6xf32>) {
  memref.copy %a, %c : memref<4x6xf32> to memref<4x6xf32>
  return
}
)mlir";

class KernelHarnessTest : public ::testing::Test {
protected:
  void SetUp() override {
    initializeContext(ctx);
    module = parseSourceString<ModuleOp>(kKernel, &ctx);
    ASSERT_TRUE(module);
  }
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  OwningOpRef<ModuleOp> module;
};

TEST_F(KernelHarnessTest, SeedsArgumentsAndVerifies) {
  auto func = module->lookupSymbol<func::FuncOp>("k");
  llvm::Expected<KernelHarness> harness = KernelHarness::create(func, 7);
  ASSERT_TRUE(static_cast<bool>(harness))
      << llvm::toString(harness.takeError());
  ASSERT_EQ(harness->getArguments().size(), 3u);
  EXPECT_TRUE(harness->hasExpected());
  EXPECT_EQ(harness->getProblem().outArg, 2u);
  // Argument i is filled from seed + i: the same values as a buffer of its
  // type seeded by hand.
  for (unsigned i = 0; i < 3; ++i) {
    Buffer manual = harness->getArguments()[i].clone();
    manual.fillRandom(7 + i);
    llvm::Expected<ComparisonResult> same =
        compareBuffers(harness->getArguments()[i], manual, Tolerance());
    ASSERT_TRUE(static_cast<bool>(same));
    EXPECT_TRUE(same->passed) << "argument " << i;
  }

  // The matmul computed by hand passes; the untouched output does not.
  Buffer out = harness->cloneInitialOutput();
  const Buffer &a = harness->getArguments()[0];
  const Buffer &b = harness->getArguments()[1];
  for (int64_t m = 0; m < 4; ++m)
    for (int64_t n = 0; n < 5; ++n) {
      double acc = out.getAsDouble(m * 5 + n);
      for (int64_t k = 0; k < 6; ++k)
        acc += a.getAsDouble(m * 6 + k) * b.getAsDouble(k * 5 + n);
      out.setFromDouble(m * 5 + n, acc);
    }
  llvm::Expected<ComparisonResult> good = harness->verify(out);
  ASSERT_TRUE(static_cast<bool>(good));
  EXPECT_TRUE(good->passed);
  Buffer wrong = harness->cloneInitialOutput();
  llvm::Expected<ComparisonResult> bad = harness->verify(wrong);
  ASSERT_TRUE(static_cast<bool>(bad));
  EXPECT_FALSE(bad->passed);

  // A run into another output buffer uses the inputs with that buffer.
  llvm::SmallVector<Buffer *> args = harness->getRunArguments(wrong);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[2], &wrong);
  EXPECT_EQ(args[0], &harness->getArguments()[0]);
}

TEST_F(KernelHarnessTest, ExpectedOutputOnDemandAndErrors) {
  auto func = module->lookupSymbol<func::FuncOp>("k");
  llvm::Expected<KernelHarness> lazy =
      KernelHarness::create(func, 1, /*computeExpected=*/false);
  ASSERT_TRUE(static_cast<bool>(lazy));
  EXPECT_FALSE(lazy->hasExpected());
  Buffer out = lazy->cloneInitialOutput();
  llvm::Expected<ComparisonResult> cmp = lazy->verify(out);
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(lazy->hasExpected());

  // A function that is not one supported op has no harness; the error says
  // why.
  auto other = module->lookupSymbol<func::FuncOp>("notone");
  llvm::Expected<KernelHarness> none = KernelHarness::create(other, 1);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_FALSE(llvm::toString(none.takeError()).empty());
}

} // namespace
