//===- CostModelSearch.cpp - Helpers of the learned strategies ------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Fresh-config drawing, feature matrices, throughput targets and JSON config
// lists shared by N-A2C, XGB and AutoMCL (see CostModelSearch.h).
//
//===----------------------------------------------------------------------===//

#include "CostModelSearch.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::tiletune;

std::optional<Config> mlir::tiletune::learned::drawFreshConfig(
    const Space &space, std::mt19937_64 &rng,
    const std::function<bool(const Config &)> &isTaken, unsigned maxAttempts,
    uint64_t enumerateLimit) {
  for (unsigned a = 0; a < maxAttempts; ++a) {
    Config c = space.sample(rng);
    if (!isTaken(c) && space.isValid(c))
      return c;
  }
  uint64_t total = space.countProduct();
  if (total == 0 || total > enumerateLimit)
    return std::nullopt;
  uint64_t start = uniformIndex(rng, total);
  for (uint64_t i = 0; i < total; ++i) {
    Config c = space.unrank((start + i) % total);
    if (!isTaken(c) && space.isValid(c))
      return c;
  }
  return std::nullopt;
}

FeatureMatrix mlir::tiletune::learned::encodeConfigs(const Space &space,
                                                     ArrayRef<Config> configs) {
  unsigned width = space.getNumFeatures();
  FeatureMatrix m(configs.size(), width);
  SmallVector<double, 32> features;
  for (size_t r = 0; r < configs.size(); ++r) {
    features.clear();
    space.encode(configs[r], features);
    assert(features.size() == width && "feature width mismatch");
    for (unsigned c = 0; c < width; ++c)
      m(r, c) = static_cast<float>(features[c]);
  }
  return m;
}

std::vector<float>
mlir::tiletune::learned::throughputTargets(ArrayRef<TrialResult> results) {
  double best = 0.0;
  bool any = false;
  for (const TrialResult &r : results)
    if (r.isOk() && r.cost > 0.0 && (!any || r.cost < best)) {
      best = r.cost;
      any = true;
    }
  std::vector<float> out;
  out.reserve(results.size());
  for (const TrialResult &r : results)
    out.push_back(any && r.isOk() && r.cost > 0.0
                      ? static_cast<float>(best / r.cost)
                      : 0.0f);
  return out;
}

json::Array mlir::tiletune::learned::configsToJSON(const Space &space,
                                                   ArrayRef<Config> configs) {
  json::Array out;
  for (const Config &c : configs)
    out.push_back(space.getKey(c));
  return out;
}

Expected<std::vector<Config>> mlir::tiletune::learned::configsFromJSON(
    const Space &space, const json::Array *array, StringRef what) {
  if (!array)
    return createStringError(inconvertibleErrorCode(),
                             "state: missing config list '" + what + "'");
  std::vector<Config> out;
  for (const json::Value &v : *array) {
    auto key = v.getAsString();
    if (!key)
      return createStringError(inconvertibleErrorCode(),
                               "state: '" + what + "' holds a non-string");
    auto cfg = space.parseKey(*key);
    if (!cfg)
      return cfg.takeError();
    out.push_back(std::move(*cfg));
  }
  return out;
}

Expected<int64_t> mlir::tiletune::learned::getIntOptionInRange(
    const StrategyOptions &options, StringRef name, int64_t lo, int64_t hi) {
  auto v = getIntOption(options, name);
  if (!v)
    return v.takeError();
  if (*v < lo || *v > hi)
    return createStringError(inconvertibleErrorCode(),
                             "option '" + name + "' must be in [" + Twine(lo) +
                                 ", " + Twine(hi) + "], got " + Twine(*v));
  return *v;
}

Expected<double> mlir::tiletune::learned::getDoubleOptionInRange(
    const StrategyOptions &options, StringRef name, double lo, double hi) {
  auto v = getDoubleOption(options, name);
  if (!v)
    return v.takeError();
  if (*v < lo || *v > hi)
    return createStringError(
        inconvertibleErrorCode(),
        "option '" + name + "' must be in [" + formatv("{0}", lo) + ", " +
            formatv("{0}", hi) + "], got " + formatv("{0}", *v));
  return *v;
}

Error mlir::tiletune::learned::readXGBoostOptions(
    const StrategyOptions &options, uint64_t seed, XGBoostOptions &model) {
  const int64_t big = 1 << 24;
  auto rounds = getIntOptionInRange(options, "num_rounds", 1, big);
  if (!rounds)
    return rounds.takeError();
  model.numRounds = unsigned(*rounds);
  auto early = getIntOptionInRange(options, "early_stopping", 0, big);
  if (!early)
    return early.takeError();
  model.earlyStoppingRounds = unsigned(*early);
  auto depth = getIntOptionInRange(options, "max_depth", 1, 64);
  if (!depth)
    return depth.takeError();
  model.maxDepth = unsigned(*depth);
  auto eta = getDoubleOptionInRange(options, "eta", 1e-6, 1.0);
  if (!eta)
    return eta.takeError();
  model.eta = *eta;
  auto threads = getIntOptionInRange(options, "threads", 1, 1024);
  if (!threads)
    return threads.takeError();
  model.numThreads = int(*threads);
  model.seed = seed;
  return Error::success();
}
