//===- TileCPUPass.cpp - The tiletune-tile-cpu pass -----------------------===//
//
// Walks the tunable ops of a function and applies their CPU configs through
// the public entry point applyCPUConfig (CPUTiling.h). The pass only picks
// ops and reports: a remark for every tunable op without a config (it is
// lowered untiled), remarks for other ops left untouched (emit-remarks), an
// error at an op whose config cannot be applied (that op is not mutated),
// and a pass failure.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Transforms/CPUTiling.h"
#include "tiletune/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-tile-cpu"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNETILECPU
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
/// Replaces the tiles of a tensor.empty that is only ever sliced (as the
/// fusion of a fill or broadcast into an op's tiles leaves the tiles'
/// initial value: `tensor.extract_slice` of a whole-size empty) by
/// tensor.empty ops of the tiles' shapes: an empty's contents are
/// undefined, so a tile needs nothing from the whole. Left as slices, the
/// identical whole-size empties of several ops are merged by CSE before
/// bufferization, and a tile buffer can then become a view of another
/// op's whole output buffer (megabytes, not kilobytes: its fill and
/// accumulation go to memory instead of L1). Own empties bufferize to
/// allocations of the tile's size. An empty with any other use (the
/// destination that slices are inserted back into, as im2col assembles
/// its windows in place) keeps its slices.
void giveTilesTheirOwnEmpties(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<tensor::ExtractSliceOp> slices;
  func.walk([&](tensor::EmptyOp empty) {
    if (empty->use_empty() ||
        !llvm::all_of(empty->getUsers(), llvm::IsaPred<tensor::ExtractSliceOp>))
      return;
    for (Operation *user : empty->getUsers())
      slices.push_back(cast<tensor::ExtractSliceOp>(user));
  });
  for (tensor::ExtractSliceOp slice : slices) {
    rewriter.setInsertionPoint(slice);
    SmallVector<OpFoldResult> sizes;
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    for (auto [i, size] : llvm::enumerate(slice.getMixedSizes()))
      if (!dropped.test(i))
        sizes.push_back(size);
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        slice, sizes, slice.getType().getElementType(),
        slice.getType().getEncoding());
  }
}

struct TileCPUPass : public tiletune::impl::TileTuneTileCPUBase<TileCPUPass> {
  using TileTuneTileCPUBase::TileTuneTileCPUBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool anyError = false;
    // Elementwise DAGs after the ops (a GELU written out) become one op of
    // their chains, as collectProblems sees them.
    if (fuseEpilogues)
      mergeEpilogueDAGs(func);

    // Classify ops first; tiling one op rewrites the function, so ops with a
    // config are re-collected after each one.
    unsigned numUntouched = 0, numTiled = 0;
    func.walk([&](Operation *op) {
      if (getConfig(op))
        return;
      std::string reason;
      if (failed(matchTunableOp(op, &reason))) {
        // A matmul or convolution TileTune cannot tile (dynamic sizes,
        // mixed element types, grouped convolutions, other maps): said on
        // the op, like an op without a config, never silent. Ops that
        // compute nothing (a loop of size 0) are not worth a word.
        if (isMatmulOrConvLike(op) && !getEmptyOpReason(op)) {
          op->emitRemark() << "left untouched: " << reason
                           << "; it is lowered untiled (naive loops)";
          ++numUntouched;
        }
        return;
      }
      ++numUntouched;
      LLVM_DEBUG(llvm::dbgs() << "skipping " << op->getName() << " at "
                              << op->getLoc() << ": no tiletune.config\n");
      if (requireConfig) {
        op->emitError("tunable op has no tiletune.config (require-config is "
                      "set)");
        anyError = true;
      } else {
        // Always said, emit-remarks or not: the lowering turns the op into
        // naive scalar loops, often two orders of magnitude slower, and
        // nothing else in a compile would say so.
        op->emitRemark("left untouched: no tiletune.config, so it is lowered "
                       "untiled (naive loops); give it a config with "
                       "--tiletune-default-config (or "
                       "tiletune-lower-cpu{default-configs=true}), "
                       "--tiletune-apply-db or `tiletune tune`");
      }
    });

    // The target of `pack = dn`'s vectors (default: the process's).
    std::optional<CPUDescription> target;
    if (!mcpu.empty() || !mattr.empty()) {
      llvm::Expected<CPUDescription> cpu = describeTargetCPU(mcpu, mattr);
      if (!cpu) {
        func.emitError() << "tiletune-tile-cpu: "
                         << llvm::toString(cpu.takeError());
        return signalPassFailure();
      }
      target = *cpu;
    }

    llvm::DenseSet<Operation *> skipped;
    IRRewriter rewriter(&getContext());
    while (true) {
      Operation *next = nullptr;
      func.walk([&](Operation *op) {
        if (!next && getConfig(op) && !skipped.contains(op))
          next = op;
      });
      if (!next)
        break;
      TileConfigAttr config = getConfig(next);
      if (config.getTarget() != kTargetCPU) {
        LLVM_DEBUG(llvm::dbgs()
                   << "skipping " << next->getName() << " at "
                   << next->getLoc() << ": the config targets '"
                   << config.getTarget() << "'\n");
        if (emitRemarks)
          next->emitRemark() << "left untouched: the config targets '"
                             << config.getTarget() << "'";
        ++numUntouched;
        skipped.insert(next);
        continue;
      }
      // The layout and padding rewrites keep the op's location.
      Location loc = next->getLoc();
      CPUConfigError error;
      FailureOr<CPUTilingResult> result =
          applyCPUConfig(rewriter, next, &error, fuseEpilogues,
                         target ? &*target : nullptr, skipPaddingTaps);
      if (failed(result) && error.tilingFailed) {
        emitError(loc) << "tiling by tiletune.config failed";
        return signalPassFailure();
      }
      if (failed(result)) {
        LLVM_DEBUG(llvm::dbgs()
                   << "skipping " << error.op->getName() << " at "
                   << error.op->getLoc() << ": " << error.reason << "\n");
        error.op->emitError() << "cannot apply tiletune.config: "
                              << error.reason;
        anyError = true;
        skipped.insert(error.op);
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "tiled op at " << loc << ": "
                              << result->numThreads << " threads, "
                              << result->numCacheLoops << " cache loops, "
                              << result->numRegisterLoops
                              << " register loops, " << result->numPackCopies
                              << " packing copies\n");
      ++numTiled;
      if (emitRemarks && result->vectorizeRequested && !result->vectorized)
        emitRemark(loc) << "register tile left scalar: vectorization failed";
      if (emitRemarks && fuseEpilogues && !result->epilogueNotFused.empty())
        emitRemark(loc) << "epilogue not fused: " << result->epilogueNotFused
                        << "; it runs as a separate op";
      if (emitRemarks && result->numEpilogueOps > 0)
        emitRemark(loc) << "fused " << result->numEpilogueOps
                        << " elementwise op"
                        << (result->numEpilogueOps == 1 ? "" : "s") << " at "
                        << result->epilogueLevels << " loop level"
                        << (result->epilogueLevels == 1 ? "" : "s")
                        << (result->epilogueByRegisterTile
                                ? ", the last by the register tile"
                                : "")
                        << (result->epilogueVectorized ? ", vectorized"
                                                       : ", left scalar");
    }
    if (numTiled > 0)
      giveTilesTheirOwnEmpties(rewriter, func);
    if (emitRemarks && (numTiled > 0 || numUntouched > 0))
      func.emitRemark() << "tiletune-tile-cpu: tiled " << numTiled
                        << " op" << (numTiled == 1 ? "" : "s") << " of @"
                        << func.getSymName() << ", left " << numUntouched
                        << " matmul/conv op" << (numUntouched == 1 ? "" : "s")
                        << " untouched (see the remarks on them)";
    if (anyError)
      signalPassFailure();
  }
};
} // namespace
