//===- TuneOptions.cpp - What a tuning run is asked to do -----------------===//
//
// Validation shared by the front-ends, thread and target resolution, and
// opening the tuning database.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/TuneOptions.h"

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <cmath>

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
  if (options.trials < 0 || options.trials > kMaxTrials)
    return llvm::createStringError(llvm::formatv(
        "the trial budget must be between 0 and {0} (0: no limit), got {1}",
        kMaxTrials, options.trials));
  // Written so that NaN fails too; infinity is "no limit", spelled 0.
  if (!(options.seconds >= 0 && options.seconds <= kMaxSeconds))
    return llvm::createStringError(llvm::formatv(
        "the time budget must be between 0 and {0:f0} seconds (0: no limit), "
        "got {1}",
        kMaxSeconds, options.seconds));
  if (options.trials == 0 && options.seconds == 0)
    return llvm::createStringError(
        "no budget: give a number of trials and/or seconds");
  if (llvm::Error err = checkKnownTarget(options.target))
    return err;
  if (llvm::Error err = checkThreadCount(options.threads))
    return err;
  if (options.batchSize < 1 || options.batchSize > kMaxBatchSize)
    return llvm::createStringError(
        llvm::formatv("the batch size must be between 1 and {0}, got {1}",
                      kMaxBatchSize, options.batchSize));
  if (options.warmStartFrom != "none" && options.warmStartFrom != "db")
    return llvm::createStringError("unknown warm start '" +
                                   options.warmStartFrom +
                                   "' (known: none, db)");
  if (!(options.warmStartDistance >= 0 &&
        std::isfinite(options.warmStartDistance)))
    return llvm::createStringError(llvm::formatv(
        "the warm start distance must be a finite number >= 0, got {0}",
        options.warmStartDistance));
  return validateTimingOptions(options.timing);
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
