//===- GPUTiling.h - Tile tunable ops into a gpu.launch ---------*- C++ -*-===//
//
// The C++ entry points behind `tiletune-tile-gpu`: the rewrite of an op into
// a gpu.launch following OpEvo's templates, by the plan of GPUKernelPlan.h
// (included here), and the transform script that rewrite applies.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_GPUTILING_H
#define TILETUNE_GPU_GPUTILING_H

#include "tiletune/GPU/GPUKernelPlan.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::gpu {
class LaunchOp;
} // namespace mlir::gpu

namespace mlir::tiletune {

/// Options of tileForGPU.
struct GPUTilingOptions {
  /// Create the gpu.launch and map loops to blocks and threads; when false
  /// the result stays as nested scf.forall loops with mapping attributes and
  /// shared buffers in the default memory space (executable on the CPU).
  bool mapToGPU = true;
  /// Vectorize the per-thread tiles and the cooperative copies.
  bool vectorize = true;
};

/// The transform-dialect script that tiles, promotes and maps one op with
/// `plan` (its first stage). Exposed for inspection and documentation.
std::string buildGPUTilingScript(const GPUKernelPlan &plan,
                                 const GPUTilingOptions &options);

/// Tiles `op` (a tunable linalg op on memrefs with a cuda config) into a
/// gpu.launch (or nested foralls when !options.mapToGPU). Nothing is
/// changed when the config or the op is rejected; diagnostics are emitted
/// on `op`. Returns the launch (null when !options.mapToGPU).
FailureOr<gpu::LaunchOp> tileForGPU(Operation *op,
                                    const GPUTilingOptions &options = {});

} // namespace mlir::tiletune

#endif // TILETUNE_GPU_GPUTILING_H
