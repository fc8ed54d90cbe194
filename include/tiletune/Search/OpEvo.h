//===- OpEvo.h - q-random walk mutation of OpEvo ----------------*- C++ -*-===//
//
// The topology-aware mutation of OpEvo (Gao et al., "OpEvo: An Evolutionary
// Method for Tensor Operator Optimization", section 4.3): a random walk on a
// parameter's neighbour graph that moves to a uniformly chosen neighbour
// with probability q and stops with probability 1 - q. The strategy itself
// is registered as "opevo" (see Strategy.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_OPEVO_H
#define TILETUNE_SEARCH_OPEVO_H

#include "tiletune/Space/Space.h"

#include "llvm/ADT/SmallVector.h"

#include <map>
#include <random>

namespace mlir::tiletune {

/// Samples the q-random walk distribution of `param` started at `start`:
/// repeatedly, with probability q move to a uniformly random neighbour,
/// otherwise stop. The walk is cut after `maxSteps` moves (the probability
/// of reaching it is q^maxSteps). Returns the final value.
ParamValue sampleQRandomWalk(const Parameter &param,
                             llvm::ArrayRef<int64_t> start, double q,
                             std::mt19937_64 &rng, unsigned maxSteps = 1000);

/// The exact q-random walk distribution over the values of `param` (by
/// rank), computed by summing (1-q) Q^t p0 until the remaining mass is below
/// `tolerance`. Only for small parameters (enumerates count() values).
std::map<uint64_t, double>
computeQRandomWalkDistribution(const Parameter &param,
                               llvm::ArrayRef<int64_t> start, double q,
                               double tolerance = 1e-14);

} // namespace mlir::tiletune

#endif // TILETUNE_SEARCH_OPEVO_H
