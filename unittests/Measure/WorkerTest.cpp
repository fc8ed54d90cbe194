//===- WorkerTest.cpp - Tests of crash and hang isolation -----------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/Worker.h"

#include "gtest/gtest.h"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace mlir::tiletune;

#if defined(__SANITIZE_ADDRESS__)
#define TILETUNE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILETUNE_TEST_ASAN 1
#endif
#endif

namespace {

WorkerResult runOrFail(const ChildFunction &fn, double timeout = 10) {
  WorkerOptions options;
  options.timeoutSeconds = timeout;
  llvm::Expected<WorkerResult> result = runInChild(fn, options);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

/// Writes through a wild (non-null, unmapped) pointer: a real SIGSEGV.
void crashWithWildStore() {
  volatile uintptr_t address = 8;
  *reinterpret_cast<volatile int *>(address) = 1;
}

TEST(WorkerTest, SuccessReturnsBytes) {
  WorkerResult result = runOrFail([] { return std::string("hello"); });
  EXPECT_EQ(result.status, WorkerStatus::Success);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.output, "hello");
  EXPECT_EQ(result.signal, 0);
}

TEST(WorkerTest, LargeOutputDoesNotDeadlock) {
  // Far larger than a pipe buffer: the parent must read while the child
  // writes.
  WorkerResult result = runOrFail([] { return std::string(4 << 20, 'x'); });
  ASSERT_EQ(result.status, WorkerStatus::Success);
  EXPECT_EQ(result.output.size(), size_t(4 << 20));
}

TEST(WorkerTest, EmptyOutputIsSuccess) {
  WorkerResult result = runOrFail([] { return std::string(); });
  EXPECT_EQ(result.status, WorkerStatus::Success);
  EXPECT_TRUE(result.output.empty());
}

TEST(WorkerTest, SegfaultIsCrash) {
  WorkerResult result = runOrFail([]() -> std::string {
    crashWithWildStore();
    return "unreachable";
  });
  EXPECT_EQ(result.status, WorkerStatus::Crashed);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_TRUE(result.output.empty());
  EXPECT_NE(result.describe().find("signal 11"), std::string::npos)
      << result.describe();
}

TEST(WorkerTest, AbortIsCrashAndStderrIsCaptured) {
  WorkerResult result = runOrFail([]() -> std::string {
    fprintf(stderr, "LLVM ERROR: something broke\n");
    fflush(stderr);
    abort();
  });
  EXPECT_EQ(result.status, WorkerStatus::Crashed);
  EXPECT_EQ(result.signal, SIGABRT);
  EXPECT_NE(result.stderrTail.find("something broke"), std::string::npos);
}

TEST(WorkerTest, NonZeroExit) {
  WorkerResult result = runOrFail([]() -> std::string { _exit(3); });
  EXPECT_EQ(result.status, WorkerStatus::ExitedNonZero);
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.describe(), "exited with status 3");
}

TEST(WorkerTest, ExitZeroWithoutAnswerIsNotSuccess) {
  WorkerResult result = runOrFail([]() -> std::string { _exit(0); });
  EXPECT_EQ(result.status, WorkerStatus::ExitedNonZero);
  EXPECT_EQ(result.exitCode, 0);
}

TEST(WorkerTest, HangIsKilledAtTimeout) {
  WorkerResult result = runOrFail(
      []() -> std::string {
        while (true)
          pause();
      },
      /*timeout=*/0.2);
  EXPECT_EQ(result.status, WorkerStatus::Timeout);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_GE(result.seconds, 0.2);
  EXPECT_LT(result.seconds, 5.0);
}

TEST(WorkerTest, BusyLoopIsKilledAtTimeout) {
  WorkerResult result = runOrFail(
      []() -> std::string {
        volatile uint64_t spin = 0;
        while (true)
          spin = spin + 1;
      },
      /*timeout=*/0.2);
  EXPECT_EQ(result.status, WorkerStatus::Timeout);
}

TEST(WorkerTest, ChildDoesNotChangeParentState) {
  static int counter = 0;
  WorkerResult result = runOrFail([] {
    counter = 42;
    return std::to_string(counter);
  });
  EXPECT_EQ(result.output, "42");
  EXPECT_EQ(counter, 0);
}

TEST(WorkerTest, MemoryLimitApplies) {
#ifdef TILETUNE_TEST_ASAN
  // ASan maps terabytes of shadow memory at start-up, so any RLIMIT_AS
  // leaves an instrumented child no room for a single allocation.
  GTEST_SKIP() << "RLIMIT_AS cannot be tested under AddressSanitizer";
#endif
  WorkerOptions options;
  options.timeoutSeconds = 10;
  options.memoryLimitBytes = uint64_t(512) << 20;
  llvm::Expected<WorkerResult> result = runInChild(
      [] {
        // Through a volatile pointer, so the allocation cannot be elided.
        static void *volatile big;
        big = malloc(size_t(2) << 30);
        return std::string(big ? "allocated" : "refused");
      },
      options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->output, "refused");
}

//===----------------------------------------------------------------------===//
// ForkServer
//===----------------------------------------------------------------------===//

/// A handler with state that lives in the worker: "count" returns how many
/// requests this worker has served; "crash", "abort", "hang", "exit" misbehave;
/// "big" returns 3 MiB; anything else is echoed reversed.
std::string serve(llvm::StringRef request) {
  static int served = 0;
  ++served;
  if (request == "count")
    return std::to_string(served);
  if (request == "crash")
    crashWithWildStore();
  if (request == "abort")
    abort();
  if (request == "hang")
    while (true)
      pause();
  if (request == "exit")
    _exit(7);
  if (request == "big")
    return std::string(3 << 20, 'y');
  return std::string(request.rbegin(), request.rend());
}

WorkerResult callOrFail(ForkServer &server, llvm::StringRef request,
                        double timeout = 10) {
  llvm::Expected<WorkerResult> result = server.call(request, timeout);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

TEST(ForkServerTest, ServesManyRequestsInOneProcess) {
  ForkServer server(serve);
  EXPECT_FALSE(server.isRunning());
  EXPECT_EQ(callOrFail(server, "abc").output, "cba");
  pid_t first = server.getPid();
  EXPECT_GT(first, 0);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(callOrFail(server, "xy").output, "yx");
  // State persists in the worker between requests.
  EXPECT_EQ(callOrFail(server, "count").output, "22");
  EXPECT_EQ(server.getPid(), first);
  EXPECT_EQ(server.getNumStarts(), 1u);
}

TEST(ForkServerTest, LargeMessagesBothWays) {
  ForkServer server(serve);
  std::string request(2 << 20, 'a');
  request.back() = 'b';
  WorkerResult echoed = callOrFail(server, request);
  ASSERT_EQ(echoed.status, WorkerStatus::Success);
  ASSERT_EQ(echoed.output.size(), request.size());
  EXPECT_EQ(echoed.output.front(), 'b');
  WorkerResult big = callOrFail(server, "big");
  ASSERT_EQ(big.status, WorkerStatus::Success);
  EXPECT_EQ(big.output.size(), size_t(3 << 20));
}

TEST(ForkServerTest, CrashRestartsAFreshWorker) {
  ForkServer server(serve);
  EXPECT_EQ(callOrFail(server, "count").output, "1");
  pid_t first = server.getPid();
  WorkerResult crash = callOrFail(server, "crash");
  EXPECT_EQ(crash.status, WorkerStatus::Crashed);
  EXPECT_EQ(crash.signal, SIGSEGV);
  EXPECT_FALSE(server.isRunning());
  // The next request runs in a new process with fresh state.
  EXPECT_EQ(callOrFail(server, "count").output, "1");
  EXPECT_NE(server.getPid(), first);
  EXPECT_EQ(server.getNumStarts(), 2u);

  WorkerResult aborted = callOrFail(server, "abort");
  EXPECT_EQ(aborted.status, WorkerStatus::Crashed);
  EXPECT_EQ(aborted.signal, SIGABRT);
  EXPECT_EQ(callOrFail(server, "ok").output, "ko");
}

TEST(ForkServerTest, TimeoutKillsAndRecovers) {
  ForkServer server(serve);
  WorkerResult hang = callOrFail(server, "hang", /*timeout=*/0.2);
  EXPECT_EQ(hang.status, WorkerStatus::Timeout);
  EXPECT_EQ(hang.signal, SIGKILL);
  EXPECT_LT(hang.seconds, 5.0);
  EXPECT_FALSE(server.isRunning());
  EXPECT_EQ(callOrFail(server, "count").output, "1");
}

TEST(ForkServerTest, ExitIsClassified) {
  ForkServer server(serve);
  WorkerResult exited = callOrFail(server, "exit");
  EXPECT_EQ(exited.status, WorkerStatus::ExitedNonZero);
  EXPECT_EQ(exited.exitCode, 7);
  EXPECT_EQ(callOrFail(server, "count").output, "1");
}

TEST(ForkServerTest, StderrBelongsToItsCall) {
  ForkServer server([](llvm::StringRef request) {
    fprintf(stderr, "diagnostic for %s\n", request.str().c_str());
    fflush(stderr);
    return std::string("done");
  });
  WorkerResult first = callOrFail(server, "one");
  EXPECT_NE(first.stderrTail.find("diagnostic for one"), std::string::npos)
      << first.stderrTail;
  WorkerResult second = callOrFail(server, "two");
  EXPECT_NE(second.stderrTail.find("diagnostic for two"), std::string::npos);
  EXPECT_EQ(second.stderrTail.find("for one"), std::string::npos)
      << second.stderrTail;
}

TEST(ForkServerTest, StopEndsTheWorker) {
  ForkServer server(serve);
  ASSERT_FALSE(static_cast<bool>(server.start()));
  pid_t pid = server.getPid();
  ASSERT_GT(pid, 0);
  server.stop();
  EXPECT_FALSE(server.isRunning());
  // The process is reaped: signalling it fails.
  EXPECT_NE(kill(pid, 0), 0);
}

} // namespace
