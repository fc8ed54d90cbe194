//===- XGB.h - AutoTVM-style XGBoost + simulated annealing ------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The AutoTVM baseline (Chen et al., "Learning to Optimize Tensor Programs";
// described in papers 003/004) is registered as "xgb": an XGBoost cost model
// with a pairwise rank loss over the space's config features, re-fitted every
// `plan_size` measurements; parallel simulated-annealing chains walking the
// space's neighbourhood on the model pick the next plan of `plan_size`
// unmeasured configs; the last epsilon fraction of each plan is replaced by
// uniformly random picks (AutoTVM's epsilon-greedy).
//
// This header exposes the model optimiser (parallel simulated annealing)
// so that other model-based strategies can reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_XGB_H
#define TILETUNE_SEARCH_XGB_H

#include "tiletune/Space/Space.h"
#include "tiletune/Support/Deadline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <random>
#include <vector>

namespace mlir::tiletune {

/// Parameters of the parallel simulated-annealing model optimiser. Defaults
/// are AutoTVM's SimulatedAnnealingOptimizer: 128 chains, up to 500 steps,
/// stop after 50 steps without a change of the top set, temperature falling
/// linearly from 1 to 0.
struct AnnealingOptions {
  unsigned chains = 128;
  unsigned iterations = 500;
  unsigned earlyStop = 50;
  double tempStart = 1.0;
  double tempEnd = 0.0;
};

/// Scores configs (higher is better), e.g. a cost model's predictions.
using ConfigScorer =
    std::function<llvm::Expected<std::vector<float>>(llvm::ArrayRef<Config>)>;

/// Runs parallel simulated-annealing chains on `score` and returns up to
/// `num` distinct valid configs with the highest scores seen, best first,
/// none of which `isExcluded`. Each step moves every chain to a uniformly
/// random valid neighbour (Space::getNeighbors) and accepts it with
/// probability min(1, exp((new - old) / temperature)).
///
/// `points` holds the chains: if empty, it is filled with `chains` random
/// valid configs; on return it holds the chains' final positions, so passing
/// it again continues them (AutoTVM's persistent mode).
///
/// Once `deadline` has passed, annealing stops after the current step and
/// returns the best configs seen so far.
llvm::Expected<std::vector<Config>>
annealOnModel(const Space &space, const ConfigScorer &score, unsigned num,
              const std::function<bool(const Config &)> &isExcluded,
              std::vector<Config> &points, const AnnealingOptions &options,
              std::mt19937_64 &rng, const Deadline &deadline = {});

} // namespace mlir::tiletune

#endif // TILETUNE_SEARCH_XGB_H
