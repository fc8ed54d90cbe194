//===- GPUDriver.h - Tuning problems on a CUDA GPU --------------*- C++ -*-===//
//
// The cuda side of `tiletune tune --target=cuda` beyond measuring (which is
// lib/Measure/GPU's GPUProblemMeasurer): the target record of the device,
// and the compile-only ranking used where no GPU exists (ptxas legality
// filter and occupancy, nothing timed).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_GPUDRIVER_H
#define TILETUNE_DRIVER_GPUDRIVER_H

#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace mlir::tiletune {

/// The target cuda results are recorded for: the device's description and
/// compute capability. Errors with the reason when no device is usable.
llvm::Expected<TargetInfo> getCudaTarget();

/// One config of a compile-only ranking with its space key.
struct RankedConfig {
  std::string key;
  CompileOnlyScore score;
};

/// Compile-only ranking of a cuda problem without a GPU: `count` distinct
/// valid configs of `space` (the default config first, then uniform draws with
/// `seed`) are lowered for `lowering.chip` and assembled with ptxas; legal
/// ones first, by descending occupancy, then fewer registers. Needs ptxas.
llvm::Expected<llvm::SmallVector<RankedConfig>>
rankProblemCompileOnly(MLIRContext *ctx, const Problem &problem,
                       const Space &space, unsigned count, uint64_t seed,
                       const GPULoweringOptions &lowering);

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_GPUDRIVER_H
