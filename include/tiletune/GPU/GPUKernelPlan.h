//===- GPUKernelPlan.h - What a cuda config means for one op ----*- C++ -*-===//
//
// The launch plan a `#tiletune.config<cuda, ...>` implies for a tunable op
// (grid, block, shared memory, per-thread tile), the hardware limits it is
// checked against, and the default config derived from both. Shared by the
// tiling pass, `tiletune-gpu-check`, the default-config pass and the tuner;
// nothing here rewrites IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_GPUKERNELPLAN_H
#define TILETUNE_GPU_GPUKERNELPLAN_H

#include "tiletune/Dialect/TileConfig.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <string>

namespace mlir::tiletune {

/// Hardware limits a plan is checked against (defaults: sm_80 / sm_90).
struct GPULimits {
  int64_t maxThreadsPerBlock = 1024;
  std::array<int64_t, 3> maxBlockDims = {1024, 1024, 64};
  int64_t maxGridY = 65535, maxGridZ = 65535;
  /// Static shared memory per block (larger needs dynamic shared memory).
  int64_t maxSharedBytes = 48 * 1024;
};

/// Tile sizes of one operand tile staged through shared memory.
struct SharedTile {
  /// Operand index (0 = LHS / input, 1 = RHS / filter).
  unsigned operand = 0;
  SmallVector<int64_t> shape;
  /// Per-thread tile of the cooperative copy (same rank as `shape`).
  SmallVector<int64_t> copyTile;
};

/// What a cuda config means for one op: tile sizes per loop (in the op's
/// iterator order, 0 = not tiled at that level) and the launch geometry.
struct GPUKernelPlan {
  OpKind kind = OpKind::Matmul;
  int64_t elementBytes = 4;
  /// Block-level tile of every batch and parallel loop.
  SmallVector<int64_t> blockTile;
  /// Virtual-thread tile of every parallel loop (1 for batch loops).
  SmallVector<int64_t> vthreadTile;
  /// Thread tile (register tile) of every parallel loop.
  SmallVector<int64_t> threadTile;
  /// Shared-level tile of every reduction loop.
  SmallVector<int64_t> sharedTile;
  /// Register-level tile of the reduction loops (matmul and batch_matmul).
  SmallVector<int64_t> registerTile;
  /// Loop indices mapped to blocks and to threads, outermost first.
  SmallVector<unsigned> blockLoops, threadLoops;
  /// Threads along each thread-mapped loop (same order as threadLoops).
  SmallVector<int64_t> threadCounts;
  /// Launch geometry: gridDims/blockDims as {x, y, z}.
  std::array<int64_t, 3> gridDims = {1, 1, 1}, blockDims = {1, 1, 1};
  int64_t numBlocks = 1, threadsPerBlock = 1;
  /// Operand tiles staged through shared memory, and their total size.
  SmallVector<SharedTile> sharedTiles;
  int64_t sharedBytes = 0;
  /// Output elements each thread accumulates (vthreads x register tile).
  int64_t outputsPerThread = 1;
  /// Unrolling options (config options explicit_unroll / max_unroll).
  bool explicitUnroll = false;
  int64_t maxUnroll = 512;

  /// One-line summary ("grid 16x8x1, block 16x16x1, smem 8192 B, ...").
  std::string summary() const;
};

/// Why the cuda target cannot tile ops of `kind` (the transposed matmul
/// forms and conv_2d_nhwc_fhwc: only the cpu target tiles them), or
/// std::nullopt when it can. planGPUKernel and the GPU passes refuse such ops
/// with this message.
std::optional<std::string> getGPUUnsupportedReason(OpKind kind);
/// Same for a recognised op: also refuses linalg.generic ops.
std::optional<std::string> getGPUUnsupportedReason(const TunableOp &op);

/// Derives the plan of `config` (target cuda, verified against `op`) for the
/// tunable op `op` (its element type, loops and convolution strides and
/// dilations).
FailureOr<GPUKernelPlan> planGPUKernel(const TunableOp &op,
                                       TileConfigAttr config,
                                       std::string *reason = nullptr);

/// Same, reading the config, shape and conv attributes from a linalg op.
FailureOr<GPUKernelPlan> planGPUKernel(Operation *op,
                                       std::string *reason = nullptr);

/// Checks the plan against hardware limits; `reason` says which one fails.
LogicalResult checkGPULimits(const GPUKernelPlan &plan,
                             const GPULimits &limits = {},
                             std::string *reason = nullptr);

/// A legal `#tiletune.config<cuda, ...>` for `op` (see the
/// tiletune-default-gpu-config pass): threads on the two innermost parallel
/// loops (up to 16 each, up to 4 outputs per thread), shared-memory
/// reduction tiles, the rest on blocks; shrunk until the plan passes
/// checkGPULimits(`limits`) with at most 255 accumulators per thread. Never
/// null: one thread per block is the last resort.
TileConfigAttr computeDefaultCUDAConfig(MLIRContext *ctx, const TunableOp &op,
                                        const GPULimits &limits = {});

} // namespace mlir::tiletune

#endif // TILETUNE_GPU_GPUKERNELPLAN_H
