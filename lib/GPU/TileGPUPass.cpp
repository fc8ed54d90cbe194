//===- TileGPUPass.cpp - The tiletune-tile-gpu pass -----------------------===//
//
// Rewrites every op with a cuda config into a gpu.launch through tileForGPU
// (or into nested foralls without `map-to-gpu`), then marks the module as a
// gpu.container_module for kernel outlining. Ops whose config targets another
// target are left alone; tileForGPU reports the ops it rejects.
//
//===----------------------------------------------------------------------===//

#include "PassDetail.h"

#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "tiletune-tile-gpu"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNETILEGPU
#include "tiletune/GPU/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct TileGPUPass : tiletune::impl::TileTuneTileGPUBase<TileGPUPass> {
  using TileTuneTileGPUBase::TileTuneTileGPUBase;

  void runOnOperation() override {
    GPUTilingOptions options;
    options.mapToGPU = mapToGPU;
    options.vectorize = vectorize;
    bool failedAny = false;
    for (Operation *op :
         tiletune::detail::collectCudaOps(getOperation(), DEBUG_TYPE))
      if (failed(tileForGPU(op, options)))
        failedAny = true;
    if (failedAny)
      return signalPassFailure();
    // The launches need gpu.container_module for kernel outlining.
    if (options.mapToGPU &&
        !getOperation().getBody()->getOps<func::FuncOp>().empty())
      getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                              UnitAttr::get(&getContext()));
  }
};
} // namespace
