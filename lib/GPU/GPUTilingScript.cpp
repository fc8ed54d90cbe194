//===- GPUTilingScript.cpp - Transform IR for the GPU rewrite -------------===//
//
// Writes the transform-dialect scripts tileForGPU applies, as text. The first
// stage (buildGPUTilingScript) follows a GPUKernelPlan: tile_using_forall onto
// blocks, tile_using_for over the shared-memory tiles, promotion of both
// inputs, cooperative copies spread over the threads, virtual-thread and
// thread tiles, register tiles, then the mapping to a gpu.launch. The second
// stage (buildVectorizationScript) vectorizes, hoists and lowers the vector
// ops. Loops and ops are tagged with the markers of GPUTilingScript.h.
//
//===----------------------------------------------------------------------===//

#include "GPUTilingScript.h"

#include "tiletune/GPU/GPUTiling.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;

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
      mapping.push_back(llvm::formatv("#gpu.thread<linear_dim_{0}>",
                                      tile.shape.size() - 1 - i)
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
    os << "  " << w.fresh("mapped")
       << " = transform.gpu.map_nested_forall_to_threads " << launch
       << " block_dims = "
       << ScriptWriter::list(ArrayRef<int64_t>(plan.blockDims))
       << " sync_after_distribute = false : (!transform.any_op) -> "
          "!transform.any_op\n";
  }
  os << "  transform.yield\n}\n}\n";
  return script;
}

std::string mlir::tiletune::detail::buildVectorizationScript() {
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
