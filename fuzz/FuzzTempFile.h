//===- FuzzTempFile.h - One temporary database file per fuzzer process ----===//
//
// The database fuzzers write each input to (or import it into) a file of
// their own: created once with mkstemp under $TMPDIR (or /tmp), removed with
// its SQLite side files (-wal, -shm, -journal) when the process exits.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_FUZZ_FUZZTEMPFILE_H
#define TILETUNE_FUZZ_FUZZTEMPFILE_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace mlir::tiletune::fuzz {

/// The temporary file of this process, named "<name>-XXXXXX" on the first
/// call (later calls return it whatever `name` they pass). Never destroyed:
/// the atexit handler that removes it runs after static destructors.
inline const std::string &getTempFilePath(const char *name) {
  static const std::string *path = [name] {
    const char *dir = getenv("TMPDIR");
    auto *p = new std::string(std::string(dir && *dir ? dir : "/tmp") + "/" +
                              name + "-XXXXXX");
    int fd = mkstemp(p->data());
    if (fd < 0) {
      perror("mkstemp");
      std::abort();
    }
    close(fd);
    return p;
  }();
  static const bool cleanup = [] {
    std::atexit([] {
      for (const char *suffix : {"", "-wal", "-shm", "-journal"})
        ::unlink((*path + suffix).c_str());
    });
    return true;
  }();
  (void)cleanup;
  return *path;
}

} // namespace mlir::tiletune::fuzz

#endif // TILETUNE_FUZZ_FUZZTEMPFILE_H
