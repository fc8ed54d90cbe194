//===- GPUKernelPlan.cpp - The launch plan of a cuda config ---------------===//
//
// Implements GPUKernelPlan.h: reads the tile sizes of a cuda config per loop
// of a tunable op, derives the launch geometry (grid, block, threads), the
// operand tiles staged through shared memory and the per-thread tiles of
// their cooperative copies, and checks the result against hardware limits.
// Pure arithmetic on the op's description; no IR is changed.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPUKernelPlan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tiletune;

std::string GPUKernelPlan::summary() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "grid " << gridDims[0] << "x" << gridDims[1] << "x" << gridDims[2]
     << ", block " << blockDims[0] << "x" << blockDims[1] << "x"
     << blockDims[2] << " (" << threadsPerBlock << " threads), smem "
     << sharedBytes << " B, " << outputsPerThread << " outputs/thread";
  return out;
}

/// Per-thread tile of a cooperative copy of `shape` by `threads` threads:
/// the innermost dimension moves `vector` contiguous elements per thread,
/// outer dimensions grow (by divisors of their extent, outermost first)
/// until the number of copy tiles fits in the thread count.
static SmallVector<int64_t> planCopyTile(ArrayRef<int64_t> shape,
                                         int64_t threads) {
  SmallVector<int64_t> tile(shape.size(), 1);
  int64_t inner = shape.back();
  int64_t vector = inner % 4 == 0 ? 4 : inner % 2 == 0 ? 2 : 1;
  tile.back() = vector;
  auto tiles = [&] {
    int64_t n = 1;
    for (auto [s, t] : llvm::zip(shape, tile))
      n *= s / t;
    return n;
  };
  // Grow the outer dimensions first, then the innermost one.
  SmallVector<unsigned> order;
  for (unsigned i = 0; i + 1 < shape.size(); ++i)
    order.push_back(i);
  order.push_back(shape.size() - 1);
  for (unsigned dim : order) {
    while (tiles() > threads && tile[dim] < shape[dim]) {
      int64_t next = tile[dim] + (dim + 1 == shape.size() ? vector : 1);
      while (next <= shape[dim] && shape[dim] % next != 0)
        next += dim + 1 == shape.size() ? vector : 1;
      tile[dim] = std::min(next, shape[dim]);
    }
  }
  return tile;
}

std::optional<std::string>
mlir::tiletune::getGPUUnsupportedReason(OpKind kind) {
  switch (kind) {
  case OpKind::Matmul:
  case OpKind::BatchMatmul:
  case OpKind::ConvNhwcHwcf:
  case OpKind::ConvNchwFchw:
    return std::nullopt;
  default:
    return ("the cuda target does not support " + stringifyOpKind(kind) +
            " yet (supported: matmul, batch_matmul, conv_2d_nhwc_hwcf, "
            "conv_2d_nchw_fchw); tile it for the cpu target")
        .str();
  }
}

std::optional<std::string>
mlir::tiletune::getGPUUnsupportedReason(const TunableOp &op) {
  if (op.isGeneric)
    return std::string("the cuda target tiles named ops only, not a "
                       "linalg.generic (even one that is a matmul or "
                       "convolution); tile it for the cpu target");
  return getGPUUnsupportedReason(op.kind);
}

FailureOr<GPUKernelPlan> mlir::tiletune::planGPUKernel(const TunableOp &op,
                                                       TileConfigAttr config,
                                                       std::string *reason) {
  auto fail = [&](const Twine &why) -> FailureOr<GPUKernelPlan> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  if (std::optional<std::string> why = getGPUUnsupportedReason(op))
    return fail(*why);
  if (!config)
    return fail("the op has no tiletune.config");
  if (config.getTarget() != kTargetCUDA)
    return fail("the config's target is '" + config.getTarget() +
                "', not 'cuda'");

  GPUKernelPlan plan;
  plan.kind = op.kind;
  plan.elementBytes = op.elementType.getIntOrFloatBitWidth() / 8;
  plan.explicitUnroll = config.getBoolOption("explicit_unroll");
  plan.maxUnroll = config.getIntOption("max_unroll");
  unsigned numLoops = op.dims.size();
  plan.blockTile.assign(numLoops, 0);
  plan.vthreadTile.assign(numLoops, 0);
  plan.threadTile.assign(numLoops, 0);
  plan.sharedTile.assign(numLoops, 0);
  plan.registerTile.assign(numLoops, 0);
  bool isMatmulLike = !isConv(op.kind);

  auto tileAt = [&](StringRef level, const LoopDim &dim) -> int64_t {
    return config.getTileSize(level, dim.name).value_or(0);
  };
  for (const LoopDim &dim : op.dims) {
    unsigned i = dim.loopIndex;
    auto need = [&](StringRef level) -> FailureOr<int64_t> {
      int64_t tile = tileAt(level, dim);
      if (tile <= 0) {
        if (reason)
          *reason =
              ("no '" + level + "' tile for loop '" + dim.name + "'").str();
        return failure();
      }
      return tile;
    };
    switch (dim.role) {
    case DimRole::Batch: {
      FailureOr<int64_t> b = need("block");
      if (failed(b))
        return failure();
      plan.blockTile[i] = *b;
      plan.vthreadTile[i] = 1;
      break;
    }
    case DimRole::Parallel: {
      FailureOr<int64_t> b = need("block"), v = need("vthread"),
                         t = need("thread");
      if (failed(b) || failed(v) || failed(t))
        return failure();
      if (dim.size % *b || *b % *v || *v % *t)
        return fail("tiles of loop '" + dim.name + "' do not divide (size " +
                    Twine(dim.size) + ", block " + Twine(*b) + ", vthread " +
                    Twine(*v) + ", thread " + Twine(*t) + ")");
      plan.blockTile[i] = *b;
      plan.vthreadTile[i] = *v;
      plan.threadTile[i] = *t;
      break;
    }
    case DimRole::Reduction: {
      FailureOr<int64_t> s = need("shared");
      if (failed(s))
        return failure();
      if (dim.size % *s)
        return fail("shared tile of loop '" + dim.name + "' does not divide");
      plan.sharedTile[i] = *s;
      if (isMatmulLike) {
        FailureOr<int64_t> r = need("register");
        if (failed(r))
          return failure();
        if (*s % *r)
          return fail("register tile of loop '" + dim.name +
                      "' does not divide its shared tile");
        plan.registerTile[i] = *r;
      }
      break;
    }
    }
  }

  // Blocks: every batch/parallel loop with more than one block; the
  // innermost is x.
  for (const LoopDim &dim : op.dims) {
    if (dim.role == DimRole::Reduction)
      continue;
    if (dim.size / plan.blockTile[dim.loopIndex] > 1)
      plan.blockLoops.push_back(dim.loopIndex);
    plan.numBlocks *= dim.size / plan.blockTile[dim.loopIndex];
  }
  // Upstream's linear block mapping of more than three loops drops blocks
  // (the grid covers only three of them), so such configs are rejected.
  if (plan.blockLoops.size() > 3)
    return fail("more than three loops have more than one block; a GPU grid "
                "has three dimensions (give one of them a single block)");
  for (auto [pos, loop] : llvm::enumerate(llvm::reverse(plan.blockLoops)))
    plan.gridDims[pos] = op.dims[loop].size / plan.blockTile[loop];

  // Threads: every parallel loop with more than one thread.
  for (const LoopDim &dim : op.dims) {
    if (dim.role != DimRole::Parallel)
      continue;
    unsigned i = dim.loopIndex;
    int64_t threads = plan.vthreadTile[i] / plan.threadTile[i];
    plan.threadsPerBlock *= threads;
    if (threads > 1) {
      plan.threadLoops.push_back(i);
      plan.threadCounts.push_back(threads);
    }
  }
  if (plan.threadLoops.size() > 3)
    return fail("more than three loops are distributed over threads");
  for (unsigned pos = 0; pos < plan.threadLoops.size(); ++pos)
    plan.blockDims[pos] = plan.threadCounts[plan.threadLoops.size() - 1 - pos];

  int64_t blockOutputs = 1;
  for (const LoopDim &dim : op.dims)
    if (dim.role != DimRole::Reduction)
      blockOutputs *= plan.blockTile[dim.loopIndex];
  plan.outputsPerThread = blockOutputs / plan.threadsPerBlock;

  // Shared-memory tiles of the two inputs.
  auto tileOf = [&](StringRef name) -> int64_t {
    const LoopDim *dim = op.lookup(name);
    assert(dim && "loop of a known op kind");
    return dim->role == DimRole::Reduction ? plan.sharedTile[dim->loopIndex]
                                           : plan.blockTile[dim->loopIndex];
  };
  auto [sh, sw] = op.strides;
  auto [dh, dw] = op.dilations;
  auto window = [](int64_t out, int64_t k, int64_t s, int64_t d) {
    return (out - 1) * s + (k - 1) * d + 1;
  };
  SmallVector<SmallVector<int64_t>> shapes;
  switch (op.kind) {
  case OpKind::Matmul:
    shapes = {{tileOf("m"), tileOf("k")}, {tileOf("k"), tileOf("n")}};
    break;
  case OpKind::BatchMatmul:
    shapes = {{tileOf("b"), tileOf("m"), tileOf("k")},
              {tileOf("b"), tileOf("k"), tileOf("n")}};
    break;
  case OpKind::ConvNhwcHwcf:
    shapes = {{tileOf("n"), window(tileOf("oh"), tileOf("kh"), sh, dh),
               window(tileOf("ow"), tileOf("kw"), sw, dw), tileOf("c")},
              {tileOf("kh"), tileOf("kw"), tileOf("c"), tileOf("f")}};
    break;
  case OpKind::ConvNchwFchw:
    shapes = {{tileOf("n"), tileOf("c"),
               window(tileOf("oh"), tileOf("kh"), sh, dh),
               window(tileOf("ow"), tileOf("kw"), sw, dw)},
              {tileOf("f"), tileOf("c"), tileOf("kh"), tileOf("kw")}};
    break;
  default:
    llvm_unreachable("refused by getGPUUnsupportedReason");
  }
  for (auto [operand, shape] : llvm::enumerate(shapes)) {
    SharedTile tile;
    tile.operand = operand;
    tile.shape = shape;
    tile.copyTile = planCopyTile(shape, plan.threadsPerBlock);
    int64_t elements = 1;
    for (int64_t s : shape)
      elements *= s;
    plan.sharedBytes += elements * plan.elementBytes;
    plan.sharedTiles.push_back(std::move(tile));
  }
  return plan;
}

FailureOr<GPUKernelPlan> mlir::tiletune::planGPUKernel(Operation *op,
                                                       std::string *reason) {
  FailureOr<TunableOp> tunable = matchTunableOp(op, reason);
  if (failed(tunable))
    return failure();
  return planGPUKernel(*tunable, getConfig(op), reason);
}

LogicalResult mlir::tiletune::checkGPULimits(const GPUKernelPlan &plan,
                                             const GPULimits &limits,
                                             std::string *reason) {
  auto fail = [&](const Twine &why) {
    if (reason)
      *reason = why.str();
    return failure();
  };
  if (plan.threadsPerBlock > limits.maxThreadsPerBlock)
    return fail(Twine(plan.threadsPerBlock) + " threads per block exceed " +
                Twine(limits.maxThreadsPerBlock));
  for (unsigned i = 0; i < 3; ++i)
    if (plan.blockDims[i] > limits.maxBlockDims[i])
      return fail("block dimension " + Twine("xyz"[i]) + " = " +
                  Twine(plan.blockDims[i]) + " exceeds " +
                  Twine(limits.maxBlockDims[i]));
  if (plan.gridDims[1] > limits.maxGridY || plan.gridDims[2] > limits.maxGridZ)
    return fail("grid dimensions exceed the y/z limits");
  if (plan.sharedBytes > limits.maxSharedBytes)
    return fail(Twine(plan.sharedBytes) + " bytes of shared memory exceed " +
                Twine(limits.maxSharedBytes));
  for (const SharedTile &tile : plan.sharedTiles) {
    int64_t copies = 1;
    for (auto [s, t] : llvm::zip(tile.shape, tile.copyTile))
      copies *= s / t;
    if (copies > plan.threadsPerBlock)
      return fail("the copy of operand " + Twine(tile.operand) +
                  " cannot be split over the threads of a block");
  }
  return success();
}
