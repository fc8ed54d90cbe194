//===- PTXAS.h - Assemble PTX with ptxas and read its report ----*- C++ -*-===//
//
// Runs ptxas from the CUDA toolkit on PTX text (no GPU needed), parses its
// resource report (registers, shared memory, spills, stack) and turns it
// into a legality verdict and an occupancy estimate for the tuner.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_PTXAS_H
#define TILETUNE_GPU_PTXAS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tiletune {

/// Resources ptxas reports for one entry function.
struct KernelResources {
  std::string name;
  int registers = 0;
  /// Static shared memory in bytes.
  int64_t sharedBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t stackFrameBytes = 0;
  int barriers = 0;

  bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
};

/// The report of one ptxas run.
struct PtxasReport {
  std::string arch;
  llvm::SmallVector<KernelResources> kernels;
  /// Everything ptxas printed.
  std::string log;
};

/// Parses the `-v` output of ptxas ("Compiling entry function 'k' for
/// 'sm_90'", "Function properties for k", "N bytes stack frame, N bytes spill
/// stores, N bytes spill loads", "Used N registers, used N barriers, N bytes
/// smem, ..."). Fails when no entry function is reported.
llvm::Expected<PtxasReport> parsePtxasOutput(llvm::StringRef output);

/// Path of ptxas: $TILETUNE_PTXAS, else <CUDA toolkit>/bin/ptxas found at
/// configure time, else `ptxas` on PATH; std::nullopt when none exists.
std::optional<std::string> findPtxas();

/// Assembles `ptx` for `chip` (e.g. "sm_90") with `ptxas -v -O3` and returns
/// its report. An assembly error (too much shared memory, too many
/// registers, malformed PTX) comes back as an error carrying ptxas' log; so
/// does a run longer than `timeoutSeconds` (0: no limit), which only kernels
/// with enormous unrolled bodies need.
/// With `cubin`, the assembled binary is returned there.
llvm::Expected<PtxasReport> runPtxas(llvm::StringRef ptx, llvm::StringRef chip,
                                     llvm::StringRef ptxasPath = "",
                                     unsigned timeoutSeconds = 120,
                                     std::string *cubin = nullptr);

/// Resource limits of one streaming multiprocessor and one kernel.
struct SMResources {
  int maxRegistersPerThread = 255;
  int64_t registersPerSM = 65536;
  int64_t sharedBytesPerSM = 228 * 1024;
  int64_t maxSharedBytesPerBlock = 48 * 1024;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  /// Spilled kernels are illegal unless this is set.
  bool allowSpills = false;

  /// Limits of `chip` (sm_80: 164 KiB shared per SM; sm_90: 228 KiB; ...).
  static SMResources forChip(llvm::StringRef chip);
};

/// Legality and occupancy of one kernel launched with `threadsPerBlock`.
struct ResourceVerdict {
  bool legal = true;
  /// Why it is illegal (empty when legal).
  std::string reason;
  /// Resident blocks per SM and the fraction of the SM's threads they fill.
  int blocksPerSM = 0;
  double occupancy = 0.0;
};

/// Applies `limits` to `kernel` (spills, registers per thread, registers and
/// shared memory of one block) and computes the occupancy.
ResourceVerdict checkResources(const KernelResources &kernel,
                               int64_t threadsPerBlock,
                               const SMResources &limits);

} // namespace mlir::tiletune

#endif // TILETUNE_GPU_PTXAS_H
