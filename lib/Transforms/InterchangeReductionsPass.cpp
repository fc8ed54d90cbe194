//===- InterchangeReductionsPass.cpp - tiletune-interchange-reductions ----===//
//
// Untiled linalg ops whose reduction loops run inside the loop along the
// contiguous dim of their operands (pools: the window inside the channels)
// get that loop innermost, so that the loops convert-linalg-to-loops makes
// vectorize.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEINTERCHANGEREDUCTIONS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

/// Whether `map` reads along loop `dim` contiguously: `dim` only as its
/// last result, or not at all (a broadcast along it).
static bool isContiguousIn(AffineMap map, unsigned dim) {
  if (!map.isFunctionOfDim(dim))
    return true;
  ArrayRef<AffineExpr> results = map.getResults();
  auto last = dyn_cast<AffineDimExpr>(results.back());
  if (!last || last.getPosition() != dim)
    return false;
  return llvm::none_of(results.drop_back(), [&](AffineExpr expr) {
    return expr.isFunctionOfDim(dim);
  });
}

/// The loop order (new position -> old loop) that moves the parallel loop
/// along the innermost dim of `op`'s one output innermost, when every
/// operand is contiguous along it and a reduction loop runs inside it;
/// empty otherwise.
static SmallVector<unsigned> getInterchange(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return {};
  auto dimExpr = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!dimExpr)
    return {};
  unsigned dim = dimExpr.getPosition();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (!linalg::isParallelIterator(iterators[dim]))
    return {};
  bool reductionInside = llvm::any_of(ArrayRef(iterators).drop_front(dim + 1),
                                      linalg::isReductionIterator);
  if (!reductionInside)
    return {};
  for (OpOperand &operand : op->getOpOperands())
    if (!isContiguousIn(op.getMatchingIndexingMap(&operand), dim))
      return {};
  SmallVector<unsigned> order;
  for (unsigned loop = 0, e = iterators.size(); loop < e; ++loop)
    if (loop != dim)
      order.push_back(loop);
  order.push_back(dim);
  return order;
}

namespace {
struct InterchangeReductionsPass
    : public tiletune::impl::TileTuneInterchangeReductionsBase<
          InterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics())
        return;
      if (SmallVector<unsigned> order = getInterchange(op); !order.empty())
        ops.emplace_back(op, std::move(order));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};
} // namespace
