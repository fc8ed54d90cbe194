//===- PadsInPlacePass.cpp - tiletune-pads-in-place -----------------------===//
//
// Makes the interior of a tensor.pad's result the tensor.empty its source is
// computed into, so that the producer writes into the padded buffer and the
// pad's copy disappears at bufferization.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEPADSINPLACE
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

/// The use of a tensor.empty that `value` is computed in: followed from
/// each result to the operand it is written into (the tied init of a
/// destination-style op, e.g. a linalg op or a tensor.insert_slice; the init
/// of an scf.for or scf.forall result) until that operand is a tensor.empty.
/// Each operand on the way must be used only there, so that the one at the
/// end can be replaced without changing anything else (the empty itself may
/// have other uses: CSE merges the empties of equal shapes). Null where the
/// chain ends elsewhere (an argument, a constant, a value read again).
static OpOperand *findDestinationEmpty(Value value) {
  while (auto result = dyn_cast<OpResult>(value)) {
    Operation *def = result.getOwner();
    OpOperand *init = nullptr;
    if (auto forOp = dyn_cast<scf::ForOp>(def))
      init = forOp.getTiedLoopInit(result);
    else if (auto forall = dyn_cast<scf::ForallOp>(def))
      init = forall.getTiedOpOperand(result);
    else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def);
             dps && dps.hasPureTensorSemantics())
      init = dps.getTiedOpOperand(result);
    if (!init)
      return nullptr;
    if (init->get().getDefiningOp<tensor::EmptyOp>())
      return init;
    if (!init->get().hasOneUse())
      return nullptr;
    value = init->get();
  }
  return nullptr;
}

/// Rewrites `pad` as described in Passes.td; false where it does not apply.
static bool writePadInPlace(RewriterBase &rewriter, tensor::PadOp pad) {
  RankedTensorType sourceType = pad.getSourceType();
  RankedTensorType paddedType = pad.getResultType();
  if (!sourceType.hasStaticShape() || !paddedType.hasStaticShape() ||
      !pad.getLow().empty() || !pad.getHigh().empty())
    return false;
  Value padValue = pad.getConstantPaddingValue();
  TypedAttr padAttr;
  if (!padValue || !matchPattern(padValue, m_Constant(&padAttr)))
    return false;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return false;
  OpOperand *emptyUse = findDestinationEmpty(pad.getSource());
  if (!emptyUse || emptyUse->get().getType() != sourceType)
    return false;

  // The padded tensor, its border filled slab by slab: along dim d, the
  // rows before and after the source, within the source's extent along the
  // dims before d and whole along those after it (so no element is filled
  // twice and the interior is not touched).
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(emptyUse->getOwner());
  MLIRContext *ctx = rewriter.getContext();
  ArrayRef<int64_t> sourceShape = sourceType.getShape();
  ArrayRef<int64_t> paddedShape = paddedType.getShape();
  int64_t rank = sourceType.getRank();
  SmallVector<OpFoldResult> unitStrides(rank, rewriter.getIndexAttr(1));
  Value fillValue = arith::ConstantOp::create(rewriter, loc, padAttr);
  Value padded = tensor::EmptyOp::create(rewriter, loc, paddedShape,
                                         paddedType.getElementType());
  for (int64_t d = 0; d < rank; ++d) {
    for (bool before : {true, false}) {
      int64_t width = before ? low[d] : high[d];
      if (width == 0)
        continue;
      SmallVector<int64_t> offsets(rank, 0), sizes(paddedShape);
      for (int64_t j = 0; j < d; ++j) {
        offsets[j] = low[j];
        sizes[j] = sourceShape[j];
      }
      offsets[d] = before ? 0 : low[d] + sourceShape[d];
      sizes[d] = width;
      SmallVector<OpFoldResult> offsetsOfr =
          getAsIndexOpFoldResult(ctx, offsets);
      SmallVector<OpFoldResult> sizesOfr = getAsIndexOpFoldResult(ctx, sizes);
      Value slab = tensor::ExtractSliceOp::create(
          rewriter, loc, padded, offsetsOfr, sizesOfr, unitStrides);
      Value filled =
          linalg::FillOp::create(rewriter, loc, fillValue, slab).getResult(0);
      padded = tensor::InsertSliceOp::create(rewriter, loc, filled, padded,
                                             offsetsOfr, sizesOfr, unitStrides);
    }
  }
  SmallVector<OpFoldResult> interiorOffsets = getAsIndexOpFoldResult(ctx, low);
  SmallVector<OpFoldResult> interiorSizes =
      getAsIndexOpFoldResult(ctx, sourceShape);
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, sourceType,
                                                  padded, interiorOffsets,
                                                  interiorSizes, unitStrides);
  rewriter.modifyOpInPlace(emptyUse->getOwner(),
                           [&] { emptyUse->set(interior); });
  rewriter.setInsertionPoint(pad);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      pad, pad.getSource(), padded, interiorOffsets, interiorSizes,
      unitStrides);
  return true;
}

namespace {
struct PadsInPlacePass
    : public tiletune::impl::TileTunePadsInPlaceBase<PadsInPlacePass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation()->walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    IRRewriter rewriter(&getContext());
    for (tensor::PadOp pad : pads)
      writePadInPlace(rewriter, pad);
  }
};
} // namespace
