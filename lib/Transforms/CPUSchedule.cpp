//===- CPUSchedule.cpp - Decoding and checking CPU tiling configs ---------===//
//
// Turns a `#tiletune.config<cpu, ...>` with named levels into the positional
// per-loop tile sizes, cache-level loop order and options of a CPUSchedule
// (after verifying the config against the op), and checks that a schedule
// fits an op before any IR is touched. Also the op-kind facts the tiling
// code needs (which loops are conv rows or B-panel columns).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUSchedule.h"
#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/Support/TilingTemplates.h"

#include "TilingUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Op kinds
//===----------------------------------------------------------------------===//

int64_t tiletune::getPanelDim(OpKind kind) {
  return isBatchedMatmul(kind) ? 2 : 1;
}

int64_t tiletune::getConvRowDim(OpKind kind) {
  return kind == OpKind::ConvNchwFchw ? 2 : 1;
}

//===----------------------------------------------------------------------===//
// Schedule decoding
//===----------------------------------------------------------------------===//

int64_t CPUSchedule::getParallelTrips() const {
  int64_t trips = 1;
  ArrayRef<int64_t> sizes = opSizes.empty() ? loopSizes : opSizes;
  for (auto [size, tile] : llvm::zip(sizes, parallelTiles))
    if (tile > 0)
      trips *= (size + tile - 1) / tile;
  return trips;
}

FailureOr<CPUSchedule> tiletune::decodeCPUSchedule(Operation *op,
                                                   TileConfigAttr config,
                                                   std::string *reason) {
  auto fail = [&](const Twine &msg) -> FailureOr<CPUSchedule> {
    return failWithReason(reason, msg);
  };
  if (!config)
    return fail("the op has no tiletune.config");
  if (config.getTarget() != kTargetCPU)
    return fail("the config targets '" + config.getTarget() + "', not cpu");
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return fail(why);

  // Verify without leaking diagnostics: capture the first message.
  std::string verifyMessage;
  {
    ThreadScopedDiagnosticHandler capture(op->getContext(),
                                          [&](Diagnostic &diag) {
                                            if (verifyMessage.empty())
                                              verifyMessage = diag.str();
                                            return success();
                                          });
    if (failed(verifyConfig(config, *tunable,
                            [&] { return mlir::emitError(op->getLoc()); })))
      return fail("invalid config: " + verifyMessage);
  }

  CPUSchedule schedule;
  schedule.kind = tunable->kind;
  size_t numLoops = tunable->dims.size();
  schedule.loopSizes.assign(numLoops, 0);
  schedule.opSizes.assign(numLoops, 0);
  schedule.parallelTiles.assign(numLoops, 0);
  schedule.cacheTiles.assign(numLoops, 0);
  schedule.registerTiles.assign(numLoops, 0);
  schedule.vectorize = config.getBoolOption("vectorize");
  schedule.unroll = config.getIntOption("unroll");
  // A named compute (verified above) stands for its packing.
  StringRef pack = getCPUPack(config);
  schedule.packLhs = pack == "a" || pack == "ab";
  schedule.packRhs = pack == "b" || pack == "ab";
  schedule.dnmm = pack == "dn";
  if (schedule.unroll < 1)
    return fail("unroll must be positive");

  auto tileAt = [&](StringRef level, const LoopDim &dim) -> int64_t {
    std::optional<int64_t> size = config.getTileSize(level, dim.name);
    return size ? *size : -1;
  };
  for (const LoopDim &dim : tunable->dims) {
    unsigned i = dim.loopIndex;
    if (i >= numLoops)
      return fail("loop index out of range");
    schedule.loopSizes[i] = getPaddedSize(config, dim);
    schedule.opSizes[i] = dim.size;
    switch (dim.role) {
    case DimRole::Batch:
      schedule.parallelTiles[i] = tileAt("parallel", dim);
      schedule.cacheTiles[i] = 1;
      schedule.registerTiles[i] = 1;
      break;
    case DimRole::Parallel:
      schedule.parallelTiles[i] = tileAt("parallel", dim);
      schedule.cacheTiles[i] = tileAt("cache", dim);
      schedule.registerTiles[i] = tileAt("register", dim);
      break;
    case DimRole::Reduction:
      schedule.parallelTiles[i] = 0;
      schedule.cacheTiles[i] = tileAt("cache", dim);
      schedule.registerTiles[i] =
          (dim.name == "k" || dim.name == "c") ? schedule.unroll : 1;
      break;
    }
    if (schedule.parallelTiles[i] < 0 || schedule.cacheTiles[i] < 0 ||
        schedule.registerTiles[i] < 0)
      return fail("dimension '" + dim.name + "' misses a tile size");
  }

  // Cache-level loop order: batch dims first, then `order` (or the default:
  // parallel dims in iterator order, then reductions).
  SmallVector<StringRef> order = config.getOrder();
  for (const LoopDim &dim : tunable->dims)
    if (dim.role == DimRole::Batch)
      schedule.cacheOrder.push_back(dim.loopIndex);
  if (order.empty()) {
    for (DimRole role : {DimRole::Parallel, DimRole::Reduction})
      for (const LoopDim &dim : tunable->dims)
        if (dim.role == role)
          schedule.cacheOrder.push_back(dim.loopIndex);
  } else {
    for (StringRef name : order) {
      const LoopDim *dim = tunable->lookup(name);
      if (!dim || dim->role == DimRole::Batch)
        return fail("order names an unknown or batch dimension '" + name + "'");
      schedule.cacheOrder.push_back(dim->loopIndex);
    }
  }
  SmallVector<int64_t> sorted(schedule.cacheOrder);
  llvm::sort(sorted);
  for (auto [i, v] : llvm::enumerate(sorted))
    if (v != static_cast<int64_t>(i))
      return fail("order is not a permutation of the non-batch dimensions");
  return schedule;
}

//===----------------------------------------------------------------------===//
// Preconditions
//===----------------------------------------------------------------------===//

LogicalResult tiletune::checkCPUTilingPreconditions(Operation *op,
                                                    const CPUSchedule &s,
                                                    std::string *reason) {
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  if (tunable->kind != s.kind)
    return failWithReason(reason,
                          "the schedule was decoded for another op kind");
  return checkScheduleFitsOp(op, s, reason);
}

LogicalResult tiletune::checkScheduleFitsOp(Operation *op, const CPUSchedule &s,
                                            std::string *reason) {
  auto fail = [&](const Twine &msg) { return failWithReason(reason, msg); };
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<TilingInterface>(op))
    return fail("not a structured op with the tiling interface (are the "
                "Linalg TilingInterface models registered?)");
  if (!linalgOp.hasPureTensorSemantics() && !linalgOp.hasPureBufferSemantics())
    return fail("mixed tensor and buffer operands");
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  size_t n = ranges.size();
  // Schedules built by hand may leave opSizes empty: nothing is padded.
  ArrayRef<int64_t> opSizes = s.opSizes.empty() ? ArrayRef(s.loopSizes)
                                                : ArrayRef(s.opSizes);
  if (s.loopSizes.size() != n || opSizes.size() != n ||
      s.parallelTiles.size() != n ||
      s.cacheTiles.size() != n || s.registerTiles.size() != n ||
      s.cacheOrder.size() != n)
    return fail("the schedule does not match the op's loops");
  for (size_t i = 0; i < n; ++i) {
    if (ShapedType::isDynamic(ranges[i]) || ranges[i] != opSizes[i] ||
        s.loopSizes[i] < opSizes[i])
      return fail("the schedule does not match the op's loop sizes");
    int64_t outer =
        s.parallelTiles[i] > 0 ? s.parallelTiles[i] : s.loopSizes[i];
    if (outer <= 0 || s.loopSizes[i] % outer != 0)
      return fail("parallel tile does not divide loop " + Twine(i));
    if (s.cacheTiles[i] <= 0 || outer % s.cacheTiles[i] != 0)
      return fail("cache tile does not divide the parallel tile of loop " +
                  Twine(i));
    if (s.registerTiles[i] <= 0 || s.cacheTiles[i] % s.registerTiles[i] != 0)
      return fail("register tile does not divide the cache tile of loop " +
                  Twine(i));
  }
  if (isConv(s.kind)) {
    // The 1-D decomposition needs kh stepping by 1 (kh is loop 4 in NHWC
    // and loop 5 in NCHW).
    int64_t kh = s.kind == OpKind::ConvNchwFchw ? 5 : 4;
    if (s.registerTiles[kh] != 1)
      return fail("kh must step by 1 at the register level");
    int64_t batch = 0;
    if (s.registerTiles[batch] != 1)
      return fail("the batch dim must step by 1 at the register level");
  }
  return success();
}
