//===- OpEvo.cpp - Evolution with q-random walk mutation -----------------===//
//
// OpEvo (Algorithm 1 of Gao et al.): lambda random configs seed a population
// ordered by fitness (1 / cost; failures have zero fitness); each child
// inherits every parameter from one of the top-lambda parents chosen with
// probability proportional to fitness, then every parameter is mutated by a
// q-random walk on its topology. A config is never proposed twice: a child
// that was already proposed (or violates a constraint) is mutated again, a
// bounded number of times.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/OpEvo.h"

#include "StrategyRegistration.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace llvm;
using namespace mlir::tiletune;

ParamValue mlir::tiletune::sampleQRandomWalk(const Parameter &param,
                                             ArrayRef<int64_t> start, double q,
                                             std::mt19937_64 &rng,
                                             unsigned maxSteps) {
  ParamValue current(start.begin(), start.end());
  SmallVector<ParamValue> neighbors;
  for (unsigned step = 0; step < maxSteps; ++step) {
    if (uniformReal(rng) >= q)
      break;
    neighbors.clear();
    param.getNeighbors(current, neighbors);
    if (neighbors.empty())
      break;
    current = neighbors[uniformIndex(rng, neighbors.size())];
  }
  return current;
}

std::map<uint64_t, double>
mlir::tiletune::computeQRandomWalkDistribution(const Parameter &param,
                                               ArrayRef<int64_t> start,
                                               double q, double tolerance) {
  uint64_t n = param.count();
  // Adjacency lists by rank.
  std::vector<SmallVector<uint64_t>> adj(n);
  SmallVector<ParamValue> neighbors;
  ParamValue v(param.getWidth());
  for (uint64_t r = 0; r < n; ++r) {
    param.unrank(r, v);
    neighbors.clear();
    param.getNeighbors(v, neighbors);
    for (const ParamValue &w : neighbors)
      adj[r].push_back(param.rank(w));
  }
  std::vector<double> p(n, 0.0), next(n, 0.0);
  p[param.rank(start)] = 1.0;
  std::map<uint64_t, double> dist;
  double mass = 1.0;
  // The walking mass shrinks by q per step.
  for (unsigned t = 0; t < 100000 && mass > tolerance; ++t) {
    std::fill(next.begin(), next.end(), 0.0);
    for (uint64_t r = 0; r < n; ++r) {
      if (p[r] == 0.0)
        continue;
      dist[r] += (1.0 - q) * p[r];
      if (adj[r].empty()) {
        // Isolated vertex: the walk can only stop here.
        dist[r] += q * p[r];
        continue;
      }
      double share = q * p[r] / adj[r].size();
      for (uint64_t w : adj[r])
        next[w] += share;
    }
    std::swap(p, next);
    mass = 0.0;
    for (double x : p)
      mass += x;
  }
  return dist;
}

namespace {
class OpEvoStrategy : public Strategy {
public:
  OpEvoStrategy(const Space &space, const StrategyOptions &options,
                uint64_t seed, unsigned lambda, unsigned rho, double q,
                unsigned maxRetries)
      : Strategy("opevo", space, options, seed), lambda(lambda), rho(rho), q(q),
        maxRetries(maxRetries) {}

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override {
    const Space &space = getSpace();
    ConfigSet local;
    auto fresh = [&](const Config &c) {
      return !wasProposed(c) && !local.count(c);
    };
    auto emit = [&](Config c) {
      local.insert(c);
      out.push_back(std::move(c));
    };
    auto randomFresh = [&]() -> std::optional<Config> {
      return space.sampleValidIf(getRng(), fresh);
    };

    // Lines 1-2: lambda random configs form the initial population.
    while (out.size() < maxCount && getNumProposed() + out.size() < lambda) {
      auto c = randomFresh();
      if (!c)
        break;
      emit(std::move(*c));
    }
    if (out.size() == maxCount)
      return;
    if (getHistory().empty()) {
      if (out.empty() && getNumPending() == 0)
        setExhausted();
      return;
    }

    // Line 4: the top-lambda parents by fitness (ties: earliest trial).
    SmallVector<const TrialResult *> ranked;
    for (const TrialResult &r : getHistory())
      ranked.push_back(&r);
    llvm::sort(ranked, [&](const TrialResult *a, const TrialResult *b) {
      double fa = fitness(*a), fb = fitness(*b);
      return fa != fb ? fa > fb : a->id < b->id;
    });
    if (ranked.size() > lambda)
      ranked.resize(lambda);
    SmallVector<double> weights;
    double total = 0.0;
    for (const TrialResult *r : ranked) {
      weights.push_back(fitness(*r));
      total += weights.back();
    }

    // A generation has rho children; a call hands out at most that many.
    unsigned want = std::min<unsigned>(maxCount, out.size() + rho);
    unsigned failures = 0;
    while (out.size() < want && failures < maxRetries) {
      Config child = recombine(ranked, weights, total);
      // Line 5 (+ "never sample twice"): mutate, and mutate again if the
      // result was already sampled, up to maxRetries times.
      bool done = false;
      for (unsigned attempt = 0; attempt < maxRetries && !done; ++attempt) {
        Config mutated = mutate(child);
        if (fresh(mutated) && space.isValid(mutated)) {
          emit(std::move(mutated));
          done = true;
        }
      }
      if (!done) {
        // The neighbourhood of the parents is used up: inject a random
        // unvisited config to keep the search going.
        if (auto c = randomFresh())
          emit(std::move(*c));
        else
          ++failures;
      }
    }
    if (out.empty() && getNumPending() == 0)
      setExhausted();
  }

private:
  /// Fitness of a result: 1 / cost for successes, zero for failures.
  static double fitness(const TrialResult &r) {
    if (!r.isOk())
      return 0.0;
    return r.cost > 0 ? 1.0 / r.cost : 1e300;
  }

  /// Section 4.2: each parameter comes from parent j with probability
  /// f_j / sum f (uniform when every parent has zero fitness).
  Config recombine(ArrayRef<const TrialResult *> parents,
                   ArrayRef<double> weights, double total) {
    const Space &space = getSpace();
    Config child = parents[0]->cfg;
    for (unsigned i = 0; i < space.getNumParameters(); ++i) {
      size_t j;
      if (total > 0) {
        double u = uniformReal(getRng()) * total;
        j = 0;
        while (j + 1 < weights.size() && u >= weights[j]) {
          u -= weights[j];
          ++j;
        }
        // Never inherit from a zero-fitness parent when others are fit.
        while (weights[j] == 0.0 && j > 0)
          --j;
      } else {
        j = uniformIndex(getRng(), parents.size());
      }
      child = space.withValue(child, i, space.getValue(parents[j]->cfg, i));
    }
    return child;
  }

  /// Section 4.3: an independent q-random walk on every parameter.
  Config mutate(const Config &child) {
    const Space &space = getSpace();
    Config result = child;
    for (unsigned i = 0; i < space.getNumParameters(); ++i) {
      ParamValue v = sampleQRandomWalk(space.getParameter(i),
                                       space.getValue(child, i), q, getRng());
      result = space.withValue(result, i, v);
    }
    return result;
  }

  unsigned lambda;
  unsigned rho;
  double q;
  unsigned maxRetries;
};
} // namespace

void mlir::tiletune::registerOpEvoStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "opevo";
  info.summary = "evolution with q-random walk mutation over parameter "
                 "topologies (OpEvo, Gao et al. 2021, Algorithm 1)";
  info.options = {
      {"lambda", "8", "parents size (paper: 8)"},
      {"rho", "8", "offspring size per generation (paper: 8)"},
      {"q", "0.5", "mutation rate of the q-random walk, in (0,1) (paper: 0.5)"},
      {"max_retries", "100",
       "re-mutations of a child that was already sampled before a random "
       "unvisited config is used instead"}};
  // OpEvo's appendix B: lambda = rho = 8, q = 0.5 (also our defaults).
  info.paperOptions = {{"lambda", "8"}, {"rho", "8"}, {"q", "0.5"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    auto lambda = getIntOption(options, "lambda");
    if (!lambda)
      return lambda.takeError();
    auto rho = getIntOption(options, "rho");
    if (!rho)
      return rho.takeError();
    auto q = getDoubleOption(options, "q");
    if (!q)
      return q.takeError();
    auto retries = getIntOption(options, "max_retries");
    if (!retries)
      return retries.takeError();
    if (*lambda < 1 || *rho < 1 || *q <= 0.0 || *q >= 1.0 || *retries < 1)
      return createStringError(inconvertibleErrorCode(),
                               "opevo: need lambda >= 1, rho >= 1, 0 < q < 1 "
                               "and max_retries >= 1");
    return std::make_unique<OpEvoStrategy>(space, options, seed, *lambda, *rho,
                                           *q, *retries);
  };
  cantFail(registry.add(std::move(info)));
}
