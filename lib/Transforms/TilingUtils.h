//===- TilingUtils.h - Helpers shared by the CPU tiling files ---*- C++ -*-===//
//
// Private to lib/Transforms: the helpers that more than one of
// CPUSchedule.cpp, CPUTiling.cpp, CPUOpRewrites.cpp, VectorizeCopies.cpp and
// BufferCleanups.cpp need (op kind facts, one level of tiling, vectorizing
// an op, tiling and vectorizing one data-movement op, hoisting loop
// invariants). Each section names the file that defines it.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_TRANSFORMS_TILINGUTILS_H
#define TILETUNE_LIB_TRANSFORMS_TILINGUTILS_H

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Transforms/CPUSchedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <optional>

#include <string>

namespace mlir::tiletune {

//===----------------------------------------------------------------------===//
// Op kinds (CPUSchedule.cpp)
//===----------------------------------------------------------------------===//

/// Loop index of the output-column dim whose register tile is the vector
/// width of the B panels (matmul: n = 1, batch_matmul: n = 2).
int64_t getPanelDim(OpKind kind);

/// Loop index of the output-row dim split into 1-D convolutions.
int64_t getConvRowDim(OpKind kind);

//===----------------------------------------------------------------------===//
// Small utilities (inline)
//===----------------------------------------------------------------------===//

/// Sets `*reason` (when given) to `msg` and fails.
inline LogicalResult failWithReason(std::string *reason, const Twine &msg) {
  if (reason)
    *reason = msg.str();
  return failure();
}

/// Replaces (tensors) or erases (buffers) `op` after tiling.
inline void replaceTiledOp(RewriterBase &rewriter, Operation *op,
                           ValueRange replacements) {
  if (op->getNumResults() == 0)
    rewriter.eraseOp(op);
  else
    rewriter.replaceOp(op, replacements);
}

//===----------------------------------------------------------------------===//
// One level of tiling (CPUTiling.cpp)
//===----------------------------------------------------------------------===//

/// Tiles `op` by `sizes` (0 = the dim is not tiled) into loops of
/// `loopType`, in `interchange` order when it is not empty, and replaces
/// (tensors) or erases (buffers) `op`. The innermost tiled op is
/// `tiledOps.back()` of the result.
FailureOr<scf::SCFTilingResult>
tileOneLevel(RewriterBase &rewriter, Operation *op,
             ArrayRef<OpFoldResult> sizes,
             scf::SCFTilingOptions::LoopType loopType =
                 scf::SCFTilingOptions::LoopType::ForOp,
             ArrayRef<int64_t> interchange = {});

/// Drops dimension `dim` (size 1) of `value` (a tensor or a memref) with a
/// rank-reducing slice.
Value dropUnitDim(OpBuilder &b, Location loc, Value value, int64_t dim);

//===----------------------------------------------------------------------===//
// Vectorizing, and tiling data movement (VectorizeCopies.cpp)
//===----------------------------------------------------------------------===//

/// Vectorizes `op` (linalg::vectorize) and replaces (tensors) or erases
/// (buffers) it. Fails without changes when `op` does not vectorize.
LogicalResult vectorizeAndReplace(RewriterBase &rewriter, Operation *op);

/// Marks `copy` (a pack copy or transpose, on tensors or buffers) with
/// kPrefetchNextAttrName (TileConfig.h) so that,
/// when it is tiled and vectorized on buffers (here, or after
/// bufferization by vectorizeSmallCopies), each piece first prefetches into
/// L2 the lines of the same piece at the next iteration of the innermost
/// loop that moves the pack's source (CPUSchedule.md, "Prefetching the next
/// pack"). No mark when `lineBytes` is 0.
void markPackForPrefetch(Operation *copy, int64_t lineBytes);

struct NextStepView;

/// Tiles `op` by `tiles` (scf.for loops; 0 = the whole dim; no loops when
/// all are 0), replaces it, and when `vectorize` vectorizes the tiled piece
/// if it has at most `maxVectorElements` elements (0: any). A piece that
/// does not vectorize stays scalar: correct, only slower. With `prefetch`,
/// the piece first prefetches its counterpart in the next step's view.
LogicalResult tileAndVectorizePiece(RewriterBase &rewriter, Operation *op,
                                    ArrayRef<int64_t> tiles, bool vectorize,
                                    int64_t maxVectorElements = 0,
                                    const NextStepView *prefetch = nullptr);

/// Tiles a packing copy so that each tiled piece moves one contiguous row
/// (innermost dim whole; on buffers, long rows go in fixed-size chunks plus
/// one remainder piece), then vectorizes the pieces (on buffers only: on
/// tensors, canonicalization would fold the vector copies back into slice
/// copies; tiletune-optimize-cpu-buffers vectorizes them after
/// bufferization). A copy on buffers marked by markPackForPrefetch
/// prefetches, row by row, the next step's rows.
LogicalResult tileAndVectorizeCopy(RewriterBase &rewriter, Operation *copy,
                                   bool vectorize);

/// The permutation of a conv_2d_nhwc_fhwc filter into HWCF (result dim i is
/// filter dim kFhwcToHwcf[i]).
inline constexpr std::array<int64_t, 4> kFhwcToHwcf = {1, 2, 3, 0};

/// Replaces `conv` by the conv_2d_nhwc_hwcf of its input, `hwcfFilter` and
/// its output, with its strides and dilations (the loops keep their names
/// and order). Returns the new op.
linalg::Conv2DNhwcHwcfOp replaceWithHwcfConv(RewriterBase &rewriter,
                                             linalg::Conv2DNhwcFhwcOp conv,
                                             Value hwcfFilter);

/// Tiles a buffer transpose whose innermost dim moves into blocks of the two
/// innermost dims (input side and output side; the largest size up to 16
/// that divides each) and 1 elsewhere, and vectorizes the blocks of at most
/// 256 elements. On buffers it first drops unit dims and merges the dims
/// that stay adjacent in both layouts (where the views stay contiguous).
/// A transpose marked by markPackForPrefetch prefetches, block by block,
/// the next step's blocks. Fails without changes when the innermost dim
/// stays.
LogicalResult tileAndVectorizeTranspose(RewriterBase &rewriter,
                                        linalg::TransposeOp transpose);

//===----------------------------------------------------------------------===//
// Epilogue fusion (FuseEpilogues.cpp)
//===----------------------------------------------------------------------===//

/// The elementwise chain after a tuned op on tensors (findEpilogueChain),
/// fused level by level into the op's tiled loop nest by
/// tileAndVectorizeForCPU, then vectorized.
class EpilogueFusion {
public:
  /// The fusion of `op`'s epilogue chain; std::nullopt (with `reason`) when
  /// the op has none that can be fused.
  static std::optional<EpilogueFusion> create(Operation *op,
                                              std::string *reason);

  /// Tiles the chain's last op by `opLoopTiles` (per loop of the tuned op,
  /// 0 = not tiled; mapped to the chain's dims through the op's output map)
  /// in the order of `opLoopOrder` (op loops, outer to inner; empty: as is)
  /// and fuses the chain, the tuned op and the producer of its init (a fill
  /// or a broadcast) into the loops. Returns the loops (none when every size
  /// is 0). On success
  /// getTunedOp() is the tuned op's tiled clone.
  FailureOr<SmallVector<LoopLikeOpInterface>>
  fuse(RewriterBase &rewriter, ArrayRef<int64_t> opLoopTiles,
       scf::SCFTilingOptions::LoopType loopType,
       ArrayRef<int64_t> opLoopOrder = {});

  /// The last level of fuse(): tiles the chain by the op's register tile
  /// (`opLoopTiles`, relative to the op's tile as getTunedOp() has it now)
  /// where the op's tile covers its whole reduction, so that the output
  /// tile is complete in registers when the chain reads it: the init, the
  /// op's reduction loops and the chain then run on one register tile, and
  /// vectorize() vectorizes the chain and the init whole. The caller tiles
  /// the returned tuned op's reduction dims itself.
  FailureOr<SmallVector<LoopLikeOpInterface>>
  fuseRegisterTile(RewriterBase &rewriter, ArrayRef<int64_t> opLoopTiles);

  /// The tuned op (its latest tiled clone). The caller owns it from here on:
  /// once it tiles it further, call fuse() no more.
  Operation *getTunedOp() const { return tuned; }

  /// Takes `op` as the tuned op after a rewrite replaced it with an op of the
  /// same loops and result (the packing of an FHWC conv's filter into HWCF).
  void setTunedOp(Operation *op) { tuned = op; }

  /// Tiles the chain into rows (the op's register tile of the loop the
  /// innermost dim maps to; 1 elsewhere) and vectorizes every piece; after
  /// fuseRegisterTile, vectorizes the chain and the init as they are. Fails
  /// when a piece stays scalar (correct, only slower).
  LogicalResult vectorize(RewriterBase &rewriter,
                          ArrayRef<int64_t> opRegisterTiles);

  /// Number of ops in the chain and of levels it was fused at.
  unsigned getChainLength() const { return chainLength; }
  unsigned getFusedLevels() const { return fusedLevels; }

  /// The fusion's ops in the order they compute: the init's producer (when
  /// fused), the tuned op, the chain.
  SmallVector<Operation *> getOps() const;

  /// The tuned op's loop of each dim of its output, over which the init's
  /// producer and the chain iterate.
  ArrayRef<int64_t> getOutputLoops() const { return opLoopOfDim; }

  /// The same fusion on `ops`, a copy of getOps() in its order (a version of
  /// a thread tile, versionThreadTiles in CPUTiling.cpp).
  EpilogueFusion withOps(ArrayRef<Operation *> ops) const;

  /// Marks the chain and the init's producer so that the copies peeling
  /// makes of them (one per peeled tile) are found by takePeeledCopies.
  void markForPeeling();

  /// Appends to `copies` the copies of the marked chain under `scope` (the
  /// main tiles' and each peeled tile's), unmarked, each ready for
  /// vectorize(). Fails when the marked ops do not form whole chains in walk
  /// order.
  LogicalResult takePeeledCopies(Operation *scope,
                                 SmallVectorImpl<EpilogueFusion> &copies);

private:
  void mark();
  void unmark();

  Operation *tuned = nullptr;
  /// The op that sets the tuned op's init (a fill or a broadcast), fused
  /// with it; null when there is none to fuse.
  Operation *initProducer = nullptr;
  SmallVector<Operation *> chain;
  /// The tuned op's loop of each dim of the chain's iteration space.
  SmallVector<int64_t> opLoopOfDim;
  unsigned chainLength = 0;
  unsigned fusedLevels = 0;
  /// Whether fuseRegisterTile fused the chain by the register tile.
  bool registerTile = false;
};

//===----------------------------------------------------------------------===//
// Hoisting (BufferCleanups.cpp)
//===----------------------------------------------------------------------===//

/// Hoists loop-invariant ops out of every loop under `root` (innermost
/// first), so operand slices sit at the depth where they last change.
void hoistInvariantCode(Operation *root);

/// The preconditions of checkCPUTilingPreconditions beyond the op kind, for
/// a schedule just decoded from `op` itself (decodeCPUSchedule matched the
/// op already): a structured op with the tiling interface whose static loops
/// are the schedule's, each level's tile dividing the enclosing one.
LogicalResult checkScheduleFitsOp(Operation *op, const CPUSchedule &s,
                                  std::string *reason);

} // namespace mlir::tiletune

#endif // TILETUNE_LIB_TRANSFORMS_TILINGUTILS_H
