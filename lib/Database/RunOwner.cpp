//===- RunOwner.cpp - Which process tunes a run ---------------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The owner token of a run ("hostname:pid:start-time") and whether the
// process it names is still alive, so that a resume never takes over a run
// that another live process is tuning. Linux: the start time is field 22 of
// /proc/<pid>/stat, which tells a reused pid apart.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Database/Database.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace mlir::tiletune;
using llvm::StringRef;

/// Field 22 of /proc/<pid>/stat (start time in clock ticks after boot), or
/// "" where it cannot be read.
static std::string processStartTime(int64_t pid) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(
      "/proc/" + std::to_string(pid) + "/stat");
  if (!buffer)
    return "";
  // The command name (field 2) is parenthesised and may contain spaces.
  StringRef text = (*buffer)->getBuffer();
  size_t close = text.rfind(')');
  if (close == StringRef::npos)
    return "";
  llvm::SmallVector<StringRef> fields;
  text.drop_front(close + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  // fields[0] is field 3 (state); field 22 is fields[19].
  return fields.size() > 19 ? fields[19].str() : "";
}

static std::string hostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0)
    return "unknown-host";
  return name;
}

std::string mlir::tiletune::getCurrentRunOwner() {
  int64_t pid = getpid();
  return hostName() + ":" + std::to_string(pid) + ":" + processStartTime(pid);
}

std::optional<bool> mlir::tiletune::isRunOwnerAlive(StringRef owner) {
  auto [host, rest] = owner.split(':');
  auto [pidText, startTime] = rest.split(':');
  int64_t pid = 0;
  if (owner.empty() || pidText.getAsInteger(10, pid) || pid <= 0)
    return false;
  if (host != hostName())
    return std::nullopt;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)
    return false;
  // The pid is in use; it is the owner only if it started at the same time
  // (pids are reused).
  std::string current = processStartTime(pid);
  if (!startTime.empty() && !current.empty())
    return current == startTime;
  return true;
}
