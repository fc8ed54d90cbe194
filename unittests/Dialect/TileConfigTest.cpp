//===- TileConfigTest.cpp - Tests of the config attribute helpers ---------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {
class TileConfigTest : public ::testing::Test {
protected:
  TileConfigTest() { initializeContext(context); }

  /// Parses a module holding one function whose first op is the tunable op.
  Operation *parseOp(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    Operation *found = nullptr;
    module->walk([&](Operation *op) {
      if (!found && succeeded(matchTunableOp(op)))
        found = op;
    });
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

constexpr const char *kMatmul = R"mlir(
func.func @f(%a: tensor<24x13xf32>, %b: tensor<13x1xf32>, %c: tensor<24x1xf32>) -> tensor<24x1xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<24x13xf32>, tensor<13x1xf32>) outs(%c : tensor<24x1xf32>) -> tensor<24x1xf32>
  return %0 : tensor<24x1xf32>
})mlir";

TEST_F(TileConfigTest, MatchesMatmul) {
  Operation *op = parseOp(kMatmul);
  ASSERT_NE(op, nullptr);
  FailureOr<TunableOp> tunable = matchTunableOp(op);
  ASSERT_TRUE(succeeded(tunable));
  EXPECT_EQ(tunable->kind, OpKind::Matmul);
  ASSERT_EQ(tunable->dims.size(), 3u);
  EXPECT_EQ(tunable->dims[0].name, "m");
  EXPECT_EQ(tunable->dims[0].size, 24);
  EXPECT_EQ(tunable->dims[2].role, DimRole::Reduction);
  EXPECT_DOUBLE_EQ(tunable->flops(), 2.0 * 24 * 13 * 1);
}

TEST_F(TileConfigTest, FactorsRoundTrip) {
  Operation *op = parseOp(kMatmul);
  ASSERT_NE(op, nullptr);
  TunableOp tunable = *matchTunableOp(op);
  FactorMap factors = {{"m", {2, 3, 2, 2}}, {"n", {1, 1, 1, 1}}, {"k", {1, 13}}};
  Builder b(&context);
  TileConfigAttr config = buildConfig(&context, kTargetCPU, tunable, factors,
                                      {b.getNamedAttr("unroll",
                                                      b.getI64IntegerAttr(1))});
  ASSERT_TRUE(config);
  EXPECT_EQ(config.getTileSize("parallel", "m"), 12);
  EXPECT_EQ(config.getTileSize("cache", "m"), 4);
  EXPECT_EQ(config.getTileSize("register", "m"), 2);
  EXPECT_EQ(config.getTileSize("cache", "k"), 13);
  EXPECT_EQ(config.getIntOption("unroll", 0), 1);
  EXPECT_TRUE(succeeded(
      verifyConfig(config, tunable, [&] { return op->emitError(); })));
  EXPECT_EQ(getFactors(config, tunable), factors);
}

TEST_F(TileConfigTest, BuildRejectsWrongProducts) {
  Operation *op = parseOp(kMatmul);
  ASSERT_NE(op, nullptr);
  TunableOp tunable = *matchTunableOp(op);
  FactorMap wrongProduct = {
      {"m", {2, 3, 2, 1}}, {"n", {1, 1, 1, 1}}, {"k", {1, 13}}};
  EXPECT_FALSE(buildConfig(&context, kTargetCPU, tunable, wrongProduct));
  // A larger product pads the loop (cpu matmul kinds only).
  FactorMap padded = {
      {"m", {2, 3, 2, 3}}, {"n", {1, 1, 1, 1}}, {"k", {1, 16}}};
  TileConfigAttr config = buildConfig(&context, kTargetCPU, tunable, padded);
  ASSERT_TRUE(config);
  EXPECT_EQ(getPaddedSize(config, *tunable.lookup("m")), 36);
  EXPECT_EQ(getPaddedSize(config, *tunable.lookup("k")), 16);
  EXPECT_EQ(getPaddedSize(config, *tunable.lookup("n")), 1);
  EXPECT_EQ(getFactors(config, tunable), padded);
  FactorMap paddedCuda = {{"m", {2, 3, 2, 3}},
                          {"n", {1, 1, 1, 1}},
                          {"k", {1, 13, 1}}};
  EXPECT_FALSE(buildConfig(&context, kTargetCUDA, tunable, paddedCuda));
  FactorMap wrongLength = {{"m", {24}}, {"n", {1, 1, 1, 1}}, {"k", {1, 13}}};
  EXPECT_FALSE(buildConfig(&context, kTargetCPU, tunable, wrongLength));
}

TEST_F(TileConfigTest, CudaMatmulHasThreeReductionFactors) {
  Operation *op = parseOp(kMatmul);
  ASSERT_NE(op, nullptr);
  TunableOp tunable = *matchTunableOp(op);
  FactorMap factors = {
      {"m", {2, 3, 2, 2}}, {"n", {1, 1, 1, 1}}, {"k", {13, 1, 1}}};
  TileConfigAttr config = buildConfig(&context, kTargetCUDA, tunable, factors);
  ASSERT_TRUE(config);
  EXPECT_EQ(config.getTileSize("shared", "k"), 1);
  EXPECT_EQ(getFactors(config, tunable), factors);
}

TEST_F(TileConfigTest, GetSetErase) {
  Operation *op = parseOp(kMatmul);
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(getConfig(op));
  TunableOp tunable = *matchTunableOp(op);
  FactorMap factors = {{"m", {1, 1, 1, 24}}, {"n", {1, 1, 1, 1}}, {"k", {13, 1}}};
  TileConfigAttr config = buildConfig(&context, kTargetCPU, tunable, factors);
  setConfig(op, config);
  EXPECT_EQ(getConfig(op), config);
  EXPECT_TRUE(succeeded(op->getParentOfType<ModuleOp>().verify()));
  eraseConfig(op);
  EXPECT_FALSE(getConfig(op));
}

TEST_F(TileConfigTest, RejectsUnsupportedOps) {
  module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
})mlir",
                                       &context);
  ASSERT_TRUE(module);
  int matched = 0;
  std::string reason;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "linalg.matmul")
      return;
    if (succeeded(matchTunableOp(op, &reason)))
      ++matched;
  });
  EXPECT_EQ(matched, 0);
  EXPECT_NE(reason.find("dynamic"), std::string::npos) << reason;
}
} // namespace

namespace {
/// The first linalg.matmul / batch_matmul of `module`, tunable or not.
Operation *findMatmul(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (!found && (op->getName().getStringRef() == "linalg.matmul" ||
                   op->getName().getStringRef() == "linalg.batch_matmul"))
      found = op;
  });
  return found;
}
} // namespace

// An op with a loop of size 0 computes nothing: it is not tunable, and
// getEmptyOpReason says why (the default-config heuristic divided by its
// size before).
TEST_F(TileConfigTest, EmptyOpsAreNotTunable) {
  module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: tensor<4x0x8xf32>, %b: tensor<4x8x16xf32>, %c: tensor<4x0x16xf32>) -> tensor<4x0x16xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x0x8xf32>, tensor<4x8x16xf32>) outs(%c : tensor<4x0x16xf32>) -> tensor<4x0x16xf32>
  return %0 : tensor<4x0x16xf32>
})mlir",
                                       &context);
  ASSERT_TRUE(module);
  Operation *op = findMatmul(*module);
  ASSERT_NE(op, nullptr);
  std::string reason;
  EXPECT_TRUE(failed(matchTunableOp(op, &reason)));
  EXPECT_NE(reason.find("loop 'm' has size 0"), std::string::npos) << reason;
  std::optional<std::string> why = getEmptyOpReason(op);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, reason);

  // Tunable ops and other ops have no such reason.
  Operation *tunable = parseOp(kMatmul);
  ASSERT_NE(tunable, nullptr);
  EXPECT_FALSE(getEmptyOpReason(tunable).has_value());
  EXPECT_FALSE(getEmptyOpReason(tunable->getParentOp()).has_value());
}

TEST_F(TileConfigTest, MaxPaddedSize) {
  EXPECT_EQ(getMaxPaddedSize(1), 1 + kMaxPadIncrease);
  EXPECT_EQ(getMaxPaddedSize(64), 64 + kMaxPadIncrease);
  EXPECT_EQ(getMaxPaddedSize(5000), 10000);
  EXPECT_EQ(getMaxPaddedSize(std::numeric_limits<int64_t>::max() - 5),
            std::numeric_limits<int64_t>::max());
}

// A pad far beyond the size verified and then crashed the compiled kernel
// (operands of 2^34 rows); the verifier bounds it, buildConfig too.
TEST_F(TileConfigTest, PadIsBoundedBySize) {
  module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
})mlir",
                                       &context);
  ASSERT_TRUE(module);
  Operation *op = findMatmul(*module);
  ASSERT_NE(op, nullptr);
  TunableOp tunable = *matchTunableOp(op);
  auto verifyText = [&](StringRef text, std::string &message) {
    auto config =
        llvm::dyn_cast_or_null<TileConfigAttr>(parseAttribute(text, &context));
    EXPECT_TRUE(config) << text.str();
    if (!config)
      return false;
    message.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    return succeeded(
        verifyConfig(config, tunable, [&] { return op->emitError(); }));
  };
  std::string message;
  EXPECT_FALSE(verifyText(
      "#tiletune.config<cpu, parallel = {m = 17179869184, n = 64}, cache = "
      "{m = 64, n = 64, k = 64}, register = {m = 8, n = 32}, pad = {m = "
      "17179869184}>",
      message));
  EXPECT_NE(message.find("'pad' size 17179869184 of dimension 'm' is too "
                         "large for its size (64)"),
            std::string::npos)
      << message;
  // The largest legal pad: 64 + 1024.
  EXPECT_TRUE(verifyText(
      "#tiletune.config<cpu, parallel = {m = 1088, n = 64}, cache = {m = 64, "
      "n = 64, k = 64}, register = {m = 8, n = 32}, pad = {m = 1088}>",
      message))
      << message;
  EXPECT_FALSE(verifyText(
      "#tiletune.config<cpu, parallel = {m = 1096, n = 64}, cache = {m = 8, "
      "n = 64, k = 64}, register = {m = 8, n = 32}, pad = {m = 1096}>",
      message));

  // Factor lists multiplying far beyond the size (even past 2^64) build no
  // config.
  FactorMap huge = {{"m", {1 << 20, 1 << 20, 1 << 20, 1 << 20}},
                    {"n", {1, 1, 2, 32}},
                    {"k", {1, 64}}};
  EXPECT_FALSE(buildConfig(&context, kTargetCPU, tunable, huge));
  FactorMap atBound = {
      {"m", {1, 17, 8, 8}}, {"n", {1, 1, 2, 32}}, {"k", {1, 64}}};
  EXPECT_TRUE(buildConfig(&context, kTargetCPU, tunable, atBound));
}

// Register tiles of huge loops must not wrap around below the limit.
TEST_F(TileConfigTest, RegisterTileProductDoesNotOverflow) {
  module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: memref<4294967296x1xf32>, %b: memref<1x4294967296xf32>, %c: memref<4294967296x4294967296xf32>) {
  linalg.matmul ins(%a, %b : memref<4294967296x1xf32>, memref<1x4294967296xf32>) outs(%c : memref<4294967296x4294967296xf32>)
  return
})mlir",
                                       &context);
  ASSERT_TRUE(module);
  Operation *op = findMatmul(*module);
  ASSERT_NE(op, nullptr);
  TunableOp tunable = *matchTunableOp(op);
  FactorMap factors = {{"m", {1, 1, 1, int64_t(1) << 32}},
                       {"n", {1, 1, 1, int64_t(1) << 32}},
                       {"k", {1, 1}}};
  TileConfigAttr config = buildConfig(&context, kTargetCPU, tunable, factors);
  ASSERT_TRUE(config);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(
      failed(verifyConfig(config, tunable, [&] { return op->emitError(); })));
  EXPECT_NE(message.find("register tile has"), std::string::npos) << message;
}
