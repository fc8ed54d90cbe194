//===- Version.cpp - Version and git revision of the build ----------------===//
//
// The git revision comes from GitRevision.inc, generated at build time
// (cmake/GitRevision.cmake); this file is the only one that includes it.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Target.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include "GitRevision.inc"

#ifndef TILETUNE_GIT_REVISION
#define TILETUNE_GIT_REVISION "unknown"
#endif

using namespace mlir::tiletune;

llvm::StringRef mlir::tiletune::getTileTuneGitRevision() {
  return TILETUNE_GIT_REVISION;
}

std::string mlir::tiletune::getTileTuneVersionLine() {
  return ("TileTune " + getTileTuneVersion() + " (git " +
          getTileTuneGitRevision() + ")")
      .str();
}

void mlir::tiletune::registerTileTuneVersionPrinter() {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << getTileTuneVersionLine() << "\n";
    // LLVM's own version text (and any extra printers) follow.
    llvm::cl::PrintVersionMessage();
  });
}
