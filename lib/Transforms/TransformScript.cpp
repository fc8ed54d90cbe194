//===- TransformScript.cpp - CPU configs as transform-dialect IR ----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// buildCPUTransformScript(): the schedule tileAndVectorizeForCPU follows
// (CPUTiling.cpp), written step by step as upstream transform ops, with the
// same tile sizes (relative to the enclosing level, 0 where a tile covers
// its extent), the same cache-level interchange and the same order of
// steps. One matcher (op name and static loop sizes) and one action per
// distinct schedule; `@__transform_main` applies them with foreach_match.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/TransformScript.h"

#include "TilingUtils.h"
#include "tiletune/Transforms/CPUSchedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace mlir::tiletune;

namespace {
std::string list(ArrayRef<int64_t> values) {
  std::string out = "[";
  llvm::raw_string_ostream os(out);
  llvm::interleaveComma(values, os);
  os << "]";
  return out;
}

std::string anyOps(unsigned n) {
  SmallVector<std::string> types(n, "!transform.any_op");
  return "(" + llvm::join(types, ", ") + ")";
}

std::string printed(Attribute attr) {
  std::string out;
  llvm::raw_string_ostream os(out);
  attr.print(os);
  return out;
}

std::string locationOf(Operation *op) {
  std::string out;
  llvm::raw_string_ostream os(out);
  op->getLoc().print(os);
  return out;
}

/// Tile sizes relative to the enclosing tile (as CPUTiling.cpp's
/// relativeTileSizes): a tile that covers its extent is 0, no loop.
SmallVector<int64_t> relativeSizes(ArrayRef<int64_t> tiles,
                                   ArrayRef<int64_t> outer) {
  SmallVector<int64_t> sizes;
  for (auto [tile, extent] : llvm::zip(tiles, outer))
    sizes.push_back(tile >= extent ? 0 : tile);
  return sizes;
}

unsigned numLoops(ArrayRef<int64_t> sizes) {
  return llvm::count_if(sizes, [](int64_t s) { return s != 0; });
}

/// Writes the action of one schedule, SSA names unique within it.
class ActionWriter {
public:
  ActionWriter(llvm::raw_ostream &os) : os(os) {}

  std::string fresh(StringRef prefix) {
    return ("%" + prefix + std::to_string(counter++)).str();
  }

  /// tile_using_for; returns {tiled op, loop handles}. No-op when all sizes
  /// are 0.
  std::pair<std::string, SmallVector<std::string>>
  tileFor(StringRef target, ArrayRef<int64_t> sizes,
          ArrayRef<int64_t> interchange = {}) {
    unsigned loops = numLoops(sizes);
    if (loops == 0)
      return {target.str(), {}};
    std::string tiled = fresh("tiled"), handle = fresh("loops");
    os << "    " << tiled << ", " << handle
       << (loops > 1 ? ":" + std::to_string(loops) : std::string())
       << " = transform.structured.tile_using_for " << target << " tile_sizes "
       << list(sizes);
    if (!interchange.empty())
      os << " interchange = " << list(interchange);
    os << " : (!transform.any_op) -> " << anyOps(loops + 1) << "\n";
    SmallVector<std::string> handles;
    for (unsigned i = 0; i < loops; ++i)
      handles.push_back(loops > 1 ? handle + "#" + std::to_string(i) : handle);
    return {tiled, handles};
  }

  llvm::raw_ostream &os;
  unsigned counter = 0;
};

/// What decides an action: the op and its config.
struct ScheduleEntry {
  std::string opName;
  SmallVector<int64_t> matchSizes;
  std::string configText;
  bool onTensors = true;
  /// The first op with this schedule (for messages).
  Operation *firstOp = nullptr;
};

/// Writes the action of `op` (the first op of a schedule) as
/// @tiletune_apply_<index>. Fails with `why` when the pass's schedule has a
/// step the script cannot express.
LogicalResult writeAction(Operation *op, TileConfigAttr config,
                          const TunableOp &tunable, unsigned index,
                          llvm::raw_ostream &out, std::string &why) {
  if (tunable.kind == OpKind::ConvNgchwFgchw ||
      tunable.kind == OpKind::ConvNhwgcGfhwc) {
    why = "it is a grouped convolution (" +
          stringifyOpKind(tunable.kind).str() +
          "), which the pass computes as a loop over groups of plain convs, "
          "a rewrite no upstream transform op does";
    return failure();
  }
  if (config.getStringOption("layout") == "nhwc") {
    why = "its config converts the layout (layout = nhwc), which no upstream "
          "transform op does";
    return failure();
  }
  if (tunable.isGeneric && isConv(tunable.kind)) {
    why = "it is a linalg.generic convolution, which the pass first turns "
          "into its named op; upstream transform.structured.decompose needs "
          "the named op";
    return failure();
  }
  if (getCPUPack(config) == "bt") {
    why = "its config transposes B whole before the loop nest (pack = bt, "
          "compute ttmm), a rewrite no upstream transform op does";
    return failure();
  }
  if (getCPUPack(config) == "dn") {
    why = "its config vectorizes along k with per-lane partial sums (pack = "
          "dn, compute dnmm332), a loop nest no upstream transform op builds";
    return failure();
  }
  if (tunable.kind == OpKind::ConvNhwcFhwc) {
    why = "it is a conv_2d_nhwc_fhwc, which the pass computes on its filter "
          "transposed to HWCF, a rewrite no upstream transform op does";
    return failure();
  }
  std::string reason;
  FailureOr<CPUSchedule> decoded = decodeCPUSchedule(op, config, &reason);
  if (failed(decoded)) {
    why = reason;
    return failure();
  }
  CPUSchedule s = *decoded;
  // Padded loops: the pass pads the op first, then tiles the padded loops.
  bool padded = false;
  for (const LoopDim &dim : tunable.dims) {
    int64_t size = getPaddedSize(config, dim);
    if (size != dim.size) {
      padded = true;
      s.loopSizes[dim.loopIndex] = size;
    }
  }
  if (padded && !tunable.onTensors) {
    why = "its config pads loops of an op on buffers; upstream "
          "transform.structured.pad works on tensors only";
    return failure();
  }
  bool conv = isConv(s.kind);
  if (conv && padded) {
    why = "its config pads a conv's output rows, which the pass computes "
          "as a partial tile in place; upstream transform.structured.pad "
          "would pad the conv's windowed input, which it does not size";
    return failure();
  }
  if (conv && !tunable.onTensors) {
    why = "it is a convolution on buffers; upstream "
          "transform.structured.decompose (2-D to 1-D convolutions) works on "
          "tensors only";
    return failure();
  }

  std::string body;
  llvm::raw_string_ostream os(body);
  ActionWriter w(os);
  os << "  // " << op->getName() << " "
     << list(SmallVector<int64_t>(
            cast<linalg::LinalgOp>(op).getStaticLoopRanges()))
     << ": " << printed(config) << "\n";
  os << "  transform.named_sequence @tiletune_apply_" << index
     << "(%op: !transform.any_op {transform.consumed}) {\n";
  os << "    %func = transform.get_parent_op %op {isolated_from_above} : "
        "(!transform.any_op) -> !transform.any_op\n";
  std::string current = "%op";

  // 0. Padding (the `pad` option): every padded loop to its padded size.
  if (padded) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<int64_t> dims, multiples;
    for (const LoopDim &dim : tunable.dims)
      if (s.loopSizes[dim.loopIndex] != dim.size) {
        dims.push_back(dim.loopIndex);
        multiples.push_back(s.loopSizes[dim.loopIndex]);
      }
    // pad_to_multiple_of lists one value per padding dimension, in order.
    SmallVector<std::pair<int64_t, int64_t>> pairs;
    for (auto [d, m] : llvm::zip(dims, multiples))
      pairs.push_back({d, m});
    llvm::sort(pairs);
    dims.clear();
    multiples.clear();
    for (auto [d, m] : pairs) {
      dims.push_back(d);
      multiples.push_back(m);
    }
    SmallVector<std::string> values;
    for (OpOperand &operand : linalgOp->getOpOperands()) {
      Type element = getElementTypeOrSelf(operand.get().getType());
      values.push_back(printed(Builder(op->getContext()).getZeroAttr(element)));
    }
    std::string paddedOp = w.fresh("padded"), pad = w.fresh("pad"),
                copy = w.fresh("copy");
    os << "    " << paddedOp << ", " << pad << ", " << copy
       << " = transform.structured.pad " << current << " pad_to_multiple_of "
       << list(multiples) << " {padding_dimensions = " << list(dims)
       << ", padding_values = [" << llvm::join(values, ", ")
       << "]} : (!transform.any_op) -> " << anyOps(3) << "\n";
    current = paddedOp;
  }

  // 1. Parallel level: scf.forall over batch + parallel dims.
  SmallVector<int64_t> threadExtents(s.loopSizes);
  SmallVector<int64_t> forallSizes(s.loopSizes.size(), 0);
  for (auto [i, tile] : llvm::enumerate(s.parallelTiles))
    if (tile > 0 && tile < s.loopSizes[i]) {
      forallSizes[i] = tile;
      threadExtents[i] = tile;
    }
  if (numLoops(forallSizes) > 0) {
    std::string tiled = w.fresh("tiled"), forall = w.fresh("forall");
    os << "    " << tiled << ", " << forall
       << " = transform.structured.tile_using_forall " << current
       << " tile_sizes " << list(forallSizes) << " : (!transform.any_op) -> "
       << anyOps(2) << "\n";
    current = tiled;
  }

  // 2. Cache level, in the config's order.
  current = w.tileFor(current, relativeSizes(s.cacheTiles, threadExtents),
                      s.cacheOrder)
                .first;

  // 3. Packing.
  if (s.packLhs || s.packRhs)
    os << "    // Not included: pack = "
       << (s.packLhs ? (s.packRhs ? "ab" : "a") : "b")
       << " (TileTune copies the operand tiles into contiguous panels; no "
          "upstream transform op does that copy). The loops are the same; "
          "the operands are read in place.\n";

  // 4. Register level. On tensors, the output tile's extract/insert pair
  // then leaves the register-level reduction loops (before the conv split).
  SmallVector<int64_t> registerSizes =
      relativeSizes(s.registerTiles, s.cacheTiles);
  current = w.tileFor(current, registerSizes).first;
  if (tunable.onTensors && numLoops(registerSizes) > 0) {
    std::string loops = w.fresh("fors");
    os << "    " << loops
       << " = transform.structured.match ops{[\"scf.for\"]} in %func : "
          "(!transform.any_op) -> !transform.any_op\n"
       << "    transform.loop.hoist_loop_invariant_subsets " << loops
       << " : !transform.any_op\n";
  }

  // 5. Convolutions: one 1-D convolution per output row.
  std::string rowLoop;
  int64_t rows = 1;
  if (conv) {
    int64_t rowDim = getConvRowDim(s.kind);
    rows = s.registerTiles[rowDim] > 0 ? s.registerTiles[rowDim]
                                       : s.cacheTiles[rowDim];
    if (rows > 1) {
      SmallVector<int64_t> sizes(s.loopSizes.size(), 0);
      sizes[rowDim] = 1;
      auto [tiled, loops] = w.tileFor(current, sizes);
      current = tiled;
      rowLoop = loops.front();
    }
    std::string decomposed = w.fresh("conv1d");
    os << "    " << decomposed << " = transform.structured.decompose "
       << current << " : (!transform.any_op) -> !transform.any_op\n";
    current = decomposed;
  }

  // 6. Vectorization, cleanups and the accumulators in registers.
  if (s.vectorize)
    os << "    transform.structured.vectorize " << current
       << " : !transform.any_op\n";
  if (!rowLoop.empty()) {
    std::string cast = w.fresh("rowloop");
    os << "    " << cast << " = transform.cast " << rowLoop
       << " : !transform.any_op to !transform.op<\"scf.for\">\n";
    os << "    transform.loop.unroll " << cast << " {factor = " << rows
       << "} : !transform.op<\"scf.for\">\n";
  }
  auto cleanup = [&](StringRef func, bool lowerPermutations) {
    os << "    transform.apply_patterns to " << func
       << " {\n"
          "      transform.apply_patterns.vector.reduction_to_contract\n";
    if (lowerPermutations)
      os << "      transform.apply_patterns.vector.transfer_permutation_"
            "patterns\n";
    os << "      transform.apply_patterns.tensor.fold_tensor_subset_ops\n"
          "      transform.apply_patterns.canonicalization\n"
          "    } : !transform.any_op\n";
  };
  auto matchLoops = [&](StringRef func) {
    std::string loops = w.fresh("fors");
    os << "    " << loops
       << " = transform.structured.match ops{[\"scf.for\"]} in " << func
       << " : (!transform.any_op) -> !transform.any_op\n";
    return loops;
  };
  // On buffers (hoistVectorTransfersOnBuffers): alias folding, CSE, LICM,
  // then the transfer pairs out of the loops. Returns the new function
  // handle (the hoisting consumes the old one).
  auto hoistOnBuffers = [&](StringRef func) {
    os << "    transform.apply_patterns to " << func
       << " {\n"
          "      transform.apply_patterns.memref.fold_memref_alias_ops\n"
          "    } : !transform.any_op\n"
          "    transform.apply_cse to "
       << func << " : !transform.any_op\n";
    std::string loops = matchLoops(func);
    os << "    transform.apply_licm to " << loops << " : !transform.any_op\n";
    std::string hoisted = w.fresh("func");
    os << "    " << hoisted
       << " = transform.structured.hoist_redundant_vector_transfers " << func
       << " : (!transform.any_op) -> !transform.any_op\n";
    return hoisted;
  };
  cleanup("%func", /*lowerPermutations=*/false);
  if (tunable.onTensors) {
    std::string loops = matchLoops("%func");
    os << "    transform.loop.hoist_loop_invariant_subsets " << loops
       << " : !transform.any_op\n";
    cleanup("%func", /*lowerPermutations=*/true);
  } else {
    std::string func = hoistOnBuffers("%func");
    cleanup(func, /*lowerPermutations=*/true);
    hoistOnBuffers(func);
  }
  os << "    transform.yield\n  }\n";
  out << body;
  return success();
}

/// The matcher of a schedule: op name and every static loop size.
void writeMatcher(const ScheduleEntry &entry, unsigned index,
                  llvm::raw_ostream &os) {
  size_t n = entry.matchSizes.size();
  SmallVector<std::string> params(n, "!transform.param<i64>");
  std::string paramList = llvm::join(params, ", ");
  os << "  transform.named_sequence @tiletune_match_" << index
     << "(%op: !transform.any_op {transform.readonly}) -> !transform.any_op "
        "{\n";
  os << "    transform.match.operation_name %op [\"" << entry.opName
     << "\"] : !transform.any_op\n";
  os << "    %dims:" << n << " = transform.match.structured %op : "
     << "(!transform.any_op) -> (" << paramList << ") {\n"
     << "    ^bb0(%s: !transform.any_op):\n";
  for (size_t i = 0; i < n; ++i)
    os << "      %d" << i << " = transform.match.structured.dim %s[" << i
       << "] : (!transform.any_op) -> !transform.param<i64>\n";
  os << "      transform.match.structured.yield ";
  for (size_t i = 0; i < n; ++i)
    os << (i ? ", " : "") << "%d" << i;
  os << " : " << paramList << "\n    }\n";
  for (auto [i, size] : llvm::enumerate(entry.matchSizes)) {
    os << "    %size" << i << " = transform.param.constant " << size
       << " : i64 -> !transform.param<i64>\n";
    os << "    transform.match.param.cmpi eq %dims#" << i << ", %size" << i
       << " : !transform.param<i64>\n";
  }
  os << "    transform.yield %op : !transform.any_op\n  }\n";
}
} // namespace

CPUTransformScript mlir::tiletune::buildCPUTransformScript(Operation *root) {
  CPUTransformScript result;
  SmallVector<ScheduleEntry> entries;
  // Per op name and loop sizes: the index of its entry.
  std::map<std::pair<std::string, SmallVector<int64_t>>, size_t> byShape;
  std::string actions, matchers;
  llvm::raw_string_ostream actionsOs(actions), matchersOs(matchers);

  root->walk([&](Operation *op) {
    TileConfigAttr config = getConfig(op);
    if (!config || config.getTarget() != kTargetCPU)
      return;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    auto skip = [&](const llvm::Twine &why) {
      result.skipped.push_back(locationOf(op) + ": " +
                               op->getName().getStringRef().str() + ": " +
                               why.str());
    };
    std::string reason;
    FailureOr<TunableOp> tunable = matchTunableOp(op, &reason);
    if (!linalgOp || failed(tunable)) {
      skip(reason.empty() ? "not a tunable op" : reason);
      return;
    }
    ScheduleEntry entry;
    entry.opName = op->getName().getStringRef().str();
    entry.matchSizes = SmallVector<int64_t>(linalgOp.getStaticLoopRanges());
    entry.configText = printed(config);
    entry.onTensors = tunable->onTensors;
    entry.firstOp = op;
    auto key = std::make_pair(entry.opName, entry.matchSizes);
    auto found = byShape.find(key);
    if (found != byShape.end()) {
      const ScheduleEntry &other = entries[found->second];
      if (other.configText == entry.configText &&
          other.onTensors == entry.onTensors) {
        ++result.numOps;
        return;
      }
      skip("its config (or operand kind) differs from that of the " +
           entry.opName + " of the same loop sizes at " +
           locationOf(other.firstOp) +
           ", and the script matches ops by name and loop sizes: that op's "
           "schedule applies to this one too");
      return;
    }
    unsigned index = entries.size();
    std::string why;
    if (failed(writeAction(op, config, *tunable, index, actionsOs, why))) {
      skip(why);
      return;
    }
    writeMatcher(entry, index, matchersOs);
    byShape[key] = entries.size();
    entries.push_back(std::move(entry));
    ++result.numOps;
  });
  result.numSchedules = entries.size();

  llvm::raw_string_ostream os(result.text);
  os << "// Transform script written by `tiletune export --format=transform`:\n"
        "// the tiletune.config of each op as upstream transform ops. Apply "
        "with\n"
        "// --transform-interpreter (e.g. --transform-preload-library="
        "transform-library-paths=<this file>).\n"
        "// It yields the loops of tiletune-tile-cpu (the scf.forall in its "
        "normalized form);\n"
        "// operand packing (pack = a/b/ab) is not included. The tiled ops "
        "inherit the\n"
        "// payload op's attributes: with vectorize = false, apply it to ops "
        "without\n"
        "// tiletune.config (a whole-op config does not fit a tile).\n";
  for (const std::string &skipped : result.skipped)
    os << "// Not scheduled: " << skipped << "\n";
  os << "module attributes {transform.with_named_sequence} {\n"
     << matchers << actions
     << "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.consumed}) {\n";
  if (!entries.empty()) {
    os << "    transform.foreach_match in %root\n";
    for (size_t i = 0; i < entries.size(); ++i)
      os << "        @tiletune_match_" << i << " -> @tiletune_apply_" << i
         << (i + 1 < entries.size() ? ",\n" : "\n");
    os << "      : (!transform.any_op) -> !transform.any_op\n";
  }
  os << "    transform.yield\n  }\n}\n";
  return result;
}
