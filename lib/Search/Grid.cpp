//===- Grid.cpp - Exhaustive mixed-radix grid search ---------------------===//
//
// Enumerates the product space in mixed-radix rank order (parameter 0 most
// significant), skipping configs that violate the space's constraints. Never
// repeats a config; exhausts after the last rank.
//
//===----------------------------------------------------------------------===//

#include "StrategyRegistration.h"

using namespace llvm;
using namespace mlir::tiletune;

namespace {
class GridStrategy : public Strategy {
public:
  GridStrategy(const Space &space, const StrategyOptions &options,
               uint64_t seed, uint64_t start, uint64_t scanLimit)
      : Strategy("grid", space, options, seed), nextIndex(start),
        total(space.countProduct()), scanLimit(scanLimit) {}

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override {
    uint64_t scanned = 0;
    while (out.size() < maxCount && nextIndex < total && scanned < scanLimit) {
      Config c = getSpace().unrank(nextIndex++);
      ++scanned;
      if (!wasProposed(c) && getSpace().isValid(c))
        out.push_back(std::move(c));
    }
    if (nextIndex >= total)
      setExhausted();
  }

  json::Object saveImpl() const override {
    return json::Object{{"next_index", std::to_string(nextIndex)}};
  }

  Error loadImpl(const json::Object &state) override {
    auto text = state.getString("next_index");
    if (!text || text->getAsInteger(10, nextIndex))
      return createStringError(inconvertibleErrorCode(),
                               "grid state: missing next_index");
    return Error::success();
  }

private:
  uint64_t nextIndex;
  uint64_t total;
  uint64_t scanLimit;
};
} // namespace

void mlir::tiletune::registerGridStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "grid";
  info.summary = "exhaustive enumeration in mixed-radix rank order (baseline)";
  info.options = {
      {"start", "0", "rank of the first config to visit"},
      {"scan_limit", "10000000",
       "most ranks examined per propose() call (bounds the time spent "
       "skipping configs that violate constraints)"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    auto start = getIntOption(options, "start");
    if (!start)
      return start.takeError();
    auto scan = getIntOption(options, "scan_limit");
    if (!scan)
      return scan.takeError();
    if (*start < 0 || *scan < 1)
      return createStringError(inconvertibleErrorCode(),
                               "grid: 'start' must be >= 0 and 'scan_limit' "
                               ">= 1");
    return std::make_unique<GridStrategy>(space, options, seed, *start, *scan);
  };
  cantFail(registry.add(std::move(info)));
}
