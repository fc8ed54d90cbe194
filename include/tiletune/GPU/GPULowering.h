//===- GPULowering.h - Lower tiled GPU kernels to NVVM/PTX ------*- C++ -*-===//
//
// The `tiletune-lower-gpu` pipeline: bufferization, tiling by the cuda
// configs, and upstream lowering to NVVM and a gpu.binary (PTX, cubin or
// fatbin) plus host code calling the mgpu* runtime functions. Works without a
// GPU; cubin/fatbin need ptxas from the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_GPULOWERING_H
#define TILETUNE_GPU_GPULOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tiletune {

/// Options of the GPU lowering.
struct GPULoweringOptions {
  /// Target architecture, "sm_70" ... "sm_90a".
  std::string chip = "sm_90";
  /// PTX ISA feature ("+ptx80"); empty = getDefaultPTXFeatures(chip).
  std::string features;
  /// gpu.binary format: "isa" (PTX text, JIT-compiled by the driver at load
  /// time), "bin" (cubin) or "fatbin" (both need ptxas at compile time).
  std::string format = "fatbin";
  /// Optimisation level of the NVPTX backend (0-3).
  unsigned optLevel = 3;
  /// Bufferize tensor functions first (function boundaries become memrefs
  /// with identity layouts; results equal to arguments are dropped).
  bool bufferize = true;
};

/// The PTX ISA feature used for `chip` when none is given (+ptx80, which
/// LLVM 22 and CUDA >= 12 accept for sm_70 ... sm_90a).
std::string getDefaultPTXFeatures(llvm::StringRef chip);

/// Checks chip, features and format: a chip LLVM's NVPTX backend does not
/// know, or a PTX version too old for it, aborts the process inside LLVM, so
/// it is rejected here with `reason` set.
LogicalResult validateGPULoweringOptions(const GPULoweringOptions &options,
                                         std::string *reason = nullptr);

/// Adds the whole pipeline to `pm` (a builtin.module pass manager). The
/// options must be valid (validateGPULoweringOptions); when they are not, a
/// pass that fails with the reason is added instead.
void buildGPULoweringPipeline(OpPassManager &pm,
                              const GPULoweringOptions &options);

/// Runs the pipeline on `module`; diagnostics come back in the error.
llvm::Error lowerToGPUBinary(ModuleOp module,
                             const GPULoweringOptions &options);

/// PTX of every kernel module in `module`: the objects of its gpu.binary ops
/// lowered with format "isa", or the PTX left on gpu.module ops.
llvm::Expected<llvm::SmallVector<std::string>> extractPTX(ModuleOp module);

} // namespace mlir::tiletune

#endif // TILETUNE_GPU_GPULOWERING_H
