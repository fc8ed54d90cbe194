//===- Padding.h - Padded loop sizes of CPU matmuls -------------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Multi-level tiling needs tile sizes that divide the loop sizes. Sizes
// without good divisors (primes such as 127, or 1000 for a 16-lane vector)
// leave only tiny or ragged register tiles, and an odd number of conv
// output rows no register tiles of two rows. For CPU matmuls (and a conv's
// output rows) the tiling pass
// can instead tile padded loops (the `pad` entry of `#tiletune.config`):
// the last tile of a padded loop is partial, and runs on the op's own
// operands with peeled register loops (docs/CPUSchedule.md, "Remainders");
// this header decides which sizes are padded, and is shared by the
// default-config heuristic and the tuning spaces so both tile the same
// padded loops. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_PADDING_H
#define TILETUNE_SUPPORT_PADDING_H

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>

namespace mlir::tiletune {

/// Whether `rows` register rows (a GEMM's m, a conv's pixels) have no
/// divisor up to `registerRows` (the rows of a register tile two vectors
/// wide that the target's register file holds) giving 12 accumulators,
/// while `registerRows` itself gives 12 or more: AVX2's 16 registers hold 6
/// rows of two vectors, and the divisors of 1024 or of 3136 (56 x 56
/// pixels) up to 6 end at 4: 4 rows, 8 accumulators against two FMA pipes
/// of latency 4-5.
inline bool lacksRegisterRows(int64_t rows, int64_t registerRows) {
  if (registerRows * 2 < 12)
    return false;
  int64_t divisor = 1;
  for (int64_t d = 1; d <= registerRows; ++d)
    if (rows % d == 0)
      divisor = d;
  return divisor * 2 < 12;
}

/// The size a CPU matmul / batch_matmul loop is padded to (`size` itself
/// when it is not padded). `lanes` is the vector length in elements (16 for
/// f32 with AVX-512).
///
///  * n (the vectorized loop): when it is longer than two vectors and no
///    register tile two or three vectors wide divides it (not a whole
///    number of vectors, or a number with neither 2 nor 3 as a divisor), to
///    a multiple of two vectors (the partial tiles are computed in place,
///    so the padding costs at most the masked lanes of one vector per row);
///  * m (the register rows): to a multiple of 8 when it is longer than 16
///    and has no divisor between 4 and 12; then, given `registerRows` (the
///    rows of a register tile two vectors wide that the target's register
///    file holds, at most 12; 0: not known), to a multiple of 8 x
///    registerRows when m's divisors up to registerRows give fewer than 12
///    accumulators while registerRows gives 12 or more (AVX2: 6 rows of 2
///    vectors fit its 16 registers, and 1024 = 4 x 256 gives 4 rows: 8
///    accumulators against two FMA pipes of latency 4-5; 1024 -> 1056
///    gives 6 x 16 tiles: 1024^3 87 -> 103 GFLOP/s on Zen 5 with
///    mcpu=haswell, 1 thread). With `threads` > 1 the threads split the
///    padded rows evenly and the rows padded beyond m are all in the last
///    thread's share, so the multiple is halved (down to 2 x registerRows;
///    every share a whole number of register tiles) until those rows are at
///    most an eighth of a share, else the fewest: 197 -> 204 rather
///    than 240 on AVX2 at 2 threads (240 gave one thread 120 rows and the
///    other 77: 197^3 ran at 0.82 of 192^3's GFLOP/s, Zen 5 with
///    mcpu=haswell);
///  * k (the reduction): to a multiple of 8 when it is longer than 64 and
///    not a multiple of 8 (so cache tiles and unrolling have divisors; the
///    padded k steps are zero products the micro-kernel computes, so the
///    smallest useful multiple).
///
/// Batch loops and every loop of other ops are never padded.
inline int64_t getCPUPaddedSize(llvm::StringRef dim, int64_t size,
                                int64_t lanes, int64_t registerRows = 0,
                                int64_t threads = 1) {
  auto roundUp = [](int64_t value, int64_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
  };
  lanes = std::max<int64_t>(1, lanes);
  int64_t vectors = size / lanes;
  bool wideTilesFit =
      size % lanes == 0 && (vectors % 2 == 0 || vectors % 3 == 0);
  if (dim == "n" && size > 2 * lanes && !wideTilesFit) {
    // Two vectors per register row: a 16-wide register tile ran about 1.2x
    // slower per multiply-add than a 32-wide one on Zen 5 (197^3: n = 224
    // with 10x32 tiles 100.6 us, n = 208 with 10x16 111 us); 1000 -> 1024
    // admits the 12x32 / 8x32 tiles of AVX-512, and on AVX2 1000 -> 1008
    // the 16-wide ones (1000 itself only 8-wide ones).
    return roundUp(size, 2 * lanes);
  }
  if (dim == "m" && size > 16) {
    int64_t padded = roundUp(size, 8);
    for (int64_t d = 4; d <= 12; ++d)
      if (size % d == 0)
        padded = size;
    if (!lacksRegisterRows(padded, registerRows))
      return padded;
    if (threads <= 1)
      return roundUp(size, 8 * registerRows);
    // Every share a whole number of register tiles; the fewest rows padded
    // where none keeps them within an eighth of a share (and at most
    // doubled, the `pad` bound of small loops).
    int64_t fewest = roundUp(size, 8 * registerRows);
    for (int64_t multiple = 8 * registerRows; multiple >= 2 * registerRows;
         multiple /= 2) {
      int64_t rows = roundUp(size, std::lcm(multiple, threads * registerRows));
      if (rows > 2 * size)
        continue;
      if ((rows - size) * 8 * threads <= rows)
        return rows;
      fewest = std::min(fewest, rows);
    }
    return fewest;
  }
  if (dim == "k" && size > 64 && size % 8 != 0)
    return roundUp(size, 8);
  return size;
}

/// `rows` rounded up to a multiple of `period`, at most doubled
/// (getMaxPaddedSize's bound for small loops): `rows` itself beyond that.
inline int64_t roundUpConvRows(int64_t rows, int64_t period) {
  int64_t padded = (rows + period - 1) / period * period;
  return padded <= 2 * rows ? padded : rows;
}

/// The rows of one image (batch 1, on tensors) with a prime number of
/// output `rows` on a map of at most 14 `columns`, whose `rows x columns`
/// pixels have no divisor of at least half of `registerRows` (the rows of
/// a two-vector register tile: a 7x7 map against AVX2's 6), padded to the
/// smallest multiple of `registerRows / gcd(registerRows, columns)` rows,
/// so that a GEMM over the pixels, padded at its end, takes register tiles
/// of `registerRows` pixels (7 -> 12 for 6); `rows` itself otherwise. A
/// prime number of rows: every tile of the rows is 1 or all of them, so a
/// direct conv's tiles carry over to the padded rows unchanged
/// (computeDirectConfig) and its default config stays a point of the padded
/// space (a 27x27 map's tiles of 3 or 9 rows would not divide 28).
inline int64_t getCPUPaddedPrimeRows(int64_t batch, int64_t rows,
                                     int64_t columns, int64_t registerRows,
                                     bool onTensors) {
  auto isPrime = [](int64_t value) {
    if (value < 2)
      return false;
    for (int64_t d = 2; d * d <= value; ++d)
      if (value % d == 0)
        return false;
    return true;
  };
  if (batch != 1 || !onTensors || !isPrime(rows) || columns < 1 ||
      columns > 14 || registerRows < 2)
    return rows;
  int64_t pixels = rows * columns, divisor = 1;
  for (int64_t d = 1; d <= registerRows; ++d)
    if (pixels % d == 0)
      divisor = d;
  if (2 * divisor > registerRows)
    return rows;
  return roundUpConvRows(rows, registerRows / std::gcd(registerRows, columns));
}

/// The size the output rows (`oh`) of a CPU conv of `kind` are padded to
/// (`rows` itself when they are not) for its direct form: for a
/// conv_2d_nhwc_hwcf of batch 1 on tensors with unit strides (the default
/// config computes a batched one with a window larger than 1x1 as an
/// im2col GEMM, which cannot pad rows) with an odd number of rows above 1
/// on a map of at most 14 `columns` (ResNet-50's 7x7 maps), one more row,
/// so that register tiles of two rows cover them (the last row alone, its
/// register loop peeled); where its pixels lack rows for the register
/// tiles of its im2col GEMM (`registerRows`, getCPUPaddedPrimeRows: a 7x7
/// map on AVX2, whose GEMM the default config takes with many channels,
/// pickIm2colPack), the GEMM's padded rows (7 -> 12), which tiles of two
/// rows divide as well. FHWC filters are transposed into packed tiles,
/// which limits them whatever the rows (docs/CPUSchedule.md, "Odd rows on
/// small maps").
inline int64_t getCPUPaddedConvRows(OpKind kind, int64_t batch, int64_t rows,
                                    int64_t columns,
                                    std::array<int64_t, 2> strides,
                                    int64_t registerRows, bool onTensors) {
  if (kind != OpKind::ConvNhwcHwcf || batch != 1 || !onTensors ||
      strides != std::array<int64_t, 2>{1, 1} || rows <= 1 || rows % 2 == 0 ||
      columns > 14)
    return rows;
  int64_t gemmRows =
      getCPUPaddedPrimeRows(batch, rows, columns, registerRows, onTensors);
  if (gemmRows != rows && gemmRows % 2 == 0)
    return gemmRows;
  return rows + 1;
}

/// The size the output rows of a CPU conv of `kind` computed as an im2col
/// GEMM are padded to (`rows` itself when they are not): for one image
/// of a conv_2d_nhwc_fhwc, conv_2d_nhwc_hwcf or conv_2d_nchw_fchw, the
/// prime rows of getCPUPaddedPrimeRows (7 -> 12 for AVX2's 6 rows of two
/// vectors; the rows getCPUPaddedConvRows pads for the direct HWCF conv are
/// the same there). With `pointwise` (1x1 window, unit strides), the rows
/// of a batch-1 FHWC or HWCF conv on tensors on any map whose pixels
/// `lacksRegisterRows` are padded to a multiple of `registerRows /
/// gcd(registerRows, columns)` (56 -> 57 for 6). Shared by the default
/// config and the tuning spaces (docs/CPUSchedule.md, "Ragged rows of the
/// 7x7 im2col GEMMs" and "of the pointwise GEMMs").
inline int64_t getCPUPaddedIm2colRows(OpKind kind, int64_t batch, int64_t rows,
                                      int64_t columns, int64_t registerRows,
                                      bool onTensors, bool pointwise = false) {
  if (kind != OpKind::ConvNhwcFhwc && kind != OpKind::ConvNchwFchw &&
      kind != OpKind::ConvNhwcHwcf)
    return rows;
  // A pointwise conv (1x1 window, unit strides) of one NHWC image is the
  // GEMM of its pixels itself, which the default config computes as one
  // on maps larger than 7x7 (pickIm2colPack; smaller ones stay direct over
  // the padded rows, computeDirectConfig): its pixels padded like a matmul's m
  // (getCPUPaddedSize, lacksRegisterRows) but in whole rows, so 56x56,
  // 28x28 and 14x14 maps (4-row tiles on AVX2) pad to 57, 30 and 15 rows
  // for 6-row tiles (docs/CPUSchedule.md, "Ragged rows of the pointwise
  // GEMMs"). Rows the direct HWCF conv pads (getCPUPaddedConvRows) stay
  // its own.
  if (pointwise && kind != OpKind::ConvNchwFchw && batch == 1 && onTensors &&
      rows > 1 && columns >= 1 &&
      getCPUPaddedConvRows(kind, batch, rows, columns, {1, 1}, registerRows,
                           onTensors) == rows &&
      lacksRegisterRows(rows * columns, registerRows))
    return roundUpConvRows(rows,
                           registerRows / std::gcd(registerRows, columns));
  return getCPUPaddedPrimeRows(batch, rows, columns, registerRows, onTensors);
}

/// Whether loops of `opKind` ("matmul", "batch_matmul", ...) may be padded:
/// the op kinds of the cpu `pad` option in TilingTemplates.def.
inline bool isCPUPaddableOpKind(llvm::StringRef opKind) {
  std::optional<OpKind> kind = symbolizeOpKind(opKind);
  const OptionSpec *pad = lookupOptionSpec(kTargetCPU, "pad");
  return kind && pad && pad->appliesTo(*kind);
}

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_PADDING_H
