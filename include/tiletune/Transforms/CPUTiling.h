//===- CPUTiling.h - Config-driven CPU tiling and vectorization -*- C++ -*-===//
//
// Public C++ entry points of `tiletune-tile-cpu`: decoding a
// `#tiletune.config<cpu, ...>` into per-loop tile sizes, and tiling, packing
// and vectorizing one op by it. The tuner and embedding frameworks call these
// directly; the pass only walks ops and reports errors.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_CPUTILING_H
#define TILETUNE_TRANSFORMS_CPUTILING_H

#include "tiletune/Dialect/TileConfig.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tiletune {

/// The CPU schedule of one op: tile sizes per loop (the op's iterator order)
/// at each level, the cache-level loop order and the options. A tile size of
/// 0 means "not tiled at this level" (the loop would have one iteration).
struct CPUSchedule {
  OpKind kind = OpKind::Matmul;
  /// Full loop ranges, iterator order.
  SmallVector<int64_t> loopSizes;
  /// Per-thread tile of the `scf.forall` (0 for reductions).
  SmallVector<int64_t> parallelTiles;
  /// Cache tile per loop.
  SmallVector<int64_t> cacheTiles;
  /// Register tile per loop (reductions: `unroll` for k/c, 1 for kh/kw).
  SmallVector<int64_t> registerTiles;
  /// Cache-level loop order as loop indices, outer to inner (batch first).
  SmallVector<int64_t> cacheOrder;
  bool vectorize = true;
  bool packLhs = false;
  bool packRhs = false;
  int64_t unroll = 1;

  /// Number of `scf.forall` iterations (threads worth of work).
  int64_t getParallelTrips() const;
};

/// Decodes the CPU schedule of `op` from `config`. Fails (with `reason`)
/// when the op is not tunable, the config is not a CPU config or does not
/// verify against the op.
FailureOr<CPUSchedule> decodeCPUSchedule(Operation *op, TileConfigAttr config,
                                         std::string *reason = nullptr);

/// What tileAndVectorizeForCPU produced (a summary: the loops themselves
/// may be rewritten by the cleanups that follow tiling).
struct CPUTilingResult {
  /// Iterations of the `scf.forall` of the parallel level (1: no forall).
  int64_t numThreads = 1;
  /// Number of cache-level and register-level loops created.
  unsigned numCacheLoops = 0;
  unsigned numRegisterLoops = 0;
  /// Number of packing copies created.
  unsigned numPackCopies = 0;
  /// Whether every register tile was vectorized.
  bool vectorized = false;
};

/// Checks everything tileAndVectorizeForCPU needs without touching IR:
/// a tunable op with static shapes, buffer or tensor semantics (not mixed),
/// a schedule whose sizes match its loops.
LogicalResult checkCPUTilingPreconditions(Operation *op,
                                          const CPUSchedule &schedule,
                                          std::string *reason = nullptr);

/// Tiles `op` by `schedule` (forall / cache loops / packing / register loops)
/// and vectorizes the register tile. Works on tensors and on memrefs. On
/// failure of a precondition nothing is changed; the op is replaced on
/// success.
FailureOr<CPUTilingResult> tileAndVectorizeForCPU(RewriterBase &rewriter,
                                                  Operation *op,
                                                  const CPUSchedule &schedule);

/// Applies the `layout = nhwc` option of a conv_2d_nchw_fchw's CPU config:
/// the op is replaced by transposes of the input (to NHWC), filter (to HWCF)
/// and output (to NHWC), a conv_2d_nhwc_hwcf with the same strides,
/// dilations and config (without `layout`; its levels and `order` name the
/// same loops), and a transpose of the result back to NCHW. Returns the op to
/// tile (the new conv, or `op` itself when the config keeps the layout).
FailureOr<Operation *> convertLayoutToConfig(RewriterBase &rewriter,
                                             Operation *op,
                                             std::string *reason = nullptr);

/// Applies the `pad` option of the op's CPU config: when it pads a loop
/// beyond its size, the op is replaced by the same op (same config) on
/// zero-padded operands — `tensor.pad` and a `tensor.extract_slice` of the
/// result on tensors; on buffers, padded allocations (freed by the
/// pipeline's buffer deallocation, like packing buffers) filled with zeros,
/// the operands copied in and the output's valid part copied back. Returns the
/// op to tile (the new one, or `op` itself when nothing is padded). Zero
/// padding of k adds zero products; padded rows and columns of the output
/// are dropped, so the result is exact.
FailureOr<Operation *> padToConfig(RewriterBase &rewriter, Operation *op,
                                   std::string *reason = nullptr);

/// Convenience: decodes the op's `tiletune.config` and applies it. Fails
/// without changes when the op has no CPU config.
FailureOr<CPUTilingResult> applyCPUConfig(RewriterBase &rewriter, Operation *op,
                                          std::string *reason = nullptr);

/// Vector hoisting and cleanup on buffers: folds memref alias ops into
/// vector transfers, CSE, loop-invariant code motion, and hoists redundant
/// vector transfer pairs out of loops. Used by `tiletune-tile-cpu` on memref
/// inputs and by `tiletune-optimize-cpu-buffers` after bufferization.
void hoistVectorTransfersOnBuffers(Operation *root);

/// Removes self-copies and vectorizes static buffer copies (`memref.copy`,
/// `linalg.copy`, `linalg.transpose`) of at most `maxElements` elements: the
/// packing copies after bufferization. Larger copies between strided views
/// (e.g. into a padded buffer) go row by row, and transposes that move the
/// innermost dim (layout conversions) in blocks of up to 16x16, at any size.
/// Returns the number changed.
unsigned vectorizeSmallCopies(Operation *root, int64_t maxElements = 4096);

/// Moves static `memref.alloc` + `memref.dealloc` pairs out of `scf.for`
/// nests up to the closest enclosing `scf.forall`/`scf.parallel` body or
/// function body. Returns the number of allocations moved.
unsigned hoistStaticAllocsOutOfLoops(Operation *root);

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_CPUTILING_H
