//===- Random.cpp - Uniform random search without repeats ----------------===//
//
// Draws configs uniformly from the space (rejecting constraint violations
// and configs already proposed, with a bounded number of draws). When the
// draws keep failing and the space is small enough, it switches to a
// shuffled list of the remaining valid configs, so it exhausts the space
// without ever looping unboundedly.
//
//===----------------------------------------------------------------------===//

#include "StrategyRegistration.h"

using namespace llvm;
using namespace mlir::tiletune;

namespace {
class RandomStrategy : public Strategy {
public:
  RandomStrategy(const Space &space, const StrategyOptions &options,
                 uint64_t seed, unsigned maxAttempts, uint64_t enumerateLimit)
      : Strategy("random", space, options, seed), maxAttempts(maxAttempts),
        enumerateLimit(enumerateLimit) {}

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override {
    const Space &space = getSpace();
    ConfigSet local;
    auto fresh = [&](const Config &c) {
      return !wasProposed(c) && !local.count(c);
    };
    while (out.size() < maxCount) {
      if (useList) {
        // Hand out the shuffled remainder in order.
        while (listPos < remaining.size() &&
               !fresh(space.unrank(remaining[listPos])))
          ++listPos;
        if (listPos == remaining.size()) {
          setExhausted();
          return;
        }
        Config c = space.unrank(remaining[listPos++]);
        local.insert(c);
        out.push_back(std::move(c));
        continue;
      }
      bool found = false;
      for (unsigned a = 0; a < maxAttempts && !found; ++a) {
        Config c = space.sample(getRng());
        if (fresh(c) && space.isValid(c)) {
          local.insert(c);
          out.push_back(std::move(c));
          found = true;
        }
      }
      if (found)
        continue;
      if (space.countProduct() > enumerateLimit) {
        // Give up for this call; with nothing handed out at all the space
        // is (practically) exhausted.
        if (out.empty() && getNumPending() == 0)
          setExhausted();
        return;
      }
      buildRemainingList(local);
    }
  }

  json::Object saveImpl() const override {
    json::Array list;
    for (uint64_t r : remaining)
      list.push_back(std::to_string(r));
    return json::Object{{"use_list", useList},
                        {"list_pos", int64_t(listPos)},
                        {"remaining", std::move(list)}};
  }

  Error loadImpl(const json::Object &state) override {
    auto savedUseList = state.getBoolean("use_list");
    auto pos = state.getInteger("list_pos");
    const json::Array *list = state.getArray("remaining");
    if (!savedUseList || !pos || !list)
      return createStringError(inconvertibleErrorCode(),
                               "random state: missing fields");
    useList = *savedUseList;
    listPos = *pos;
    remaining.clear();
    for (const json::Value &v : *list) {
      uint64_t r;
      auto s = v.getAsString();
      if (!s || s->getAsInteger(10, r))
        return createStringError(inconvertibleErrorCode(),
                                 "random state: malformed list");
      remaining.push_back(r);
    }
    return Error::success();
  }

private:
  /// Collects the ranks of all valid, never proposed configs and shuffles
  /// them (Fisher-Yates with the strategy's engine).
  void buildRemainingList(const ConfigSet &local) {
    const Space &space = getSpace();
    remaining.clear();
    for (uint64_t r = 0, e = space.countProduct(); r < e; ++r) {
      Config c = space.unrank(r);
      if (!wasProposed(c) && !local.count(c) && space.isValid(c))
        remaining.push_back(r);
    }
    for (size_t i = remaining.size(); i > 1; --i)
      std::swap(remaining[i - 1], remaining[uniformIndex(getRng(), i)]);
    useList = true;
    listPos = 0;
  }

  unsigned maxAttempts;
  uint64_t enumerateLimit;
  bool useList = false;
  size_t listPos = 0;
  std::vector<uint64_t> remaining;
};
} // namespace

void mlir::tiletune::registerRandomStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "random";
  info.summary = "uniform random sampling without repeats (baseline)";
  info.options = {
      {"max_attempts", "1000",
       "random draws per config before falling back to enumeration"},
      {"enumerate_limit", "1000000",
       "largest product space that may be enumerated for the fallback"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    auto attempts = getIntOption(options, "max_attempts");
    if (!attempts)
      return attempts.takeError();
    auto limit = getIntOption(options, "enumerate_limit");
    if (!limit)
      return limit.takeError();
    if (*attempts < 1 || *limit < 0)
      return createStringError(inconvertibleErrorCode(),
                               "random: 'max_attempts' must be >= 1 and "
                               "'enumerate_limit' >= 0");
    return std::make_unique<RandomStrategy>(space, options, seed, *attempts,
                                            *limit);
  };
  cantFail(registry.add(std::move(info)));
}
