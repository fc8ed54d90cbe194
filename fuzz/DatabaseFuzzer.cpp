//===- DatabaseFuzzer.cpp - libFuzzer target: the tuning database reader -===//
//
// Input: the bytes of a database file. They are written to a temporary file
// that is then opened read-only and read through every query the tools use
// (`tiletune report`, `tiletune export`, best configs for apply, resume's
// lookups, the integrity check), then opened for writing (which upgrades an
// old schema in place) and read again. A damaged, foreign or hostile file
// must give an error, never a crash or a sanitizer report.
//
//===----------------------------------------------------------------------===//

#include "FuzzTempFile.h"

#include "tiletune/Database/Database.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mlir::tiletune;

namespace {

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  for (const char *suffix : {"-wal", "-shm", "-journal"})
    ::unlink((path + suffix).c_str());
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) {
    perror("writing the database file");
    std::abort();
  }
}

template <typename T> bool ok(llvm::Expected<T> &value) {
  if (value)
    return true;
  llvm::consumeError(value.takeError());
  return false;
}

void ignore(llvm::Error err) { llvm::consumeError(std::move(err)); }

void readEverything(TileTuneDatabase &db) {
  auto runs = db.listRuns();
  if (ok(runs)) {
    for (const RunInfo &run : *runs) {
      auto again = db.getRun(run.id);
      (void)ok(again);
      auto measurements = db.measurementsOfRun(run.id);
      (void)ok(measurements);
      auto resumable = db.findResumableRun(run.problemKey, run.target,
                                           run.algorithm, run.seed);
      (void)ok(resumable);
    }
  }
  auto rows = db.report();
  if (ok(rows)) {
    for (const ReportRow &row : *rows) {
      auto exact = db.bestConfig(row.problemKey, row.target);
      (void)ok(exact);
      BestConfigOptions foreign;
      foreign.allowForeignTargets = true;
      auto any = db.bestConfig(row.problemKey, row.target, foreign);
      (void)ok(any);
      auto restricted = db.report(&row.target);
      (void)ok(restricted);
    }
  }
  auto problems = db.listProblems();
  if (ok(problems)) {
    for (const std::string &key : *problems) {
      auto description = db.getProblemDescription(key);
      (void)ok(description);
      auto best = db.bestConfig(key, TargetInfo());
      (void)ok(best);
    }
  }
  std::string exported;
  llvm::raw_string_ostream os(exported);
  ignore(db.exportJSONL(os));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = fuzz::getTempFilePath("tiletune-db-fuzz");
  writeFile(path, data, size);
  for (OpenMode mode : {OpenMode::ReadOnly, OpenMode::ReadWrite}) {
    auto db = TileTuneDatabase::open(path, mode);
    if (!ok(db))
      continue;
    readEverything(**db);
    ignore((*db)->verifyIntegrity());
  }
  return 0;
}
