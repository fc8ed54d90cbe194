//===- Candidates.h - A batch of configs on its way to a worker -*- C++ -*-===//
//
// The conversion of a batch of the tuner's configs into the attribute text
// each variant is compiled from, shared by the CPU and GPU problem measurers
// (and by any measurer that ships variants to another process or context).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_CANDIDATES_H
#define TILETUNE_MEASURE_CANDIDATES_H

#include "tiletune/Measure/MeasureResult.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tiletune {

/// One candidate of a batch on its way to a worker: the config's attribute
/// text ("#tiletune.config<...>"), or the Invalid result that replaces its
/// measurement when the config does not convert (space constraints, the
/// dialect's verifier).
struct CandidateText {
  std::string attrText;
  std::optional<MeasureResult> invalid;
};

/// Converts every config of `batch` once (configToAttr, then printed: the
/// text crosses into the worker process or a compile thread's context).
inline llvm::SmallVector<CandidateText, 0>
convertBatch(MLIRContext *ctx, const Problem &problem, const Space &space,
             llvm::ArrayRef<Config> batch) {
  llvm::SmallVector<CandidateText, 0> out(batch.size());
  for (auto [i, config] : llvm::enumerate(batch)) {
    llvm::Expected<TileConfigAttr> attr =
        configToAttr(ctx, problem, space, config);
    if (attr)
      out[i].attrText = printAttr(*attr);
    else
      out[i].invalid = MeasureResult::failure(
          MeasureStatus::Invalid, llvm::toString(attr.takeError()));
  }
  return out;
}

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_CANDIDATES_H
