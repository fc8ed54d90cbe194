//===- PaddingTest.cpp - Tests of the CPU padding rule --------------------===//
//
// Which loop sizes the CPU schedule pads (Support/Padding.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Padding.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

TEST(PaddingTest, PadsOnlySizesWithoutGoodDivisors) {
  // n: once longer than two vectors, to a multiple of two vectors unless a
  // register tile 2 or 3 vectors wide divides it (the partial tiles run in
  // place, so only the tile grid changes).
  EXPECT_EQ(getCPUPaddedSize("n", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("n", 1000, 16), 1024);
  EXPECT_EQ(getCPUPaddedSize("n", 197, 16), 224); // not 208 (16-wide tiles)
  EXPECT_EQ(getCPUPaddedSize("n", 139, 16), 160);
  EXPECT_EQ(getCPUPaddedSize("n", 40, 16), 64);
  EXPECT_EQ(getCPUPaddedSize("n", 48, 16), 48); // 3 vectors
  EXPECT_EQ(getCPUPaddedSize("n", 80, 16), 96); // 5 vectors
  EXPECT_EQ(getCPUPaddedSize("n", 37, 8), 48);
  EXPECT_EQ(getCPUPaddedSize("n", 1024, 16), 1024);
  EXPECT_EQ(getCPUPaddedSize("n", 29, 16), 29);
  EXPECT_EQ(getCPUPaddedSize("n", 32, 16), 32);
  EXPECT_EQ(getCPUPaddedSize("n", 1000, 8), 1008); // AVX2 f32, or f64
  // m: to a multiple of 8 when no divisor in [4, 12] exists.
  EXPECT_EQ(getCPUPaddedSize("m", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("m", 131, 16), 136);
  EXPECT_EQ(getCPUPaddedSize("m", 1000, 16), 1000);
  EXPECT_EQ(getCPUPaddedSize("m", 49, 16), 49); // 7 divides it
  EXPECT_EQ(getCPUPaddedSize("m", 13, 16), 13);
  EXPECT_EQ(getCPUPaddedSize("m", 1, 16), 1);
  // m, given the rows of a two-vector register tile: to a multiple of 8 x
  // those rows when m's divisors give fewer than 12 accumulators (AVX2: 6
  // rows; AVX-512: 12 rows, 1024's 8 rows give 16 accumulators).
  EXPECT_EQ(getCPUPaddedSize("m", 1024, 8, 6), 1056);
  EXPECT_EQ(getCPUPaddedSize("m", 1024, 16, 12), 1024);
  EXPECT_EQ(getCPUPaddedSize("m", 127, 8, 6), 144);
  EXPECT_EQ(getCPUPaddedSize("m", 127, 16, 12), 128);
  EXPECT_EQ(getCPUPaddedSize("m", 192, 8, 6), 192);   // 6 divides it
  EXPECT_EQ(getCPUPaddedSize("m", 1000, 8, 6), 1008); // 5 rows: 10
  EXPECT_EQ(getCPUPaddedSize("m", 16, 8, 6), 16);     // short
  EXPECT_EQ(getCPUPaddedSize("m", 1024, 8, 4), 1024); // 8 < 12 either way
  // Split over threads: the multiple halves (down to 2 x the rows) until
  // the rows padded beyond m are at most an eighth of a thread's share,
  // every share a whole number of register tiles; else the fewest rows.
  EXPECT_EQ(getCPUPaddedSize("m", 197, 8, 6, 1), 240);
  EXPECT_EQ(getCPUPaddedSize("m", 197, 8, 6, 2), 204);   // 102 + 95 rows
  EXPECT_EQ(getCPUPaddedSize("m", 127, 8, 6, 2), 132);   // 66 + 61
  EXPECT_EQ(getCPUPaddedSize("m", 1024, 8, 6, 2), 1056); // 528 + 496
  EXPECT_EQ(getCPUPaddedSize("m", 1000, 8, 6, 2), 1008);
  EXPECT_EQ(getCPUPaddedSize("m", 197, 8, 6, 4), 216); // 54 x 3 + 35
  EXPECT_EQ(getCPUPaddedSize("m", 197, 8, 6, 3), 216); // 72 x 2 + 53
  EXPECT_EQ(getCPUPaddedSize("m", 192, 8, 6, 2), 192);
  EXPECT_EQ(getCPUPaddedSize("m", 127, 16, 12, 2), 128);
  // k: to a multiple of 8 when longer than 64 and not a multiple of 8.
  EXPECT_EQ(getCPUPaddedSize("k", 127, 16), 128);
  EXPECT_EQ(getCPUPaddedSize("k", 129, 16), 136);
  EXPECT_EQ(getCPUPaddedSize("k", 197, 16), 200);
  EXPECT_EQ(getCPUPaddedSize("k", 1000, 16), 1000);
  EXPECT_EQ(getCPUPaddedSize("k", 61, 16), 61);
  // Other loops never.
  EXPECT_EQ(getCPUPaddedSize("b", 127, 16), 127);
  EXPECT_EQ(getCPUPaddedSize("f", 127, 16), 127);
  EXPECT_TRUE(isCPUPaddableOpKind("matmul"));
  EXPECT_TRUE(isCPUPaddableOpKind("batch_matmul"));
  EXPECT_TRUE(isCPUPaddableOpKind("matmul_transpose_b"));
  EXPECT_TRUE(isCPUPaddableOpKind("batch_matmul_transpose_ab"));
  // Convs pad only their output rows (getCPUPaddedConvRows,
  // getCPUPaddedIm2colRows); grouped ones never.
  EXPECT_TRUE(isCPUPaddableOpKind("conv_2d_nhwc_fhwc"));
  EXPECT_TRUE(isCPUPaddableOpKind("conv_2d_nhwc_hwcf"));
  EXPECT_TRUE(isCPUPaddableOpKind("conv_2d_nchw_fchw"));
  EXPECT_FALSE(isCPUPaddableOpKind("conv_2d_ngchw_fgchw"));
}

TEST(PaddingTest, PadsRowsOfRaggedIm2colGemms) {
  // AVX2's 6 rows of two vectors: a 7x7 map (49 pixels, no divisor from 4
  // to 6) -> 12 rows, a 13x13 one -> 18; a 3x3 map (9 pixels: 3 rows of
  // the 6) -> 4, its period 6 / gcd(6, 3) = 2 rows.
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 7, 7, 6, true),
            12);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNhwcFhwc, 1, 13, 13, 6, true),
            18);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNhwcFhwc, 1, 3, 3, 6, true), 4);
  // AVX-512's 12 or 14 rows: 7 divides 49.
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 7, 7, 12, true), 7);
  // 5x5: 5 of 6 rows. 7x14 (98 pixels: 2 of 6) -> 9, a multiple of
  // 6 / gcd(6, 14) = 3 rows.
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 5, 5, 6, true), 5);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 7, 14, 6, true),
            9);
  // HWCF filters as well (since 2026-12-07; getCPUPaddedConvRows pads the
  // direct conv's rows the same where its strides are 1).
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNhwcHwcf, 1, 7, 7, 6, true), 12);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNhwcHwcf, 1, 13, 13, 6, true),
            18);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNhwcHwcf, 1, 7, 7, 12, true), 7);
  // Never: rows that are not prime (27x27), maps wider than 14, batches,
  // buffers, grouped convs.
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 27, 27, 6, true),
            27);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 7, 17, 6, true),
            7);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 8, 7, 7, 6, true), 7);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNchwFchw, 1, 7, 7, 6, false),
            7);
  EXPECT_EQ(getCPUPaddedIm2colRows(OpKind::ConvNgchwFgchw, 1, 7, 7, 6, true),
            7);
}

TEST(PaddingTest, PadsRowsOfRaggedPointwiseGemms) {
  auto rows = [](OpKind kind, int64_t batch, int64_t rows, int64_t columns,
                 int64_t registerRows, bool onTensors = true) {
    return getCPUPaddedIm2colRows(kind, batch, rows, columns, registerRows,
                                  onTensors, /*pointwise=*/true);
  };
  // AVX2's 6 rows: 56x56, 28x28 and 14x14 maps (4-row divisors) pad to a
  // multiple of 6 / gcd(6, columns) = 3 rows, on any map width and with
  // rows that are not prime; FHWC and HWCF filters.
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 56, 56, 6), 57);
  EXPECT_EQ(rows(OpKind::ConvNhwcHwcf, 1, 56, 56, 6), 57);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 28, 28, 6), 30);
  EXPECT_EQ(rows(OpKind::ConvNhwcHwcf, 1, 14, 14, 6), 15);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 7, 7, 6), 12);
  // Pixels with 6 rows (12x12, 6 | 144) or 5 (the matmul rule's 10
  // accumulators are too few: 5x5 -> 6 rows, a multiple of 6 / gcd(6, 5)).
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 12, 12, 6), 12);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 5, 5, 6), 6);
  // AVX-512's 12 rows: 56 x 56 = 8 x 392 and 14 x 14 = 7 x 28 give 8 and
  // 7 rows of two vectors, 16 and 14 accumulators.
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 56, 56, 12), 56);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 14, 14, 12), 14);
  // Never: batches, buffers, NCHW (per image, pixels on the lanes), one
  // row; the prime rows of a small map are padded by the prime rule
  // (HWCF's by getCPUPaddedConvRows, the same 12).
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 8, 56, 56, 6), 56);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 56, 56, 6, false), 56);
  EXPECT_EQ(rows(OpKind::ConvNchwFchw, 1, 56, 56, 6), 56);
  EXPECT_EQ(rows(OpKind::ConvNhwcFhwc, 1, 1, 56, 6), 1);
  EXPECT_EQ(rows(OpKind::ConvNhwcHwcf, 1, 7, 7, 6), 12);
  EXPECT_EQ(rows(OpKind::ConvNhwcHwcf, 1, 7, 7, 12), 7);
}

TEST(PaddingTest, PadsOddConvRowsOfSmallMaps) {
  const std::array<int64_t, 2> unit = {1, 1}, two = {2, 2};
  // getCPUPaddedConvRows of a batch-1 HWCF conv on tensors by default.
  auto rows = [&](int64_t rows, int64_t columns, int64_t registerRows,
                  std::array<int64_t, 2> strides = {1, 1},
                  OpKind kind = OpKind::ConvNhwcHwcf, int64_t batch = 1,
                  bool onTensors = true) {
    return getCPUPaddedConvRows(kind, batch, rows, columns, strides,
                                registerRows, onTensors);
  };
  // ResNet-50's 7x7 maps: 7 rows -> 8, for two-row register tiles (12
  // rows of two vectors: AVX-512; 7 of them divide 49), and a 5x5 map.
  EXPECT_EQ(rows(7, 7, 12), 8);
  EXPECT_EQ(rows(5, 5, 12), 6);
  // Where the im2col GEMM's register rows lack divisors of the pixels,
  // its padded rows (getCPUPaddedPrimeRows), which two-row tiles divide
  // too: 13x13 -> 24 for 12 rows; on AVX2's 6, 7 -> 12, 13 -> 18 (5x5
  // has 5 rows of 6: +1).
  EXPECT_EQ(rows(13, 13, 12), 24);
  EXPECT_EQ(rows(7, 7, 6), 12);
  EXPECT_EQ(rows(13, 13, 6), 18);
  EXPECT_EQ(rows(5, 5, 6), 6);
  // Even rows, one row, wide maps, strides, batches, buffers, FHWC filters
  // (transposed into packed tiles whatever the rows) and NCHW: never.
  EXPECT_EQ(rows(14, 14, 12), 14);
  EXPECT_EQ(rows(1, 7, 12), 1);
  EXPECT_EQ(rows(27, 27, 12), 27);
  EXPECT_EQ(rows(7, 7, 12, two), 7);
  EXPECT_EQ(rows(7, 7, 6, two), 7);
  EXPECT_EQ(rows(7, 7, 12, unit, OpKind::ConvNhwcHwcf, 8), 7);
  EXPECT_EQ(rows(7, 7, 12, unit, OpKind::ConvNhwcHwcf, 1, false), 7);
  EXPECT_EQ(rows(7, 7, 12, unit, OpKind::ConvNhwcFhwc), 7);
  EXPECT_EQ(rows(7, 7, 6, unit, OpKind::ConvNchwFchw), 7);
}

} // namespace
