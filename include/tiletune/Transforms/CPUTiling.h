//===- CPUTiling.h - Config-driven CPU tiling and vectorization -*- C++ -*-===//
//
// Public C++ entry points of `tiletune-tile-cpu`: tiling, packing and
// vectorizing one op by its decoded schedule (CPUSchedule.h), the op-level
// rewrites a config asks for first (layout, padding), and the buffer cleanups
// that `tiletune-optimize-cpu-buffers` runs after bufferization. The tuner
// and embedding frameworks call these directly; the pass only walks ops and
// reports errors.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_CPUTILING_H
#define TILETUNE_TRANSFORMS_CPUTILING_H

#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Transforms/CPUSchedule.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tiletune {

//===----------------------------------------------------------------------===//
// Tiling and vectorization (CPUTiling.cpp)
//===----------------------------------------------------------------------===//

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
  /// Whether the schedule asked for vector code (`vectorize = true`).
  bool vectorizeRequested = false;
  /// Whether every register tile was vectorized.
  bool vectorized = false;
  /// Epilogue fusion (`fuseEpilogues`): the number of elementwise ops fused
  /// after the op, the levels they were fused at (0: the chain was found
  /// but no loop lies outside the reduction loops, so it runs after the op,
  /// vectorized), whether the last level is the register tile (the op's
  /// tile covers its whole reduction: the chain finishes the accumulators
  /// before their only store), whether the chain was vectorized, and why no
  /// chain was fused (empty when one was, or when the op's result has no
  /// user).
  unsigned numEpilogueOps = 0;
  unsigned epilogueLevels = 0;
  bool epilogueByRegisterTile = false;
  bool epilogueVectorized = false;
  std::string epilogueNotFused;
};

/// Tiles `op` by `schedule` (forall / cache loops / packing / register loops)
/// and vectorizes the register tile. Works on tensors and on memrefs. On
/// failure of a precondition nothing is changed; the op is replaced on
/// success.
FailureOr<CPUTilingResult> tileAndVectorizeForCPU(RewriterBase &rewriter,
                                                  Operation *op,
                                                  const CPUSchedule &schedule,
                                                  bool fuseEpilogues = false);

/// AutoMCL's DNMM332 (`pack = dn`, CPUDnmm.cpp): replaces a matmul whose A
/// is stored [b?][m][k] and B [b?][n][k] by the loop nest of `schedule`
/// (forall, cache loops in its order, register loops over b/m/n) whose
/// register tile keeps rm x rn vectors of `lanes` partial sums along k and
/// adds their horizontal sums to the output tile after each k chunk (the k
/// cache tile rounded up to whole vectors; a k tail in one masked step;
/// padded m/n rows clamped on read and masked on write). `vectorize =
/// false` is the same nest with one lane. Works on tensors and on memrefs;
/// the epilogue is not fused. Fails (with `reason`) on other forms.
FailureOr<CPUTilingResult> generateDnmmForCPU(RewriterBase &rewriter,
                                              Operation *op,
                                              const CPUSchedule &schedule,
                                              int64_t lanes,
                                              std::string *reason = nullptr);


//===----------------------------------------------------------------------===//
// Op-level rewrites a config asks for before tiling (CPUOpRewrites.cpp)
//===----------------------------------------------------------------------===//

/// Replaces a linalg.generic that matchTunableOp recognises (a matmul form or
/// a 2-D convolution) and that carries a CPU config by the named op of its
/// kind (same operands, maps, strides and dilations, same config), so the
/// rest of the CPU tiling sees the named op. Returns the op to tile (`op`
/// itself when it is no generic or has no CPU config).
FailureOr<Operation *> specializeGenericToConfig(RewriterBase &rewriter,
                                                 Operation *op,
                                                 std::string *reason);

/// Applies the `layout = nhwc` option of a conv_2d_nchw_fchw's CPU config:
/// the op is replaced by transposes of the input (to NHWC), filter (to HWCF)
/// and output (to NHWC), a conv_2d_nhwc_hwcf with the same strides,
/// dilations and config (without `layout`; its levels and `order` name the
/// same loops), and a transpose of the result back to NCHW. A
/// conv_2d_nhwc_fhwc with a CPU config always becomes a conv_2d_nhwc_hwcf on
/// its filter transposed once to HWCF (same loops, same config). A grouped
/// conv (conv_2d_ngchw_fgchw, conv_2d_nhwgc_gfhwc) with a CPU config becomes
/// a loop over its groups (an scf.forall over g / g's parallel tile, then an
/// scf.for over the groups of each) around the plain conv of one group on
/// rank-reduced slices (conv_2d_nchw_fchw, conv_2d_nhwc_fhwc) with the
/// config without g, converted in turn as above. A matmul or batch_matmul
/// with B stored transposed and `pack = bt` (compute ttmm) becomes a
/// transpose of B into [b?][k][n] and the same matmul on it, unpacked
/// (`pack = none`). Returns the op to tile (the new op, or `op` itself when
/// the config keeps the layout).
FailureOr<Operation *> convertLayoutToConfig(RewriterBase &rewriter,
                                             Operation *op,
                                             std::string *reason = nullptr);

/// Applies `im2col` (or `compute = im2col_X`) of a conv's CPU config: a
/// conv_2d_nhwc_hwcf or conv_2d_nhwc_fhwc (an NCHW conv arrives as HWCF
/// after convertLayoutToConfig) becomes the copy of its input windows into
/// an im2col matrix [N*OH*OW][KH*KW*C] (vectorized along c, split over the
/// threads) and a linalg.matmul of it with the filter viewed as [KH*KW*C][F]
/// (HWCF) or [F][KH*KW*C] (FHWC: the matmul_transpose_b form) into the
/// output viewed as [N*OH*OW][F]. The matmul carries the GEMM config the
/// conv's config implies (its tiles multiplied per level, docs/TileConfig.md).
/// On buffers the operands need the identity layout. Returns the op to tile
/// (the matmul, or `op` itself when the config does not ask for im2col).
FailureOr<Operation *> convertConvToIm2col(RewriterBase &rewriter,
                                           Operation *op,
                                           std::string *reason = nullptr);

/// Applies the `pad` option of the op's CPU config on buffers: when it pads
/// a loop beyond its size, the op is replaced by the same op (same config)
/// on padded allocations (freed by the pipeline's buffer deallocation, like
/// packing buffers) filled with zeros, the operands copied in and the
/// output's valid part copied back. Zero padding of k adds zero products;
/// padded rows and columns of the output are dropped, so the result is
/// exact. On tensors nothing changes: the tiling computes the partial tiles
/// of the padded loops in place (tileAndVectorizeForCPU). Returns the op to
/// tile (the new one, or `op` itself).
FailureOr<Operation *> padToConfig(RewriterBase &rewriter, Operation *op,
                                   std::string *reason = nullptr);

//===----------------------------------------------------------------------===//
// The whole config (CPUTiling.cpp)
//===----------------------------------------------------------------------===//

/// Why applyCPUConfig failed, for callers that report it.
struct CPUConfigError {
  /// The op the config could not be applied to: the op passed in, or the op
  /// that replaced it when the layout or padding rewrite already succeeded.
  /// It still carries its config. Null when `tilingFailed`.
  Operation *op = nullptr;
  /// Why, in words (for "cannot apply tiletune.config: <reason>").
  std::string reason;
  /// Whether tiling itself failed after every precondition held: the IR may
  /// then be partially rewritten.
  bool tilingFailed = false;
};

/// The public entry point of `tiletune-tile-cpu` for one op: applies the
/// op's `tiletune.config` — the layout and padding rewrites, decoding, the
/// precondition check (once) and tileAndVectorizeForCPU. Fails without
/// changes to the op to tile when the op has no CPU config or a precondition
/// fails; `error` (when given) says which op and why.
/// With `fuseEpilogues`, the op's elementwise epilogue chain
/// (findEpilogueChain) is fused into its tiled loop nest.
/// `target` gives the vector width of `pack = dn` (null: the process's
/// default target, describeTargetCPU("", "")).
/// With `skipPaddingTaps`, a conv on tensors reading a zero `tensor.pad`
/// runs its register-level filter loops over the taps inside the unpadded
/// image only, and skips the register tiles that read only padding for a
/// cache-level tap (docs/CPUSchedule.md, "Padding taps").
FailureOr<CPUTilingResult>
applyCPUConfig(RewriterBase &rewriter, Operation *op,
               CPUConfigError *error = nullptr, bool fuseEpilogues = false,
               const CPUDescription *target = nullptr,
               bool skipPaddingTaps = true);

//===----------------------------------------------------------------------===//
// Buffer cleanups (BufferCleanups.cpp, VectorizeCopies.cpp)
//===----------------------------------------------------------------------===//

/// Vector hoisting and cleanup on buffers: folds memref alias ops into
/// vector transfers, CSE, loop-invariant code motion, and hoists redundant
/// vector transfer pairs out of loops. Used by `tiletune-tile-cpu` on memref
/// inputs and by `tiletune-optimize-cpu-buffers` after bufferization.
void hoistVectorTransfersOnBuffers(Operation *root);

/// Removes self-copies and vectorizes static buffer copies (`memref.copy`,
/// `linalg.copy`, `linalg.transpose`) of at most `maxElements` elements: the
/// packing copies after bufferization. A copy becomes one vector operation
/// only when it has at most 16 rows (1-D pieces along the innermost dim):
/// compile time grows quadratically with the rows of one vector operation.
/// Copies of more rows go one row per vector operation, in loops, as do
/// larger copies between strided views (e.g. into a padded buffer);
/// contiguous `memref.copy`s that are not vectorized whole stay (memcpy);
/// transposes that move the innermost dim (layout conversions) go in blocks
/// of up to 16x16, at any size. Returns the number changed.
unsigned vectorizeSmallCopies(Operation *root, int64_t maxElements = 4096);

/// Folds the layout transposes around the output of an NCHW conv computed
/// as NHWC (kLayoutCopyInAttrName, kLayoutCopyOutAttrName) into the conv's
/// accesses of its NHWC buffer: where that buffer is only read and written
/// by vector transfers (through subviews) and filled, between the copy in
/// and the copy back, and the NCHW buffer is not touched in between, the
/// transfers read and write the NCHW buffer with permuted maps (a
/// transpose of each register tile in registers) and the two whole-tensor
/// transposes and the NHWC buffer go. Pairs that do not qualify stay.
/// Returns the number of pairs folded.
unsigned foldLayoutTransposesIntoAccesses(Operation *root);

/// Erases the `memref.copy`s whose source and target are the same elements:
/// views of one buffer at the same offsets with the same strides (through
/// `memref.cast`s, and through an `scf.if` all of whose branches yield such
/// a view), which a copy's equal shapes make the same region. Bufferization
/// leaves them where an `scf.if` yields differently typed views of a
/// thread's output tile (the versions of a padded schedule's thread tile).
/// Returns the number erased.
unsigned eraseCopiesOntoThemselves(Operation *root);

/// Moves static `memref.alloc` + `memref.dealloc` pairs out of `scf.for`
/// nests up to the closest enclosing `scf.forall`/`scf.parallel` body or
/// function body. Returns the number of allocations moved.
unsigned hoistStaticAllocsOutOfLoops(Operation *root);

/// Lets a module free its own buffers under the ownership-based buffer
/// deallocation that `tiletune-lower-cpu` runs: every op that frees a memref
/// (`memref.dealloc`, `memref.realloc`) and every allocation whose buffer
/// such an op may free are marked `bufferization.manual_deallocation`, so the
/// deallocation pass leaves them to the module and frees only the buffers
/// nobody frees (those of bufferization and packing). A freed buffer is
/// traced through views, casts, `scf.for`, `scf.if`, `arith.select` and, for
/// a function argument, the calls of the function in `root` (a symbol
/// table). Fails, with an error on the freeing op and before changing
/// anything, when a freed buffer may come from anything else (e.g. the
/// result of a call). Returns the number of ops marked.
FailureOr<unsigned> markUserDeallocations(Operation *root);

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_CPUTILING_H
