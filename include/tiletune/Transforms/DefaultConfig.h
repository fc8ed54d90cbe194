//===- DefaultConfig.h - Heuristic CPU configs for untuned ops --*- C++ -*-===//
//
// The heuristic behind `tiletune-default-config`: a legal, reasonably fast
// `#tiletune.config<cpu, ...>` for any tunable op with static shapes.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_DEFAULTCONFIG_H
#define TILETUNE_TRANSFORMS_DEFAULTCONFIG_H

#include "tiletune/Dialect/TileConfig.h"

#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir::tiletune {

/// Machine facts the heuristic sizes tiles for.
struct CPUTarget {
  /// Cores the parallel level is split across.
  int64_t threads = 1;
  /// Vector lanes of the element type per register (AVX-512 f32: 16).
  int64_t vectorBytes = 64;
  /// Register-tile budget in elements (AVX-512: 32 registers, up to 24 hold
  /// accumulators).
  int64_t maxRegisterElements = 384;
  int64_t l1Bytes = 48 * 1024;
  int64_t l2Bytes = 1024 * 1024;
};

/// Computes the default CPU config of a tunable op. Always returns a config
/// that verifies against `op` (any static sizes, primes and 1 included);
/// returns null for an op with a loop of size 0 or less (nothing to tile;
/// matchTunableOp never yields one).
TileConfigAttr computeDefaultCPUConfig(MLIRContext *ctx, const TunableOp &op,
                                       const CPUTarget &target = {});

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_DEFAULTCONFIG_H
