//===- OperatorSpacesTest.cpp - Tests of the operator spaces -------------===//
//
// The G-BFS matmul space sizes of the papers, the OpEvo cuda and the CPU
// spaces against CONFIG.md's schema, brute-force counts of constrained
// spaces, AutoMCL's transformations and the factor-list conversion.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/OperatorSpaces.h"

#include "llvm/Support/Casting.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::tiletune;
using llvm::SmallVector;

namespace {

/// Options without the bounds of the host's CPU target (register file,
/// L2), so that counts do not depend on the machine; the target bounds have
/// tests of their own with explicit registers and caches.
SpaceOptions untargeted() {
  SpaceOptions o;
  o.vectorRegisters = 0;
  o.cacheBytes = 0;
  return o;
}

Space buildOrDie(const ProblemSpec &p, const SpaceOptions &o = untargeted()) {
  auto s = buildSpace(p, o);
  if (!s) {
    ADD_FAILURE() << llvm::toString(s.takeError());
    return Space();
  }
  return *s;
}

ProblemSpec problemOrDie(llvm::StringRef kind, llvm::StringRef target,
                         llvm::ArrayRef<int64_t> sizes) {
  auto p = makeProblemSpec(kind, target, sizes);
  if (!p) {
    ADD_FAILURE() << llvm::toString(p.takeError());
    return ProblemSpec();
  }
  return *p;
}

/// Brute-force ordered factorizations (independent of the library).
void tuples(int64_t c, unsigned nu, SmallVector<int64_t> &prefix,
            std::vector<SmallVector<int64_t>> &out) {
  if (nu == 1) {
    prefix.push_back(c);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t d = 1; d <= c; ++d)
    if (c % d == 0) {
      prefix.push_back(d);
      tuples(c / d, nu - 1, prefix, out);
      prefix.pop_back();
    }
}
std::vector<SmallVector<int64_t>> tuples(int64_t c, unsigned nu) {
  std::vector<SmallVector<int64_t>> out;
  SmallVector<int64_t> prefix;
  tuples(c, nu, prefix, out);
  return out;
}

TEST(PaperMatmulSpace, ExactSizes) {
  EXPECT_EQ(buildPaperMatmulSpace(512, 512, 512).countProduct(), 484000u);
  EXPECT_EQ(buildPaperMatmulSpace(1024, 1024, 1024).countProduct(), 899756u);
  EXPECT_EQ(buildPaperMatmulSpace(2048, 2048, 2048).countProduct(), 1589952u);
}

TEST(PaperMatmulSpace, StartStateAndBruteForce) {
  Space s = buildPaperMatmulSpace(1024, 1024, 1024);
  EXPECT_EQ(s.getKey(s.getDefault()),
            "m=[1024,1,1,1];k=[1024,1];n=[1024,1,1,1]");
  // Small case against brute force: 48 x 20 x 36.
  Space t = buildPaperMatmulSpace(48, 20, 36);
  EXPECT_EQ(t.countProduct(),
            tuples(48, 4).size() * tuples(20, 2).size() * tuples(36, 4).size());
}

TEST(CpuSpace, MatmulSchema) {
  Space s = buildOrDie(problemOrDie("matmul", "cpu", {1024, 1024, 1024}));
  ASSERT_EQ(s.getNumParameters(), 7u);
  const char *names[] = {"m", "n", "k", "order", "vectorize", "pack", "unroll"};
  unsigned widths[] = {4, 4, 2, 3, 1, 1, 1};
  for (unsigned i = 0; i < 7; ++i) {
    EXPECT_EQ(s.getParameter(i).getName(), names[i]);
    EXPECT_EQ(s.getParameter(i).getWidth(), widths[i]);
  }
  EXPECT_EQ(s.getKey(s.getDefault()),
            "m=[1024,1,1,1];n=[1024,1,1,1];k=[1024,1];order=[m,n,k];"
            "vectorize=true;pack=none;unroll=1");
  EXPECT_TRUE(s.isValid(s.getDefault()));
  EXPECT_EQ(s.countProduct(), 286u * 286 * 11 * 6 * 2 * 4 * 4);

  std::string why;
  Config c = *s.parseKey("m=[2,16,1,32];n=[2,16,1,32];k=[4,256];order=[n,k,m];"
                         "vectorize=true;pack=none;unroll=1");
  EXPECT_TRUE(s.isValid(c, &why)) << why; // 32 x 32 = 1024 is allowed
  Config d = *s.parseKey("m=[2,16,4,8];n=[2,16,1,32];k=[512,2];order=[n,k,m];"
                         "vectorize=true;pack=none;unroll=4");
  EXPECT_FALSE(s.isValid(d, &why));
  EXPECT_EQ(why, "unroll-divides-cache-tile: unroll 4 does not divide the "
                 "cache tile 2 of 'k'");
}

// `pack = bt` (AutoMCL's ttmm) is searched only where B is stored
// transposed, [b?][n][k].
TEST(CpuSpace, TransposedBSearchesTTMM) {
  auto packChoices = [](llvm::StringRef kind, std::vector<int64_t> sizes) {
    Space s = buildOrDie(problemOrDie(kind, "cpu", sizes));
    std::vector<std::string> choices;
    for (const std::string &c :
         llvm::cast<CategoricalParam>(s.getParameter(*s.lookup("pack")))
             .getChoices())
      choices.push_back(c);
    return choices;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(packChoices("matmul", {64, 64, 64}), (V{"none", "a", "b", "ab"}));
  EXPECT_EQ(packChoices("matmul_transpose_a", {64, 64, 64}),
            (V{"none", "a", "b", "ab"}));
  EXPECT_EQ(packChoices("matmul_transpose_b", {64, 64, 64}),
            (V{"none", "a", "b", "ab", "bt", "dn"}));
  EXPECT_EQ(packChoices("batch_matmul_transpose_b", {2, 64, 64, 64}),
            (V{"none", "a", "b", "ab", "bt", "dn"}));
  // dnmm332 reads A along k too: not where A is stored [b?][k][m].
  EXPECT_EQ(packChoices("batch_matmul_transpose_ab", {2, 64, 64, 64}),
            (V{"none", "a", "b", "ab", "bt"}));
}

TEST(CpuSpace, DnmmRegisterFile) {
  // pack = dn counts rm x rn accumulators + rm + rn vectors.
  SpaceOptions options = untargeted();
  options.vectorRegisters = 32;
  options.vectorBytes = 64;
  Space s = buildOrDie(problemOrDie("matmul_transpose_b", "cpu", {64, 64, 64}),
                       options);
  Config fits = *s.parseKey("m=[1,1,16,4];n=[1,1,16,4];k=[1,64];"
                            "order=[m,n,k];vectorize=true;pack=dn;unroll=1");
  std::string why;
  EXPECT_TRUE(s.isValid(fits, &why)) << why;
  Config spills = *s.parseKey("m=[1,1,8,8];n=[1,1,16,4];k=[1,64];"
                              "order=[m,n,k];vectorize=true;pack=dn;unroll=1");
  EXPECT_FALSE(s.isValid(spills, &why));
  EXPECT_EQ(why, "register-file: dnmm register tile of 8 x 4 needs 44 vector "
                 "registers, the target has 32");
}

TEST(CpuSpace, RegisterLimitMessage) {
  Space s = buildOrDie(problemOrDie("matmul", "cpu", {64, 64, 64}));
  Config c = *s.parseKey("m=[1,1,1,64];n=[1,1,1,64];k=[1,64];order=[m,n,k];"
                         "vectorize=true;pack=none;unroll=1");
  std::string why;
  EXPECT_FALSE(s.isValid(c, &why));
  EXPECT_EQ(why, "register-tile-limit: register tile has 4096 elements, more "
                 "than 1024");
}

TEST(CpuSpace, ConstrainedCountMatchesBruteForce) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {16, 16, 8});
  SpaceOptions o = untargeted();
  o.maxRegisterTile = 64;
  Space s = buildOrDie(p, o);
  uint64_t brute = 0;
  for (auto &m : tuples(16, 4))
    for (auto &n : tuples(16, 4))
      for (auto &k : tuples(8, 2))
        for (int64_t unroll : {1, 2, 4, 8})
          if (m[3] * n[3] <= 64 && k[1] % unroll == 0)
            ++brute;
  brute *= 6 * 2 * 4; // order, vectorize, pack
  auto counted = s.countValid();
  ASSERT_TRUE(bool(counted)) << llvm::toString(counted.takeError());
  EXPECT_EQ(*counted, brute);
}

TEST(CpuSpace, RegisterFileBoundMatchesBruteForce) {
  // An AVX2-like target: 16 registers of 8 f32 lanes. A vectorized tile of
  // r rows x v vectors needs r*v + v + 1 registers; unvectorized ones are
  // not bounded.
  ProblemSpec p = problemOrDie("matmul", "cpu", {16, 16, 8});
  SpaceOptions o = untargeted();
  o.vectorRegisters = 16;
  o.vectorBytes = 32;
  Space s = buildOrDie(p, o);
  uint64_t brute = 0;
  for (auto &m : tuples(16, 4))
    for (auto &n : tuples(16, 4))
      for (auto &k : tuples(8, 2))
        for (int64_t unroll : {1, 2, 4, 8}) {
          if (k[1] % unroll != 0)
            continue;
          int64_t vectors = (n[3] + 7) / 8;
          bool fits = m[3] * vectors + vectors + 1 <= 16;
          brute += (fits ? 2 : 1) * 6 * 4; // vectorize, order, pack
        }
  auto counted = s.countValid();
  ASSERT_TRUE(bool(counted)) << llvm::toString(counted.takeError());
  EXPECT_EQ(*counted, brute);

  Space wide = buildOrDie(problemOrDie("matmul", "cpu", {64, 64, 64}), o);
  Config c = *wide.parseKey("m=[1,1,8,8];n=[1,1,2,32];k=[1,64];order=[n,k,m];"
                            "vectorize=true;pack=none;unroll=1");
  std::string why;
  EXPECT_FALSE(wide.isValid(c, &why));
  EXPECT_EQ(why, "register-file: register tile of 8 x 4 vectors needs 37 "
                 "vector registers, the target has 16");
  // 6 x 16 (OpenBLAS's Haswell kernel) fits: 12 + 2 + 1 = 15.
  Space six = buildOrDie(problemOrDie("matmul", "cpu", {48, 64, 64}), o);
  Config d = *six.parseKey("m=[1,1,8,6];n=[1,1,4,16];k=[1,64];order=[n,k,m];"
                           "vectorize=true;pack=none;unroll=1");
  EXPECT_TRUE(six.isValid(d, &why)) << why;
  // The same tile is fine with AVX-512's 32 registers of 16 lanes.
  o.vectorRegisters = 32;
  o.vectorBytes = 64;
  EXPECT_TRUE(
      buildOrDie(problemOrDie("matmul", "cpu", {64, 64, 64}), o).isValid(c));
}

TEST(CpuSpace, CacheFitMessage) {
  SpaceOptions o = untargeted();
  o.cacheBytes = 1 << 20; // 262144 f32
  Space s = buildOrDie(problemOrDie("matmul", "cpu", {1024, 1024, 1024}), o);
  Config c = *s.parseKey("m=[1,16,8,8];n=[1,2,16,32];k=[1,1024];order=[n,k,m];"
                         "vectorize=true;pack=ab;unroll=4");
  std::string why;
  EXPECT_FALSE(s.isValid(c, &why));
  EXPECT_EQ(why, "cache-fit: cache tile holds 622592 elements, the L2 262144");
  Config d = *s.parseKey("m=[1,16,8,8];n=[1,2,16,32];k=[4,256];order=[n,k,m];"
                         "vectorize=true;pack=ab;unroll=4");
  EXPECT_TRUE(s.isValid(d, &why)) << why;
}

TEST(CpuSpace, BatchAndConvSchema) {
  Space b = buildOrDie(problemOrDie("batch_matmul", "cpu", {8, 64, 64, 32}));
  EXPECT_EQ(b.getParameter(0).getName(), "b");
  EXPECT_EQ(b.getParameter(0).getWidth(), 2u);
  auto &order = llvm::cast<PermutationParam>(b.getParameter(4));
  EXPECT_EQ(order.getElements().size(), 3u); // batch dims are not ordered

  Space c = buildOrDie(
      problemOrDie("conv_2d_nhwc_hwcf", "cpu", {1, 56, 56, 64, 3, 3, 32}));
  const char *names[] = {"n", "oh", "ow", "f", "kh", "kw", "c"};
  unsigned widths[] = {2, 4, 4, 4, 2, 2, 2};
  for (unsigned i = 0; i < 7; ++i) {
    EXPECT_EQ(c.getParameter(i).getName(), names[i]);
    EXPECT_EQ(c.getParameter(i).getWidth(), widths[i]);
  }
  EXPECT_EQ(c.getKey(c.getDefault()).find("order=[oh,ow,f,kh,kw,c]") !=
                std::string::npos,
            true);
  Space d = buildOrDie(
      problemOrDie("conv_2d_nchw_fchw", "cpu", {1, 64, 56, 56, 32, 3, 3}));
  EXPECT_NE(d.getKey(d.getDefault()).find("order=[f,oh,ow,c,kh,kw]"),
            std::string::npos);
  // unroll applies to c for convolutions.
  Config x = *d.parseKey("n=[1,1];f=[64,1,1,1];oh=[56,1,1,1];ow=[56,1,1,1];"
                         "c=[16,2];kh=[3,1];kw=[3,1];order=[f,oh,ow,c,kh,kw];"
                         "vectorize=true;pack=none;unroll=4;layout=native;"
                         "im2col=false");
  std::string why;
  EXPECT_FALSE(d.isValid(x, &why));
  EXPECT_NE(why.find("of 'c'"), std::string::npos);
  // NCHW convs may be computed as NHWC: a layout categorical, native first;
  // NHWC convs have none.
  std::optional<unsigned> layout = d.lookup("layout");
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(d.getParameter(*layout).count(), 2u);
  EXPECT_NE(d.getKey(d.getDefault()).find("layout=native"), std::string::npos);
  EXPECT_FALSE(c.lookup("layout").has_value());
  // Both search im2col (direct first); NCHW's needs layout = nhwc.
  ASSERT_TRUE(c.lookup("im2col").has_value());
  EXPECT_NE(c.getKey(c.getDefault()).find("im2col=false"), std::string::npos);
  Config nchwIm2col = *d.parseKey(
      "n=[1,1];f=[64,1,1,1];oh=[56,1,1,1];ow=[56,1,1,1];c=[16,2];kh=[3,1];"
      "kw=[3,1];order=[f,oh,ow,c,kh,kw];vectorize=true;pack=none;unroll=1;"
      "layout=native;im2col=true");
  EXPECT_FALSE(d.isValid(nchwIm2col, &why));
  EXPECT_NE(why.find("layout = nhwc"), std::string::npos) << why;
  Config nhwcIm2col = *d.parseKey(
      "n=[1,1];f=[64,1,1,1];oh=[56,1,1,1];ow=[56,1,1,1];c=[16,2];kh=[3,1];"
      "kw=[3,1];order=[f,oh,ow,c,kh,kw];vectorize=true;pack=none;unroll=1;"
      "layout=nhwc;im2col=true");
  EXPECT_TRUE(d.isValid(nhwcIm2col, &why)) << why;
  // A key written before `im2col` existed (an older database) parses to the
  // direct conv; a missing factorization is still an error.
  llvm::Expected<Config> old = c.parseKey(
      "n=[1,1];oh=[56,1,1,1];ow=[56,1,1,1];f=[64,1,1,1];kh=[3,1];kw=[3,1];"
      "c=[32,1];order=[oh,ow,f,kh,kw,c];vectorize=true;pack=none;unroll=1");
  ASSERT_TRUE(static_cast<bool>(old)) << llvm::toString(old.takeError());
  EXPECT_NE(c.getKey(*old).find("im2col=false"), std::string::npos);
  llvm::Expected<Config> noC = c.parseKey(
      "n=[1,1];oh=[56,1,1,1];ow=[56,1,1,1];f=[64,1,1,1];kh=[3,1];kw=[3,1];"
      "order=[oh,ow,f,kh,kw,c];vectorize=true;pack=none;unroll=1");
  ASSERT_FALSE(static_cast<bool>(noC));
  EXPECT_NE(llvm::toString(noC.takeError()).find("missing parameter 'c'"),
            std::string::npos);
}

// An FHWC conv's space also searches its im2col GEMM's `dn` (the paper's
// Im2colDNMM332), only with im2col = true; dn's register rule counts the
// GEMM's register tile (m = n*oh*ow, n = f). HWCF and NCHW convs have no dn.
TEST(CpuSpace, FhwcConvSearchesIm2colDnmm332) {
  auto packsOf = [](const Space &s) {
    return llvm::cast<CategoricalParam>(s.getParameter(*s.lookup("pack")))
        .getChoices();
  };
  SpaceOptions options;
  options.vectorRegisters = 32;
  options.vectorBytes = 64;
  ProblemSpec p =
      problemOrDie("conv_2d_nhwc_fhwc", "cpu", {1, 7, 7, 64, 1, 1, 32});
  Space fhwc = buildOrDie(p, options);
  EXPECT_TRUE(llvm::is_contained(packsOf(fhwc), "dn"));
  EXPECT_FALSE(llvm::is_contained(packsOf(fhwc), "bt"));
  // HWCF's filter is [KH*KW*C][F]: no dn. An NCHW conv's im2col GEMM
  // through NHWC reads its filter as [F][C*KH*KW]: dn, at any filter size.
  EXPECT_FALSE(llvm::is_contained(
      packsOf(buildOrDie(
          problemOrDie("conv_2d_nhwc_hwcf", "cpu", {1, 7, 7, 64, 1, 1, 32}))),
      "dn"));
  EXPECT_TRUE(llvm::is_contained(
      packsOf(buildOrDie(
          problemOrDie("conv_2d_nchw_fchw", "cpu", {1, 64, 7, 7, 32, 3, 3}))),
      "dn"));
  auto key = [](const char *oh, const char *ow, const char *f, const char *pack,
                const char *im2col) {
    return std::string("n=[1,1];oh=") + oh + ";ow=" + ow + ";f=" + f +
           ";kh=[1,1];kw=[1,1];c=[1,32];order=[oh,ow,f,kh,kw,c];"
           "vectorize=true;pack=" +
           pack + ";unroll=1;im2col=" + im2col;
  };
  std::string why;
  // 1 x 7 output pixels x 2 filters: 14 accumulators + 7 + 2 = 23 registers.
  Config dn =
      *fhwc.parseKey(key("[1,7,1,1]", "[1,1,1,7]", "[1,32,1,2]", "dn", "true"));
  EXPECT_TRUE(fhwc.isValid(dn, &why)) << why;
  Config direct = *fhwc.parseKey(
      key("[1,7,1,1]", "[1,1,1,7]", "[1,32,1,2]", "dn", "false"));
  EXPECT_FALSE(fhwc.isValid(direct, &why));
  EXPECT_NE(why.find("needs im2col = true"), std::string::npos) << why;
  // 7 x 7 pixels x 2 filters: 98 + 49 + 2 registers.
  Config big =
      *fhwc.parseKey(key("[1,1,1,7]", "[1,1,1,7]", "[1,32,1,2]", "dn", "true"));
  EXPECT_FALSE(fhwc.isValid(big, &why));
  EXPECT_NE(why.find("dnmm register tile of 49 x 2 needs 149"),
            std::string::npos)
      << why;
}

// A 1x1 NCHW conv has two im2col GEMMs: per image in its native layout
// ([F][C] x [C][OH*OW], the pixels on the lanes) and through NHWC with its
// FCHW filter read as [F][C] (the filters on the lanes, where dn applies).
// `dn` is searched, with im2col = true and layout = nhwc only; the register
// rule counts each GEMM's register tile.
TEST(CpuSpace, NchwOneByOneSearchesBothIm2colForms) {
  SpaceOptions options;
  options.vectorRegisters = 32;
  options.vectorBytes = 64;
  // n, f, oh, ow, c, kh, kw.
  Space s = buildOrDie(
      problemOrDie("conv_2d_nchw_fchw", "cpu", {1, 64, 7, 7, 32, 1, 1}),
      options);
  const auto &packs =
      llvm::cast<CategoricalParam>(s.getParameter(*s.lookup("pack")))
          .getChoices();
  EXPECT_TRUE(llvm::is_contained(packs, "dn"));
  EXPECT_FALSE(llvm::is_contained(packs, "bt"));
  auto key = [](const char *f, const char *pack, const char *layout,
                const char *im2col) {
    return std::string("n=[1,1];f=") + f +
           ";oh=[1,7,1,1];ow=[1,1,1,7];c=[1,32];kh=[1,1];kw=[1,1];"
           "order=[f,oh,ow,c,kh,kw];vectorize=true;pack=" +
           pack + ";unroll=1;layout=" + layout + ";im2col=" + im2col;
  };
  std::string why;
  // Per image: 8 filter rows x 7 pixels (one vector).
  Config perImage = *s.parseKey(key("[1,8,1,8]", "b", "native", "true"));
  EXPECT_TRUE(s.isValid(perImage, &why)) << why;
  // Through NHWC: dnmm332, 7 pixels x 2 filters: 14 + 7 + 2 registers.
  Config dn = *s.parseKey(key("[1,32,1,2]", "dn", "nhwc", "true"));
  EXPECT_TRUE(s.isValid(dn, &why)) << why;
  for (auto [layout, im2col] :
       {std::pair("native", "true"), std::pair("nhwc", "false")}) {
    Config bad = *s.parseKey(key("[1,32,1,2]", "dn", layout, im2col));
    EXPECT_FALSE(s.isValid(bad, &why)) << layout << " " << im2col;
    EXPECT_NE(why.find("needs im2col = true and layout = nhwc"),
              std::string::npos)
        << why;
  }
  // Per image, 64 filter rows of one vector do not fit 32 registers...
  Config tall = *s.parseKey(key("[1,1,1,64]", "b", "native", "true"));
  EXPECT_FALSE(s.isValid(tall, &why));
  EXPECT_NE(why.find("register tile of 64 x 1 vectors"), std::string::npos)
      << why;
  // ...and through NHWC 7 pixels x 4 vectors of filters (28 + 4 + 1) neither.
  Config wide = *s.parseKey(key("[1,1,1,64]", "b", "nhwc", "true"));
  EXPECT_FALSE(s.isValid(wide, &why));
  EXPECT_NE(why.find("register tile of 7 x 4 vectors"), std::string::npos)
      << why;
  // A 3x3 NCHW conv's im2col goes through NHWC only, reading its FCHW
  // filter as [F][C*KH*KW]: dn applies, with `layout = nhwc`.
  Space big = buildOrDie(
      problemOrDie("conv_2d_nchw_fchw", "cpu", {1, 64, 7, 7, 32, 3, 3}),
      options);
  EXPECT_TRUE(llvm::is_contained(
      llvm::cast<CategoricalParam>(big.getParameter(*big.lookup("pack")))
          .getChoices(),
      "dn"));
  auto bigKey = [](const char *layout) {
    return std::string("n=[1,1];f=[1,32,1,2];oh=[1,7,1,1];ow=[1,1,1,7];"
                       "c=[1,32];kh=[1,3];kw=[1,3];order=[f,oh,ow,c,kh,kw];"
                       "vectorize=true;pack=dn;unroll=1;layout=") +
           layout + ";im2col=true";
  };
  llvm::Expected<Config> nhwc = big.parseKey(bigKey("nhwc"));
  ASSERT_TRUE(bool(nhwc)) << llvm::toString(nhwc.takeError());
  EXPECT_TRUE(big.isValid(*nhwc, &why)) << why;
  llvm::Expected<Config> native = big.parseKey(bigKey("native"));
  ASSERT_TRUE(bool(native)) << llvm::toString(native.takeError());
  EXPECT_FALSE(big.isValid(*native, &why));
  EXPECT_NE(why.find("needs layout = nhwc"), std::string::npos) << why;
}

TEST(CudaSpace, OpEvoTemplates) {
  Space mm = buildOrDie(problemOrDie("matmul", "cuda", {512, 1024, 1024}));
  ASSERT_EQ(mm.getNumParameters(), 3u);
  EXPECT_EQ(mm.getParameter(0).getWidth(), 4u);
  EXPECT_EQ(mm.getParameter(1).getWidth(), 4u);
  EXPECT_EQ(mm.getParameter(2).getWidth(), 3u); // k: global, shared, register
  Space bmm = buildOrDie(problemOrDie("batch_matmul", "cuda", {960, 128, 64, 128}));
  ASSERT_EQ(bmm.getNumParameters(), 4u);
  EXPECT_EQ(bmm.getParameter(0).getWidth(), 2u);
  Space conv = buildOrDie(
      problemOrDie("conv_2d_nchw_fchw", "cuda", {512, 192, 27, 27, 64, 5, 5}));
  ASSERT_EQ(conv.getNumParameters(), 9u);
  unsigned widths[] = {2, 4, 4, 4, 2, 2, 2};
  for (unsigned i = 0; i < 7; ++i)
    EXPECT_EQ(conv.getParameter(i).getWidth(), widths[i]);
  EXPECT_EQ(conv.getParameter(7).getName(), "explicit_unroll");
  EXPECT_EQ(conv.getParameter(7).getKind(), ParamKind::Categorical);
  EXPECT_EQ(conv.getParameter(8).getName(), "max_unroll");
  EXPECT_EQ(conv.getParameter(8).getKind(), ParamKind::Discrete);
  EXPECT_NE(conv.getKey(conv.getDefault()).find("explicit_unroll=false;"
                                                "max_unroll=512"),
            std::string::npos);
  std::string why;
  Config c = *mm.parseKey("m=[1,1,512,1];n=[1,1,4,256];k=[1024,1,1]");
  EXPECT_FALSE(mm.isValid(c, &why));
  EXPECT_EQ(why, "threads-per-block: 2048 threads per block, more than 1024");
}

TEST(ProblemSpec, Errors) {
  for (auto [kind, target, n] :
       {std::tuple<const char *, const char *, int>{"matmul", "cpu", 2},
        {"gemm", "cpu", 3},
        {"matmul", "tpu", 3}}) {
    SmallVector<int64_t> sizes(n, 8);
    auto p = makeProblemSpec(kind, target, sizes);
    EXPECT_FALSE(bool(p));
    if (!p)
      llvm::consumeError(p.takeError());
  }
  auto p = makeProblemSpec("matmul", "cpu", {8, 0, 8});
  EXPECT_FALSE(bool(p));
  llvm::consumeError(p.takeError());
}

TEST(AutoMCL, PFactorThreads) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {64, 64, 64});
  EXPECT_EQ(getPFactorThreads(p, 8), 8);
  EXPECT_EQ(getPFactorThreads(p, 12), 8);
  ProblemSpec q = problemOrDie("matmul", "cpu", {7, 7, 64});
  EXPECT_EQ(getPFactorThreads(q, 8), 7);
  EXPECT_EQ(getPFactorThreads(q, 64), 49);
}

// Hand-made problems and cache models with zero sizes or widths give
// answers, not a division by zero (issue 16: zero sizes crashed the
// default-config and space code).
TEST(AutoMCL, ZeroSizesAndWidthsDoNotDivideByZero) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {8, 8, 8});
  p.dims[0].size = 0;
  EXPECT_EQ(getPFactorThreads(p, 8), 8);
  for (MatmulSchedule sched : {MatmulSchedule::TMM, MatmulSchedule::LPMM,
                               MatmulSchedule::RPMM, MatmulSchedule::DPMM})
    EXPECT_EQ(getMatmulCacheLines(sched, 8, 8, 8, 0),
              getMatmulCacheLines(sched, 8, 8, 8, 1));
  EXPECT_EQ(getConvCacheLines(4, 4, 4, 3, 3, 1, 1, 0),
            getConvCacheLines(4, 4, 4, 3, 3, 1, 1, 1));
  // And buildSpace refuses them with a message.
  auto space = buildSpace(p);
  ASSERT_FALSE(bool(space));
  EXPECT_EQ(llvm::toString(space.takeError()), "loop 'm' has size 0");
}

TEST(AutoMCL, PFactorSpaceMatchesBruteForce) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {16, 16, 8});
  Space s = buildOrDie(p);
  auto r = restrictToThreadGrid(s, p, 8);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  uint64_t brute = 0;
  for (auto &m : tuples(16, 4))
    for (auto &n : tuples(16, 4))
      for (auto &k : tuples(8, 2))
        for (int64_t unroll : {1, 2, 4, 8})
          if (m[0] * n[0] == 8 && m[3] * n[3] <= 1024 && k[1] % unroll == 0)
            ++brute;
  brute *= 6 * 2 * 4;
  auto counted = r->countValid();
  ASSERT_TRUE(bool(counted));
  EXPECT_EQ(*counted, brute);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 50; ++i) {
    auto c = r->sampleValid(rng);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(r->getValue(*c, "m")[0] * r->getValue(*c, "n")[0], 8);
  }
  ProblemSpec g = problemOrDie("matmul", "cuda", {16, 32, 8});
  auto bad = restrictToThreadGrid(buildOrDie(g), g, 8);
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST(AutoMCL, CacheLineFormulas) {
  // TMM with C_w = 16: A 32x64 -> 32*(4+1), B 64x32 -> 64*(2+1),
  // C 32x32 -> 32*(2+1).
  EXPECT_EQ(getMatmulCacheLines(MatmulSchedule::TMM, 32, 64, 32, 16),
            32 * 5 + 64 * 3 + 32 * 3);
  // RPMM (Table 2): 1 + max(ceil(Nt/Cw) + Nt, ceil(MtNt/Cw) +
  //   max(Mt(ceil(Nt/Cw)+1), Mt(ceil(Kt/Cw)+1) + ceil(KtNt/Cw) + 1)).
  int64_t mt = 8, kt = 64, nt = 32, cw = 16;
  int64_t rp = 1 + std::max<int64_t>(2 + 32, 16 + std::max<int64_t>(
                                                      8 * 3, 8 * 5 + 128 + 1));
  EXPECT_EQ(getMatmulCacheLines(MatmulSchedule::RPMM, mt, kt, nt, cw), rp);
  int64_t dp = 1 + std::max<int64_t>(
                       {1 + 8, 2 + 32, 16 + std::max<int64_t>(24, 32 + 128 + 2)});
  EXPECT_EQ(getMatmulCacheLines(MatmulSchedule::DPMM, mt, kt, nt, cw), dp);
  // CONVOpt (Table 3) with OW_t=8, IC_t=16, OC_t=32, 3x3, s=d=1, C_w=16.
  int64_t filter = 9 * 16 * 3;
  int64_t t1 = 32 * (9 + 1) + filter;
  int64_t t2 = (16 + 1) + 3 * 16 * (1 + 1) + filter;
  int64_t t3 = 17 + 8 * 3;
  int64_t t4 = 8 * 3 + 32 * 2;
  EXPECT_EQ(getConvCacheLines(8, 16, 32, 3, 3, 1, 1, 16),
            std::max({t1, t2, t3, t4}));
  // Im2col-CONV (Table 3, bottom) on the same tile: K_t = 9 * 16 = 144.
  int64_t i1 = 8 * (9 + 1) + 16 * (1 + 1); // windows + input rows
  int64_t i2 = 2 * 32 * (9 + 1);           // filter panel
  int64_t i3 = 32 * (1 + 1) + 8 * (2 + 1); // output
  int64_t i4 = getMatmulCacheLines(MatmulSchedule::RPMM, 8, 144, 32, 16);
  EXPECT_EQ(
      getIm2colConvCacheLines(MatmulSchedule::RPMM, 8, 16, 32, 3, 3, 1, 1, 16),
      std::max({i1, i2, i3, i4}));
}

TEST(AutoMCL, IdealCacheFilter) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {64, 64, 64});
  Space s = buildOrDie(p);
  CacheModel model;
  model.innerCacheBytes = 0;    // only the cache tile (see below)
  model.cacheBytes = 32 * 1024; // 512 lines
  model.lineBytes = model.vectorBytes = 64; // pinned: not the host's
  auto f = filterByIdealCacheModel(s, p, model);
  ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());
  std::mt19937_64 rng(3);
  unsigned kept = 0;
  for (int i = 0; i < 2000; ++i) {
    Config c = s.sample(rng);
    if (!s.isValid(c))
      continue;
    int64_t mt = s.getValue(c, "m")[2] * s.getValue(c, "m")[3];
    int64_t nt = s.getValue(c, "n")[2] * s.getValue(c, "n")[3];
    int64_t kt = s.getValue(c, "k")[1];
    auto &pack = llvm::cast<CategoricalParam>(s.getParameter(5));
    llvm::StringRef pk = pack.getChoice(s.getValue(c, "pack"));
    MatmulSchedule sched = pk == "a"    ? MatmulSchedule::LPMM
                           : pk == "b"  ? MatmulSchedule::RPMM
                           : pk == "ab" ? MatmulSchedule::DPMM
                                        : MatmulSchedule::TMM;
    bool fits = getMatmulCacheLines(sched, mt, kt, nt, 16) < 512;
    bool vec = llvm::cast<CategoricalParam>(s.getParameter(4))
                       .getChoice(s.getValue(c, "vectorize")) == "false" ||
               s.getValue(c, "n")[3] >= 16;
    EXPECT_EQ(f->isValid(c), fits && vec) << s.getKey(c);
    kept += fits && vec;
  }
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, 2000u);
  // Composes with pfactor and stays searchable by sampling.
  auto both = restrictToThreadGrid(*f, p, 4);
  ASSERT_TRUE(bool(both));
  auto c = both->sampleValid(rng, 100000);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(f->isValid(*c));

  ProblemSpec cp =
      problemOrDie("conv_2d_nhwc_hwcf", "cpu", {1, 28, 28, 64, 3, 3, 32});
  auto cf = filterByIdealCacheModel(buildOrDie(cp), cp, model);
  ASSERT_TRUE(bool(cf));
  EXPECT_TRUE(cf->sampleValid(rng, 100000).has_value());
}

// The paper's inequality on the innermost tile (register tile of m and n,
// cache tile of k) against the inner cache, on top of the cache tile's.
TEST(AutoMCL, IdealCacheFilterInnermostTile) {
  ProblemSpec p = problemOrDie("matmul", "cpu", {64, 64, 64});
  Space s = buildOrDie(p);
  CacheModel model;
  model.innerCacheBytes = 4 * 1024; // 64 lines
  model.cacheBytes = 32 * 1024;     // 512 lines
  model.lineBytes = model.vectorBytes = 64; // pinned: not the host's
  auto f = filterByIdealCacheModel(s, p, model);
  ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());
  std::vector<std::string> names;
  for (const Constraint &c : f->getConstraints())
    names.push_back(c.name);
  EXPECT_TRUE(llvm::is_contained(names, "innermost-tile-fit"));
  std::mt19937_64 rng(5);
  unsigned kept = 0, innerOnly = 0;
  auto &pack = llvm::cast<CategoricalParam>(s.getParameter(*s.lookup("pack")));
  for (int i = 0; i < 2000; ++i) {
    Config c = s.sample(rng);
    if (!s.isValid(c))
      continue;
    llvm::StringRef pk = pack.getChoice(s.getValue(c, "pack"));
    MatmulSchedule sched = pk == "a"    ? MatmulSchedule::LPMM
                           : pk == "b"  ? MatmulSchedule::RPMM
                           : pk == "ab" ? MatmulSchedule::DPMM
                                        : MatmulSchedule::TMM;
    auto m = s.getValue(c, "m"), n = s.getValue(c, "n");
    int64_t kt = s.getValue(c, "k")[1];
    bool inner = getMatmulCacheLines(sched, m[3], kt, n[3], 16) < 64;
    bool outer = getMatmulCacheLines(sched, m[2] * m[3], kt, n[2] * n[3], 16) <
                 512;
    bool vec = llvm::cast<CategoricalParam>(s.getParameter(4))
                       .getChoice(s.getValue(c, "vectorize")) == "false" ||
               n[3] >= 16;
    EXPECT_EQ(f->isValid(c), inner && outer && vec) << s.getKey(c);
    kept += inner && outer && vec;
    innerOnly += outer && vec && !inner;
  }
  EXPECT_GT(kept, 0u);
  EXPECT_GT(innerOnly, 0u); // the innermost check removes configs of its own
  // An inner cache smaller than a line is not a cache.
  model.innerCacheBytes = 16;
  auto bad = filterByIdealCacheModel(s, p, model);
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()), "invalid cache model");
}

TEST(Conversion, RoundTrip) {
  for (auto [kind, target, sizes] :
       {std::tuple<const char *, const char *, SmallVector<int64_t>>{
            "matmul", "cpu", {256, 512, 128}},
        {"batch_matmul", "cpu", {4, 64, 64, 32}},
        {"conv_2d_nhwc_hwcf", "cpu", {2, 14, 14, 32, 3, 3, 16}},
        {"conv_2d_nchw_fchw", "cuda", {2, 32, 14, 14, 16, 3, 3}}}) {
    Space s = buildOrDie(problemOrDie(kind, target, sizes));
    std::mt19937_64 rng(17);
    for (int i = 0; i < 100; ++i) {
      auto c = s.sampleValid(rng);
      ASSERT_TRUE(c.has_value());
      SpacePoint pt = toSpacePoint(s, *c);
      for (const auto &[dim, f] : pt.factors) {
        int64_t prod = 1;
        for (int64_t x : f)
          prod *= x;
        const auto &fp = llvm::cast<FactorizationParam>(
            s.getParameter(*s.lookup(dim)));
        EXPECT_EQ(prod, fp.getTotal());
      }
      auto back = fromSpacePoint(s, pt);
      ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
      EXPECT_EQ(*back, *c);
    }
  }
  Space s = buildOrDie(problemOrDie("matmul", "cpu", {64, 64, 64}));
  SpacePoint pt = toSpacePoint(s, s.getDefault());
  EXPECT_EQ(pt.options["vectorize"].kind, OptionValue::Kind::Bool);
  EXPECT_TRUE(pt.options["vectorize"].boolValue);
  EXPECT_EQ(pt.options["pack"].stringValue, "none");
  EXPECT_EQ(pt.options["unroll"].intValue, 1);
  EXPECT_EQ(pt.options["order"].names,
            (SmallVector<std::string>{"m", "n", "k"}));
  // Missing options take defaults; bad input is an error.
  SpacePoint partial;
  partial.factors = pt.factors;
  auto d = fromSpacePoint(s, partial);
  ASSERT_TRUE(bool(d));
  EXPECT_EQ(*d, s.getDefault());
  SpacePoint bad = pt;
  bad.factors["m"] = {64, 2, 1, 1};
  auto e = fromSpacePoint(s, bad);
  EXPECT_FALSE(bool(e));
  llvm::consumeError(e.takeError());
  bad = pt;
  bad.options["unroll"].intValue = 3;
  e = fromSpacePoint(s, bad);
  EXPECT_FALSE(bool(e));
  llvm::consumeError(e.takeError());
  bad = pt;
  bad.options["order"].names = {"m", "m", "k"};
  e = fromSpacePoint(s, bad);
  EXPECT_FALSE(bool(e));
  llvm::consumeError(e.takeError());
}

} // namespace
