//===- ReferenceTest.cpp - Tests of the C++ reference kernels -------------===//
//
// Each reference against a naive loop nest written straight from the op's
// definition, on small odd shapes (with strides and dilations for convs).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/Reference.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

Buffer random(ElementType type, llvm::ArrayRef<int64_t> shape, uint64_t seed) {
  Buffer b = llvm::cantFail(Buffer::create(type, shape));
  b.fillRandom(seed);
  return b;
}

void expectClose(const Buffer &actual, const Buffer &expected, int64_t k) {
  auto cmp = compareBuffers(actual, expected,
                            Tolerance::forReduction(
                                actual.getElementType(), k));
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(cmp->passed) << cmp->summary();
}

TEST(ReferenceTest, MatmulAccumulates) {
  const int64_t m = 37, n = 530, k = 150; // crosses the internal blocking.
  Buffer a = random(ElementType::F32, {m, k}, 1);
  Buffer b = random(ElementType::F32, {k, n}, 2);
  Buffer c = random(ElementType::F32, {m, n}, 3);
  Buffer expected = c.clone();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = expected.getAsDouble(i * n + j);
      for (int64_t p = 0; p < k; ++p)
        acc += a.getAsDouble(i * k + p) * b.getAsDouble(p * n + j);
      expected.setFromDouble(i * n + j, acc);
    }
  ASSERT_FALSE(static_cast<bool>(referenceMatmul(a, b, c)));
  expectClose(c, expected, k);
}

TEST(ReferenceTest, MatmulRejectsBadShapes) {
  Buffer a = random(ElementType::F32, {4, 5}, 1);
  Buffer b = random(ElementType::F32, {6, 3}, 2);
  Buffer c = random(ElementType::F32, {4, 3}, 3);
  llvm::Error err = referenceMatmul(a, b, c);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("incompatible"),
            std::string::npos);
  Buffer d = random(ElementType::F64, {5, 3}, 2);
  llvm::Error typeErr = referenceMatmul(a, d, c);
  EXPECT_TRUE(static_cast<bool>(typeErr));
  llvm::consumeError(std::move(typeErr));
}

TEST(ReferenceTest, BatchMatmulF64) {
  const int64_t bs = 3, m = 5, n = 7, k = 9;
  Buffer a = random(ElementType::F64, {bs, m, k}, 4);
  Buffer b = random(ElementType::F64, {bs, k, n}, 5);
  Buffer c = llvm::cantFail(Buffer::create(ElementType::F64, {bs, m, n}));
  Buffer expected = c.clone();
  for (int64_t q = 0; q < bs; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += a.getAsDouble((q * m + i) * k + p) *
                 b.getAsDouble((q * k + p) * n + j);
        expected.setFromDouble((q * m + i) * n + j, acc);
      }
  ASSERT_FALSE(static_cast<bool>(referenceBatchMatmul(a, b, c)));
  expectClose(c, expected, k);
}

// Every transposed form of batch_matmul against the loop nest read straight
// from the indexing maps: A[b][m][k] or A[b][k][m], B[b][k][n] or B[b][n][k].
TEST(ReferenceTest, TransposedBatchMatmulForms) {
  const int64_t bs = 2, m = 5, n = 7, k = 3;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Buffer a = random(ElementType::F32,
                        ta ? llvm::ArrayRef<int64_t>{bs, k, m}
                           : llvm::ArrayRef<int64_t>{bs, m, k},
                        11);
      Buffer b = random(ElementType::F32,
                        tb ? llvm::ArrayRef<int64_t>{bs, n, k}
                           : llvm::ArrayRef<int64_t>{bs, k, n},
                        12);
      Buffer c = random(ElementType::F32, {bs, m, n}, 13);
      Buffer expected = c.clone();
      for (int64_t q = 0; q < bs; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = expected.getAsDouble((q * m + i) * n + j);
            for (int64_t p = 0; p < k; ++p) {
              int64_t ai = ta ? (q * k + p) * m + i : (q * m + i) * k + p;
              int64_t bi = tb ? (q * n + j) * k + p : (q * k + p) * n + j;
              acc += a.getAsDouble(ai) * b.getAsDouble(bi);
            }
            expected.setFromDouble((q * m + i) * n + j, acc);
          }
      ASSERT_FALSE(static_cast<bool>(
          referenceMatmulForm(a, b, c, /*batched=*/true, ta, tb)));
      expectClose(c, expected, k);
    }
  // Shapes that do not fit the form are errors, not crashes.
  Buffer a = random(ElementType::F32, {4, 5}, 1);
  Buffer b = random(ElementType::F32, {6, 5}, 2);
  Buffer c = random(ElementType::F32, {4, 3}, 3);
  llvm::Error err = referenceMatmulForm(a, b, c, false, false, true);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
}

// conv_2d_nhwc_fhwc: O[n][y][x][f] += I[n][y*s+r*d][x*s+q*d][c] * F[f][r][q][c].
TEST(ReferenceTest, ConvNhwcFhwcStridedDilated) {
  const int64_t n = 2, c = 3, f = 5, kh = 2, kw = 3, oh = 3, ow = 4;
  Conv2DParams p;
  p.strides = {2, 1};
  p.dilations = {1, 2};
  int64_t ih = (oh - 1) * 2 + (kh - 1) * 1 + 1;
  int64_t iw = (ow - 1) * 1 + (kw - 1) * 2 + 1;
  Buffer in = random(ElementType::F64, {n, ih, iw, c}, 21);
  Buffer flt = random(ElementType::F64, {f, kh, kw, c}, 22);
  Buffer out = random(ElementType::F64, {n, oh, ow, f}, 23);
  Buffer expected = out.clone();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t o = 0; o < f; ++o) {
          int64_t oi = ((b * oh + y) * ow + x) * f + o;
          double acc = expected.getAsDouble(oi);
          for (int64_t r = 0; r < kh; ++r)
            for (int64_t q = 0; q < kw; ++q)
              for (int64_t ch = 0; ch < c; ++ch) {
                int64_t iy = y * 2 + r, ix = x + q * 2;
                acc += in.getAsDouble(((b * ih + iy) * iw + ix) * c + ch) *
                       flt.getAsDouble(((o * kh + r) * kw + q) * c + ch);
              }
          expected.setFromDouble(oi, acc);
        }
  ASSERT_FALSE(
      static_cast<bool>(referenceConv2DNhwcFhwc(in, flt, out, p)));
  expectClose(out, expected, kh * kw * c);
}

/// Group `g` of `grouped`, whose dims are permuted by `perm` so the group
/// dim comes first, as a buffer of shape `shape` (the other dims in order).
Buffer groupOf(const Buffer &grouped, llvm::ArrayRef<int64_t> perm, int64_t g,
               llvm::ArrayRef<int64_t> shape) {
  Buffer permuted = llvm::cantFail(permuteBuffer(grouped, perm));
  Buffer block =
      llvm::cantFail(Buffer::create(grouped.getElementType(), shape));
  int64_t size = block.getNumElements();
  for (int64_t i = 0; i < size; ++i)
    block.setFromDouble(i, permuted.getAsDouble(g * size + i));
  return block;
}

// The grouped convs, group by group, against the plain conv references of
// each group's slices (both layouts; G = 3, C/G = 2, F/G = 5, strides and
// dilations, odd sizes), and G = 1 against the plain conv itself.
TEST(ReferenceTest, GroupedConvsAreConvsPerGroup) {
  const int64_t n = 2, g = 3, c = 2, f = 5, kh = 2, kw = 3, oh = 3, ow = 4;
  Conv2DParams p;
  p.strides = {2, 1};
  p.dilations = {1, 2};
  int64_t ih = (oh - 1) * 2 + (kh - 1) * 1 + 1;
  int64_t iw = (ow - 1) * 1 + (kw - 1) * 2 + 1;
  for (bool nhwgc : {false, true}) {
    SCOPED_TRACE(nhwgc ? "nhwgc_gfhwc" : "ngchw_fgchw");
    llvm::SmallVector<int64_t> inShape =
        nhwgc ? llvm::SmallVector<int64_t>{n, ih, iw, g, c}
              : llvm::SmallVector<int64_t>{n, g, c, ih, iw};
    llvm::SmallVector<int64_t> fltShape =
        nhwgc ? llvm::SmallVector<int64_t>{g, f, kh, kw, c}
              : llvm::SmallVector<int64_t>{f, g, c, kh, kw};
    llvm::SmallVector<int64_t> outShape =
        nhwgc ? llvm::SmallVector<int64_t>{n, oh, ow, g, f}
              : llvm::SmallVector<int64_t>{n, g, f, oh, ow};
    Buffer in = random(ElementType::F64, inShape, 31);
    Buffer flt = random(ElementType::F64, fltShape, 32);
    Buffer out = random(ElementType::F64, outShape, 33);
    Buffer init = out.clone();
    llvm::Error err = nhwgc ? referenceConv2DNhwgcGfhwc(in, flt, out, p)
                            : referenceConv2DNgchwFgchw(in, flt, out, p);
    ASSERT_FALSE(static_cast<bool>(err));
    // Group dim first: NHWGC -> GNHWC, GFHWC as is, NHWGF -> GNHWF;
    // NGCHW -> GNCHW, FGCHW -> GFCHW, NGFHW -> GNFHW.
    llvm::SmallVector<int64_t> inPerm =
        nhwgc ? llvm::SmallVector<int64_t>{3, 0, 1, 2, 4}
              : llvm::SmallVector<int64_t>{1, 0, 2, 3, 4};
    llvm::SmallVector<int64_t> fltPerm =
        nhwgc ? llvm::SmallVector<int64_t>{0, 1, 2, 3, 4}
              : llvm::SmallVector<int64_t>{1, 0, 2, 3, 4};
    for (int64_t q = 0; q < g; ++q) {
      llvm::SmallVector<int64_t> in4 =
          nhwgc ? llvm::SmallVector<int64_t>{n, ih, iw, c}
                : llvm::SmallVector<int64_t>{n, c, ih, iw};
      llvm::SmallVector<int64_t> flt4 =
          nhwgc ? llvm::SmallVector<int64_t>{f, kh, kw, c}
                : llvm::SmallVector<int64_t>{f, c, kh, kw};
      llvm::SmallVector<int64_t> out4 =
          nhwgc ? llvm::SmallVector<int64_t>{n, oh, ow, f}
                : llvm::SmallVector<int64_t>{n, f, oh, ow};
      Buffer gin = groupOf(in, inPerm, q, in4);
      Buffer gflt = groupOf(flt, fltPerm, q, flt4);
      Buffer expected = groupOf(init, inPerm, q, out4);
      Buffer actual = groupOf(out, inPerm, q, out4);
      llvm::Error plain = nhwgc
                              ? referenceConv2DNhwcFhwc(gin, gflt, expected, p)
                              : referenceConv2DNchwFchw(gin, gflt, expected, p);
      ASSERT_FALSE(static_cast<bool>(plain));
      expectClose(actual, expected, kh * kw * c);
    }
  }
  // G = 1 is the plain conv (NHWGC with G = 1 has the NHWC memory order).
  Buffer in = random(ElementType::F32, {1, 6, 7, 1, 3}, 41);
  Buffer flt = random(ElementType::F32, {1, 4, 3, 3, 3}, 42);
  Buffer out = random(ElementType::F32, {1, 4, 5, 1, 4}, 43);
  Buffer in4 = groupOf(in, {3, 0, 1, 2, 4}, 0, {1, 6, 7, 3});
  Buffer flt4 = groupOf(flt, {0, 1, 2, 3, 4}, 0, {4, 3, 3, 3});
  Buffer expected = groupOf(out, {3, 0, 1, 2, 4}, 0, {1, 4, 5, 4});
  ASSERT_FALSE(static_cast<bool>(referenceConv2DNhwgcGfhwc(in, flt, out)));
  ASSERT_FALSE(static_cast<bool>(referenceConv2DNhwcFhwc(in4, flt4, expected)));
  expectClose(groupOf(out, {3, 0, 1, 2, 4}, 0, {1, 4, 5, 4}), expected, 27);
  // Shapes that do not fit (the filter's groups differ) are errors.
  Buffer bad = random(ElementType::F32, {2, 4, 3, 3, 3}, 44);
  llvm::Error err = referenceConv2DNhwgcGfhwc(in, bad, out);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
  Buffer badIn = random(ElementType::F32, {1, 1, 3, 6, 7}, 45);
  Buffer badFlt = random(ElementType::F32, {4, 1, 3, 3, 3}, 46);
  Buffer badOut = random(ElementType::F32, {1, 1, 4, 9, 5}, 47);
  err = referenceConv2DNgchwFgchw(badIn, badFlt, badOut);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
}

struct ConvCase {
  int64_t n, c, h, w, f, kh, kw;
  Conv2DParams params;
};

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, NhwcHwcfMatchesDefinition) {
  ConvCase cc = GetParam();
  auto &p = cc.params;
  int64_t oh = (cc.h - (cc.kh - 1) * p.dilations[0] - 1) / p.strides[0] + 1;
  int64_t ow = (cc.w - (cc.kw - 1) * p.dilations[1] - 1) / p.strides[1] + 1;
  Buffer in = random(ElementType::F32, {cc.n, cc.h, cc.w, cc.c}, 6);
  Buffer flt = random(ElementType::F32, {cc.kh, cc.kw, cc.c, cc.f}, 7);
  Buffer out = random(ElementType::F32, {cc.n, oh, ow, cc.f}, 8);
  Buffer expected = out.clone();
  for (int64_t b = 0; b < cc.n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t q = 0; q < cc.f; ++q) {
          int64_t oi = ((b * oh + y) * ow + x) * cc.f + q;
          double acc = expected.getAsDouble(oi);
          for (int64_t r = 0; r < cc.kh; ++r)
            for (int64_t s = 0; s < cc.kw; ++s)
              for (int64_t ch = 0; ch < cc.c; ++ch) {
                int64_t iy = y * p.strides[0] + r * p.dilations[0];
                int64_t ix = x * p.strides[1] + s * p.dilations[1];
                acc += in.getAsDouble(((b * cc.h + iy) * cc.w + ix) * cc.c +
                                      ch) *
                       flt.getAsDouble(((r * cc.kw + s) * cc.c + ch) * cc.f +
                                       q);
              }
          expected.setFromDouble(oi, acc);
        }
  ASSERT_FALSE(static_cast<bool>(referenceConv2DNhwcHwcf(in, flt, out, p)));
  expectClose(out, expected, cc.kh * cc.kw * cc.c);
}

TEST_P(ConvTest, NchwFchwMatchesDefinition) {
  ConvCase cc = GetParam();
  auto &p = cc.params;
  int64_t oh = (cc.h - (cc.kh - 1) * p.dilations[0] - 1) / p.strides[0] + 1;
  int64_t ow = (cc.w - (cc.kw - 1) * p.dilations[1] - 1) / p.strides[1] + 1;
  Buffer in = random(ElementType::F64, {cc.n, cc.c, cc.h, cc.w}, 9);
  Buffer flt = random(ElementType::F64, {cc.f, cc.c, cc.kh, cc.kw}, 10);
  Buffer out = random(ElementType::F64, {cc.n, cc.f, oh, ow}, 11);
  Buffer expected = out.clone();
  for (int64_t b = 0; b < cc.n; ++b)
    for (int64_t q = 0; q < cc.f; ++q)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          int64_t oi = ((b * cc.f + q) * oh + y) * ow + x;
          double acc = expected.getAsDouble(oi);
          for (int64_t ch = 0; ch < cc.c; ++ch)
            for (int64_t r = 0; r < cc.kh; ++r)
              for (int64_t s = 0; s < cc.kw; ++s) {
                int64_t iy = y * p.strides[0] + r * p.dilations[0];
                int64_t ix = x * p.strides[1] + s * p.dilations[1];
                acc += in.getAsDouble(((b * cc.c + ch) * cc.h + iy) * cc.w +
                                      ix) *
                       flt.getAsDouble(((q * cc.c + ch) * cc.kh + r) * cc.kw +
                                       s);
              }
          expected.setFromDouble(oi, acc);
        }
  ASSERT_FALSE(static_cast<bool>(referenceConv2DNchwFchw(in, flt, out, p)));
  expectClose(out, expected, cc.kh * cc.kw * cc.c);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTest,
    ::testing::Values(ConvCase{1, 3, 8, 8, 4, 3, 3, {}},
                      ConvCase{2, 5, 11, 9, 6, 3, 2, {{2, 1}, {1, 1}}},
                      ConvCase{1, 4, 13, 12, 3, 3, 3, {{1, 2}, {2, 1}}},
                      ConvCase{2, 2, 15, 15, 5, 5, 5, {{2, 2}, {2, 2}}}));

TEST(ReferenceTest, ConvRejectsTooSmallInput) {
  Buffer in = random(ElementType::F32, {1, 4, 4, 2}, 1);
  Buffer flt = random(ElementType::F32, {3, 3, 2, 2}, 2);
  Buffer out = random(ElementType::F32, {1, 3, 3, 2}, 3); // needs 5x5 input
  llvm::Error err = referenceConv2DNhwcHwcf(in, flt, out);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
  Conv2DParams bad;
  bad.strides = {0, 1};
  Buffer out2 = random(ElementType::F32, {1, 2, 2, 2}, 3);
  llvm::Error err2 = referenceConv2DNhwcHwcf(in, flt, out2, bad);
  EXPECT_TRUE(static_cast<bool>(err2));
  llvm::consumeError(std::move(err2));
}

} // namespace
