//===- Pipelines.cpp - The tiletune-lower-cpu pipeline --------------------===//
//
// buildCPULoweringPipeline and the registration of all TileTune transforms.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Pipelines.h"
#include "tiletune/Transforms/Passes.h"

#include "tiletune/Support/Target.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tiletune;

CPULoweringOptions CPULoweringPipelineOptions::toOptions() const {
  CPULoweringOptions options;
  options.threads = threads;
  options.tile = tile;
  options.defaultConfigs = defaultConfigs;
  options.mcpu = mcpu;
  options.mattr = mattr;
  options.caches = caches;
  options.emitCInterface = emitCInterface;
  options.fuseEpilogues = fuseEpilogues;
  options.skipPaddingTaps = skipPaddingTaps;
  options.padsInPlace = padsInPlace;
  options.approximateMath = approximateMath;
  options.reassociateReductions = reassociateReductions;
  options.interchangeReductions = interchangeReductions;
  return options;
}

void tiletune::buildCPULoweringPipeline(OpPassManager &pm,
                                        const CPULoweringOptions &options) {
  if (options.emitCInterface)
    pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  if (options.defaultConfigs) {
    TileTuneDefaultConfigOptions defaults;
    // Sized for the threads the kernel runs with: 0 (OpenMP's default)
    // stands for every core this process may run on.
    defaults.threads = std::max<int64_t>(0, options.threads);
    defaults.mcpu = options.mcpu;
    defaults.mattr = options.mattr;
    defaults.caches = options.caches;
    pm.addPass(createTileTuneDefaultConfig(defaults));
  }
  if (options.tile) {
    TileTuneTileCPUOptions tiling;
    tiling.fuseEpilogues = options.fuseEpilogues;
    tiling.skipPaddingTaps = options.skipPaddingTaps;
    tiling.mcpu = options.mcpu;
    tiling.mattr = options.mattr;
    pm.addNestedPass<func::FuncOp>(createTileTuneTileCPU(tiling));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.padsInPlace)
    pm.addNestedPass<func::FuncOp>(createTileTunePadsInPlace());

  // Bufferization: tensor arguments become identity-layout memrefs; results
  // that alias an argument are dropped (the caller's buffer holds them).
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  pm.addPass(createTileTuneDropReturnedArguments());
  pm.addNestedPass<func::FuncOp>(createTileTuneOptimizeCPUBuffers());
  // Frees every buffer bufferization and packing allocated; buffers the
  // module frees itself are left to it.
  pm.addPass(createTileTuneMarkUserDeallocations());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Whatever was not tiled or vectorized becomes loops; the sums of its
  // reductions may be reordered so that LLVM vectorizes them.
  if (options.interchangeReductions)
    pm.addNestedPass<func::FuncOp>(createTileTuneInterchangeReductions());
  if (options.reassociateReductions)
    pm.addNestedPass<func::FuncOp>(createTileTuneReassociateReductions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Transcendental functions as arithmetic, which LLVM vectorizes (a libm
  // call per element otherwise: BERT's softmax and GELU).
  if (options.approximateMath)
    pm.addNestedPass<func::FuncOp>(createTileTuneApproximateMath());

  // scf.forall -> scf.parallel -> OpenMP. The canonicalizer inlines the
  // memref.alloca_scope the conversion wraps around each body (it must go
  // before control flow is lowered) and runs before vector lowering, which
  // must not be followed by canonicalization.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  ConvertSCFToOpenMPPassOptions openmp;
  openmp.numThreads =
      static_cast<unsigned>(std::max<int64_t>(0, options.threads));
  pm.addPass(createConvertSCFToOpenMPPass(openmp));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createTileTuneLowerCPUVectors());

  // To the LLVM dialect.
  VectorTransferToSCFOptions transfers;
  transfers.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(transfers));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void tiletune::registerCPULoweringPipeline() {
  // PassPipelineRegistration cannot refuse options, so the pipeline is
  // registered with a builder that checks them first (an error when the
  // pipeline is parsed, before any pass runs).
  registerPassPipeline(
      "tiletune-lower-cpu",
      "Tile and vectorize by tiletune.config, bufferize, and lower to the "
      "LLVM dialect with OpenMP for the parallel level",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CPULoweringPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (llvm::Error err = checkThreadCount(
                options.threads, "the threads option of tiletune-lower-cpu"))
          return errorHandler(llvm::toString(std::move(err)));
        // Only compiled here: a target the host cannot run is fine.
        llvm::Expected<CPUDescription> cpu =
            describeTargetCPU(options.mcpu, options.mattr);
        if (!cpu)
          return errorHandler("tiletune-lower-cpu: " +
                              llvm::toString(cpu.takeError()));
        if (llvm::Error err = overrideCacheSizes(cpu->caches, options.caches))
          return errorHandler("tiletune-lower-cpu: " +
                              llvm::toString(std::move(err)));
        buildCPULoweringPipeline(pm, options.toOptions());
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(CPULoweringPipelineOptions());
      });
}

void tiletune::registerTileTuneTransformsPasses() {
  registerTileTuneCPUPasses();
  registerCPULoweringPipeline();
}
