//===- GBFS.cpp - Greedy best-first search over neighbour configs --------===//
//
// G-BFS (Algorithm 1 of "Compiler-Level Matrix Multiplication Optimization
// for Deep Learning"): a priority queue of measured states ordered by cost;
// pop the cheapest, sample rho of its neighbours, measure those that are
// legitimate and unvisited, push them. The neighbourhood is the space's
// product topology (moving one prime factor between two factors of one
// factorization generalises the paper's "double one, halve another" to any
// size; permutations/discrete/categorical parameters contribute their own
// adjacencies). When all sampled neighbours of a popped state were already
// visited it simply moves on to the next queued state.
//
//===----------------------------------------------------------------------===//

#include "StrategyRegistration.h"

#include <set>

using namespace llvm;
using namespace mlir::tiletune;

namespace {
class GBFSStrategy : public Strategy {
public:
  GBFSStrategy(const Space &space, const StrategyOptions &options,
               uint64_t seed, unsigned rho, bool randomStart, bool restart,
               bool expandOne)
      : Strategy("gbfs", space, options, seed), rho(rho),
        randomStart(randomStart), restart(restart), expandOne(expandOne) {}

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

    // Line 1-2: test the start state first. A start config and seed configs
    // (options) were proposed by the base class already; their results
    // form the initial queue.
    if (getNumProposed() == 0) {
      std::optional<Config> start;
      if (!randomStart && space.isValid(space.getDefault()))
        start = space.getDefault();
      else
        start = space.sampleValid(getRng());
      if (!start) {
        setExhausted();
        return;
      }
      emit(std::move(*start));
      return;
    }

    // Sampled neighbours left over from a previous call come first.
    while (out.size() < maxCount && !carry.empty()) {
      Config c = std::move(carry.front());
      carry.erase(carry.begin());
      if (fresh(c))
        emit(std::move(c));
    }
    // expand=one (Algorithm 1 exactly): the next state is popped only once
    // every neighbour of the previous one was measured, whatever the batch.
    if (expandOne && (!out.empty() || !carry.empty() || getNumPending() > 0))
      return;

    SmallVector<Config> neighbors;
    while (out.size() < maxCount) {
      if (queue.empty()) {
        // Paper: stop when the queue is empty. We wait for pending results
        // (they may refill the queue) and otherwise restart from a random
        // unvisited state if allowed.
        if (getNumPending() > 0 || !out.empty())
          return;
        if (!restart) {
          setExhausted();
          return;
        }
        std::optional<Config> s = space.sampleValidIf(getRng(), fresh);
        if (!s) {
          setExhausted();
          return;
        }
        emit(std::move(*s));
        return;
      }
      // Line 5: pop the cheapest state (ties: earliest trial).
      auto top = *queue.begin();
      queue.erase(queue.begin());
      popped.insert(top.second);
      const Config &s = queueConfigs[top.second];
      // Line 6: sample rho neighbours of s uniformly without replacement.
      neighbors.clear();
      space.getNeighbors(s, neighbors);
      unsigned take = std::min<size_t>(rho, neighbors.size());
      for (unsigned i = 0; i < take; ++i)
        std::swap(neighbors[i],
                  neighbors[i + uniformIndex(getRng(), neighbors.size() - i)]);
      queueConfigs.erase(top.second);
      // Lines 7-10: keep legitimate, unvisited ones.
      for (unsigned i = 0; i < take; ++i) {
        Config &c = neighbors[i];
        if (!fresh(c) || !space.isValid(c))
          continue;
        if (out.size() < maxCount)
          emit(std::move(c));
        else if (llvm::find(carry, c) == carry.end())
          carry.push_back(std::move(c));
      }
      // One state per batch: stop once this state gave something to measure
      // (a state whose sampled neighbours were all visited gives nothing;
      // Algorithm 1 then pops the next one at once).
      if (expandOne && (!out.empty() || !carry.empty()))
        return;
    }
  }

  void observeImpl(ArrayRef<TrialResult> results) override {
    // Only successfully measured states enter the queue (failures are not
    // legitimate states).
    for (const TrialResult &r : results)
      if (r.isOk()) {
        queue.insert({r.cost, r.id});
        queueConfigs[r.id] = r.cfg;
      }
  }

  json::Object saveImpl() const override {
    json::Array poppedJson, carryJson;
    for (uint64_t id : popped)
      poppedJson.push_back(int64_t(id));
    for (const Config &c : carry)
      carryJson.push_back(getSpace().getKey(c));
    return json::Object{{"popped", std::move(poppedJson)},
                        {"carry", std::move(carryJson)}};
  }

  Error loadImpl(const json::Object &state) override {
    const json::Array *poppedJson = state.getArray("popped");
    const json::Array *carryJson = state.getArray("carry");
    if (!poppedJson || !carryJson)
      return createStringError(inconvertibleErrorCode(),
                               "gbfs state: missing fields");
    popped.clear();
    for (const json::Value &v : *poppedJson) {
      auto id = v.getAsInteger();
      if (!id)
        return createStringError(inconvertibleErrorCode(),
                                 "gbfs state: malformed popped id");
      popped.insert(*id);
    }
    carry.clear();
    for (const json::Value &v : *carryJson) {
      auto key = v.getAsString();
      if (!key)
        return createStringError(inconvertibleErrorCode(),
                                 "gbfs state: malformed carry");
      auto c = getSpace().parseKey(*key);
      if (!c)
        return c.takeError();
      carry.push_back(std::move(*c));
    }
    queue.clear();
    queueConfigs.clear();
    for (const TrialResult &r : getHistory())
      if (r.isOk() && !popped.count(r.id)) {
        queue.insert({r.cost, r.id});
        queueConfigs[r.id] = r.cfg;
      }
    return Error::success();
  }

private:
  unsigned rho;
  bool randomStart;
  bool restart;
  /// expand=one: pop one state per batch (Algorithm 1 at any driver batch).
  bool expandOne;
  /// (cost, trial id) of measured, not yet popped states.
  std::set<std::pair<double, uint64_t>> queue;
  std::map<uint64_t, Config> queueConfigs;
  /// Trial ids already expanded.
  std::set<uint64_t> popped;
  /// Sampled neighbours that did not fit into the last batch.
  SmallVector<Config> carry;
};
} // namespace

void mlir::tiletune::registerGBFSStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "gbfs";
  info.summary = "greedy best-first search over neighbour configs (G-BFS, "
                 "Zhang et al. 2019, Algorithm 1)";
  info.options = {
      {"rho", "5", "neighbours sampled per popped state (paper: rho = 5)"},
      {"start", "default",
       "start state: 'default' = every parameter's default, i.e. no "
       "multi-level tiling [[m,1,1,1],[k,1],[n,1,1,1]] (paper), or 'random'"},
      {"restart", "true",
       "when the queue runs empty, continue from a random unvisited state "
       "instead of stopping (the paper stops)"},
      {"expand", "fill",
       "'fill': pop states until a batch is full (several states are "
       "expanded before their neighbours' results return); 'one': pop one "
       "state, measure its sampled neighbours, then pop the next "
       "(Algorithm 1 at any batch size; batches are at most rho)"}};
  // Algorithm 1 as in the paper's experiments (Sec. 4): rho = 5, the
  // untiled start, no restart, one popped state per measured batch.
  info.paperOptions = {
      {"rho", "5"}, {"start", "default"}, {"restart", "false"}, {"expand", "one"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    auto rho = getIntOption(options, "rho");
    if (!rho)
      return rho.takeError();
    if (*rho < 1)
      return createStringError(inconvertibleErrorCode(),
                               "gbfs: 'rho' must be >= 1");
    auto restart = getBoolOption(options, "restart");
    if (!restart)
      return restart.takeError();
    auto start = getChoiceOption(options, "start", {"default", "random"});
    if (!start)
      return start.takeError();
    auto expand = getChoiceOption(options, "expand", {"fill", "one"});
    if (!expand)
      return expand.takeError();
    return std::make_unique<GBFSStrategy>(space, options, seed, *rho,
                                          *start == "random", *restart,
                                          *expand == "one");
  };
  cantFail(registry.add(std::move(info)));
}
