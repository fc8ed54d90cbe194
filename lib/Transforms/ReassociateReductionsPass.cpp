//===- ReassociateReductionsPass.cpp - tiletune-reassociate-reductions ----===//
//
// Marks the accumulating add/multiply of the reductions of untiled linalg
// ops with the `reassoc` fast-math flag, so that LLVM's loop vectorizer may
// sum them in vector lanes once they are lowered to loops.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEREASSOCIATEREDUCTIONS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

/// Adds `reassoc` to `op`'s fast-math flags when it is an arith.addf or
/// arith.mulf with `accumulator` as one operand (`op` may be null).
static void markAccumulation(Operation *op, Value accumulator) {
  auto fastmath = dyn_cast_or_null<arith::ArithFastMathInterface>(op);
  if (!fastmath || !isa<arith::AddFOp, arith::MulFOp>(op) ||
      !llvm::is_contained(op->getOperands(), accumulator))
    return;
  arith::FastMathFlags flags = fastmath.getFastMathFlagsAttr().getValue();
  op->setAttr(fastmath.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::reassoc));
}

namespace {
struct ReassociateReductionsPass
    : public tiletune::impl::TileTuneReassociateReductionsBase<
          ReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation()->walk([](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 0 || op->getNumRegions() != 1 ||
          op->getRegion(0).empty())
        return;
      Block *body = op.getBlock();
      auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
      if (!yield)
        return;
      // Output i's block argument follows the inputs'; its yielded value
      // must come from one add/multiply of that argument.
      for (OpOperand &init : op.getDpsInitsMutable()) {
        unsigned index = init.getOperandNumber() - op.getNumDpsInputs();
        if (index >= yield->getNumOperands())
          continue;
        BlockArgument accumulator = op.getMatchingBlockArgument(&init);
        Value yielded = yield->getOperand(index);
        if (yielded.getParentBlock() == body)
          markAccumulation(yielded.getDefiningOp(), accumulator);
      }
    });
  }
};
} // namespace
