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

#include <fstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

/// Operands larger than the memory available are refused before anything
/// is allocated, with an error that says how much they need and how much is
/// available (was: "cannot allocate N bytes" after allocating the first
/// operands, or an out-of-memory kill when each fits but not all together).
TEST_F(KernelHarnessTest, OperandsLargerThanMemoryAreRefusedBeforeAllocating) {
  std::optional<uint64_t> available = getAvailableMemoryBytes();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0u);

  // Operands of 16 TiB: more than any machine this runs on.
  const char *huge = R"mlir(
func.func @huge(%a: memref<1048576x1048576xf32>,
                %b: memref<1048576x1048576xf32>,
                %c: memref<1048576x1048576xf32>) {
  linalg.matmul ins(%a, %b : memref<1048576x1048576xf32>,
                             memref<1048576x1048576xf32>)
                outs(%c : memref<1048576x1048576xf32>)
  return
}
)mlir";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(huge, &ctx);
  ASSERT_TRUE(m);
  auto func = m->lookupSymbol<func::FuncOp>("huge");
  llvm::Expected<KernelHarness> harness = KernelHarness::create(func, 1);
  ASSERT_FALSE(static_cast<bool>(harness));
  std::string message = llvm::toString(harness.takeError());
  EXPECT_NE(message.find("the kernel's operands (memref<1048576x1048576xf32>, "
                         "memref<1048576x1048576xf32>, "
                         "memref<1048576x1048576xf32>) and the reference "
                         "output need 16.0 TiB, more than the "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("of memory available"), std::string::npos) << message;
  MemRefInfo big;
  big.shape = {1048576, 1048576};
  llvm::Expected<llvm::SmallVector<Buffer>> seeded =
      KernelHarness::seedArguments({big, big}, 1);
  ASSERT_FALSE(static_cast<bool>(seeded));
  EXPECT_NE(llvm::toString(seeded.takeError()).find("need 8.0 TiB"),
            std::string::npos);

  // A memory limit of the process (RLIMIT_AS, as `ulimit -v` sets it) counts:
  // in a child limited to 256 MiB beyond what it has mapped, three operands
  // of 128 MiB each are refused as a whole, before the first is allocated.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::optional<uint64_t> before = getAvailableMemoryBytes();
    std::ifstream status("/proc/self/status");
    std::string line;
    uint64_t vmKiB = 0;
    while (std::getline(status, line)) {
      llvm::StringRef rest(line);
      if (rest.consume_front("VmSize:"))
        (void)rest.trim().split(' ').first.getAsInteger(10, vmKiB);
    }
    if (!before || vmKiB == 0)
      _exit(2);
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = vmKiB * 1024 + (256u << 20);
    if (setrlimit(RLIMIT_AS, &limit) != 0)
      _exit(3);
    std::optional<uint64_t> after = getAvailableMemoryBytes();
    if (!after || *after > (256u << 20))
      _exit(4);
    MemRefInfo arg;
    arg.shape = {32, 1024, 1024}; // 128 MiB of f32
    llvm::Expected<llvm::SmallVector<Buffer>> buffers =
        KernelHarness::seedArguments({arg, arg, arg}, 1);
    if (buffers)
      _exit(5);
    std::string text = llvm::toString(buffers.takeError());
    _exit(text.find("need 384.0 MiB, more than the") != std::string::npos
              ? 0
              : 6);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "2: no VmSize, 3: setrlimit failed, 4: the limit is not seen, "
         "5: allocated, 6: another error";
}

} // namespace
