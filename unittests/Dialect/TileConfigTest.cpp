//===- TileConfigTest.cpp - Tests of the config attribute helpers ---------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/InitAll.h"

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
