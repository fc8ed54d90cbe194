//===- DiagnosticsTest.cpp - Diagnostics captured per thread --------------===//
//
// ThreadScopedDiagnosticHandler takes the diagnostics of its own thread and
// leaves those of other threads to the handlers registered before it; and a
// function pass run on many functions at once loses none of its remarks
// while the tiling verifies configs under such a handler.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Mutex.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

TEST(DiagnosticsTest, CapturesOnlyItsOwnThread) {
  MLIRContext context;
  llvm::sys::SmartMutex<true> mutex;
  std::vector<std::string> passedOn;
  ScopedDiagnosticHandler outer(&context, [&](Diagnostic &diag) {
    llvm::sys::SmartScopedLock<true> lock(mutex);
    passedOn.push_back(diag.str());
    return success();
  });
  std::vector<std::string> captured;
  {
    ThreadScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
      captured.push_back(diag.str());
      return success();
    });
    emitRemark(UnknownLoc::get(&context)) << "mine";
    std::thread other(
        [&] { emitRemark(UnknownLoc::get(&context)) << "another thread's"; });
    other.join();
  }
  // Once the capture is gone, this thread's diagnostics pass on as well.
  emitRemark(UnknownLoc::get(&context)) << "after";
  EXPECT_EQ(captured, std::vector<std::string>{"mine"});
  EXPECT_EQ(passedOn, (std::vector<std::string>{"another thread's", "after"}));
}

TEST(DiagnosticsTest, HandlerMayDeclineItsOwn) {
  MLIRContext context;
  std::vector<std::string> passedOn;
  ScopedDiagnosticHandler outer(&context, [&](Diagnostic &diag) {
    passedOn.push_back(diag.str());
    return success();
  });
  ThreadScopedDiagnosticHandler declining(
      &context, [&](Diagnostic &) { return failure(); });
  emitRemark(UnknownLoc::get(&context)) << "declined";
  EXPECT_EQ(passedOn, std::vector<std::string>{"declined"});
}

// nn.Linear + bias + ReLU with `pack = dn`: tile-cpu leaves the epilogue
// unfused and says so in a remark, after verifying the config in
// decodeCPUSchedule under a capturing handler. Each function's remark must
// come out while the other threads verify theirs (it used to be swallowed by
// their capture, now and then).
constexpr const char *kLinearRelu = R"mlir(
func.func @f%d(%x: tensor<8x48xf32>, %w: tensor<24x48xf32>,
               %bias: tensor<24xf32>) -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
          parallel = {m = 4, n = 24}, cache = {k = 48, m = 4, n = 24},
          register = {m = 2, n = 4}, order = [m, n, k], pack = dn>}
        ins(%x, %w : tensor<8x48xf32>, tensor<24x48xf32>)
        outs(%init : tensor<8x24xf32>) -> tensor<8x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%mm, %bias : tensor<8x24xf32>, tensor<24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}
)mlir";

TEST(DiagnosticsTest, ParallelTilingKeepsEveryRemark) {
  constexpr int kFunctions = 256;
  MLIRContext context; // Threading enabled: functions run in parallel.
  initializeContext(context);
  std::string source;
  for (int i = 0; i < kFunctions; ++i) {
    std::string text = kLinearRelu;
    text.replace(text.find("%d"), 2, std::to_string(i));
    source += text;
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  int notFused = 0, summaries = 0;
  ScopedDiagnosticHandler count(&context, [&](Diagnostic &diag) {
    std::string text = diag.str();
    notFused += text.find("epilogue not fused") != std::string::npos;
    summaries +=
        text.find("tiletune-tile-cpu: tiled 1 op") != std::string::npos;
    return success();
  });
  registerAllTileTunePasses();
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(
      parsePassPipeline("func.func(tiletune-tile-cpu{emit-remarks=1})", pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_EQ(notFused, kFunctions);
  EXPECT_EQ(summaries, kFunctions);
}

} // namespace
