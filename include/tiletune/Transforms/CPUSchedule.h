//===- CPUSchedule.h - Decoded CPU tiling configs ---------------*- C++ -*-===//
//
// The CPU schedule of one tunable op: a `#tiletune.config<cpu, ...>` decoded
// from named levels into positional per-loop tile sizes, a cache-level loop
// order and the options, plus the check that the schedule fits the op. This
// is what tileAndVectorizeForCPU consumes (CPUTiling.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_CPUSCHEDULE_H
#define TILETUNE_TRANSFORMS_CPUSCHEDULE_H

#include "tiletune/Dialect/TileConfig.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tiletune {

/// The CPU schedule of one op: tile sizes per loop (the op's iterator order)
/// at each level, the cache-level loop order and the options. A tile size of
/// 0 means "not tiled at this level" (the loop would have one iteration).
struct CPUSchedule {
  OpKind kind = OpKind::Matmul;
  /// Full loop ranges, iterator order: the padded sizes where the config
  /// pads a loop (`pad`), so that every level's tiles divide them.
  SmallVector<int64_t> loopSizes;
  /// The op's own loop ranges (below loopSizes where a loop is padded). The
  /// last tile of a padded loop is partial; tileAndVectorizeForCPU computes
  /// it in place with peeled register loops (CPUSchedule.md, "Remainders").
  SmallVector<int64_t> opSizes;
  /// Per-thread tile of the `scf.forall` (0 for reductions).
  SmallVector<int64_t> parallelTiles;
  /// Cache tile per loop.
  SmallVector<int64_t> cacheTiles;
  /// Register tile per loop (reductions: `unroll` for k/c, 1 for kh/kw).
  SmallVector<int64_t> registerTiles;
  /// Cache-level loop order as loop indices, outer to inner (batch first).
  SmallVector<int64_t> cacheOrder;
  bool vectorize = true;
  bool packLhs = false;
  bool packRhs = false;
  /// `pack = dn` (compute dnmm332): vectors along k, per-lane partial sums
  /// (generateDnmmForCPU) instead of the upstream tiling.
  bool dnmm = false;
  int64_t unroll = 1;

  /// Number of `scf.forall` iterations (threads worth of work).
  int64_t getParallelTrips() const;
  /// Whether some loop is padded (opSizes below loopSizes).
  bool isPadded() const { return opSizes != loopSizes; }
};

/// Decodes the CPU schedule of `op` from `config`. Fails (with `reason`)
/// when the op is not tunable, the config is not a CPU config or does not
/// verify against the op.
FailureOr<CPUSchedule> decodeCPUSchedule(Operation *op, TileConfigAttr config,
                                         std::string *reason = nullptr);

/// Checks everything tileAndVectorizeForCPU needs without touching IR:
/// a tunable op with static shapes, buffer or tensor semantics (not mixed),
/// a schedule whose sizes match its loops.
LogicalResult checkCPUTilingPreconditions(Operation *op,
                                          const CPUSchedule &schedule,
                                          std::string *reason = nullptr);

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_CPUSCHEDULE_H
