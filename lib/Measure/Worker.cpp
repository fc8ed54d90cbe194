//===- Worker.cpp - Crash and hang isolation in child processes -----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Implements runInChild and ForkServer on POSIX fork/poll/waitpid. Messages
// between parent and child are framed as an 8-byte length followed by the
// payload, so a child that dies half-way through an answer is recognised.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/Worker.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

using namespace mlir::tiletune;
using llvm::StringRef;

/// At most this much of the child's stderr is kept per call.
static constexpr size_t kStderrTailLimit = 64 * 1024;
/// Exit status of a child whose answer could not be written (parent gone).
static constexpr int kChildWriteFailed = 121;

StringRef mlir::tiletune::stringifyWorkerStatus(WorkerStatus status) {
  switch (status) {
  case WorkerStatus::Success:
    return "success";
  case WorkerStatus::Crashed:
    return "crashed";
  case WorkerStatus::ExitedNonZero:
    return "exited_non_zero";
  case WorkerStatus::Timeout:
    return "timeout";
  }
  return "unknown";
}

std::string WorkerResult::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  switch (status) {
  case WorkerStatus::Success:
    os << "succeeded";
    break;
  case WorkerStatus::Crashed:
    os << "crashed with signal " << signal << " (" << strsignal(signal) << ")";
    break;
  case WorkerStatus::ExitedNonZero:
    if (exitCode == 0)
      os << "exited before sending an answer";
    else
      os << "exited with status " << exitCode;
    break;
  case WorkerStatus::Timeout:
    os << "timed out after " << llvm::format("%.2f", seconds) << " s (killed)";
    break;
  }
  return text;
}

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Milliseconds left until \p deadline for poll(): -1 means no deadline.
int pollTimeout(std::optional<Clock::time_point> deadline, int capMs = -1) {
  if (!deadline)
    return capMs;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  *deadline - Clock::now())
                  .count();
  // Round up so that we do not spin with a 0 ms timeout before the deadline.
  long ms = left <= 0 ? 0 : left + 1;
  if (capMs >= 0 && ms > capMs)
    ms = capMs;
  return static_cast<int>(ms);
}

bool deadlinePassed(std::optional<Clock::time_point> deadline) {
  return deadline && Clock::now() >= *deadline;
}

llvm::Error errnoError(StringRef what) {
  return llvm::createStringError(
      std::error_code(errno, std::generic_category()), "worker: %s failed: %s",
      what.str().c_str(), strerror(errno));
}

void closeFd(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

bool setNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

/// Blocking write of all bytes (child side). False on error.
bool writeAllBlocking(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK)
      n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Blocking read of exactly \p size bytes (child side). Returns the number of
/// bytes read: less than size only at end of file or on error.
size_t readAllBlocking(int fd, char *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += static_cast<size_t>(n);
  }
  return done;
}

bool writeFrameBlocking(int fd, StringRef payload) {
  uint64_t size = payload.size();
  return writeAllBlocking(fd, reinterpret_cast<const char *>(&size),
                          sizeof(size)) &&
         writeAllBlocking(fd, payload.data(), payload.size());
}

/// Process-wide settings of a fresh child (see the constraints in Worker.h).
void setUpChild(const WorkerOptions &options, pid_t parent, int stderrWrite) {
  if (stderrWrite >= 0) {
    ::dup2(stderrWrite, STDERR_FILENO);
    ::close(stderrWrite);
  }
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  if (options.memoryLimitBytes > 0) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = options.memoryLimitBytes;
    ::setrlimit(RLIMIT_AS, &limit);
  }
  ::signal(SIGPIPE, SIG_IGN);
  if (options.defaultCrashHandlers) {
    sigset_t crashSignals;
    sigemptyset(&crashSignals);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) {
      ::signal(sig, SIG_DFL);
      sigaddset(&crashSignals, sig);
    }
    ::sigprocmask(SIG_UNBLOCK, &crashSignals, nullptr);
  }
#if defined(__linux__)
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork() and prctl().
  if (::getppid() != parent)
    _exit(kChildWriteFailed);
#else
  (void)parent;
#endif
}

/// Reads whatever is available on a non-blocking fd into \p buffer. Returns
/// false at end of file or on a hard error.
bool drainAvailable(int fd, std::string &buffer, size_t keepTail = 0) {
  char chunk[16384];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, static_cast<size_t>(n));
      if (keepTail && buffer.size() > 2 * keepTail)
        buffer.erase(0, buffer.size() - keepTail);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    return false; // EOF or error.
  }
}

void trimTail(std::string &text) {
  if (text.size() > kStderrTailLimit)
    text.erase(0, text.size() - kStderrTailLimit);
}

/// Fills status/signal/exitCode of \p result from a waitpid status.
void classifyExit(int waitStatus, bool answered, WorkerResult &result) {
  if (WIFSIGNALED(waitStatus)) {
    result.status = WorkerStatus::Crashed;
    result.signal = WTERMSIG(waitStatus);
    return;
  }
  int code = WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 0;
  if (code == 0 && answered) {
    result.status = WorkerStatus::Success;
    return;
  }
  result.status = WorkerStatus::ExitedNonZero;
  result.exitCode = code;
}

/// Waits for \p pid until \p deadline (polling), then kills it. Returns true
/// and the wait status when the child ended by itself before the deadline.
bool reapUntil(pid_t pid, std::optional<Clock::time_point> deadline,
               int &waitStatus) {
  while (true) {
    pid_t r = ::waitpid(pid, &waitStatus, WNOHANG);
    if (r == pid)
      return true;
    if (r < 0 && errno != EINTR) {
      waitStatus = 0;
      return true; // Already reaped or not our child: nothing to wait for.
    }
    if (deadlinePassed(deadline))
      break;
    ::poll(nullptr, 0, pollTimeout(deadline, 2));
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &waitStatus, 0) < 0 && errno == EINTR) {
  }
  return false;
}

/// Incremental decoder of one length-prefixed frame.
struct FrameReader {
  std::string buffer;

  bool complete() const {
    if (buffer.size() < sizeof(uint64_t))
      return false;
    uint64_t size;
    memcpy(&size, buffer.data(), sizeof(size));
    return buffer.size() - sizeof(uint64_t) >= size;
  }
  std::string payload() const {
    uint64_t size;
    memcpy(&size, buffer.data(), sizeof(size));
    return buffer.substr(sizeof(uint64_t), size);
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// runInChild
//===----------------------------------------------------------------------===//

llvm::Expected<WorkerResult>
mlir::tiletune::runInChild(const ChildFunction &fn,
                           const WorkerOptions &options) {
  auto start = Clock::now();
  std::optional<Clock::time_point> deadline;
  if (options.timeoutSeconds > 0)
    deadline =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options.timeoutSeconds));

  int resultPipe[2];
  if (::pipe2(resultPipe, O_CLOEXEC) != 0)
    return errnoError("pipe");
  int errPipe[2] = {-1, -1};
  if (options.captureStderr && ::pipe2(errPipe, O_CLOEXEC) != 0) {
    llvm::Error err = errnoError("pipe");
    ::close(resultPipe[0]);
    ::close(resultPipe[1]);
    return std::move(err);
  }

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    llvm::Error err = errnoError("fork");
    for (int fd : {resultPipe[0], resultPipe[1], errPipe[0], errPipe[1]})
      if (fd >= 0)
        ::close(fd);
    return std::move(err);
  }
  if (pid == 0) {
    // Child.
    ::close(resultPipe[0]);
    if (errPipe[0] >= 0)
      ::close(errPipe[0]);
    setUpChild(options, parent, errPipe[1]);
    std::string output = fn();
    bool ok = writeFrameBlocking(resultPipe[1], output);
    _exit(ok ? 0 : kChildWriteFailed);
  }

  // Parent.
  ::close(resultPipe[1]);
  int resultFd = resultPipe[0];
  int errFd = errPipe[0];
  if (errPipe[1] >= 0)
    ::close(errPipe[1]);
  setNonBlocking(resultFd);
  if (errFd >= 0)
    setNonBlocking(errFd);

  WorkerResult result;
  FrameReader frame;
  bool resultOpen = true, errOpen = errFd >= 0;
  while (resultOpen && !deadlinePassed(deadline)) {
    struct pollfd fds[2];
    int n = 0;
    fds[n++] = {resultFd, POLLIN, 0};
    if (errOpen)
      fds[n++] = {errFd, POLLIN, 0};
    int ready = ::poll(fds, n, pollTimeout(deadline));
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    if (fds[0].revents)
      resultOpen = drainAvailable(resultFd, frame.buffer);
    if (errOpen && fds[1].revents)
      errOpen = drainAvailable(errFd, result.stderrTail, kStderrTailLimit);
  }

  int waitStatus = 0;
  bool answered = frame.complete();
  if (resultOpen) {
    // The deadline passed before the child closed its end.
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &waitStatus, 0) < 0 && errno == EINTR) {
    }
    result.status = WorkerStatus::Timeout;
    result.signal = SIGKILL;
  } else if (reapUntil(pid, deadline, waitStatus)) {
    classifyExit(waitStatus, answered, result);
  } else {
    result.status = WorkerStatus::Timeout;
    result.signal = SIGKILL;
  }
  if (errOpen)
    drainAvailable(errFd, result.stderrTail, kStderrTailLimit);
  trimTail(result.stderrTail);
  if (result.status == WorkerStatus::Success)
    result.output = frame.payload();
  ::close(resultFd);
  if (errFd >= 0)
    ::close(errFd);
  result.seconds = secondsSince(start);
  return result;
}

//===----------------------------------------------------------------------===//
// ForkServer
//===----------------------------------------------------------------------===//

ForkServer::ForkServer(Handler handler, WorkerOptions options)
    : handler(std::move(handler)), options(options) {}

ForkServer::~ForkServer() { stop(); }

llvm::Error ForkServer::start() {
  if (pid > 0) {
    // A worker that died between calls (killed while idle, e.g. by the
    // out-of-memory killer) is reaped and started again here, rather than
    // failing the next request sent to it.
    int waitStatus;
    pid_t done = ::waitpid(pid, &waitStatus, WNOHANG);
    if (done == 0 || (done < 0 && errno != ECHILD))
      return llvm::Error::success();
    pid = -1;
    closeFd(channel);
    closeFd(stderrPipe);
  }
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    return errnoError("socketpair");
  int errPipe[2] = {-1, -1};
  if (options.captureStderr && ::pipe2(errPipe, O_CLOEXEC) != 0) {
    llvm::Error err = errnoError("pipe");
    ::close(sockets[0]);
    ::close(sockets[1]);
    return err;
  }
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    llvm::Error err = errnoError("fork");
    for (int fd : {sockets[0], sockets[1], errPipe[0], errPipe[1]})
      if (fd >= 0)
        ::close(fd);
    return err;
  }
  if (child == 0) {
    // Child: serve requests until the parent closes the channel.
    ::close(sockets[0]);
    if (errPipe[0] >= 0)
      ::close(errPipe[0]);
    setUpChild(options, parent, errPipe[1]);
    int fd = sockets[1];
    while (true) {
      uint64_t size = 0;
      if (readAllBlocking(fd, reinterpret_cast<char *>(&size), sizeof(size)) !=
          sizeof(size))
        _exit(0); // Channel closed: orderly shutdown.
      std::string request(size, '\0');
      if (readAllBlocking(fd, request.data(), size) != size)
        _exit(0);
      std::string response = handler(request);
      if (!writeFrameBlocking(fd, response))
        _exit(kChildWriteFailed);
    }
  }
  ::close(sockets[1]);
  if (errPipe[1] >= 0)
    ::close(errPipe[1]);
  channel = sockets[0];
  stderrPipe = errPipe[0];
  setNonBlocking(channel);
  if (stderrPipe >= 0)
    setNonBlocking(stderrPipe);
  pid = child;
  ++numStarts;
  return llvm::Error::success();
}

void ForkServer::killAndReap(WorkerResult *result) {
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    int waitStatus;
    while (::waitpid(pid, &waitStatus, 0) < 0 && errno == EINTR) {
    }
  }
  if (result && stderrPipe >= 0)
    drainAvailable(stderrPipe, result->stderrTail, kStderrTailLimit);
  pid = -1;
  closeFd(channel);
  closeFd(stderrPipe);
}

void ForkServer::stop() {
  if (pid <= 0)
    return;
  // Closing the channel makes the worker's read return end of file.
  closeFd(channel);
  int waitStatus;
  auto grace = Clock::now() + std::chrono::seconds(1);
  reapUntil(pid, grace, waitStatus);
  pid = -1;
  closeFd(stderrPipe);
}

llvm::Expected<WorkerResult> ForkServer::call(StringRef request,
                                              double timeoutSeconds) {
  if (llvm::Error err = start())
    return std::move(err);
  auto begin = Clock::now();
  double limit = timeoutSeconds > 0 ? timeoutSeconds : options.timeoutSeconds;
  std::optional<Clock::time_point> deadline;
  if (limit > 0)
    deadline = begin + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(limit));

  WorkerResult result;
  // Whatever the worker wrote to stderr between calls belongs to no call.
  if (stderrPipe >= 0) {
    std::string stale;
    drainAvailable(stderrPipe, stale, 1);
  }

  std::string out(sizeof(uint64_t), '\0');
  uint64_t size = request.size();
  memcpy(out.data(), &size, sizeof(size));
  out.append(request.data(), request.size());
  size_t sent = 0;
  FrameReader frame;
  bool channelOpen = true, errOpen = stderrPipe >= 0;

  while (channelOpen && !frame.complete() && !deadlinePassed(deadline)) {
    struct pollfd fds[2];
    int n = 0;
    short events = POLLIN | (sent < out.size() ? POLLOUT : 0);
    fds[n++] = {channel, events, 0};
    if (errOpen)
      fds[n++] = {stderrPipe, POLLIN, 0};
    int ready = ::poll(fds, n, pollTimeout(deadline));
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    if (errOpen && fds[1].revents)
      errOpen = drainAvailable(stderrPipe, result.stderrTail, kStderrTailLimit);
    if ((fds[0].revents & POLLOUT) && sent < out.size()) {
      ssize_t w =
          ::send(channel, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (w > 0)
        sent += static_cast<size_t>(w);
      else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
               errno != EINTR)
        channelOpen = false; // The worker is gone (EPIPE, ECONNRESET).
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
      channelOpen = drainAvailable(channel, frame.buffer) && channelOpen;
  }

  if (frame.complete()) {
    if (errOpen)
      drainAvailable(stderrPipe, result.stderrTail, kStderrTailLimit);
    trimTail(result.stderrTail);
    result.status = WorkerStatus::Success;
    result.output = frame.payload();
    result.seconds = secondsSince(begin);
    return result;
  }

  int waitStatus = 0;
  if (channelOpen) {
    // The deadline passed while the worker was still busy.
    killAndReap(&result);
    result.status = WorkerStatus::Timeout;
    result.signal = SIGKILL;
  } else {
    // The worker closed the channel without a full answer: it died.
    pid_t dead = pid;
    bool ended = reapUntil(dead, deadline, waitStatus);
    if (stderrPipe >= 0)
      drainAvailable(stderrPipe, result.stderrTail, kStderrTailLimit);
    pid = -1;
    closeFd(channel);
    closeFd(stderrPipe);
    if (ended) {
      classifyExit(waitStatus, /*answered=*/false, result);
    } else {
      result.status = WorkerStatus::Timeout;
      result.signal = SIGKILL;
    }
  }
  trimTail(result.stderrTail);
  result.seconds = secondsSince(begin);
  return result;
}
