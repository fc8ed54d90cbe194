//===- WarmStart.cpp - Seeding a search from similar problems -------------===//
//
// Similar problems (problemDistance), adapting a config of one problem to
// another's space (adaptConfig), and the seeds of a problem from the tuning
// database (findWarmStartSeeds).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/WarmStart.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

using namespace mlir;
using namespace mlir::tiletune;

std::optional<double> mlir::tiletune::problemDistance(const Problem &a,
                                                      const Problem &b) {
  if (a.opKind != b.opKind || a.elementType != b.elementType ||
      a.target != b.target || a.strides != b.strides ||
      a.dilations != b.dilations || a.dims.size() != b.dims.size())
    return std::nullopt;
  double sum = 0;
  for (auto [da, db] : llvm::zip_equal(a.dims, b.dims)) {
    if (da.name != db.name || da.size < 1 || db.size < 1)
      return std::nullopt;
    double d = std::log2(double(da.size)) - std::log2(double(db.size));
    sum += d * d;
  }
  return std::sqrt(sum);
}

//===----------------------------------------------------------------------===//
// Adapting a config
//===----------------------------------------------------------------------===//

/// How far the tile sizes of `value` are from `old`: the sum over levels
/// l >= 1 of |log2 prod(value[l..]) - log2 prod(old[l..])|, the inner
/// factors aligned (both have the same number of factors).
static double tileDistance(llvm::ArrayRef<int64_t> value,
                           llvm::ArrayRef<double> oldLogSuffix) {
  double distance = 0, logSuffix = 0;
  for (size_t l = value.size(); l-- > 1;) {
    logSuffix += std::log2(double(value[l]));
    distance += std::fabs(logSuffix - oldLogSuffix[l]);
  }
  return distance;
}

/// The value of factorization `param` nearest to the factors `old` (see
/// tileDistance), or std::nullopt when `old` has another number of factors.
static std::optional<ParamValue>
adaptFactorization(const FactorizationParam &param,
                   llvm::ArrayRef<int64_t> old) {
  unsigned nu = param.getNumFactors();
  if (old.size() != nu || llvm::any_of(old, [](int64_t f) { return f < 1; }))
    return std::nullopt;
  // log2 of the old tile size of each level l (product of factors l..).
  llvm::SmallVector<double> oldLogSuffix(nu, 0.0);
  double acc = 0;
  for (size_t l = nu; l-- > 0;) {
    acc += std::log2(double(old[l]));
    oldLogSuffix[l] = acc;
  }
  ParamValue best(nu), value(nu);
  // Small parameters (every matmul/conv loop of realistic size): the
  // nearest value by enumeration, ties to the lowest rank.
  constexpr uint64_t kEnumerationLimit = 200000;
  uint64_t count = param.count();
  if (count <= kEnumerationLimit) {
    double bestDistance = std::numeric_limits<double>::infinity();
    for (uint64_t r = 0; r < count; ++r) {
      param.unrank(r, value);
      double d = tileDistance(value, oldLogSuffix);
      if (d < bestDistance) {
        bestDistance = d;
        best = value;
      }
    }
    return best;
  }
  // Otherwise greedily from the innermost factor: the divisor of what is
  // left nearest to the old factor.
  int64_t left = param.getTotal();
  for (size_t l = nu; l-- > 1;) {
    int64_t chosen = 1;
    double bestGap = std::numeric_limits<double>::infinity();
    for (int64_t d = 1; d * d <= left; ++d) {
      if (left % d)
        continue;
      for (int64_t candidate : {d, left / d}) {
        double gap = std::fabs(std::log2(double(candidate)) -
                               std::log2(double(old[l])));
        if (gap < bestGap || (gap == bestGap && candidate < chosen)) {
          bestGap = gap;
          chosen = candidate;
        }
      }
    }
    best[l] = chosen;
    left /= chosen;
  }
  best[0] = left;
  if (!param.isValid(best))
    return std::nullopt; // pinned slots disagree
  return best;
}

/// The value of parameter `param` in the old config's JSON `old` (null when
/// the old config has no such parameter), or std::nullopt.
static std::optional<ParamValue> adaptValue(const Parameter &param,
                                            const llvm::json::Value *old) {
  if (!old)
    return std::nullopt;
  std::optional<ParamValue> value;
  if (const auto *fact = llvm::dyn_cast<FactorizationParam>(&param)) {
    const llvm::json::Array *array = old->getAsArray();
    if (!array)
      return std::nullopt;
    llvm::SmallVector<int64_t> factors;
    for (const llvm::json::Value &v : *array) {
      std::optional<int64_t> f = v.getAsInteger();
      if (!f)
        return std::nullopt;
      factors.push_back(*f);
    }
    value = adaptFactorization(*fact, factors);
  } else if (const auto *perm = llvm::dyn_cast<PermutationParam>(&param)) {
    const llvm::json::Array *array = old->getAsArray();
    if (!array)
      return std::nullopt;
    ParamValue indices;
    llvm::ArrayRef<std::string> elements = perm->getElements();
    for (const llvm::json::Value &v : *array) {
      std::optional<llvm::StringRef> name = v.getAsString();
      const std::string *it =
          name ? llvm::find(elements, name->str()) : elements.end();
      if (it == elements.end())
        return std::nullopt;
      indices.push_back(it - elements.begin());
    }
    value = std::move(indices);
  } else if (const auto *discrete = llvm::dyn_cast<DiscreteParam>(&param)) {
    std::optional<int64_t> v = old->getAsInteger();
    if (!v)
      return std::nullopt;
    llvm::ArrayRef<int64_t> values = discrete->getValues();
    size_t nearest = 0;
    for (size_t i = 1; i < values.size(); ++i)
      if (std::llabs(values[i] - *v) < std::llabs(values[nearest] - *v))
        nearest = i;
    value = ParamValue{int64_t(nearest)};
  } else if (const auto *cat = llvm::dyn_cast<CategoricalParam>(&param)) {
    std::optional<llvm::StringRef> name = old->getAsString();
    std::optional<int64_t> index;
    if (name)
      index = cat->indexOf(*name);
    else if (std::optional<bool> b = old->getAsBoolean())
      index = cat->indexOf(*b ? "true" : "false");
    if (!index)
      return std::nullopt;
    value = ParamValue{*index};
  }
  if (!value || value->size() != param.getWidth() || !param.isValid(*value))
    return std::nullopt;
  return value;
}

std::optional<Config> mlir::tiletune::adaptConfig(const llvm::json::Value &config,
                                                  const Space &space,
                                                  const Config &base) {
  const llvm::json::Object *object = config.getAsObject();
  if (!object || base.size() != space.getWidth())
    return std::nullopt;
  Config adapted = base;
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    const Parameter &param = space.getParameter(i);
    if (std::optional<ParamValue> value =
            adaptValue(param, object->get(param.getName())))
      adapted = space.withValue(adapted, i, *value);
  }
  if (space.isValid(adapted))
    return adapted;
  // Repair: the nearest valid config by neighbour steps, breadth-first in
  // the space's deterministic neighbour order.
  for (unsigned i = 0; i < space.getNumParameters(); ++i)
    if (!space.getParameter(i).isValid(space.getValue(adapted, i)))
      return std::nullopt; // not reached: every value above is feasible
  constexpr size_t kRepairLimit = 20000;
  ConfigSet seen{adapted};
  std::deque<Config> queue{adapted};
  llvm::SmallVector<Config> neighbors;
  while (!queue.empty() && seen.size() < kRepairLimit) {
    Config current = std::move(queue.front());
    queue.pop_front();
    neighbors.clear();
    space.getNeighbors(current, neighbors);
    for (Config &next : neighbors) {
      if (!seen.insert(next).second)
        continue;
      if (space.isValid(next))
        return next;
      queue.push_back(std::move(next));
    }
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Seeds from the database
//===----------------------------------------------------------------------===//

llvm::Expected<llvm::SmallVector<WarmStartSeed>>
mlir::tiletune::findWarmStartSeeds(TileTuneDatabase &db, const Problem &problem,
                                   const TargetInfo &target,
                                   const Space &space, const Config &base,
                                   const WarmStartOptions &options) {
  llvm::SmallVector<WarmStartSeed> seeds;
  if (options.maxProblems == 0)
    return seeds;
  llvm::Expected<llvm::SmallVector<std::string>> keys = db.listProblems();
  if (!keys)
    return keys.takeError();
  std::string ownKey = problem.getKey();
  // Comparable problems within reach, nearest first (ties by key).
  std::vector<std::pair<double, std::string>> similar;
  for (const std::string &key : *keys) {
    if (key == ownKey)
      continue;
    llvm::Expected<std::string> description = db.getProblemDescription(key);
    if (!description)
      return description.takeError();
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(*description);
    if (!json) {
      llvm::consumeError(json.takeError());
      continue; // recorded without a (readable) description
    }
    llvm::Expected<Problem> other = Problem::fromJSON(*json);
    if (!other) {
      llvm::consumeError(other.takeError());
      continue;
    }
    std::optional<double> distance = problemDistance(problem, *other);
    if (distance && *distance <= options.maxDistance)
      similar.emplace_back(*distance, key);
  }
  llvm::sort(similar);

  ConfigSet taken{base};
  unsigned used = 0;
  for (const auto &[distance, key] : similar) {
    if (used == options.maxProblems)
      break;
    llvm::Expected<std::optional<BestConfig>> best =
        db.bestConfig(key, target);
    if (!best)
      return best.takeError();
    if (!*best)
      continue; // no result on this target (thread count, machine)
    ++used;
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse((*best)->config);
    if (!json) {
      llvm::consumeError(json.takeError());
      continue;
    }
    std::optional<Config> adapted = adaptConfig(*json, space, base);
    if (!adapted || !taken.insert(*adapted).second)
      continue;
    WarmStartSeed seed;
    seed.problemKey = key;
    seed.distance = distance;
    seed.sourceConfigKey = (*best)->configKey;
    seed.sourceGflops = (*best)->gflops;
    seed.config = *adapted;
    seed.configKey = space.getKey(*adapted);
    seeds.push_back(std::move(seed));
  }
  return seeds;
}
