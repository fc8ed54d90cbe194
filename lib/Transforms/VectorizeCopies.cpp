//===- VectorizeCopies.cpp - Tiled, vectorized copies and transposes -----===//
//
// Data movement as vector code: tiling a copy into one piece per row (long
// rows on buffers in fixed-size chunks), a transpose that moves the innermost
// dim into small square blocks, and vectorizing the pieces. Used for the
// packing and padding copies and the layout transposes of tiletune-tile-cpu,
// and after bufferization by vectorizeSmallCopies
// (tiletune-optimize-cpu-buffers).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"

#include "TilingUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Prefetching the next cache step's pack
//===----------------------------------------------------------------------===//

void tiletune::markPackForPrefetch(Operation *copy, int64_t lineBytes) {
  if (lineBytes > 0)
    copy->setAttr(
        kPrefetchNextAttrName,
        IntegerAttr::get(IntegerType::get(copy->getContext(), 64), lineBytes));
}

/// The line size `op` was marked with by markPackForPrefetch (0: none).
static int64_t getPrefetchLineBytes(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kPrefetchNextAttrName);
  return attr ? attr.getInt() : 0;
}

/// The most prefetches put before one piece of a copy: a transposed 16x16
/// block of f32 reads 16 lines, a copied row of 64 f32 4.
static constexpr int64_t kMaxPrefetchesPerPiece = 64;

/// A pack's source view (`current`) and the same view at the loops' next
/// step (`next`), see createNextStepView.
struct tiletune::NextStepView {
  Value current, next;
  int64_t lineBytes = 0;
};

/// The ops of `view`'s backward slice inside `scope` (but not `exclude`)
/// that depend on one of `ivs`, in topological order; std::nullopt where
/// one of them has side effects or regions.
static std::optional<SmallVector<Operation *>>
getDependentSlice(Value view, scf::ForOp scope, Operation *exclude,
                  ArrayRef<Value> ivs) {
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *op) {
    return op != exclude && scope->isProperAncestor(op);
  };
  SetVector<Operation *> slice;
  if (failed(getBackwardSlice(view, &slice, options)))
    return std::nullopt;
  // The slice is in topological order: an op depends on a variable when an
  // operand is the variable or the result of a dependent op.
  SmallVector<Operation *> dependent;
  llvm::SmallPtrSet<Operation *, 8> seen;
  for (Operation *op : slice)
    if (llvm::any_of(op->getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return llvm::is_contained(ivs, operand) ||
                 (def && seen.contains(def));
        })) {
      if (!isMemoryEffectFree(op) || op->getNumRegions() != 0)
        return std::nullopt;
      seen.insert(op);
      dependent.push_back(op);
    }
  return dependent;
}

/// The view `view` (a chain of side-effect-free ops, e.g. subviews and
/// collapses of a buffer defined outside the loops) takes at the next step
/// of the loops that move it: the innermost enclosing scf.for whose
/// induction variable it depends on steps; on that loop's last iteration,
/// when the loop is the body of a loop that moves the view too (the f loop
/// around a filter's c loop), that one steps and the inner one starts
/// again, so the first tile of the next block is on its way as well. On the
/// very last step the view is the current iteration's or the block's first
/// (prefetching a tile again is harmless; an address past the buffer is
/// not computed). The dependent ops are cloned before `before` with the
/// variables replaced. std::nullopt where no enclosing loop moves the view
/// or a dependent op has side effects.
static std::optional<NextStepView> createNextStepView(RewriterBase &rewriter,
                                                      Value view,
                                                      Operation *before,
                                                      int64_t lineBytes) {
  if (lineBytes <= 0 || !view.getDefiningOp())
    return std::nullopt;
  for (auto loop = before->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    Value iv = loop.getInductionVar();
    std::optional<SmallVector<Operation *>> dependent =
        getDependentSlice(view, loop, nullptr, iv);
    if (!dependent)
      return std::nullopt;
    if (dependent->empty())
      continue;
    // The enclosing loop, when it moves the view too and the inner loop's
    // bounds do not depend on it.
    auto outer = dyn_cast_or_null<scf::ForOp>(loop->getParentOp());
    std::optional<SmallVector<Operation *>> outerDependent;
    if (outer && llvm::all_of(loop->getOperands(), [&](Value bound) {
          return outer.isDefinedOutsideOfLoop(bound);
        })) {
      std::optional<SmallVector<Operation *>> movedByOuter =
          getDependentSlice(view, outer, loop, outer.getInductionVar());
      if (movedByOuter && !movedByOuter->empty())
        outerDependent =
            getDependentSlice(view, outer, loop, {iv, outer.getInductionVar()});
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(before);
    Location loc = loop.getLoc();
    auto nextOf = [&](scf::ForOp forOp, Value &inRange) -> Value {
      Value stepped = arith::AddIOp::create(
          rewriter, loc, forOp.getInductionVar(), forOp.getStep());
      inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                      stepped, forOp.getUpperBound());
      return stepped;
    };
    Value inRange;
    Value stepped = nextOf(loop, inRange);
    IRMapping mapping;
    if (outerDependent) {
      Value outerInRange;
      Value outerStepped = nextOf(outer, outerInRange);
      Value outerIv = outer.getInductionVar();
      Value nextOuter = arith::SelectOp::create(rewriter, loc, outerInRange,
                                                outerStepped, outerIv);
      mapping.map(outerIv, arith::SelectOp::create(rewriter, loc, inRange,
                                                   outerIv, nextOuter));
      mapping.map(iv, arith::SelectOp::create(rewriter, loc, inRange, stepped,
                                              loop.getLowerBound()));
      dependent = outerDependent;
    } else {
      mapping.map(iv,
                  arith::SelectOp::create(rewriter, loc, inRange, stepped, iv));
    }
    for (Operation *op : *dependent)
      rewriter.clone(*op, mapping);
    return NextStepView{view, mapping.lookup(view), lineBytes};
  }
  return std::nullopt;
}

/// How a prefetched view splits into cache lines: its rows (every dim but
/// the innermost, which is contiguous) and the lines of one row.
struct PrefetchRows {
  int64_t rows = 1, linesPerRow = 0, lineElements = 1;
};

/// The rows of `type` (a statically shaped memref of ints or floats, rank
/// at least 1) in lines of `lineBytes`; std::nullopt for any other type.
static std::optional<PrefetchRows> getPrefetchRows(Type type,
                                                   int64_t lineBytes) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() == 0 ||
      !memref.getElementType().isIntOrFloat())
    return std::nullopt;
  PrefetchRows rows;
  int64_t elementBytes =
      std::max<int64_t>(1, memref.getElementType().getIntOrFloatBitWidth() / 8);
  rows.lineElements = std::max<int64_t>(1, lineBytes / elementBytes);
  for (int64_t size : memref.getShape().drop_back())
    rows.rows *= size;
  rows.linesPerRow =
      llvm::divideCeil(memref.getShape().back(), rows.lineElements);
  return rows;
}

/// One prefetch into L2 per line of the row of `view` at `indices` (all
/// but the innermost index; the last entry is overwritten). Locality 2 is
/// prefetcht1 on x86: into L2, and not L1, which the current step streams
/// through.
static void prefetchRow(RewriterBase &rewriter, Location loc, Value view,
                        SmallVector<Value> indices, const PrefetchRows &rows) {
  int64_t rowLength = cast<MemRefType>(view.getType()).getShape().back();
  for (int64_t col = 0; col < rowLength; col += rows.lineElements) {
    indices.back() = arith::ConstantIndexOp::create(rewriter, loc, col);
    memref::PrefetchOp::create(rewriter, loc, view, indices,
                               /*isWrite=*/false, /*localityHint=*/2,
                               /*isDataCache=*/true);
  }
}

/// Puts before `piece` (a tiled piece of a pack, reading a view of
/// `prefetch.current` through subviews) one prefetch into L2 per cache line
/// of the same piece of `prefetch.next`: while this step's tile is copied,
/// the next step's lines are on their way.
static void prefetchNextPiece(RewriterBase &rewriter, Operation *piece,
                              const NextStepView &prefetch) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(piece);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1)
    return;
  // The subviews from the piece's input up to the pack's source.
  SmallVector<memref::SubViewOp> chain;
  Value in = linalgOp.getDpsInputOperand(0)->get();
  while (in != prefetch.current) {
    auto subview = in.getDefiningOp<memref::SubViewOp>();
    if (!subview || chain.size() > 4)
      return;
    chain.push_back(subview);
    in = subview.getSource();
  }
  Type type = linalgOp.getDpsInputOperand(0)->get().getType();
  std::optional<PrefetchRows> rows = getPrefetchRows(type, prefetch.lineBytes);
  if (!rows || rows->rows * rows->linesPerRow > kMaxPrefetchesPerPiece)
    return;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(piece);
  Location loc = piece->getLoc();
  Value next = prefetch.next;
  for (memref::SubViewOp subview : llvm::reverse(chain))
    next = memref::SubViewOp::create(
        rewriter, loc, subview.getType(), next, subview.getMixedOffsets(),
        subview.getMixedSizes(), subview.getMixedStrides());
  ArrayRef<int64_t> shape = cast<MemRefType>(type).getShape();
  SmallVector<Value> indices(shape.size());
  for (int64_t row = 0; row < rows->rows; ++row) {
    int64_t rest = row;
    for (int64_t d = shape.size() - 2; d >= 0; --d) {
      indices[d] =
          arith::ConstantIndexOp::create(rewriter, loc, rest % shape[d]);
      rest /= shape[d];
    }
    prefetchRow(rewriter, loc, next, indices, *rows);
  }
}

/// The most prefetches put at the top of one body of a pack's compute
/// nest (prefetchNextInCompute): a few rows of the next tile.
static constexpr int64_t kMaxPrefetchesPerBody = 32;

/// Spreads the prefetches of the next step's tile over the computation
/// that reads this step's pack: the first loop after `pack` in its block
/// that reads the pack's buffer, and the loops perfectly nested in it with
/// static trip counts. At the top of the deepest of those bodies that
/// runs at most as often as the next tile has rows, each run prefetches
/// its share of the rows (iteration i: rows [i r, i r + r), clamped to the
/// last; iterations wholly past the last row skip). While this step's tile is
/// being used, the next one arrives, so the next pack copies from L2 instead of
/// waiting on L3 or memory; the prefetches spread over the compute leave the
/// miss queue to the compute's own loads (docs/CPUSchedule.md, "Prefetching the
/// next pack"). Returns false, leaving the IR unchanged, where there is no such
/// nest or a body would get more than kMaxPrefetchesPerBody prefetches.
static bool prefetchNextInCompute(RewriterBase &rewriter, Operation *pack,
                                  const NextStepView &prefetch) {
  std::optional<PrefetchRows> tile =
      getPrefetchRows(prefetch.next.getType(), prefetch.lineBytes);
  auto packOp = dyn_cast<linalg::LinalgOp>(pack);
  if (!packOp || packOp.getNumDpsInits() != 1 || !tile ||
      !isa<MemRefType>(packOp.getDpsInitOperand(0)->get().getType()))
    return false;
  int64_t rows = tile->rows;
  auto viewRoot = [](Value view) -> Value {
    return memref::skipViewLikeOps(cast<TypedValue<MemRefType>>(view));
  };
  Value buffer = viewRoot(packOp.getDpsInitOperand(0)->get());
  auto readsBuffer = [&](scf::ForOp loop) {
    return loop
        ->walk([&](Operation *op) {
          for (Value operand : op->getOperands())
            if (isa<MemRefType>(operand.getType()) &&
                viewRoot(operand) == buffer)
              return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  };
  scf::ForOp compute;
  for (Operation *op = pack->getNextNode(); op && !compute;
       op = op->getNextNode())
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && readsBuffer(loop))
      compute = loop;
  if (!compute)
    return false;

  // The nest: loops with static bounds, each the only loop in its parent's
  // body; keep the deepest whose bodies run at most `rows` times in all.
  SmallVector<scf::ForOp> nest;
  SmallVector<int64_t> trips;
  int64_t runs = 1;
  for (scf::ForOp loop = compute; loop;) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || *ub <= *lb)
      break;
    int64_t trip = llvm::divideCeil(*ub - *lb, *step);
    if (!nest.empty() && runs * trip > rows)
      break;
    nest.push_back(loop);
    trips.push_back(trip);
    runs *= trip;
    scf::ForOp inner;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (!isa<scf::ForOp>(op))
        continue;
      if (inner) {
        inner = nullptr;
        break;
      }
      inner = cast<scf::ForOp>(op);
    }
    loop = inner;
  }
  if (nest.empty())
    return false;
  int64_t rowsPerRun = llvm::divideCeil(rows, runs);
  if (rowsPerRun * tile->linesPerRow > kMaxPrefetchesPerBody)
    return false;

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(nest.back().getBody());
  Location loc = pack->getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  // The run's linear number over the nest.
  Value run = constant(0);
  for (auto [loop, trip] : llvm::zip(nest, trips)) {
    Value index = arith::SubIOp::create(rewriter, loc, loop.getInductionVar(),
                                        loop.getLowerBound());
    index = arith::DivUIOp::create(rewriter, loc, index, loop.getStep());
    run = arith::MulIOp::create(rewriter, loc, run, constant(trip));
    run = arith::AddIOp::create(rewriter, loc, run, index);
  }
  Value first = arith::MulIOp::create(rewriter, loc, run, constant(rowsPerRun));
  // Where whole runs fall past the last row (rows / runs between 1 and 2,
  // say, as on a target with narrower vectors and so more bodies), those
  // runs skip: clamped, they would prefetch the last row again and again.
  if (rowsPerRun * runs - rows >= rowsPerRun) {
    Value inTile = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, first, constant(rows));
    auto ifOp = scf::IfOp::create(rewriter, loc, inTile,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
  }
  ArrayRef<int64_t> shape =
      cast<MemRefType>(prefetch.next.getType()).getShape();
  for (int64_t r = 0; r < rowsPerRun; ++r) {
    Value row = arith::AddIOp::create(rewriter, loc, first, constant(r));
    row = arith::MinUIOp::create(rewriter, loc, row, constant(rows - 1));
    SmallVector<Value> indices(shape.size());
    for (int64_t d = shape.size() - 2; d > 0; --d) {
      indices[d] =
          arith::RemUIOp::create(rewriter, loc, row, constant(shape[d]));
      row = arith::DivUIOp::create(rewriter, loc, row, constant(shape[d]));
    }
    if (shape.size() > 1)
      indices.front() = row;
    prefetchRow(rewriter, loc, prefetch.next, indices, *tile);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Tile, then vectorize
//===----------------------------------------------------------------------===//

LogicalResult tiletune::vectorizeAndReplace(RewriterBase &rewriter,
                                            Operation *op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  replaceTiledOp(rewriter, op, vectorized->replacements);
  return success();
}

LogicalResult tiletune::tileAndVectorizePiece(
    RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> tiles,
    bool vectorize, int64_t maxVectorElements, const NextStepView *prefetch) {
  Operation *piece = op;
  if (llvm::any_of(tiles, [](int64_t t) { return t != 0; })) {
    FailureOr<scf::SCFTilingResult> tiled = tileOneLevel(
        rewriter, op, getAsIndexOpFoldResult(op->getContext(), tiles));
    if (failed(tiled))
      return failure();
    piece = tiled->tiledOps.back();
  }
  if (prefetch)
    prefetchNextPiece(rewriter, piece, *prefetch);
  if (!vectorize)
    return success();
  auto type = cast<ShapedType>(
      cast<linalg::LinalgOp>(piece).getDpsInitOperand(0)->get().getType());
  if (maxVectorElements > 0 &&
      (!type.hasStaticShape() || type.getNumElements() > maxVectorElements))
    return success();
  (void)vectorizeAndReplace(rewriter, piece);
  return success();
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

/// On buffers, rows longer than this are copied in chunks of kCopyChunk
/// elements plus one remainder piece: one vector per row would be a huge
/// vector type (slow to compile, spilled).
static constexpr int64_t kMaxVectorRow = 256;
static constexpr int64_t kCopyChunk = 64;

static LogicalResult tileAndVectorizeRows(RewriterBase &rewriter,
                                          Operation *copy, bool vectorize,
                                          const NextStepView *prefetch);

/// Splits a buffer copy with long rows into a copy of the first
/// floor(L / kCopyChunk) * kCopyChunk columns, tiled and vectorized in
/// chunks, and a copy of the remaining columns (a static remainder, one
/// vector per row).
static LogicalResult splitLongRowCopy(RewriterBase &rewriter,
                                      linalg::CopyOp copy, int64_t rowLength,
                                      const NextStepView *prefetch) {
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
                                   /*vectorize=*/true,
                                   /*maxVectorElements=*/0, prefetch)))
    return failure();
  if (rest)
    return tileAndVectorizeRows(rewriter, rest, /*vectorize=*/true, prefetch);
  return success();
}

/// Tiles a packing copy so that each tiled piece moves one contiguous row
/// (innermost dim whole; on buffers, rows longer than kMaxVectorRow go
/// through splitLongRowCopy), then vectorizes the pieces (on buffers only:
/// on tensors, canonicalization would fold the vector copies back into
/// slice copies; tiletune-optimize-cpu-buffers vectorizes them after
/// bufferization).
static LogicalResult tileAndVectorizeRows(RewriterBase &rewriter,
                                          Operation *copy, bool vectorize,
                                          const NextStepView *prefetch) {
  auto linalgOp = cast<linalg::LinalgOp>(copy);
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (vectorize && isa<linalg::CopyOp>(copy) &&
      linalgOp.hasPureBufferSemantics() && !ranges.empty() &&
      llvm::none_of(ranges, ShapedType::isDynamic) &&
      ranges.back() > kMaxVectorRow)
    return splitLongRowCopy(rewriter, cast<linalg::CopyOp>(copy), ranges.back(),
                            prefetch);
  // One piece per row: every dim but the innermost by 1.
  SmallVector<int64_t> tiles(ranges.size(), 1);
  tiles.back() = 0;
  return tileAndVectorizePiece(rewriter, copy, tiles, vectorize,
                               /*maxVectorElements=*/0, prefetch);
}

LogicalResult tiletune::tileAndVectorizeCopy(RewriterBase &rewriter,
                                             Operation *copy, bool vectorize) {
  // A marked pack on buffers prefetches its next step's rows (on tensors
  // the mark waits for vectorizeSmallCopies, after bufferization).
  std::optional<NextStepView> prefetch;
  if (vectorize && cast<linalg::LinalgOp>(copy).hasPureBufferSemantics())
    prefetch = createNextStepView(rewriter, copy->getOperand(0), copy,
                                  getPrefetchLineBytes(copy));
  if (prefetch && prefetchNextInCompute(rewriter, copy, *prefetch))
    prefetch.reset();
  return tileAndVectorizeRows(rewriter, copy, vectorize,
                              prefetch ? &*prefetch : nullptr);
}

//===----------------------------------------------------------------------===//
// Transposes
//===----------------------------------------------------------------------===//

/// Block size of large transposes: kTransposeBlock x kTransposeBlock tiles
/// of the dims that are innermost in the input and in the output.
static constexpr int64_t kTransposeBlock = 16;

/// The same buffer transpose on collapsed views: unit dims dropped and the
/// dims that stay adjacent, in order, in both layouts merged. A 1x1 conv
/// filter FCHW -> HWCF becomes a 2-D transpose of [F][C] (blocks of 16x16
/// instead of one element by 16), a 3x3 one moves runs of KH*KW = 9
/// elements instead of 3. Returns the transpose unchanged when nothing
/// merges, when a view would not be contiguous, or when the innermost dim
/// would stay in place.
static linalg::TransposeOp collapseTransposeDims(RewriterBase &rewriter,
                                                 linalg::TransposeOp transpose) {
  if (!transpose.hasPureBufferSemantics())
    return transpose;
  Value input = transpose.getInput(), init = transpose.getInit();
  auto inType = cast<MemRefType>(input.getType());
  auto outType = cast<MemRefType>(init.getType());
  if (!inType.hasStaticShape())
    return transpose;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  // The input dims of size > 1 in output order, split into groups that stay
  // adjacent in both layouts (each the next non-unit input dim after the
  // previous one); with each group, its first output position.
  struct Group {
    SmallVector<int64_t> dims;
    int64_t firstOut;
  };
  SmallVector<Group> groups;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = perm[i];
    if (inType.getDimSize(d) == 1)
      continue;
    if (!groups.empty()) {
      int64_t last = groups.back().dims.back();
      bool next = d > last;
      for (int64_t u = last + 1; next && u < d; ++u)
        next = inType.getDimSize(u) == 1;
      if (next) {
        groups.back().dims.push_back(d);
        continue;
      }
    }
    groups.push_back({{d}, i});
  }
  int64_t newRank = groups.size();
  if (newRank < 2 || newRank == rank)
    return transpose;
  // Input reassociation: the groups in input order, each from its first dim
  // (the first group from 0) to the next group's first dim; unit dims join
  // the group they fall in. Output reassociation: the same by output
  // position.
  SmallVector<int64_t> byInput(newRank);
  for (int64_t g = 0; g < newRank; ++g)
    byInput[g] = g;
  llvm::sort(byInput, [&](int64_t a, int64_t b) {
    return groups[a].dims.front() < groups[b].dims.front();
  });
  auto ranges = [&](ArrayRef<int64_t> starts) {
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t g = 0; g < newRank; ++g) {
      int64_t begin = g == 0 ? 0 : starts[g];
      int64_t end = g + 1 < newRank ? starts[g + 1] : rank;
      ReassociationIndices group;
      for (int64_t d = begin; d < end; ++d)
        group.push_back(d);
      reassociation.push_back(group);
    }
    return reassociation;
  };
  SmallVector<int64_t> inStarts, outStarts;
  for (int64_t g : byInput)
    inStarts.push_back(groups[g].dims.front());
  for (const Group &group : groups)
    outStarts.push_back(group.firstOut);
  SmallVector<ReassociationIndices> inGroups = ranges(inStarts);
  SmallVector<ReassociationIndices> outGroups = ranges(outStarts);
  // Output group j holds input group groups[j]: its position in input order.
  SmallVector<int64_t> newPerm(newRank);
  for (int64_t j = 0; j < newRank; ++j)
    newPerm[j] = llvm::find(byInput, j) - byInput.begin();
  if (newPerm.back() == newRank - 1 ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(inType, inGroups) ||
      !memref::CollapseShapeOp::isGuaranteedCollapsible(outType, outGroups))
    return transpose;
  Location loc = transpose.getLoc();
  rewriter.setInsertionPoint(transpose);
  Value in = memref::CollapseShapeOp::create(rewriter, loc, input, inGroups);
  Value out = memref::CollapseShapeOp::create(rewriter, loc, init, outGroups);
  auto collapsed = linalg::TransposeOp::create(rewriter, loc, in, out, newPerm);
  rewriter.eraseOp(transpose);
  return collapsed;
}

/// Tiles a buffer transpose whose innermost dim moves into blocks of the
/// two innermost dims (input side and output side; the largest size up to
/// kTransposeBlock that divides each) and 1 elsewhere, and vectorizes the
/// blocks of at most 256 elements (others stay scalar: correct, only slower; a
/// block's vector.transpose is unrolled element by element, so bigger blocks
/// cost compile time). Fails without changes when the innermost dim stays.
LogicalResult
tiletune::tileAndVectorizeTranspose(RewriterBase &rewriter,
                                    linalg::TransposeOp transpose) {
  // The output position of the input's innermost dim; -1 when it stays
  // innermost (or the op has fewer than two dims): then nothing moves.
  auto movedInner = [](ArrayRef<int64_t> perm) -> int64_t {
    int64_t rank = perm.size();
    for (int64_t i = 0; i + 1 < rank; ++i)
      if (perm[i] == rank - 1)
        return i;
    return -1;
  };
  if (movedInner(transpose.getPermutation()) < 0)
    return failure();
  int64_t prefetchLineBytes = getPrefetchLineBytes(transpose);
  linalg::TransposeOp original = transpose;
  transpose = collapseTransposeDims(rewriter, transpose);
  // Once replaced, the caller's op is gone: the collapsed transpose is the
  // result even where blocking it fails below (it then stays scalar).
  bool replaced = transpose != original;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  // collapseTransposeDims keeps the innermost dim moving.
  int64_t outInner = rank - 1, inInner = movedInner(perm);
  if (inInner < 0)
    return replaced ? success() : failure();
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
  std::optional<NextStepView> prefetch;
  if (transpose.hasPureBufferSemantics())
    prefetch = createNextStepView(rewriter, transpose.getInput(), transpose,
                                  prefetchLineBytes);
  if (prefetch && prefetchNextInCompute(rewriter, transpose, *prefetch))
    prefetch.reset();
  LogicalResult blocked = tileAndVectorizePiece(
      rewriter, transpose, tiles, /*vectorize=*/true,
      kTransposeBlock * kTransposeBlock, prefetch ? &*prefetch : nullptr);
  return replaced ? success() : blocked;
}

//===----------------------------------------------------------------------===//
// After bufferization
//===----------------------------------------------------------------------===//

/// The most rows (1-D pieces along the innermost dim) one vector operation
/// of vectorizeSmallCopies may move. Such an operation is unrolled into one
/// transfer per row and its vector becomes one LLVM aggregate; LLVM's
/// compile time grows quadratically in the number of rows (a padding copy
/// of 64x17 rows of 3 elements took 84 s). Copies with more rows go one row
/// per vector operation, in loops.
static constexpr int64_t kMaxRowsPerVectorCopy = 16;

/// The number of rows of a static shape: the product of all dims but the
/// innermost.
static int64_t getNumRows(ArrayRef<int64_t> shape) {
  int64_t rows = 1;
  if (shape.empty())
    return rows;
  for (int64_t size : shape.drop_back())
    rows *= size;
  return rows;
}

/// Whether `op` is a linalg.fill of a static, non-contiguous buffer whose
/// rows are at most kMaxVectorRow elements long.
static bool isStridedFill(Operation *op) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !fill.hasPureBufferSemantics())
    return false;
  auto type = cast<MemRefType>(fill.getOutputs()[0].getType());
  return type.hasStaticShape() && type.getRank() >= 2 &&
         type.getShape().back() <= kMaxVectorRow &&
         !memref::isStaticShapeAndContiguousRowMajor(type);
}

unsigned tiletune::vectorizeSmallCopies(Operation *root, int64_t maxElements) {
  MLIRContext *ctx = root->getContext();
  IRRewriter rewriter(ctx);
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
  SmallVector<Operation *> copies;
  root->walk([&](Operation *op) {
    if (isa<memref::CopyOp, linalg::CopyOp, linalg::TransposeOp>(op) ||
        isStridedFill(op))
      copies.push_back(op);
  });
  unsigned changed = 0;
  for (Operation *op : copies) {
    // A fill of a strided view (the border of a padded buffer,
    // tiletune-pads-in-place) stores a vector per row instead of one element
    // at a time.
    if (isa<linalg::FillOp>(op)) {
      if (succeeded(tileAndVectorizeRows(rewriter, op, /*vectorize=*/true,
                                         /*prefetch=*/nullptr)))
        ++changed;
      continue;
    }
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
      if (type.getNumElements() <= maxElements &&
          getNumRows(type.getShape()) <= kMaxRowsPerVectorCopy) {
        if (succeeded(linalg::vectorizeCopy(rewriter, copy)))
          ++changed;
        continue;
      }
      // A large copy or one of many rows between strided views (e.g. an
      // operand into its padded buffer): one vector copy per row instead of
      // the runtime's generic element-wise copy. Contiguous copies stay (they
      // lower to memcpy).
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
    // A marked pack (left whole on tensors by tiletune-tile-cpu: a copy, or
    // a transpose that keeps the innermost dim, e.g. B into panels) goes row
    // by row at any size, each row prefetching the next step's.
    if (getPrefetchLineBytes(op) > 0) {
      if (succeeded(tileAndVectorizeCopy(rewriter, op, /*vectorize=*/true)))
        ++changed;
      continue;
    }
    if (type.getNumElements() > maxElements)
      continue;
    // Many rows: one vector operation per row (the innermost dim is the
    // same in input and output here: transposes that move it were handled
    // above).
    if (getNumRows(linalgOp.getStaticLoopRanges()) > kMaxRowsPerVectorCopy) {
      if (succeeded(tileAndVectorizeCopy(rewriter, op, /*vectorize=*/true)))
        ++changed;
      continue;
    }
    if (succeeded(vectorizeAndReplace(rewriter, op)))
      ++changed;
  }
  return changed;
}
