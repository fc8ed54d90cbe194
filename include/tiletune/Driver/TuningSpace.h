//===- TuningSpace.h - The space and default config a run uses --*- C++ -*-===//
//
// What tuning searches for one problem: its operator space restricted to
// configs the passes accept and with the user's pinned parameters, the
// space a strategy searches (AutoMCL's filtered one), and the default
// config (the heuristic of the default-config passes) as a point of it.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_TUNINGSPACE_H
#define TILETUNE_DRIVER_TUNINGSPACE_H

#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/Space.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletune {

/// The default config of a problem (the heuristic of
/// `tiletune-default-config` for `threads` threads on the CPU, of
/// `tiletune-default-gpu-config` for cuda) as a point of `space` (converted
/// directly; projected from the unpinned space only when pinned parameters
/// exclude it); the space's own default when the heuristic's config is not
/// in it, which is said on `log` when given. The result is a valid config
/// of `space` whenever the space has one: when that point breaks a
/// constraint (pins can combine with the heuristic's values, or the pinned
/// space's own default can, into an invalid config while valid ones remain)
/// it moves to the nearest valid config (fewest parameter changes), also
/// said on `log`.
Config getDefaultConfig(MLIRContext *ctx, const Problem &problem,
                        const Space &space, unsigned threads,
                        llvm::raw_ostream *log = nullptr);

/// `space` (a cuda space of `problem`) with the constraint
/// "gpu-kernel-limits": the kernel plan of tiletune-tile-gpu for the config
/// must exist and fit the GPU's limits (threads and block dims, grid y/z,
/// 48 KiB static shared memory, cooperative copies), so that the space holds
/// only configs the GPU passes accept; beyond the passes' checks it also
/// excludes configs with more accumulators per thread (vthreads x register
/// tile) than a thread has registers (255), which must spill and are
/// rejected by the ptxas filter only after a long compile. `ctx` must
/// outlive the space.
Space withGPUKernelLimits(MLIRContext *ctx, const Problem &problem,
                          const Space &space);

/// The space tuning searches for `problem`: its operator space (cuda spaces
/// restricted to configs the GPU passes accept, see withGPUKernelLimits;
/// `ctx` must outlive the space) with the parameters named in `fixed`
/// pinned ("order=[n,k,m];unroll=4;m=[1,*,*,*]", see Space::withPinned;
/// empty: none), for `threads` threads (0: all cores; a CPU space's padded
/// sizes depend on them, toProblemSpec). Errors on a bad pin or when no
/// valid config is left.
llvm::Expected<Space> buildTuningSpace(MLIRContext *ctx, const Problem &problem,
                                       llvm::StringRef fixed = "",
                                       unsigned threads = 1);

/// The space a strategy searches: `space` itself, or for "automcl" on the
/// CPU the AutoMCL space: pfactor thread grid + ideal-cache-model filter
/// (innermost tile in L1, cache tile in L2 of the CPU target) and, as in the
/// paper, tile sizes only: when `start` (the default config) is given, the
/// schedule options other than `pack` (the compute, chosen by AutoMCL's
/// compute model or searched) are pinned to its values, unless that leaves
/// no valid config.
llvm::Expected<Space> getSearchSpace(llvm::StringRef algorithm,
                                     const Problem &problem, const Space &space,
                                     unsigned threads,
                                     const Config *start = nullptr);

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_TUNINGSPACE_H
