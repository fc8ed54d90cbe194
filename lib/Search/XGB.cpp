//===- XGB.cpp - AutoTVM-style XGBoost + simulated annealing --------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The "xgb" strategy, modelled on AutoTVM's XGBTuner (ModelBasedTuner +
// XGBoostCostModel + SimulatedAnnealingOptimizer):
// - until the first fit, and for the last epsilon * plan_size entries of
//   every plan, configs are drawn uniformly at random (never repeated);
// - every plan_size observed results (and once at least one succeeded), an
//   XGBoost model (rank:pairwise by default) is fitted on
//   all observations, features = the loop-nest ("itervar") features of the
//   space's op (AutoTVM's default; LoopNestFeatures.h) or, with
//   features=knob or on a space without an op, the space's encoding, target = normalised
//   throughput bestCost / cost (failures 0), and parallel simulated
//   annealing over the space's neighbourhood picks the plan_size
//   best-predicted configs not proposed yet; proposals follow that plan.
//   Proposals never run past the next refit point (AutoTVM refits at the
//   first batch boundary after it), so the sequence of proposals does not
//   depend on the driver's batch size.
// The model itself is not serialised: it is only used when a plan is built,
// and the plan, the annealing chains and the fit count are saved, so a
// resumed search continues exactly.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/XGB.h"

#include "CostModelSearch.h"
#include "StrategyRegistration.h"
#include "tiletune/Search/CostModel.h"
#include "tiletune/Space/LoopNestFeatures.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Simulated annealing on a model
//===----------------------------------------------------------------------===//

namespace {
/// The `capacity` best (score, config) pairs seen, as a min-heap.
class TopSet {
public:
  explicit TopSet(unsigned capacity) : capacity(capacity) {}

  /// Offers a candidate; returns true if the set changed.
  bool offer(float score, const Config &c) {
    if (capacity == 0 || members.count(c))
      return false;
    if (heap.size() < capacity) {
      heap.emplace_back(score, c);
      std::push_heap(heap.begin(), heap.end(), worse);
      members.insert(c);
      return true;
    }
    if (!(score > heap.front().first))
      return false;
    std::pop_heap(heap.begin(), heap.end(), worse);
    members.erase(heap.back().second);
    heap.back() = {score, c};
    std::push_heap(heap.begin(), heap.end(), worse);
    members.insert(c);
    return true;
  }

  /// Members, best first (ties by config order).
  std::vector<Config> sorted() const {
    std::vector<std::pair<float, Config>> items = heap;
    std::sort(items.begin(), items.end(), [](const auto &a, const auto &b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<Config> out;
    for (auto &item : items)
      out.push_back(std::move(item.second));
    return out;
  }

private:
  /// Heap order: the root is the worst member (lowest score, then the
  /// largest config so that ties are resolved deterministically).
  static bool worse(const std::pair<float, Config> &a,
                    const std::pair<float, Config> &b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }

  unsigned capacity;
  std::vector<std::pair<float, Config>> heap;
  ConfigSet members;
};
} // namespace

/// A uniformly random valid neighbour of `c` in the space's product
/// topology (std::nullopt if it has none). Draws from the parameters'
/// neighbour lists without materialising every neighbouring config.
static std::optional<Config>
randomValidNeighbor(const Space &space, const Config &c, std::mt19937_64 &rng) {
  unsigned numParams = space.getNumParameters();
  SmallVector<SmallVector<ParamValue, 8>, 8> perParam(numParams);
  size_t total = 0;
  for (unsigned i = 0; i < numParams; ++i) {
    space.getParameter(i).getNeighbors(space.getValue(c, i), perParam[i]);
    total += perParam[i].size();
  }
  auto pick = [&](size_t r) {
    for (unsigned i = 0; i < numParams; ++i) {
      if (r < perParam[i].size())
        return space.withValue(c, i, perParam[i][r]);
      r -= perParam[i].size();
    }
    llvm_unreachable("neighbour index out of range");
  };
  if (total == 0)
    return std::nullopt;
  // A few uniform draws first (cheap); constraints rarely reject them all.
  for (unsigned attempt = 0; attempt < 8; ++attempt) {
    Config n = pick(uniformIndex(rng, total));
    if (space.isValid(n))
      return n;
  }
  SmallVector<Config> valid;
  for (size_t r = 0; r < total; ++r) {
    Config n = pick(r);
    if (space.isValid(n))
      valid.push_back(std::move(n));
  }
  if (valid.empty())
    return std::nullopt;
  return valid[uniformIndex(rng, valid.size())];
}

Expected<std::vector<Config>> mlir::tiletune::annealOnModel(
    const Space &space, const ConfigScorer &score, unsigned num,
    const std::function<bool(const Config &)> &isExcluded,
    std::vector<Config> &points, const AnnealingOptions &options,
    std::mt19937_64 &rng, const Deadline &deadline) {
  if (points.empty()) {
    for (unsigned i = 0; i < options.chains; ++i)
      if (std::optional<Config> c = space.sampleValid(rng))
        points.push_back(std::move(*c));
  }
  TopSet top(num);
  if (points.empty())
    return std::vector<Config>();
  auto scores = score(points);
  if (!scores)
    return scores.takeError();
  for (size_t i = 0; i < points.size(); ++i)
    if (!isExcluded(points[i]))
      top.offer((*scores)[i], points[i]);

  double temp = options.tempStart;
  double cool =
      (options.tempStart - options.tempEnd) / (options.iterations + 1.0);
  unsigned lastChange = 0;
  std::vector<Config> next(points.size());
  for (unsigned k = 0; k < options.iterations &&
                       k < lastChange + options.earlyStop && !deadline.passed();
       ++k) {
    for (size_t i = 0; i < points.size(); ++i) {
      std::optional<Config> n = randomValidNeighbor(space, points[i], rng);
      next[i] = n ? std::move(*n) : points[i];
    }
    auto nextScores = score(next);
    if (!nextScores)
      return nextScores.takeError();
    for (size_t i = 0; i < points.size(); ++i) {
      double delta = double((*nextScores)[i]) - double((*scores)[i]);
      // temp > 0 throughout: it ends at tempEnd + cool.
      double accept = temp > 0 ? std::exp(delta / temp) : (delta > 0 ? 1 : 0);
      if (uniformReal(rng) < accept) {
        points[i] = next[i];
        (*scores)[i] = (*nextScores)[i];
      }
    }
    for (size_t i = 0; i < next.size(); ++i)
      if (!isExcluded(next[i]) && top.offer((*nextScores)[i], next[i]))
        lastChange = k;
    temp -= cool;
  }
  return top.sorted();
}

//===----------------------------------------------------------------------===//
// XGBStrategy
//===----------------------------------------------------------------------===//

namespace {
struct XGBStrategyOptions {
  unsigned planSize;
  double epsilon;
  AnnealingOptions annealing;
  bool persistent;
  XGBoostOptions model;
  /// features=itervar (loop-nest features) rather than knob.
  bool itervar = true;
};

class XGBStrategy : public Strategy {
public:
  XGBStrategy(const Space &space, const StrategyOptions &options, uint64_t seed,
              XGBStrategyOptions opts)
      : Strategy("xgb", space, options, seed), opts(std::move(opts)),
        nextRefitAt(this->opts.planSize) {
    // Loop-nest features need the space's op; abstract spaces (the paper
    // space, synthetic landscapes without an op) use the knob encoding.
    if (this->opts.itervar) {
      if (auto f = LoopNestFeaturizer::create(space))
        featurizer.emplace(std::move(*f));
      else
        consumeError(f.takeError());
    }
  }

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override;
  void observeImpl(ArrayRef<TrialResult> results) override;
  json::Object saveImpl() const override;
  Error loadImpl(const json::Object &state) override;

private:
  Error refit();
  /// The feature matrix of `configs` (loop-nest or knob features).
  FeatureMatrix encode(ArrayRef<Config> configs) const;

  XGBStrategyOptions opts;
  std::optional<LoopNestFeaturizer> featurizer;
  std::vector<Config> plan;
  size_t planPos = 0;
  unsigned numFits = 0;
  /// The model is refitted when exactly this many results were observed;
  /// proposals stop there until it happened (plan_size, 2 plan_size, ...).
  uint64_t nextRefitAt;
  std::vector<Config> chains;
  /// Message of the last failed fit (the plan then stays random).
  std::string lastError;
};
} // namespace

void XGBStrategy::proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) {
  const Space &space = getSpace();
  ConfigSet local;
  auto taken = [&](const Config &c) {
    return wasProposed(c) || local.count(c) != 0;
  };
  // Never run past the next refit point: the proposals after it come from
  // the refitted model, whatever the driver's batch size.
  if (getNumProposed() >= nextRefitAt)
    return; // waiting for the results that complete this plan period
  maxCount =
      unsigned(std::min<uint64_t>(maxCount, nextRefitAt - getNumProposed()));
  size_t randomTail = std::min<size_t>(
      plan.size(), size_t(std::floor(opts.epsilon * opts.planSize)));
  while (out.size() < maxCount) {
    while (planPos < plan.size() &&
           (taken(plan[planPos]) || !space.isValid(plan[planPos])))
      ++planPos;
    std::optional<Config> c;
    if (planPos >= plan.size() - randomTail)
      c = learned::drawFreshConfig(space, getRng(), taken);
    else
      c = plan[planPos++];
    if (!c)
      break;
    local.insert(*c);
    out.push_back(std::move(*c));
  }
  if (out.empty() && getNumPending() == 0)
    setExhausted();
}

FeatureMatrix XGBStrategy::encode(ArrayRef<Config> configs) const {
  if (!featurizer)
    return learned::encodeConfigs(getSpace(), configs);
  FeatureMatrix m(configs.size(), featurizer->getNumFeatures());
  SmallVector<double> row;
  for (size_t i = 0; i < configs.size(); ++i) {
    row.clear();
    featurizer->encode(configs[i], row);
    for (size_t j = 0; j < row.size(); ++j)
      m(i, j) = static_cast<float>(row[j]);
  }
  return m;
}

Error XGBStrategy::refit() {
  const Space &space = getSpace();
  ArrayRef<TrialResult> history = getHistory();
  std::vector<Config> configs;
  for (const TrialResult &r : history)
    configs.push_back(r.cfg);
  XGBoostOptions modelOpts = opts.model;
  modelOpts.recallK = opts.planSize;
  XGBoostModel model(modelOpts);
  if (Error e = model.fit(encode(configs), learned::throughputTargets(history),
                          getDeadline()))
    return e;
  ConfigScorer scorer =
      [&](ArrayRef<Config> cs) -> Expected<std::vector<float>> {
    return model.predict(encode(cs));
  };
  auto newPlan = annealOnModel(
      space, scorer, opts.planSize,
      [&](const Config &c) { return wasProposed(c); }, chains, opts.annealing,
      getRng(), getDeadline());
  if (!opts.persistent)
    chains.clear();
  if (!newPlan)
    return newPlan.takeError();
  plan = std::move(*newPlan);
  planPos = 0;
  return Error::success();
}

void XGBStrategy::observeImpl(ArrayRef<TrialResult> /*results*/) {
  ArrayRef<TrialResult> history = getHistory();
  if (history.size() < nextRefitAt)
    return;
  nextRefitAt += opts.planSize;
  if (llvm::none_of(history, [](const TrialResult &r) { return r.isOk(); }))
    return; // AutoTVM fits only once something succeeded
  ++numFits;
  if (Error e = refit()) {
    // Keep searching (randomly) and remember why the model is missing.
    lastError = toString(std::move(e));
    plan.clear();
    planPos = 0;
  }
}

json::Object XGBStrategy::saveImpl() const {
  const Space &space = getSpace();
  return json::Object{{"plan", learned::configsToJSON(space, plan)},
                      {"plan_pos", int64_t(planPos)},
                      {"fits", int64_t(numFits)},
                      {"next_refit_at", int64_t(nextRefitAt)},
                      {"chains", learned::configsToJSON(space, chains)},
                      {"last_error", lastError}};
}

Error XGBStrategy::loadImpl(const json::Object &state) {
  const Space &space = getSpace();
  auto savedPlan =
      learned::configsFromJSON(space, state.getArray("plan"), "plan");
  if (!savedPlan)
    return savedPlan.takeError();
  auto savedChains =
      learned::configsFromJSON(space, state.getArray("chains"), "chains");
  if (!savedChains)
    return savedChains.takeError();
  auto pos = state.getInteger("plan_pos");
  auto fits = state.getInteger("fits");
  auto savedLastError = state.getString("last_error");
  auto nextRefit = state.getInteger("next_refit_at");
  if (!pos || !fits || !savedLastError || !nextRefit || *pos < 0 ||
      size_t(*pos) > savedPlan->size() || *fits < 0 || *nextRefit < 1)
    return createStringError(inconvertibleErrorCode(),
                             "xgb state: missing or malformed fields");
  plan = std::move(*savedPlan);
  chains = std::move(*savedChains);
  planPos = size_t(*pos);
  numFits = unsigned(*fits);
  nextRefitAt = uint64_t(*nextRefit);
  lastError = savedLastError->str();
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::tiletune::registerXGBStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "xgb";
  info.summary = "AutoTVM-style baseline: XGBoost rank model over loop-nest "
                 "(itervar) or knob features + parallel simulated annealing over the "
                 "neighbourhood, epsilon-greedy (Chen et al. 2018; baseline "
                 "of papers 000-004)";
  info.options = {
      {"plan_size", "64",
       "refit the model every plan_size measurements and plan that many "
       "configs (AutoTVM default)"},
      {"epsilon", "0.05",
       "fraction of each plan replaced by random picks (AutoTVM's last 5%)"},
      {"features", "itervar",
       "'itervar' (AutoTVM's default): loop-nest features of the config's "
       "loop nest (extents, annotations, per operand the stride, bytes "
       "touched and reuse of every loop; LoopNestFeatures.h); spaces "
       "without an op (the paper space) use 'knob'. 'knob': the space's "
       "encoding of the parameter values"},
      {"loss", "rank",
       "'rank' (rank:pairwise, AutoTVM default) or 'reg' "
       "(reg:squarederror)"},
      {"num_rounds", "8000", "maximum XGBoost boosting rounds (AutoTVM)"},
      {"early_stopping", "20",
       "stop boosting after this many rounds without better top-plan_size "
       "recall on the training set; 0 = off (AutoTVM)"},
      {"max_depth", "3", "XGBoost tree depth (AutoTVM)"},
      {"eta", "0.3", "XGBoost learning rate (AutoTVM)"},
      {"threads", "1",
       "XGBoost threads (1 = bit-reproducible; more is faster)"},
      {"sa_chains", "128", "parallel annealing chains (AutoTVM)"},
      {"sa_iterations", "500", "maximum annealing steps (AutoTVM)"},
      {"sa_early_stop", "50",
       "stop annealing after this many steps without a change of the top "
       "set (AutoTVM)"},
      {"sa_temp_start", "1.0", "initial annealing temperature (AutoTVM)"},
      {"sa_temp_end", "0.0", "final annealing temperature (AutoTVM)"},
      {"sa_persistent", "true",
       "continue the chains from their last positions at the next plan "
       "(AutoTVM)"},
  };
  // AutoTVM's XGBTuner defaults (the baseline the papers ran): loop-nest
  // features, rank loss, plan 64, 5% random, persistent annealing.
  info.paperOptions = {{"features", "itervar"}, {"loss", "rank"},
                       {"plan_size", "64"},      {"epsilon", "0.05"},
                       {"sa_persistent", "true"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    using namespace learned;
    XGBStrategyOptions o;
    const int64_t big = 1 << 24;
    auto planSize = getIntOptionInRange(options, "plan_size", 1, big);
    if (!planSize)
      return planSize.takeError();
    o.planSize = unsigned(*planSize);
    auto eps = getDoubleOptionInRange(options, "epsilon", 0.0, 1.0);
    if (!eps)
      return eps.takeError();
    o.epsilon = *eps;
    auto loss = getChoiceOption(options, "loss", {"rank", "reg"});
    if (!loss)
      return loss.takeError();
    o.model.objective = *loss == "rank" ? "rank:pairwise" : "reg:squarederror";
    auto features = getChoiceOption(options, "features", {"itervar", "knob"});
    if (!features)
      return features.takeError();
    o.itervar = *features == "itervar";
    if (Error err = learned::readXGBoostOptions(options, seed, o.model))
      return std::move(err);
    auto chains = getIntOptionInRange(options, "sa_chains", 1, big);
    if (!chains)
      return chains.takeError();
    o.annealing.chains = unsigned(*chains);
    auto iters = getIntOptionInRange(options, "sa_iterations", 0, big);
    if (!iters)
      return iters.takeError();
    o.annealing.iterations = unsigned(*iters);
    auto saEarly = getIntOptionInRange(options, "sa_early_stop", 1, big);
    if (!saEarly)
      return saEarly.takeError();
    o.annealing.earlyStop = unsigned(*saEarly);
    auto t0 = getDoubleOptionInRange(options, "sa_temp_start", 0.0, 1e6);
    if (!t0)
      return t0.takeError();
    auto t1 = getDoubleOptionInRange(options, "sa_temp_end", 0.0, 1e6);
    if (!t1)
      return t1.takeError();
    if (*t1 > *t0)
      return createStringError(inconvertibleErrorCode(),
                               "xgb: 'sa_temp_end' must be <= 'sa_temp_start'");
    o.annealing.tempStart = *t0;
    o.annealing.tempEnd = *t1;
    auto persistent = getBoolOption(options, "sa_persistent");
    if (!persistent)
      return persistent.takeError();
    o.persistent = *persistent;
    return std::make_unique<XGBStrategy>(space, options, seed, std::move(o));
  };
  cantFail(registry.add(std::move(info)));
}
