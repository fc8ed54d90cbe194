//===- NA2C.cpp - Neighbourhood Actor Advantage Critic search -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// N-A2C, Algorithm 2 of Zhang et al. (papers 000/002). Each batch starts T-step
// episodes from the best state found so far; every step takes, with
// probability tau, an action sampled from the actor's policy pi(s) and
// otherwise a uniformly random allowed action; every successor that was never
// proposed joins the batch. When the batch has been measured, the
// transitions (s, a, s') that discovered its members go into a fixed-size
// replay memory and the actor and critic networks are trained on random
// minibatches of it with the one-step advantage
//   A = r + gamma * V(s') - V(s)   (no bootstrap on the episode's last step
//                                   or when s' failed),
// r = bestCost / cost(s') in (0, 1] (the paper's 1/T scaled by the best cost
// so far, so rewards are normalised; failures get 0). The critic minimises
// (V(s) - target)^2; the actor minimises -A log pi(a|s) - beta H(pi(s)), which
// raises the probability of actions with a positive advantage.
//
// Exploration step T: a soft start (T begins at soft_start_steps and drops by
// one per batch to `steps`), then T grows by one after grow_patience batches
// without a new best ("long exploration from the same starting point") up to
// max_steps, and falls back to `steps` when the best improves. Inside one
// batch, stale_episodes episodes in a row without a new candidate also grow T
// (for that batch); at max_steps the batch is completed with random fresh
// configs. Collection is therefore always bounded.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/NA2C.h"

#include "CostModelSearch.h"
#include "StrategyRegistration.h"
#include "tiletune/Search/NN.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/FormatVariadic.h"

#include <deque>
#include <limits>
#include <map>

using namespace llvm;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// NeighborActionSpace
//===----------------------------------------------------------------------===//

static unsigned numLabels(const Parameter &p) {
  if (auto *f = dyn_cast<FactorizationParam>(&p)) {
    unsigned nu = f->getNumFactors();
    return nu < 2 ? 0 : f->getPrimes().size() * nu * (nu - 1);
  }
  if (auto *perm = dyn_cast<PermutationParam>(&p)) {
    unsigned n = perm->getElements().size();
    return n * (n - 1) / 2;
  }
  if (isa<DiscreteParam>(&p))
    return 2;
  if (auto *cat = dyn_cast<CategoricalParam>(&p))
    return cat->getChoices().size();
  return 0;
}

NeighborActionSpace::NeighborActionSpace(const Space &space) : space(space) {
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    base.push_back(numActions);
    numActions += numLabels(space.getParameter(i));
  }
  base.push_back(numActions);
}

/// Index of the unordered pair i < j among the n(n-1)/2 pairs.
static unsigned pairIndex(unsigned i, unsigned j, unsigned n) {
  return i * n - i * (i + 1) / 2 + (j - i - 1);
}

std::optional<unsigned> NeighborActionSpace::labelMove(const Config &from,
                                                       const Config &to) const {
  if (from.size() != to.size() || from.size() != space.getWidth())
    return std::nullopt;
  std::optional<unsigned> changed;
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    if (space.getValue(from, i) != space.getValue(to, i)) {
      if (changed)
        return std::nullopt; // more than one parameter differs
      changed = i;
    }
  }
  if (!changed)
    return std::nullopt;
  unsigned pi = *changed;
  const Parameter &p = space.getParameter(pi);
  ArrayRef<int64_t> a = space.getValue(from, pi);
  ArrayRef<int64_t> b = space.getValue(to, pi);
  if (auto *f = dyn_cast<FactorizationParam>(&p)) {
    unsigned nu = f->getNumFactors();
    std::optional<unsigned> src, dst;
    for (unsigned s = 0; s < nu; ++s) {
      if (b[s] < a[s]) {
        if (src)
          return std::nullopt;
        src = s;
      } else if (b[s] > a[s]) {
        if (dst)
          return std::nullopt;
        dst = s;
      }
    }
    if (!src || !dst || b[*src] <= 0 || a[*src] % b[*src] != 0 ||
        a[*dst] <= 0 || b[*dst] % a[*dst] != 0)
      return std::nullopt;
    int64_t prime = a[*src] / b[*src];
    if (b[*dst] / a[*dst] != prime)
      return std::nullopt;
    ArrayRef<std::pair<int64_t, unsigned>> primes = f->getPrimes();
    for (unsigned q = 0; q < primes.size(); ++q)
      if (primes[q].first == prime)
        return base[pi] + (q * nu + *src) * (nu - 1) +
               (*dst < *src ? *dst : *dst - 1);
    return std::nullopt;
  }
  if (auto *perm = dyn_cast<PermutationParam>(&p)) {
    unsigned n = perm->getElements().size();
    SmallVector<unsigned, 2> diff;
    for (unsigned s = 0; s < n; ++s)
      if (a[s] != b[s])
        diff.push_back(s);
    if (diff.size() != 2 || a[diff[0]] != b[diff[1]] ||
        a[diff[1]] != b[diff[0]])
      return std::nullopt;
    return base[pi] + pairIndex(diff[0], diff[1], n);
  }
  if (isa<DiscreteParam>(&p)) {
    if (b[0] == a[0] - 1)
      return base[pi];
    if (b[0] == a[0] + 1)
      return base[pi] + 1;
    return std::nullopt;
  }
  if (auto *cat = dyn_cast<CategoricalParam>(&p)) {
    if (b[0] < 0 || b[0] >= int64_t(cat->getChoices().size()))
      return std::nullopt;
    return base[pi] + unsigned(b[0]);
  }
  return std::nullopt;
}

void NeighborActionSpace::getActions(
    const Config &config,
    SmallVectorImpl<std::pair<unsigned, Config>> &out) const {
  SmallVector<Config> neighbors;
  space.getNeighbors(config, neighbors);
  size_t first = out.size();
  for (Config &n : neighbors) {
    std::optional<unsigned> label = labelMove(config, n);
    if (!label || !space.isValid(n))
      continue;
    out.emplace_back(*label, std::move(n));
  }
  std::sort(out.begin() + first, out.end(), [](const auto &x, const auto &y) {
    return x.first < y.first || (x.first == y.first && x.second < y.second);
  });
  // A correct neighbourhood gives distinct labels; keep the first otherwise.
  auto last = std::unique(
      out.begin() + first, out.end(),
      [](const auto &x, const auto &y) { return x.first == y.first; });
  out.erase(last, out.end());
}

std::string NeighborActionSpace::describe(unsigned action) const {
  if (action >= numActions)
    return "invalid action";
  unsigned pi = 0;
  while (base[pi + 1] <= action)
    ++pi;
  const Parameter &p = space.getParameter(pi);
  unsigned local = action - base[pi];
  std::string name = p.getName().str();
  if (auto *f = dyn_cast<FactorizationParam>(&p)) {
    unsigned nu = f->getNumFactors();
    unsigned q = local / (nu * (nu - 1));
    unsigned rest = local % (nu * (nu - 1));
    unsigned src = rest / (nu - 1), dst = rest % (nu - 1);
    if (dst >= src)
      ++dst;
    return formatv("{0}: move {1} from {2} to {3}", name,
                   f->getPrimes()[q].first, src, dst);
  }
  if (auto *perm = dyn_cast<PermutationParam>(&p)) {
    unsigned n = perm->getElements().size();
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = i + 1; j < n; ++j)
        if (pairIndex(i, j, n) == local)
          return formatv("{0}: swap {1} and {2}", name, i, j);
  }
  if (isa<DiscreteParam>(&p))
    return name + (local == 0 ? ": previous value" : ": next value");
  if (auto *cat = dyn_cast<CategoricalParam>(&p))
    return name + ": set " + cat->getChoices()[local];
  return "invalid action";
}

//===----------------------------------------------------------------------===//
// NA2CStrategy
//===----------------------------------------------------------------------===//

namespace {

using BoolMatrix = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;

/// Resolved N-A2C options.
struct NA2COptions {
  unsigned steps, softStartSteps, maxSteps, growPatience, staleEpisodes;
  double tau;
  unsigned batchSize;
  bool randomStart;
  unsigned memorySize, minibatch, trainSteps;
  double gamma, actorLR, criticLR, entropy;
  unsigned hiddenUnits, hiddenLayers;
  bool normalizeAdvantage;
};

/// A transition (s, a, s') of an episode; the reward is computed from the
/// measured cost of s' at training time.
struct Transition {
  Config from;
  unsigned action = 0;
  Config to;
  bool terminal = false;
  /// Allowed actions of `from` (the policy's mask).
  std::vector<bool> mask;
};

class NA2CStrategy : public Strategy {
public:
  NA2CStrategy(const Space &space, const StrategyOptions &options,
               uint64_t seed, const NA2COptions &opts);

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override;
  void observeImpl(ArrayRef<TrialResult> results) override;
  json::Object saveImpl() const override;
  Error loadImpl(const json::Object &state) override;

private:
  Eigen::RowVectorXd encodeState(const Config &c) const;
  BoolMatrix maskRow(const std::vector<bool> &mask) const;
  size_t samplePolicy(const Config &s,
                      ArrayRef<std::pair<unsigned, Config>> actions);
  bool runEpisode(const Config &center, unsigned steps, unsigned target,
                  ConfigSet &local, SmallVectorImpl<Config> &out);
  void collectBatch(SmallVectorImpl<Config> &out);
  void endOfBatch();
  void train();
  double rewardOf(const Config &to, bool &failed) const;

  NA2COptions opts;
  NeighborActionSpace actionSpace;
  unsigned numFeatures;
  Eigen::RowVectorXd featureMin, featureScale;
  Config start;

  nn::MLP actor, critic;
  nn::Adam actorOpt, criticOpt;

  // Search state (serialised).
  bool startProposed = false;
  unsigned currentSteps;
  bool softStartDone;
  unsigned noImprove = 0;
  double bestAtBatchStart = std::numeric_limits<double>::infinity();
  std::deque<Transition> memory;
  std::map<Config, Transition> pendingTransitions;
  /// Collected candidates of the current batch not handed out yet.
  std::deque<Config> batch;
  // Derived from the history (rebuilt on load).
  std::unordered_map<Config, std::optional<double>, ConfigHash> observed;
};

std::vector<unsigned> hiddenSizes(unsigned inputs, unsigned outputs,
                                  const NA2COptions &o) {
  std::vector<unsigned> sizes = {inputs};
  for (unsigned i = 0; i < o.hiddenLayers; ++i)
    sizes.push_back(o.hiddenUnits);
  sizes.push_back(outputs);
  return sizes;
}

/// Builds an MLP from a dedicated engine so that construction does not
/// depend on (or disturb) the strategy's engine.
nn::MLP makeNet(unsigned inputs, unsigned outputs, const NA2COptions &o,
                uint64_t seed) {
  std::mt19937_64 rng(seed);
  return nn::MLP(hiddenSizes(inputs, outputs, o), nn::Activation::Tanh,
                 nn::Activation::Identity, rng);
}

} // namespace

NA2CStrategy::NA2CStrategy(const Space &space, const StrategyOptions &options,
                           uint64_t seed, const NA2COptions &opts)
    : Strategy("na2c", space, options, seed), opts(opts),
      actionSpace(getSpace()), numFeatures(getSpace().getNumFeatures()),
      actor(makeNet(std::max(1u, numFeatures),
                    std::max(1u, actionSpace.getNumActions()), opts,
                    seed ^ 0xa2c0a2c0a2c0a2c0ULL)),
      critic(makeNet(std::max(1u, numFeatures), 1, opts,
                     seed ^ 0xc0c0c0c0c0c0c0c0ULL)),
      actorOpt(opts.actorLR), criticOpt(opts.criticLR),
      currentSteps(opts.softStartSteps),
      softStartDone(opts.softStartSteps <= opts.steps) {
  // The policy starts uniform over the allowed actions (a zero output
  // layer): an untrained actor must not bias the exploration.
  actor.getLayers().back().weights.setZero();
  const Space &sp = getSpace();
  // Per-feature ranges from a fixed sample (inputs scaled to [-1, 1]).
  std::mt19937_64 local(seed ^ 0x5eed5eed5eed5eedULL);
  SmallVector<Config> probe = {sp.getDefault()};
  for (unsigned i = 0; i < 256; ++i)
    probe.push_back(sp.sample(local));
  FeatureMatrix f = learned::encodeConfigs(sp, probe);
  featureMin = f.cast<double>().colwise().minCoeff();
  Eigen::RowVectorXd maxs = f.cast<double>().colwise().maxCoeff();
  featureScale = (maxs - featureMin).cwiseMax(1e-12);
  for (Eigen::Index i = 0; i < featureScale.size(); ++i)
    if (maxs(i) - featureMin(i) < 1e-12)
      featureScale(i) = 1.0;

  // The start state s0: the paper's "no multi-level tiling" default, or a
  // random valid config.
  start = sp.getDefault();
  if (getStartConfig())
    start = *getStartConfig();
  else if (opts.randomStart || !sp.isValid(start)) {
    if (std::optional<Config> c = sp.sampleValid(local))
      start = *c;
  }
}

Eigen::RowVectorXd NA2CStrategy::encodeState(const Config &c) const {
  SmallVector<double, 32> features;
  getSpace().encode(c, features);
  Eigen::RowVectorXd x(std::max(1u, numFeatures));
  x.setZero();
  for (unsigned i = 0; i < numFeatures; ++i)
    x(i) = 2.0 * (features[i] - featureMin(i)) / featureScale(i) - 1.0;
  return x;
}

BoolMatrix NA2CStrategy::maskRow(const std::vector<bool> &mask) const {
  BoolMatrix m = BoolMatrix::Constant(1, actor.numOutputs(), false);
  for (size_t i = 0; i < mask.size() && i < size_t(m.cols()); ++i)
    m(0, i) = mask[i];
  return m;
}

size_t
NA2CStrategy::samplePolicy(const Config &s,
                           ArrayRef<std::pair<unsigned, Config>> actions) {
  Eigen::MatrixXd logits = actor.apply(encodeState(s));
  BoolMatrix mask = BoolMatrix::Constant(1, logits.cols(), false);
  for (const auto &a : actions)
    mask(0, a.first) = true;
  Eigen::MatrixXd probs = nn::maskedSoftmax(logits, mask);
  double u = uniformReal(getRng());
  double acc = 0.0;
  for (size_t i = 0; i < actions.size(); ++i) {
    acc += probs(0, actions[i].first);
    if (u < acc)
      return i;
  }
  return actions.size() - 1; // rounding
}

bool NA2CStrategy::runEpisode(const Config &center, unsigned steps,
                              unsigned target, ConfigSet &local,
                              SmallVectorImpl<Config> &out) {
  Config s = center;
  bool added = false;
  SmallVector<std::pair<unsigned, Config>> actions;
  for (unsigned t = 0; t < steps && out.size() < target; ++t) {
    actions.clear();
    actionSpace.getActions(s, actions);
    if (actions.empty())
      break;
    size_t pick = uniformReal(getRng()) < opts.tau
                      ? samplePolicy(s, actions)
                      : size_t(uniformIndex(getRng(), actions.size()));
    Config next = actions[pick].second;
    if (!wasProposed(next) && !local.count(next)) {
      Transition tr;
      tr.from = s;
      tr.action = actions[pick].first;
      tr.to = next;
      tr.terminal = t + 1 == steps;
      tr.mask.assign(actionSpace.getNumActions(), false);
      for (const auto &a : actions)
        tr.mask[a.first] = true;
      pendingTransitions[next] = std::move(tr);
      local.insert(next);
      out.push_back(next);
      added = true;
    }
    s = std::move(next);
  }
  return added;
}

void NA2CStrategy::proposeImpl(unsigned maxCount,
                               SmallVectorImpl<Config> &out) {
  // Batches are collected whole (independently of how the driver chunks its
  // requests) and only once the previous batch has been measured and
  // learned from, as in Algorithm 2.
  if (batch.empty()) {
    if (getNumPending() > 0)
      return;
    SmallVector<Config> collected;
    collectBatch(collected);
    if (collected.empty()) {
      setExhausted();
      return;
    }
    batch.assign(collected.begin(), collected.end());
  }
  while (out.size() < maxCount && !batch.empty()) {
    out.push_back(std::move(batch.front()));
    batch.pop_front();
  }
}

void NA2CStrategy::collectBatch(SmallVectorImpl<Config> &out) {
  const Space &space = getSpace();
  unsigned target = opts.batchSize;
  ConfigSet local;
  auto taken = [&](const Config &c) {
    return wasProposed(c) || local.count(c) != 0;
  };
  auto fillRandom = [&]() {
    while (out.size() < target) {
      std::optional<Config> c =
          learned::drawFreshConfig(space, getRng(), taken);
      if (!c)
        break;
      local.insert(*c);
      out.push_back(std::move(*c));
    }
  };

  std::optional<TrialResult> best = getBest();
  if (!best) {
    // Algorithm 2 starts from s0, which is measured first on its own. (A
    // start config and seed configs given as options were proposed by the
    // base class before; the episodes begin at the best of them.)
    if (!startProposed) {
      startProposed = true;
      if (!taken(start) && space.isValid(start)) {
        out.push_back(start);
        return;
      }
    }
    // Nothing measured successfully yet (s0 failed): explore randomly until
    // a first success gives the episodes a centre.
    fillRandom();
    return;
  }

  unsigned steps = currentSteps;
  unsigned stale = 0;
  while (out.size() < target) {
    if (runEpisode(best->cfg, steps, target, local, out)) {
      stale = 0;
      continue;
    }
    if (++stale < opts.staleEpisodes)
      continue;
    stale = 0;
    if (steps < opts.maxSteps) {
      ++steps; // grow T: the neighbourhood of the best state is used up
      continue;
    }
    // Even max_steps episodes find nothing new: complete the batch with
    // random fresh configs (no transition is recorded for them).
    fillRandom();
    break;
  }
}

double NA2CStrategy::rewardOf(const Config &to, bool &failed) const {
  auto it = observed.find(to);
  std::optional<TrialResult> best = getBest();
  failed = it == observed.end() || !it->second || !best || *it->second <= 0.0;
  if (failed)
    return 0.0;
  return best->cost / *it->second;
}

void NA2CStrategy::observeImpl(ArrayRef<TrialResult> results) {
  for (const TrialResult &r : results) {
    observed[r.cfg] =
        r.isOk() ? std::optional<double>(r.cost) : std::optional<double>();
    auto it = pendingTransitions.find(r.cfg);
    if (it == pendingTransitions.end())
      continue;
    memory.push_back(std::move(it->second));
    pendingTransitions.erase(it);
    while (memory.size() > opts.memorySize)
      memory.pop_front();
  }
  if (getNumPending() == 0 && batch.empty())
    endOfBatch();
}

void NA2CStrategy::endOfBatch() {
  if (!memory.empty())
    train();
  std::optional<TrialResult> best = getBest();
  double bestNow = best ? best->cost : std::numeric_limits<double>::infinity();
  bool hadCentre = std::isfinite(bestAtBatchStart);
  bool improved = bestNow < bestAtBatchStart;
  bestAtBatchStart = bestNow;
  if (!hadCentre)
    return; // the start-state batch does not count for the T schedule
  if (!softStartDone) {
    if (currentSteps > opts.steps)
      --currentSteps;
    softStartDone = currentSteps <= opts.steps;
    return;
  }
  if (improved) {
    noImprove = 0;
    currentSteps = opts.steps;
    return;
  }
  if (++noImprove >= opts.growPatience) {
    noImprove = 0;
    currentSteps = std::min(opts.maxSteps, currentSteps + 1);
  }
}

void NA2CStrategy::train() {
  unsigned width = actor.numInputs();
  unsigned numActions = actor.numOutputs();
  for (unsigned step = 0; step < opts.trainSteps; ++step) {
    // Out of time (Strategy::setDeadline): the networks keep the steps
    // trained so far.
    if (deadlinePassed())
      break;
    size_t b = std::min<size_t>(opts.minibatch, memory.size());
    Eigen::MatrixXd s(b, width), s2(b, width);
    BoolMatrix mask = BoolMatrix::Constant(b, numActions, false);
    SmallVector<unsigned> actions(b);
    Eigen::VectorXd reward(b);
    std::vector<bool> stop(b);
    for (size_t i = 0; i < b; ++i) {
      const Transition &t = memory[uniformIndex(getRng(), memory.size())];
      s.row(i) = encodeState(t.from);
      s2.row(i) = encodeState(t.to);
      for (unsigned a = 0; a < numActions && a < t.mask.size(); ++a)
        mask(i, a) = t.mask[a];
      actions[i] = t.action;
      bool failed;
      reward(i) = rewardOf(t.to, failed);
      stop[i] = t.terminal || failed;
    }
    // Targets and advantages from the current critic (held fixed).
    Eigen::VectorXd v = critic.apply(s).col(0);
    Eigen::VectorXd v2 = critic.apply(s2).col(0);
    Eigen::MatrixXd target(b, 1);
    SmallVector<double> advantage(b);
    for (size_t i = 0; i < b; ++i) {
      target(i, 0) = reward(i) + (stop[i] ? 0.0 : opts.gamma * v2(i));
      advantage[i] = target(i, 0) - v(i);
    }
    if (opts.normalizeAdvantage && b > 1) {
      // Standardise the advantages of the minibatch (zero mean, unit
      // variance): the policy step is then invariant to the reward scale.
      double mean = 0, var = 0;
      for (double a : advantage)
        mean += a;
      mean /= double(b);
      for (double a : advantage)
        var += (a - mean) * (a - mean);
      double sd = std::sqrt(var / double(b));
      for (double &a : advantage)
        a = (a - mean) / (sd + 1e-8);
    }
    // Critic: regress V(s) on the one-step target.
    critic.zeroGrad();
    Eigen::MatrixXd grad;
    nn::mseLoss(critic.forward(s), target, &grad);
    critic.backward(grad);
    criticOpt.step(critic);
    // Actor: policy gradient with the advantage (and an entropy bonus).
    actor.zeroGrad();
    nn::policyGradientLoss(actor.forward(s), mask, actions, advantage,
                           opts.entropy, &grad);
    actor.backward(grad);
    actorOpt.step(actor);
  }
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

static json::Array doublesToJSON(ArrayRef<double> values) {
  json::Array out;
  for (double v : values)
    out.push_back(v);
  return out;
}

static json::Array vectorToJSON(const Eigen::VectorXd &v) {
  return doublesToJSON(ArrayRef<double>(v.data(), v.size()));
}

static Expected<std::vector<double>> doublesFromJSON(const json::Object &o,
                                                     StringRef key) {
  const json::Array *a = o.getArray(key);
  if (!a)
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: missing '" + key + "'");
  std::vector<double> out;
  for (const json::Value &v : *a) {
    auto d = v.getAsNumber();
    if (!d)
      return createStringError(inconvertibleErrorCode(),
                               "na2c state: '" + key + "' holds a non-number");
    out.push_back(*d);
  }
  return out;
}

static json::Object transitionToJSON(const Space &space, const Transition &t) {
  std::string mask;
  for (bool b : t.mask)
    mask.push_back(b ? '1' : '0');
  return json::Object{{"from", space.getKey(t.from)},
                      {"action", int64_t(t.action)},
                      {"to", space.getKey(t.to)},
                      {"terminal", t.terminal},
                      {"mask", mask}};
}

static Expected<Transition> transitionFromJSON(const Space &space,
                                               const json::Value &v,
                                               unsigned numActions) {
  auto bad = [] {
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: malformed transition");
  };
  const json::Object *o = v.getAsObject();
  if (!o)
    return bad();
  auto from = o->getString("from");
  auto to = o->getString("to");
  auto action = o->getInteger("action");
  auto terminal = o->getBoolean("terminal");
  auto mask = o->getString("mask");
  if (!from || !to || !action || !terminal || !mask ||
      mask->size() != numActions || *action < 0 ||
      *action >= int64_t(numActions))
    return bad();
  Transition t;
  auto f = space.parseKey(*from);
  if (!f)
    return f.takeError();
  auto g = space.parseKey(*to);
  if (!g)
    return g.takeError();
  t.from = std::move(*f);
  t.to = std::move(*g);
  t.action = unsigned(*action);
  t.terminal = *terminal;
  for (char c : *mask)
    t.mask.push_back(c == '1');
  return t;
}

json::Object NA2CStrategy::saveImpl() const {
  const Space &space = getSpace();
  json::Array memoryJson, pendingJson;
  for (const Transition &t : memory)
    memoryJson.push_back(transitionToJSON(space, t));
  for (const auto &[to, t] : pendingTransitions)
    pendingJson.push_back(transitionToJSON(space, t));
  json::Object o{
      {"start_proposed", startProposed},
      {"steps", int64_t(currentSteps)},
      {"soft_start_done", softStartDone},
      {"no_improve", int64_t(noImprove)},
      {"actor", vectorToJSON(actor.getParameters())},
      {"critic", vectorToJSON(critic.getParameters())},
      {"actor_opt", doublesToJSON(actorOpt.getState())},
      {"critic_opt", doublesToJSON(criticOpt.getState())},
      {"memory", std::move(memoryJson)},
      {"pending_transitions", std::move(pendingJson)},
      {"batch",
       learned::configsToJSON(getSpace(),
                              std::vector<Config>(batch.begin(), batch.end()))},
  };
  if (std::isfinite(bestAtBatchStart))
    o["best_at_batch_start"] = bestAtBatchStart;
  return o;
}

Error NA2CStrategy::loadImpl(const json::Object &state) {
  auto savedStartProposed = state.getBoolean("start_proposed");
  auto savedSteps = state.getInteger("steps");
  auto savedSoftDone = state.getBoolean("soft_start_done");
  auto savedNoImprove = state.getInteger("no_improve");
  if (!savedStartProposed || !savedSteps || !savedSoftDone || !savedNoImprove ||
      *savedSteps < 1 || *savedNoImprove < 0)
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: missing or malformed fields");
  auto savedActor = doublesFromJSON(state, "actor");
  if (!savedActor)
    return savedActor.takeError();
  auto savedCritic = doublesFromJSON(state, "critic");
  if (!savedCritic)
    return savedCritic.takeError();
  auto savedActorOpt = doublesFromJSON(state, "actor_opt");
  if (!savedActorOpt)
    return savedActorOpt.takeError();
  auto savedCriticOpt = doublesFromJSON(state, "critic_opt");
  if (!savedCriticOpt)
    return savedCriticOpt.takeError();
  if (savedActor->size() != actor.numParameters() ||
      savedCritic->size() != critic.numParameters())
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: network size mismatch");
  std::deque<Transition> savedMemory;
  std::map<Config, Transition> savedPending;
  unsigned numActions = actionSpace.getNumActions();
  const json::Array *mem = state.getArray("memory");
  const json::Array *pend = state.getArray("pending_transitions");
  if (!mem || !pend)
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: missing transitions");
  for (const json::Value &v : *mem) {
    auto t = transitionFromJSON(getSpace(), v, numActions);
    if (!t)
      return t.takeError();
    savedMemory.push_back(std::move(*t));
  }
  for (const json::Value &v : *pend) {
    auto t = transitionFromJSON(getSpace(), v, numActions);
    if (!t)
      return t.takeError();
    Config key = t->to;
    savedPending.emplace(std::move(key), std::move(*t));
  }
  auto savedBatch =
      learned::configsFromJSON(getSpace(), state.getArray("batch"), "batch");
  if (!savedBatch)
    return savedBatch.takeError();
  if ((!savedActorOpt->empty() && !actorOpt.setState(*savedActorOpt)) ||
      (!savedCriticOpt->empty() && !criticOpt.setState(*savedCriticOpt)))
    return createStringError(inconvertibleErrorCode(),
                             "na2c state: malformed optimiser state");

  actor.setParameters(Eigen::Map<const Eigen::VectorXd>(savedActor->data(),
                                                        savedActor->size()));
  critic.setParameters(Eigen::Map<const Eigen::VectorXd>(savedCritic->data(),
                                                         savedCritic->size()));
  startProposed = *savedStartProposed;
  currentSteps = unsigned(*savedSteps);
  softStartDone = *savedSoftDone;
  noImprove = unsigned(*savedNoImprove);
  bestAtBatchStart = state.getNumber("best_at_batch_start")
                         .value_or(std::numeric_limits<double>::infinity());
  memory = std::move(savedMemory);
  pendingTransitions = std::move(savedPending);
  batch.assign(savedBatch->begin(), savedBatch->end());
  observed.clear();
  for (const TrialResult &r : getHistory())
    observed[r.cfg] =
        r.isOk() ? std::optional<double>(r.cost) : std::optional<double>();
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::tiletune::registerNA2CStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "na2c";
  info.summary = "Neighbourhood Actor Advantage Critic: T-step episodes from "
                 "the best state guided by an actor-critic with replay "
                 "memory (Zhang et al., papers 000/002, Algorithm 2)";
  info.options = {
      {"steps", "3", "exploration steps T per episode (paper: T = 3)"},
      {"soft_start_steps", "6",
       "initial T of the soft start, decreased by one per batch down to "
       "'steps' (paper: 'start with a large value'; value ours; = steps "
       "disables)"},
      {"max_steps", "8",
       "upper bound of T when it grows after long exploration from the same "
       "best state (value ours)"},
      {"grow_patience", "4",
       "batches without a new best before T grows by one (value ours)"},
      {"stale_episodes", "16",
       "episodes in a row without a new candidate before T grows within a "
       "batch; at max_steps the batch is filled randomly (bounds collection)"},
      {"tau", "0.5",
       "probability of following the actor's policy instead of a random "
       "action (paper's tau; value not given in the paper)"},
      {"batch_size", "8",
       "candidates collected per batch before measuring and learning "
       "(paper's 'tested batch size'; value ours); handed out over as many "
       "propose() calls as the driver needs"},
      {"start", "default",
       "start state s0: 'default' (no multi-level tiling, as in the paper) "
       "or 'random'"},
      {"memory_size", "1024", "replay memory capacity (latest transitions)"},
      {"minibatch", "32", "transitions per training minibatch"},
      {"train_steps", "8", "minibatch updates of actor and critic per batch"},
      {"gamma", "0.9", "discount of the critic's one-step target"},
      {"actor_lr", "0.001", "Adam learning rate of the actor"},
      {"critic_lr", "0.003", "Adam learning rate of the critic"},
      {"entropy", "0.01", "entropy bonus weight of the actor loss"},
      {"hidden_units", "32", "units per hidden layer (tanh)"},
      {"hidden_layers", "2", "hidden layers of actor and critic"},
      {"normalize_advantage", "false",
       "standardise the advantages of each minibatch before the actor step"},
  };
  // The paper's experiments: T = 3 fixed (no soft start, no growth), the
  // untiled start s0.
  info.paperOptions = {{"steps", "3"},
                       {"soft_start_steps", "3"},
                       {"max_steps", "3"},
                       {"start", "default"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    using namespace learned;
    NA2COptions o;
    auto readInt = [&](StringRef name, int64_t lo, int64_t hi,
                       unsigned &out) -> Error {
      auto v = getIntOptionInRange(options, name, lo, hi);
      if (!v)
        return v.takeError();
      out = unsigned(*v);
      return Error::success();
    };
    auto readDouble = [&](StringRef name, double lo, double hi,
                          double &out) -> Error {
      auto v = getDoubleOptionInRange(options, name, lo, hi);
      if (!v)
        return v.takeError();
      out = *v;
      return Error::success();
    };
    const int64_t big = 1 << 20;
    if (Error e = readInt("steps", 1, 1000, o.steps))
      return std::move(e);
    if (Error e = readInt("soft_start_steps", 1, 1000, o.softStartSteps))
      return std::move(e);
    if (Error e = readInt("max_steps", 1, 1000, o.maxSteps))
      return std::move(e);
    if (Error e = readInt("grow_patience", 1, big, o.growPatience))
      return std::move(e);
    if (Error e = readInt("stale_episodes", 1, big, o.staleEpisodes))
      return std::move(e);
    if (Error e = readDouble("tau", 0.0, 1.0, o.tau))
      return std::move(e);
    if (Error e = readInt("batch_size", 1, big, o.batchSize))
      return std::move(e);
    if (Error e = readInt("memory_size", 1, big, o.memorySize))
      return std::move(e);
    if (Error e = readInt("minibatch", 1, big, o.minibatch))
      return std::move(e);
    if (Error e = readInt("train_steps", 0, big, o.trainSteps))
      return std::move(e);
    if (Error e = readDouble("gamma", 0.0, 1.0, o.gamma))
      return std::move(e);
    if (Error e = readDouble("actor_lr", 0.0, 10.0, o.actorLR))
      return std::move(e);
    if (Error e = readDouble("critic_lr", 0.0, 10.0, o.criticLR))
      return std::move(e);
    if (Error e = readDouble("entropy", 0.0, 100.0, o.entropy))
      return std::move(e);
    if (Error e = readInt("hidden_units", 1, 4096, o.hiddenUnits))
      return std::move(e);
    if (Error e = readInt("hidden_layers", 0, 16, o.hiddenLayers))
      return std::move(e);
    auto normAdv = getBoolOption(options, "normalize_advantage");
    if (!normAdv)
      return normAdv.takeError();
    o.normalizeAdvantage = *normAdv;
    auto start = getChoiceOption(options, "start", {"default", "random"});
    if (!start)
      return start.takeError();
    o.randomStart = *start == "random";
    if (o.maxSteps < o.steps)
      return createStringError(inconvertibleErrorCode(),
                               "na2c: 'max_steps' must be >= 'steps'");
    NeighborActionSpace actions(space);
    if (actions.getNumActions() == 0)
      return createStringError(inconvertibleErrorCode(),
                               "na2c: the space has no neighbourhood moves");
    return std::make_unique<NA2CStrategy>(space, options, seed, o);
  };
  cantFail(registry.add(std::move(info)));
}
