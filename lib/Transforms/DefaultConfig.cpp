//===- DefaultConfig.cpp - Heuristic CPU configs for untuned ops ----------===//
//
// computeDefaultCPUConfig and the tiletune-default-config pass. Every tile is
// chosen as a divisor of its enclosing tile, so the config is legal for any
// static shape; register and cache tiles are sized by the CPU target
// (CPUTarget, derived from Support/CPUDescription.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/DefaultConfig.h"
#include "tiletune/Transforms/Passes.h"
#include "tiletune/Support/Padding.h"
#include "tiletune/Support/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "tiletune-default-config"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEDEFAULTCONFIG
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

/// Largest divisor of `n` that is at most `cap` (at least 1; 1 for n < 1).
static int64_t largestDivisorAtMost(int64_t n, int64_t cap) {
  if (n < 1)
    return 1;
  cap = std::max<int64_t>(1, std::min(n, cap));
  for (int64_t d = cap; d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// Register tile of the dim that becomes the vector lanes: two vectors when
/// they divide, one, else the largest divisor up to two vectors; a small
/// dim without a useful divisor is taken whole (one masked vector op beats
/// scalar code).
static int64_t pickVectorTile(int64_t size, int64_t lanes) {
  if (size % (2 * lanes) == 0)
    return 2 * lanes;
  if (size % lanes == 0)
    return lanes;
  int64_t d = largestDivisorAtMost(size, 2 * lanes);
  if (d < lanes / 2 && size <= 4 * lanes)
    return size;
  return d;
}

namespace {
/// Tile sizes per dim name being built.
struct Plan {
  std::map<std::string, int64_t> parallel, cache, reg;
};
} // namespace

/// Splits `threads` across `dims` in order: each gets the largest trip count
/// that divides its size divided by its register tile.
static void splitThreads(const TunableOp &op, Plan &plan,
                         ArrayRef<StringRef> dims, int64_t threads) {
  for (const LoopDim &dim : op.dims)
    if (dim.role != DimRole::Reduction)
      plan.parallel[dim.name] = dim.size;
  int64_t remaining = std::max<int64_t>(1, threads);
  for (StringRef name : dims) {
    if (remaining <= 1)
      break;
    const LoopDim *dim = op.lookup(name);
    if (!dim)
      continue;
    int64_t reg = dim->role == DimRole::Batch
                      ? 1
                      : std::max<int64_t>(1, plan.reg[dim->name]);
    int64_t trips = largestDivisorAtMost(dim->size / reg, remaining);
    plan.parallel[dim->name] = dim->size / trips;
    remaining /= trips;
  }
}

/// A small map: at most this many output pixels per image (ResNet-50's 7x7
/// stage), where a conv's filter chunks serve few register tiles. The
/// im2col rule (pickIm2colPack) and the HWCF filter packing use it.
static constexpr int64_t kSmallMapPixels = 49;

/// A map of at most this many output pixels (ResNet-50's 14x14 stage):
/// there a batch-1 NCHW conv split over several threads, and a batch-1
/// 1x1 one on any number of threads, runs its im2col GEMM through NHWC
/// rather than the direct conv, and so does a 1x1 NHWC conv where the
/// register file is small (pickIm2colPack).
static constexpr int64_t kThreadedNchwMapPixels = 196;

/// Bytes of one way of an x86 L1 data cache: it is indexed within the 4 KiB
/// page, so addresses 4 KiB apart share a set.
static constexpr int64_t kL1WayBytes = 4096;

/// Whether the A streams of a conv register tile of `rows` x `cols` output
/// pixels, `rowBytes` and `colBytes` apart in the input, share no L1 set
/// beyond its ways less one (left to the filter panel and the output). x86
/// L1 data caches are indexed within the 4 KiB page, so lines 4 KiB apart
/// share a set and a set has L1 / 4 KiB ways (8 on Zen 4 and Skylake, 12 on
/// Zen 5). The streams advance in lockstep along the channels, so streams
/// that start in the same set keep evicting each other: on Zen 4 a 2 x 7
/// tile whose 14 pixels lie 4 KiB apart (1024 channels, or 512 at stride
/// 2) ran at 79-87 GFLOP/s against 109-111 with one row of 7.
static bool fitsL1Sets(int64_t rows, int64_t cols, int64_t rowBytes,
                       int64_t colBytes, int64_t l1Bytes) {
  constexpr int64_t kLineBytes = 64;
  int64_t ways = std::max<int64_t>(1, l1Bytes / kL1WayBytes);
  llvm::SmallDenseMap<int64_t, int64_t, 64> perSet;
  int64_t most = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t set = ((i * rowBytes + j * colBytes) % kL1WayBytes) / kLineBytes;
      most = std::max(most, ++perSet[set]);
    }
  return most <= std::max<int64_t>(1, ways - 1);
}

/// Whether rows `rowBytes` apart all start in the same L1 set (a multiple
/// of the 4 KiB within which x86 L1 data caches are indexed; fitsL1Sets).
static bool rowsShareL1Set(int64_t rowBytes) {
  return rowBytes % kL1WayBytes == 0;
}

/// The largest multiple of `reg` that divides `outer` and is at most `cap`
/// (at least `reg`).
static int64_t cacheTile(int64_t outer, int64_t reg, int64_t cap) {
  return reg *
         largestDivisorAtMost(outer / reg, std::max<int64_t>(1, cap / reg));
}

CPUTarget CPUTarget::get(const CPUDescription &cpu, int64_t threads) {
  CPUTarget target;
  target.threads = threads;
  target.vectorBytes = cpu.vectorBits / 8;
  target.maxRegisterBytes = cpu.getAccumulatorElements(/*elementBytes=*/1);
  target.vectorRegisters = cpu.vectorRegisters;
  target.l1Bytes = cpu.caches.l1Bytes;
  target.l2Bytes = cpu.caches.l2Bytes;
  target.lineBytes = cpu.caches.lineBytes;
  return target;
}

llvm::Expected<CPUTarget> tiletune::getCPUTargetFor(StringRef mcpu,
                                                    StringRef mattr,
                                                    int64_t threads) {
  llvm::Expected<CPUDescription> cpu = describeTargetCPU(mcpu, mattr);
  if (!cpu)
    return cpu.takeError();
  return CPUTarget::get(*cpu, threads);
}

/// Whether conv `op` has a 1x1 filter.
static bool isOneByOne(const TunableOp &op) {
  const LoopDim *kh = op.lookup("kh"), *kw = op.lookup("kw");
  return kh && kw && kh->size == 1 && kw->size == 1;
}

/// Whether `threads` threads split conv `op`'s batch evenly (each thread
/// its own images).
static bool threadsDivideBatch(const TunableOp &op, int64_t threads) {
  int64_t batch = op.lookup("n")->size;
  threads = std::max<int64_t>(1, threads);
  return batch >= threads && batch % threads == 0;
}

/// Whether the default config computes NCHW conv `op`'s im2col GEMM per
/// image in its native layout (isPerImageIm2col) when `threads` threads run
/// it: a 1x1 conv whose output pixels fill whole vectors of `lanes`
/// (ResNet-50's 56x56 and 28x28 maps in f32), so that the pixels on the
/// lanes need no ragged vectors; every other NCHW conv goes through
/// `layout = nhwc`. An unstrided conv reads its input in place. A strided
/// one first copies the pixels it reads, [C][OH][OW] per image, which a
/// thread does for its own images where the threads split the batch, but
/// which would run on one thread ahead of a GEMM that the threads split
/// by filters; so a strided conv goes per image where the threads divide
/// the batch (docs/TileConfig.md, "Strided 1x1 NCHW convs per image":
/// ResNet-50's 56x56 -> 28x28 1x1/2 256->512 at batch 8, Xeon, 1 thread
/// 64-68 -> 89-96 GFLOP/s, 2 threads 153-170 -> 171-186; batch 1, 1
/// thread 111-119 -> 118-124, but 2 threads 222-229 -> 215-218).
static bool takesPerImageIm2col(const TunableOp &op, int64_t lanes,
                                int64_t threads) {
  if (op.kind != OpKind::ConvNchwFchw || !isOneByOne(op))
    return false;
  if (op.strides != std::array<int64_t, 2>{1, 1} &&
      !threadsDivideBatch(op, threads))
    return false;
  return (op.lookup("oh")->size * op.lookup("ow")->size) % lanes == 0;
}

/// The matmul form of the im2col GEMM the default config gives conv `op`
/// on a target of `lanes` lanes and `threads` threads
/// (getIm2colMatmulKind).
static std::optional<OpKind> getDefaultIm2colMatmulKind(const TunableOp &op,
                                                        int64_t lanes,
                                                        int64_t threads) {
  bool perImage = takesPerImageIm2col(op, lanes, threads);
  return getIm2colMatmulKind(op.kind,
                             /*nhwcLayout=*/op.kind == OpKind::ConvNchwFchw &&
                                 !perImage,
                             isOneByOne(op));
}

/// Vector lanes of `op`'s element type on `target`.
static int64_t getLanes(const TunableOp &op, const CPUTarget &target) {
  int64_t elementBytes =
      std::max<int64_t>(1, op.elementType.getIntOrFloatBitWidth() / 8);
  return std::max<int64_t>(1, target.vectorBytes / elementBytes);
}

/// Rows of a register tile `width` elements of `op` wide on the lanes of
/// `target`: as many as fit the register file with the operands (the
/// spaces' "register-file" bound), within the accumulator budget, at most
/// 12.
static int64_t getRegisterRows(const TunableOp &op, const CPUTarget &target,
                               int64_t width) {
  int64_t elementBytes =
      std::max<int64_t>(1, op.elementType.getIntOrFloatBitWidth() / 8);
  return CPUDescription::getRegisterRows(
      target.vectorRegisters,
      std::max<int64_t>(1, target.maxRegisterBytes / elementBytes), width,
      getLanes(op, target));
}

/// Whether conv `op` is pointwise: a 1x1 window at unit strides (its
/// NHWC im2col matrix is its input).
static bool isPointwise(const TunableOp &op) {
  return isOneByOne(op) && op.strides == std::array<int64_t, 2>{1, 1};
}

/// The output rows conv `op`'s im2col GEMM pads them to for the register
/// tiles of `target` (getCPUPaddedIm2colRows; the rows themselves when it
/// does not): shared by the im2col decision, its config and the direct
/// conv's tiles over the same padded rows.
static int64_t getPaddedIm2colRows(const TunableOp &op,
                                   const CPUTarget &target) {
  return getCPUPaddedIm2colRows(
      op.kind, op.lookup("n")->size, op.lookup("oh")->size,
      op.lookup("ow")->size,
      getRegisterRows(op, target, 2 * getLanes(op, target)), op.onTensors,
      isPointwise(op));
}

/// Whether a batch-1 FHWC conv with a window larger than 1x1 reads its
/// filter one tap at a time (computeDirectConfig): threads split the
/// filters, each cache step is one filter tap (kh, kw) and a chunk of at
/// most 64 channels of one register tile of filters (the rf x 64 FHWC
/// pieces it packs are 256 bytes of each filter's row, and the next steps
/// read the bytes that follow), and the whole map accumulates in the
/// step's output tile. That tile must stay in cache across the 9 x C / 64
/// steps that add to it: the map x rf filters takes at most an eighth of
/// L2 (ResNet-50's 7x7, 14x14 and 28x28 stages, not the 56x56 one). And the
/// filter is one that a model's other data push out of L2 between calls:
/// at least a quarter of L2 (ResNet-50's 3x3 filters from 128 channels up:
/// 0.6-9.4 MB). A step needs at least 16 channels: with ViT-B/16's patch
/// embedding (3 channels, 16x16 taps) each step's partial sums were loaded
/// and stored for 3 multiply-adds, and the model ran 5-7 % slower at two
/// threads.
static bool readsFilterTapByTap(const TunableOp &op, int64_t lanes,
                                int64_t l2Bytes, int64_t threads) {
  if (op.kind != OpKind::ConvNhwcFhwc || isOneByOne(op))
    return false;
  const LoopDim *n = op.lookup("n"), *f = op.lookup("f"), *oh = op.lookup("oh"),
                *ow = op.lookup("ow"), *c = op.lookup("c"),
                *kh = op.lookup("kh"), *kw = op.lookup("kw");
  if (!n || !f || !oh || !ow || !c || !kh || !kw || n->size != 1)
    return false;
  int64_t elementBytes =
      std::max<int64_t>(1, op.elementType.getIntOrFloatBitWidth() / 8);
  int64_t rf = pickVectorTile(f->size, lanes);
  int64_t filterTiles = f->size / rf;
  int64_t filterBytes = f->size * kh->size * kw->size * c->size * elementBytes;
  return rf % lanes == 0 && largestDivisorAtMost(c->size, 64) >= 16 &&
         largestDivisorAtMost(filterTiles, std::max<int64_t>(1, threads)) ==
             std::max<int64_t>(1, threads) &&
         oh->size * ow->size * rf * elementBytes <= l2Bytes / 8 &&
         filterBytes >= l2Bytes / 4;
}

/// The im2col compute (a `pack` value of its GEMM) the default config
/// takes for conv `op` run by `threads` threads, or nullopt for the direct
/// conv. Measured on ResNet-50's stage-4 convs (7x7 maps, Zen 5, two rounds
/// each, ms, direct / im2col default; `tiletune-default-config
/// compute=...`):
///   3x3 512, batch 8: 1 thread 18.1 / 10.3 (rpmmv), 2 threads 7.5-8.2 /
///     5.5-5.7;
///   3x3 512, batch 1: 1 thread 1.7-2.4 / 1.7-2.0, 2 threads 0.85-0.89 /
///     1.0-1.2 (direct kept);
///   1x1 1024 -> 2048, stride 2: 1 thread 1.56-2.09 / 1.46 (dnmm332),
///     2 threads 0.83-0.94 / 0.69-0.72;
///   1x1 2048 -> 512: 1 thread 0.79-0.89 / 0.69-0.74, 2 threads 0.40-0.42 /
///     0.40-0.47.
/// Since FHWC filter tiles and transposed B panels are packed in 16x16
/// vector blocks (2026-12-02), the direct conv wins those two 1x1 convs
/// (Zen 4, GFLOP/s, direct / dnmm332, FHWC, batch 1, 1 thread: 1024 ->
/// 2048 stride 2 89-95 / 77-85, 2048 -> 512 93-96 / 89-90; with
/// mcpu=haswell 68-71 / 54-55 and 71-74 / 58-60), so 1x1 FHWC convs stay
/// direct; a batched 3x3 keeps rpmmv (b8 3x3 512: 100 / 82-87 direct).
/// On 14x14 and 28x28 maps the direct conv and im2col_rpmmv were within 5%
/// of each other (im2col_dnmm332 25-40% slower), so larger maps stay
/// direct. On a small map the direct conv's register tile gets one short
/// row (OW = 7) per step; the GEMM's M = N*OH*OW rows are tiled freely.
/// An NCHW conv's direct form goes through `layout = nhwc`, which
/// transposes its whole filter on every call; its im2col GEMM through NHWC
/// reads the filter in place. So a 1x1 NCHW conv is an im2col GEMM: per
/// image where its pixels fill whole vectors (takesPerImageIm2col: no copy
/// at all), else through NHWC, with RPMMV at batch 1 on a small map (the
/// filter's [F][C] tiles packed into panels in 16x16 transposing blocks;
/// DNMM332, which reads the filter as stored, was the rule until
/// 2026-12-02: Zen 5, GFLOP/s of two runs, dnmm332 / rpmmv, 7x7 1x1
/// 2048->512 1 thread 138-144 / 150-162, 2 threads 238-240 / 249-259;
/// 1x1/2 1024->2048 130-141 / 141-158; as haswell 55 / 71, 103-104 /
/// 126-127, 54 / 68-69), with the compute the GEMM's own heuristic
/// picks (an empty pack) when it is batched or strided on a larger map.
/// A batch-1 one of at least 256 channels in and out on a map of up to
/// 14x14 takes RPMMV at any thread count (on one thread it stayed direct
/// until 2026-12-05, when the AVX-512 figures were within noise; AVX2 had
/// not been measured: Zen 5, 1 thread, GFLOP/s of three alternating
/// rounds, direct / rpmmv, 14x14 256->1024, 1024->256, 1024->512: as
/// haswell 65-71 / 74-78, 59-68 / 65-77, 59-63 / 78-85; AVX-512 153-163 /
/// 156-175, 164-172 / 157-172, 157-160 / 164-171). A larger NCHW conv on a
/// small map takes im2col_rpmmv at batch 1 too (ResNet-50 b1's 7x7 stage on Zen
/// 4, one thread, GFLOP/s of two runs: 3x3 512 34 -> 40-41, 3x3/2 33-37 ->
/// 44-45; docs/TileConfig.md, "NCHW convs"). A batch-1 NCHW conv of at least
/// 256 channels in and out on a map of up to 14x14 that several threads run
/// takes the im2col GEMM through NHWC as well: there the direct conv's
/// whole-tensor transposes left 2 threads at 1.1-1.4x one (Zen 5, b1, 2
/// threads, GFLOP/s of two
/// runs, direct / rpmmv: 14x14 1x1 256->1024 177-178 / 247-249, 1024->256
/// 210-217 / 281-294, 3x3 256 236-251 / 255-279; 7x7 3x3 512 164-179 /
/// 216-225, 3x3/2 171-172 / 201-203; 28x28 3x3 128 stays direct, 312-324 /
/// 240-252; the 1x1 convs with rpmmv rather than the GEMM's own pick,
/// dpmm: 213-222 for 256->1024). At 1 thread the direct conv keeps the
/// 14x14 maps (3x3 256 189-192 / 167-168).
/// Since the im2col GEMM of a 7x7 map keeps one B panel per cache step
/// (2026-12-05, computeDirectConfig), a batch-1 FHWC conv on a small map
/// takes RPMMV too: 1x1 at any thread count, larger filters on one
/// thread (Xeon, rocketlake, GFLOP/s of two alternating runs, direct /
/// rpmmv, 1 thread: 1x1 2048->512 123 / 133-134, 512->2048 116-118 /
/// 133-135, 1x1/2 1024->2048 110-113 / 132-133, 3x3 512 121-128 /
/// 132-135, 3x3/2 120-122 / 132-135; 2 threads: 1x1 209-223 / 219-225,
/// 232-242 / 257-267, 166-199 / 241-246, but 3x3 229-250 / 199-200 and
/// 3x3/2 224-236 / 183-190, which stay direct). The HWCF form, read in
/// place by the direct conv, stays direct (3x3 512 140-142 / 130-131).
/// Since 2026-12-06 a batch-1 FHWC conv that reads its filter one tap at a
/// time (readsFilterTapByTap) stays direct at one thread too.
static std::optional<StringRef> pickIm2colPack(const TunableOp &op,
                                               const CPUTarget &target) {
  int64_t lanes = getLanes(op, target), l2Bytes = target.l2Bytes,
          threads = target.threads;
  std::optional<OpKind> gemm = getDefaultIm2colMatmulKind(op, lanes, threads);
  if (!gemm)
    return std::nullopt;
  auto size = [&](StringRef name) { return op.lookup(name)->size; };
  bool manyChannels = size("c") >= 256 && size("f") >= 256;
  int64_t pixels = size("oh") * size("ow");
  bool smallMap = pixels <= kSmallMapPixels && manyChannels;
  bool nchw = op.kind == OpKind::ConvNchwFchw;
  // A pointwise NHWC conv of one image on a map larger than 7x7 whose
  // pixels the register tiles of two vectors do not divide (AVX2: 56x56,
  // 28x28 and 14x14 maps give 4 rows of 6) takes RPMMV, its GEMM over
  // padded rows (6 x 16 tiles; the direct conv's are 4 x 16): Zen 3, 1
  // thread, GFLOP/s of four alternating rounds, FHWC 56x56 256->128 direct
  // 55-72, padded RPMMV 82-91; HWCF 58-62 / 65-79 (docs/CPUSchedule.md,
  // "Ragged rows of the pointwise GEMMs"). The 7x7 maps keep the rules
  // below.
  if (!nchw && isPointwise(op) && pixels > kSmallMapPixels &&
      getPaddedIm2colRows(op, target) != size("oh"))
    return StringRef("b");
  bool threadedNchw = nchw && threads > 1 && size("n") == 1 &&
                      pixels <= kThreadedNchwMapPixels && manyChannels;
  if (nchw && isOneByOne(op)) {
    if (takesPerImageIm2col(op, lanes, threads))
      return StringRef();
    if (size("n") == 1 && pixels <= kThreadedNchwMapPixels && manyChannels)
      return StringRef("b");
    if (size("n") > 1 || op.strides != std::array<int64_t, 2>{1, 1})
      return StringRef();
    return std::nullopt;
  }
  // An NHWC conv (FHWC or HWCF filter; 1x1 until 2026-12-06, see below) of many
  // channels on a map of up to 14x14, at any batch and thread count, takes
  // RPMMV where the register file cannot give two vectors of filters a useful
  // share of a row of the map: the direct conv's tiles then hold one vector of
  // filters x 7 pixels (one row of them where the pixels lie 4 KiB apart and
  // crowd an L1 set), while the GEMM tiles its N*OH*OW rows freely. AVX2's 16
  // registers: 6 rows of two vectors against a 14-wide row, whose divisors
  // under 6 give 2 columns; AVX-512's 32 hold 14 (not taken). Zen 3 (AVX2),
  // GFLOP/s of three alternating rounds, direct / rpmmv
  // (`tiletune-default-config compute=...`, `tiletune-run --repeats=15`): HWCF
  // b1 1 thread 256->1024 46-65 / 73-87, 1024->256 63-68 / 71-83, 1x1/2
  // 512->1024 36-41 / 75-90; 2 threads 62-80 / 108-137, 93-101 / 87-134, 73-78
  // / 136-140; FHWC b1 1 thread 69-72 / 83-90, 65-83 / 82-84, 43-62 / 77-88; 2
  // threads 97-135 / 92-152, 93-109 / 130-152, 95-126 / 131-157; HWCF b8, two
  // rounds, 1024->256 61-73 / 71-77 and 71-129 / 146-150, 256->1024 53-63 /
  // 67-72 and 60-94 / 87-177. The 7x7 maps (the small-map rules below) and
  // 28x28 ones (1x1 512->256, 59-77 / 65-79) were not changed.
  // Since 2026-12-06 larger windows take it too (the direct conv's tile is
  // the same), and an NCHW one at batch 1 (its 1x1 form has its own rules
  // above): Zen 3, GFLOP/s of two alternating rounds (one for batch 8),
  // direct / rpmmv, 14x14 3x3 256 and 3x3/2 256: HWCF b1 1 thread 74, 50 /
  // 89, 91 and 59, 60 / 91, 91; 2 threads 86, 113 / 124, 170 and 85, 85 /
  // 164, 120; FHWC b1 1 thread 70, 70 / 88, 91 and 62, 63 / 86, 88; 2
  // threads 114, 133 / 127, 161 and 49, 119 / 146, 164; HWCF b8 1 thread
  // 75 / 87 and 56 / 85, 2 threads 118 / 167 and 109 / 166; NCHW b1 1 thread
  // 62, 63 / 78, 78 and 49, 49 / 74, 73. NCHW at batch 8 stays direct (3x3
  // 256: 63 / 62 at 1 thread, 134 / 106 at 2).
  // Since 2026-12-07 an HWCF image on a smaller map (7x7) takes it too,
  // over rows padded for 6-row tiles (getCPUPaddedPrimeRows: 7 -> 12),
  // where its direct tiles held 2 x 7 pixels x one vector of filters: Zen
  // 3, GFLOP/s of three alternating rounds, direct / rpmmv, 1 thread, 1x1
  // 512->2048 47-67 / 68-77, 2048->512 53-63 / 81-83, 1x1/2 1024->2048
  // 59-61 / 71-74, 3x3 512 62-64 / 67-78, 3x3/2 53-56 / 66-74; 2 threads
  // 55-94 / 132-145, 54-125 / 138-156, 84-113 / 111-120, 93-118 /
  // 119-148, 79-111 / 109-153 (docs/CPUSchedule.md, "Small maps on AVX2").
  int64_t pairRows =
      CPUDescription::getMaxRegisterRows(target.vectorRegisters, 2);
  bool hwcfImage = op.kind == OpKind::ConvNhwcHwcf && size("n") == 1;
  if ((!nchw || size("n") == 1) && manyChannels &&
      (pixels > kSmallMapPixels || hwcfImage) &&
      pixels <= kThreadedNchwMapPixels &&
      2 * largestDivisorAtMost(size("ow"), pairRows) < pairRows)
    return StringRef("b");
  if (!smallMap && !threadedNchw)
    return std::nullopt;
  bool fhwc = op.kind == OpKind::ConvNhwcFhwc;
  if (size("kh") * size("kw") > 1)
    return size("n") > 1 || nchw ||
                   (fhwc && threads == 1 &&
                    !readsFilterTapByTap(op, lanes, l2Bytes, threads))
               ? std::optional<StringRef>("b")
               : std::nullopt;
  // A 1x1 FHWC conv (here on a small map: threadedNchw needs NCHW) takes
  // RPMMV. Until 2026-12-05 one image stayed direct: its filter tiles are
  // packed in transposed vector blocks, which beat reading the filter in
  // place with DNMM332 (the rule until 2026-12-02, for 1024 input channels
  // or more), and RPMMV's tiles streamed B from L2 per register row (see
  // above for the figures since). With several images the direct conv
  // transposes each filter tile again for every image (the images are its
  // outermost cache loop), and RPMMV's GEMM over all images' pixels ran
  // faster: Zen 5, batch 8,
  // ms, three alternating rounds, direct / rpmmv: 7x7 1x1 512->2048 1
  // thread 4.71-4.74 / 3.99-4.45, 2 threads 2.56-2.80 / 2.13-2.19; 1x1/2
  // 1024->2048 9.90-10.10 / 7.99-8.28 and 5.26-5.70 / 4.21-4.38; 2048->512
  // 5.07-6.29 / 4.13-4.97 (2 threads within noise); as haswell 512->2048
  // 10.7-11.3 / 9.86-9.94. The HWCF form, read in place by the direct
  // conv, stays direct (2048->512: 3.91-4.09 / 4.14-5.07).
  if (fhwc)
    return StringRef("b");
  return std::nullopt;
}

static TileConfigAttr computeDirectConfig(MLIRContext *ctx,
                                          const TunableOp &original,
                                          const CPUTarget &target,
                                          StringRef requestedPack,
                                          bool im2colGemm,
                                          int64_t imageRows = 0);

TileConfigAttr tiletune::computeDefaultCPUConfig(MLIRContext *ctx,
                                                 const TunableOp &op,
                                                 const CPUTarget &target,
                                                 StringRef requestedPack) {
  if (isConv(op.kind) &&
      llvm::none_of(op.dims, [](const LoopDim &dim) { return dim.size < 1; }))
    if (std::optional<StringRef> pack = pickIm2colPack(op, target))
      return computeIm2colDefaultCPUConfig(ctx, op, target, *pack);
  return computeDirectDefaultCPUConfig(ctx, op, target, requestedPack);
}

TileConfigAttr
tiletune::computeDirectDefaultCPUConfig(MLIRContext *ctx, const TunableOp &op,
                                        const CPUTarget &target,
                                        StringRef requestedPack) {
  return computeDirectConfig(ctx, op, target, requestedPack,
                             /*im2colGemm=*/false);
}

/// computeDirectDefaultCPUConfig; `im2colGemm`: `original` is the GEMM of a
/// conv's im2col (computeIm2colDefaultCPUConfig), whose operands are not
/// tensors the op reads in place as a matmul's are; `imageRows` (not 0):
/// its m is the pixels of one image (that many) padded, never split over
/// the threads, and kept in one cache tile on a small map (at most
/// kSmallMapPixels pixels).
static TileConfigAttr computeDirectConfig(MLIRContext *ctx,
                                          const TunableOp &original,
                                          const CPUTarget &target,
                                          StringRef requestedPack,
                                          bool im2colGemm,
                                          int64_t imageRows) {
  assert((requestedPack.empty() ||
          isComputeApplicable(original.kind, requestedPack)) &&
         "a requested compute must apply to the op");
  // Every tile below divides a loop size: an op with an empty loop has no
  // config (and nothing to compute; matchTunableOp does not match it).
  if (original.dims.empty() ||
      llvm::any_of(original.dims,
                   [](const LoopDim &dim) { return dim.size < 1; }))
    return {};
  Builder b(ctx);
  int64_t elementBytes =
      std::max<int64_t>(1, original.elementType.getIntOrFloatBitWidth() / 8);
  int64_t lanes = std::max<int64_t>(1, target.vectorBytes / elementBytes);
  auto rowCap = [&](int64_t width) {
    return getRegisterRows(original, target, width);
  };
  // Matmul loops without good divisors are tiled at their padded sizes
  // (Support/Padding.h, with the rows of a two-vector register tile);
  // buildConfig records the padding in the config. The GEMM of a conv's
  // im2col only shapes the conv's tiles (its loops are not padded): its m and
  // whole-vector n are left as they are, which keeps its conv tiles those
  // of a divisor (m = 49 pixels padded to 96 for 6-row tiles would give a
  // 1 x 7 pixel tile).
  TunableOp op = original;
  // A conv's odd rows on a small map are padded by one (Support/Padding.h,
  // shared with the tuning spaces) for register tiles of two rows.
  bool padRows = false;
  if (isConv(op.kind) && op.lookup("n") && op.lookup("oh") && op.lookup("ow")) {
    int64_t rows = op.lookup("oh")->size;
    int64_t padded = getCPUPaddedConvRows(op.kind, op.lookup("n")->size, rows,
                                          op.lookup("ow")->size, op.strides,
                                          rowCap(2 * lanes), op.onTensors);
    padRows = padded != rows;
    for (LoopDim &dim : op.dims)
      if (dim.name == "oh")
        dim.size = padded;
  }
  if (!isConv(op.kind) && isCPUPaddableOpKind(stringifyOpKind(op.kind)))
    for (LoopDim &dim : op.dims) {
      if (dim.role == DimRole::Batch ||
          (im2colGemm && dim.name == "n" && dim.size % lanes == 0))
        continue;
      dim.size =
          getCPUPaddedSize(dim.name, dim.size, lanes,
                           im2colGemm ? 0 : rowCap(2 * lanes), target.threads);
    }
  auto size = [&](StringRef name) { return op.lookup(name)->size; };
  Plan plan;
  SmallVector<StringRef> order;
  StringRef pack = "none";
  int64_t unroll = 1;
  // A grouped NCHW conv whose groups have fewer filters than a vector holds
  // (ResNeXt: 4) keeps its native layout, with the output width on the
  // lanes: NHWC would leave most lanes of every filter vector empty
  // (ResNeXt-50's 32 x 4 x 4 3x3 conv: 34 GFLOP/s as NHWC, 78 native with
  // 4 x 14 register tiles, 1 thread, this machine).
  bool nativeGrouped = op.kind == OpKind::ConvNgchwFgchw && size("f") < lanes;

  bool matmulLike = !isConv(op.kind);
  std::optional<MatmulForm> form = getMatmulForm(op.kind);
  // A short M against a B stored [n][k] (nn.Linear at batch 1-16, a decode
  // step): AutoMCL's DNMM332 (`pack = dn`, vectors along k), TVM's default
  // compute for M <= 16 as well. Measured on 1 x 768 x 768 Bᵀ (1 thread,
  // Zen 5): the packed default 9.7 GFLOP/s, the best of 48 tuned configs
  // without dn 24.6, with dn 46.0; 16 x 768 x 768: 81.5 / 96.4 / 122.9.
  //
  // It needs a long k: every output pays a horizontal reduction per k
  // chunk, and a k shorter than a vector runs masked. Measured on 120 sizes
  // of this form with every compute at its own default
  // (bench/automcl/results/tb-*.jsonl, 1 thread, Zen 5): with at least
  // min(M, N) vectors of k it ran 1.2-35x faster than every other compute
  // when M <= 16 (and k holds two vectors), and when N is under a vector
  // (the other computes put N on the lanes: a B of one row is a
  // matrix-vector product), but at 0.02-0.8 of the best on short k
  // (8 x 256 x 8: 13 GFLOP/s, tmm 113). Counted in vectors, the same rule
  // fits AVX2 (haswell: 0.92 of the best compute over the 120 sizes, 16
  // multiples of k instead of 8 vectors gave 0.89).
  auto prefersDnmm = [&] {
    int64_t m = original.lookup("m")->size, n = original.lookup("n")->size,
            k = original.lookup("k")->size;
    bool longK = k >= lanes * std::min(m, n);
    return longK && ((m <= 16 && k >= 2 * lanes) || (n < lanes && k >= lanes));
  };
  bool dnmm =
      requestedPack.empty()
          ? llvm::is_contained(getPackValues(op.kind), "dn") && prefersDnmm()
          : requestedPack == "dn";
  if (dnmm) {
    // One row of A against rn rows of B: rn accumulators + rn + 1 vectors
    // fit the register file; 8 rows of B (the tuned configs used 3-8).
    int64_t rnCap = std::max<int64_t>(1, (target.vectorRegisters - 1) / 2);
    int64_t rn = largestDivisorAtMost(size("n"), std::min<int64_t>(8, rnCap));
    plan.reg["m"] = 1;
    plan.reg["n"] = rn;
    SmallVector<StringRef> splitOrder;
    if (isBatchedMatmul(op.kind))
      splitOrder.push_back("b");
    splitOrder.append({"n", "m"});
    splitThreads(op, plan, splitOrder, target.threads);
    // The k chunk of the A row and the rn B rows fills half of L1.
    plan.cache["k"] = largestDivisorAtMost(
        size("k"), std::max<int64_t>(lanes, target.l1Bytes / 2 /
                                                ((1 + rn) * elementBytes)));
    // All of the thread's rows, and as many B rows as keep the cache tile's
    // operands (m x k of A, k x n of B, m x n of C) within the L2: the
    // space's "cache-fit" rule, so that the default config is a point of
    // the tuning space (a cache tile of all of n's 2048 B rows of 256 was
    // not, and the tuner started from the untiled config instead).
    int64_t mc = plan.parallel["m"], kc = plan.cache["k"];
    int64_t l2Elements = target.l2Bytes / elementBytes;
    int64_t ncCap = std::max<int64_t>(rn, (l2Elements - mc * kc) / (kc + mc));
    plan.cache["n"] = cacheTile(plan.parallel["n"], rn, ncCap);
    plan.cache["m"] = mc;
    // k chunks outermost; each tile of rn B rows meets every row of A.
    order = {"k", "n", "m"};
    pack = "dn";
  } else if (matmulLike) {
    int64_t rn = pickVectorTile(size("n"), lanes);
    int64_t rm = largestDivisorAtMost(size("m"), rowCap(rn));
    // Where m's divisors leave at most half the rows that fit (M = 49 on
    // AVX2: 6 rows of two vectors fit, 49 = 7 x 7 gives 1), one vector per
    // row when that holds more accumulators (7 x 8): a 1 x 16 tile has two
    // accumulators against the FMA latency. The im2col GEMMs of 7x7 maps
    // hit this (b1 NCHW 3x3 512 at 2 threads, mcpu=haswell, Zen 5: 39-42
    // GFLOP/s with 1 x 16).
    if (rn > lanes && 2 * rm <= rowCap(rn)) {
      int64_t narrowRm = largestDivisorAtMost(size("m"), rowCap(lanes));
      if (narrowRm * lanes > rm * rn && size("n") % lanes == 0) {
        rn = lanes;
        rm = narrowRm;
      }
    }
    plan.reg["m"] = rm;
    plan.reg["n"] = rn;
    // Threads split the batch first (independent problems), then the
    // longer of M and N in register tiles: every thread packs the B panels
    // of its N range and the A tiles of its M range, so splitting the
    // longer dim duplicates the least packing (BERT's 128 x 3072 x 768 FFN
    // packs its 9 MiB B twice when M is split).
    SmallVector<StringRef> splitOrder;
    if (isBatchedMatmul(op.kind))
      splitOrder.push_back("b");
    // Padded rows (imageRows) stay whole (the verifier's rule for a conv's
    // padded rows): the threads split the filters.
    if (imageRows)
      splitOrder.push_back("n");
    else if (size("n") / rn > size("m") / rm)
      splitOrder.append({"n", "m"});
    else
      splitOrder.append({"m", "n"});
    splitThreads(op, plan, splitOrder, target.threads);
    // K tile: the packed B panel (Kc x rn) takes two thirds of L1, the B
    // cache tile (Kc x Nc) at most half of L2.
    int64_t kc = largestDivisorAtMost(
        size("k"),
        std::max<int64_t>(1, target.l1Bytes * 2 / 3 / (rn * elementBytes)));
    int64_t ncCap =
        std::max<int64_t>(rn, target.l2Bytes / 2 / (kc * elementBytes));
    plan.cache["k"] = kc;
    plan.cache["n"] =
        cacheTile(plan.parallel["n"], rn, std::min<int64_t>(ncCap, 512));
    // Up to 64 rows of A per cache tile. When the thread's rows have no
    // multiple of rm near that (a prime number of register rows: 257 padded
    // to 264 is 2 x 11 tiles of 12 at 2 threads), a tile of one or two
    // register rows would copy A and the output tile in many small steps
    // (257x511x129 at 2 threads: 156 us with 12 rows, 110 with 132, Zen 5);
    // the thread's whole extent is taken instead while its A block fits in
    // half of L2.
    // The same when m is padded and several threads run: every cache step
    // of a padded schedule copies its partial tiles, and at 2 threads
    // fewer, larger steps ran faster (197^3: 64 us with 100 rows per step,
    // 87 with 50); up to 256 rows (1000^3 keeps its 50-row tiles).
    int64_t mc = cacheTile(plan.parallel["m"], rm, 64);
    bool mPadded = size("m") != original.lookup("m")->size;
    bool fitsL2 =
        plan.parallel["m"] * kc * elementBytes <= target.l2Bytes / 2;
    if (fitsL2 &&
        (mc < 16 || (imageRows && imageRows <= kSmallMapPixels) ||
         (mPadded && target.threads > 1 && plan.parallel["m"] <= 256)))
      mc = plan.parallel["m"];
    plan.cache["m"] = mc;
    order = {"n", "k", "m"};
    // Panels pay off when several register rows reuse them; A is then
    // copied too (its rows are 4 KiB apart for power-of-two K, which
    // thrashes L1 sets otherwise). Both measured best on 1024^3.
    if (plan.parallel["m"] / rm >= 4 && rn >= lanes / 2) {
      pack = "ab";
      // Up to 512 rows per thread (BERT, ViT, attention heads), a plain
      // matmul or batch_matmul reads in place each operand whose rows do
      // not all start in the same L1 set: there the copy costs more than
      // the contiguous panels save (B is reused by only those rows). Zen 5,
      // 1 / 2 threads, GFLOP/s packed -> in place (`tiletune-run
      // --repeats=15`, best of 3 interleaved): 128x768x768 185 -> 197,
      // 304 -> 371; 128x2304x768 174 -> 190, 330 -> 348; 128x1536x768
      // 175 -> 188, 313 -> 341; 384x768x768 142 -> 197, 293 -> 377;
      // 512x768x768 192 -> 200, 338 -> 360. Rows 4 KiB apart keep their
      // copy: 128x3072x768 (B's rows 12 KiB apart) ran 20 % slower with B
      // in place, and 384x768x3072 with A in place 6 % slower at 2 threads
      // (packing A alone: 8-15 % faster than both). The same per batch of
      // a batch_matmul: attention's 12 x 128x128x64, 1 / 2 threads, 181-186
      // -> 196-201 and 363-372 -> 398-405 in place; 16 x 256^3 140-150 ->
      // 154-165 and 276-285 -> 293-309.
      if (!im2colGemm && form && !form->transposeA && !form->transposeB &&
          plan.parallel["m"] <= 512) {
        bool packA = rowsShareL1Set(original.lookup("k")->size * elementBytes);
        bool packB = rowsShareL1Set(original.lookup("n")->size * elementBytes);
        pack = packA ? (packB ? "ab" : "a") : (packB ? "b" : "none");
      }
    }
    // A transposed B ([n][k]) is read across rows by the register tile:
    // packing it into panels absorbs the transpose (the panel copy reads
    // through the permutation), so it is packed, unless M has at most 16
    // rows: then the panels serve too few register rows to pay for their
    // copy, and reading B in place ran faster on every such size of the
    // tb dataset (8 x 256 x 8: 113 GFLOP/s in place, 54 packed; 16 x 16 x
    // 64: 117 and 80; bench/automcl/results/tb-znver5-1thread.jsonl).
    if (form && form->transposeB && pack == "none" &&
        original.lookup("m")->size > 16)
      pack = "b";
    // A requested compute keeps the tiles and takes its packing.
    if (!requestedPack.empty())
      pack = requestedPack;
    // An im2col GEMM with B packed whose thread's rows all fit one cache
    // tile (a batch-1 conv on a 7x7 map: 49 rows): every register row
    // sweeps the cache tile's n panels in turn (the register loops run m
    // outside n), so a cache tile of several panels streams from L2 once
    // per register row. One panel per cache step instead, and a k chunk
    // that keeps the panel and the rows' A slice in half of L1 together:
    // both are then reused from L1. Xeon (rocketlake), 1 thread, GFLOP/s of
    // two alternating runs, `tiletune-run --repeats=30`, NCHW b1 through
    // NHWC, cache {k = 256, n = 512} -> {k = 64, n = 32}: 7x7 1x1
    // 2048->512 99-100 -> 128-129, 512->2048 103-106 -> 125-131, 1x1/2
    // 1024->2048 95 -> 129, 3x3 512 99-101 -> 126-131, 3x3/2 512 100-101
    // -> 122-130.
    // With padded rows (imageRows) the A slice is the real rows', and the
    // pair may take two thirds of L1: on the 7x7 map's 49 rows with 6 x 16
    // register tiles (AVX2), k = 32 (half of L1) ran the NCHW 1x1 512->2048
    // at 44-46 GFLOP/s, k = 64 at 55-64 (Zen 3, 1 thread, three
    // alternating rounds).
    // Since 2026-12-07 the padded rows take a k chunk whose A slice alone
    // fills L1, and two panels per cache step where they divide the
    // thread's filters: fewer steps, each adding to the output tile, ran
    // faster than the pair in two thirds of L1 (Zen 3, 1 thread, GFLOP/s
    // of three or four alternating rounds, cache {k = 64, n = 16} / {k =
    // 128, n = 32}: FHWC 7x7 1x1 512->2048 53-69 / 65-81, HWCF 512->2048
    // 65-72 / 72-82, HWCF 2048->512 64-77 / 72-83, HWCF 1x1/2 1024->2048
    // 61-64 / 69-74; docs/CPUSchedule.md, "Small maps on AVX2").
    if (im2colGemm && pack == "b" && mc == plan.parallel["m"]) {
      int64_t rows = imageRows ? std::min(mc, imageRows) : mc;
      int64_t fill = imageRows
                         ? target.l1Bytes / (rows * elementBytes)
                         : target.l1Bytes / 2 / ((rows + rn) * elementBytes);
      kc = largestDivisorAtMost(size("k"), std::max<int64_t>(lanes, fill));
      plan.cache["k"] = kc;
      plan.cache["n"] =
          imageRows && plan.parallel["n"] % (2 * rn) == 0 ? 2 * rn : rn;
    }
    for (int64_t u : {4, 2, 1})
      if (kc % u == 0) {
        unroll = u;
        break;
      }
  } else {
    // Convolutions: output width x filters form the register tile, filters
    // on the vector lanes; one output row at a time.
    int64_t rf;
    if (nativeGrouped) {
      // Output width on the lanes (at most one vector), filters as rows.
      int64_t rw = largestDivisorAtMost(size("ow"), lanes);
      rf = largestDivisorAtMost(size("f"), rowCap(rw));
      plan.reg["ow"] = rw;
    } else {
      rf = pickVectorTile(size("f"), lanes);
      plan.reg["ow"] = largestDivisorAtMost(size("ow"), rowCap(rf));
      // Two vectors of filters leave room for fewer columns; one vector
      // when that gives more accumulators (AVX2 on a 14- or 7-wide map:
      // 2 x 16 filters x 2 or 1 columns against 8 filters x 7 columns; the
      // 14x14 1x1 256-1024 ran at 26.7 GFLOP/s with 2 x 2, 42 with 1 x 7,
      // 69-75 with 1 x 7 x 2 rows below; Zen 5 as haswell).
      if (rf == 2 * lanes) {
        int64_t oneVector = largestDivisorAtMost(size("ow"), rowCap(lanes));
        if (oneVector > 2 * plan.reg["ow"]) {
          rf = lanes;
          plan.reg["ow"] = oneVector;
        }
      }
    }
    plan.reg["f"] = rf;
    plan.reg["oh"] = 1;
    // Grouped convs split the groups first (independent convs, each
    // computed whole by its thread; ResNeXt's groups are small).
    // Padded rows stay whole (their thread tiles are not versioned).
    if (padRows)
      splitThreads(op, plan, {"g", "n", "f", "ow"}, target.threads);
    else
      splitThreads(op, plan, {"g", "n", "oh", "f", "ow"}, target.threads);
    plan.cache["kh"] = size("kh");
    plan.cache["kw"] = size("kw");
    // Up to 64 input channels per cache tile and up to 64 filters, so the
    // filter slice (kh x kw x c x f) stays in L2 while whole output rows
    // stream by (measured on ResNet-50 3x3 and AlexNet C2).
    plan.cache["c"] = largestDivisorAtMost(size("c"), 64);
    plan.cache["f"] = cacheTile(plan.parallel["f"], rf, 64);
    plan.cache["ow"] = plan.parallel["ow"];
    plan.cache["oh"] = cacheTile(plan.parallel["oh"], 1, 4);
    // Every step of the oh cache loop reads the whole filter slice of its
    // filter tile (kh x kw x c x f_cache). Where that slice overflows half of
    // L2 (the deep layers: ResNet-50's 3x3 512 reads 1.2 MiB per 64
    // filters), it came from L3 again for every step, so the step takes as
    // many output rows as keep the input rows it reads (all channels) in the
    // other half: the 3x3 512 conv of a 7x7 map takes all 7 rows and reads
    // its filter once.
    // Input columns and rows that `rows` output rows of the thread read.
    int64_t inputCols = (plan.parallel["ow"] - 1) * op.strides[1] +
                        (size("kw") - 1) * op.dilations[1] + 1;
    auto inputRows = [&](int64_t rows) {
      return (rows - 1) * op.strides[0] + (size("kh") - 1) * op.dilations[0] +
             1;
    };
    int64_t filterSlice = size("kh") * size("kw") * size("c") *
                          plan.cache["f"] * elementBytes;
    if (filterSlice > target.l2Bytes / 2) {
      int64_t inputRow = inputCols * size("c") * elementBytes;
      int64_t rows = 1;
      while (rows < plan.parallel["oh"] &&
             inputRows(rows + 1) * inputRow <= target.l2Bytes / 2)
        ++rows;
      plan.cache["oh"] =
          std::max(plan.cache["oh"], cacheTile(plan.parallel["oh"], 1, rows));
    }
    // Within a step, each c chunk of the filter tile (kh x kw x c_cache x
    // f_cache) serves one register tile per output row and ow tile before
    // the next chunk is read. A small map gives it few: ResNet-50's 7x7 maps
    // with a 7-wide register tile used each filter vector once per row and
    // step, so the filter came from L2 for every 7 FMAs. The step takes
    // rows until each chunk serves at least 16 register tiles (4 rows of a
    // 28-wide map, as before; all 7 rows of a 7x7 map), within a quarter
    // of L2 of input rows per chunk.
    // Measured on ResNet-50 b1 (1 thread, Zen 5, ours / oneDNN), both
    // rules: 3x3 512 0.49 -> 0.83, 1x1 2048-512 0.66 -> 0.90, 3x3 256
    // 0.84-0.86 -> 0.84-0.90.
    int64_t rowTiles = plan.parallel["ow"] / plan.reg["ow"];
    int64_t wantRows = (16 + rowTiles - 1) / rowTiles;
    int64_t chunkRow = inputCols * plan.cache["c"] * elementBytes;
    for (int64_t rows = plan.cache["oh"] + 1;
         rows <= plan.parallel["oh"] && plan.cache["oh"] < wantRows; ++rows) {
      if (inputRows(rows) * chunkRow > target.l2Bytes / 4)
        break;
      if (plan.parallel["oh"] % rows == 0)
        plan.cache["oh"] = rows;
    }
    // Small maps (at most 14 columns: ResNet-50's 14x14 and 7x7 stages)
    // get too few accumulators from one output row:
    // two rows where the step's rows are even and the registers hold them
    // (2 x 7 x 32 = 28 zmm accumulators), and a 1x1 conv reads up to 256
    // channels per filter chunk, so each chunk's partial sums are stored
    // back fewer times. ResNet-50's 14x14 1x1 256-1024, 1 thread, Zen 5:
    // 147-150 GFLOP/s -> 209-210; its 3x3 256: 190-202 -> 202-206; the
    // 7x7 1x1 512-2048 (odd rows: channels only) 140-148 -> 152-158.
    // Not where the two rows' input pixels crowd an L1 set (fitsL1Sets).
    if (!nativeGrouped && plan.parallel["ow"] <= 14) {
      int64_t vectors = (rf + lanes - 1) / lanes;
      // Full vectors only: with masked ones (20 filters on 16 lanes) the
      // second row ran slower (a 2x8x6x20 conv: 8.4-8.6 GFLOP/s with one
      // row, 6.1-6.3 with two).
      int64_t inputWidth = (size("ow") - 1) * op.strides[1] +
                           (size("kw") - 1) * op.dilations[1] + 1;
      int64_t pixelBytes = size("c") * elementBytes;
      bool twoRowsFit =
          rf % lanes == 0 &&
          2 * plan.reg["ow"] <= CPUDescription::getMaxRegisterRows(
                                    target.vectorRegisters, vectors) &&
          fitsL1Sets(2, plan.reg["ow"], op.strides[0] * inputWidth * pixelBytes,
                     op.strides[1] * pixelBytes, target.l1Bytes);
      // An odd number of rows (ResNet-50's 7x7 maps) is padded by one
      // (padRows, above): three register tiles of two rows, and the last
      // row alone (peeled, in place). The HWCF filter is then read in place
      // (below). Zen 5, 1 thread, GFLOP/s, one row and a packed filter /
      // two padded rows, filter in place: 7x7 1x1 512-2048 172 / 220, 3x3
      // 512 186 / 224 (docs/CPUSchedule.md, "Odd rows on small maps").
      if (plan.cache["oh"] % 2 == 0 && twoRowsFit)
        plan.reg["oh"] = 2;
      // Where the input is a zero pad of the rows, one row of the whole
      // width holds as many accumulators (1 x 14 x 32 against 2 x 7 x 32)
      // and its tiles at the image's top and bottom rows skip the taps on
      // the padding (skip-padding-taps; a tile of two rows straddles no
      // edge that one of its rows does not need), 2 of 42 row taps of a
      // 3x3 conv on a 14x14 map. Zen 5, 1 thread, the 14x14 3x3 256 conv
      // behind its pad, 2 x 7 / 1 x 14: 1.08 / 1.02-1.03 ms (1.05-1.07
      // with skip-padding-taps=0); at 2 threads (7 rows each, 1 x 7
      // before) 613-633 / 603-607 us.
      int64_t rowWidth = plan.parallel["ow"];
      if (op.zeroPaddedRows && size("kh") > 1 && rf % lanes == 0 &&
          rowWidth > plan.reg["ow"] &&
          rowWidth >= plan.reg["oh"] * plan.reg["ow"] &&
          rowWidth <= CPUDescription::getMaxRegisterRows(target.vectorRegisters,
                                                         vectors) &&
          fitsL1Sets(1, rowWidth, 0, op.strides[1] * pixelBytes,
                     target.l1Bytes)) {
        plan.reg["oh"] = 1;
        plan.reg["ow"] = rowWidth;
      }
      if (size("kh") * size("kw") == 1)
        plan.cache["c"] = largestDivisorAtMost(size("c"), 256);
    }
    // NCHW convs are computed as NHWC (layout = nhwc): the native NCHW
    // micro-kernel transposes its accumulator in every reduction step and
    // ran 2-4x slower than the transposes plus the NHWC conv (ResNet-50
    // 3x3, docs/TileConfig.md).
    order = {"f", "oh", "ow", "kh", "kw", "c"};
    // An FHWC filter (TOSA's form) is transposed tile by tile as it is
    // packed, instead of whole on every call: ResNet-50's 3x3 512 conv
    // (9.4 MB filter) took 2.2-2.3 ms with the whole transpose, 1.8-1.9
    // packed, 1.4-1.5 as HWCF (1 thread, Zen 5); equal on the 56x56 3x3.
    if (op.kind == OpKind::ConvNhwcFhwc)
      pack = "b";
    // An HWCF filter tile on a small map (at most 49 output pixels) is
    // copied contiguous too where the window is larger than 1x1 or
    // strided: each filter chunk then serves few register tiles, and read
    // in place its rows lie F elements apart, in few L1 sets. Zen 4, batch
    // 1, 1 thread, GFLOP/s in place / packed (`tiletune-run --repeats=20`,
    // two to five rounds): 7x7 3x3 512 66-76 / 83-84, 3x3/2 512 76-78 /
    // 85, 1x1/2 1024-2048 60-83 / 82-96; the unstrided 7x7 1x1 convs
    // measured within noise, the 14x14 and 28x28 3x3 convs slower packed
    // (113-114 / 103-112).
    // With two padded rows each filter vector serves 14 pixels, and the
    // copy of a filter that 49 pixels use cost more than it saved.
    // Where the register tile's filters are narrower than a cache line
    // (AVX2: 8 filters, half of a 64-byte line), every small map's HWCF
    // filter is copied: read in place, each line the tile reads is half
    // used, and its other half (the next filter tile's) has left L1 by the
    // time that tile comes. Zen 3 (AVX2, 512 KiB L2), ResNet-50's 7x7
    // maps, GFLOP/s in place -> packed (`tiletune-run --repeats=15`, two
    // or three alternating rounds), 1 thread: 1x1 512-2048 38-57 -> 48-67,
    // 1x1 2048-512 38-48 -> 45-60, 3x3 512 23-37 -> 47-60, batch 8 1x1
    // 512-2048 25-30 -> 48-59; 2 threads: 1x1 512-2048 76-80 -> 97-125,
    // 3x3 512 34-59 -> 85-88. The 14x14 maps measured the same either way.
    bool partialFilterLines = plan.reg["f"] * elementBytes < target.lineBytes;
    if (op.kind == OpKind::ConvNhwcHwcf &&
        original.lookup("oh")->size * size("ow") <= kSmallMapPixels &&
        (partialFilterLines || (!(padRows && plan.reg["oh"] == 2) &&
                                (size("kh") * size("kw") > 1 ||
                                 op.strides != std::array<int64_t, 2>{1, 1}))))
      pack = "b";
    // Where each filter vector serves at most 4 pixels (AVX2's 16
    // registers: 16 filters x 4 pixels) and the register tile's filter
    // slice over the chunk is larger than L1, every register tile streams
    // that slice from L2, a vector for each 4 FMAs; read in place its rows
    // lie F elements apart, packed they are contiguous and prefetched. Zen 3
    // (AVX2, 32 KiB L1d), batch 1 (`tiletune-run --repeats=15`, two
    // alternating rounds), GFLOP/s in place -> packed: 28x28 3x3 128 58, 58
    // -> 88, 82 (1 thread), 98, 98 -> 132, 177 (2); 3x3/2 128 55, 56 -> 79,
    // 80 (1), 97, 98 -> 106, 111 (2); batch 8 3x3 128 56 -> 70; the 56x56
    // 3x3 64 (36 KiB slice) measured the same either way (b1 91-93, b8
    // 86-87). AVX-512's 32 registers give 7 or 8 pixels: unchanged. ResNet's
    // first conv (3 channels, a 9 KiB slice) stays in place (93, 84 -> 88,
    // 75 packed). An NCHW conv computed through NHWC reads its filter
    // transposed to HWCF, the same way: 28x28 3x3 128 52, 53 -> 81, 82;
    // 3x3/2 42, 39 -> 67, 54; 56x56 3x3 64 63, 65 -> 88, 64.
    if ((op.kind == OpKind::ConvNhwcHwcf || op.kind == OpKind::ConvNchwFchw) &&
        size("kh") * size("kw") > 1 && plan.reg["oh"] * plan.reg["ow"] <= 4 &&
        size("kh") * size("kw") * plan.cache["c"] * plan.reg["f"] *
                elementBytes >
            target.l1Bytes)
      pack = "b";
    // A packed filter tile holds one c chunk, so with several chunks it is
    // copied again on every step of the oh cache loop (the chunk changes
    // inside it); with all channels in one chunk it changes only with the
    // filters (and the images, the outermost cache loop) and is copied once
    // per filter tile and image. Taken for windows larger
    // than 1x1 where the thread's rows take several steps and the whole-C
    // filter tile fits half of L2: ResNet-50's 28x28 3x3 128 convs (295
    // KiB for 64 filters). Zen 5, batch 8, ms per call (`tiletune-run
    // --repeats=10`, best of two rounds), 64 channels per chunk -> all 128:
    // 3x3 9.87 -> 9.46, 3x3/2 11.32 -> 9.52 at 1 thread, 5.16 -> 4.60 and
    // 5.56 -> 4.86 at 2; batch 1 3x3 1.22 -> 1.09. The 14x14 and 7x7 maps
    // take all their rows in one step (and the 3x3 256's whole-C tile is
    // 576 KiB): unchanged. (filterSlice, above, is that whole-C tile.)
    if (pack == "b" && !isOneByOne(op) &&
        plan.cache["oh"] < plan.parallel["oh"] &&
        filterSlice <= target.l2Bytes / 2)
      plan.cache["c"] = size("c");
    // An unstrided 1x1 conv on a wide map whose input streams from memory
    // (ResNet-50's 56x56 and 28x28 stages at batch 8) gives each register
    // tile one cache chunk of at most 64 channels, 64 steps of FMAs, too
    // few to hide the latency of the 8 input pixels it broadcasts from.
    // Its input tile is copied (`pack = a`: the copy streams it and
    // prefetches the next one, VectorizeCopies.cpp), and all filters are
    // one cache tile, output pixels outermost, so each input tile is
    // copied once, where a chunk of all filters (c x f) is at most a
    // quarter of L2 (a sixteenth until Zen 3's 512 KiB L2 left its b8 56x56
    // 1x1 64-256, a 64 KiB chunk, in the order above: 38-45 GFLOP/s at 1
    // thread against 67-68 this way, 75-85 against 109-124 at 2; the 28x28
    // 1x1 128-512, 128 KiB, 49-64 -> 69-72). "From memory": the whole input is
    // more than 4x L2; at batch 1 (0.8-3.2 MB) the copies ran 5-10 %
    // slower. Over more than one chunk of channels only for one thread: at
    // two, the 28x28 1x1 512-128 ran 8-20 % slower copied. Zen 5, 1
    // thread, ms per call with the folded batch norm and ReLU (`tiletune-run
    // --repeats=10`; docs/CPUSchedule.md, "Wide 1x1 convs streaming their
    // input"), before -> after: b8 56x56 1x1 64-64 1.66-1.80 -> 1.31-1.52,
    // 64-256 5.94-7.22 -> 5.22-5.63, 256-128 11.56-11.96 -> 9.45-9.63.
    int64_t inputBytes =
        size("n") * size("oh") * size("ow") * size("c") * elementBytes;
    int64_t filterChunk = plan.cache["c"] * plan.parallel["f"] * elementBytes;
    if (!nativeGrouped && isOneByOne(op) &&
        op.strides == std::array<int64_t, 2>{1, 1} &&
        plan.parallel["ow"] > 14 && inputBytes > 4 * target.l2Bytes &&
        filterChunk <= target.l2Bytes / 4 &&
        (plan.cache["c"] == size("c") || target.threads == 1)) {
      plan.cache["f"] = plan.parallel["f"];
      order = {"oh", "ow", "f", "kh", "kw", "c"};
      pack = pack == "b" ? "ab" : "a";
    } else if (!nativeGrouped && isOneByOne(op) && plan.parallel["ow"] > 14 &&
               inputBytes <= 4 * target.l2Bytes &&
               size("c") * plan.cache["f"] * elementBytes <=
                   target.l2Bytes / 8) {
      // A 1x1 conv on a wide map whose input does not stream from memory
      // (batch 1) takes all its channels in one cache tile where that
      // filter chunk (c x f_cache) fits an eighth of L2: each register tile
      // then accumulates over the whole reduction in registers, and a fused
      // epilogue finishes it there (docs/CPUSchedule.md, "Fused epilogues",
      // step 3) instead of filling, storing and reading back every output
      // tile. Xeon, 1 thread, ms per call with the bias broadcast and
      // folded batch norm of ResNet-50 b1 (`tiletune-run --repeats=30`,
      // three rounds in alternation), 64 channels per chunk -> all: 28x28
      // 128-512 0.76-0.78 -> 0.60-0.61 (alone, no epilogue: 0.65-0.71 ->
      // 0.61-0.63), 28x28 512-128 0.69-0.70 -> 0.65-0.66 (256 channels:
      // 0.72-0.74), 56x56 256-64 0.69-0.72 -> 0.66-0.68. With a streaming
      // input (batch 8) it lost: the 56x56 1x1 256-64 at 2 threads went
      // from 1.16-1.28 of oneDNN to 0.67 (docs/CPUSchedule.md, "Wide 1x1
      // convs: all channels in one chunk").
      plan.cache["c"] = size("c");
    }
    // Reductions outermost where the filter is the big operand: an FHWC (or
    // HWCF, below) conv whose thread reads more filter than L2 holds and writes
    // an output that fits in half of it (ResNet-50's 14x14 and 7x7 stages at
    // batch 1: 2-9 MB of filter for 100-400 KB of output). The filters of
    // the order above stream through L2 once per output row they serve
    // (each packed chunk of 64 filters x all taps x 64 channels is read by
    // every row of the map); here each packed tile is one register tile of
    // filters x the filter's rows x 32 channels (12 KB for 32 filters of a
    // 3x3), so it stays in L1 for every output row, and the output's
    // partial sums stay in L2 between the channel chunks (loads and stores
    // of the accumulators once per 32 channels x KH taps). The tuner found
    // this order on the 7x7 3x3 512 conv (gbfs, 538 trials, 1.18x over the
    // previous default). Zen 5, batch 1, 1 thread, ms per call, before ->
    // after (docs/CPUSchedule.md, "Reductions outermost for filters larger
    // than L2"): 7x7 3x3 512 1.28-1.34 -> 1.11-1.21, 1x1 2048-512 0.62 ->
    // 0.51-0.55, 1x1/2 1024-2048 1.21-1.22 -> 1.09-1.16, 14x14 3x3 256
    // 1.07-1.14 -> 1.05-1.11.
    int64_t threadOutput = plan.parallel["n"] * plan.parallel["oh"] *
                           plan.parallel["ow"] * plan.parallel["f"] *
                           elementBytes;
    int64_t threadFilter =
        size("kh") * size("kw") * size("c") * plan.parallel["f"] * elementBytes;
    // Only for one thread and register tiles of at least two vectors of
    // filters: at two threads (each with half of the filters or of the
    // rows) the 14x14 convs and the 7x7 1x1 2048-512 ran 10-50 % slower
    // this way (0.32-0.34 -> 0.47-0.49 ms for the latter), and with one
    // vector of filters (`mcpu=haswell`: 8 filters x 7 pixels) the 1x1
    // convs ran 5-10 % slower and the 3x3 ones within noise.
    // Channels without a divisor of 16 to 32 keep the order above (a chunk
    // of a few channels would load and store the partial sums every few
    // FMAs).
    int64_t channelChunk = largestDivisorAtMost(size("c"), 32);
    // An HWCF filter takes it too, packed: its chunk read in place is 32
    // rows of one register tile's filters, F elements apart, in few L1
    // sets. Xeon (two 512-bit FMA pipes, 2 MiB L2), 1 thread, the 7x7 1x1
    // 512-2048 conv: 79-81 GFLOP/s -> 126-129 (`tiletune tune` found 133
    // with the channels outermost and the filter in place).
    bool hwcfOrFhwc = (op.kind == OpKind::ConvNhwcFhwc && pack == "b") ||
                      op.kind == OpKind::ConvNhwcHwcf;
    if (hwcfOrFhwc && order[0] == "f" && target.threads == 1 &&
        rf >= 2 * lanes && channelChunk >= 16 &&
        threadOutput <= target.l2Bytes / 2 && threadFilter > target.l2Bytes) {
      pack = "b";
      // Each channel chunk loads and stores the register tile's partial
      // sums, so its output pixels (F elements apart) must not crowd an L1
      // set: two rows of 7 pixels 4 or 8 KiB apart (1024 or 2048 filters)
      // put 14 lines in one set of 12 ways. One row there. Zen 5, 1 thread,
      // the 7x7 1x1 512-2048 (`tiletune-run --repeats=15`, five alternating
      // rounds, GFLOP/s, two rows / one row): filter warm 144-158 /
      // 139-177, filter from memory (`--cold-args=1`) 95-124 / 127-178 (the
      // order above with two rows: 207-215 warm, 150-156 from memory;
      // docs/CPUSchedule.md, "Output pixels that crowd an L1 set").
      int64_t outputPixelBytes = size("f") * elementBytes;
      if (plan.reg["oh"] > 1 && !fitsL1Sets(plan.reg["oh"], plan.reg["ow"],
                                            size("ow") * outputPixelBytes,
                                            outputPixelBytes, target.l1Bytes))
        plan.reg["oh"] = 1;
      // ow and kh keep their whole cache tiles (set above).
      plan.cache["oh"] = plan.reg["oh"];
      plan.cache["f"] = plan.reg["f"];
      plan.cache["kw"] = 1;
      plan.cache["c"] = channelChunk;
      order = {"ow", "kh", "c", "kw", "f", "oh"};
    }
    // A batch-1 FHWC conv on a map of up to 28x28 reads its filter one tap
    // at a time (readsFilterTapByTap). In a model its filter comes from
    // memory on every call (the other ops' weights have pushed it out of
    // the caches), and the rules above read it in pieces scattered over
    // its rows: a step of kh x kw taps packs 9 pieces 2 KiB apart per
    // filter (the 2-thread order), or an im2col panel of 64 channels per
    // tap (1 thread). Here the pieces a filter tile's steps read follow
    // each other in memory, and the whole map's register tiles reuse each
    // packed piece from L1. Xeon, ms per call with the model's bias
    // broadcast and batch norm, filter evicted from the caches before
    // every call (`tiletune-run --cold-args=1 --repeats=40`, two rounds),
    // before -> after: 7x7 3x3 512 1 thread 1.80-1.86 -> 1.69-1.72, 2
    // threads 1.69-1.79 -> 0.86-0.92 (its filter warm: 1.02-1.03 -> 0.93);
    // 14x14 3x3 256 1.44-1.53 -> 1.34-1.46 and 1.00-1.07 -> 0.77-0.83;
    // 28x28 3x3 128 1.46-1.52 -> 1.38-1.43 and 0.81-0.83 -> 0.77-0.78. The
    // 56x56 3x3 64 (a 400 KB output tile per filter tile) ran slower this
    // way, 1.39 -> 1.45 and 0.75 -> 0.85.
    if (!padRows && requestedPack.empty() &&
        readsFilterTapByTap(original, lanes, target.l2Bytes, target.threads)) {
      int64_t vectors = rf / lanes;
      int64_t pixelBytes = size("c") * elementBytes;
      int64_t maxCols =
          CPUDescription::getMaxRegisterRows(target.vectorRegisters, vectors);
      int64_t cols = largestDivisorAtMost(size("ow"), maxCols);
      while (cols > 1 && !fitsL1Sets(1, cols, 0, op.strides[1] * pixelBytes,
                                     target.l1Bytes))
        cols = largestDivisorAtMost(size("ow"), cols - 1);
      plan.reg["oh"] = 1;
      plan.reg["ow"] = cols;
      plan.reg["f"] = rf;
      splitThreads(op, plan, {"f"}, target.threads);
      plan.cache["oh"] = plan.parallel["oh"];
      plan.cache["ow"] = plan.parallel["ow"];
      plan.cache["f"] = rf;
      plan.cache["kh"] = 1;
      plan.cache["kw"] = 1;
      plan.cache["c"] = largestDivisorAtMost(size("c"), 64);
      order = {"f", "kh", "kw", "c", "oh", "ow"};
      pack = "b";
    }
  }

  FactorMap factors;
  for (const LoopDim &dim : op.dims) {
    switch (dim.role) {
    case DimRole::Batch: {
      int64_t p = plan.parallel[dim.name];
      factors[dim.name] = {dim.size / p, p};
      break;
    }
    case DimRole::Parallel: {
      int64_t p = plan.parallel[dim.name], c = plan.cache[dim.name],
              r = plan.reg[dim.name];
      factors[dim.name] = {dim.size / p, p / c, c / r, r};
      break;
    }
    case DimRole::Reduction: {
      int64_t c = plan.cache[dim.name];
      factors[dim.name] = {dim.size / c, c};
      break;
    }
    }
  }
  SmallVector<Attribute> orderAttrs;
  for (StringRef name : order)
    orderAttrs.push_back(b.getStringAttr(name));
  SmallVector<NamedAttribute> options = {
      b.getNamedAttr("order", b.getArrayAttr(orderAttrs)),
      b.getNamedAttr("vectorize", b.getBoolAttr(true)),
      b.getNamedAttr("pack", b.getStringAttr(pack)),
      b.getNamedAttr("unroll", b.getI64IntegerAttr(unroll)),
  };
  if (op.kind == OpKind::ConvNchwFchw ||
      (op.kind == OpKind::ConvNgchwFgchw && !nativeGrouped))
    options.push_back(b.getNamedAttr("layout", b.getStringAttr("nhwc")));
  // Rows that the im2col GEMM pads for its register tiles
  // (getCPUPaddedIm2colRows; the tuning spaces factorize them padded) are
  // padded by the direct conv too, with the same tiles: a tile covering
  // all the rows covers the padded ones, the others divide them, and no
  // row past the map is computed (the register loop is peeled).
  if (isConv(op.kind) && !padRows && !im2colGemm && op.lookup("n")) {
    int64_t rows = size("oh");
    int64_t padded = getPaddedIm2colRows(op, target);
    SmallVector<int64_t> &list = factors["oh"];
    SmallVector<int64_t> tiles, paddedList;
    for (size_t i = 0; i + 1 < list.size(); ++i) {
      int64_t tile = 1;
      for (int64_t f : ArrayRef<int64_t>(list).drop_front(i + 1))
        tile *= f;
      tiles.push_back(tile == rows ? padded : tile);
    }
    int64_t outer = padded;
    for (int64_t tile : tiles) {
      if (outer % tile != 0)
        break;
      paddedList.push_back(outer / tile);
      outer = tile;
    }
    if (padded != rows && paddedList.size() == tiles.size()) {
      paddedList.push_back(tiles.back());
      list = paddedList;
    }
  }
  return buildConfig(ctx, kTargetCPU, original, factors, options);
}

/// Filters per cache tile of takesWholeImageTiles's GEMMs.
static constexpr int64_t kWholeImageFilterTile = 64;

/// Whether the default im2col config of NCHW conv `conv` through NHWC, run
/// by `threads` threads, splits only the filters over the threads and
/// keeps whole images in the cache tile (kWholeImageFilterTile filters per
/// cache tile): a batch-1 unstrided 1x1 conv on a map of up to 14x14.
/// Its input is then the transposed window matrix the GEMM reads in place
/// (convertNchwConvThroughNhwc), with no copy. Zen 5, 2 threads, GFLOP/s
/// of two runs, the GEMM's own tiles (pixels split over the threads, part
/// of an image per cache tile) / whole images, `tiletune-run
/// --repeats=20`: 14x14 256->1024 248 / 265-266, 1024->256 310-319 /
/// 318-341, 1024->512 211-324 / 345; 7x7 512->2048 268-271 / 301-305,
/// 2048->512 285-289 / 306-307. One thread: level or slower (7x7
/// 2048->512 166-170 / 161-164), so the rule needs several.
static bool takesWholeImageTiles(const TunableOp &conv, int64_t threads) {
  auto size = [&](StringRef name) { return conv.lookup(name)->size; };
  return conv.kind == OpKind::ConvNchwFchw && threads > 1 && isOneByOne(conv) &&
         size("n") == 1 && conv.strides == std::array<int64_t, 2>{1, 1} &&
         size("oh") * size("ow") <= kThreadedNchwMapPixels &&
         size("f") % threads == 0;
}

TileConfigAttr tiletune::computeIm2colDefaultCPUConfig(MLIRContext *ctx,
                                                       const TunableOp &conv,
                                                       const CPUTarget &target,
                                                       StringRef pack) {
  int64_t lanes = getLanes(conv, target);
  std::optional<OpKind> gemmKind =
      getDefaultIm2colMatmulKind(conv, lanes, target.threads);
  assert(gemmKind && (pack.empty() || isComputeApplicable(*gemmKind, pack)) &&
         "im2col and the compute must apply to the conv");
  if (conv.dims.empty() ||
      llvm::any_of(conv.dims, [](const LoopDim &dim) { return dim.size < 1; }))
    return {};
  auto size = [&](StringRef name) { return conv.lookup(name)->size; };
  bool perImage = takesPerImageIm2col(conv, lanes, target.threads);
  // The GEMM the conv becomes (convertConvToIm2col) and its default config
  // for the compute. Per image, the threads split the batch where they
  // divide it (each image's GEMM on one thread), else each image's GEMM.
  TunableOp gemm;
  gemm.kind = *gemmKind;
  gemm.elementType = conv.elementType;
  gemm.onTensors = conv.onTensors;
  int64_t batchThreads = 1;
  CPUTarget gemmTarget = target;
  if (perImage) {
    if (threadsDivideBatch(conv, target.threads)) {
      batchThreads = target.threads;
      gemmTarget.threads = 1;
    }
    gemm.dims = {
        {"m", size("f"), DimRole::Parallel, 0},
        {"n", size("oh") * size("ow"), DimRole::Parallel, 1},
        {"k", size("kh") * size("kw") * size("c"), DimRole::Reduction, 2}};
  } else {
    gemm.dims = {
        {"m", size("n") * size("oh") * size("ow"), DimRole::Parallel, 0},
        {"n", size("f"), DimRole::Parallel, 1},
        {"k", size("kh") * size("kw") * size("c"), DimRole::Reduction, 2}};
  }
  TileConfigAttr gemmConfig = computeDirectConfig(ctx, gemm, gemmTarget, pack,
                                                  /*im2colGemm=*/true);
  if (!gemmConfig)
    return {};
  // Ragged rows: where the pixels of one image have no divisor of at least
  // half the rows of a two-vector register tile (a 7x7 map's 49 pixels
  // against AVX2's 6 rows: 1), the conv pads its output rows to a multiple
  // of those rows' period in whole rows (getCPUPaddedIm2colRows: 7 -> 12),
  // which pads the end of the GEMM's pixel loop (getIm2colGemmConfig): its
  // register tiles are the GEMM's, the last one shorter (its loop peeled),
  // nothing past the pixels computed. The padded rows stay whole at the
  // parallel level (the verifier's rule), so only a GEMM whose threads
  // split the filters takes them.
  int64_t paddedRows = size("oh");
  int64_t padded = getPaddedIm2colRows(conv, target);
  // The threads a GEMM config runs (its parallel trips).
  auto threadsOf = [&](TileConfigAttr config) {
    int64_t trips = 1;
    for (const LoopDim &dim : gemm.dims)
      if (std::optional<int64_t> tile =
              config.getTileSize("parallel", dim.name))
        trips *= llvm::divideCeil(dim.size, std::max<int64_t>(1, *tile));
    return trips;
  };
  if (!perImage && padded != size("oh")) {
    TunableOp paddedGemm = gemm;
    paddedGemm.dims[0].size = padded * size("ow");
    TileConfigAttr paddedConfig = computeDirectConfig(
        ctx, paddedGemm, gemmTarget, pack, /*im2colGemm=*/true,
        /*imageRows=*/size("oh") * size("ow"));
    if (paddedConfig &&
        paddedConfig.getTileSize("parallel", "m") == padded * size("ow") &&
        threadsOf(paddedConfig) >= threadsOf(gemmConfig)) {
      gemmConfig = paddedConfig;
      paddedRows = padded;
    }
  }
  // The conv tiles whose products (the GEMM tiles convertConvToIm2col
  // derives) come closest to the GEMM's from below: in the windows form
  // m's tile from ow, then oh (its padded rows), then (threads only) n;
  // k's from c, then kw, then kh. Each divides the tile of the level above,
  // so the config verifies. Per image, the pixels are on the vector lanes:
  // the pair of ow and oh tiles is the largest product of whole vectors
  // (else the largest product) under the GEMM's n tile.
  std::map<std::string, int64_t> outer;
  for (const LoopDim &dim : conv.dims)
    outer[dim.name] = dim.name == "oh" ? paddedRows : dim.size;
  FactorMap factors;
  for (const LoopDim &dim : conv.dims)
    factors[dim.name] = {};
  auto split = [&](StringRef name, int64_t tile) {
    std::string key = name.str();
    factors[key].push_back(outer[key] / tile);
    outer[key] = tile;
  };
  // The GEMM's tile of `gemmDim` at `level` (1 where it has none).
  auto gemmTile = [&](StringRef level, StringRef gemmDim) {
    return std::max<int64_t>(
        1, gemmConfig.getTileSize(level, gemmDim).value_or(1));
  };
  auto fit = [&](StringRef level, StringRef gemmDim,
                 ArrayRef<StringRef> convDims) {
    int64_t want = gemmConfig.getTileSize(level, gemmDim).value_or(1);
    for (StringRef name : convDims) {
      int64_t tile =
          largestDivisorAtMost(outer[name.str()], std::max<int64_t>(1, want));
      split(name, tile);
      want /= tile;
    }
  };
  // The pair of ow and oh tiles (dividing the tiles above them) whose
  // product comes closest to `want` from below: per image (the pixels on
  // the lanes) a product of whole vectors first, the first such pair on a
  // tie; on padded rows more columns on a tie (57 padded rows of 56
  // columns take 3 x 2 for the GEMM's 6 rows, where ow first gives 1 x 4).
  auto fitPixelPair = [&](int64_t want, bool perImageLanes) {
    int64_t bestOw = 1, bestOh = 1;
    auto score = [&](int64_t product) {
      return std::make_pair(perImageLanes && product % lanes == 0, product);
    };
    for (int64_t tw = 1; tw <= std::min(outer["ow"], want); ++tw) {
      if (outer["ow"] % tw != 0)
        continue;
      int64_t th = largestDivisorAtMost(outer["oh"], want / tw);
      if (perImageLanes ? score(tw * th) > score(bestOw * bestOh)
                        : score(tw * th) >= score(bestOw * bestOh))
        bestOw = tw, bestOh = th;
    }
    split("oh", bestOh);
    split("ow", bestOw);
  };
  auto fitPixels = [&](StringRef level) {
    fitPixelPair(gemmTile(level, "n"), /*perImageLanes=*/true);
  };
  auto fitRows = [&](StringRef level) {
    if (paddedRows != size("oh"))
      fitPixelPair(gemmTile(level, "m"), /*perImageLanes=*/false);
    else
      fit(level, "m", {"ow", "oh"});
  };
  // The register tile of the windows form: m from ow, then oh, as close to
  // the GEMM's rows from below; where the map's rows allow at most half of
  // them (a 7x7 map against the GEMM's 6 rows on AVX2 gives 1), the
  // smallest product above them with as many vectors of f as the GEMM's
  // accumulators allow (7 rows x 1 vector there).
  auto fitWindowRegisterTile = [&] {
    int64_t wantM = gemmTile("register", "m");
    int64_t wantN = gemmTile("register", "n");
    int64_t below = largestDivisorAtMost(outer["ow"], wantM);
    below *= largestDivisorAtMost(outer["oh"], wantM / below);
    int64_t aboveOw = 0, aboveOh = 0;
    if (below * 2 <= wantM && paddedRows == size("oh"))
      for (int64_t tw = 1; tw <= outer["ow"]; ++tw)
        for (int64_t th = 1; th <= outer["oh"]; ++th)
          if (outer["ow"] % tw == 0 && outer["oh"] % th == 0 &&
              tw * th > wantM &&
              (!aboveOw || tw * th < aboveOw * aboveOh))
            aboveOw = tw, aboveOh = th;
    int64_t vectors = llvm::divideCeil(wantN, lanes);
    if (aboveOw && wantM * vectors / (aboveOw * aboveOh) >= 1) {
      int64_t fitVectors = wantM * vectors / (aboveOw * aboveOh);
      split("ow", aboveOw);
      split("oh", aboveOh);
      split("f", largestDivisorAtMost(outer["f"], fitVectors * lanes));
      return;
    }
    fitRows("register");
    fit("register", "n", {"f"});
  };
  if (perImage) {
    split("n", size("n") / batchThreads);
    for (StringRef level : {"parallel", "cache"}) {
      fit(level, "m", {"f"});
      fitPixels(level);
    }
    // The register tile: the pixels first, then the filters. The GEMM's
    // register tile is one vector wide where its n (the pixels) has no
    // even number of vectors among its divisors (28x28: 784 pixels, 49
    // AVX-512 vectors); the filters then make up the accumulators of the
    // two-vector tile the GEMM defaults aim at, as far as the register
    // file holds them with a vector of pixels and a broadcast (28x28 1x1
    // 512->256, Zen 5, 2 threads, GFLOP/s of two alternating rounds: 8
    // filters x 4x4 pixels 248-267, 16 filters 288-291).
    fitPixels("register");
    int64_t wantRows = gemmTile("register", "m");
    int64_t wantVectors = std::max<int64_t>(
        2, llvm::divideCeil(gemmTile("register", "n"), lanes));
    int64_t pixelVectors = llvm::divideCeil(outer["oh"] * outer["ow"], lanes);
    // rows x pixelVectors accumulators, the pixel vectors and a broadcast.
    int64_t rows =
        std::min(wantRows * wantVectors / pixelVectors,
                 (target.vectorRegisters - pixelVectors - 1) / pixelVectors);
    split("f",
          largestDivisorAtMost(outer["f"], std::max<int64_t>(wantRows, rows)));
  } else if (takesWholeImageTiles(conv, target.threads)) {
    split("ow", size("ow"));
    split("oh", paddedRows);
    split("n", 1);
    split("f", size("f") / target.threads);
    split("ow", size("ow"));
    split("oh", paddedRows);
    split("f", largestDivisorAtMost(outer["f"], kWholeImageFilterTile));
    fitWindowRegisterTile();
  } else {
    fit("parallel", "m", {"ow", "oh", "n"});
    fit("parallel", "n", {"f"});
    fitRows("cache");
    fit("cache", "n", {"f"});
    fitWindowRegisterTile();
  }
  fit("cache", "k", {"c", "kw", "kh"});
  for (const LoopDim &dim : conv.dims)
    factors[dim.name].push_back(outer[dim.name]);
  Builder b(ctx);
  SmallVector<Attribute> order;
  // Each GEMM loop in the GEMM's order stands for its conv loops (in the
  // conv's iterator order; the batch n is in no order).
  for (StringRef gemmLoop : gemmConfig.getOrder())
    for (const LoopDim &dim : conv.dims)
      if (dim.role != DimRole::Batch &&
          getIm2colGemmLoop(dim.name, perImage) == gemmLoop)
        order.push_back(b.getStringAttr(dim.name));
  // `unroll` must divide c's cache tile.
  int64_t unroll = gemmConfig.getIntOption("unroll");
  while (unroll > 1 && outer["c"] % unroll != 0)
    unroll /= 2;
  SmallVector<NamedAttribute> options = {
      b.getNamedAttr("order", b.getArrayAttr(order)),
      b.getNamedAttr("vectorize", b.getBoolAttr(true)),
      b.getNamedAttr("unroll", b.getI64IntegerAttr(unroll)),
      b.getNamedAttr(
          "compute",
          b.getStringAttr(
              ("im2col_" + *getComputeOfPack(getCPUPack(gemmConfig))).str())),
  };
  if (conv.kind == OpKind::ConvNchwFchw && !perImage)
    options.push_back(b.getNamedAttr("layout", b.getStringAttr("nhwc")));
  return buildConfig(ctx, kTargetCPU, conv, factors, options);
}

/// The computes of op kind `kind` for a diagnostic: "tmm, lpmm, ..." (a
/// matmul form), "direct, im2col_tmm, ..." (a conv with an im2col form) or
/// "direct".
static std::string describeComputes(const TunableOp &op, int64_t lanes,
                                    int64_t threads) {
  OpKind kind = op.kind;
  std::string text;
  std::optional<OpKind> gemm =
      isConv(kind) ? getDefaultIm2colMatmulKind(op, lanes, threads)
                   : std::nullopt;
  if (isConv(kind))
    text = "direct";
  if (!isConv(kind) || gemm) {
    for (StringRef pack : getPackValues(gemm.value_or(kind))) {
      std::optional<StringRef> name = getComputeOfPack(pack);
      if (!name || (gemm && pack == "bt"))
        continue;
      if (!text.empty())
        text += ", ";
      text += (gemm ? "im2col_" : "") + name->str();
    }
  }
  return text;
}

namespace {
struct DefaultConfigPass
    : public tiletune::impl::TileTuneDefaultConfigBase<DefaultConfigPass> {
  using TileTuneDefaultConfigBase::TileTuneDefaultConfigBase;

  void runOnOperation() override {
    // At the module's location: an error on the module op would print the
    // whole module as a note.
    if (threads < 0 || threads > kMaxThreads) {
      emitError(getOperation()->getLoc())
          << "tiletune-default-config: threads must be between 0 (every "
             "core) and "
          << kMaxThreads << ", got " << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    llvm::Expected<CPUDescription> cpu = describeTargetCPU(mcpu, mattr);
    if (!cpu) {
      emitError(getOperation()->getLoc())
          << "tiletune-default-config: " << llvm::toString(cpu.takeError());
      return signalPassFailure();
    }
    if (llvm::Error err = overrideCacheSizes(cpu->caches, caches)) {
      emitError(getOperation()->getLoc())
          << "tiletune-default-config: " << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    if (printTarget) {
      std::string text;
      llvm::raw_string_ostream os(text);
      cpu->print(os, /*peak=*/false);
      emitRemark(getOperation()->getLoc())
          << "tiletune-default-config: target\n"
          << StringRef(text).rtrim();
    }
    // A matmul compute (tmm ... dnmm332) or a conv one (direct, im2col_X).
    std::optional<StringRef> matmulPack;
    std::optional<ConvCompute> convCompute;
    if (!compute.empty()) {
      matmulPack = getPackOfCompute(compute);
      convCompute = getConvCompute(compute);
      if (!matmulPack && !convCompute) {
        emitError(getOperation()->getLoc())
            << "tiletune-default-config: unknown compute '" << compute
            << "' (expected one of "
            << lookupOptionSpec("cpu", "compute")->legal << ")";
        return signalPassFailure();
      }
    }
    CPUTarget target = CPUTarget::get(
        *cpu, threads > 0 ? int64_t(threads) : int64_t(cpu->cores));
    bool anyError = false;
    forEachOpToConfigure(
        getOperation(), overwrite, getArgument(),
        [&](Operation *op, const TunableOp &t) {
          StringRef pack;
          bool im2col = false, applies = compute.empty();
          if (matmulPack && isComputeApplicable(t.kind, *matmulPack)) {
            pack = *matmulPack;
            applies = true;
          } else if (convCompute && isConv(t.kind)) {
            std::optional<OpKind> gemm = getDefaultIm2colMatmulKind(
                t, getLanes(t, target), target.threads);
            applies = !convCompute->im2col ||
                      (gemm && isComputeApplicable(*gemm, convCompute->pack) &&
                       convCompute->pack != "bt");
            im2col = applies && convCompute->im2col;
            pack = convCompute->pack;
          }
          if (!applies)
            op->emitWarning()
                << "tiletune-default-config: compute '" << compute
                << "' does not apply to this op (its computes: "
                << describeComputes(t, getLanes(t, target), target.threads)
                << "); it gets its default config";
          TileConfigAttr config;
          if (im2col)
            config =
                computeIm2colDefaultCPUConfig(&getContext(), t, target, pack);
          else if (applies && convCompute && isConv(t.kind))
            config = computeDirectDefaultCPUConfig(&getContext(), t, target);
          else
            config = computeDefaultCPUConfig(&getContext(), t, target,
                                             isConv(t.kind) ? "" : pack);
          if (!config || failed(verifyConfig(
                             config, t, [&] { return op->emitError(); }))) {
            op->emitError("tiletune-default-config: no legal default config "
                          "(internal error)");
            anyError = true;
            return;
          }
          setConfig(op, config);
        });
    if (anyError)
      signalPassFailure();
  }
};
} // namespace
