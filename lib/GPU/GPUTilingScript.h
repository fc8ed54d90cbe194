//===- GPUTilingScript.h - Markers shared by script and rewrite -*- C++ -*-===//
//
// Private to lib/GPU. The GPU rewrite (GPUTiling.cpp) applies transform
// scripts generated as text (GPUTilingScript.cpp); the two sides find IR
// between the stages by the marker attributes declared here, and the rewrite
// applies the second-stage (vectorization) script built here. The first-stage
// script builder, buildGPUTilingScript, is public (GPUTiling.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_GPU_GPUTILINGSCRIPT_H
#define TILETUNE_LIB_GPU_GPUTILINGSCRIPT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tiletune::detail {

/// The op being rewritten; set by tileForGPU before the first script.
inline constexpr StringLiteral kTargetMarker = "tiletune.gpu_tile_target";
/// The block-level forall, then the gpu.launch made from it.
inline constexpr StringLiteral kKernelMarker = "tiletune.gpu_kernel";
/// The loops over the shared-memory tiles of the reductions.
inline constexpr StringLiteral kSharedLoopMarker = "tiletune.shared_loop";
/// The loops over the virtual threads (and batch entries) of a block.
inline constexpr StringLiteral kVThreadLoopMarker = "tiletune.vthread_loop";
/// The loops over the register tiles of the reductions.
inline constexpr StringLiteral kRegisterLoopMarker = "tiletune.register_loop";

/// The second-stage script: vectorization of the per-thread tiles and
/// copies, hoisting of the accumulators, lowering of the vector ops to FMAs.
/// Applied to the function after the first stage (and the launch rewrites).
std::string buildVectorizationScript();

} // namespace mlir::tiletune::detail

#endif // TILETUNE_LIB_GPU_GPUTILINGSCRIPT_H
