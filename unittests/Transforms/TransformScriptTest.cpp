//===- TransformScriptTest.cpp - CPU configs as transform scripts ---------===//
//
// buildCPUTransformScript(): the script parses and verifies as transform IR,
// counts the ops and schedules it covers, reports what it leaves out, and
// the upstream interpreter applying it tiles and vectorizes the ops it
// matches, and only those.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/TransformScript.h"

#include "tiletune/InitAll.h"

#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

constexpr const char *kPayload = R"mlir(
func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>,
             %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 64}, cache = {m = 16, n = 64, k = 16}, register = {m = 4, n = 16}, order = [n, k, m]>}
      ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
      outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 64}, cache = {m = 64, n = 64, k = 32}, register = {m = 8, n = 16}>}
      ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
      outs(%r : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
func.func @g(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>,
             %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 32}, cache = {m = 16, n = 32, k = 8}, register = {m = 4, n = 32}, pack = ab>}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>)
      outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @untouched(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>,
                     %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
)mlir";

class TransformScriptTest : public ::testing::Test {
protected:
  void SetUp() override {
    initializeContext(ctx);
    payload = parseSourceString<ModuleOp>(kPayload, &ctx);
    ASSERT_TRUE(payload);
  }

  unsigned count(StringRef name) {
    unsigned n = 0;
    payload->walk([&](Operation *op) {
      if (op->getName().getStringRef() == name)
        ++n;
    });
    return n;
  }

  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  OwningOpRef<ModuleOp> payload;
};

TEST_F(TransformScriptTest, ScriptParsesAndSchedulesTheConfiguredOps) {
  CPUTransformScript script = buildCPUTransformScript(*payload);
  // @f's two matmuls share a shape but not a config: the second is reported
  // (the first one's schedule applies to it); @untouched has no config.
  EXPECT_EQ(script.numOps, 2u);
  EXPECT_EQ(script.numSchedules, 2u);
  ASSERT_EQ(script.skipped.size(), 1u);
  EXPECT_NE(script.skipped[0].find(
                "linalg.matmul: its config (or operand kind) differs"),
            std::string::npos)
      << script.skipped[0];
  EXPECT_NE(script.text.find("// Not included: pack = ab"), std::string::npos);
  EXPECT_NE(script.text.find("interchange = [1, 2, 0]"), std::string::npos);

  OwningOpRef<ModuleOp> transform =
      parseSourceString<ModuleOp>(script.text, &ctx);
  ASSERT_TRUE(transform) << script.text;
  ASSERT_TRUE(succeeded(verify(*transform)));
  transform::TransformOpInterface entry =
      transform::detail::findTransformEntryPoint(*transform, ModuleOp(),
                                                 "__transform_main");
  ASSERT_TRUE(entry);

  ASSERT_EQ(count("linalg.matmul"), 4u);
  ASSERT_TRUE(succeeded(transform::applyTransformNamedSequence(
      *payload, entry, *transform, transform::TransformOptions())));
  ASSERT_TRUE(succeeded(verify(*payload)));
  // Only @untouched's matmul is left; the others became contractions in
  // scf.forall (@f, twice) and scf.for nests.
  EXPECT_EQ(count("linalg.matmul"), 1u);
  EXPECT_EQ(count("scf.forall"), 2u);
  EXPECT_GT(count("vector.contract"), 0u);
}

TEST_F(TransformScriptTest, NoConfigsGiveAnEmptyScript) {
  OwningOpRef<ModuleOp> plain = parseSourceString<ModuleOp>(
      R"mlir(
func.func @h(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>,
             %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
)mlir",
      &ctx);
  ASSERT_TRUE(plain);
  CPUTransformScript script = buildCPUTransformScript(*plain);
  EXPECT_EQ(script.numOps, 0u);
  EXPECT_EQ(script.numSchedules, 0u);
  EXPECT_TRUE(script.skipped.empty());
  OwningOpRef<ModuleOp> transform =
      parseSourceString<ModuleOp>(script.text, &ctx);
  ASSERT_TRUE(transform) << script.text;
  EXPECT_TRUE(succeeded(verify(*transform)));
  EXPECT_EQ(script.text.find("foreach_match"), std::string::npos);
}

} // namespace
