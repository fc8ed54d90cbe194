//===- LoopNestFeaturesTest.cpp - Tests of the loop-nest features --------===//
//
// The operand accesses of each op kind, the loop nest of a tiny CPU matmul
// config and known values of its AutoTVM-style features (extents, strides,
// bytes touched, reuse, packing), a convolution window, a CUDA nest, a
// constant width over random configs, and the error on an abstract space.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/LoopNestFeatures.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Support/OperandAccess.h"

#include "gtest/gtest.h"

#include <cmath>
#include <iterator>
#include <utility>
#include <vector>
#include <map>
#include <random>

using namespace mlir::tiletune;
using llvm::SmallVector;

namespace {

Space buildOrDie(llvm::StringRef kind, llvm::StringRef target,
                 llvm::ArrayRef<int64_t> sizes) {
  auto p = makeProblemSpec(kind, target, sizes);
  if (!p) {
    ADD_FAILURE() << llvm::toString(p.takeError());
    return Space();
  }
  auto s = buildSpace(*p);
  if (!s) {
    ADD_FAILURE() << llvm::toString(s.takeError());
    return Space();
  }
  return *s;
}

Config parseOrDie(const Space &s, llvm::StringRef key) {
  auto c = s.parseKey(key);
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return s.getDefault();
  }
  return *c;
}

/// Features of `key` by name.
std::map<std::string, double> featuresByName(const Space &s,
                                             llvm::StringRef key) {
  auto f = LoopNestFeaturizer::create(s);
  EXPECT_TRUE(bool(f));
  if (!f) {
    llvm::consumeError(f.takeError());
    return {};
  }
  SmallVector<double> values;
  f->encode(parseOrDie(s, key), values);
  SmallVector<std::string> names = f->getFeatureNames();
  EXPECT_EQ(values.size(), f->getNumFeatures());
  EXPECT_EQ(names.size(), values.size());
  std::map<std::string, double> out;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i)
    EXPECT_TRUE(out.emplace(names[i], values[i]).second)
        << "duplicate feature name " << names[i];
  return out;
}

double lg(double x) { return std::log2(1.0 + x); }

// A 4 x 16 x 6 matmul: m = [threads 1, cache trips 2, register trips 1,
// tile 2], n = [1, 2, 2, 4], k = [2 trips, tile 3].
constexpr const char *kTinyKey =
    "m=[1,2,1,2];n=[1,2,2,4];k=[2,3];order=[m,n,k];vectorize=true;pack=none;"
    "unroll=1";

TEST(OperandAccesses, MatmulAndConvLayouts) {
  auto mm = makeProblemSpec("matmul", "cpu", {4, 16, 6});
  ASSERT_TRUE(bool(mm));
  auto ops = getOperandAccesses(*mm);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "A");
  EXPECT_EQ(ops[1].name, "B");
  EXPECT_TRUE(ops[2].isOutput);
  auto size = [&](llvm::StringRef d) { return mm->lookup(d)->size; };
  EXPECT_EQ(ops[1].getExtents(size), (SmallVector<int64_t, 4>{6, 16}));

  // NHWC conv, stride 2, dilation 1: 3 output rows under a 3-row kernel
  // read 2 * (3 - 1) + (3 - 1) + 1 = 7 input rows.
  auto conv = makeProblemSpec("conv_2d_nhwc_hwcf", "cpu", {1, 5, 5, 8, 3, 3, 4});
  ASSERT_TRUE(bool(conv));
  conv->strides = {2, 2};
  auto cops = getOperandAccesses(*conv);
  ASSERT_EQ(cops.size(), 3u);
  EXPECT_EQ(cops[0].name, "input");
  auto span = [](llvm::StringRef d) -> int64_t {
    return d == "oh" || d == "kh" ? 3 : 1;
  };
  EXPECT_EQ(cops[0].getExtents(span), (SmallVector<int64_t, 4>{1, 7, 1, 1}));
  // NCHW keeps channels second unless computed as NHWC.
  auto nchw = makeProblemSpec("conv_2d_nchw_fchw", "cpu", {1, 8, 5, 5, 4, 3, 3});
  ASSERT_TRUE(bool(nchw));
  EXPECT_EQ(getOperandAccesses(*nchw)[0].indices[1][0].dim, "c");
  EXPECT_EQ(getOperandAccesses(*nchw, /*asNHWC=*/true)[0].indices[3][0].dim,
            "c");
  // Grouped convs: 5-D operands with the group; NHWGC's input rows are
  // strided like NHWC's, its group sits between the width and the channels.
  auto nhwgc =
      makeProblemSpec("conv_2d_nhwgc_gfhwc", "cpu", {1, 5, 5, 4, 8, 3, 3, 2});
  ASSERT_TRUE(bool(nhwgc));
  nhwgc->strides = {2, 2};
  auto gops = getOperandAccesses(*nhwgc);
  ASSERT_EQ(gops.size(), 3u);
  EXPECT_EQ(gops[0].getExtents(span), (SmallVector<int64_t, 4>{1, 7, 1, 1, 1}));
  EXPECT_EQ(gops[0].indices[3][0].dim, "g");
  EXPECT_EQ(gops[1].indices[0][0].dim, "g");
  auto ngchw =
      makeProblemSpec("conv_2d_ngchw_fgchw", "cpu", {1, 4, 8, 5, 5, 2, 3, 3});
  ASSERT_TRUE(bool(ngchw));
  EXPECT_EQ(getOperandAccesses(*ngchw)[0].indices[2][0].dim, "c");
  EXPECT_EQ(getOperandAccesses(*ngchw, /*asNHWC=*/true)[0].indices[4][0].dim,
            "c");
}

TEST(LoopNest, TinyCPUMatmul) {
  Space s = buildOrDie("matmul", "cpu", {4, 16, 6});
  auto nest = buildLoopNest(*s.getProblem(), s, parseOrDie(s, kTinyKey));
  ASSERT_TRUE(bool(nest)) << llvm::toString(nest.takeError());
  struct Expect {
    const char *dim, *level;
    int64_t extent, step;
    LoopAnnotation annotation;
  };
  const Expect expected[] = {
      {"m", "parallel", 1, 4, LoopAnnotation::Parallel},
      {"n", "parallel", 1, 16, LoopAnnotation::Parallel},
      {"m", "cache", 2, 2, LoopAnnotation::Serial},
      {"n", "cache", 2, 8, LoopAnnotation::Serial},
      {"k", "cache", 2, 3, LoopAnnotation::Serial},
      {"m", "register", 1, 2, LoopAnnotation::Serial},
      {"n", "register", 2, 4, LoopAnnotation::Serial},
      {"k", "register", 3, 1, LoopAnnotation::Serial},
      {"m", "tile", 2, 1, LoopAnnotation::Unrolled},
      {"n", "tile", 4, 1, LoopAnnotation::Vectorized},
      {"k", "tile", 1, 1, LoopAnnotation::Unrolled},
  };
  ASSERT_EQ(nest->size(), std::size(expected));
  int64_t iterations = 1;
  for (auto [loop, e] : llvm::zip(*nest, expected)) {
    EXPECT_EQ(loop.dim, e.dim);
    EXPECT_EQ(loop.level, e.level);
    EXPECT_EQ(loop.extent, e.extent) << loop.level << " " << loop.dim;
    EXPECT_EQ(loop.step, e.step) << loop.level << " " << loop.dim;
    EXPECT_EQ(loop.annotation, e.annotation) << loop.level << " " << loop.dim;
    iterations *= loop.extent;
  }
  EXPECT_EQ(iterations, 4 * 16 * 6);

  // `order` permutes the cache loops; unroll splits the register k loop.
  auto permuted = buildLoopNest(
      *s.getProblem(), s,
      parseOrDie(s, "m=[1,2,1,2];n=[1,2,2,4];k=[2,3];order=[k,n,m];"
                    "vectorize=false;pack=none;unroll=1"));
  ASSERT_TRUE(bool(permuted));
  EXPECT_EQ((*permuted)[2].dim, "k");
  EXPECT_EQ((*permuted)[4].dim, "m");
  EXPECT_EQ((*permuted)[9].annotation, LoopAnnotation::Serial);
}

TEST(LoopNestFeatures, KnownValuesOfTinyMatmul) {
  Space s = buildOrDie("matmul", "cpu", {4, 16, 6});
  std::map<std::string, double> f = featuresByName(s, kTinyKey);
  ASSERT_FALSE(f.empty());
  EXPECT_DOUBLE_EQ(f["threads"], lg(1));
  EXPECT_DOUBLE_EQ(f["register_tile"], lg(2 * 4));
  EXPECT_DOUBLE_EQ(f["vector_width"], lg(4));
  EXPECT_DOUBLE_EQ(f["unroll_step"], lg(1));
  // The whole nest: every element of each operand, reused N, K, M times.
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.extent"], lg(1));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.bottomup"], lg(4 * 16 * 6));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.A.bytes"], lg(4 * 6 * 4));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.A.reuse"], lg(16));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.B.reuse"], lg(4));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.C.reuse"], lg(6));
  EXPECT_DOUBLE_EQ(f["L0.parallel.m.parallel"], 1.0);
  // Cache loop k (step 3): A moves 3 elements, B 3 rows of 16.
  EXPECT_DOUBLE_EQ(f["L4.cache.A.stride"], lg(3 * 4));
  EXPECT_DOUBLE_EQ(f["L4.cache.B.stride"], lg(3 * 16 * 4));
  EXPECT_DOUBLE_EQ(f["L4.cache.C.stride"], 0.0);
  EXPECT_DOUBLE_EQ(f["L4.cache.topdown"], lg(2 * 2 * 2));
  // Inside the cache tile: a 2 x 3 A tile, 3 x 8 B tile, 2 x 8 C tile.
  EXPECT_DOUBLE_EQ(f["L5.register.m.A.bytes"], lg(2 * 3 * 4));
  EXPECT_DOUBLE_EQ(f["L5.register.m.B.bytes"], lg(3 * 8 * 4));
  EXPECT_DOUBLE_EQ(f["L5.register.m.C.bytes"], lg(2 * 8 * 4));
  EXPECT_DOUBLE_EQ(f["L5.register.m.C.reuse"], lg(48.0 / 16));
  // Register k loop walks B rows of the full tensor (16 floats apart).
  EXPECT_DOUBLE_EQ(f["L7.register.k.B.stride"], lg(16 * 4));
  // The vectorized n loop: unit stride in B and C, none in A.
  EXPECT_DOUBLE_EQ(f["L9.tile.n.vectorized"], 1.0);
  EXPECT_DOUBLE_EQ(f["L9.tile.n.B.stride"], lg(4));
  EXPECT_DOUBLE_EQ(f["L9.tile.n.A.stride"], 0.0);
  EXPECT_DOUBLE_EQ(f["L9.tile.n.C.bytes"], lg(4 * 4));

  // pack=b: inside the cache tile B is the contiguous 3 x 8 tile, so the
  // register k loop steps 8 floats; outside it nothing changes.
  std::string packedKey = kTinyKey;
  packedKey.replace(packedKey.find("pack=none"), 9, "pack=b");
  std::map<std::string, double> p = featuresByName(s, packedKey);
  EXPECT_DOUBLE_EQ(p["L7.register.k.B.stride"], lg(8 * 4));
  EXPECT_DOUBLE_EQ(p["L7.register.k.A.stride"], f["L7.register.k.A.stride"]);
  EXPECT_DOUBLE_EQ(p["L4.cache.B.stride"], f["L4.cache.B.stride"]);
}

// im2col: the GEMM reads the input from its window matrix
// [n][oh][ow][kh][kw][c], so one output pixel along ow moves a whole window
// (KH * KW * C elements) instead of stride * C elements of the image; the
// filter and the output are read the same way in both.
TEST(LoopNestFeatures, Im2colReadsTheWindowMatrix) {
  auto p = makeProblemSpec("conv_2d_nhwc_hwcf", "cpu", {1, 5, 5, 8, 3, 3, 4});
  ASSERT_TRUE(bool(p));
  p->strides = {2, 2};
  auto s = buildSpace(*p);
  ASSERT_TRUE(bool(s)) << llvm::toString(s.takeError());
  std::string direct = s->getKey(s->getDefault());
  size_t at = direct.find("im2col=false");
  ASSERT_NE(at, std::string::npos) << direct;
  std::string im2col = direct;
  im2col.replace(at, 12, "im2col=true");
  std::map<std::string, double> d = featuresByName(*s, direct);
  std::map<std::string, double> w = featuresByName(*s, im2col);
  ASSERT_EQ(d.size(), w.size());
  auto named = [](const std::map<std::string, double> &f,
                  llvm::StringRef suffix) {
    for (const auto &[name, value] : f)
      if (llvm::StringRef(name).ends_with(suffix))
        return value;
    ADD_FAILURE() << "no feature named *" << suffix.str();
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(named(d, ".tile.ow.input.stride"), lg(2 * 4 * 4));
  EXPECT_DOUBLE_EQ(named(w, ".tile.ow.input.stride"), lg(3 * 3 * 4 * 4));
  EXPECT_DOUBLE_EQ(named(w, ".tile.ow.filter.stride"),
                   named(d, ".tile.ow.filter.stride"));
  EXPECT_DOUBLE_EQ(named(w, ".tile.ow.output.stride"),
                   named(d, ".tile.ow.output.stride"));
  // The whole nest: every tap of every window (5 x 5 output pixels x
  // 3 x 3 x 4 taps) against the 11 x 11 x 4 image they overlap on.
  EXPECT_DOUBLE_EQ(w["L0.parallel.n.input.bytes"], lg(5 * 5 * 3 * 3 * 4 * 4));
  EXPECT_DOUBLE_EQ(d["L0.parallel.n.input.bytes"], lg(11 * 11 * 4 * 4));
}

TEST(LoopNestFeatures, ConstantWidthOverConfigs) {
  const std::vector<std::pair<const char *, SmallVector<int64_t>>> ops = {
      {"matmul", {32, 24, 17}},
      {"batch_matmul", {2, 8, 12, 5}},
      {"conv_2d_nhwc_hwcf", {1, 7, 7, 16, 3, 3, 8}},
      {"conv_2d_nchw_fchw", {1, 16, 7, 7, 8, 3, 3}}};
  for (const auto &[kind, sizes] : ops) {
    for (const char *target : {"cpu", "cuda"}) {
      Space s = buildOrDie(kind, target, sizes);
      auto f = LoopNestFeaturizer::create(s);
      ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());
      EXPECT_EQ(f->getFeatureNames().size(), f->getNumFeatures());
      std::mt19937_64 rng(7);
      for (int i = 0; i < 50; ++i) {
        std::optional<Config> c = s.sampleValid(rng);
        ASSERT_TRUE(c.has_value());
        SmallVector<double> v;
        f->encode(*c, v);
        ASSERT_EQ(v.size(), f->getNumFeatures()) << kind << " " << target;
        for (double x : v)
          ASSERT_TRUE(std::isfinite(x) && x >= 0) << kind << " " << target;
        // Every config's nest covers the iteration space exactly once.
        auto nest = buildLoopNest(*s.getProblem(), s, *c);
        ASSERT_TRUE(bool(nest));
        double iterations = 1, points = 1;
        for (const NestLoop &l : *nest)
          iterations *= l.extent;
        for (const ProblemDim &d : s.getProblem()->dims)
          points *= d.size;
        EXPECT_EQ(iterations, points) << s.getKey(*c);
      }
    }
  }
}

TEST(LoopNestFeatures, PinnedSpacesKeepTheirOp) {
  Space s = buildOrDie("matmul", "cpu", {4, 16, 6});
  auto pinned = s.withPinned("order=[n,k,m];pack=ab");
  ASSERT_TRUE(bool(pinned));
  ASSERT_NE(pinned->getProblem(), nullptr);
  EXPECT_TRUE(bool(LoopNestFeaturizer::create(*pinned)));
}

TEST(LoopNestFeatures, AbstractSpaceIsAnError) {
  auto f = LoopNestFeaturizer::create(buildPaperMatmulSpace(8, 4, 8));
  ASSERT_FALSE(bool(f));
  EXPECT_NE(llvm::toString(f.takeError()).find("abstract space"),
            std::string::npos);
}

} // namespace
