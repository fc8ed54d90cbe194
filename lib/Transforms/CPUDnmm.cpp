//===- CPUDnmm.cpp - AutoMCL's DNMM332 compute for the CPU ----------------===//
//
// `pack = dn` (compute dnmm332, paper 001 Table 1): a matmul whose A is
// stored [b?][m][k] and B [b?][n][k] (matmul_transpose_b and its batched
// form: nn.Linear's weights, attention's Q·Kᵀ) read along k, the one dim
// both store contiguously. Each register tile of rm x rn outputs keeps
// rm x rn vectors of partial sums over the inner k index k_i (the paper's
// CC[y][x][k_i]): a step loads rm rows of A and rn rows of B, one vector of
// k each, and does rm x rn vector FMAs. After the tile's k chunk the partial
// sums are reduced across k_i (C[y][x] += sum over k_i) and added to the
// output tile. The loop nest around it is the config's: the parallel level
// as one scf.forall over b/m/n, the cache level in the config's `order`
// (the k cache tile rounded up to whole vectors), then the register loops
// over b, m and n in that order. A k that is not a multiple of the vector
// ends in one masked step; padded m and n (`pad`) read clamped rows and
// write with masks. The nest is built here, not by the upstream tiling the
// other computes use: no linalg op vectorizes along a reduction dim into
// per-lane partial sums.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {
/// One loop of the nest: the loop dim (iterator index of the op), its
/// bounds and step.
struct NestLoop {
  int64_t dim;
  int64_t lb;
  int64_t ub;
  int64_t step;
};

/// Builds the DNMM loop nest of one op; see the file comment.
class DnmmBuilder {
public:
  DnmmBuilder(RewriterBase &rewriter, linalg::LinalgOp op,
              const CPUSchedule &s, int64_t lanes)
      : rewriter(rewriter), op(op), s(s), loc(op.getLoc()),
        batched(s.loopSizes.size() == 4), lanes(lanes) {
    dimM = batched ? 1 : 0;
    dimN = dimM + 1;
    dimK = dimM + 2;
    a = op.getDpsInputOperand(0)->get();
    b = op.getDpsInputOperand(1)->get();
    c = op.getDpsInitOperand(0)->get();
    elementType = getElementTypeOrSelf(c.getType());
    onTensors = op.hasPureTensorSemantics();
    int64_t k = s.opSizes[dimK];
    // The k cache tile in whole vectors (0 = untiled).
    int64_t kc = s.cacheTiles[dimK] > 0 ? s.cacheTiles[dimK] : k;
    kChunk = llvm::divideCeil(std::max<int64_t>(kc, 1), lanes) * lanes;
    kFull = k / lanes * lanes;
  }

  FailureOr<CPUTilingResult> build();

private:
  Value index(OpBuilder &builder, int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  }
  /// Extent of parallel dim `d` per forall iteration.
  int64_t threadTile(int64_t d) const {
    int64_t t = s.parallelTiles[d];
    return t > 0 ? t : s.loopSizes[d];
  }
  int64_t cacheTile(int64_t d) const {
    int64_t t = s.cacheTiles[d];
    return t > 0 ? std::min(t, threadTile(d)) : threadTile(d);
  }
  bool padded(int64_t d) const { return s.loopSizes[d] != s.opSizes[d]; }
  /// Index of operand row `row` (global) of dim `d`, clamped to the op's
  /// last row where `d` is padded (the padded rows' sums are never stored).
  Value clampRow(OpBuilder &builder, Value row, int64_t d) {
    if (!padded(d))
      return row;
    return arith::MinSIOp::create(builder, loc, row,
                                  index(builder, s.opSizes[d] - 1));
  }
  using DimValues = llvm::SmallDenseMap<int64_t, Value>;
  /// Nested scf.for loops over `loops`, carrying the output tile `tile` on
  /// tensors; `body` gets each loop dim's induction variable and the tile,
  /// and returns the updated tile. Returns the tile after the nest.
  Value buildNest(OpBuilder &builder, ArrayRef<NestLoop> loops, Value tile,
                  function_ref<Value(OpBuilder &, const DimValues &, Value)>
                      body);
  /// The register tile at global (gb, gm, gn), output tile position
  /// (lb, lm, ln) in `tile`: its k chunk [k0, min(k0 + kChunk, K)).
  Value registerTile(OpBuilder &builder, Value gb, Value gm, Value gn,
                     Value lb, Value lm, Value ln, Value k0, Value tile);
  /// rm x rn partial-sum vectors updated by one k step at `k` (`masked`:
  /// the step past kFull, reading beyond K as zeros).
  SmallVector<Value> kStep(OpBuilder &builder, ValueRange accs, Value gb,
                           ArrayRef<Value> aRows, ArrayRef<Value> bRows,
                           Value k, bool masked);

  RewriterBase &rewriter;
  linalg::LinalgOp op;
  const CPUSchedule &s;
  Location loc;
  bool batched;
  int64_t lanes;
  int64_t dimM, dimN, dimK;
  Value a, b, c;
  Type elementType;
  bool onTensors;
  int64_t kChunk, kFull;
};
} // namespace

Value DnmmBuilder::buildNest(
    OpBuilder &builder, ArrayRef<NestLoop> loops, Value tile,
    function_ref<Value(OpBuilder &, const DimValues &, Value)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (const NestLoop &l : loops) {
    lbs.push_back(index(builder, l.lb));
    ubs.push_back(index(builder, l.ub));
    steps.push_back(index(builder, l.step));
  }
  SmallVector<Value> carried;
  if (onTensors)
    carried.push_back(tile);
  scf::LoopNest nest = scf::buildLoopNest(
      builder, loc, lbs, ubs, steps, carried,
      [&](OpBuilder &nested, Location, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        DimValues at;
        for (auto [l, iv] : llvm::zip(loops, ivs))
          at[l.dim] = iv;
        Value updated = body(nested, at, onTensors ? args[0] : tile);
        if (!onTensors)
          return {};
        return {updated};
      });
  return onTensors ? nest.results[0] : tile;
}

SmallVector<Value> DnmmBuilder::kStep(OpBuilder &builder, ValueRange accs,
                                      Value gb, ArrayRef<Value> aRows,
                                      ArrayRef<Value> bRows, Value k,
                                      bool masked) {
  auto vectorType = VectorType::get({lanes}, elementType);
  Value zero = arith::ConstantOp::create(builder, loc,
                                         builder.getZeroAttr(elementType));
  SmallVector<bool> inBounds = {!masked};
  auto read = [&](Value source, Value row) -> Value {
    SmallVector<Value> indices;
    if (batched)
      indices.push_back(gb);
    indices.push_back(row);
    indices.push_back(k);
    return vector::TransferReadOp::create(builder, loc, vectorType, source,
                                          indices, zero, inBounds);
  };
  SmallVector<Value> aVectors, bVectors;
  for (Value row : aRows)
    aVectors.push_back(read(a, row));
  for (Value row : bRows)
    bVectors.push_back(read(b, row));
  SmallVector<Value> next;
  for (size_t i = 0; i < aRows.size(); ++i)
    for (size_t j = 0; j < bRows.size(); ++j)
      next.push_back(vector::FMAOp::create(builder, loc, aVectors[i],
                                           bVectors[j],
                                           accs[i * bRows.size() + j]));
  return next;
}

Value DnmmBuilder::registerTile(OpBuilder &builder, Value gb, Value gm,
                                Value gn, Value lb, Value lm, Value ln,
                                Value k0, Value tile) {
  int64_t rm = s.registerTiles[dimM], rn = s.registerTiles[dimN];
  auto vectorType = VectorType::get({lanes}, elementType);
  // The rows of A and B this tile reads.
  SmallVector<Value> aRows, bRows;
  for (int64_t i = 0; i < rm; ++i)
    aRows.push_back(clampRow(
        builder, arith::AddIOp::create(builder, loc, gm, index(builder, i)),
        dimM));
  for (int64_t j = 0; j < rn; ++j)
    bRows.push_back(clampRow(
        builder, arith::AddIOp::create(builder, loc, gn, index(builder, j)),
        dimN));
  Value zero = arith::ConstantOp::create(
      builder, loc, cast<TypedAttr>(builder.getZeroAttr(vectorType)));
  SmallVector<Value> accs(rm * rn, zero);
  // Whole vectors of the chunk: [k0, min(k0 + kChunk, kFull)).
  Value chunkEnd =
      arith::AddIOp::create(builder, loc, k0, index(builder, kChunk));
  if (kFull > 0) {
    Value fullEnd =
        arith::MinSIOp::create(builder, loc, chunkEnd, index(builder, kFull));
    auto loop = scf::ForOp::create(
        builder, loc, k0, fullEnd, index(builder, lanes), accs,
        [&](OpBuilder &nested, Location, Value k, ValueRange iterArgs) {
          SmallVector<Value> next =
              kStep(nested, iterArgs, gb, aRows, bRows, k, /*masked=*/false);
          scf::YieldOp::create(nested, loc, next);
        });
    accs.assign(loop.getResults().begin(), loop.getResults().end());
  }
  // The last, partial vector of k, in the chunk that holds it.
  if (kFull < s.opSizes[dimK]) {
    Value holdsTail =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt,
                              chunkEnd, index(builder, kFull));
    auto ifOp = scf::IfOp::create(
        builder, loc, holdsTail,
        [&](OpBuilder &then, Location) {
          SmallVector<Value> next = kStep(then, accs, gb, aRows, bRows,
                                          index(then, kFull), /*masked=*/true);
          scf::YieldOp::create(then, loc, next);
        },
        [&](OpBuilder &otherwise, Location) {
          scf::YieldOp::create(otherwise, loc, accs);
        });
    accs.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  }
  // C[y][x] += sum over k_i of CC[y][x][k_i], a rm x rn tile at once.
  auto tileType = VectorType::get({rm, rn}, elementType);
  Value sums = arith::ConstantOp::create(
      builder, loc, cast<TypedAttr>(builder.getZeroAttr(tileType)));
  for (int64_t i = 0; i < rm; ++i)
    for (int64_t j = 0; j < rn; ++j) {
      Value acc = accs[i * rn + j];
      // Reassociable: a horizontal add tree, not a serial chain.
      Value sum =
          vector::ReductionOp::create(builder, loc, vector::CombiningKind::ADD,
                                      acc, arith::FastMathFlags::reassoc);
      sums = vector::InsertOp::create(builder, loc, sum, sums,
                                      ArrayRef<int64_t>{i, j});
    }
  SmallVector<Value> indices;
  if (batched)
    indices.push_back(lb);
  indices.push_back(lm);
  indices.push_back(ln);
  Value zeroElement = arith::ConstantOp::create(
      builder, loc, builder.getZeroAttr(elementType));
  auto rank = cast<ShapedType>(tile.getType()).getRank();
  AffineMap minor = AffineMap::getMinorIdentityMap(rank, 2, builder.getContext());
  SmallVector<bool> inBounds = {!padded(dimM), !padded(dimN)};
  Value old = vector::TransferReadOp::create(builder, loc, tileType, tile,
                                             indices, zeroElement, minor,
                                             inBounds);
  Value updated = arith::AddFOp::create(builder, loc, old, sums);
  auto write = vector::TransferWriteOp::create(
      builder, loc, updated, tile, indices, AffineMapAttr::get(minor),
      builder.getBoolArrayAttr(inBounds));
  return onTensors ? write.getResult() : tile;
}

FailureOr<CPUTilingResult> DnmmBuilder::build() {
  CPUTilingResult result;
  result.vectorizeRequested = s.vectorize;
  result.vectorized = true;
  rewriter.setInsertionPoint(op);
  // The parallel level: one scf.forall over the parallel dims it splits.
  SmallVector<int64_t> parallelDims;
  if (batched)
    parallelDims.push_back(0);
  parallelDims.push_back(dimM);
  parallelDims.push_back(dimN);
  SmallVector<int64_t> forallDims;
  for (int64_t d : parallelDims)
    if (threadTile(d) < s.loopSizes[d])
      forallDims.push_back(d);
  int64_t rank = parallelDims.size();
  // The output tile of one forall iteration: its offsets (op dims b?, m, n)
  // and sizes, clipped to the op where a loop is padded.
  auto outputTile = [&](OpBuilder &builder, ArrayRef<Value> offsets)
      -> std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>> {
    SmallVector<OpFoldResult> offs, sizes;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = parallelDims[i];
      offs.push_back(offsets[i]);
      int64_t t = threadTile(d);
      // Static where the dim is not split over threads (offset 0) or not
      // padded (its tiles divide it).
      if (!padded(d) || !llvm::is_contained(forallDims, d)) {
        sizes.push_back(builder.getIndexAttr(std::min(t, s.opSizes[d])));
        continue;
      }
      // max(0, min(t, size - offset)): a loop padded beyond a whole thread
      // tile (5 padded to 8 in tiles of 2) has iterations past its end.
      Value left = arith::SubIOp::create(builder, loc,
                                         index(builder, s.opSizes[d]),
                                         offsets[i]);
      Value size = arith::MinSIOp::create(builder, loc, left, index(builder, t));
      sizes.push_back(
          arith::MaxSIOp::create(builder, loc, size, index(builder, 0))
              .getResult());
    }
    return {offs, sizes};
  };

  // Everything inside one forall iteration, on its output tile `tile`
  // whose global offsets are `offsets`; returns the updated tile.
  auto threadBody = [&](OpBuilder &builder, ArrayRef<Value> offsets,
                        Value tile) -> Value {
    // Cache loops in the config's order, then register loops over the
    // parallel dims in that order.
    SmallVector<NestLoop> cacheLoops, registerLoops;
    for (int64_t d : s.cacheOrder) {
      if (d == dimK) {
        if (kChunk < s.opSizes[dimK])
          cacheLoops.push_back({d, 0, s.opSizes[dimK], kChunk});
        continue;
      }
      int64_t t = threadTile(d), ct = cacheTile(d);
      if (ct < t)
        cacheLoops.push_back({d, 0, t, ct});
    }
    for (int64_t d : s.cacheOrder) {
      if (d == dimK)
        continue;
      int64_t ct = cacheTile(d);
      int64_t rt = d == 0 && batched ? 1 : s.registerTiles[d];
      if (rt < ct)
        registerLoops.push_back({d, 0, ct, rt});
    }
    result.numCacheLoops = cacheLoops.size();
    result.numRegisterLoops = registerLoops.size() + 1;
    return buildNest(
        builder, cacheLoops, tile,
        [&](OpBuilder &cb, const DimValues &cacheAt, Value cacheTile) {
          return buildNest(
              cb, registerLoops, cacheTile,
              [&](OpBuilder &rb, const DimValues &regAt, Value t) -> Value {
                // Local (in the thread's output tile) and global positions.
                auto local = [&](int64_t d) -> Value {
                  Value cv = cacheAt.lookup(d), rv = regAt.lookup(d);
                  if (cv && rv)
                    return arith::AddIOp::create(rb, loc, cv, rv);
                  return cv ? cv : rv ? rv : index(rb, 0);
                };
                auto global = [&](int64_t d, Value l) -> Value {
                  for (int64_t i = 0; i < rank; ++i)
                    if (parallelDims[i] == d)
                      return arith::AddIOp::create(rb, loc, offsets[i], l);
                  return l;
                };
                Value lb = batched ? local(0) : Value();
                Value gb = batched ? global(0, lb) : Value();
                Value lm = local(dimM), ln = local(dimN);
                Value gm = global(dimM, lm), gn = global(dimN, ln);
                Value k0 = cacheAt.lookup(dimK);
                if (!k0)
                  k0 = index(rb, 0);
                return registerTile(rb, gb, gm, gn, lb, lm, ln, k0, t);
              });
        });
  };

  for (int64_t d : forallDims)
    result.numThreads *= s.loopSizes[d] / threadTile(d);
  if (forallDims.empty()) {
    SmallVector<Value> offsets(rank, index(rewriter, 0));
    Value out = threadBody(rewriter, offsets, c);
    if (onTensors)
      rewriter.replaceOp(op, out);
    else
      rewriter.eraseOp(op);
    return result;
  }
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (int64_t d : forallDims) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(rewriter.getIndexAttr(s.loopSizes[d]));
    steps.push_back(rewriter.getIndexAttr(threadTile(d)));
  }
  SmallVector<Value> outputs;
  if (onTensors)
    outputs.push_back(c);
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps, outputs,
                                      std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> offsets;
  for (int64_t d : parallelDims) {
    auto it = llvm::find(forallDims, d);
    offsets.push_back(it == forallDims.end()
                          ? index(rewriter, 0)
                          : forall.getInductionVar(it - forallDims.begin()));
  }
  auto [offs, sizes] = outputTile(rewriter, offsets);
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  Value whole = onTensors ? forall.getRegionIterArgs()[0] : c;
  Value tile;
  if (onTensors)
    tile = tensor::ExtractSliceOp::create(rewriter, loc, whole, offs, sizes,
                                          strides);
  else
    tile = memref::SubViewOp::create(rewriter, loc, whole, offs, sizes,
                                     strides);
  Value out = threadBody(rewriter, offsets, tile);
  if (onTensors) {
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, out, whole, offs,
                                          sizes, strides);
    rewriter.replaceOp(op, forall.getResults());
  } else {
    rewriter.eraseOp(op);
  }
  return result;
}

FailureOr<CPUTilingResult>
tiletune::generateDnmmForCPU(RewriterBase &rewriter, Operation *op,
                             const CPUSchedule &schedule, int64_t lanes,
                             std::string *reason) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  auto fail = [&](const Twine &why) -> FailureOr<CPUTilingResult> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  // Where `dn` applies: getPackValues, the rule the verifier and the spaces
  // use.
  if (!linalgOp || !llvm::is_contained(getPackValues(schedule.kind), "dn"))
    return fail("'pack = dn' (compute dnmm332) reads A and B along k: it "
                "applies to a matmul whose A is stored [b?][m][k] and B "
                "[b?][n][k]");
  if (!linalgOp.hasPureTensorSemantics() && !linalgOp.hasPureBufferSemantics())
    return fail("'pack = dn' needs the op on tensors or on buffers");
  Type elementType =
      getElementTypeOrSelf(linalgOp.getDpsInitOperand(0)->get().getType());
  if (!isa<FloatType>(elementType))
    return fail("'pack = dn' needs float elements");
  // Scalar code (vectorize = false) is the same nest with one lane.
  int64_t width = schedule.vectorize ? std::max<int64_t>(lanes, 1) : 1;
  return DnmmBuilder(rewriter, linalgOp, schedule, width).build();
}
