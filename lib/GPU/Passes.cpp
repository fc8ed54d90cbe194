//===- Passes.cpp - TileTune GPU passes and pipeline ----------------------===//
//
// The passes only map options onto the entry points of GPUTiling.h and
// GPULowering.h.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/Passes.h"

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/GPU/GPULowering.h"
#include "tiletune/GPU/GPUTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNETILEGPU
#define GEN_PASS_DEF_TILETUNEGPUCHECK
#define GEN_PASS_DEF_TILETUNEDEFAULTGPUCONFIG
#include "tiletune/GPU/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {

/// The ops with a cuda config under `root`, in program order.
SmallVector<Operation *> collectCudaOps(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (TileConfigAttr config = getConfig(op))
      if (config.getTarget() == kTargetCUDA)
        ops.push_back(op);
  });
  return ops;
}

struct DefaultGPUConfigPass
    : tiletune::impl::TileTuneDefaultGPUConfigBase<DefaultGPUConfigPass> {
  using TileTuneDefaultGPUConfigBase::TileTuneDefaultGPUConfigBase;

  void runOnOperation() override {
    forEachOpToConfigure(
        getOperation(), overwrite, [&](Operation *op, const TunableOp &t) {
          SmallVector<int64_t> strides, dilations;
          getConvStridesAndDilations(op, strides, dilations);
          setConfig(op, computeDefaultCUDAConfig(&getContext(), t, strides,
                                                 dilations));
        });
  }
};

struct TileGPUPass : tiletune::impl::TileTuneTileGPUBase<TileGPUPass> {
  using TileTuneTileGPUBase::TileTuneTileGPUBase;

  void runOnOperation() override {
    GPUTilingOptions options;
    options.mapToGPU = mapToGPU;
    options.vectorize = vectorize;
    bool failedAny = false;
    for (Operation *op : collectCudaOps(getOperation()))
      if (failed(tileForGPU(op, options)))
        failedAny = true;
    if (failedAny)
      return signalPassFailure();
    // The launches need gpu.container_module for kernel outlining.
    if (options.mapToGPU && !getOperation()
                                 .getBody()
                                 ->getOps<func::FuncOp>()
                                 .empty())
      getOperation()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                              UnitAttr::get(&getContext()));
  }
};

struct GPUCheckPass : tiletune::impl::TileTuneGPUCheckBase<GPUCheckPass> {
  using TileTuneGPUCheckBase::TileTuneGPUCheckBase;

  /// The rest of the pipeline serializes gpu.module ops to PTX/cubin: that
  /// needs the LLVM IR translations of the GPU, NVVM and LLVM dialects and
  /// the NVVM target attribute's serializer, which an opt tool does not
  /// necessarily register.
  void getDependentDialects(DialectRegistry &registry) const override {
    TileTuneGPUCheckBase::getDependentDialects(registry);
    registerAllGPUToLLVMIRTranslations(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    GPULoweringOptions lowering;
    lowering.chip = chip;
    lowering.features = features;
    lowering.format = format;
    std::string reason;
    if (failed(validateGPULoweringOptions(lowering, &reason))) {
      getOperation().emitError("invalid GPU target: ") << reason;
      return signalPassFailure();
    }
    bool failedAny = false;
    for (Operation *op : collectCudaOps(getOperation())) {
      FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
      if (failed(plan) || failed(checkGPULimits(*plan, GPULimits(), &reason))) {
        op->emitError("illegal cuda config: ") << reason;
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

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
