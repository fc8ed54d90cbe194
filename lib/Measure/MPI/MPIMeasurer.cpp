//===- MPIMeasurer.cpp - Measuring on the worker ranks of an MPI job ------===//
//
// Rank 0's measurer (chunks of configs to idle worker ranks, results to the
// tuner's sink as they arrive) and the worker ranks' loop. Every send and
// receive polls (MPI_Isend/MPI_Test, MPI_Iprobe) with a time limit and
// sleeps between polls, so that a waiting rank neither hangs nor takes a
// core from the variants being timed.
//
// Fork: a worker rank's measurer forks its worker processes after MPI_Init.
// The children never call MPI (they end with _exit, see Worker.h), and
// Open MPI's warning about fork() is turned off before MPI_Init.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/MPIMeasurer.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace mlir::tiletune;
using Clock = std::chrono::steady_clock;

namespace {

enum Tag : int {
  TagHello = 1,
  TagHelloReply = 2,
  TagProblem = 3,
  TagMeasure = 4,
  TagReply = 5,
  TagExit = 6,
};

/// Rank 0's view of one worker rank.
struct WorkerRank {
  int rank = 0;
  std::string host;
  /// Answered the handshake.
  bool connected = false;
  /// Stopped answering (timed out); never used again.
  bool dead = false;
  /// The chunk it measures (0: idle).
  uint64_t busyChunk = 0;
  /// When it last sent something while busy.
  Clock::time_point lastHeard;
  /// The limit of silence while busy, seconds.
  double silenceLimit = 0;
  /// The problem whose job it holds (0: none).
  uint64_t problem = 0;
};

struct Runtime {
  bool initialized = false;
  bool finalized = false;
  int rank = 0;
  int size = 1;
  std::vector<WorkerRank> workers; // rank 0 only: ranks 1..size-1
  uint64_t nextChunk = 1;
  uint64_t nextProblem = 1;
};

Runtime &runtime() {
  static Runtime state;
  return state;
}

struct Message {
  int source = 0;
  int tag = 0;
  std::string text;
};

/// Sleeps between polls: short at first, at most 2 ms.
class Backoff {
public:
  void reset() { micros = 20; }
  void wait() {
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
    micros = std::min(micros * 2, 2000);
  }

private:
  int micros = 20;
};

} // namespace

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

static llvm::Error mpiError(int code, const llvm::Twine &what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    length = 0;
  return llvm::createStringError(what + ": " +
                                 llvm::StringRef(text, size_t(length)));
}

static std::string describeRank(int rank) {
  const Runtime &rt = runtime();
  if (rank > 0 && size_t(rank) <= rt.workers.size() &&
      !rt.workers[rank - 1].host.empty())
    return llvm::formatv("rank {0} (host {1})", rank,
                         rt.workers[rank - 1].host)
        .str();
  return llvm::formatv("rank {0}", rank).str();
}

/// Sends `text` to `dest` with `tag`; an error when it is not taken within
/// `timeoutSeconds`.
static llvm::Error sendText(int dest, int tag, llvm::StringRef text,
                            double timeoutSeconds) {
  MPI_Request request;
  int rc = MPI_Isend(text.data(), int(text.size()), MPI_CHAR, dest, tag,
                     MPI_COMM_WORLD, &request);
  if (rc != MPI_SUCCESS)
    return mpiError(rc, "sending to " + describeRank(dest));
  auto start = Clock::now();
  Backoff backoff;
  while (true) {
    int done = 0;
    rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return mpiError(rc, "sending to " + describeRank(dest));
    if (done)
      return llvm::Error::success();
    if (secondsSince(start) > timeoutSeconds) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
      return llvm::createStringError(llvm::formatv(
          "{0} did not take a message within {1:F0} s (it died or hangs)",
          describeRank(dest), timeoutSeconds));
    }
    backoff.wait();
  }
}

/// Receives a message that has arrived (from `source`, with `tag`; MPI's
/// wildcards allowed), if any.
static llvm::Expected<std::optional<Message>> pollMessage(int source,
                                                          int tag) {
  int found = 0;
  MPI_Status status;
  int rc = MPI_Iprobe(source, tag, MPI_COMM_WORLD, &found, &status);
  if (rc != MPI_SUCCESS)
    return mpiError(rc, "waiting for a message");
  if (!found)
    return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  Message message;
  message.source = status.MPI_SOURCE;
  message.tag = status.MPI_TAG;
  message.text.assign(size_t(std::max(count, 0)), '\0');
  rc = MPI_Recv(message.text.data(), count, MPI_CHAR, status.MPI_SOURCE,
                status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    return mpiError(rc, "receiving from " + describeRank(status.MPI_SOURCE));
  return message;
}

//===----------------------------------------------------------------------===//
// The job.
//===----------------------------------------------------------------------===//

bool mlir::tiletune::isLaunchedByMPI() {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

llvm::Error mlir::tiletune::initializeMPI(int *argc, char ***argv) {
  Runtime &rt = runtime();
  if (rt.initialized)
    return llvm::Error::success();
  // Worker ranks fork their measuring processes; the children never call
  // MPI. (Does not override the user's own setting.)
  ::setenv("OMPI_MCA_mpi_warn_on_fork", "0", /*overwrite=*/0);
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS)
    return mpiError(rc, "MPI_Init failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rt.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &rt.size);
  rt.initialized = true;
  if (rt.rank == 0)
    for (int r = 1; r < rt.size; ++r) {
      WorkerRank worker;
      worker.rank = r;
      rt.workers.push_back(worker);
    }
  return llvm::Error::success();
}

bool mlir::tiletune::isMPIInitialized() {
  return runtime().initialized && !runtime().finalized;
}

int mlir::tiletune::getMPIRank() { return runtime().rank; }
int mlir::tiletune::getMPISize() { return runtime().size; }

void mlir::tiletune::finalizeMPI(int exitCode, bool abort) {
  Runtime &rt = runtime();
  if (!isMPIInitialized())
    return;
  if (rt.rank == 0) {
    for (const WorkerRank &worker : rt.workers)
      abort = abort || worker.dead;
    // A busy worker stops its chunk when it sees the exit (between two
    // results) and then exits.
    for (const WorkerRank &worker : rt.workers) {
      if (abort)
        break;
      if (llvm::Error err = sendText(worker.rank, TagExit, "", 30)) {
        llvm::consumeError(std::move(err));
        abort = true;
      }
    }
    if (abort) {
      // A rank that is gone or busy would make MPI_Finalize wait forever.
      llvm::errs().flush();
      MPI_Abort(MPI_COMM_WORLD, exitCode == 0 ? 1 : exitCode);
    }
  }
  MPI_Finalize();
  rt.finalized = true;
}

llvm::Error mlir::tiletune::connectMPIWorkers(const MPIHello &hello,
                                              const TargetInfo &target,
                                              llvm::raw_ostream *log,
                                              double timeoutSeconds) {
  Runtime &rt = runtime();
  if (!isMPIInitialized())
    return llvm::createStringError(
        "--distributed=mpi: MPI is not initialised in this process (run the "
        "tiletune CLI under mpirun or srun)");
  if (rt.rank != 0)
    return llvm::createStringError("only rank 0 connects the worker ranks");
  if (rt.workers.empty())
    return llvm::createStringError(
        "--distributed=mpi needs at least 2 ranks (rank 0 searches, ranks "
        "1..N-1 measure): run `mpirun -n N tiletune tune ... "
        "--distributed=mpi` with N >= 2");
  std::string text = encodeMPIHello(hello);
  for (WorkerRank &worker : rt.workers) {
    worker.connected = false;
    worker.problem = 0;
    if (llvm::Error err =
            sendText(worker.rank, TagHello, text, timeoutSeconds))
      return err;
  }
  auto start = Clock::now();
  size_t connected = 0;
  Backoff backoff;
  while (connected < rt.workers.size()) {
    llvm::Expected<std::optional<Message>> message =
        pollMessage(MPI_ANY_SOURCE, TagHelloReply);
    if (!message)
      return message.takeError();
    if (!*message) {
      if (secondsSince(start) > timeoutSeconds) {
        for (const WorkerRank &worker : rt.workers)
          if (!worker.connected)
            return llvm::createStringError(llvm::formatv(
                "rank {0} did not answer within {1:F0} s when the run "
                "started (it died, hangs or is not a tiletune worker)",
                worker.rank, timeoutSeconds));
      }
      backoff.wait();
      continue;
    }
    backoff.reset();
    llvm::Expected<MPIHelloReply> reply = decodeMPIHelloReply((*message)->text);
    int rank = (*message)->source;
    if (!reply)
      return llvm::createStringError(llvm::formatv(
          "rank {0}: {1}", rank, llvm::toString(reply.takeError())));
    WorkerRank &worker = rt.workers[rank - 1];
    worker.host = reply->host;
    if (llvm::Error err = checkMPIHelloReply(rank, *reply, target, hello.version))
      return err;
    if (!worker.connected)
      ++connected;
    worker.connected = true;
  }
  if (log) {
    *log << llvm::formatv("distributed: {0} worker {1} on {2}:",
                          rt.workers.size(),
                          rt.workers.size() == 1 ? "rank measures"
                                                 : "ranks measure",
                          target.describe());
    for (const WorkerRank &worker : rt.workers)
      *log << " " << worker.rank << "@" << worker.host;
    *log << "\n";
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Rank 0: MPIProblemMeasurer.
//===----------------------------------------------------------------------===//

MPIProblemMeasurer::MPIProblemMeasurer(const Space &space, llvm::json::Value job,
                                       MPIMeasurerOptions options)
    : space(space), id(runtime().nextProblem++), options(std::move(options)) {
  llvm::raw_string_ostream os(jobText);
  os << llvm::json::Value(llvm::json::Object{{"id", int64_t(id)},
                                             {"job", std::move(job)}});
}

MPIProblemMeasurer::~MPIProblemMeasurer() = default;

llvm::Error MPIProblemMeasurer::measure(llvm::ArrayRef<Config> batch,
                                        const MeasureRequest &request,
                                        MeasureResultSink sink) {
  Runtime &rt = runtime();
  if (!isMPIInitialized() || rt.rank != 0)
    return llvm::createStringError(
        "MPIProblemMeasurer measures on rank 0 of an MPI job only");
  double silenceLimit = options.resultTimeoutSeconds
                            ? options.resultTimeoutSeconds(request)
                            : 600.0;
  size_t live = 0;
  for (const WorkerRank &worker : rt.workers)
    live += worker.connected && !worker.dead;
  if (live == 0)
    return llvm::createStringError(
        "no worker rank is left to measure on (see the errors above); the "
        "results recorded so far are in the database: continue with "
        "--resume");
  // The confirmation's rounds compare variants on one machine.
  size_t chunkSize = request.role == MeasurementRole::Final
                         ? batch.size()
                         : std::max<size_t>(1, (batch.size() + live - 1) / live);
  size_t nextConfig = 0;
  bool stopped = false;
  llvm::DenseMap<uint64_t, int> chunks; // this call's chunks -> rank
  Backoff backoff;
  while (true) {
    // Hand out chunks to idle workers.
    for (WorkerRank &worker : rt.workers) {
      if (stopped || nextConfig >= batch.size())
        break;
      if (!worker.connected || worker.dead || worker.busyChunk != 0)
        continue;
      if (worker.problem != id) {
        if (llvm::Error err =
                sendText(worker.rank, TagProblem, jobText, silenceLimit))
          return err;
        worker.problem = id;
      }
      MPIMeasureChunk chunk;
      chunk.chunk = rt.nextChunk++;
      chunk.problem = id;
      chunk.request = request;
      for (size_t i = nextConfig;
           i < std::min(batch.size(), nextConfig + chunkSize); ++i)
        chunk.configs.emplace_back(i, space.getKey(batch[i]));
      if (llvm::Error err = sendText(worker.rank, TagMeasure,
                                     encodeMPIMeasureChunk(chunk),
                                     silenceLimit))
        return err;
      nextConfig += chunk.configs.size();
      worker.busyChunk = chunk.chunk;
      worker.lastHeard = Clock::now();
      worker.silenceLimit = silenceLimit * double(chunk.configs.size());
      chunks[chunk.chunk] = worker.rank;
    }
    bool waiting = false;
    for (const WorkerRank &worker : rt.workers)
      waiting = waiting || (worker.busyChunk != 0 && chunks.count(worker.busyChunk));
    if (!waiting && (stopped || nextConfig >= batch.size()))
      return llvm::Error::success();

    llvm::Expected<std::optional<Message>> message =
        pollMessage(MPI_ANY_SOURCE, TagReply);
    if (!message)
      return message.takeError();
    if (!*message) {
      if (options.stopFlag &&
          options.stopFlag->load(std::memory_order_relaxed)) {
        // Interrupted, or mpirun is ending the job because a rank died:
        // what arrived is recorded; the rest is measured after --resume.
        if (options.log)
          *options.log << "distributed: stopped while worker ranks were "
                          "measuring; every result received is in the "
                          "database (continue with --resume)\n";
        return llvm::Error::success();
      }
      for (WorkerRank &worker : rt.workers) {
        if (worker.busyChunk == 0 || worker.dead ||
            secondsSince(worker.lastHeard) <= worker.silenceLimit)
          continue;
        worker.dead = true;
        return llvm::createStringError(llvm::formatv(
            "{0} sent nothing for {1:F0} s while measuring (it died or "
            "hangs); every result received before is in the database: "
            "continue with --resume",
            describeRank(worker.rank), worker.silenceLimit));
      }
      backoff.wait();
      continue;
    }
    backoff.reset();
    int source = (*message)->source;
    if (source < 1 || size_t(source) > rt.workers.size())
      continue;
    WorkerRank &worker = rt.workers[source - 1];
    llvm::Expected<MPIChunkReply> reply = decodeMPIChunkReply((*message)->text);
    if (!reply)
      return llvm::createStringError(describeRank(source) + ": " +
                                     llvm::toString(reply.takeError()));
    if (reply->chunk != worker.busyChunk)
      continue; // a reply to a chunk given up earlier
    worker.lastHeard = Clock::now();
    if (reply->done) {
      worker.busyChunk = 0;
      if (!reply->error.empty())
        return llvm::createStringError(describeRank(source) + ": " +
                                       reply->error);
      continue;
    }
    if (!chunks.count(reply->chunk))
      continue; // a result of an earlier call's chunk: dropped
    if (reply->index >= batch.size())
      return llvm::createStringError(describeRank(source) +
                                     " answered for a config it was not sent");
    if (!stopped && !sink(size_t(reply->index), reply->result))
      stopped = true; // the tuner stops; the chunks left are abandoned.
    if (stopped)
      return llvm::Error::success();
  }
}

//===----------------------------------------------------------------------===//
// Worker ranks.
//===----------------------------------------------------------------------===//

static std::string hostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return "unknown";
  return name;
}

llvm::Error mlir::tiletune::runMPIWorker(const MPIWorkerHooks &hooks,
                                         double idleTimeoutSeconds) {
  Runtime &rt = runtime();
  if (!isMPIInitialized() || rt.rank == 0)
    return llvm::createStringError("runMPIWorker runs on ranks 1..N-1 only");
  // Fault injection for the tests (docs/Distributed.md): the rank kills
  // itself after sending this many results.
  long killAfter = -1;
  if (const char *env = std::getenv("TILETUNE_MPI_TEST_KILL_AFTER"))
    killAfter = std::atol(env);
  long sent = 0;
  const double sendLimit = 600;
  std::string host = hostName();
  uint64_t problemId = 0;
  std::string problemError;
  MPIWorkerMeasurer current;
  auto lastHeard = Clock::now();
  Backoff backoff;
  while (true) {
    llvm::Expected<std::optional<Message>> polled = pollMessage(0, MPI_ANY_TAG);
    if (!polled)
      return polled.takeError();
    if (!*polled) {
      if (secondsSince(lastHeard) > idleTimeoutSeconds)
        return llvm::createStringError(llvm::formatv(
            "rank {0} (host {1}): rank 0 sent nothing for {2:F0} s", rt.rank,
            host, idleTimeoutSeconds));
      backoff.wait();
      continue;
    }
    backoff.reset();
    lastHeard = Clock::now();
    Message &message = **polled;
    switch (message.tag) {
    case TagExit:
      return llvm::Error::success();
    case TagHello: {
      MPIHelloReply reply;
      reply.host = host;
      reply.version = getTileTuneVersionLine();
      llvm::Expected<MPIHello> hello = decodeMPIHello(message.text);
      if (!hello) {
        reply.error = llvm::toString(hello.takeError());
      } else {
        llvm::Expected<TargetInfo> target = hooks.connect(*hello);
        if (target)
          reply.target = std::move(*target);
        else
          reply.error = llvm::toString(target.takeError());
      }
      current = MPIWorkerMeasurer();
      problemId = 0;
      if (llvm::Error err = sendText(0, TagHelloReply,
                                     encodeMPIHelloReply(reply), sendLimit))
        return err;
      break;
    }
    case TagProblem: {
      current = MPIWorkerMeasurer(); // stops the previous workers
      problemError.clear();
      problemId = 0;
      llvm::Expected<llvm::json::Value> value = llvm::json::parse(message.text);
      const llvm::json::Object *obj =
          value ? value->getAsObject() : nullptr;
      std::optional<int64_t> id = obj ? obj->getInteger("id") : std::nullopt;
      const llvm::json::Value *job = obj ? obj->get("job") : nullptr;
      if (!value)
        problemError = "the problem is not JSON: " +
                       llvm::toString(value.takeError());
      else if (!id || !job)
        problemError = "the problem message has no id or job";
      if (id)
        problemId = uint64_t(*id);
      if (!problemError.empty())
        break;
      llvm::Expected<MPIWorkerMeasurer> created = hooks.createMeasurer(*job);
      if (!created)
        problemError = llvm::toString(created.takeError());
      else
        current = std::move(*created);
      break;
    }
    case TagMeasure: {
      llvm::Expected<MPIMeasureChunk> chunk =
          decodeMPIMeasureChunk(message.text);
      if (!chunk)
        return llvm::createStringError(
            llvm::formatv("rank {0}: {1}", rt.rank,
                          llvm::toString(chunk.takeError())));
      MPIChunkReply done;
      done.chunk = chunk->chunk;
      done.done = true;
      if (chunk->problem != problemId)
        done.error = "was not sent the problem of these configs";
      else if (!problemError.empty() || !current.measurer)
        done.error = "cannot measure this problem: " + problemError;
      llvm::SmallVector<Config> configs;
      for (const auto &[index, key] : chunk->configs) {
        if (!done.error.empty())
          break;
        llvm::Expected<Config> config = current.space->parseKey(key);
        if (!config) {
          done.error = "config '" + key +
                       "': " + llvm::toString(config.takeError());
          break;
        }
        configs.push_back(std::move(*config));
      }
      if (done.error.empty()) {
        llvm::Error sendError = llvm::Error::success();
        llvm::Error err = current.measurer->measure(
            configs, chunk->request,
            [&](size_t i, const MeasureResult &result) {
              MPIChunkReply reply;
              reply.chunk = chunk->chunk;
              reply.index = chunk->configs[i].first;
              reply.result = result;
              if (llvm::Error e = sendText(0, TagReply,
                                           encodeMPIChunkReply(reply),
                                           sendLimit)) {
                sendError = std::move(e);
                return false;
              }
              if (killAfter >= 0 && ++sent >= killAfter) {
                llvm::errs().flush();
                ::raise(SIGKILL);
              }
              // Rank 0 starts another chunk after a stop: this one ends.
              int pending = 0;
              MPI_Iprobe(0, TagMeasure, MPI_COMM_WORLD, &pending,
                         MPI_STATUS_IGNORE);
              int exiting = 0;
              MPI_Iprobe(0, TagExit, MPI_COMM_WORLD, &exiting,
                         MPI_STATUS_IGNORE);
              int hello = 0;
              MPI_Iprobe(0, TagHello, MPI_COMM_WORLD, &hello,
                         MPI_STATUS_IGNORE);
              int problem = 0;
              MPI_Iprobe(0, TagProblem, MPI_COMM_WORLD, &problem,
                         MPI_STATUS_IGNORE);
              return !(pending || exiting || hello || problem);
            });
        if (sendError)
          return sendError;
        if (err)
          done.error = llvm::toString(std::move(err));
      }
      if (!done.error.empty())
        done.error = llvm::formatv("rank {0} (host {1}): {2}", rt.rank, host,
                                   done.error)
                         .str();
      if (llvm::Error err = sendText(0, TagReply, encodeMPIChunkReply(done),
                                     sendLimit))
        return err;
      break;
    }
    default:
      return llvm::createStringError(llvm::formatv(
          "rank {0}: unknown message tag {1} from rank 0", rt.rank,
          message.tag));
    }
  }
}
