//===- ImportFuzzer.cpp - libFuzzer target: JSON Lines import ------------===//
//
// Input: JSON Lines text as `tiletune export` writes it (or anything else).
// It is imported into a fresh database; the properties checked are those
// `tiletune import` promises: an import that fails writes nothing, and an
// import that succeeds, repeated, adds nothing (every record is then a
// duplicate) and leaves the export as it was. A malformed or hostile input
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

[[noreturn]] void broken(const char *property, const std::string &detail) {
  fprintf(stderr, "import property broken: %s\n%s\n", property, detail.c_str());
  std::abort();
}

std::string exportText(TileTuneDatabase &db) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (llvm::Error err = db.exportJSONL(os))
    broken("the export of an imported database works",
           llvm::toString(std::move(err)));
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = fuzz::getTempFilePath("tiletune-import-fuzz");
  for (const char *suffix : {"", "-wal", "-shm", "-journal"})
    ::unlink((path + suffix).c_str());
  auto db = TileTuneDatabase::open(path, OpenMode::CreateIfMissing);
  if (!db)
    broken("a fresh database opens", llvm::toString(db.takeError()));
  std::string text(reinterpret_cast<const char *>(data), size);
  JSONLSource source{"input.jsonl", text};

  llvm::Expected<ImportStats> first = (*db)->importJSONL({source});
  if (!first) {
    std::string message = llvm::toString(first.takeError());
    if (!exportText(**db).empty())
      broken("a failed import writes nothing", message);
    return 0;
  }
  std::string before = exportText(**db);
  llvm::Expected<ImportStats> second = (*db)->importJSONL({source});
  if (!second)
    broken("an import that succeeded succeeds again",
           llvm::toString(second.takeError()));
  if (second->measurementsAdded != 0 || second->runsAdded != 0)
    broken("importing the same input again adds nothing", before);
  if (exportText(**db) != before)
    broken("importing the same input again changes nothing", before);
  return 0;
}
