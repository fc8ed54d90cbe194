//===- TilingTemplatesTest.cpp - Tests of the tiling templates ------------===//
//
// The tables expanded from Support/TilingTemplates.def: op kinds, levels and
// options with their defaults.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/TilingTemplates.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir::tiletune;

namespace {

TEST(TilingTemplatesTest, OpKindsRoundTrip) {
  for (OpKind kind :
       {OpKind::Matmul, OpKind::BatchMatmul, OpKind::ConvNhwcHwcf,
        OpKind::ConvNchwFchw, OpKind::ConvNhwcFhwc, OpKind::MatmulTransposeB,
        OpKind::BatchMatmulTransposeAB})
    EXPECT_EQ(symbolizeOpKind(stringifyOpKind(kind)), kind);
  EXPECT_EQ(symbolizeOpKind("conv_3d"), std::nullopt);
  EXPECT_FALSE(isConv(OpKind::BatchMatmul));
  EXPECT_TRUE(isConv(OpKind::ConvNchwFchw));
  EXPECT_EQ(symbolizeDimRole(stringifyDimRole(DimRole::Reduction)),
            DimRole::Reduction);
}

// Every matmul form has exactly one kind, and the kinds say their form; the
// kinds' names differ (they are problem keys: layouts never mix).
TEST(TilingTemplatesTest, MatmulForms) {
  std::set<std::string> names;
  for (bool batched : {false, true})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        OpKind kind = getMatmulKind(MatmulForm{batched, ta, tb});
        std::optional<MatmulForm> form = getMatmulForm(kind);
        ASSERT_TRUE(form.has_value());
        EXPECT_EQ(form->batched, batched);
        EXPECT_EQ(form->transposeA, ta);
        EXPECT_EQ(form->transposeB, tb);
        EXPECT_EQ(isBatchedMatmul(kind), batched);
        EXPECT_EQ(isTransposedMatmul(kind), ta || tb);
        EXPECT_FALSE(isConv(kind));
        EXPECT_EQ(getLoopTemplates(kind).size(), batched ? 4u : 3u);
        names.insert(stringifyOpKind(kind).str());
      }
  EXPECT_EQ(names.size(), 8u);
  EXPECT_EQ(getMatmulKind(MatmulForm{false, false, true}),
            OpKind::MatmulTransposeB);
  EXPECT_EQ(getMatmulForm(OpKind::ConvNhwcFhwc), std::nullopt);
  EXPECT_TRUE(isConv(OpKind::ConvNhwcFhwc));
}

// The grouped convs: upstream's iterator order, the group loop a batch loop.
TEST(TilingTemplatesTest, GroupedConvLoops) {
  auto names = [](OpKind kind) {
    std::string text;
    for (const LoopTemplate &loop : getLoopTemplates(kind))
      text += loop.name.str() + (loop.role == DimRole::Batch      ? "B "
                                 : loop.role == DimRole::Parallel ? "P "
                                                                  : "R ");
    return text;
  };
  EXPECT_EQ(names(OpKind::ConvNgchwFgchw), "nB gB fP ohP owP cR khR kwR ");
  EXPECT_EQ(names(OpKind::ConvNhwgcGfhwc), "nB ohP owP gB fP khR kwR cR ");
  EXPECT_TRUE(isConv(OpKind::ConvNgchwFgchw));
  EXPECT_EQ(symbolizeOpKind("conv_2d_nhwgc_gfhwc"), OpKind::ConvNhwgcGfhwc);
}

TEST(TilingTemplatesTest, Levels) {
  EXPECT_TRUE(isKnownTarget("cuda"));
  EXPECT_FALSE(isKnownTarget("rocm"));
  EXPECT_EQ(getTargetLevels("cpu").size(), 3u);
  EXPECT_EQ(getTargetLevels("cuda").back(), "register");
  EXPECT_TRUE(getTargetLevels("rocm").empty());
  EXPECT_EQ(getDimLevels("cuda", OpKind::Matmul, DimRole::Reduction).size(),
            2u);
  EXPECT_EQ(
      getDimLevels("cuda", OpKind::ConvNhwcHwcf, DimRole::Reduction).size(),
      1u);
  EXPECT_EQ(getDimLevels("cpu", OpKind::Matmul, DimRole::Parallel).front(),
            "parallel");
}

TEST(TilingTemplatesTest, Options) {
  ASSERT_EQ(getOptionSpecs("cuda").size(), 2u);
  const OptionSpec *unroll = lookupOptionSpec("cpu", "unroll");
  ASSERT_NE(unroll, nullptr);
  EXPECT_EQ(unroll->getDefaultInt(), 1);
  EXPECT_EQ(unroll->getLegalInts(), (llvm::SmallVector<int64_t>{1, 2, 4, 8}));
  EXPECT_TRUE(lookupOptionSpec("cpu", "vectorize")->getDefaultBool());
  EXPECT_EQ(lookupOptionSpec("cuda", "max_unroll")->getDefaultInt(), 512);
  const OptionSpec *layout = lookupOptionSpec("cpu", "layout");
  EXPECT_TRUE(layout->appliesTo(OpKind::ConvNchwFchw));
  EXPECT_FALSE(layout->appliesTo(OpKind::Matmul));
  EXPECT_TRUE(layout->isLegalValue("nhwc"));
  EXPECT_EQ(lookupOptionSpec("cuda", "unroll"), nullptr);
}

// The AutoMCL computes the cpu passes generate are packings, both ways.
TEST(TilingTemplatesTest, Computes) {
  const OptionSpec *compute = lookupOptionSpec("cpu", "compute");
  ASSERT_NE(compute, nullptr);
  EXPECT_TRUE(compute->appliesTo(OpKind::Matmul));
  EXPECT_TRUE(compute->appliesTo(OpKind::BatchMatmul));
  EXPECT_TRUE(compute->appliesTo(OpKind::MatmulTransposeB));
  EXPECT_TRUE(compute->appliesTo(OpKind::ConvNhwcHwcf));
  // On a conv: direct, or im2col with a matmul compute of the GEMM's form.
  EXPECT_FALSE(getConvCompute("direct")->im2col);
  EXPECT_TRUE(getConvCompute("im2col_dnmm332")->im2col);
  EXPECT_EQ(getConvCompute("im2col_dnmm332")->pack, "dn");
  EXPECT_FALSE(getConvCompute("rpmmv").has_value());
  EXPECT_FALSE(getConvCompute("im2col_direct").has_value());
  EXPECT_FALSE(getPackOfCompute("im2col_rpmmv").has_value());
  EXPECT_EQ(getIm2colMatmulKind(OpKind::ConvNhwcHwcf), OpKind::Matmul);
  EXPECT_EQ(getIm2colMatmulKind(OpKind::ConvNhwcFhwc),
            OpKind::MatmulTransposeB);
  // NCHW: through NHWC (the FCHW filter is [F][C*KH*KW] as it is), or per
  // image in its native layout (1x1 only).
  EXPECT_EQ(getIm2colMatmulKind(OpKind::ConvNchwFchw, /*nhwcLayout=*/true),
            OpKind::MatmulTransposeB);
  EXPECT_EQ(getIm2colMatmulKind(OpKind::ConvNchwFchw, /*nhwcLayout=*/true,
                                /*oneByOne=*/true),
            OpKind::MatmulTransposeB);
  EXPECT_EQ(getIm2colMatmulKind(OpKind::ConvNchwFchw, /*nhwcLayout=*/false,
                                /*oneByOne=*/true),
            OpKind::Matmul);
  EXPECT_FALSE(getIm2colMatmulKind(OpKind::ConvNchwFchw).has_value());
  EXPECT_TRUE(isPerImageIm2col(OpKind::ConvNchwFchw, false));
  EXPECT_FALSE(isPerImageIm2col(OpKind::ConvNchwFchw, true));
  EXPECT_FALSE(isPerImageIm2col(OpKind::ConvNhwcFhwc, false));
  EXPECT_EQ(getIm2colGemmLoop("f"), "n");
  EXPECT_EQ(getIm2colGemmLoop("ow"), "m");
  EXPECT_EQ(getIm2colGemmLoop("f", /*perImage=*/true), "m");
  EXPECT_EQ(getIm2colGemmLoop("ow", /*perImage=*/true), "n");
  EXPECT_EQ(getIm2colGemmLoop("c", /*perImage=*/true), "k");
  EXPECT_EQ(getIm2colGemmLoop("n", /*perImage=*/true), "");
  EXPECT_FALSE(getIm2colMatmulKind(OpKind::ConvNgchwFgchw).has_value());
  EXPECT_FALSE(getIm2colMatmulKind(OpKind::Matmul).has_value());
  EXPECT_EQ(compute->defaultValue, "");
  for (llvm::StringRef pack : lookupOptionSpec("cpu", "pack")->getLegalValues()) {
    std::optional<llvm::StringRef> name = getComputeOfPack(pack);
    ASSERT_TRUE(name.has_value()) << pack.str();
    EXPECT_TRUE(compute->isLegalValue(*name));
    EXPECT_EQ(getPackOfCompute(*name), pack);
  }
  EXPECT_EQ(getPackOfCompute("rpmmv"), llvm::StringRef("b"));
  EXPECT_EQ(getPackOfCompute("ttmm"), llvm::StringRef("bt"));
  EXPECT_EQ(getPackOfCompute("dnmm332"), llvm::StringRef("dn"));
  EXPECT_FALSE(getPackOfCompute("dnmm").has_value());
  EXPECT_FALSE(getComputeOfPack("c").has_value());
}

} // namespace
