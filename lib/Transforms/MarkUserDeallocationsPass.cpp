//===- MarkUserDeallocationsPass.cpp - tiletune-mark-user-deallocations ---===//
//
// Marks the frees a module does itself, and the allocations they free, as
// manual deallocations, so that the ownership-based buffer deallocation of
// tiletune-lower-cpu accepts the module. The work is done by
// markUserDeallocations (CPUTiling.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Transforms/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-mark-user-deallocations"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEMARKUSERDEALLOCATIONS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct MarkUserDeallocationsPass
    : public tiletune::impl::TileTuneMarkUserDeallocationsBase<
          MarkUserDeallocationsPass> {
  void runOnOperation() override {
    FailureOr<unsigned> marked = markUserDeallocations(getOperation());
    if (failed(marked))
      return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << *marked << " ops marked as manual "
                            << "deallocations\n");
  }
};
} // namespace
