//===- Distributed.h - Tuning with measurement on MPI ranks -----*- C++ -*-===//
//
// The driver's side of `mpirun -n N tiletune tune ... --distributed=mpi`
// (docs/Distributed.md): rank 0 runs the ordinary tuning flow with
// TuneOptions::distributed = "mpi", so that each problem is measured by an
// MPIProblemMeasurer on the worker ranks; ranks 1..N-1 run
// runDistributedWorker, which builds the ordinary CPU measurer (its fork
// server isolates crashes and hangs) for each problem rank 0 sends. In a
// build without MPI (TILETUNE_ENABLE_MPI=OFF) every entry point returns an
// error saying so.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_DISTRIBUTED_H
#define TILETUNE_DRIVER_DISTRIBUTED_H

#include "tiletune/Driver/TuneOptions.h"
#include "tiletune/Measure/Measurer.h"
#include "tiletune/Problem/Problem.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace mlir {
class MLIRContext;
namespace tiletune {

struct CPUMeasureOptions;

/// Whether this build has distributed measurement (TILETUNE_ENABLE_MPI).
bool isDistributedMeasurementBuilt();

/// Starts the MPI job of `--distributed=mpi` (call early in main): an error
/// when the build has no MPI, the process was not started by mpirun/srun, or
/// the job has fewer than 2 ranks. Returns this process's rank.
llvm::Expected<int> startDistributed(int *argc, char ***argv);

/// Ends the MPI job (rank 0: tells the worker ranks to exit; with `abort`,
/// or when a worker rank is gone, aborts the job with `exitCode`). Does
/// nothing when startDistributed was not called.
void endDistributed(int exitCode, bool abort = false);

/// Ranks 1..N-1: measures what rank 0 sends until it says exit. `ctx` must
/// not own a thread pool (the measurers fork).
llvm::Error runDistributedWorker(MLIRContext &ctx);

/// Rank 0, before the first measurement of a run: every worker rank sets up
/// `options`' CPU target (mcpu/mattr) with `threads` threads and must report
/// `target` (errors name the rank that differs).
llvm::Error connectDistributedWorkers(const TargetInfo &target,
                                      unsigned threads,
                                      const TuneOptions &options);

/// Rank 0: the measurer of `problem` on the worker ranks, which measure
/// `kernelText` with `measureOptions` (and compile ahead when `overlap`)
/// over the space of `problem` with `options.fixed` pinned.
llvm::Expected<std::unique_ptr<Measurer>> createDistributedMeasurer(
    const Problem &problem, const Space &space, const std::string &kernelText,
    const CPUMeasureOptions &measureOptions, bool overlap,
    const TuneOptions &options);

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_DRIVER_DISTRIBUTED_H
