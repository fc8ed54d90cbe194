//===- DropReturnedArgumentsPass.cpp - tiletune-drop-returned-arguments ---===//
//
// After function-boundary bufferization a tensor kernel returns the memref
// of its `outs` argument. For public functions nobody in the module calls
// (kernels called through their C interface), the pass removes such
// results: the caller already holds the buffer, and returning it would make
// the deallocation pipeline clone it on every call.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-drop-returned-arguments"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEDROPRETURNEDARGUMENTS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
/// Drops results that return a function argument unchanged from public
/// functions nobody in the module calls (kernels called through their C
/// interface): the caller already holds that buffer, and returning it would
/// make the deallocation pipeline clone it on every call.
struct DropReturnedArgumentsPass
    : public tiletune::impl::TileTuneDropReturnedArgumentsBase<
          DropReturnedArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      auto skip = [&]([[maybe_unused]] StringRef why) {
        LLVM_DEBUG(llvm::dbgs() << "skipping @" << func.getSymName() << ": "
                                << why << "\n");
      };
      if (func.isExternal() || !func.isPublic()) {
        skip("external or not public");
        continue;
      }
      if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
        skip("called in the module");
        continue;
      }
      auto returns = llvm::to_vector(func.getOps<func::ReturnOp>());
      if (returns.size() != 1) {
        skip("not exactly one func.return");
        continue;
      }
      func::ReturnOp ret = returns.front();
      llvm::BitVector drop(func.getNumResults());
      for (OpOperand &operand : ret->getOpOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand.get());
        if (arg && arg.getOwner() == &func.getBody().front() &&
            isa<BaseMemRefType>(arg.getType()))
          drop.set(operand.getOperandNumber());
      }
      if (drop.none()) {
        skip("returns no argument buffer");
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "@" << func.getSymName() << ": dropping "
                              << drop.count() << " returned argument(s)\n");
      ret->eraseOperands(drop);
      if (failed(func.eraseResults(drop)))
        return signalPassFailure();
    }
  }
};
} // namespace
