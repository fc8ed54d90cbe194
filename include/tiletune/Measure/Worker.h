//===- Worker.h - Crash and hang isolation in child processes ---*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Runs work in a forked child process with a wall-clock timeout, so that a
// variant that crashes (SIGSEGV in generated code, an LLVM abort) or hangs
// becomes a typed result instead of taking the tuner down.
//
// Two shapes are offered:
//  * runInChild(): one fork per call. Simple; costs a fork (~1 ms for a small
//    process, more for a big address space) per call.
//  * ForkServer: a persistent child that serves many requests over a socket.
//    The child keeps its state (e.g. a loaded MLIRContext, JIT caches) between
//    requests. After a crash, a timeout or a protocol error it is killed and a
//    fresh child is forked on the next request.
//
// Constraints of fork() (read before use):
//  * Only the forking thread exists in the child. Locks held by other threads
//    at fork time stay locked forever in the child. Fork from a point where no
//    other thread can hold a lock the child will need: create workers before
//    starting thread pools (an MLIRContext with multithreading enabled,
//    llvm::ThreadPool, OpenMP), or make sure those pools are idle. Inside the
//    child, do not rely on thread pools created by the parent; create what
//    you need there (e.g. an MLIRContext with multithreading disabled, or a
//    fresh OpenMP team, which libomp re-initialises after fork).
//  * The child always ends with _exit(): no atexit handlers, no static
//    destructors, no flush of stdio buffers inherited from the parent.
//    Work functions must not call exit() themselves (use _exit to report a
//    non-zero status on purpose).
//  * The child gets RLIMIT_CORE = 0 (no core dumps for crashing variants),
//    SIGPIPE ignored, default handlers for crash signals when requested, and
//    on Linux dies with its parent (PR_SET_PDEATHSIG), so a killed tuner
//    leaves no orphan workers.
//  * The parent only sleeps in poll() while a child works, so timings taken
//    in the child are not disturbed by the parent.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_WORKER_H
#define TILETUNE_SUPPORT_WORKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>

namespace mlir {
namespace tiletune {

/// How a piece of work in a child process ended.
enum class WorkerStatus : uint8_t {
  /// The work function returned; its bytes are in WorkerResult::output.
  Success,
  /// The child was killed by a signal it raised itself (crash: SIGSEGV,
  /// SIGBUS, SIGILL, SIGFPE, SIGABRT, ...).
  Crashed,
  /// The child exited with a non-zero status (or exited before answering).
  ExitedNonZero,
  /// The time limit passed; the child was killed with SIGKILL.
  Timeout,
};

/// Returns "success", "crashed", "exited_non_zero" or "timeout".
llvm::StringRef stringifyWorkerStatus(WorkerStatus status);

/// The outcome of one call into a child process.
struct WorkerResult {
  WorkerStatus status = WorkerStatus::Success;
  /// The bytes returned by the work function (Success only).
  std::string output;
  /// The terminating signal (Crashed), or SIGKILL (Timeout); 0 otherwise.
  int signal = 0;
  /// The exit status (ExitedNonZero); 0 otherwise.
  int exitCode = 0;
  /// The tail of what the child wrote to stderr during the call, when
  /// WorkerOptions::captureStderr is set (at most 64 KiB).
  std::string stderrTail;
  /// Wall-clock seconds from the start of the call to its end.
  double seconds = 0;

  bool succeeded() const { return status == WorkerStatus::Success; }
  /// One line for messages, e.g. "crashed with signal 11 (Segmentation
  /// fault)", "timed out after 2.00 s (killed)", "exited with status 3".
  std::string describe() const;
};

/// Options shared by runInChild and ForkServer.
struct WorkerOptions {
  /// Wall-clock limit of one call in seconds; <= 0 means no limit.
  double timeoutSeconds = 0;
  /// Redirect the child's stderr into a pipe and return its tail in
  /// WorkerResult::stderrTail (compiler diagnostics, LLVM fatal errors).
  bool captureStderr = true;
  /// Restore the default action of SIGSEGV, SIGBUS, SIGILL, SIGFPE and
  /// SIGABRT in the child, so that a crash ends the child at once instead of
  /// running crash handlers inherited from the parent (e.g. LLVM's stack
  /// trace printer, which may be slow or deadlock after fork).
  bool defaultCrashHandlers = true;
  /// Address-space limit of the child in bytes (RLIMIT_AS); 0 = unlimited.
  uint64_t memoryLimitBytes = 0;
};

/// The work run in a child by runInChild: returns the result bytes.
using ChildFunction = std::function<std::string()>;

/// Forks a child that runs \p fn and sends its bytes back through a pipe,
/// waiting at most options.timeoutSeconds. A crash, a non-zero exit or a
/// timeout is a WorkerResult (not an error); an llvm::Error is returned only
/// when the process machinery itself fails (pipe/fork errors).
llvm::Expected<WorkerResult> runInChild(const ChildFunction &fn,
                                        const WorkerOptions &options = {});

/// A persistent worker process (fork-server) answering requests.
///
/// The handler runs in the child for each request and returns the response
/// bytes. Requests and responses are length-prefixed messages over a Unix
/// socket pair. The child is forked lazily on the first call (and again after
/// it died), so the handler sees the parent's memory as of that fork.
class ForkServer {
public:
  /// Runs in the child for each request; returns the response bytes.
  using Handler = std::function<std::string(llvm::StringRef request)>;

  /// Creates a server that will run \p handler in its worker processes.
  explicit ForkServer(Handler handler, WorkerOptions options = {});
  /// Closes the channel and kills and reaps the worker, if any.
  ~ForkServer();
  ForkServer(const ForkServer &) = delete;
  ForkServer &operator=(const ForkServer &) = delete;

  /// Sends \p request to the worker (forking one if none is alive) and waits
  /// for the response, at most \p timeoutSeconds (<= 0: the options' limit).
  /// On Crashed, ExitedNonZero or Timeout the worker is gone; the next call
  /// starts a fresh one.
  llvm::Expected<WorkerResult> call(llvm::StringRef request,
                                    double timeoutSeconds = 0);

  /// Starts the worker now (normally done lazily by call()); useful to fork
  /// early, before the parent starts threads.
  llvm::Error start();
  /// Stops the worker, if any: closes its channel, lets it exit and reaps it
  /// (SIGKILL if it does not exit within a short grace period).
  void stop();

  /// True when a worker process is running.
  bool isRunning() const { return pid > 0; }
  /// The worker's process id, or -1.
  pid_t getPid() const { return pid; }
  /// How many worker processes this server has forked so far.
  unsigned getNumStarts() const { return numStarts; }

private:
  void killAndReap(WorkerResult *result);

  Handler handler;
  WorkerOptions options;
  pid_t pid = -1;
  int channel = -1;
  int stderrPipe = -1;
  unsigned numStarts = 0;
};

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_SUPPORT_WORKER_H
