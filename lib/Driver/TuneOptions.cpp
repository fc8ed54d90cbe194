//===- TuneOptions.cpp - What a tuning run is asked to do -----------------===//
//
// Validation shared by the front-ends, thread and target resolution, and
// opening the tuning database.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/TuneOptions.h"

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tiletune;

unsigned mlir::tiletune::resolveThreads(unsigned threads) {
  if (threads > 0)
    return threads;
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

TargetInfo mlir::tiletune::getCPUTarget(unsigned threads) {
  return TargetInfo::detectHostCPU(resolveThreads(threads));
}

std::string mlir::tiletune::listAlgorithms() {
  std::string known;
  for (const StrategyInfo *info : StrategyRegistry::get().getAll())
    known += (known.empty() ? "" : ", ") + info->name;
  return known;
}

llvm::Error mlir::tiletune::validateTuneOptions(const TuneOptions &options) {
  if (!StrategyRegistry::get().lookup(options.algorithm))
    return llvm::createStringError("unknown algorithm '" + options.algorithm +
                                   "' (known: " + listAlgorithms() + ")");
  if (options.trials < 0 || options.seconds < 0)
    return llvm::createStringError("the budget cannot be negative");
  if (options.trials <= 0 && options.seconds <= 0)
    return llvm::createStringError(
        "no budget: give a number of trials and/or seconds");
  if (llvm::Error err = checkKnownTarget(options.target))
    return err;
  if (options.batchSize == 0)
    return llvm::createStringError("the batch size must be at least 1");
  if (options.timing.repeats == 0)
    return llvm::createStringError("timing needs at least one repeat");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<TileTuneDatabase>>
mlir::tiletune::openTuningDatabase(llvm::StringRef path, OpenMode mode) {
  std::string file = path.empty() ? getDefaultDatabasePath() : path.str();
  if (mode == OpenMode::ReadOnly) {
    if (!llvm::sys::fs::exists(file))
      return llvm::createStringError("tuning database '" + file +
                                     "' does not exist");
  } else if (path.empty()) {
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(file));
  }
  return TileTuneDatabase::open(file, mode);
}
