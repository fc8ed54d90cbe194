//===- CPUPasses.cpp - Post-bufferization CPU cleanups and vector lowering ===//
//
// tiletune-optimize-cpu-buffers (hoisting after bufferization) and
// tiletune-lower-cpu-vectors (contraction -> outer product -> FMA, n-D
// transfers -> 1-D loads/stores).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/BitVector.h"

#define DEBUG_TYPE "tiletune-lower-cpu"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEOPTIMIZECPUBUFFERS
#define GEN_PASS_DEF_TILETUNELOWERCPUVECTORS
#define GEN_PASS_DEF_TILETUNEDROPRETURNEDARGUMENTS
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
    vectorizeSmallCopies(func);
    hoistVectorTransfersOnBuffers(func);
    hoistStaticAllocsOutOfLoops(func);
  }
};

struct LowerCPUVectorsPass
    : public tiletune::impl::TileTuneLowerCPUVectorsBase<LowerCPUVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Operation *func = getOperation();
    // Contractions first: to outer products, then to FMAs on 1-D vectors.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    // Then n-D transfers become unrolled 1-D loads/stores, and the
    // remaining shape ops are lowered.
    {
      RewritePatternSet patterns(ctx);
      VectorTransferToSCFOptions options;
      options.enableFullUnroll();
      populateVectorToSCFConversionPatterns(patterns, options);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace

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
      if (func.isExternal() || !func.isPublic())
        continue;
      if (!SymbolTable::symbolKnownUseEmpty(func, module))
        continue;
      auto returns = llvm::to_vector(func.getOps<func::ReturnOp>());
      if (returns.size() != 1)
        continue;
      func::ReturnOp ret = returns.front();
      llvm::BitVector drop(func.getNumResults());
      for (OpOperand &operand : ret->getOpOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand.get());
        if (arg && arg.getOwner() == &func.getBody().front() &&
            isa<BaseMemRefType>(arg.getType()))
          drop.set(operand.getOperandNumber());
      }
      if (drop.none())
        continue;
      ret->eraseOperands(drop);
      if (failed(func.eraseResults(drop)))
        return signalPassFailure();
    }
  }
};
} // namespace
