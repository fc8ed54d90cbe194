//===- OptimizeCPUBuffersPass.cpp - The tiletune-optimize-cpu-buffers pass ===//
//
// Post-bufferization cleanup of tiled CPU code: erases copies onto
// themselves, folds the layout transposes of an NCHW conv's output into the
// conv's accesses, vectorizes the (packing, padding, layout) buffer copies,
// hoists vector transfers so output tiles stay in registers, and moves
// static buffers out of sequential loops. The work is done by
// eraseCopiesOntoThemselves, foldLayoutTransposesIntoAccesses,
// vectorizeSmallCopies, hoistVectorTransfersOnBuffers and
// hoistStaticAllocsOutOfLoops (CPUTiling.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-optimize-cpu-buffers"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEOPTIMIZECPUBUFFERS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct OptimizeCPUBuffersPass
    : public tiletune::impl::TileTuneOptimizeCPUBuffersBase<
          OptimizeCPUBuffersPass> {
  void runOnOperation() override {
    Operation *func = getOperation();
    [[maybe_unused]] unsigned selfCopies = eraseCopiesOntoThemselves(func);
    [[maybe_unused]] unsigned layouts = foldLayoutTransposesIntoAccesses(func);
    [[maybe_unused]] unsigned copies = vectorizeSmallCopies(func);
    hoistVectorTransfersOnBuffers(func);
    [[maybe_unused]] unsigned allocs = hoistStaticAllocsOutOfLoops(func);
    LLVM_DEBUG(llvm::dbgs()
               << "@" << cast<func::FuncOp>(func).getSymName() << ": "
               << selfCopies << " copies onto themselves erased, " << layouts
               << " layout transpose pairs folded, " << copies
               << " copies vectorized or "
               << "removed, " << allocs << " allocations hoisted\n");
  }
};
} // namespace
