//===- CostModelSearch.h - Helpers of the learned strategies ----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Private helpers shared by the learned search strategies (N-A2C, the
// AutoTVM-style XGBoost baseline and AutoMCL): drawing a fresh (never
// proposed, valid) config with a bounded number of tries, encoding configs
// into a feature matrix, normalised throughput targets, and JSON helpers for
// lists of configs.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_SEARCH_COSTMODELSEARCH_H
#define TILETUNE_LIB_SEARCH_COSTMODELSEARCH_H

#include "tiletune/Search/CostModel.h"
#include "tiletune/Search/Strategy.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>

namespace mlir::tiletune::learned {

/// Draws a config that satisfies the space's constraints and for which
/// `isTaken` is false: first up to `maxAttempts` uniform draws; if they all
/// fail and the product space has at most `enumerateLimit` points, a scan
/// over all ranks starting at a random one. Returns std::nullopt when no
/// such config was found (never loops unboundedly).
std::optional<Config>
drawFreshConfig(const Space &space, std::mt19937_64 &rng,
                const std::function<bool(const Config &)> &isTaken,
                unsigned maxAttempts = 1000, uint64_t enumerateLimit = 1000000);

/// The space's feature encoding of every config, one row per config.
FeatureMatrix encodeConfigs(const Space &space, llvm::ArrayRef<Config> configs);

/// Normalised throughput of each result: bestCost / cost in (0, 1] for
/// successful trials (1 = the best one), 0 for failures (AutoTVM's
/// flops / max-flops with failures at 0). All zeros if nothing succeeded.
std::vector<float> throughputTargets(llvm::ArrayRef<TrialResult> results);

/// Serialises configs as an array of canonical keys.
llvm::json::Array configsToJSON(const Space &space,
                                llvm::ArrayRef<Config> configs);
/// Parses configsToJSON's array (errors name `what`).
llvm::Expected<std::vector<Config>>
configsFromJSON(const Space &space, const llvm::json::Array *array,
                llvm::StringRef what);

/// Reads a non-negative integer option that must lie in [lo, hi].
llvm::Expected<int64_t> getIntOptionInRange(const StrategyOptions &options,
                                            llvm::StringRef name, int64_t lo,
                                            int64_t hi);
/// Reads a floating-point option that must lie in [lo, hi].
llvm::Expected<double> getDoubleOptionInRange(const StrategyOptions &options,
                                              llvm::StringRef name, double lo,
                                              double hi);

/// Reads the XGBoost options both learned strategies document (num_rounds,
/// early_stopping, max_depth, eta, threads) into `model` and sets its seed.
llvm::Error readXGBoostOptions(const StrategyOptions &options, uint64_t seed,
                               XGBoostOptions &model);

} // namespace mlir::tiletune::learned

#endif // TILETUNE_LIB_SEARCH_COSTMODELSEARCH_H
