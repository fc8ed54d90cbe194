//===- Measurement.cpp - Typed results of measuring one variant -----------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Measurement.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir::tiletune;

llvm::StringRef mlir::tiletune::stringifyMeasureStatus(MeasureStatus status) {
  switch (status) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::Invalid:
    return "invalid";
  case MeasureStatus::CompileError:
    return "compile_error";
  case MeasureStatus::RuntimeError:
    return "runtime_error";
  case MeasureStatus::WrongResult:
    return "wrong_result";
  case MeasureStatus::Timeout:
    return "timeout";
  }
  return "unknown";
}

std::optional<MeasureStatus>
mlir::tiletune::parseMeasureStatus(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<MeasureStatus>>(name)
      .Case("ok", MeasureStatus::Ok)
      .Case("invalid", MeasureStatus::Invalid)
      .Case("compile_error", MeasureStatus::CompileError)
      .Case("runtime_error", MeasureStatus::RuntimeError)
      .Case("wrong_result", MeasureStatus::WrongResult)
      .Case("timeout", MeasureStatus::Timeout)
      .Default(std::nullopt);
}

TimeStats TimeStats::fromSamples(llvm::ArrayRef<double> samples) {
  TimeStats stats;
  if (samples.empty())
    return stats;
  llvm::SmallVector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  stats.repeats = static_cast<unsigned>(n);
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.median =
      n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double sum = 0;
  for (double s : sorted)
    sum += s;
  stats.mean = sum / n;
  if (n > 1) {
    double squares = 0;
    for (double s : sorted)
      squares += (s - stats.mean) * (s - stats.mean);
    stats.stddev = std::sqrt(squares / (n - 1));
  }
  return stats;
}

MeasureResult MeasureResult::success(const TimeStats &time, double gflops) {
  MeasureResult result;
  result.status = MeasureStatus::Ok;
  result.time = time;
  result.gflops = gflops;
  return result;
}

void MeasureResult::normalizeToReference(double referenceScaleSeconds,
                                         double flops) {
  if (!ok() || relative <= 0 || rawSeconds > 0 || time.median <= 0 ||
      !(referenceScaleSeconds > 0))
    return;
  double factor = relative * referenceScaleSeconds / time.median;
  rawSeconds = time.median;
  time.mean *= factor;
  time.min *= factor;
  time.max *= factor;
  time.stddev *= factor;
  time.median = relative * referenceScaleSeconds;
  if (flops > 0)
    gflops = flops / time.median * 1e-9;
}

MeasureResult MeasureResult::failure(MeasureStatus status,
                                     llvm::StringRef message) {
  assert(status != MeasureStatus::Ok && "a failure needs a failing status");
  MeasureResult result;
  result.status = status;
  result.message = message.str();
  return result;
}
