//===- LowerCPUVectorsPass.cpp - The tiletune-lower-cpu-vectors pass ------===//
//
// Lowers the vector code of tiled CPU kernels to what convert-vector-to-llvm
// turns into FMAs and plain loads/stores: contractions to outer products and
// FMAs on 1-D vectors, then n-D transfers to unrolled 1-D loads/stores and
// the remaining shape ops (transposes, broadcasts, shape casts).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tiletune-lower-cpu-vectors"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNELOWERCPUVECTORS
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
/// Splats of the elements of a short 1-D load load each element alone:
///
/// ```mlir
/// %v = vector.load %a[%i, %k] : memref<64x256xf32>, vector<2xf32>
/// %e = vector.extract %v[1] : f32 from vector<2xf32>
/// %s = vector.broadcast %e : f32 to vector<32xf32>
/// // becomes
/// %k1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
/// %e = memref.load %a[%i, %k1] : memref<64x256xf32>
/// %s = vector.broadcast %e : f32 to vector<32xf32>
/// ```
///
/// This is the A operand of a register tile unrolled over k: one short row
/// per accumulator row, each element splat for one FMA. x86 backends splat
/// a loaded scalar straight from memory (`vbroadcastss mem`, a load port),
/// but the elements after the first of a loaded pair through `vpermps`,
/// which takes the FMA's port 5 on AVX-512 cores: a 1024^3 matmul with
/// `unroll = 2` ran 17.8 ms against 14.7 with `unroll = 1` and 13.6 with
/// 4 (Xeon, 1 thread). The load must have only such uses (each element is
/// then loaded once in place of the vector).
struct SplatElementsFromMemory : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp load,
                                PatternRewriter &rewriter) const override {
    VectorType type = load.getVectorType();
    if (type.getRank() != 1 || type.isScalable() || load->use_empty())
      return failure();
    for (Operation *user : load->getUsers()) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      if (!extract || extract.getSource() != load.getResult() ||
          extract.hasDynamicPosition() || isa<VectorType>(extract.getType()) ||
          !llvm::all_of(extract->getUsers(), [](Operation *use) {
            return isa<vector::BroadcastOp>(use);
          }))
        return failure();
    }
    Location loc = load.getLoc();
    SmallVector<Value> indices(load.getIndices());
    for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
      auto extract = cast<vector::ExtractOp>(user);
      int64_t pos = extract.getStaticPosition()[0];
      rewriter.setInsertionPoint(extract);
      SmallVector<Value> at = indices;
      if (pos != 0)
        at.back() = affine::AffineApplyOp::create(
            rewriter, loc,
            AffineMap::get(1, 0, rewriter.getAffineDimExpr(0) + pos),
            ValueRange{indices.back()});
      rewriter.replaceOpWithNewOp<memref::LoadOp>(extract, load.getBase(), at);
    }
    rewriter.eraseOp(load);
    return success();
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
      // Transposes (layout conversions, transposed operands) become one
      // shuffle of the flattened vector, which LLVM lowers to permutes: an
      // NCHW 1x1 conv with its two layout transposes ran at 130 GFLOP/s
      // instead of 100 with element-wise extract/insert, and compiled in
      // 0.44 s instead of 0.59 (matmuls unchanged; docs/CPUSchedule.md).
      // A 16x16 block of 32-bit elements (the blocks of packing and layout
      // transposes, VectorizeCopies.cpp) goes through upstream's
      // unpack/shuffle network of the 16x16 transpose instead (other shapes
      // fall back to the one flat shuffle).
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle16x16);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    // Last, once the transfers are 1-D loads: splatted elements come
    // straight from memory.
    {
      RewritePatternSet patterns(ctx);
      patterns.add<SplatElementsFromMemory>(ctx);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
