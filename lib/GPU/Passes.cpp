//===- Passes.cpp - Registration of the GPU passes and pipeline -----------===//
//
// Registers the GPU passes (one file each: TileGPUPass.cpp,
// DefaultGPUConfigPass.cpp, GPUCheckPass.cpp) and the `tiletune-lower-gpu`
// pipeline, which only maps its options onto buildGPULoweringPipeline; also
// holds the helper the passes share (PassDetail.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/Passes.h"

#include "PassDetail.h"

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/GPU/GPULowering.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Debug.h"

using namespace mlir;
using namespace mlir::tiletune;

SmallVector<Operation *>
mlir::tiletune::detail::collectCudaOps(Operation *root, const char *debugType) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    TileConfigAttr config = getConfig(op);
    if (!config)
      return;
    if (config.getTarget() != kTargetCUDA) {
      DEBUG_WITH_TYPE(debugType, llvm::dbgs()
                                     << "skipping " << op->getName() << " at "
                                     << op->getLoc() << ": its config targets '"
                                     << config.getTarget() << "', not cuda\n");
      return;
    }
    ops.push_back(op);
  });
  return ops;
}

namespace {

/// Options of the `tiletune-lower-gpu` pipeline.
struct LowerGPUPipelineOptions
    : public PassPipelineOptions<LowerGPUPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU (sm_70 ... sm_90a)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA feature (+ptxNN); default +ptx80"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu.binary format: isa (PTX), bin (cubin), fatbin"),
      llvm::cl::init("fatbin")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("NVPTX optimisation level (0-3)"),
                            llvm::cl::init(3)};
  Option<bool> bufferize{
      *this, "bufferize",
      llvm::cl::desc("Bufferize tensor functions first (identity layouts)"),
      llvm::cl::init(true)};
};

} // namespace

void mlir::tiletune::registerTileTuneGPUPasses() {
  registerTileTuneGPUPassPasses();
  PassPipelineRegistration<LowerGPUPipelineOptions>(
      "tiletune-lower-gpu",
      "Bufferize, tile ops by their cuda configs and lower to NVVM, a "
      "gpu.binary and host code calling the mgpu* runtime",
      [](OpPassManager &pm, const LowerGPUPipelineOptions &options) {
        GPULoweringOptions lowering;
        lowering.chip = options.chip;
        lowering.features = options.features;
        lowering.format = options.format;
        lowering.optLevel = options.optLevel;
        lowering.bufferize = options.bufferize;
        buildGPULoweringPipeline(pm, lowering);
      });
}
