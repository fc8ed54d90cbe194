//===- Landscapes.h - Synthetic objectives with known optima ----*- C++ -*-===//
//
// Deterministic synthetic cost functions over any space, with a known
// global optimum: smooth, noisy (rugged), multimodal, and with regions of
// failing configs. Header-only library TileTuneSearchTesting, shared by the
// Search unit tests and bench/search (no GoogleTest dependency).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_TESTING_LANDSCAPES_H
#define TILETUNE_SEARCH_TESTING_LANDSCAPES_H

#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/Space.h"

#include "llvm/ADT/Hashing.h"

#include <cmath>
#include <functional>
#include <string>

namespace mlir::tiletune::testing {

/// A synthetic objective over a space with a known optimum.
struct Landscape {
  /// Short name ("smooth", "noisy", ...).
  std::string name;
  /// The space searched.
  Space space;
  /// Measures a config: status and cost (deterministic).
  std::function<TrialResult(const Config &)> evaluate;
  /// The global optimum and its cost.
  Config optimum;
  double optimumCost = 1.0;
};

/// Topological distance-like measure between two configs of `space`: half
/// the L1 distance of log2 factors (one prime-2 move = 1), swaps for
/// permutations (misplaced / 2), index distance for discrete values, 0/1
/// for categorical ones. Zero iff the configs are equal; >= 1 otherwise.
inline double configDistance(const Space &space, const Config &a,
                             const Config &b) {
  double d = 0.0;
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    const Parameter &p = space.getParameter(i);
    llvm::ArrayRef<int64_t> va = space.getValue(a, i),
                            vb = space.getValue(b, i);
    switch (p.getKind()) {
    case ParamKind::Factorization: {
      double s = 0;
      for (size_t j = 0; j < va.size(); ++j)
        s += std::fabs(std::log2(double(va[j])) - std::log2(double(vb[j])));
      d += s / 2;
      break;
    }
    case ParamKind::Permutation: {
      double s = 0;
      for (size_t j = 0; j < va.size(); ++j)
        s += va[j] != vb[j];
      d += s / 2;
      break;
    }
    case ParamKind::Discrete:
      d += std::fabs(double(va[0] - vb[0]));
      break;
    case ParamKind::Categorical:
      d += va[0] != vb[0];
      break;
    }
  }
  return d;
}

/// Deterministic pseudo-random number in [0, 1) for a config and a salt.
inline double configHash01(const Config &c, uint64_t salt) {
  uint64_t h = uint64_t(llvm::hash_combine(c.hash(), salt));
  // splitmix64 finaliser for good bit mixing.
  h += 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return double(h >> 11) * 0x1.0p-53;
}

/// Smooth bowl: cost = 1 + 0.25 * distance(config, optimum).
inline Landscape makeSmoothLandscape(const Space &space, const Config &opt) {
  Landscape l{"smooth", space, nullptr, opt, 1.0};
  l.evaluate = [space, opt](const Config &c) {
    TrialResult r;
    r.cfg = c;
    r.cost = 1.0 + 0.25 * configDistance(space, c, opt);
    return r;
  };
  return l;
}

/// Rugged bowl: the smooth cost times (1 + amplitude * h) with a fixed
/// pseudo-random h in [0, 1) per config (h = 0 at the optimum, which stays
/// the unique optimum because every other config costs >= 1.25).
inline Landscape makeNoisyLandscape(const Space &space, const Config &opt,
                                    double amplitude = 0.3, uint64_t salt = 7) {
  Landscape l{"noisy", space, nullptr, opt, 1.0};
  l.evaluate = [space, opt, amplitude, salt](const Config &c) {
    TrialResult r;
    r.cfg = c;
    double smooth = 1.0 + 0.25 * configDistance(space, c, opt);
    r.cost =
        c == opt ? smooth : smooth * (1.0 + amplitude * configHash01(c, salt));
    return r;
  };
  return l;
}

/// Several basins: cost = min_i (depth_i + 0.25 * distance(config, center_i))
/// with depth 1.0 for `opt` and 1.3, 1.45, ... for the `decoys`.
inline Landscape makeMultimodalLandscape(const Space &space, const Config &opt,
                                         llvm::ArrayRef<Config> decoys) {
  Landscape l{"multimodal", space, nullptr, opt, 1.0};
  llvm::SmallVector<Config> centers(decoys.begin(), decoys.end());
  l.evaluate = [space, opt, centers](const Config &c) {
    TrialResult r;
    r.cfg = c;
    double cost = 1.0 + 0.25 * configDistance(space, c, opt);
    for (size_t i = 0; i < centers.size(); ++i)
      cost = std::min(cost, 1.3 + 0.15 * i +
                                0.25 * configDistance(space, c, centers[i]));
    r.cost = cost;
    return r;
  };
  return l;
}

/// The smooth bowl where a pseudo-random fraction of configs fails
/// (alternating invalid / compile error / runtime error / timeout); the
/// optimum never fails.
inline Landscape makeInvalidRegionLandscape(const Space &space,
                                            const Config &opt,
                                            double failFraction = 0.3,
                                            uint64_t salt = 11) {
  Landscape l{"invalid-regions", space, nullptr, opt, 1.0};
  l.evaluate = [space, opt, failFraction, salt](const Config &c) {
    TrialResult r;
    r.cfg = c;
    double h = configHash01(c, salt);
    if (c != opt && h < failFraction) {
      static const TrialStatus kinds[] = {
          TrialStatus::Invalid, TrialStatus::CompileError,
          TrialStatus::RuntimeError, TrialStatus::Timeout};
      r.status = kinds[unsigned(h / failFraction * 4) % 4];
      r.message = "synthetic failure";
      return r;
    }
    r.cost = 1.0 + 0.25 * configDistance(space, c, opt);
    return r;
  };
  return l;
}

} // namespace mlir::tiletune::testing

#endif // TILETUNE_SEARCH_TESTING_LANDSCAPES_H
