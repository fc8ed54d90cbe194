//===- DefaultConfig.h - Heuristic CPU configs for untuned ops --*- C++ -*-===//
//
// The heuristic behind `tiletune-default-config`: a legal, reasonably fast
// `#tiletune.config<cpu, ...>` for any tunable op with static shapes.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_DEFAULTCONFIG_H
#define TILETUNE_TRANSFORMS_DEFAULTCONFIG_H

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Support/CPUDescription.h"

#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir::tiletune {

/// Machine facts the heuristic sizes tiles for, derived from a
/// CPUDescription (the one place that knows the ISA). A default-constructed
/// CPUTarget describes the process's default target (the host unless a tool
/// chose another, getDefaultTargetCPU()) with one thread.
struct CPUTarget {
  /// The facts of `cpu`, with `threads` threads.
  static CPUTarget get(const CPUDescription &cpu, int64_t threads = 1);

  /// Cores the parallel level is split across.
  int64_t threads = 1;
  /// Bytes of a vector register in use (CPUDescription::vectorBits / 8).
  int64_t vectorBytes = getDefaultTargetCPU().vectorBits / 8;
  /// Register-tile budget in bytes of accumulators
  /// (CPUDescription::getAccumulatorElements: three quarters of the
  /// registers).
  int64_t maxRegisterBytes = getDefaultTargetCPU().getAccumulatorElements(1);
  /// Vector registers: a register tile of r rows x v vectors must fit them
  /// with its operands (CPUDescription::getRegisterTileRegisters), as the
  /// tuning spaces' "register-file" constraint requires.
  int64_t vectorRegisters = getDefaultTargetCPU().vectorRegisters;
  int64_t l1Bytes = getDefaultTargetCPU().caches.l1Bytes;
  int64_t l2Bytes = getDefaultTargetCPU().caches.l2Bytes;
  /// Bytes of a cache line (64 on every x86 core so far).
  int64_t lineBytes = getDefaultTargetCPU().caches.lineBytes;
};

/// Computes the default CPU config of a tunable op. Always returns a config
/// that verifies against `op` (any static sizes, primes and 1 included);
/// returns null for an op with a loop of size 0 or less (nothing to tile;
/// matchTunableOp never yields one).
///
/// `pack` asks for the default config of one compute (a `pack` value:
/// none, a, b, ab, bt or dn, i.e. tmm ... dnmm332) instead of the one the
/// heuristic picks: its tiles are sized for that compute (dn's register tile
/// runs along k), so that each compute can be measured at its own default
/// (bench/automcl/collect.py). It must apply to the op
/// (isComputeApplicable, TilingTemplates.h); "" lets the heuristic choose.
///
/// A conv on a small map (at most 49 output pixels, at least 256 channels
/// in and out) is computed as its im2col GEMM with im2col_rpmmv for a
/// window larger than 1x1 at a batch above 1 (computeIm2colDefaultCPUConfig;
/// an NCHW one also at batch 1 on one thread). A 1x1
/// NCHW conv is an im2col GEMM per image in its native layout where it is
/// unstrided and its pixels fill whole vectors, through NHWC where it is
/// strided or batched, or (with im2col_dnmm332) at batch 1 on a small map.
/// Every other conv is computed directly.
TileConfigAttr computeDefaultCPUConfig(MLIRContext *ctx, const TunableOp &op,
                                       const CPUTarget &target = {},
                                       llvm::StringRef pack = "");

/// computeDefaultCPUConfig without the im2col rule: a conv is always
/// computed directly (`compute = direct`).
TileConfigAttr computeDirectDefaultCPUConfig(MLIRContext *ctx,
                                             const TunableOp &op,
                                             const CPUTarget &target = {},
                                             llvm::StringRef pack = "");

/// The default config of a conv computed as its im2col GEMM with matmul
/// compute `pack` (`compute = im2col_X`, paper 001's Im2colRPMMV,
/// Im2colDNMM332, ...): the default config of that GEMM (N*OH*OW x F x
/// KH*KW*C, computeDefaultCPUConfig with `pack`; per image for a 1x1 NCHW
/// conv whose pixels fill whole vectors: F x OH*OW x C) written as conv
/// tiles whose products per level come closest to the GEMM's tiles from
/// below (m from ow, oh, then n; k from c, kw, kh; per image the pixel
/// tiles of whole vectors first). The conv must have an im2col form
/// (getIm2colMatmulKind) and `pack` must apply to it (isComputeApplicable);
/// an empty `pack` takes the compute the GEMM's default config picks. Null
/// for an op with an empty loop.
TileConfigAttr computeIm2colDefaultCPUConfig(MLIRContext *ctx,
                                             const TunableOp &conv,
                                             const CPUTarget &target,
                                             llvm::StringRef pack);

/// Error when the text of the `mcpu`/`mattr` options names no target.
llvm::Expected<CPUTarget> getCPUTargetFor(llvm::StringRef mcpu,
                                          llvm::StringRef mattr,
                                          int64_t threads);

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_DEFAULTCONFIG_H
