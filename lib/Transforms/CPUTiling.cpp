//===- CPUTiling.cpp - Config-driven CPU tiling and vectorization ---------===//
//
// Tiles one tunable op by its decoded CPU schedule: scf.forall for the
// parallel level, scf.for loops for the cache level (in the config's order),
// optional packing of the operand tiles, scf.for loops for the register
// level, 1-D decomposition of conv tiles, vectorization, and hoisting of the
// output tile out of the reduction loops. applyCPUConfig runs the whole
// config: op-level rewrites (CPUOpRewrites.cpp), decoding (CPUSchedule.cpp)
// and tiling.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Dialect/Epilogue.h"

#include "TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<scf::SCFTilingResult>
tiletune::tileOneLevel(RewriterBase &rewriter, Operation *op,
                       ArrayRef<OpFoldResult> sizes,
                       scf::SCFTilingOptions::LoopType loopType,
                       ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions options;
  options.setLoopType(loopType);
  options.setTileSizes(sizes);
  if (!interchange.empty())
    options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return failure();
  replaceTiledOp(rewriter, op, tiled->replacements);
  return tiled;
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

/// Whether the definition of `a` comes no later than that of `b`, where one
/// of the two dominates the other: a block argument counts as defined at the
/// start of its block, before every op of the block.
static bool isDefinedNoLaterThan(Value a, Value b) {
  Operation *defB = b.getDefiningOp();
  Block *blockB = defB ? defB->getBlock() : cast<BlockArgument>(b).getOwner();
  Block *blockA = a.getParentBlock();
  if (blockA != blockB)
    // Different blocks: `a` comes first if its block encloses `b`'s.
    return blockA->getParent()->isAncestor(blockB->getParent());
  Operation *defA = a.getDefiningOp();
  if (!defA)
    return true; // A block argument of the block `b` is defined in.
  return defB && (defA == defB || defA->isBeforeInBlock(defB));
}

/// Sets the insertion point after the definitions of both `first` and
/// `second`, one of which dominates the other (defined in an enclosing or
/// the same block). Block arguments count as defined at the start of their
/// block, so a buffer allocated in the function body is never used before
/// its allocation when the other value is a function argument.
static void setInsertionPointAfterDefs(OpBuilder &b, Value first,
                                       Value second) {
  Value later = isDefinedNoLaterThan(first, second) ? second : first;
  setInsertionPointAfterDef(b, later);
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

/// `pack = b` of a conv_2d_nhwc_fhwc (TOSA's form): transposes the
/// cache-level FHWC filter tile into an HWCF buffer and replaces the op with
/// the conv_2d_nhwc_hwcf that reads it, so the register tile finds its
/// filters on the vector lanes. The copy sits where the filter tile last
/// changes (its slice was hoisted), so each tile is transposed once per
/// cache step instead of the whole filter on every call. Returns the
/// transpose and the new op.
static FailureOr<std::pair<linalg::TransposeOp, Operation *>>
packFilterToHwcf(RewriterBase &rewriter, linalg::Conv2DNhwcFhwcOp conv,
                 Operation *bufferAnchor) {
  Value source = conv.getInputs()[1];
  auto shaped = cast<ShapedType>(source.getType());
  if (!shaped.hasStaticShape())
    return failure();
  SmallVector<int64_t> hwcf;
  for (int64_t dim : kFhwcToHwcf)
    hwcf.push_back(shaped.getDimSize(dim));
  Location loc = conv.getLoc();
  Value packed;
  linalg::TransposeOp transpose;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    if (isa<RankedTensorType>(shaped)) {
      setInsertionPointAfterDef(rewriter, source);
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, hwcf, shaped.getElementType());
      transpose = linalg::TransposeOp::create(rewriter, loc, source, empty,
                                              kFhwcToHwcf);
      packed = transpose->getResult(0);
    } else {
      Value buffer = createScopedBuffer(
          rewriter, bufferAnchor,
          MemRefType::get(hwcf, shaped.getElementType()));
      setInsertionPointAfterDefs(rewriter, source, buffer);
      transpose = linalg::TransposeOp::create(rewriter, loc, source, buffer,
                                              kFhwcToHwcf);
      packed = buffer;
    }
  }
  Operation *nhwc = replaceWithHwcfConv(rewriter, conv, packed);
  return std::make_pair(transpose, nhwc);
}

/// Packs the B operand of a matmul-like cache-level op into column panels
/// `[b?][Nc/rn][Kc][rn]`. A transposed B (`[b?][Nc][Kc]`) is packed into the
/// same panels: the packing copy reads through the transpose, so the
/// register tile reads rows of rn contiguous elements either way.
static FailureOr<std::pair<Operation *, PanelPack>>
packPanels(RewriterBase &rewriter, Value source, Location loc, int64_t rn,
           bool batched, bool transposedB, Operation *bufferAnchor) {
  auto shaped = cast<ShapedType>(source.getType());
  ArrayRef<int64_t> shape = shaped.getShape(); // [b?][Kc][Nc] or [b?][Nc][Kc]
  unsigned kPos = batched ? 1 : 0;
  int64_t kc = shape[transposedB ? kPos + 1 : kPos];
  int64_t nc = shape[transposedB ? kPos : kPos + 1];
  if (rn <= 0 || nc % rn != 0)
    return failure();
  Type elementType = shaped.getElementType();

  // Expanded source [b?][Kc][Nc/rn][rn] (transposed: [b?][Nc/rn][rn][Kc])
  // and packed [b?][Nc/rn][Kc][rn].
  SmallVector<int64_t> expandedShape, packedShape, perm;
  SmallVector<ReassociationIndices> reassoc;
  if (batched) {
    packedShape = {shape[0], nc / rn, kc, rn};
    if (transposedB) {
      expandedShape = {shape[0], nc / rn, rn, kc};
      perm = {0, 1, 3, 2};
      reassoc = {{0}, {1, 2}, {3}};
    } else {
      expandedShape = {shape[0], kc, nc / rn, rn};
      perm = {0, 2, 1, 3};
      reassoc = {{0}, {1}, {2, 3}};
    }
  } else {
    packedShape = {nc / rn, kc, rn};
    if (transposedB) {
      expandedShape = {nc / rn, rn, kc};
      perm = {0, 2, 1};
      reassoc = {{0, 1}, {2}};
    } else {
      expandedShape = {kc, nc / rn, rn};
      perm = {1, 0, 2};
      reassoc = {{0}, {1, 2}};
    }
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

/// The indexing map of an untransposed B: (b?, m, n, k) -> (b?, k, n).
static AffineMap getPlainBMap(MLIRContext *ctx, bool batched) {
  unsigned b = batched ? 1 : 0;
  SmallVector<AffineExpr> exprs;
  if (batched)
    exprs.push_back(getAffineDimExpr(0, ctx));
  exprs.push_back(getAffineDimExpr(b + 2, ctx));
  exprs.push_back(getAffineDimExpr(b + 1, ctx));
  return AffineMap::get(b + 3, 0, exprs, ctx);
}

/// Makes the register-level op `op` read its B tile from the panels. A
/// transposed B tile ([b?][nu][ku]) is replaced by its panel slice
/// ([b?][ku][rn]) and the op's B indexing map by the untransposed one.
static LogicalResult usePanels(RewriterBase &rewriter, linalg::LinalgOp op,
                               const PanelPack &pack, bool batched,
                               bool transposedB) {
  OpOperand &operand = op->getOpOperand(1);
  Value current = operand.get();
  unsigned kPos = batched ? 1 : 0;
  unsigned kDim = transposedB ? kPos + 1 : kPos;
  unsigned nDim = transposedB ? kPos : kPos + 1;
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
  // A remainder register tile (nu < rn) reads the first nu columns of its
  // panel: register tiles start at multiples of rn.
  int64_t ku = tileType.getShape()[kDim];
  int64_t nu = tileType.getShape()[nDim];
  if (ShapedType::isDynamic(nu) || nu > pack.rn)
    return failure();

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  OpFoldResult panel = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(pack.rn), {offsets[nDim]});
  SmallVector<OpFoldResult> newOffsets, newSizes, newStrides;
  SmallVector<int64_t> panelShape; // [b?][ku][rn]
  if (batched) {
    newOffsets = {offsets[0], panel, offsets[kDim], rewriter.getIndexAttr(0)};
    newSizes = {rewriter.getIndexAttr(tileType.getShape()[0]),
                rewriter.getIndexAttr(1), rewriter.getIndexAttr(ku),
                rewriter.getIndexAttr(nu)};
    panelShape = {tileType.getShape()[0], ku, nu};
  } else {
    newOffsets = {panel, offsets[kDim], rewriter.getIndexAttr(0)};
    newSizes = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(ku),
                rewriter.getIndexAttr(nu)};
    panelShape = {ku, nu};
  }
  newStrides.assign(newOffsets.size(), rewriter.getIndexAttr(1));
  Value replacement;
  if (isa<RankedTensorType>(tileType)) {
    auto type = RankedTensorType::get(panelShape, tileType.getElementType());
    replacement = tensor::ExtractSliceOp::create(
        rewriter, loc, type, pack.packed, newOffsets, newSizes, newStrides);
  } else {
    auto packedType = cast<MemRefType>(pack.packed.getType());
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        panelShape, packedType, newOffsets, newSizes, newStrides);
    replacement = memref::SubViewOp::create(rewriter, loc, type, pack.packed,
                                            newOffsets, newSizes, newStrides);
  }
  rewriter.modifyOpInPlace(op, [&] {
    operand.set(replacement);
    if (transposedB) {
      SmallVector<Attribute> maps;
      for (AffineMap map : op.getIndexingMapsArray())
        maps.push_back(AffineMapAttr::get(map));
      maps[1] = AffineMapAttr::get(getPlainBMap(op->getContext(), batched));
      op->setAttr("indexing_maps", rewriter.getArrayAttr(maps));
    }
  });
  if (Operation *old = current.getDefiningOp(); old && old->use_empty())
    rewriter.eraseOp(old);
  return success();
}

//===----------------------------------------------------------------------===//
// Zero-padding taps (tensors)
//===----------------------------------------------------------------------===//

namespace {
/// Where a conv's input tile comes from: the zero-padded tensor of a
/// `tensor.pad` and the tile's offsets in it.
struct PaddedInputTile {
  tensor::PadOp pad;
  /// Offsets of the tile in the padded tensor, per input dim.
  SmallVector<OpFoldResult> offsets;
};
} // namespace

/// Follows `input` (a conv's input operand on tensors) through unit-stride
/// `tensor.extract_slice`s and packing copies up to a `tensor.pad` whose
/// padding value is the constant +0.0 and whose pads and source are static;
/// returns it with the composed offsets, or nothing.
static std::optional<PaddedInputTile>
tracePaddedInput(OpBuilder &b, Location loc, Value input) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return std::nullopt;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  while (true) {
    if (auto slice = input.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (slice.getSourceType().getRank() != type.getRank() ||
          !llvm::all_of(slice.getMixedStrides(), isOneInteger))
        return std::nullopt;
      for (auto [offset, outer] : llvm::zip(offsets, slice.getMixedOffsets()))
        offset = affine::makeComposedFoldedAffineApply(
            b, loc, b.getAffineSymbolExpr(0) + b.getAffineSymbolExpr(1),
            {offset, outer});
      input = slice.getSource();
      continue;
    }
    if (auto copy = input.getDefiningOp<linalg::CopyOp>()) {
      input = copy.getInputs()[0];
      continue;
    }
    break;
  }
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad || !matchZeroPad(pad.getOperation()))
    return std::nullopt;
  return PaddedInputTile{pad, std::move(offsets)};
}

namespace {
/// What boundTapsToImage needs of a cache-level conv, taken before register
/// tiling replaces it.
struct ConvTileShape {
  linalg::ConvolutionDimensions dims;
  SmallVector<int64_t> loopRanges;
  AffineMap inputMap;

  static std::optional<ConvTileShape> get(linalg::LinalgOp op) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(op);
    if (failed(dims) || dims->filterLoop.size() != dims->outputImage.size())
      return std::nullopt;
    return ConvTileShape{*dims, op.getStaticLoopRanges(),
                         op.getMatchingIndexingMap(op.getDpsInputOperand(0))};
  }
};
} // namespace

/// The dim of the conv's input that output dim `outDim` and filter dim
/// `filterDim` index together (outDim * s + filterDim * d).
static std::optional<unsigned>
getWindowInputDim(AffineMap inputMap, unsigned outDim, unsigned filterDim) {
  std::optional<unsigned> inputDim;
  for (auto [pos, expr] : llvm::enumerate(inputMap.getResults()))
    if (expr.isFunctionOfDim(outDim) && expr.isFunctionOfDim(filterDim))
      inputDim = pos;
  return inputDim;
}

/// Traces `cacheInput` to its zero `tensor.pad` into `padded` where not
/// done yet, its offsets built before the register loops `loops` (they
/// are defined before the cache-level op was tiled, so they dominate every
/// register loop). False where the input is no such pad.
static bool tracePaddedInputOnce(RewriterBase &rewriter, Location loc,
                                 Value cacheInput,
                                 ArrayRef<LoopLikeOpInterface> loops,
                                 std::optional<PaddedInputTile> &padded) {
  if (padded)
    return true;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loops.front());
  padded = tracePaddedInput(rewriter, loc, cacheInput);
  return padded.has_value();
}

/// Where the register tiles hold no filter loop of output dim `i` (the
/// cache tile takes one tap, or all of them at once), bounds the register
/// loop over that output dim instead to the tiles of which some row
/// (column) reads inside the image for some tap of the cache tile:
///   lb = max(0, floor(ceil((low - in - (K - 1) d) / s) / R) R)
///   ub = min(O, ceil(ceil((low + H - in) / s) / R) R)
/// with R the loop's step (the register tile's rows) and O its extent (the
/// cache tile's rows). Only where the loop runs the register tile alone
/// (no epilogue by the register tile, no peeled remainders): a skipped tile
/// would only have added products with zero to its output.
static void boundOutputLoop(RewriterBase &rewriter,
                            const ConvTileShape &cacheOp, Value cacheInput,
                            ArrayRef<int64_t> registerRanges,
                            ArrayRef<scf::ForOp> loopOfDim,
                            ArrayRef<LoopLikeOpInterface> loops, unsigned i,
                            std::optional<PaddedInputTile> &padded) {
  const linalg::ConvolutionDimensions &dims = cacheOp.dims;
  unsigned outDim = dims.outputImage[i], filterDim = dims.filterLoop[i];
  scf::ForOp outLoop = loopOfDim[outDim];
  ArrayRef<int64_t> cacheRanges = cacheOp.loopRanges;
  if (!outLoop || ShapedType::isDynamic(cacheRanges[outDim]) ||
      ShapedType::isDynamic(cacheRanges[filterDim]) ||
      ShapedType::isDynamic(registerRanges[outDim]))
    return;
  int64_t rows = registerRanges[outDim], extent = cacheRanges[outDim];
  if (!isConstantIntValue(outLoop.getStep(), rows) ||
      !isConstantIntValue(outLoop.getLowerBound(), 0) ||
      !isConstantIntValue(outLoop.getUpperBound(), extent) ||
      extent % rows != 0)
    return;
  std::optional<unsigned> inputDim =
      getWindowInputDim(cacheOp.inputMap, outDim, filterDim);
  if (!inputDim)
    return;
  Location loc = outLoop.getLoc();
  if (!tracePaddedInputOnce(rewriter, loc, cacheInput, loops, padded))
    return;
  int64_t low = padded->pad.getStaticLow()[*inputDim];
  int64_t imageSize = padded->pad.getSourceType().getDimSize(*inputDim);
  int64_t stride = dims.strides[i], dilation = dims.dilations[i];
  int64_t taps = cacheRanges[filterDim];
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr in = rewriter.getAffineSymbolExpr(0);
  rewriter.setInsertionPoint(outLoop);
  OpFoldResult lb = affine::makeComposedFoldedAffineMax(
      rewriter, loc,
      AffineMap::get(
          0, 1,
          {getAffineConstantExpr(0, ctx),
           (low - in - (taps - 1) * dilation).ceilDiv(stride).floorDiv(rows) *
               rows},
          ctx),
      {padded->offsets[*inputDim]});
  OpFoldResult ub = affine::makeComposedFoldedAffineMin(
      rewriter, loc,
      AffineMap::get(
          0, 1,
          {getAffineConstantExpr(extent, ctx),
           (low + imageSize - in).ceilDiv(stride).ceilDiv(rows) * rows},
          ctx),
      {padded->offsets[*inputDim]});
  if (isConstantIntValue(lb, 0) && isConstantIntValue(ub, extent))
    return;
  Value lbValue = getValueOrCreateConstantIndexOp(rewriter, loc, lb);
  Value ubValue = getValueOrCreateConstantIndexOp(rewriter, loc, ub);
  // The loop keeps its static bounds (the pack's prefetches of its next
  // tile are spread over loops with static trip counts, and bounded ones
  // measured slower for that: b1 7x7 3x3 512, 1 thread, cold filter
  // 1.26 -> 1.50 ms); its body runs under an scf.if instead.
  Block *body = outLoop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  rewriter.setInsertionPointToStart(body);
  Value iv = outLoop.getInductionVar();
  Value inImage = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, iv,
                            lbValue),
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, iv,
                            ubValue));
  auto ifOp = scf::IfOp::create(rewriter, loc, outLoop.getResultTypes(),
                                inImage, /*withElseRegion=*/true);
  // The body's ops (after the condition) into the then-block, yielding what
  // the body yielded; the else-block passes the iteration's values on.
  Block *thenBlock = ifOp.thenBlock();
  Operation *firstMoved = ifOp->getNextNode();
  while (firstMoved != yield.getOperation()) {
    Operation *next = firstMoved->getNextNode();
    rewriter.moveOpBefore(firstMoved, thenBlock, thenBlock->end());
    firstMoved = next;
  }
  rewriter.setInsertionPointToEnd(thenBlock);
  scf::YieldOp::create(rewriter, loc, yield.getOperands());
  rewriter.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(rewriter, loc, outLoop.getRegionIterArgs());
  rewriter.modifyOpInPlace(yield,
                           [&] { yield->setOperands(ifOp.getResults()); });
}

/// Skips the multiply-adds of a conv's register tiles on the zero padding
/// of its input. `cacheOp` describes the cache-level conv before register
/// tiling (it reads `cacheInput`), `registerOp` is its register tile and
/// `loops` the register-level loops (one per dim of nonzero `sizes`). Where the
/// input is a zero `tensor.pad` (as frontends emit padded convs) and a filter
/// loop (kh, kw) runs at the register level, its bounds become the taps for
/// which some row (column) of the register tile reads inside the unpadded
/// image:
///   lb = max(0, ceil((low - in - (o + R - 1) s) / d))
///   ub = min(K, ceil((low + H - in - o s) / d))
/// with `in` the cache tile's input offset in the padded tensor, `o` the
/// register tile's output offset in the cache tile, R its output extent, K
/// the cache tile's filter extent, s/d the stride and dilation, `low` and H
/// the pad and the unpadded size. The taps skipped add products with zero
/// (b1 7x7 3x3 convs: 18 % of the multiply-adds). Where no filter loop of a
/// dim runs at the register level (the taps are cache-level loops, or all in
/// each register tile) and `boundOutputLoops`, the register tiles of that
/// dim's output rows (columns) that read only padding are skipped instead
/// (boundOutputLoop).
static void boundTapsToImage(RewriterBase &rewriter,
                             const ConvTileShape &cacheOp, Value cacheInput,
                             linalg::LinalgOp registerOp,
                             ArrayRef<OpFoldResult> sizes,
                             ArrayRef<LoopLikeOpInterface> loops,
                             bool boundOutputLoops) {
  const linalg::ConvolutionDimensions *dims = &cacheOp.dims;
  // The register-level loop of each dim.
  SmallVector<scf::ForOp> loopOfDim(sizes.size());
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    if (isZeroInteger(size))
      continue;
    size_t index =
        llvm::count_if(ArrayRef(sizes).take_front(dim),
                       [](OpFoldResult s) { return !isZeroInteger(s); });
    if (index >= loops.size())
      return;
    loopOfDim[dim] = dyn_cast<scf::ForOp>(*loops[index]);
  }
  ArrayRef<int64_t> cacheRanges = cacheOp.loopRanges;
  SmallVector<int64_t> registerRanges = registerOp.getStaticLoopRanges();
  std::optional<PaddedInputTile> padded;
  for (auto [i, outDim] : llvm::enumerate(dims->outputImage)) {
    unsigned filterDim = dims->filterLoop[i];
    scf::ForOp filterLoop = loopOfDim[filterDim];
    if (!filterLoop && boundOutputLoops) {
      boundOutputLoop(rewriter, cacheOp, cacheInput, registerRanges, loopOfDim,
                      loops, i, padded);
      continue;
    }
    if (!filterLoop || !isConstantIntValue(filterLoop.getStep(), 1) ||
        !isConstantIntValue(filterLoop.getLowerBound(), 0) ||
        ShapedType::isDynamic(cacheRanges[filterDim]) ||
        !isConstantIntValue(filterLoop.getUpperBound(),
                            cacheRanges[filterDim]) ||
        ShapedType::isDynamic(registerRanges[outDim]))
      continue;
    std::optional<unsigned> inputDim =
        getWindowInputDim(cacheOp.inputMap, outDim, filterDim);
    if (!inputDim)
      continue;
    Location loc = filterLoop.getLoc();
    rewriter.setInsertionPoint(filterLoop);
    if (!tracePaddedInputOnce(rewriter, loc, cacheInput, loops, padded))
      return;
    int64_t low = padded->pad.getStaticLow()[*inputDim];
    int64_t extent = padded->pad.getSourceType().getDimSize(*inputDim);
    int64_t stride = dims->strides[i], dilation = dims->dilations[i];
    int64_t rows = registerRanges[outDim];
    OpFoldResult outOffset = rewriter.getIndexAttr(0);
    if (scf::ForOp outLoop = loopOfDim[outDim])
      outOffset = outLoop.getInductionVar();
    AffineExpr in = rewriter.getAffineSymbolExpr(0);
    AffineExpr out = rewriter.getAffineSymbolExpr(1);
    SmallVector<OpFoldResult> operands{padded->offsets[*inputDim], outOffset};
    MLIRContext *ctx = rewriter.getContext();
    OpFoldResult lb = affine::makeComposedFoldedAffineMax(
        rewriter, loc,
        AffineMap::get(
            0, 2,
            {getAffineConstantExpr(0, ctx),
             (low - in - (out + rows - 1) * stride).ceilDiv(dilation)},
            ctx),
        operands);
    OpFoldResult ub = affine::makeComposedFoldedAffineMin(
        rewriter, loc,
        AffineMap::get(0, 2,
                       {getAffineConstantExpr(cacheRanges[filterDim], ctx),
                        (low + extent - in - out * stride).ceilDiv(dilation)},
                       ctx),
        operands);
    // Nothing to skip where both bounds fold to the full range.
    if (isConstantIntValue(lb, 0) &&
        isConstantIntValue(ub, cacheRanges[filterDim]))
      continue;
    rewriter.modifyOpInPlace(filterLoop, [&] {
      filterLoop.setLowerBound(
          getValueOrCreateConstantIndexOp(rewriter, loc, lb));
      filterLoop.setUpperBound(
          getValueOrCreateConstantIndexOp(rewriter, loc, ub));
    });
  }
}

//===----------------------------------------------------------------------===//
// Conv decomposition (tensors and buffers)
//===----------------------------------------------------------------------===//

Value tiletune::dropUnitDim(OpBuilder &b, Location loc, Value value,
                           int64_t dim) {
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
    FailureOr<scf::SCFTilingResult> tiled = tileOneLevel(
        rewriter, conv, getAsIndexOpFoldResult(conv->getContext(), tiles));
    if (failed(tiled) || tiled->loops.size() != 1)
      return failure();
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

namespace {
/// Forwards a vector written to a tensor to a read of the same elements
/// through a vector of another rank: a read whose shape, like the write's,
/// is the region's shape up to unit dims (the accumulators of an epilogue
/// fused by the register tile start from its init vector, which is written
/// with the output's rank and read with the contraction's). Both transfers
/// are in bounds, unmasked, with minor identity maps, at the same indices.
struct ForwardWriteToReshapedRead
    : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto write = read.getBase().getDefiningOp<vector::TransferWriteOp>();
    if (!write || !isa<RankedTensorType>(read.getBase().getType()))
      return failure();
    VectorType readType = read.getVectorType();
    VectorType writeType = write.getVectorType();
    if (readType == writeType || read.getMask() || write.getMask() ||
        readType.getElementType() != writeType.getElementType() ||
        readType.getNumElements() != writeType.getNumElements() ||
        !read.getPermutationMap().isMinorIdentity() ||
        !write.getPermutationMap().isMinorIdentity() ||
        llvm::is_contained(read.getInBoundsValues(), false) ||
        llvm::is_contained(write.getInBoundsValues(), false) ||
        read.getIndices().size() != write.getIndices().size())
      return failure();
    for (auto [a, b] : llvm::zip(read.getIndices(), write.getIndices())) {
      std::optional<int64_t> ca = getConstantIntValue(a);
      std::optional<int64_t> cb = getConstantIntValue(b);
      if (a != b && (!ca || !cb || *ca != *cb))
        return failure();
    }
    // Both shapes over the tensor's innermost dims, leading dims 1.
    int64_t rank = read.getIndices().size();
    auto padded = [&](VectorType type) {
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      return shape;
    };
    if (padded(readType) != padded(writeType))
      return failure();
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(read, readType,
                                                     write.getVector());
    return success();
  }
};
} // namespace

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
  patterns.add<ForwardWriteToReshapedRead>(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(root, std::move(patterns));
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

/// The number of lanes a register tile of `columns` output columns computes
/// with: rounded up to a power of two, or to a multiple of 8 when that is
/// smaller, so that the vectors split into whole x86 registers of 4, 8 or
/// 16 f32 (a 31-wide vector would be split into 16 + 8 + 4 + 2 + 1).
static int64_t getWidenedColumns(int64_t columns) {
  return std::min<int64_t>(llvm::PowerOf2Ceil(columns),
                           llvm::alignTo(columns, 8));
}

/// Vectorizes the matmul-like register tile `op` (static shape). Where its
/// output columns (n, the output's innermost dim) are not a whole number of
/// vectors (getWidenedColumns), e.g. the remainder tile of a peeled n loop,
/// the contraction is built on vectors widened along n: the reads of the
/// operands indexed by n and the write of the output go out of bounds (the
/// lanes past the tile's edge read zeros and are not written, as masked
/// loads and stores), so it is the same FMA sequence as a full tile of that
/// width, whose extra lanes are zero products that nothing stores.
static LogicalResult vectorizeRegisterTile(RewriterBase &rewriter,
                                           Operation *op, bool matmulLike) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!matmulLike || !linalgOp.hasPureTensorSemantics() ||
      !linalg::isaContractionOpInterface(linalgOp) ||
      linalgOp.getNumDpsInputs() != 2 ||
      !llvm::all_of(linalgOp.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return vectorizeAndReplace(rewriter, op);
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  AffineMap outMap =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  auto nDim = outMap.getNumResults() > 0
                  ? dyn_cast<AffineDimExpr>(outMap.getResults().back())
                  : nullptr;
  Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
  if (!nDim || ShapedType::isDynamicShape(ranges) ||
      llvm::any_of(op->getOperandTypes(), [&](Type t) {
        return getElementTypeOrSelf(t) != elementType;
      }))
    return vectorizeAndReplace(rewriter, op);
  int64_t columns = ranges[nDim.getPosition()];
  int64_t widened = getWidenedColumns(columns);
  if (widened == columns)
    return vectorizeAndReplace(rewriter, op);
  SmallVector<int64_t> vectorSizes(ranges);
  vectorSizes[nDim.getPosition()] = widened;

  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = arith::ConstantOp::create(
      rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elementType)));
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Each operand read whole in its own layout, widened along n.
  auto read = [&](OpOperand &operand) -> vector::TransferReadOp {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    auto type = cast<RankedTensorType>(operand.get().getType());
    SmallVector<int64_t> shape;
    SmallVector<bool> inBounds;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      int64_t size = vectorSizes[cast<AffineDimExpr>(expr).getPosition()];
      shape.push_back(size);
      inBounds.push_back(size == type.getDimSize(i));
    }
    SmallVector<Value> indices(type.getRank(), c0);
    return vector::TransferReadOp::create(
        rewriter, loc, VectorType::get(shape, elementType), operand.get(),
        indices, zero, inBounds);
  };
  Value lhs = read(*linalgOp.getDpsInputOperand(0));
  Value rhs = read(*linalgOp.getDpsInputOperand(1));
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  vector::TransferReadOp acc = read(*init);
  SmallVector<Attribute> iterators;
  for (utils::IteratorType it : linalgOp.getIteratorTypesArray())
    iterators.push_back(vector::IteratorTypeAttr::get(
        rewriter.getContext(), it == utils::IteratorType::parallel
                                   ? vector::IteratorType::parallel
                                   : vector::IteratorType::reduction));
  Value contract = vector::ContractionOp::create(
      rewriter, loc, lhs, rhs, acc.getResult(),
      rewriter.getAffineMapArrayAttr(linalgOp.getIndexingMapsArray()),
      rewriter.getArrayAttr(iterators));
  SmallVector<Value> indices(acc.getIndices().begin(), acc.getIndices().end());
  Value written =
      vector::TransferWriteOp::create(rewriter, loc, contract, init->get(),
                                      indices, acc.getInBoundsValues())
          .getResult();
  rewriter.replaceOp(op, written);
  return success();
}

//===----------------------------------------------------------------------===//
// Padded cache tiles
//===----------------------------------------------------------------------===//

/// Elements per vector operation of the padding copies: at most
/// kPadCopyChunk (a few vector registers on any x86 target; whole rows of a
/// large tile as one vector would be split element by element by LLVM).
static constexpr int64_t kPadCopyChunk = 64;

/// A zero-padded copy of the tile `source` (same rank, each dim at most that
/// of `shape`, sizes static or not) in a fresh tensor of static `shape`, as
/// vector code: loops over the rows (every dim but the innermost) and over
/// chunks of each row, each chunk read with a mask that covers the part of
/// the row inside `source` (nothing for rows past its extent, so they are
/// written as zeros). Built at `b`'s insertion point.
static Value createPaddedTileCopy(OpBuilder &b, Location loc, Value source,
                                  ArrayRef<int64_t> shape) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type elementType = sourceType.getElementType();
  int64_t rank = shape.size();
  int64_t rowLength = shape.back();
  int64_t chunk = std::min(rowLength, kPadCopyChunk);
  auto vectorType = VectorType::get({chunk}, elementType);
  auto maskType = VectorType::get({chunk}, b.getI1Type());
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(elementType)));
  // The leading dims where the source may be shorter than the tile, and the
  // source's row length.
  SmallVector<int64_t> checkedDims;
  SmallVector<Value> extents;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (sourceType.getDimSize(d) == shape[d])
      continue;
    checkedDims.push_back(d);
    extents.push_back(tensor::DimOp::create(b, loc, source, d));
  }
  Value sourceRow = tensor::DimOp::create(b, loc, source, rank - 1);
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> lbs(rank, c0), ubs, steps;
  for (int64_t d = 0; d < rank; ++d) {
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, shape[d]));
    steps.push_back(
        arith::ConstantIndexOp::create(b, loc, d + 1 < rank ? 1 : chunk));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{empty},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        // Valid elements of this chunk (create_mask clamps to [0, chunk]).
        Value valid =
            arith::SubIOp::create(nb, nl, sourceRow, ivs.back()).getResult();
        if (!checkedDims.empty()) {
          Value inside;
          for (auto [d, extent] : llvm::zip(checkedDims, extents)) {
            Value lt = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                             ivs[d], extent);
            inside = inside ? arith::AndIOp::create(nb, nl, inside, lt) : lt;
          }
          valid = arith::SelectOp::create(nb, nl, inside, valid, c0);
        }
        Value mask = vector::CreateMaskOp::create(nb, nl, maskType, valid);
        // Masked-off lanes are not accessed: the read is in bounds.
        auto read = vector::TransferReadOp::create(
            nb, nl, vectorType, source, ivs,
            AffineMapAttr::get(AffineMap::getMinorIdentityMap(
                rank, 1, nb.getContext())),
            zero, mask, nb.getBoolArrayAttr({true}));
        Value written =
            vector::TransferWriteOp::create(
                nb, nl, read.getResult(), args[0], ivs,
                ArrayRef<bool>{rowLength % chunk == 0})
                .getResult();
        return {written};
      });
  return nest.results.front();
}

/// A zero-padded copy of the B tile `source` (`[b?][k][n]`, each dim at most
/// that of the static tile `[b?][kc][nc]`, sizes static or not) written
/// straight into column panels `[b?][nc/rn][kc][rn]`, the layout `pack = b`
/// gives a full tile (packPanels): one copy instead of a padded copy and a
/// panel copy of it. Loops over (batch,) panels and rows; each row of a
/// panel is one vector of `rn` elements read with a mask covering the part
/// inside `source` (zeros past its edge). Requires rn <= kPadCopyChunk and
/// nc % rn == 0. Built at `b`'s insertion point.
static Value createPaddedPanelCopy(OpBuilder &b, Location loc, Value source,
                                   bool batched, int64_t kc, int64_t nc,
                                   int64_t rn) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  Type elementType = sourceType.getElementType();
  unsigned kPos = batched ? 1 : 0;
  SmallVector<int64_t> packedShape;
  if (batched)
    packedShape.push_back(sourceType.getDimSize(0));
  packedShape.append({nc / rn, kc, rn});
  auto vectorType = VectorType::get({rn}, elementType);
  auto maskType = VectorType::get({rn}, b.getI1Type());
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(elementType)));
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value sourceK = tensor::DimOp::create(b, loc, source, kPos);
  Value sourceN = tensor::DimOp::create(b, loc, source, kPos + 1);
  bool checkK = sourceType.getDimSize(kPos) != kc;
  Value empty = tensor::EmptyOp::create(b, loc, packedShape, elementType);
  // Loops (b?, panel, k); the row is one vector.
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : ArrayRef(packedShape).drop_back()) {
    lbs.push_back(c0);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{empty},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        Value panel = ivs[kPos];
        Value k = ivs[kPos + 1];
        Value column = arith::MulIOp::create(
            nb, nl, panel, arith::ConstantIndexOp::create(nb, nl, rn));
        // Valid elements of this row (create_mask clamps to [0, rn]).
        Value valid =
            arith::SubIOp::create(nb, nl, sourceN, column).getResult();
        if (checkK) {
          Value inside = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::slt, k, sourceK);
          valid = arith::SelectOp::create(nb, nl, inside, valid, c0);
        }
        Value mask = vector::CreateMaskOp::create(nb, nl, maskType, valid);
        SmallVector<Value> readIndices;
        if (batched)
          readIndices.push_back(ivs[0]);
        readIndices.append({k, column});
        // Masked-off lanes are not accessed: the read is in bounds.
        auto read = vector::TransferReadOp::create(
            nb, nl, vectorType, source, readIndices,
            AffineMapAttr::get(AffineMap::getMinorIdentityMap(
                readIndices.size(), 1, nb.getContext())),
            zero, mask, nb.getBoolArrayAttr({true}));
        SmallVector<Value> writeIndices(ivs.begin(), ivs.end());
        writeIndices.push_back(c0);
        Value written =
            vector::TransferWriteOp::create(nb, nl, read.getResult(), args[0],
                                            writeIndices, ArrayRef<bool>{true})
                .getResult();
        return {written};
      });
  return nest.results.front();
}

namespace {
/// A cache-level op of a padded schedule.
struct PaddedTile {
  Operation *op = nullptr;
  /// The B panels a partial B tile was packed into, zero-padded to whole
  /// panels (then the op's B operand is a placeholder of the tile's shape
  /// that only usePanels reads through, replacing it by panel slices).
  std::optional<PanelPack> panels;
};
} // namespace

/// Prepares the cache-level op `op` of a padded schedule (on tensors, its
/// tile of static sizes) for the packing and register levels. A full tile
/// runs as for a divisible size. A partial tile (the last tile of a padded
/// loop) runs on its own operands too, its register loops peeled (no zero
/// products but the lanes of a partial vector, no copy of the output
/// tile). Only a packed B (`panelRn` > 0) whose columns are not whole
/// panels of `panelRn` is copied, into panels zero-padded to whole ones
/// (its k rows as they are): an untransposed B straight into them
/// (createPaddedPanelCopy), a transposed one (`transposedB`, [n][k]) padded
/// to whole panels of rows, then packed through the transpose (packPanels).
/// Panels are shared by the cache-level ops that read the same B tile
/// (`panelsOf`). Fails without changes when a tile is not static.
static FailureOr<PaddedTile>
preparePaddedTile(RewriterBase &rewriter, linalg::LinalgOp op, int64_t panelRn,
                  bool transposedB, bool batched,
                  DenseMap<Value, PanelPack> &panelsOf) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1 || llvm::any_of(op->getOperands(), [](Value v) {
        return !cast<RankedTensorType>(v.getType()).hasStaticShape();
      }))
    return failure();
  PaddedTile result;
  result.op = op;
  if (panelRn <= 0)
    return result;
  Value b = op->getOperand(1);
  auto bType = cast<RankedTensorType>(b.getType());
  unsigned kPos = batched ? 1 : 0;
  unsigned nDim = transposedB ? kPos : kPos + 1;
  int64_t kTile = bType.getDimSize(transposedB ? kPos + 1 : kPos);
  int64_t nTile = bType.getDimSize(nDim);
  if (nTile % panelRn == 0)
    return result;
  auto it = panelsOf.find(b);
  if (it == panelsOf.end()) {
    OpBuilder::InsertionGuard guard(rewriter);
    setInsertionPointAfterDef(rewriter, b);
    Location loc = op.getLoc();
    int64_t paddedN = llvm::alignTo(nTile, panelRn);
    PanelPack pack;
    if (transposedB) {
      SmallVector<int64_t> shape(bType.getShape());
      shape[nDim] = paddedN;
      Value padded = createPaddedTileCopy(rewriter, loc, b, shape);
      FailureOr<std::pair<Operation *, PanelPack>> packed =
          packPanels(rewriter, padded, loc, panelRn, batched,
                     /*transposedB=*/true, /*bufferAnchor=*/nullptr);
      if (failed(packed))
        return failure();
      pack = packed->second;
    } else {
      pack.rn = panelRn;
      pack.packed = createPaddedPanelCopy(rewriter, loc, b, batched, kTile,
                                          paddedN, panelRn);
    }
    pack.cacheOperand = tensor::EmptyOp::create(rewriter, loc, bType.getShape(),
                                                bType.getElementType());
    it = panelsOf.try_emplace(b, pack).first;
  }
  result.panels = it->second;
  rewriter.modifyOpInPlace(op,
                           [&] { op->setOperand(1, it->second.cacheOperand); });
  return result;
}

/// Discardable attributes that follow the cache-level op and the loops to
/// peel through peeling (clones keep them); removed before returning.
static constexpr llvm::StringLiteral kCacheTileMarker = "tiletune.cache_tile";
static constexpr llvm::StringLiteral kPeelMarker = "tiletune.peel";
static constexpr llvm::StringLiteral kRegisterTileMarker =
    "tiletune.register_tile";

/// Peels the scf.for loops from `inner`'s parent up to `outer` (outer loops
/// first; peeling one clones the loops inside it into its partial
/// iteration, which are peeled as well) whose step does not divide their
/// range: the main loop runs the full tiles and the last, partial iteration
/// follows it. Then canonicalizes the ops of the peeled loops (only those:
/// an unused packing copy outside them must stay), so that the constant
/// sizes of the tiles become static slice types (with static loop bounds,
/// the partial iteration's sizes become static too).
static void peelLoopsAround(RewriterBase &rewriter, Operation *inner,
                            Operation *outer) {
  MLIRContext *ctx = inner->getContext();
  Operation *afterOuter = outer->getNextNode();
  Block *outerBlock = outer->getBlock();
  for (Operation *parent = inner->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<scf::ForOp>(parent))
      parent->setAttr(kPeelMarker, UnitAttr::get(ctx));
    if (parent == outer)
      break;
  }
  Operation *walkRoot = outer->getParentOp();
  while (true) {
    scf::ForOp next;
    walkRoot->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(kPeelMarker))
        return WalkResult::advance();
      next = loop;
      return WalkResult::interrupt();
    });
    if (!next)
      break;
    rewriter.modifyOpInPlace(next, [&] { next->removeAttr(kPeelMarker); });
    scf::ForOp partial;
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, next, partial);
  }
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  // The peeled loops lie from `outer` (the main loop) up to the op that
  // followed it.
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(outer->getIterator(),
                                        afterOuter ? afterOuter->getIterator()
                                                   : outerBlock->end()))
    op.walk([&](Operation *nested) { ops.push_back(nested); });
  // Folded constants go to the function's region, never outside it (other
  // functions may be tiled at the same time).
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.setScope(
      &outer->getParentWithTrait<OpTrait::IsIsolatedFromAbove>()->getRegion(0));
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// Peels the cache loops around `cacheOp` (from its parent up to
/// `cacheOuter`) whose step does not divide their range (peelLoopsAround),
/// then prepares every cache-level op (preparePaddedTile). Returns them,
/// full tiles first.
static FailureOr<SmallVector<PaddedTile>>
peelCacheTiles(RewriterBase &rewriter, Operation *cacheOp,
               Operation *cacheOuter, int64_t panelRn, bool transposedB,
               bool batched) {
  MLIRContext *ctx = cacheOp->getContext();
  Operation *scope =
      cacheOuter ? cacheOuter->getParentOp() : cacheOp->getParentOp();
  cacheOp->setAttr(kCacheTileMarker, UnitAttr::get(ctx));
  if (cacheOuter) {
    // Only the peeled loops are canonicalized: the unused packing copies of
    // another version of the thread tile (versionThreadTiles) must stay.
    peelLoopsAround(rewriter, cacheOp, cacheOuter);
    // Canonicalization re-creates the slices in place: hoist them again, out
    // of the cache loops (not out of `scope`, e.g. a forall's body).
    SmallVector<Operation *> outerLoops;
    for (Region &region : scope->getRegions())
      for (Block &block : region)
        for (Operation &op : block)
          if (isa<scf::ForOp>(op))
            outerLoops.push_back(&op);
    for (Operation *loop : outerLoops)
      hoistInvariantCode(loop);
  }
  SmallVector<Operation *> ops;
  scope->walk([&](Operation *op) {
    if (op->hasAttr(kCacheTileMarker))
      ops.push_back(op);
  });
  SmallVector<PaddedTile> tiles;
  DenseMap<Value, PanelPack> panelsOf;
  for (Operation *op : ops) {
    rewriter.modifyOpInPlace(op, [&] { op->removeAttr(kCacheTileMarker); });
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return failure();
    FailureOr<PaddedTile> tile = preparePaddedTile(
        rewriter, linalgOp, panelRn, transposedB, batched, panelsOf);
    if (failed(tile))
      return failure();
    tiles.push_back(*tile);
  }
  if (tiles.empty())
    return failure();
  return tiles;
}

/// The versions of a thread tile (versionThreadTiles): per version, the
/// copies of the thread's ops and the thread extents of the tuned op's loops.
namespace {
struct ThreadTileVersions {
  SmallVector<SmallVector<Operation *>> ops;
  SmallVector<SmallVector<int64_t>> extents;
};
} // namespace

/// Splits `ops`, what a thread computes inside the `scf.forall` of a padded
/// schedule `s` (the tuned op `tuned`, with a fused epilogue also the init's
/// producer and the chain, in the order they compute), by the sizes of the
/// thread tile: where a padded loop is split over the threads, the last
/// thread's tile is shorter (its size is dynamic in the forall's body), so
/// the ops become one copy per combination of the possible sizes (the thread
/// tile, or the op's size modulo it), behind `scf.if`s on the sizes, each on
/// operands cast to static types. The other ops iterate over the tuned op's
/// output: `outputLoops` gives the tuned op's loop of each of their loops.
/// Without a loop whose size varies, returns `ops` themselves.
static FailureOr<ThreadTileVersions>
versionThreadTiles(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                   linalg::LinalgOp tuned, ArrayRef<int64_t> outputLoops,
                   const CPUSchedule &s) {
  SmallVector<int64_t> extents(s.loopSizes);
  SmallVector<int64_t> dims;
  for (auto [i, tile] : llvm::enumerate(s.parallelTiles)) {
    if (tile <= 0 || tile >= s.loopSizes[i])
      continue;
    extents[i] = tile;
    if (s.opSizes[i] % tile != 0)
      dims.push_back(i);
  }
  ThreadTileVersions result;
  if (dims.empty()) {
    result.ops.emplace_back(ops);
    result.extents.push_back(extents);
    return result;
  }
  // The ops must be structured ops on tensors whose dynamic operand dims
  // are plain loop dims (their static sizes come from the version's
  // extents), and only the last one's result may be used after them.
  llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
  SmallVector<int64_t> tunedLoops =
      llvm::to_vector(llvm::seq<int64_t>(0, tuned.getNumLoops()));
  auto tunedLoopsOf = [&](Operation *op) -> ArrayRef<int64_t> {
    return op == tuned.getOperation() ? ArrayRef<int64_t>(tunedLoops)
                                      : outputLoops;
  };
  for (Operation *op : ops) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
        op->getNumResults() != 1 || linalgOp.getNumDpsInits() != 1 ||
        tunedLoopsOf(op).size() != linalgOp.getNumLoops())
      return failure();
    if (op != ops.back() && llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !inGroup.contains(user);
        }))
      return failure();
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      for (auto [i, expr] : llvm::enumerate(
               linalgOp.getMatchingIndexingMap(&operand).getResults()))
        if (type.isDynamicDim(i) && !isa<AffineDimExpr>(expr))
          return failure();
    }
  }
  // Where each varying loop's size is read: a dim of a tuned op's operand
  // that is the loop itself, traced to a value that does not come from `ops`
  // (an init made by one of them has the shape of that op's own init).
  DenseMap<int64_t, std::pair<Value, int64_t>> sizeSources;
  for (int64_t loop : dims) {
    for (OpOperand &operand : tuned->getOpOperands()) {
      for (auto [i, expr] : llvm::enumerate(
               tuned.getMatchingIndexingMap(&operand).getResults())) {
        auto dimExpr = dyn_cast<AffineDimExpr>(expr);
        if (!dimExpr || dimExpr.getPosition() != loop ||
            sizeSources.contains(loop))
          continue;
        Value value = operand.get();
        while (auto opResult = dyn_cast<OpResult>(value)) {
          if (!inGroup.contains(opResult.getOwner()))
            break;
          value = cast<DestinationStyleOpInterface>(opResult.getOwner())
                      .getDpsInitOperand(opResult.getResultNumber())
                      ->get();
        }
        sizeSources[loop] = {value, static_cast<int64_t>(i)};
      }
    }
    // Checked before any rewrite, so that a failure leaves the IR as it was.
    if (!sizeSources.contains(loop))
      return failure();
  }
  Operation *last = ops.back();
  Location loc = last->getLoc();
  rewriter.setInsertionPoint(last);
  Type resultType = last->getResult(0).getType();
  std::function<Value(unsigned)> build = [&](unsigned level) -> Value {
    if (level == dims.size()) {
      IRMapping mapping;
      SmallVector<Operation *> copies;
      for (Operation *op : ops) {
        auto linalgOp = cast<linalg::LinalgOp>(op);
        ArrayRef<int64_t> loops = tunedLoopsOf(op);
        SmallVector<Value> operands;
        for (OpOperand &operand : op->getOpOperands()) {
          if (Value mapped = mapping.lookupOrNull(operand.get())) {
            operands.push_back(mapped);
            continue;
          }
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (!type || type.hasStaticShape()) {
            operands.push_back(operand.get());
            continue;
          }
          SmallVector<int64_t> shape(type.getShape());
          for (auto [i, expr] : llvm::enumerate(
                   linalgOp.getMatchingIndexingMap(&operand).getResults()))
            if (type.isDynamicDim(i))
              shape[i] =
                  extents[loops[cast<AffineDimExpr>(expr).getPosition()]];
          operands.push_back(
              tensor::CastOp::create(
                  rewriter, loc,
                  RankedTensorType::get(shape, type.getElementType()),
                  operand.get())
                  .getResult());
        }
        // A structured op on tensors returns the type of its init.
        Operation *copy =
            clone(rewriter, op, TypeRange{operands.back().getType()}, operands);
        mapping.map(op->getResult(0), copy->getResult(0));
        copies.push_back(copy);
      }
      result.ops.push_back(std::move(copies));
      result.extents.push_back(extents);
      Value value = result.ops.back().back()->getResult(0);
      if (value.getType() != resultType)
        value = tensor::CastOp::create(rewriter, loc, resultType, value);
      return value;
    }
    int64_t dim = dims[level];
    int64_t full = s.parallelTiles[dim];
    int64_t rest = s.opSizes[dim] % full;
    auto [source, sourceDim] = sizeSources.lookup(dim);
    Value size = tensor::DimOp::create(rewriter, loc, source, sourceDim);
    Value isFull = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, size,
        arith::ConstantIndexOp::create(rewriter, loc, full));
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{resultType}, isFull,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    for (auto [block, extent] : {std::make_pair(ifOp.thenBlock(), full),
                                 std::make_pair(ifOp.elseBlock(), rest)}) {
      rewriter.setInsertionPointToEnd(block);
      extents[dim] = extent;
      Value value = build(level + 1);
      scf::YieldOp::create(rewriter, loc, value);
    }
    return ifOp.getResult(0);
  };
  Value replacement = build(0);
  rewriter.replaceAllUsesWith(last->getResult(0), replacement);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty())
      rewriter.eraseOp(op);
  return result;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// tileAndVectorizeForCPU once checkCPUTilingPreconditions has held.
static FailureOr<CPUTilingResult>
tileAndVectorizeChecked(RewriterBase &rewriter, Operation *op,
                        const CPUSchedule &s, bool fuseEpilogues,
                        int64_t lineBytes, bool skipPaddingTaps) {
  MLIRContext *ctx = op->getContext();
  auto linalgOp = cast<linalg::LinalgOp>(op);
  bool onTensors = linalgOp.hasPureTensorSemantics();
  bool matmulLike = !isConv(s.kind);
  bool batched = isBatchedMatmul(s.kind);
  std::optional<MatmulForm> form = getMatmulForm(s.kind);
  bool transposedB = form && form->transposeB;
  // Cleanups run inside the op's parent, which the rewrites never replace.
  Operation *root = op->getParentOp();
  CPUTilingResult result;
  result.vectorizeRequested = s.vectorize;

  // The tiled copies must not inherit the config (it describes the whole op).
  rewriter.modifyOpInPlace(op, [&] { eraseConfig(op); });
  Operation *current = op;

  // Epilogue fusion (FuseEpilogues.cpp): the forall and the cache loops
  // outside the first reduction loop tile the chain's last op instead.
  std::optional<EpilogueFusion> epilogue;
  if (fuseEpilogues) {
    epilogue = EpilogueFusion::create(op, &result.epilogueNotFused);
    if (epilogue)
      result.numEpilogueOps = epilogue->getChainLength();
  }

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
    if (!allZero(sizes) && epilogue) {
      if (failed(epilogue->fuse(rewriter, tiles,
                                scf::SCFTilingOptions::LoopType::ForallOp)))
        return failure();
      result.numThreads = s.getParallelTrips();
      current = epilogue->getTunedOp();
    } else if (!allZero(sizes)) {
      FailureOr<scf::SCFTilingResult> tiled =
          tileOneLevel(rewriter, current, sizes,
                       scf::SCFTilingOptions::LoopType::ForallOp);
      if (failed(tiled))
        return failure();
      result.numThreads = s.getParallelTrips();
      current = tiled->tiledOps.back();
    }
  }

  // A padded schedule's thread tiles of dynamic sizes (the last thread's
  // tile of a padded loop is shorter) become one version per combination of
  // sizes, each of static sizes (versionThreadTiles), the fused epilogue
  // with them.
  SmallVector<Operation *> threadOps =
      epilogue ? epilogue->getOps() : SmallVector<Operation *>{current};
  ThreadTileVersions versions;
  versions.ops.push_back(threadOps);
  versions.extents.push_back(threadExtents);
  if (s.isPadded() && onTensors) {
    FailureOr<ThreadTileVersions> versioned = versionThreadTiles(
        rewriter, threadOps, cast<linalg::LinalgOp>(current),
        epilogue ? epilogue->getOutputLoops() : ArrayRef<int64_t>(), s);
    if (failed(versioned))
      return failure();
    versions = std::move(*versioned);
  }

  // The cache-level ops (several after peeling or versioning), with what
  // the packing and register levels need to know of each.
  SmallVector<Operation *> cacheOps;
  SmallVector<std::optional<PanelPack>> paddedPanels;
  SmallVector<Operation *> bufferAnchors;
  // Per cache-level op, the index in `epilogues` of its fused epilogue where
  // the op's tile covers its whole reduction, so that the epilogue is fused
  // by the register tile (step 4); -1 elsewhere.
  SmallVector<int> registerEpilogues;
  // The fused epilogues to vectorize: one per version, or per peeled tile.
  SmallVector<EpilogueFusion> epilogues;
  bool allEpiloguesFound = true;
  for (auto [threadOps, extents] : llvm::zip(versions.ops, versions.extents)) {
    std::optional<EpilogueFusion> versionEpilogue;
    if (epilogue)
      versionEpilogue = epilogue->withOps(threadOps);
    current = versionEpilogue ? versionEpilogue->getTunedOp() : threadOps[0];
    threadExtents = extents;
    // 2. Cache level: scf.for loops in the config's order.
    Operation *cacheOuter = nullptr;
    if (versionEpilogue) {
      // The cache loops before the first reduction loop tile the chain (the
      // output tile is final after the reduction loops inside them). A
      // reduction whose cache tile spans the thread's extent makes no loop
      // (a K = 64 GEMM's k), so the parallel loops after it in the order
      // tile the chain too.
      SmallVector<utils::IteratorType> iterators =
          cast<linalg::LinalgOp>(current).getIteratorTypesArray();
      SmallVector<int64_t> prefixTiles(s.cacheTiles.size(), 0);
      SmallVector<int64_t> prefixOrder;
      for (int64_t loop : s.cacheOrder) {
        if (iterators[loop] == utils::IteratorType::reduction) {
          if (s.cacheTiles[loop] < threadExtents[loop])
            break;
          continue;
        }
        prefixOrder.push_back(loop);
        if (s.cacheTiles[loop] < threadExtents[loop]) {
          prefixTiles[loop] = s.cacheTiles[loop];
          threadExtents[loop] = s.cacheTiles[loop];
        }
      }
      FailureOr<SmallVector<LoopLikeOpInterface>> loops = versionEpilogue->fuse(
          rewriter, prefixTiles, scf::SCFTilingOptions::LoopType::ForOp,
          prefixOrder);
      if (failed(loops))
        return failure();
      if (!loops->empty()) {
        result.numCacheLoops = loops->size();
        cacheOuter = loops->front().getOperation();
        current = versionEpilogue->getTunedOp();
      }
    }
    bool opCacheLoops = false;
    {
      SmallVector<OpFoldResult> sizes =
          relativeTileSizes(ctx, s.cacheTiles, threadExtents);
      if (!allZero(sizes)) {
        opCacheLoops = true;
        FailureOr<scf::SCFTilingResult> tiled =
            tileOneLevel(rewriter, current, sizes,
                         scf::SCFTilingOptions::LoopType::ForOp, s.cacheOrder);
        if (failed(tiled))
          return failure();
        result.numCacheLoops += tiled->loops.size();
        if (!cacheOuter)
          cacheOuter = tiled->loops.front().getOperation();
        current = tiled->tiledOps.back();
      }
    }
    if (versionEpilogue)
      result.epilogueLevels = versionEpilogue->getFusedLevels();
    // Per-thread buffers are allocated around the outermost cache-level op.
    Operation *bufferAnchor = cacheOuter ? cacheOuter : current;

    // Hoist the operand slices to the loop level where they last change, so
    // packing copies run once per distinct tile.
    if (cacheOuter)
      hoistInvariantCode(cacheOuter);

    // Padded loops (`pad`): a padded loop's last tile is partial. Its cache
    // loops are peeled (full tiles keep static sizes and run as they are),
    // and the register loops of each cache-level op are peeled below (the
    // partial tiles run on their own operands, peelCacheTiles).
    if (!s.isPadded()) {
      cacheOps.push_back(current);
      paddedPanels.push_back(std::nullopt);
      bufferAnchors.push_back(bufferAnchor);
      if (versionEpilogue)
        epilogues.push_back(*versionEpilogue);
      // No cache loop of the op's own (all of them tile the chain): its
      // tile's reduction is whole, the chain can take the register tile.
      registerEpilogues.push_back(versionEpilogue && s.vectorize &&
                                          !opCacheLoops
                                      ? static_cast<int>(epilogues.size()) - 1
                                      : -1);
      continue;
    }
    int64_t panelRn = 0;
    if (matmulLike && s.packRhs) {
      int64_t rn = s.registerTiles[getPanelDim(s.kind)];
      if (transposedB || rn <= kPadCopyChunk)
        panelRn = rn;
    }
    // Peeling copies the fused chain into each partial tile (and
    // canonicalization replaces ops): marks find the copies.
    if (versionEpilogue)
      versionEpilogue->markForPeeling();
    Operation *peelScope =
        cacheOuter ? cacheOuter->getParentOp() : current->getParentOp();
    FailureOr<SmallVector<PaddedTile>> tiles = peelCacheTiles(
        rewriter, current, cacheOuter, panelRn, transposedB, batched);
    if (failed(tiles))
      return failure();
    // Copies not found stay scalar linalg ops: correct, only slower (the
    // remark then says the epilogue is not vectorized).
    if (versionEpilogue &&
        failed(versionEpilogue->takePeeledCopies(peelScope, epilogues)))
      allEpiloguesFound = false;
    for (const PaddedTile &tile : *tiles) {
      cacheOps.push_back(tile.op);
      paddedPanels.push_back(tile.panels);
      bufferAnchors.push_back(bufferAnchor);
      registerEpilogues.push_back(-1);
    }
  }

  // 3. Packing and 4. register
  // tiling, per cache-level op (several after peeling).
  SmallVector<Operation *> packCopies;
  // Packing transposes that move the innermost dim (FHWC filter tiles,
  // transposed B tiles into panels): copied in transposed vector blocks.
  llvm::SmallPtrSet<Operation *, 2> blockTransposes;
  SmallVector<Operation *> registerOps;
  // B tiles already packed (shared by several peeled cache-level ops).
  DenseMap<Value, PanelPack> packedB;
  for (auto [cacheOp, paddedPanel, bufferAnchor, registerEpilogue] :
       llvm::zip(cacheOps, paddedPanels, bufferAnchors, registerEpilogues)) {
    current = cacheOp;
    std::optional<PanelPack> panels = paddedPanel;
    if (s.packLhs) {
      FailureOr<Operation *> copy = packPlainCopy(
          rewriter, cast<linalg::LinalgOp>(current), 0, bufferAnchor);
      if (failed(copy))
        return failure();
      packCopies.push_back(*copy);
    }
    if (s.packRhs && !panels) {
      if (matmulLike) {
        Value b = current->getOperand(1);
        if (auto it = packedB.find(b); it != packedB.end()) {
          panels = it->second;
        } else {
          auto packed = packPanels(rewriter, b, current->getLoc(),
                                   s.registerTiles[getPanelDim(s.kind)],
                                   batched, transposedB, bufferAnchor);
          if (failed(packed))
            return failure();
          packCopies.push_back(packed->first);
          if (transposedB)
            blockTransposes.insert(packed->first);
          panels = packed->second;
          packedB.try_emplace(b, *panels);
        }
      } else if (auto fhwc = dyn_cast<linalg::Conv2DNhwcFhwcOp>(current)) {
        auto packed = packFilterToHwcf(rewriter, fhwc, bufferAnchor);
        if (failed(packed))
          return failure();
        packCopies.push_back(packed->first);
        blockTransposes.insert(packed->first);
        current = packed->second;
      } else {
        FailureOr<Operation *> copy = packPlainCopy(
            rewriter, cast<linalg::LinalgOp>(current), 1, bufferAnchor);
        if (failed(copy))
          return failure();
        packCopies.push_back(*copy);
      }
    }

    // 4. Register level: parallel dims by their register tile, k/c by
    // unroll.
    // A padded schedule peels the register loops: the remainder register
    // tiles of a partial cache tile have static, smaller sizes.
    SmallVector<OpFoldResult> sizes =
        relativeTileSizes(ctx, s.registerTiles, s.cacheTiles);
    SmallVector<Operation *> tileOps{current};
    // The cache-level conv and its input, for bounding the register tiles'
    // filter taps to the image (skip-padding-taps).
    std::optional<ConvTileShape> convShape;
    if (!allZero(sizes) && skipPaddingTaps && isConv(s.kind) && onTensors)
      convShape = ConvTileShape::get(cast<linalg::LinalgOp>(current));
    Value cacheInput = current->getOperand(0);
    if (registerEpilogue >= 0 && !allZero(sizes)) {
      // The epilogue by the register tile: its parallel loops tile the
      // chain, with the op and its init fused in; the op's reduction loops
      // run inside them on the accumulators.
      EpilogueFusion &fusion = epilogues[registerEpilogue];
      fusion.setTunedOp(current);
      SmallVector<utils::IteratorType> iterators =
          cast<linalg::LinalgOp>(current).getIteratorTypesArray();
      SmallVector<int64_t> parallelTiles(sizes.size(), 0);
      SmallVector<OpFoldResult> reductionSizes(sizes.size(),
                                               rewriter.getIndexAttr(0));
      for (auto [loop, size] : llvm::enumerate(sizes)) {
        if (iterators[loop] == utils::IteratorType::parallel)
          parallelTiles[loop] = *getConstantIntValue(size);
        else
          reductionSizes[loop] = size;
      }
      FailureOr<SmallVector<LoopLikeOpInterface>> chainLoops =
          fusion.fuseRegisterTile(rewriter, parallelTiles);
      if (failed(chainLoops))
        return failure();
      current = fusion.getTunedOp();
      result.epilogueLevels = fusion.getFusedLevels();
      result.epilogueByRegisterTile = true;
      if (panels && failed(usePanels(rewriter, cast<linalg::LinalgOp>(current),
                                     *panels, batched, transposedB)))
        return failure();
      panels.reset();
      SmallVector<LoopLikeOpInterface> reductionLoops;
      if (!allZero(reductionSizes)) {
        FailureOr<scf::SCFTilingResult> tiled =
            tileOneLevel(rewriter, current, reductionSizes);
        if (failed(tiled))
          return failure();
        reductionLoops = tiled->loops;
        current = tiled->tiledOps.back();
      }
      result.numRegisterLoops = chainLoops->size() + reductionLoops.size();
      tileOps = {current};
      if (convShape) {
        // The register loops in the order of the op's dims, as
        // boundTapsToImage takes them: the chain's loops run over its dims
        // (the op's output dims), the op's own over its reduction dims.
        SmallVector<LoopLikeOpInterface> loops;
        ArrayRef<int64_t> outputLoops = fusion.getOutputLoops();
        auto chainLoop = chainLoops->begin();
        auto reductionLoop = reductionLoops.begin();
        SmallVector<std::optional<LoopLikeOpInterface>> loopOfOpDim(
            sizes.size());
        for (int64_t loop : outputLoops)
          if (parallelTiles[loop] != 0)
            loopOfOpDim[loop] = *chainLoop++;
        for (auto [loop, size] : llvm::enumerate(reductionSizes))
          if (!isZeroInteger(size))
            loopOfOpDim[loop] = *reductionLoop++;
        for (std::optional<LoopLikeOpInterface> loop : loopOfOpDim)
          if (loop)
            loops.push_back(*loop);
        boundTapsToImage(rewriter, *convShape, cacheInput,
                         cast<linalg::LinalgOp>(current), sizes, loops,
                         /*boundOutputLoops=*/false);
      }
    } else if (!allZero(sizes)) {
      FailureOr<scf::SCFTilingResult> tiled =
          tileOneLevel(rewriter, current, sizes);
      if (failed(tiled))
        return failure();
      result.numRegisterLoops = tiled->loops.size();
      current = tiled->tiledOps.back();
      tileOps = {current};
      if (convShape)
        boundTapsToImage(rewriter, *convShape, cacheInput,
                         cast<linalg::LinalgOp>(current), sizes, tiled->loops,
                         /*boundOutputLoops=*/!s.isPadded());
      if (s.isPadded() && !tiled->loops.empty()) {
        Operation *outer = tiled->loops.front().getOperation();
        Operation *scope = outer->getParentOp();
        current->setAttr(kRegisterTileMarker, UnitAttr::get(ctx));
        peelLoopsAround(rewriter, current, outer);
        tileOps.clear();
        scope->walk([&](Operation *op) {
          if (op->hasAttr(kRegisterTileMarker))
            tileOps.push_back(op);
        });
        for (Operation *op : tileOps)
          rewriter.modifyOpInPlace(
              op, [&] { op->removeAttr(kRegisterTileMarker); });
        current = tileOps.back();
      }
    }
    for (Operation *tileOp : tileOps) {
      registerOps.push_back(tileOp);
      if (panels && failed(usePanels(rewriter, cast<linalg::LinalgOp>(tileOp),
                                     *panels, batched, transposedB)))
        return failure();
    }
  }
  result.numPackCopies = packCopies.size();

  // On tensors, hoist the output tile's extract/insert pair out of the
  // register-level reduction loops now: after vectorization, subset folding
  // would otherwise tangle the per-row accesses of conv tiles.
  if (onTensors && result.numRegisterLoops > 0) {
    IRRewriter hoister(ctx);
    hoistVectorTransfersOnTensors(hoister, root);
  }

  // 5. Conv tiles become 1-D convs, one per output row.
  if (isConv(s.kind)) {
    // An FHWC conv was computed as HWCF on its packed filter tiles.
    OpKind rowKind =
        s.kind == OpKind::ConvNhwcFhwc ? OpKind::ConvNhwcHwcf : s.kind;
    // Every register tile: a padded schedule has several (peeled).
    SmallVector<Operation *> rows;
    for (Operation *regOp : registerOps) {
      FailureOr<SmallVector<Operation *>> convs =
          splitConvIntoRows(rewriter, cast<linalg::LinalgOp>(regOp), rowKind);
      if (failed(convs))
        return failure();
      llvm::append_range(rows, *convs);
    }
    registerOps = std::move(rows);
  }

  // Packing copies move whole rows as vectors. Transposing packs (FHWC
  // filter tiles, transposed B into panels) go in transposed vector blocks
  // (on tensors after bufferization: vectorizeSmallCopies): copied row by
  // row, each packed row of a transposed B would gather its elements one by
  // one from rows K apart (a 1-row-per-piece copy of b1 7x7 3x3 512's
  // im2col filter panels cost a third of the conv's time).
  // Each pack is marked to prefetch its next cache step's tile; on tensors
  // a marked copy stays whole until vectorizeSmallCopies tiles it after
  // bufferization: tiled into rows now, each row's innermost moving loop
  // would be its own row loop, and it would prefetch the next row instead.
  for (Operation *copy : packCopies) {
    markPackForPrefetch(copy, lineBytes);
    if (blockTransposes.contains(copy)) {
      if (!onTensors)
        (void)tileAndVectorizeTranspose(rewriter,
                                        cast<linalg::TransposeOp>(copy));
      continue;
    }
    if (onTensors && lineBytes > 0)
      continue;
    if (failed(tileAndVectorizeCopy(rewriter, copy, !onTensors)))
      return failure();
  }

  // 6. Vectorize the register tile and keep the accumulators in registers.
  if (s.vectorize) {
    bool all = true;
    for (Operation *regOp : registerOps)
      if (failed(vectorizeRegisterTile(rewriter, regOp, matmulLike)))
        all = false;
    result.vectorized = all;
  }
  if (epilogue) {
    bool all = s.vectorize && allEpiloguesFound;
    for (EpilogueFusion &fusion : epilogues)
      if (s.vectorize && failed(fusion.vectorize(rewriter, s.registerTiles)))
        all = false;
    result.epilogueVectorized = all;
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

FailureOr<CPUTilingResult>
tiletune::tileAndVectorizeForCPU(RewriterBase &rewriter, Operation *op,
                                 const CPUSchedule &s, bool fuseEpilogues) {
  if (failed(checkCPUTilingPreconditions(op, s)))
    return failure();
  return tileAndVectorizeChecked(rewriter, op, s, fuseEpilogues,
                                 getDefaultTargetCPU().caches.lineBytes,
                                 /*skipPaddingTaps=*/false);
}

FailureOr<CPUTilingResult>
tiletune::applyCPUConfig(RewriterBase &rewriter, Operation *op,
                         CPUConfigError *error, bool fuseEpilogues,
                         const CPUDescription *target, bool skipPaddingTaps) {
  std::string reason;
  // Fails with `reason` at `current`, the op that still carries the config.
  auto fail = [&](Operation *current) -> FailureOr<CPUTilingResult> {
    if (error) {
      error->op = current;
      error->reason = std::move(reason);
      error->tilingFailed = false;
    }
    return failure();
  };
  // Op-level rewrites of the config first (each returns the op to tile).
  FailureOr<Operation *> named = specializeGenericToConfig(rewriter, op, &reason);
  if (failed(named))
    return fail(op);
  // Whether the op had an epilogue before the rewrites that may put a
  // transpose or a slice between the op and its consumers.
  bool hadEpilogue = fuseEpilogues && isa<linalg::LinalgOp>(*named) &&
                     cast<linalg::LinalgOp>(*named).hasPureTensorSemantics() &&
                     succeeded(findEpilogueChain(*named, /*reason=*/nullptr));
  bool grouped =
      isa<linalg::Conv2DNgchwFgchwOp, linalg::Conv2DNhwgcGfhwcOp>(*named);
  FailureOr<Operation *> converted =
      convertLayoutToConfig(rewriter, *named, &reason);
  if (failed(converted))
    return fail(*named);
  FailureOr<Operation *> gemm =
      convertConvToIm2col(rewriter, *converted, &reason);
  if (failed(gemm))
    return fail(*converted);
  FailureOr<Operation *> padded = padToConfig(rewriter, *gemm, &reason);
  if (failed(padded))
    return fail(*gemm);
  op = *padded;
  // The schedule is decoded from this op, so its kind matches: only the
  // loops are checked (one matchTunableOp per op, in the decoder).
  FailureOr<CPUSchedule> schedule =
      decodeCPUSchedule(op, getConfig(op), &reason);
  if (failed(schedule) || failed(checkScheduleFitsOp(op, *schedule, &reason)))
    return fail(op);
  rewriter.setInsertionPoint(op);
  std::optional<CPUDescription> processDefault;
  if (!target)
    target = &processDefault.emplace(getDefaultTargetCPU());
  if (schedule->dnmm) {
    int64_t bits =
        getElementTypeOrSelf(op->getOperand(0).getType()).getIntOrFloatBitWidth();
    int64_t lanes = target->getLanes(std::max<int64_t>(bits / 8, 1));
    FailureOr<CPUTilingResult> result =
        generateDnmmForCPU(rewriter, op, *schedule, lanes, &reason);
    if (failed(result))
      return fail(op);
    if (hadEpilogue)
      result->epilogueNotFused = "compute dnmm332 (pack = dn) adds to the "
                                 "output tile after each k chunk: the "
                                 "epilogue runs after the op";
    return result;
  }
  FailureOr<CPUTilingResult> result =
      tileAndVectorizeChecked(rewriter, op, *schedule, fuseEpilogues,
                              target->caches.lineBytes, skipPaddingTaps);
  if (succeeded(result) && hadEpilogue && result->numEpilogueOps == 0) {
    if (*gemm != *converted)
      result->epilogueNotFused = "the config computes the conv as an im2col "
                                 "GEMM ('im2col'): a reshape sits between the "
                                 "GEMM and the epilogue";
    else if (grouped)
      result->epilogueNotFused = "the op is a grouped convolution, computed "
                                 "group by group: the epilogue runs after "
                                 "the group loop";
    else if (*converted != *named)
      result->epilogueNotFused = "the config's layout rewrite puts a "
                                 "transpose between the op and the epilogue";
  }
  if (failed(result) && error) {
    error->op = nullptr;
    error->reason = "tiling or vectorization failed";
    error->tilingFailed = true;
  }
  return result;
}
