//===- GPUTiling.cpp - Tile tunable ops onto GPU blocks and threads -------===//
//
// Implements the launch plan of a cuda config and the rewrite of one op into
// a gpu.launch. The rewrite is expressed with upstream transform-dialect ops
// (tile_using_forall / tile_using_for, promote, map_forall_to_blocks,
// map_nested_forall_to_threads, vectorize, hoisting, vector lowerings): a
// script is generated from the plan and applied to the op's function by the
// transform interpreter, with two small rewrites of our own in between
// (shared buffers become workgroup attributions of the launch; barriers
// around the cooperative copies).
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPUTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "tiletune-tile-gpu"

using namespace mlir;
using namespace mlir::tiletune;

namespace {
/// Attribute names used to find IR between the stages of the rewrite.
constexpr StringLiteral kTargetMarker = "tiletune.gpu_tile_target";
constexpr StringLiteral kKernelMarker = "tiletune.gpu_kernel";
constexpr StringLiteral kSharedLoopMarker = "tiletune.shared_loop";
constexpr StringLiteral kVThreadLoopMarker = "tiletune.vthread_loop";
constexpr StringLiteral kRegisterLoopMarker = "tiletune.register_loop";
} // namespace

//===----------------------------------------------------------------------===//
// Plan.
//===----------------------------------------------------------------------===//

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

FailureOr<GPUKernelPlan>
mlir::tiletune::planGPUKernel(const TunableOp &op, TileConfigAttr config,
                              ArrayRef<int64_t> convStrides,
                              ArrayRef<int64_t> convDilations,
                              std::string *reason) {
  auto fail = [&](const Twine &why) -> FailureOr<GPUKernelPlan> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  if (!config)
    return fail("the op has no tiletune.config");
  if (config.getTarget() != kTargetCUDA)
    return fail("the config's target is '" + config.getTarget() +
                "', not 'cuda'");

  GPUKernelPlan plan;
  plan.kind = op.kind;
  plan.elementBytes = op.elementType.getIntOrFloatBitWidth() / 8;
  plan.explicitUnroll = config.getBoolOption("explicit_unroll", false);
  plan.maxUnroll = config.getIntOption("max_unroll", 512);
  unsigned numLoops = op.dims.size();
  plan.blockTile.assign(numLoops, 0);
  plan.vthreadTile.assign(numLoops, 0);
  plan.threadTile.assign(numLoops, 0);
  plan.sharedTile.assign(numLoops, 0);
  plan.registerTile.assign(numLoops, 0);
  bool isMatmulLike =
      op.kind == OpKind::Matmul || op.kind == OpKind::BatchMatmul;

  auto tileAt = [&](StringRef level, const LoopDim &dim) -> int64_t {
    return config.getTileSize(level, dim.name).value_or(0);
  };
  for (const LoopDim &dim : op.dims) {
    unsigned i = dim.loopIndex;
    auto need = [&](StringRef level) -> FailureOr<int64_t> {
      int64_t tile = tileAt(level, dim);
      if (tile <= 0) {
        if (reason)
          *reason = ("no '" + level + "' tile for loop '" + dim.name + "'").str();
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
  int64_t sh = convStrides.size() > 0 ? convStrides[0] : 1;
  int64_t sw = convStrides.size() > 1 ? convStrides[1] : 1;
  int64_t dh = convDilations.size() > 0 ? convDilations[0] : 1;
  int64_t dw = convDilations.size() > 1 ? convDilations[1] : 1;
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

void mlir::tiletune::getConvStridesAndDilations(
    Operation *op, SmallVectorImpl<int64_t> &strides,
    SmallVectorImpl<int64_t> &dilations) {
  strides.assign({1, 1});
  dilations.assign({1, 1});
  auto read = [](DenseIntElementsAttr attr, SmallVectorImpl<int64_t> &out) {
    if (!attr)
      return;
    out.clear();
    for (const APInt &v : attr.getValues<APInt>())
      out.push_back(v.getSExtValue());
  };
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    read(conv.getStrides(), strides);
    read(conv.getDilations(), dilations);
  } else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
    read(conv.getStrides(), strides);
    read(conv.getDilations(), dilations);
  }
}

FailureOr<GPUKernelPlan> mlir::tiletune::planGPUKernel(Operation *op,
                                                       std::string *reason) {
  FailureOr<TunableOp> tunable = matchTunableOp(op, reason);
  if (failed(tunable))
    return failure();
  SmallVector<int64_t> strides, dilations;
  getConvStridesAndDilations(op, strides, dilations);
  return planGPUKernel(*tunable, getConfig(op), strides, dilations, reason);
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

//===----------------------------------------------------------------------===//
// Script generation.
//===----------------------------------------------------------------------===//

namespace {
/// Writes transform IR for one plan; names SSA handles uniquely.
class ScriptWriter {
public:
  explicit ScriptWriter(llvm::raw_ostream &os) : os(os) {}

  std::string fresh(StringRef prefix) {
    return ("%" + prefix + std::to_string(counter++)).str();
  }

  static std::string list(ArrayRef<int64_t> values) {
    std::string out = "[";
    llvm::raw_string_ostream s(out);
    llvm::interleaveComma(values, s);
    s << "]";
    return out;
  }

  static std::string anyOps(unsigned n) {
    SmallVector<std::string> types(n, "!transform.any_op");
    return "(" + llvm::join(types, ", ") + ")";
  }

  /// tile_using_forall; returns {tiled, forall}.
  std::pair<std::string, std::string>
  tileForall(StringRef target, ArrayRef<int64_t> sizes,
             ArrayRef<std::string> mapping) {
    std::string tiled = fresh("t"), loop = fresh("forall");
    os << "  " << tiled << ", " << loop
       << " = transform.structured.tile_using_forall " << target
       << " tile_sizes " << list(sizes) << " (mapping = ["
       << llvm::join(mapping, ", ")
       << "]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n";
    return {tiled, loop};
  }

  /// tile_using_for; returns the tiled op and annotates the loops with
  /// `marker`. No-op when every size is 0.
  std::string tileFor(StringRef target, ArrayRef<int64_t> sizes,
                      StringRef marker) {
    unsigned loops = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
    if (loops == 0)
      return target.str();
    std::string tiled = fresh("t"), loopHandle = fresh("loops");
    os << "  " << tiled << ", " << loopHandle
       << (loops > 1 ? ":" + std::to_string(loops) : std::string())
       << " = transform.structured.tile_using_for " << target
       << " tile_sizes " << list(sizes) << " : (!transform.any_op) -> "
       << anyOps(loops + 1) << "\n";
    for (unsigned i = 0; i < loops; ++i)
      os << "  transform.annotate " << loopHandle
         << (loops > 1 ? "#" + std::to_string(i) : std::string()) << " \""
         << marker << "\" : !transform.any_op\n";
    return tiled;
  }

  llvm::raw_ostream &os;
  unsigned counter = 0;
};
} // namespace

/// GPU mapping attributes for `count` loops of kind `kind` ("block" or
/// "thread"), outermost first, the innermost on x; linear when more than 3.
static SmallVector<std::string> mappingFor(unsigned count, StringRef kind) {
  static const char *dims[] = {"x", "y", "z"};
  SmallVector<std::string> mapping;
  for (unsigned i = 0; i < count; ++i) {
    unsigned fromInner = count - 1 - i;
    if (count <= 3)
      mapping.push_back(
          llvm::formatv("#gpu.{0}<{1}>", kind, dims[fromInner]).str());
    else
      mapping.push_back(
          llvm::formatv("#gpu.{0}<linear_dim_{1}>", kind, fromInner).str());
  }
  return mapping;
}

std::string mlir::tiletune::buildGPUTilingScript(
    const GPUKernelPlan &plan, const GPUTilingOptions &options) {
  std::string script;
  llvm::raw_string_ostream os(script);
  ScriptWriter w(os);
  unsigned numLoops = plan.blockTile.size();
  os << "module attributes {transform.with_named_sequence} {\n"
     << "transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n";
  os << "  %op = transform.structured.match attributes{" << kTargetMarker
     << "} in %root : (!transform.any_op) -> !transform.any_op\n";

  // Blocks.
  SmallVector<int64_t> blockSizes(numLoops, 0);
  for (unsigned loop : plan.blockLoops)
    blockSizes[loop] = plan.blockTile[loop];
  std::string op = "%op", blockLoop;
  if (!plan.blockLoops.empty()) {
    std::tie(op, blockLoop) = w.tileForall(
        op, blockSizes, mappingFor(plan.blockLoops.size(), "block"));
  } else {
    // A single block: still wrap the op in a one-iteration forall so that
    // the kernel has the same structure.
    SmallVector<int64_t> sizes(numLoops, 0);
    for (unsigned i = 0; i < numLoops; ++i)
      if (plan.blockTile[i]) {
        sizes[i] = plan.blockTile[i];
        break;
      }
    std::tie(op, blockLoop) = w.tileForall(op, sizes, mappingFor(1, "block"));
  }
  os << "  transform.annotate " << blockLoop << " \"" << kKernelMarker
     << "\" : !transform.any_op\n";

  // Shared level of the reductions, then promotion of both inputs.
  op = w.tileFor(op, plan.sharedTile, kSharedLoopMarker);
  std::string promoted = w.fresh("promoted");
  os << "  " << promoted << " = transform.structured.promote " << op
     << " {operands_to_promote = [0, 1], use_original_subview_size"
     << (options.mapToGPU ? ", memory_space = #gpu.address_space<workgroup>"
                          : "")
     << "} : (!transform.any_op) -> !transform.any_op\n";
  op = promoted;

  // Cooperative copies, distributed over the threads (linear mapping).
  std::string copies = w.fresh("copies"), copyA = w.fresh("copy"),
              copyB = w.fresh("copy");
  os << "  " << copies
     << " = transform.structured.match ops{[\"linalg.copy\"]} in "
     << blockLoop << " : (!transform.any_op) -> !transform.any_op\n";
  os << "  " << copyA << ", " << copyB << " = transform.split_handle "
     << copies
     << " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n";
  SmallVector<std::string> copyHandles = {copyA, copyB};
  for (auto [handle, tile] : llvm::zip(copyHandles, plan.sharedTiles)) {
    SmallVector<std::string> mapping;
    for (unsigned i = 0; i < tile.shape.size(); ++i)
      mapping.push_back(
          llvm::formatv("#gpu.thread<linear_dim_{0}>", tile.shape.size() - 1 - i)
              .str());
    w.tileForall(handle, tile.copyTile, mapping);
  }

  // Virtual threads (and the batch entries of the block) as loops.
  SmallVector<int64_t> vthreadSizes(numLoops, 0);
  for (unsigned i = 0; i < numLoops; ++i)
    if (plan.vthreadTile[i] && plan.vthreadTile[i] < plan.blockTile[i])
      vthreadSizes[i] = plan.vthreadTile[i];
  op = w.tileFor(op, vthreadSizes, kVThreadLoopMarker);

  // Threads.
  if (!plan.threadLoops.empty()) {
    SmallVector<int64_t> threadSizes(numLoops, 0);
    for (unsigned loop : plan.threadLoops)
      threadSizes[loop] = plan.threadTile[loop];
    std::tie(op, std::ignore) = w.tileForall(
        op, threadSizes, mappingFor(plan.threadLoops.size(), "thread"));
  }

  // Register level of the reductions.
  SmallVector<int64_t> registerSizes(numLoops, 0);
  for (unsigned i = 0; i < numLoops; ++i)
    if (plan.registerTile[i] && plan.registerTile[i] < plan.sharedTile[i])
      registerSizes[i] = plan.registerTile[i];
  op = w.tileFor(op, registerSizes, kRegisterLoopMarker);

  if (options.mapToGPU) {
    std::string launch = w.fresh("launch");
    os << "  " << launch << " = transform.gpu.map_forall_to_blocks "
       << blockLoop
       << " generate_gpu_launch : (!transform.any_op) -> !transform.any_op\n";
    os << "  transform.annotate " << launch << " \"" << kKernelMarker
       << "\" : !transform.any_op\n";
    os << "  " << w.fresh("mapped") << " = transform.gpu.map_nested_forall_to_threads "
       << launch << " block_dims = "
       << ScriptWriter::list(ArrayRef<int64_t>(plan.blockDims))
       << " sync_after_distribute = false : (!transform.any_op) -> "
          "!transform.any_op\n";
  }
  os << "  transform.yield\n}\n}\n";
  return script;
}

/// The second stage: vectorization of the per-thread tiles and copies,
/// hoisting of the accumulators, lowering of the vector ops to FMAs.
static std::string buildVectorizationScript() {
  std::string script;
  llvm::raw_string_ostream os(script);
  os << R"MLIR(module attributes {transform.with_named_sequence} {
transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
  transform.apply_patterns to %root {
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  %kernel = transform.structured.match attributes{)MLIR"
     << kKernelMarker << R"MLIR(} in %root : (!transform.any_op) -> !transform.any_op
  %ops = transform.structured.match ops{["linalg.matmul", "linalg.batch_matmul", "linalg.copy"]} in %kernel : (!transform.any_op) -> !transform.any_op
  transform.structured.vectorize %ops : !transform.any_op
  transform.apply_patterns to %root {
    transform.apply_patterns.vector.reduction_to_contract
    transform.apply_patterns.vector.transfer_permutation_patterns
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.apply_patterns to %root {
    transform.apply_patterns.memref.fold_memref_alias_ops
    transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
  transform.apply_licm to %loops : !transform.any_op
  transform.apply_cse to %root : !transform.any_op
  %hoisted = transform.structured.hoist_redundant_vector_transfers %root : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %hoisted {
    transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
    transform.apply_patterns.vector.transfer_permutation_patterns
    transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
    transform.apply_patterns.vector.lower_outerproduct
    transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    transform.apply_patterns.vector.lower_shape_cast
    transform.apply_patterns.vector.lower_broadcast
    transform.apply_patterns.vector.lower_transpose
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.apply_patterns to %hoisted {
    transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
    transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    transform.apply_patterns.vector.lower_shape_cast
    transform.apply_patterns.canonicalization
  } : !transform.any_op
  transform.yield
}
}
)MLIR";
  return script;
}

//===----------------------------------------------------------------------===//
// Rewrite.
//===----------------------------------------------------------------------===//

/// Parses `script` and applies its entry point to `payload`.
static LogicalResult applyScript(Operation *payload, StringRef script,
                                 Operation *diagnosticsAnchor) {
  MLIRContext *ctx = payload->getContext();
  OwningOpRef<ModuleOp> transformModule =
      parseSourceString<ModuleOp>(script, ParserConfig(ctx), "tiletune-gpu");
  if (!transformModule) {
    diagnosticsAnchor->emitError("internal error: generated GPU tiling "
                                 "script does not parse");
    return failure();
  }
  auto entry = transformModule->lookupSymbol<transform::NamedSequenceOp>(
      "__transform_main");
  if (!entry)
    return diagnosticsAnchor->emitError("internal error: no entry point");
  transform::TransformOptions transformOptions;
  return transform::applyTransforms(
      payload, cast<transform::TransformOpInterface>(entry.getOperation()),
      /*extraMapping=*/{}, transformOptions,
      /*enforceToplevelTransformOp=*/false);
}

static bool isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Turns the workgroup-memory allocations inside `launch` into workgroup
/// attributions of the launch (lowered to static shared memory).
static void allocsToAttributions(gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.getBody().walk([&](memref::AllocOp alloc) {
    if (isWorkgroupMemRef(alloc.getType()))
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    BlockArgument buffer =
        launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(buffer);
    alloc->erase();
  }
}

/// Whether `op` (or anything nested in it) writes to workgroup memory.
static bool writesWorkgroupMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &instance : instances)
      if (isa<MemoryEffects::Write>(instance.getEffect()) &&
          instance.getValue() && isWorkgroupMemRef(instance.getValue().getType()))
        writes = true;
  });
  return writes;
}

/// In each innermost shared-level loop: a barrier after the last op that
/// fills shared memory (the copies are complete before anyone reads) and one
/// at the end of the body (nobody overwrites a tile still being read).
static void insertBarriers(gpu::LaunchOp launch) {
  SmallVector<scf::ForOp> loops;
  launch.getBody().walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kSharedLoopMarker))
      return;
    bool hasInner = false;
    loop.getBody()->walk([&](scf::ForOp inner) {
      hasInner |= inner->hasAttr(kSharedLoopMarker);
    });
    if (!hasInner)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    Operation *lastWrite = nullptr;
    for (Operation &op : loop.getBody()->without_terminator())
      if (writesWorkgroupMemory(&op))
        lastWrite = &op;
    OpBuilder b(loop.getContext());
    if (lastWrite) {
      b.setInsertionPointAfter(lastWrite);
      gpu::BarrierOp::create(b, lastWrite->getLoc());
    }
    b.setInsertionPoint(loop.getBody()->getTerminator());
    gpu::BarrierOp::create(b, loop.getLoc());
  }
}

/// Fully unrolls the loops marked `marker` under `root` whose trip count is
/// at most `maxTrips` (innermost first).
static void unrollMarkedLoops(Operation *root, StringRef marker,
                              int64_t maxTrips) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop->hasAttr(marker))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> trips = loop.getStaticTripCount()
                                       ? std::optional<int64_t>(
                                             loop.getStaticTripCount()->getSExtValue())
                                       : std::nullopt;
    if (trips && *trips <= maxTrips)
      (void)loopUnrollFull(loop);
  }
}

/// Allows the contraction of a*b+c into FMAs in the scalar code of a kernel.
static void allowContraction(Operation *root) {
  root->walk([](Operation *op) {
    if (isa<arith::MulFOp, arith::AddFOp>(op))
      if (auto fm = dyn_cast<arith::ArithFastMathInterface>(op))
        op->setAttr(fm.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        op->getContext(),
                        fm.getFastMathFlagsAttr().getValue() |
                            arith::FastMathFlags::contract));
  });
}

/// Removes the stage markers under `root` and the configs copied onto the
/// tiles of the rewritten op (they describe the whole op, not a tile).
static void clearMarkers(Operation *root) {
  root->walk([](Operation *op) {
    if (op->hasAttr(kTargetMarker))
      eraseConfig(op);
    for (StringRef name : {kTargetMarker, kKernelMarker, kSharedLoopMarker,
                           kVThreadLoopMarker, kRegisterLoopMarker})
      op->removeAttr(name);
  });
}

FailureOr<gpu::LaunchOp>
mlir::tiletune::tileForGPU(Operation *op, const GPUTilingOptions &options) {
  std::string reason;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &reason);
  if (failed(tunable))
    return op->emitError(reason);
  if (tunable->onTensors)
    return op->emitError("GPU tiling needs buffers: bufferize the function "
                         "first (tiletune-lower-gpu does)");
  TileConfigAttr config = getConfig(op);
  if (!config)
    return op->emitError("no tiletune.config on the op");
  if (failed(verifyConfig(config, *tunable, [&] { return op->emitError(); })))
    return failure();
  FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
  if (failed(plan))
    return op->emitError("invalid cuda config: ") << reason;
  if (failed(checkGPULimits(*plan, GPULimits(), &reason)))
    return op->emitError("cuda config exceeds the GPU's limits: ") << reason;

  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return op->emitError("the op is not inside a function");
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (auto type = dyn_cast<MemRefType>(operand.getType()))
      if (!type.getLayout().isIdentity() && !type.isLastDimUnitStride())
        return op->emitError("operand #")
               << i << " must have a unit-stride innermost dimension";

  LLVM_DEBUG(llvm::dbgs() << "plan: " << plan->summary() << "\n");
  std::string script = buildGPUTilingScript(*plan, options);
  LLVM_DEBUG(llvm::dbgs() << "script:\n" << script << "\n");
  op->setAttr(kTargetMarker, UnitAttr::get(op->getContext()));
  if (failed(applyScript(func, script, op))) {
    clearMarkers(func);
    return failure();
  }

  gpu::LaunchOp launch;
  func->walk([&](gpu::LaunchOp candidate) {
    if (candidate->hasAttr(kKernelMarker))
      launch = candidate;
  });
  if (options.mapToGPU) {
    if (!launch) {
      clearMarkers(func);
      return func->emitError("internal error: GPU mapping produced no launch");
    }
    allocsToAttributions(launch);
    insertBarriers(launch);
    if (plan->explicitUnroll)
      unrollMarkedLoops(launch, kVThreadLoopMarker, plan->maxUnroll);
  }
  if (options.vectorize &&
      failed(applyScript(func, buildVectorizationScript(), func))) {
    clearMarkers(func);
    return failure();
  }
  Operation *kernelRoot = launch ? launch.getOperation() : func.getOperation();
  if (plan->maxUnroll > 0)
    unrollMarkedLoops(kernelRoot, kRegisterLoopMarker, plan->maxUnroll);
  if (launch) {
    // Per-thread tiles that were not vectorized (convolutions) become
    // scalar loops here, so that their multiply-adds can be fused.
    SmallVector<linalg::LinalgOp> scalarOps;
    launch.walk([&](linalg::LinalgOp linalgOp) { scalarOps.push_back(linalgOp); });
    IRRewriter rewriter(launch.getContext());
    for (linalg::LinalgOp linalgOp : scalarOps) {
      rewriter.setInsertionPoint(linalgOp);
      if (succeeded(linalg::linalgOpToLoops(rewriter, linalgOp)))
        rewriter.eraseOp(linalgOp);
    }
    allowContraction(launch);
  }
  clearMarkers(func);
  if (failed(verify(func)))
    return func->emitError("internal error: GPU tiling produced invalid IR");
  return launch;
}
