//===- MPIMeasurer.h - Measuring on the worker ranks of an MPI job -*- C++ -*-===//
//
// Distributed measurement over MPI (`mpirun -n N tiletune tune ...
// --distributed=mpi`): rank 0 searches and owns the database; ranks
// 1..N-1 compile and measure. On rank 0, MPIProblemMeasurer implements the
// Measurer interface the tuner knows: it sends the problem (an opaque JSON
// job the driver builds) and chunks of configs (their space keys) to idle
// worker ranks and hands every MeasureResult to the tuner's sink as it
// arrives. A worker rank (runMPIWorker) builds an ordinary measurer from the
// job (the driver's factory: the CPU measurer, with its fork server) and
// sends each result back. Every wait has a time limit.
//
// MLIR-free: configs travel as space keys, the problem as JSON, results in
// the worker codec of MeasureResult.h. mpi.h is included only by the .cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_MPIMEASURER_H
#define TILETUNE_MEASURE_MPIMEASURER_H

#include "tiletune/Measure/Measurer.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlir::tiletune {

//===----------------------------------------------------------------------===//
// The protocol (JSON text in MPI messages; unit-tested without MPI).
//===----------------------------------------------------------------------===//

/// Rank 0 to every worker when a run starts: the CPU target and threads
/// every rank must measure with.
struct MPIHello {
  std::string mcpu;
  std::string mattr;
  unsigned threads = 1;
  /// getTileTuneVersionLine() of rank 0: every rank must run the same build.
  std::string version;
};

/// A worker's answer to MPIHello: its host name and the target it measures
/// (TargetInfo), or why it cannot measure that target.
struct MPIHelloReply {
  std::string host;
  std::string version;
  std::optional<TargetInfo> target;
  std::string error;
};

/// A chunk of configs of one problem for one worker.
struct MPIMeasureChunk {
  /// Sequence number of the chunk (results carry it).
  uint64_t chunk = 0;
  /// The problem (MPIProblemMeasurer's job) the configs belong to.
  uint64_t problem = 0;
  MeasureRequest request;
  /// The configs: their index in the tuner's batch and their space key.
  llvm::SmallVector<std::pair<uint64_t, std::string>> configs;
};

/// One result of a chunk, or (done) the end of a chunk, with the error of
/// the worker's measurer if it failed.
struct MPIChunkReply {
  uint64_t chunk = 0;
  bool done = false;
  uint64_t index = 0;
  MeasureResult result;
  std::string error;
};

/// Checks the handshake reply of worker rank `rank` against rank 0's
/// `target` and build `version`: an error names the rank and its host and
/// says what differs (its own error, another build, another target).
llvm::Error checkMPIHelloReply(int rank, const MPIHelloReply &reply,
                               const TargetInfo &target,
                               llvm::StringRef version);

std::string encodeMPIHello(const MPIHello &hello);
llvm::Expected<MPIHello> decodeMPIHello(llvm::StringRef text);
std::string encodeMPIHelloReply(const MPIHelloReply &reply);
llvm::Expected<MPIHelloReply> decodeMPIHelloReply(llvm::StringRef text);
std::string encodeMPIMeasureChunk(const MPIMeasureChunk &chunk);
llvm::Expected<MPIMeasureChunk> decodeMPIMeasureChunk(llvm::StringRef text);
std::string encodeMPIChunkReply(const MPIChunkReply &reply);
llvm::Expected<MPIChunkReply> decodeMPIChunkReply(llvm::StringRef text);

//===----------------------------------------------------------------------===//
// The MPI job.
//===----------------------------------------------------------------------===//

/// Whether this process was started by an MPI launcher (mpirun/mpiexec of
/// Open MPI, or Slurm's srun): its environment names a rank.
bool isLaunchedByMPI();

/// Initialises MPI once (MPI_Init; errors are returned, not fatal). Call it
/// early in main, before the process starts threads.
llvm::Error initializeMPI(int *argc, char ***argv);
/// Whether initializeMPI succeeded (and finalizeMPI was not called yet).
bool isMPIInitialized();
/// This process's rank and the job's size (MPI_COMM_WORLD).
int getMPIRank();
int getMPISize();
/// Rank 0: ends the job. Tells every worker rank to exit (one that is
/// measuring stops after its current config) and finalises MPI; with
/// `abort`, or when a worker rank stopped answering, aborts the job instead
/// (MPI_Abort with `exitCode`), so that nothing waits for a rank that is
/// gone. Worker ranks: finalises.
void finalizeMPI(int exitCode, bool abort = false);

/// Rank 0: the handshake before anything is measured. Sends `hello` to every
/// worker rank and checks each reply: a rank that does not answer within
/// `timeoutSeconds`, runs another build, cannot run the target or reports a
/// target other than `target` (rank 0's) is an error naming the rank and
/// its host. Says what it found on `log` (null: quiet).
llvm::Error connectMPIWorkers(const MPIHello &hello, const TargetInfo &target,
                              llvm::raw_ostream *log,
                              double timeoutSeconds = 120);

/// Options of MPIProblemMeasurer.
struct MPIMeasurerOptions {
  /// How long rank 0 waits for the next message of a worker that is
  /// measuring one config, in seconds, given the request (covers the
  /// config's compile and run limits; a worker that is silent for longer is
  /// taken as dead or hung and the run ends with an error). Null: 600 s.
  std::function<double(const MeasureRequest &)> resultTimeoutSeconds;
  /// Polled while waiting: when set, measure() returns at once (the tuner
  /// stops; results not received yet are measured again on --resume).
  const std::atomic<bool> *stopFlag = nullptr;
  /// Where to say that measurements were abandoned (null: quiet).
  llvm::raw_ostream *log = nullptr;
};

/// Rank 0's measurer of one problem: configs are measured on the worker
/// ranks connected by connectMPIWorkers. A batch is split into chunks over
/// the idle workers (the confirmation of the winner, role Final, goes whole
/// to one worker so that its rounds compare on one machine); each result is
/// passed to the sink as it arrives, in the thread that called measure().
class MPIProblemMeasurer : public Measurer {
public:
  /// `space` gives configs their keys; `job` is what each worker's factory
  /// builds its measurer from (sent once to each worker that measures).
  MPIProblemMeasurer(const Space &space, llvm::json::Value job,
                     MPIMeasurerOptions options);
  ~MPIProblemMeasurer() override;
  llvm::Error measure(llvm::ArrayRef<Config> batch,
                      const MeasureRequest &request,
                      MeasureResultSink sink) override;

private:
  const Space &space;
  uint64_t id;
  std::string jobText;
  MPIMeasurerOptions options;
};

/// What a worker rank measures one problem with: the measurer built from a
/// job, and the space that turns the keys it is sent back into configs.
struct MPIWorkerMeasurer {
  std::unique_ptr<Space> space;
  std::unique_ptr<Measurer> measurer;
};

/// What a worker rank needs from the driver.
struct MPIWorkerHooks {
  /// Sets up the target of `hello` and returns it (TargetInfo), or why
  /// this host cannot measure it.
  std::function<llvm::Expected<TargetInfo>(const MPIHello &)> connect;
  /// Builds the measurer of a job (MPIProblemMeasurer's `job`).
  std::function<llvm::Expected<MPIWorkerMeasurer>(const llvm::json::Value &)>
      createMeasurer;
};

/// Worker ranks (1..N-1): serves rank 0 until it says exit. An error means
/// rank 0 stayed silent for `idleTimeoutSeconds` or the MPI transport broke.
llvm::Error runMPIWorker(const MPIWorkerHooks &hooks,
                         double idleTimeoutSeconds = 3600);

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_MPIMEASURER_H
