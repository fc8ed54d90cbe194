//===- BufferCleanups.cpp - Hoisting on buffers after tiling --------------===//
//
// Cleanups of tiled code on memrefs: loop-invariant code motion, vector
// transfer hoisting (the accumulator of a register tile stays in registers)
// and moving static allocations out of sequential loops. Run by
// tiletune-tile-cpu on buffer inputs and by tiletune-optimize-cpu-buffers
// after bufferization.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"

#include "TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Vector transfer hoisting
//===----------------------------------------------------------------------===//

void tiletune::hoistInvariantCode(Operation *root) {
  root->walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
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
