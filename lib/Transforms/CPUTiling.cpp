//===- CPUTiling.cpp - Config-driven CPU tiling and vectorization ---------===//
//
// Tiles one tunable op by its decoded CPU schedule: scf.forall for the
// parallel level, scf.for loops for the cache level (in the config's order),
// optional packing of the operand tiles, scf.for loops for the register
// level, 1-D decomposition of conv tiles, vectorization, and hoisting of the
// output tile out of the reduction loops.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-tile-cpu"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Schedule decoding
//===----------------------------------------------------------------------===//

int64_t CPUSchedule::getParallelTrips() const {
  int64_t trips = 1;
  for (auto [size, tile] : llvm::zip(loopSizes, parallelTiles))
    if (tile > 0)
      trips *= size / tile;
  return trips;
}

static bool isConvKind(OpKind kind) {
  return kind == OpKind::ConvNhwcHwcf || kind == OpKind::ConvNchwFchw;
}

/// Loop index of the output-column dim whose register tile is the vector
/// width of the B panels (matmul: n = 1, batch_matmul: n = 2).
static int64_t getPanelDim(OpKind kind) {
  return kind == OpKind::BatchMatmul ? 2 : 1;
}

/// Loop index of the output-row dim split into 1-D convolutions.
static int64_t getConvRowDim(OpKind kind) {
  return kind == OpKind::ConvNhwcHwcf ? 1 : 2;
}

FailureOr<CPUSchedule> tiletune::decodeCPUSchedule(Operation *op,
                                                   TileConfigAttr config,
                                                   std::string *reason) {
  auto fail = [&](const Twine &msg) -> FailureOr<CPUSchedule> {
    if (reason)
      *reason = msg.str();
    return failure();
  };
  if (!config)
    return fail("the op has no tiletune.config");
  if (config.getTarget() != kTargetCPU)
    return fail("the config targets '" + config.getTarget() + "', not cpu");
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return fail(why);

  // Verify without leaking diagnostics: capture the first message.
  std::string verifyMessage;
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      if (verifyMessage.empty())
        verifyMessage = diag.str();
      return success();
    });
    if (failed(verifyConfig(config, *tunable,
                            [&] { return mlir::emitError(op->getLoc()); })))
      return fail("invalid config: " + verifyMessage);
  }

  CPUSchedule schedule;
  schedule.kind = tunable->kind;
  size_t numLoops = tunable->dims.size();
  schedule.loopSizes.assign(numLoops, 0);
  schedule.parallelTiles.assign(numLoops, 0);
  schedule.cacheTiles.assign(numLoops, 0);
  schedule.registerTiles.assign(numLoops, 0);
  schedule.vectorize = config.getBoolOption("vectorize", true);
  schedule.unroll = config.getIntOption("unroll", 1);
  StringRef pack = config.getStringOption("pack", "none");
  schedule.packLhs = pack == "a" || pack == "ab";
  schedule.packRhs = pack == "b" || pack == "ab";
  if (schedule.unroll < 1)
    return fail("unroll must be positive");

  auto tileAt = [&](StringRef level, const LoopDim &dim) -> int64_t {
    std::optional<int64_t> size = config.getTileSize(level, dim.name);
    return size ? *size : -1;
  };
  for (const LoopDim &dim : tunable->dims) {
    unsigned i = dim.loopIndex;
    if (i >= numLoops)
      return fail("loop index out of range");
    schedule.loopSizes[i] = dim.size;
    switch (dim.role) {
    case DimRole::Batch:
      schedule.parallelTiles[i] = tileAt("parallel", dim);
      schedule.cacheTiles[i] = 1;
      schedule.registerTiles[i] = 1;
      break;
    case DimRole::Parallel:
      schedule.parallelTiles[i] = tileAt("parallel", dim);
      schedule.cacheTiles[i] = tileAt("cache", dim);
      schedule.registerTiles[i] = tileAt("register", dim);
      break;
    case DimRole::Reduction:
      schedule.parallelTiles[i] = 0;
      schedule.cacheTiles[i] = tileAt("cache", dim);
      schedule.registerTiles[i] =
          (dim.name == "k" || dim.name == "c") ? schedule.unroll : 1;
      break;
    }
    if (schedule.parallelTiles[i] < 0 || schedule.cacheTiles[i] < 0 ||
        schedule.registerTiles[i] < 0)
      return fail("dimension '" + dim.name + "' misses a tile size");
  }

  // Cache-level loop order: batch dims first, then `order` (or the default:
  // parallel dims in iterator order, then reductions).
  SmallVector<StringRef> order = config.getOrder();
  for (const LoopDim &dim : tunable->dims)
    if (dim.role == DimRole::Batch)
      schedule.cacheOrder.push_back(dim.loopIndex);
  if (order.empty()) {
    for (DimRole role : {DimRole::Parallel, DimRole::Reduction})
      for (const LoopDim &dim : tunable->dims)
        if (dim.role == role)
          schedule.cacheOrder.push_back(dim.loopIndex);
  } else {
    for (StringRef name : order) {
      const LoopDim *dim = tunable->lookup(name);
      if (!dim || dim->role == DimRole::Batch)
        return fail("order names an unknown or batch dimension '" + name + "'");
      schedule.cacheOrder.push_back(dim->loopIndex);
    }
  }
  SmallVector<int64_t> sorted(schedule.cacheOrder);
  llvm::sort(sorted);
  for (auto [i, v] : llvm::enumerate(sorted))
    if (v != static_cast<int64_t>(i))
      return fail("order is not a permutation of the non-batch dimensions");
  return schedule;
}

//===----------------------------------------------------------------------===//
// Preconditions
//===----------------------------------------------------------------------===//

LogicalResult tiletune::checkCPUTilingPreconditions(Operation *op,
                                                    const CPUSchedule &s,
                                                    std::string *reason) {
  auto fail = [&](const Twine &msg) {
    if (reason)
      *reason = msg.str();
    return failure();
  };
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return fail(why);
  if (tunable->kind != s.kind)
    return fail("the schedule was decoded for another op kind");
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<TilingInterface>(op))
    return fail("not a structured op with the tiling interface (are the "
                "Linalg TilingInterface models registered?)");
  if (!linalgOp.hasPureTensorSemantics() && !linalgOp.hasPureBufferSemantics())
    return fail("mixed tensor and buffer operands");
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  size_t n = ranges.size();
  if (s.loopSizes.size() != n || s.parallelTiles.size() != n ||
      s.cacheTiles.size() != n || s.registerTiles.size() != n ||
      s.cacheOrder.size() != n)
    return fail("the schedule does not match the op's loops");
  for (size_t i = 0; i < n; ++i) {
    if (ShapedType::isDynamic(ranges[i]) || ranges[i] != s.loopSizes[i])
      return fail("the schedule does not match the op's loop sizes");
    int64_t outer = s.parallelTiles[i] > 0 ? s.parallelTiles[i] : ranges[i];
    if (outer <= 0 || ranges[i] % outer != 0)
      return fail("parallel tile does not divide loop " + Twine(i));
    if (s.cacheTiles[i] <= 0 || outer % s.cacheTiles[i] != 0)
      return fail("cache tile does not divide the parallel tile of loop " +
                  Twine(i));
    if (s.registerTiles[i] <= 0 || s.cacheTiles[i] % s.registerTiles[i] != 0)
      return fail("register tile does not divide the cache tile of loop " +
                  Twine(i));
  }
  if (isConvKind(s.kind)) {
    // The 1-D decomposition needs kh stepping by 1 (kh is loop 4 in NHWC
    // and loop 5 in NCHW).
    int64_t kh = s.kind == OpKind::ConvNhwcHwcf ? 4 : 5;
    if (s.registerTiles[kh] != 1)
      return fail("kh must step by 1 at the register level");
    int64_t batch = 0;
    if (s.registerTiles[batch] != 1)
      return fail("the batch dim must step by 1 at the register level");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Replaces (tensors) or erases (buffers) `op` after tiling.
static void replaceTiledOp(RewriterBase &rewriter, Operation *op,
                           ValueRange replacements) {
  if (op->getNumResults() == 0)
    rewriter.eraseOp(op);
  else
    rewriter.replaceOp(op, replacements);
}

/// Tile sizes relative to an enclosing tile of extents `outer`: a size equal
/// to the extent becomes 0 (no loop).
static SmallVector<OpFoldResult> relativeTileSizes(MLIRContext *ctx,
                                                   ArrayRef<int64_t> tiles,
                                                   ArrayRef<int64_t> outer) {
  SmallVector<int64_t> sizes;
  for (auto [tile, extent] : llvm::zip(tiles, outer))
    sizes.push_back(tile >= extent ? 0 : tile);
  return getAsIndexOpFoldResult(ctx, sizes);
}

static bool allZero(ArrayRef<OpFoldResult> sizes) {
  return llvm::all_of(sizes, [](OpFoldResult s) { return isZeroInteger(s); });
}

/// Hoists loop-invariant ops out of every loop under `root` (innermost
/// first), so operand slices sit at the depth where they last change.
static void hoistInvariantCode(Operation *root) {
  root->walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
}

/// Creates a buffer of `type` (memref) before `anchor`. It is freed by the
/// buffer deallocation pipeline of tiletune-lower-cpu (an explicit dealloc
/// would stop ownership-based deallocation from handling the function).
static Value createScopedBuffer(RewriterBase &rewriter, Operation *anchor,
                                MemRefType type) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(anchor);
  return memref::AllocOp::create(rewriter, anchor->getLoc(), type,
                                 rewriter.getI64IntegerAttr(64));
}

/// Sets the insertion point right after the definition of `value`.
static void setInsertionPointAfterDef(OpBuilder &b, Value value) {
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
}

/// Sets the insertion point after the definitions of both `a` and `b`,
/// where the later of the two dominates (one is defined in an enclosing or
/// the same block as the other).
static void setInsertionPointAfterDefs(OpBuilder &b, Value first,
                                       Value second) {
  Operation *defA = first.getDefiningOp();
  Operation *defB = second.getDefiningOp();
  Value later = first;
  if (defA && defB && defA->getBlock() == defB->getBlock())
    later = defA->isBeforeInBlock(defB) ? second : first;
  else if (defB && defA &&
           defB->getParentRegion()->isProperAncestor(defA->getParentRegion()))
    later = first;
  else if (defA && defB &&
           defA->getParentRegion()->isProperAncestor(defB->getParentRegion()))
    later = second;
  setInsertionPointAfterDef(b, later);
}

/// Tiles `op` by `tiles` (scf.for loops; 0 = the whole dim; no loops when
/// all are 0), replaces it, and when `vectorize` vectorizes the tiled piece
/// if it has at most `maxVectorElements` elements (0: any). A piece that
/// does not vectorize stays scalar: correct, only slower.
static LogicalResult tileAndVectorizePiece(RewriterBase &rewriter,
                                           Operation *op,
                                           ArrayRef<int64_t> tiles,
                                           bool vectorize,
                                           int64_t maxVectorElements = 0) {
  Operation *piece = op;
  if (llvm::any_of(tiles, [](int64_t t) { return t != 0; })) {
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), tiles));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
    if (failed(tiled))
      return failure();
    replaceTiledOp(rewriter, op, tiled->replacements);
    piece = tiled->tiledOps.back();
  }
  if (!vectorize)
    return success();
  auto type = cast<ShapedType>(
      cast<linalg::LinalgOp>(piece).getDpsInitOperand(0)->get().getType());
  if (maxVectorElements > 0 &&
      (!type.hasStaticShape() || type.getNumElements() > maxVectorElements))
    return success();
  rewriter.setInsertionPoint(piece);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, piece);
  if (succeeded(vectorized))
    replaceTiledOp(rewriter, piece, vectorized->replacements);
  return success();
}

/// On buffers, rows longer than this are copied in chunks of kCopyChunk
/// elements plus one remainder piece: one vector per row would be a huge
/// vector type (slow to compile, spilled).
static constexpr int64_t kMaxVectorRow = 256;
static constexpr int64_t kCopyChunk = 64;

static LogicalResult tileAndVectorizeCopy(RewriterBase &rewriter,
                                          Operation *copy, bool vectorize);

/// Splits a buffer copy with long rows into a copy of the first
/// floor(L / kCopyChunk) * kCopyChunk columns, tiled and vectorized in
/// chunks, and a copy of the remaining columns (a static remainder, one
/// vector per row).
static LogicalResult splitLongRowCopy(RewriterBase &rewriter,
                                      linalg::CopyOp copy, int64_t rowLength) {
  Location loc = copy.getLoc();
  Value source = copy.getInputs()[0], target = copy.getOutputs()[0];
  auto shape = cast<MemRefType>(source.getType()).getShape();
  int64_t rank = shape.size();
  int64_t main = rowLength / kCopyChunk * kCopyChunk;
  auto window = [&](Value buffer, int64_t offset, int64_t length) -> Value {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), shape);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    offsets.back() = rewriter.getIndexAttr(offset);
    sizes.back() = rewriter.getIndexAttr(length);
    return memref::SubViewOp::create(rewriter, loc, buffer, offsets, sizes,
                                     strides);
  };
  rewriter.setInsertionPoint(copy);
  auto mainCopy = linalg::CopyOp::create(rewriter, loc, window(source, 0, main),
                                         window(target, 0, main));
  Operation *rest = nullptr;
  if (main < rowLength)
    rest = linalg::CopyOp::create(rewriter, loc,
                                  window(source, main, rowLength - main),
                                  window(target, main, rowLength - main));
  rewriter.eraseOp(copy);
  SmallVector<int64_t> tiles(rank, 1);
  tiles.back() = kCopyChunk;
  if (failed(tileAndVectorizePiece(rewriter, mainCopy, tiles,
                                   /*vectorize=*/true)))
    return failure();
  if (rest)
    return tileAndVectorizeCopy(rewriter, rest, /*vectorize=*/true);
  return success();
}

/// Tiles a packing copy so that each tiled piece moves one contiguous row
/// (innermost dim whole; on buffers, rows longer than kMaxVectorRow go
/// through splitLongRowCopy), then vectorizes the pieces (on buffers only:
/// on tensors, canonicalization would fold the vector copies back into
/// slice copies; tiletune-optimize-cpu-buffers vectorizes them after
/// bufferization).
static LogicalResult tileAndVectorizeCopy(RewriterBase &rewriter,
                                          Operation *copy, bool vectorize) {
  auto linalgOp = cast<linalg::LinalgOp>(copy);
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (vectorize && isa<linalg::CopyOp>(copy) &&
      linalgOp.hasPureBufferSemantics() && !ranges.empty() &&
      llvm::none_of(ranges, ShapedType::isDynamic) &&
      ranges.back() > kMaxVectorRow)
    return splitLongRowCopy(rewriter, cast<linalg::CopyOp>(copy),
                            ranges.back());
  // One piece per row: every dim but the innermost by 1.
  SmallVector<int64_t> tiles(ranges.size(), 1);
  tiles.back() = 0;
  return tileAndVectorizePiece(rewriter, copy, tiles, vectorize);
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

namespace {
/// State of the B-panel packing of a matmul-like op.
struct PanelPack {
  Value cacheOperand; ///< The cache-level B tile that was packed.
  Value packed;       ///< [b?][Nc/rn][Kc][rn] buffer.
  int64_t rn = 0;
};
} // namespace

/// Packs operand `operandIdx` of the cache-level op `op` as a plain copy
/// into a contiguous buffer of the same shape and makes `op` read it.
static FailureOr<Operation *> packPlainCopy(RewriterBase &rewriter,
                                            linalg::LinalgOp op,
                                            unsigned operandIdx,
                                            Operation *bufferAnchor) {
  OpOperand &operand = op->getOpOperand(operandIdx);
  Value source = operand.get();
  auto shaped = cast<ShapedType>(source.getType());
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *copy;
  if (isa<RankedTensorType>(shaped)) {
    setInsertionPointAfterDef(rewriter, source);
    Value empty = tensor::EmptyOp::create(rewriter, loc, shaped.getShape(),
                                          shaped.getElementType());
    copy = linalg::CopyOp::create(rewriter, loc, source, empty);
    rewriter.modifyOpInPlace(op, [&] { operand.set(copy->getResult(0)); });
  } else {
    auto type = MemRefType::get(shaped.getShape(), shaped.getElementType());
    Value buffer = createScopedBuffer(rewriter, bufferAnchor, type);
    setInsertionPointAfterDefs(rewriter, source, buffer);
    copy = linalg::CopyOp::create(rewriter, loc, source, buffer);
    rewriter.modifyOpInPlace(op, [&] { operand.set(buffer); });
  }
  return copy;
}

/// Packs the B operand of a matmul-like cache-level op into column panels
/// `[b?][Nc/rn][Kc][rn]`.
static FailureOr<std::pair<Operation *, PanelPack>>
packPanels(RewriterBase &rewriter, linalg::LinalgOp op, int64_t rn,
           bool batched, Operation *bufferAnchor) {
  Value source = op->getOperand(1);
  auto shaped = cast<ShapedType>(source.getType());
  ArrayRef<int64_t> shape = shaped.getShape(); // [b?][Kc][Nc]
  unsigned kPos = batched ? 1 : 0;
  int64_t kc = shape[kPos], nc = shape[kPos + 1];
  if (rn <= 0 || nc % rn != 0)
    return failure();
  Location loc = op.getLoc();
  Type elementType = shaped.getElementType();

  // Expanded source [b?][Kc][Nc/rn][rn] and packed [b?][Nc/rn][Kc][rn].
  SmallVector<int64_t> expandedShape, packedShape, perm;
  SmallVector<ReassociationIndices> reassoc;
  if (batched) {
    expandedShape = {shape[0], kc, nc / rn, rn};
    packedShape = {shape[0], nc / rn, kc, rn};
    perm = {0, 2, 1, 3};
    reassoc = {{0}, {1}, {2, 3}};
  } else {
    expandedShape = {kc, nc / rn, rn};
    packedShape = {nc / rn, kc, rn};
    perm = {1, 0, 2};
    reassoc = {{0}, {1, 2}};
  }

  OpBuilder::InsertionGuard guard(rewriter);
  PanelPack pack;
  pack.cacheOperand = source;
  pack.rn = rn;
  Operation *transpose;
  if (isa<RankedTensorType>(shaped)) {
    setInsertionPointAfterDef(rewriter, source);
    auto expandedType = RankedTensorType::get(expandedShape, elementType);
    Value expanded = tensor::ExpandShapeOp::create(rewriter, loc, expandedType,
                                                   source, reassoc);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, packedShape, elementType);
    transpose =
        linalg::TransposeOp::create(rewriter, loc, expanded, empty, perm);
    pack.packed = transpose->getResult(0);
  } else {
    auto memrefType = cast<MemRefType>(shaped);
    FailureOr<MemRefType> expandedType =
        memref::ExpandShapeOp::computeExpandedType(memrefType, expandedShape,
                                                   reassoc);
    if (failed(expandedType))
      return failure();
    Value buffer = createScopedBuffer(
        rewriter, bufferAnchor, MemRefType::get(packedShape, elementType));
    setInsertionPointAfterDefs(rewriter, source, buffer);
    Value expanded = memref::ExpandShapeOp::create(rewriter, loc, *expandedType,
                                                   source, reassoc);
    transpose =
        linalg::TransposeOp::create(rewriter, loc, expanded, buffer, perm);
    pack.packed = buffer;
  }
  return std::make_pair(transpose, pack);
}

/// Makes the register-level op `op` read its B tile from the panels.
static LogicalResult usePanels(RewriterBase &rewriter, linalg::LinalgOp op,
                               const PanelPack &pack, bool batched) {
  OpOperand &operand = op->getOpOperand(1);
  Value current = operand.get();
  unsigned kPos = batched ? 1 : 0;
  SmallVector<OpFoldResult> offsets;
  auto tileType = cast<ShapedType>(current.getType());
  if (current == pack.cacheOperand) {
    offsets.assign(tileType.getRank(), rewriter.getIndexAttr(0));
  } else if (auto slice = current.getDefiningOp<tensor::ExtractSliceOp>();
             slice && slice.getSource() == pack.cacheOperand) {
    offsets = slice.getMixedOffsets();
  } else if (auto view = current.getDefiningOp<memref::SubViewOp>();
             view && view.getSource() == pack.cacheOperand) {
    offsets = view.getMixedOffsets();
  } else {
    return failure();
  }
  int64_t ku = tileType.getShape()[kPos];
  int64_t nu = tileType.getShape()[kPos + 1];
  if (nu != pack.rn)
    return failure();

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  OpFoldResult panel = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(pack.rn), {offsets[kPos + 1]});
  SmallVector<OpFoldResult> newOffsets, newSizes, newStrides;
  if (batched) {
    newOffsets = {offsets[0], panel, offsets[kPos], rewriter.getIndexAttr(0)};
    newSizes = {rewriter.getIndexAttr(tileType.getShape()[0]),
                rewriter.getIndexAttr(1), rewriter.getIndexAttr(ku),
                rewriter.getIndexAttr(pack.rn)};
  } else {
    newOffsets = {panel, offsets[kPos], rewriter.getIndexAttr(0)};
    newSizes = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(ku),
                rewriter.getIndexAttr(pack.rn)};
  }
  newStrides.assign(newOffsets.size(), rewriter.getIndexAttr(1));
  Value replacement;
  if (isa<RankedTensorType>(tileType)) {
    auto type =
        RankedTensorType::get(tileType.getShape(), tileType.getElementType());
    replacement = tensor::ExtractSliceOp::create(
        rewriter, loc, type, pack.packed, newOffsets, newSizes, newStrides);
  } else {
    auto packedType = cast<MemRefType>(pack.packed.getType());
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        tileType.getShape(), packedType, newOffsets, newSizes, newStrides);
    replacement = memref::SubViewOp::create(rewriter, loc, type, pack.packed,
                                            newOffsets, newSizes, newStrides);
  }
  rewriter.modifyOpInPlace(op, [&] { operand.set(replacement); });
  if (Operation *old = current.getDefiningOp(); old && old->use_empty())
    rewriter.eraseOp(old);
  return success();
}

//===----------------------------------------------------------------------===//
// Conv decomposition (tensors and buffers)
//===----------------------------------------------------------------------===//

/// Drops dimension `dim` (size 1) of `value` with a rank-reducing slice.
static Value dropUnitDim(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<ShapedType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  if (isa<RankedTensorType>(type))
    return tensor::createCanonicalRankReducingExtractSliceOp(
        b, loc, value, RankedTensorType::get(shape, type.getElementType()));
  return memref::createCanonicalRankReducingSubViewOp(b, loc, value, shape);
}

/// Rewrites a 2-D conv tile with one output row and one filter row into a
/// 1-D conv (NHWC -> NWC/WCF, NCHW -> NCW/FCW). Returns the 1-D conv.
static FailureOr<linalg::LinalgOp>
decomposeConvRow(RewriterBase &rewriter, linalg::LinalgOp conv, OpKind kind) {
  bool nhwc = kind == OpKind::ConvNhwcHwcf;
  // Unit dims: NHWC input/output H is dim 1, filter KH dim 0; NCHW: H is 2,
  // KH is 2.
  int64_t inH = nhwc ? 1 : 2, outH = nhwc ? 1 : 2, filterH = nhwc ? 0 : 2;
  Value input = conv.getDpsInputOperand(0)->get();
  Value filter = conv.getDpsInputOperand(1)->get();
  Value output = conv.getDpsInitOperand(0)->get();
  auto shapeOf = [](Value v) { return cast<ShapedType>(v.getType()); };
  if (shapeOf(input).getDimSize(inH) != 1 ||
      shapeOf(filter).getDimSize(filterH) != 1 ||
      shapeOf(output).getDimSize(outH) != 1)
    return failure();
  DenseIntElementsAttr strides, dilations;
  if (nhwc) {
    auto op = cast<linalg::Conv2DNhwcHwcfOp>(conv);
    strides = op.getStrides();
    dilations = op.getDilations();
  } else {
    auto op = cast<linalg::Conv2DNchwFchwOp>(conv);
    strides = op.getStrides();
    dilations = op.getDilations();
  }
  int64_t strideW = strides.getValues<int64_t>()[1];
  int64_t dilationW = dilations.getValues<int64_t>()[1];

  Location loc = conv.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(conv);
  Value input1 = dropUnitDim(rewriter, loc, input, inH);
  Value filter1 = dropUnitDim(rewriter, loc, filter, filterH);
  Value output1 = dropUnitDim(rewriter, loc, output, outH);
  auto stridesAttr = rewriter.getI64TensorAttr({strideW});
  auto dilationsAttr = rewriter.getI64TensorAttr({dilationW});
  SmallVector<Type> resultTypes;
  if (conv->getNumResults() == 1)
    resultTypes.push_back(output1.getType());
  Operation *conv1;
  if (nhwc)
    conv1 = linalg::Conv1DNwcWcfOp::create(
        rewriter, loc, resultTypes, ValueRange{input1, filter1},
        ValueRange{output1}, stridesAttr, dilationsAttr);
  else
    conv1 = linalg::Conv1DNcwFcwOp::create(
        rewriter, loc, resultTypes, ValueRange{input1, filter1},
        ValueRange{output1}, stridesAttr, dilationsAttr);
  if (conv->getNumResults() == 1) {
    Value inserted = tensor::createCanonicalRankReducingInsertSliceOp(
        rewriter, loc, conv1->getResult(0), output);
    rewriter.replaceOp(conv, inserted);
  } else {
    rewriter.eraseOp(conv);
  }
  return cast<linalg::LinalgOp>(conv1);
}

/// Splits a register-level conv tile into one 1-D conv per output row:
/// tiles the row dim by 1, fully unrolls that loop and decomposes each row.
static FailureOr<SmallVector<Operation *>>
splitConvIntoRows(RewriterBase &rewriter, linalg::LinalgOp conv, OpKind kind) {
  int64_t rowDim = getConvRowDim(kind);
  SmallVector<int64_t> ranges = conv.getStaticLoopRanges();
  SmallVector<Operation *> rows;
  if (ranges[rowDim] == 1) {
    rows.push_back(conv);
  } else {
    SmallVector<int64_t> tiles(ranges.size(), 0);
    tiles[rowDim] = 1;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(conv->getContext(), tiles));
    rewriter.setInsertionPoint(conv);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(conv.getOperation()), options);
    if (failed(tiled) || tiled->loops.size() != 1)
      return failure();
    replaceTiledOp(rewriter, conv, tiled->replacements);
    auto loop = cast<scf::ForOp>(tiled->loops.front().getOperation());
    Block *parent = loop->getBlock();
    Operation *before = loop->getPrevNode();
    Operation *after = loop->getNextNode();
    if (failed(loopUnrollFull(loop)))
      return failure();
    // The unrolled bodies sit between `before` and `after`.
    Block::iterator it =
        before ? std::next(before->getIterator()) : parent->begin();
    Block::iterator end = after ? after->getIterator() : parent->end();
    for (; it != end; ++it)
      it->walk([&](linalg::LinalgOp op) {
        if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(op))
          rows.push_back(op);
      });
  }
  SmallVector<Operation *> convs1D;
  for (Operation *row : rows) {
    FailureOr<linalg::LinalgOp> conv1 =
        decomposeConvRow(rewriter, cast<linalg::LinalgOp>(row), kind);
    if (failed(conv1))
      return failure();
    convs1D.push_back(*conv1);
  }
  return convs1D;
}

//===----------------------------------------------------------------------===//
// Vectorization and hoisting
//===----------------------------------------------------------------------===//

/// Canonicalization + contraction folding + tensor subset folding, applied
/// inside `root` after vectorization. `lowerPermutations` also rewrites
/// transfers with non-identity permutation maps into transfer + broadcast /
/// transpose (which lets broadcasts fold into contractions); it runs only
/// after hoisting, because it gives the read and the write of a transposed
/// accumulator (NCHW) different vector types, which hoisting cannot pair.
static void cleanupAfterVectorization(Operation *root, bool lowerPermutations) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  vector::populateVectorReductionToContractPatterns(patterns);
  if (lowerPermutations)
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  tensor::populateFoldTensorSubsetOpPatterns(patterns);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(root, std::move(patterns));
}

void tiletune::hoistVectorTransfersOnBuffers(Operation *root) {
  MLIRContext *ctx = root->getContext();
  {
    RewritePatternSet patterns(ctx);
    memref::populateFoldMemRefAliasOpPatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    (void)applyPatternsGreedily(root, std::move(patterns));
  }
  IRRewriter rewriter(ctx);
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
  hoistInvariantCode(root);
  linalg::hoistRedundantVectorTransfers(root);
}

/// Hoists the output-tile transfers of the register loops on tensors
/// (innermost loops first), turning the accumulator into a loop-carried
/// vector.
static void hoistVectorTransfersOnTensors(RewriterBase &rewriter,
                                          Operation *root) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  // Post-order walk: inner loops come first.
  for (scf::ForOp loop : loops) {
    if (!loop->getBlock())
      continue;
    (void)hoistLoopInvariantSubsets(
        rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));
  }
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<CPUTilingResult>
tiletune::tileAndVectorizeForCPU(RewriterBase &rewriter, Operation *op,
                                 const CPUSchedule &s) {
  if (failed(checkCPUTilingPreconditions(op, s)))
    return failure();
  MLIRContext *ctx = op->getContext();
  auto linalgOp = cast<linalg::LinalgOp>(op);
  bool onTensors = linalgOp.hasPureTensorSemantics();
  bool matmulLike = !isConvKind(s.kind);
  bool batched = s.kind == OpKind::BatchMatmul;
  // Cleanups run inside the op's parent, which the rewrites never replace.
  Operation *root = op->getParentOp();
  CPUTilingResult result;

  // The tiled copies must not inherit the config (it describes the whole op).
  rewriter.modifyOpInPlace(op, [&] { eraseConfig(op); });
  Operation *current = op;

  // 1. Parallel level: scf.forall over batch + parallel dims.
  SmallVector<int64_t> threadExtents(s.loopSizes);
  {
    SmallVector<int64_t> tiles(s.loopSizes.size(), 0);
    for (auto [i, tile] : llvm::enumerate(s.parallelTiles))
      if (tile > 0 && tile < s.loopSizes[i]) {
        tiles[i] = tile;
        threadExtents[i] = tile;
      }
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, tiles);
    if (!allZero(sizes)) {
      scf::SCFTilingOptions options;
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(current);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), options);
      if (failed(tiled))
        return failure();
      replaceTiledOp(rewriter, current, tiled->replacements);
      result.numThreads = s.getParallelTrips();
      current = tiled->tiledOps.back();
    }
  }

  // 2. Cache level: scf.for loops in the config's order.
  Operation *cacheOuter = nullptr;
  {
    SmallVector<OpFoldResult> sizes =
        relativeTileSizes(ctx, s.cacheTiles, threadExtents);
    if (!allZero(sizes)) {
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      options.setInterchange(s.cacheOrder);
      rewriter.setInsertionPoint(current);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), options);
      if (failed(tiled))
        return failure();
      replaceTiledOp(rewriter, current, tiled->replacements);
      result.numCacheLoops = tiled->loops.size();
      cacheOuter = tiled->loops.front().getOperation();
      current = tiled->tiledOps.back();
    }
  }
  // Per-thread buffers are allocated around the outermost cache-level op.
  Operation *bufferAnchor = cacheOuter ? cacheOuter : current;

  // Hoist the operand slices to the loop level where they last change, so
  // packing copies run once per distinct tile.
  if (cacheOuter)
    hoistInvariantCode(cacheOuter);

  // 3. Packing.
  std::optional<PanelPack> panels;
  SmallVector<Operation *> packCopies;
  if (s.packLhs) {
    FailureOr<Operation *> copy = packPlainCopy(
        rewriter, cast<linalg::LinalgOp>(current), 0, bufferAnchor);
    if (failed(copy))
      return failure();
    packCopies.push_back(*copy);
  }
  if (s.packRhs) {
    if (matmulLike) {
      auto packed = packPanels(rewriter, cast<linalg::LinalgOp>(current),
                               s.registerTiles[getPanelDim(s.kind)], batched,
                               bufferAnchor);
      if (failed(packed))
        return failure();
      packCopies.push_back(packed->first);
      panels = packed->second;
    } else {
      FailureOr<Operation *> copy = packPlainCopy(
          rewriter, cast<linalg::LinalgOp>(current), 1, bufferAnchor);
      if (failed(copy))
        return failure();
      packCopies.push_back(*copy);
    }
  }
  result.numPackCopies = packCopies.size();

  // 4. Register level: parallel dims by their register tile, k/c by unroll.
  SmallVector<Operation *> registerOps{current};
  {
    SmallVector<OpFoldResult> sizes =
        relativeTileSizes(ctx, s.registerTiles, s.cacheTiles);
    if (!allZero(sizes)) {
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(current);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(current), options);
      if (failed(tiled))
        return failure();
      replaceTiledOp(rewriter, current, tiled->replacements);
      result.numRegisterLoops = tiled->loops.size();
      current = tiled->tiledOps.back();
      registerOps = {current};
    }
  }
  if (panels) {
    if (failed(usePanels(rewriter, cast<linalg::LinalgOp>(current), *panels,
                         batched)))
      return failure();
  }

  // On tensors, hoist the output tile's extract/insert pair out of the
  // register-level reduction loops now: after vectorization, subset folding
  // would otherwise tangle the per-row accesses of conv tiles.
  if (onTensors && result.numRegisterLoops > 0) {
    IRRewriter hoister(ctx);
    hoistVectorTransfersOnTensors(hoister, root);
  }

  // 5. Conv tiles become 1-D convs, one per output row.
  if (isConvKind(s.kind)) {
    FailureOr<SmallVector<Operation *>> convs =
        splitConvIntoRows(rewriter, cast<linalg::LinalgOp>(current), s.kind);
    if (failed(convs))
      return failure();
    registerOps = *convs;
  }

  // Packing copies move whole rows as vectors.
  for (Operation *copy : packCopies) {
    if (failed(tileAndVectorizeCopy(rewriter, copy, !onTensors)))
      return failure();
  }

  // 6. Vectorize the register tile and keep the accumulators in registers.
  if (s.vectorize) {
    bool all = true;
    for (Operation *regOp : registerOps) {
      rewriter.setInsertionPoint(regOp);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, regOp);
      if (failed(vectorized)) {
        all = false;
        continue;
      }
      replaceTiledOp(rewriter, regOp, vectorized->replacements);
    }
    result.vectorized = all;
  }
  cleanupAfterVectorization(root, /*lowerPermutations=*/false);
  if (onTensors) {
    IRRewriter hoister(ctx);
    hoistVectorTransfersOnTensors(hoister, root);
  } else {
    hoistVectorTransfersOnBuffers(root);
  }
  cleanupAfterVectorization(root, /*lowerPermutations=*/true);
  if (!onTensors)
    hoistVectorTransfersOnBuffers(root);
  return result;
}

/// Sets `*reason` (when given) to `msg` and fails.
static LogicalResult failWithReason(std::string *reason, const Twine &msg) {
  if (reason)
    *reason = msg.str();
  return failure();
}

/// Block size of large transposes: kTransposeBlock x kTransposeBlock tiles
/// of the dims that are innermost in the input and in the output.
static constexpr int64_t kTransposeBlock = 16;

/// Tiles a buffer transpose whose innermost dim moves into blocks of the
/// two innermost dims (input side and output side; the largest size up to
/// kTransposeBlock that divides each) and 1 elsewhere, and vectorizes the blocks of
/// at most 256 elements (others stay scalar: correct, only slower; a block's
/// vector.transpose is unrolled element by element, so bigger blocks cost
/// compile time). Fails without changes when the innermost dim stays.
static LogicalResult tileAndVectorizeTranspose(RewriterBase &rewriter,
                                               linalg::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  int64_t outInner = rank - 1, inInner = -1;
  for (int64_t i = 0; i < rank; ++i)
    if (perm[i] == rank - 1)
      inInner = i;
  if (rank < 2 || inInner < 0 || inInner == outInner)
    return failure();
  SmallVector<int64_t> ranges =
      cast<linalg::LinalgOp>(transpose.getOperation()).getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return failure();
  // Per side, the largest block size up to kTransposeBlock that divides the
  // dim, so every block is static and full.
  SmallVector<int64_t> tiles(rank, 1);
  for (int64_t i : {inInner, outInner}) {
    for (int64_t b = std::min(kTransposeBlock, ranges[i]); b > 1; --b)
      if (ranges[i] % b == 0) {
        tiles[i] = b;
        break;
      }
  }
  return tileAndVectorizePiece(rewriter, transpose, tiles, /*vectorize=*/true,
                               kTransposeBlock * kTransposeBlock);
}

FailureOr<Operation *> tiletune::convertLayoutToConfig(RewriterBase &rewriter,
                                                       Operation *op,
                                                       std::string *reason) {
  TileConfigAttr config = getConfig(op);
  if (!config || config.getTarget() != kTargetCPU ||
      config.getStringOption("layout", "native") != "nhwc")
    return op;
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  if (!conv || (!conv.hasPureTensorSemantics() &&
                !conv.hasPureBufferSemantics()))
    return failWithReason(
        reason, "'layout = nhwc' needs a linalg.conv_2d_nchw_fchw on tensors "
                "or on buffers");
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  bool onTensors = conv.hasPureTensorSemantics();
  rewriter.setInsertionPoint(op);
  SmallVector<linalg::TransposeOp> transposes;
  // `value` with its dims permuted (result dim i = source dim perm[i]) into
  // `target` (a fresh tensor or buffer when null); the transposed value.
  auto transposed = [&](Value value, ArrayRef<int64_t> perm,
                        Value target = {}) -> Value {
    auto type = cast<ShapedType>(value.getType());
    if (!target) {
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(type.getShape()[p]);
      target = onTensors
                   ? Value(tensor::EmptyOp::create(rewriter, loc, shape,
                                                   type.getElementType()))
                   : Value(memref::AllocOp::create(
                         rewriter, loc,
                         MemRefType::get(shape, type.getElementType()),
                         rewriter.getI64IntegerAttr(64)));
    }
    auto t = linalg::TransposeOp::create(rewriter, loc, value, target, perm);
    transposes.push_back(t);
    return onTensors ? t->getResult(0) : target;
  };
  // NCHW -> NHWC, FCHW -> HWCF; the output keeps its (accumulated) values.
  Value input = transposed(conv.getInputs()[0], {0, 2, 3, 1});
  Value filter = transposed(conv.getInputs()[1], {2, 3, 1, 0});
  Value init = conv.getOutputs()[0];
  Value output = transposed(init, {0, 2, 3, 1});
  SmallVector<Type> resultTypes;
  if (onTensors)
    resultTypes.push_back(output.getType());
  // The same config without the layout option: its levels and `order` name
  // the same loops (n, f, oh, ow, c, kh, kw).
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : config.getEntries())
    if (entry.getName() != "layout")
      entries.push_back(entry);
  auto nhwc = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, loc, resultTypes, ValueRange{input, filter},
      ValueRange{output}, conv.getStrides(), conv.getDilations());
  setConfig(nhwc, TileConfigAttr::get(ctx, config.getTarget(),
                                      DictionaryAttr::get(ctx, entries)));
  rewriter.setInsertionPointAfter(nhwc);
  if (onTensors) {
    Value result = transposed(nhwc->getResult(0), {0, 3, 1, 2});
    rewriter.replaceOp(op, result);
  } else {
    transposed(output, {0, 3, 1, 2}, init);
    rewriter.eraseOp(op);
    // Buffers: move the transposes as vector blocks now (on tensors the
    // pipeline does it after bufferization, see vectorizeSmallCopies).
    for (linalg::TransposeOp t : transposes)
      (void)tileAndVectorizeTranspose(rewriter, t);
  }
  return nhwc.getOperation();
}

FailureOr<Operation *> tiletune::padToConfig(RewriterBase &rewriter,
                                             Operation *op,
                                             std::string *reason) {
  TileConfigAttr config = getConfig(op);
  if (!config || config.getTarget() != kTargetCPU || !config.getOption("pad"))
    return op;
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || (!linalgOp.hasPureTensorSemantics() &&
                    !linalgOp.hasPureBufferSemantics()))
    return failWithReason(
        reason, "padding needs a structured op on tensors or on buffers");
  SmallVector<int64_t> loopSizes(linalgOp.getNumLoops(), 0);
  bool anyPadded = false;
  for (const LoopDim &dim : tunable->dims) {
    int64_t padded = getPaddedSize(config, dim);
    if (padded < dim.size)
      return failWithReason(reason,
                            "'pad' of '" + dim.name + "' is below its size");
    loopSizes[dim.loopIndex] = padded;
    anyPadded |= padded != dim.size;
  }
  if (!anyPadded)
    return op;

  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType = tunable->elementType;
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(elementType));
  bool onTensors = linalgOp.hasPureTensorSemantics();
  auto unitSteps = [&](int64_t rank) {
    return SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1));
  };
  auto zeros = [&](int64_t rank) {
    return SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(0));
  };
  // Copies are plain linalg.copy ops, row-tiled and vectorized like the
  // packing copies (memref.copy of strided views would become calls of the
  // generic runtime copy).
  SmallVector<Operation *> copies;
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<ShapedType>(operand.get().getType());
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> shape;
    for (AffineExpr expr : map.getResults()) {
      auto dimExpr = dyn_cast<AffineDimExpr>(expr);
      if (!dimExpr)
        return failWithReason(reason,
                              "padding needs operands indexed by plain loops");
      shape.push_back(loopSizes[dimExpr.getPosition()]);
    }
    if (shape == type.getShape()) {
      operands.push_back(operand.get());
      continue;
    }
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
    if (onTensors) {
      // Bufferizes to a fresh buffer, a fill and a copy of the operand into
      // it (vectorized row by row after bufferization, see
      // vectorizeSmallCopies).
      auto paddedType = RankedTensorType::get(shape, elementType);
      operands.push_back(tensor::createPadHighOp(paddedType, operand.get(),
                                                 zero, /*nofold=*/false, loc,
                                                 rewriter));
      continue;
    }
    // Freed by the pipeline's buffer deallocation, like packing buffers.
    Value buffer = memref::AllocOp::create(
        rewriter, loc, MemRefType::get(shape, elementType),
        rewriter.getI64IntegerAttr(64));
    linalg::FillOp::create(rewriter, loc, ValueRange{zero}, ValueRange{buffer});
    Value window = memref::SubViewOp::create(rewriter, loc, buffer, zeros(rank),
                                             sizes, unitSteps(rank));
    copies.push_back(
        linalg::CopyOp::create(rewriter, loc, operand.get(), window));
    operands.push_back(buffer);
  }
  Value init = linalgOp.getDpsInits()[0];
  Value paddedInit = operands.back();
  SmallVector<Type> resultTypes;
  if (onTensors)
    resultTypes.push_back(paddedInit.getType());
  Operation *padded = clone(rewriter, op, resultTypes, operands);
  auto initType = cast<ShapedType>(init.getType());
  int64_t rank = initType.getRank();
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), initType.getShape());
  if (onTensors) {
    Value valid = tensor::ExtractSliceOp::create(
        rewriter, loc, padded->getResult(0), zeros(rank), sizes,
        unitSteps(rank));
    rewriter.replaceOp(op, valid);
  } else {
    if (paddedInit != init) {
      Value valid = memref::SubViewOp::create(
          rewriter, loc, paddedInit, zeros(rank), sizes, unitSteps(rank));
      copies.push_back(linalg::CopyOp::create(rewriter, loc, valid, init));
    }
    rewriter.eraseOp(op);
  }
  for (Operation *copy : copies)
    if (failed(tileAndVectorizeCopy(rewriter, copy, !onTensors)))
      return failWithReason(reason, "tiling a padding copy failed");
  return padded;
}

FailureOr<CPUTilingResult> tiletune::applyCPUConfig(RewriterBase &rewriter,
                                                    Operation *op,
                                                    std::string *reason) {
  FailureOr<Operation *> converted = convertLayoutToConfig(rewriter, op, reason);
  if (failed(converted))
    return failure();
  FailureOr<Operation *> padded = padToConfig(rewriter, *converted, reason);
  if (failed(padded))
    return failure();
  op = *padded;
  FailureOr<CPUSchedule> schedule =
      decodeCPUSchedule(op, getConfig(op), reason);
  if (failed(schedule))
    return failure();
  if (failed(checkCPUTilingPreconditions(op, *schedule, reason)))
    return failure();
  FailureOr<CPUTilingResult> result =
      tileAndVectorizeForCPU(rewriter, op, *schedule);
  if (failed(result) && reason)
    *reason = "tiling or vectorization failed";
  return result;
}

unsigned tiletune::vectorizeSmallCopies(Operation *root, int64_t maxElements) {
  MLIRContext *ctx = root->getContext();
  IRRewriter rewriter(ctx);
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
  SmallVector<Operation *> copies;
  root->walk([&](Operation *op) {
    if (isa<memref::CopyOp, linalg::CopyOp, linalg::TransposeOp>(op))
      copies.push_back(op);
  });
  unsigned changed = 0;
  for (Operation *op : copies) {
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      if (copy.getSource() == copy.getTarget()) {
        rewriter.eraseOp(copy);
        ++changed;
        continue;
      }
      auto type = cast<MemRefType>(copy.getSource().getType());
      if (!type.hasStaticShape())
        continue;
      rewriter.setInsertionPoint(copy);
      if (type.getNumElements() <= maxElements) {
        if (succeeded(linalg::vectorizeCopy(rewriter, copy)))
          ++changed;
        continue;
      }
      // A large copy between strided views (e.g. an operand into its padded
      // buffer): one vector copy per row instead of the runtime's generic
      // element-wise copy. Contiguous copies stay (the runtime uses memcpy).
      auto target = cast<MemRefType>(copy.getTarget().getType());
      if (type.getRank() < 2 ||
          (memref::isStaticShapeAndContiguousRowMajor(type) &&
           memref::isStaticShapeAndContiguousRowMajor(target)))
        continue;
      auto rowCopy = linalg::CopyOp::create(rewriter, copy.getLoc(),
                                            copy.getSource(), copy.getTarget());
      rewriter.eraseOp(copy);
      if (succeeded(tileAndVectorizeCopy(rewriter, rowCopy, true)))
        ++changed;
      continue;
    }
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (!linalgOp.hasPureBufferSemantics())
      continue;
    auto type =
        cast<ShapedType>(linalgOp.getDpsInitOperand(0)->get().getType());
    if (!type.hasStaticShape())
      continue;
    // A transpose that moves the innermost dim (e.g. of a layout
    // conversion) goes in vector blocks at any size: one vector.transpose of
    // the whole tensor would be unrolled element by element (a 14x14x16
    // transpose took seconds to compile).
    if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
      if (succeeded(tileAndVectorizeTranspose(rewriter, transpose))) {
        ++changed;
        continue;
      }
    if (type.getNumElements() > maxElements)
      continue;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, op);
    if (failed(vectorized))
      continue;
    replaceTiledOp(rewriter, op, vectorized->replacements);
    ++changed;
  }
  return changed;
}

//===----------------------------------------------------------------------===//
// Post-bufferization allocation hoisting
//===----------------------------------------------------------------------===//

/// Whether `alloc`'s buffer (and its views) stays inside one iteration of
/// `loop`: every user is inside the loop body and none yields or returns it.
static bool staysInsideIteration(Value buffer, Operation *loop) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isProperAncestor(user))
        return false;
      if (user->hasTrait<OpTrait::IsTerminator>())
        return false;
      if (isa<ViewLikeOpInterface>(user) ||
          isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::ReinterpretCastOp, memref::TransposeOp>(user)) {
        for (Value r : user->getResults())
          worklist.push_back(r);
      } else if (isa<memref::StoreOp, vector::TransferWriteOp>(user) &&
                 use.getOperandNumber() == 0) {
        return false; // The buffer itself is stored somewhere.
      }
    }
  }
  return true;
}

unsigned tiletune::hoistStaticAllocsOutOfLoops(Operation *root) {
  SmallVector<memref::AllocOp> allocs;
  root->walk([&](memref::AllocOp alloc) {
    if (alloc.getType().hasStaticShape() && alloc.getDynamicSizes().empty() &&
        alloc.getSymbolOperands().empty())
      allocs.push_back(alloc);
  });
  unsigned moved = 0;
  for (memref::AllocOp alloc : allocs) {
    // Find the outermost scf.for (not crossing forall/parallel/functions)
    // such that the buffer stays inside one of its iterations.
    Operation *target = nullptr;
    for (Operation *parent = alloc->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (!isa<scf::ForOp>(parent))
        break;
      if (!staysInsideIteration(alloc.getResult(), parent))
        break;
      target = parent;
    }
    if (!target)
      continue;
    // Deallocations of the buffer inside the loop move along.
    SmallVector<Operation *> deallocs;
    for (Operation *user : alloc->getUsers())
      if (isa<memref::DeallocOp>(user))
        deallocs.push_back(user);
    alloc->moveBefore(target);
    for (Operation *dealloc : deallocs)
      dealloc->moveAfter(target);
    ++moved;
  }
  return moved;
}
