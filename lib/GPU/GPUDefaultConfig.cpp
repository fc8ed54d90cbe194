//===- GPUDefaultConfig.cpp - Heuristic cuda configs for untuned ops -----===//
//
// computeDefaultCUDAConfig: a legal, reasonable OpEvo-template config for any
// tunable op with static shapes, checked with the same plan and limits the
// tiling pass uses.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPUKernelPlan.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

/// Tile caps of one attempt; attempts go from large to small.
struct Caps {
  int64_t threads;       ///< threads along each of the two thread loops
  int64_t perThread;     ///< outputs per thread along each of them
  int64_t sharedK;       ///< shared-memory tile of a matmul reduction
  int64_t registerK;     ///< register step within it
  int64_t sharedChannels; ///< shared-memory tile of a conv's input channels
};

constexpr Caps kAttempts[] = {
    {16, 4, 16, 4, 8}, {16, 2, 16, 2, 8}, {16, 2, 8, 1, 4},
    {8, 2, 8, 1, 4},   {8, 1, 4, 1, 2},   {4, 1, 2, 1, 1},
    {2, 1, 1, 1, 1},   {1, 1, 1, 1, 1},
};

/// Accumulators one thread may hold (registers of a thread).
constexpr int64_t kMaxAccumulators = 255;

/// The largest divisor of `n` that is at most `cap` (>= 1).
int64_t largestDivisorAtMost(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The factor lists of one attempt.
FactorMap factorsFor(const TunableOp &op, const Caps &caps) {
  // Threads go to the two innermost parallel (non-batch) loops.
  SmallVector<const LoopDim *> parallel;
  for (const LoopDim &d : op.dims)
    if (d.role == DimRole::Parallel)
      parallel.push_back(&d);
  size_t firstThreaded = parallel.size() > 2 ? parallel.size() - 2 : 0;
  bool isMatmul = op.kind == OpKind::Matmul || op.kind == OpKind::BatchMatmul;

  FactorMap factors;
  for (const LoopDim &d : op.dims) {
    int64_t size = d.size;
    unsigned numFactors =
        getDimLevels(kTargetCUDA, op.kind, d.role).size() + 1;
    SmallVector<int64_t> list(numFactors, 1);
    switch (d.role) {
    case DimRole::Batch:
      list[0] = size; // one batch entry per block
      break;
    case DimRole::Parallel: {
      bool threaded = llvm::find(parallel, &d) - parallel.begin() >=
                      static_cast<ptrdiff_t>(firstThreaded);
      int64_t perThread =
          threaded ? largestDivisorAtMost(size, caps.perThread) : 1;
      int64_t threads =
          threaded ? largestDivisorAtMost(size / perThread, caps.threads) : 1;
      // [blocks, vthreads, threads, per-thread]
      list[0] = size / (perThread * threads);
      list[numFactors - 2] = threads;
      list[numFactors - 1] = perThread;
      break;
    }
    case DimRole::Reduction: {
      if (isMatmul && numFactors == 3) {
        // [steps, shared / register, register]
        int64_t shared = largestDivisorAtMost(size, caps.sharedK);
        int64_t reg = largestDivisorAtMost(shared, caps.registerK);
        list = {size / shared, shared / reg, reg};
      } else {
        // Convolutions: whole small windows, a few input channels.
        bool window = d.name == "kh" || d.name == "kw";
        int64_t shared = window ? (size <= 7 ? size : largestDivisorAtMost(size, 3))
                                : largestDivisorAtMost(size, caps.sharedChannels);
        list[0] = size / shared;
        list[numFactors - 1] = shared;
      }
      break;
    }
    }
    factors[d.name] = list;
  }
  return factors;
}

} // namespace

TileConfigAttr
mlir::tiletune::computeDefaultCUDAConfig(MLIRContext *ctx, const TunableOp &op,
                                         const GPULimits &limits) {
  TileConfigAttr last;
  for (const Caps &caps : kAttempts) {
    TileConfigAttr config =
        buildConfig(ctx, kTargetCUDA, op, factorsFor(op, caps));
    if (!config)
      continue;
    last = config;
    std::string reason;
    FailureOr<GPUKernelPlan> plan = planGPUKernel(op, config, &reason);
    if (failed(plan) || failed(checkGPULimits(*plan, limits, &reason)) ||
        plan->outputsPerThread > kMaxAccumulators)
      continue;
    return config;
  }
  return last; // one thread per block (the last attempt)
}
