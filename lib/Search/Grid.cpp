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
      : Strategy("grid", space, options, seed), NextIndex(start),
        Total(space.countProduct()), ScanLimit(scanLimit) {}

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override {
    uint64_t scanned = 0;
    while (out.size() < maxCount && NextIndex < Total && scanned < ScanLimit) {
      Config c = getSpace().unrank(NextIndex++);
      ++scanned;
      if (!wasProposed(c) && getSpace().isValid(c))
        out.push_back(std::move(c));
    }
    if (NextIndex >= Total)
      setExhausted();
  }

  json::Object saveImpl() const override {
    return json::Object{{"next_index", std::to_string(NextIndex)}};
  }

  Error loadImpl(const json::Object &state) override {
    auto text = state.getString("next_index");
    if (!text || text->getAsInteger(10, NextIndex))
      return createStringError(inconvertibleErrorCode(),
                               "grid state: missing next_index");
    return Error::success();
  }

private:
  uint64_t NextIndex;
  uint64_t Total;
  uint64_t ScanLimit;
};
} // namespace

void mlir::tiletune::registerGridStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.Name = "grid";
  info.Summary = "exhaustive enumeration in mixed-radix rank order (baseline)";
  info.Options = {
      {"start", "0", "rank of the first config to visit"},
      {"scan_limit", "10000000",
       "most ranks examined per propose() call (bounds the time spent "
       "skipping configs that violate constraints)"}};
  info.Create = [](const Space &space, const StrategyOptions &options,
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
