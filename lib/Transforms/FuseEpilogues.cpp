//===- FuseEpilogues.cpp - Elementwise epilogues fused into CPU tiles -----===//
//
// The `fuse-epilogues` option of tiletune-tile-cpu: the chain of elementwise
// consumers that follows a tuned op (bias add, ReLU, clamp, residual add,
// scaling, GELU, ...) is computed inside the op's tiled loop nest, on the
// output tile, right after the op's reduction loops have finished it.
//
// Producer fusion does the work: the LAST op of the chain is tiled with the
// op's thread-level tile sizes (scf.forall) and the chain, the tuned op and
// the producer of its init (a linalg.fill or a broadcast) are fused into it;
// then the cache loops of the config's `order` that come before the first
// reduction loop are made the same way, and the tuned op's slice gets the
// remaining cache loops. Where it gets none (its tile covers its whole
// reduction), the chain is tiled by the op's register tile as well
// (fuseRegisterTile) and the accumulators go through it before their only
// store; otherwise the fused chain is tiled into rows of the op's register
// tile along its innermost dim. Either way it is then vectorized.
//
//===----------------------------------------------------------------------===//

#include "TilingUtils.h"

#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Transforms/CPUTiling.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tiletune;

/// Discardable attributes that mark the ops of a fusion while it runs (tiled
/// clones keep their attributes, so the clones are found by them).
static constexpr StringLiteral kTunedMarker = "__tiletune_epilogue_tuned";
static constexpr StringLiteral kChainMarker = "__tiletune_epilogue_chain";
static constexpr StringLiteral kInitMarker = "__tiletune_epilogue_init";
/// The marks of markForPeeling (kept through peeling and canonicalization).
static constexpr StringLiteral kPeelChainMarker =
    "__tiletune_epilogue_peel_chain";
static constexpr StringLiteral kPeelInitMarker =
    "__tiletune_epilogue_peel_init";

//===----------------------------------------------------------------------===//
// EpilogueFusion
//===----------------------------------------------------------------------===//

std::optional<EpilogueFusion> EpilogueFusion::create(Operation *op,
                                                     std::string *reason) {
  FailureOr<SmallVector<Operation *>> chain = findEpilogueChain(op, reason);
  if (failed(chain))
    return std::nullopt;
  EpilogueFusion fusion;
  fusion.tuned = op;
  fusion.chain = std::move(*chain);
  fusion.chainLength = fusion.chain.size();
  // The init's producer is fused too (getFusableInitProducer: a fill or a
  // broadcast that only sets the output). TOSA's conv and fully_connected
  // start from their bias broadcast over the output; unfused, that is one
  // more pass over the whole output before the op reads it back: a few
  // percent of ResNet-50 b1, 59-63 ms -> 58-60 ms in alternation, Zen 5.
  fusion.initProducer = getFusableInitProducer(op);
  auto linalgOp = cast<linalg::LinalgOp>(op);
  AffineMap outMap = linalgOp.getIndexingMapMatchingResult(op->getOpResult(0));
  for (AffineExpr expr : outMap.getResults())
    fusion.opLoopOfDim.push_back(cast<AffineDimExpr>(expr).getPosition());
  return fusion;
}

/// Marks the ops of the fusion (their tiled clones inherit the marks).
void EpilogueFusion::mark() {
  MLIRContext *ctx = tuned->getContext();
  tuned->setAttr(kTunedMarker, UnitAttr::get(ctx));
  for (Operation *op : chain)
    op->setAttr(kChainMarker, UnitAttr::get(ctx));
  if (initProducer)
    initProducer->setAttr(kInitMarker, UnitAttr::get(ctx));
}

void EpilogueFusion::unmark() {
  for (Operation *op : chain)
    op->removeAttr(kChainMarker);
  if (tuned)
    tuned->removeAttr(kTunedMarker);
  if (initProducer)
    initProducer->removeAttr(kInitMarker);
}

/// Tiles `last` with `tiling` and fuses into the loops the producers of
/// `fusable` (and only those); the results of `last` are replaced by the
/// loop nest's. The callers erase the originals that became dead.
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseChain(RewriterBase &rewriter, Operation *last,
                 const scf::SCFTilingOptions &tiling,
                 const llvm::SmallPtrSetImpl<Operation *> &fusable) {
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (fusable.contains(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(last);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(last), options);
  if (failed(fused))
    return failure();
  for (OpResult result : last->getResults()) {
    auto it = fused->replacements.find(result);
    if (it != fused->replacements.end())
      rewriter.replaceAllUsesWith(result, it->second);
  }
  return fused;
}

FailureOr<SmallVector<LoopLikeOpInterface>>
EpilogueFusion::fuse(RewriterBase &rewriter, ArrayRef<int64_t> opLoopTiles,
                     scf::SCFTilingOptions::LoopType loopType,
                     ArrayRef<int64_t> opLoopOrder) {
  size_t rank = opLoopOfDim.size();
  SmallVector<int64_t> tiles(rank, 0);
  for (size_t dim = 0; dim < rank; ++dim)
    tiles[dim] = opLoopTiles[opLoopOfDim[dim]];
  if (llvm::all_of(tiles, [](int64_t t) { return t == 0; }))
    return SmallVector<LoopLikeOpInterface>();

  scf::SCFTilingOptions tiling;
  tiling.setLoopType(loopType);
  tiling.setTileSizes(getAsIndexOpFoldResult(tuned->getContext(), tiles));
  if (!opLoopOrder.empty()) {
    // The chain's dims in the order of the op's loops they map to, then the
    // rest (untiled) in their own order.
    SmallVector<int64_t> interchange;
    for (int64_t loop : opLoopOrder)
      for (size_t dim = 0; dim < rank; ++dim)
        if (opLoopOfDim[dim] == loop)
          interchange.push_back(dim);
    for (size_t dim = 0; dim < rank; ++dim)
      if (!llvm::is_contained(interchange, static_cast<int64_t>(dim)))
        interchange.push_back(dim);
    tiling.setInterchange(interchange);
  }
  llvm::SmallPtrSet<Operation *, 8> fusable(chain.begin(), chain.end());
  fusable.insert(tuned);
  if (initProducer)
    fusable.insert(initProducer);
  mark();
  Operation *last = chain.back();
  FailureOr<scf::SCFTileAndFuseResult> fused =
      tileAndFuseChain(rewriter, last, tiling, fusable);
  if (failed(fused)) {
    unmark();
    return failure();
  }
  // Every op of the chain and the tuned op must have been fused; otherwise
  // the tiled loop nest would not compute the chain from the tile.
  Operation *newTuned = nullptr, *newInit = nullptr;
  SmallVector<Operation *> newChain;
  for (Operation *op : fused->tiledAndFusedOps) {
    if (op->hasAttr(kTunedMarker))
      newTuned = op;
    else if (op->hasAttr(kInitMarker))
      newInit = op;
    else if (op->hasAttr(kChainMarker))
      newChain.push_back(op);
  }
  // The originals are dead: erase them, consumers first.
  SmallVector<Operation *> originals(llvm::reverse(chain));
  originals.push_back(tuned);
  if (initProducer)
    originals.push_back(initProducer);
  for (Operation *op : originals)
    if (op->use_empty())
      rewriter.eraseOp(op);
  tuned = newTuned;
  initProducer = newInit;
  // tiledAndFusedOps lists the consumer first, then its producers.
  chain.assign(newChain.rbegin(), newChain.rend());
  unmark();
  if (!tuned || chain.empty())
    return failure();
  ++fusedLevels;
  return fused->loops;
}

FailureOr<SmallVector<LoopLikeOpInterface>>
EpilogueFusion::fuseRegisterTile(RewriterBase &rewriter,
                                 ArrayRef<int64_t> opLoopTiles) {
  FailureOr<SmallVector<LoopLikeOpInterface>> loops =
      fuse(rewriter, opLoopTiles, scf::SCFTilingOptions::LoopType::ForOp);
  if (succeeded(loops))
    registerTile = true;
  return loops;
}

SmallVector<Operation *> EpilogueFusion::getOps() const {
  SmallVector<Operation *> ops;
  if (initProducer)
    ops.push_back(initProducer);
  ops.push_back(tuned);
  llvm::append_range(ops, chain);
  return ops;
}

EpilogueFusion EpilogueFusion::withOps(ArrayRef<Operation *> ops) const {
  EpilogueFusion copy = *this;
  size_t i = 0;
  if (initProducer)
    copy.initProducer = ops[i++];
  copy.tuned = ops[i++];
  copy.chain.assign(ops.begin() + i, ops.end());
  assert(copy.chain.size() == chain.size() && "not a copy of getOps()");
  return copy;
}

void EpilogueFusion::markForPeeling() {
  MLIRContext *ctx = chain.front()->getContext();
  for (Operation *op : chain)
    op->setAttr(kPeelChainMarker, UnitAttr::get(ctx));
  if (initProducer)
    initProducer->setAttr(kPeelInitMarker, UnitAttr::get(ctx));
}

LogicalResult
EpilogueFusion::takePeeledCopies(Operation *scope,
                                 SmallVectorImpl<EpilogueFusion> &copies) {
  // Each copy's ops lie together in walk order (peeling clones a loop's
  // body whole; a loop of one iteration is inlined whole), chain in order.
  SmallVector<Operation *> chainOps, initOps;
  scope->walk([&](Operation *op) {
    if (op->hasAttr(kPeelChainMarker)) {
      op->removeAttr(kPeelChainMarker);
      chainOps.push_back(op);
    }
    if (op->hasAttr(kPeelInitMarker)) {
      op->removeAttr(kPeelInitMarker);
      initOps.push_back(op);
    }
  });
  size_t length = chain.size();
  size_t numCopies = chainOps.size() / length;
  if (chainOps.size() % length != 0 ||
      (initProducer && initOps.size() != numCopies))
    return failure();
  for (size_t c = 0; c < numCopies; ++c) {
    EpilogueFusion copy = *this;
    copy.tuned = nullptr;
    copy.initProducer = initProducer ? initOps[c] : nullptr;
    copy.chain.assign(chainOps.begin() + c * length,
                      chainOps.begin() + (c + 1) * length);
    // Each op consumes the one before it.
    for (size_t i = 1; i < length; ++i)
      if (!llvm::is_contained(copy.chain[i]->getOperands(),
                              copy.chain[i - 1]->getResult(0)))
        return failure();
    copies.push_back(std::move(copy));
  }
  return success();
}

LogicalResult EpilogueFusion::vectorize(RewriterBase &rewriter,
                                        ArrayRef<int64_t> opRegisterTiles) {
  if (registerTile) {
    // One register tile: the init (a fill too, so that the accumulators
    // start from its vector) and the chain, each whole.
    bool all = true;
    SmallVector<Operation *> pieces;
    if (initProducer)
      pieces.push_back(initProducer);
    llvm::append_range(pieces, chain);
    for (Operation *piece : pieces)
      if (failed(vectorizeAndReplace(rewriter, piece)))
        all = false;
    initProducer = nullptr;
    chain.clear();
    return success(all);
  }
  // Rows of the op's register tile along the innermost dim (the tile the
  // config sized for the target's vectors), one element deep elsewhere.
  auto type = cast<RankedTensorType>(chain.back()->getResult(0).getType());
  size_t rank = opLoopOfDim.size();
  SmallVector<int64_t> tiles(rank, 1);
  int64_t inner = type.getDimSize(rank - 1);
  int64_t width = opRegisterTiles[opLoopOfDim[rank - 1]];
  tiles[rank - 1] = (width > 0 && inner % width == 0) ? width : inner;
  for (size_t dim = 0; dim < rank; ++dim)
    if (tiles[dim] >= type.getDimSize(dim))
      tiles[dim] = 0;

  SmallVector<Operation *> pieces(chain);
  // A broadcast init is vectorized in the same rows (a fill stays: it
  // becomes a memset).
  bool all = true;
  if (initProducer && !isa<linalg::FillOp>(initProducer) &&
      cast<RankedTensorType>(initProducer->getResult(0).getType()).getShape() ==
          type.getShape()) {
    Operation *init = initProducer;
    initProducer = nullptr;
    if (llvm::any_of(tiles, [](int64_t t) { return t != 0; })) {
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(getAsIndexOpFoldResult(init->getContext(), tiles));
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(init), tiling);
      if (failed(tiled))
        return failure();
      rewriter.replaceOp(init, tiled->replacements);
      init = tiled->tiledOps.back();
    }
    if (failed(vectorizeAndReplace(rewriter, init)))
      all = false;
  }
  if (llvm::any_of(tiles, [](int64_t t) { return t != 0; })) {
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(
        getAsIndexOpFoldResult(chain.back()->getContext(), tiles));
    llvm::SmallPtrSet<Operation *, 8> fusable(chain.begin(), chain.end());
    FailureOr<scf::SCFTileAndFuseResult> fused =
        tileAndFuseChain(rewriter, chain.back(), tiling, fusable);
    if (failed(fused))
      return failure();
    for (Operation *op : llvm::reverse(chain))
      if (op->use_empty())
        rewriter.eraseOp(op);
    pieces.assign(fused->tiledAndFusedOps.rbegin(),
                  fused->tiledAndFusedOps.rend());
  }
  // A piece that does not vectorize stays scalar: correct, only slower.
  for (Operation *piece : pieces) {
    if (failed(vectorizeAndReplace(rewriter, piece)))
      all = false;
  }
  chain.clear();
  return success(all);
}
