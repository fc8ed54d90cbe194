//===- WarmStart.h - Seeding a search from similar problems -----*- C++ -*-===//
//
// Warm start from what the database learned: a problem tuned for the first
// time starts from the best configs of similar problems (same op kind,
// element type, strides and dilations, results on the same target and
// thread count, nearby loop sizes), each adapted to the new problem's space
// (tile sizes rounded to the nearest legal factorization, the space's
// constraints verified). tuneModule() passes them to the strategy as its
// "seed_configs". See docs/Tuning.md ("Warm start from the database").
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_WARMSTART_H
#define TILETUNE_DRIVER_WARMSTART_H

#include "tiletune/Database/Database.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir::tiletune {

/// How far to look for similar problems.
struct WarmStartOptions {
  /// Seeds from at most this many similar problems (nearest first).
  unsigned maxProblems = 4;
  /// Problems farther than this (problemDistance) are not similar.
  double maxDistance = 2.0;
};

/// The distance between two problems: the Euclidean distance of their loop
/// sizes on a log2 scale (a loop twice as large adds 1). std::nullopt when
/// the problems are not comparable: another op kind, element type, target
/// kind ("cpu"/"cuda"), loops, strides or dilations.
std::optional<double> problemDistance(const Problem &a, const Problem &b);

/// Adapts a config of another problem (the JSON object the database stores,
/// Space::toJSON) to `space`. Per parameter: a factorization gets the legal
/// value whose tile sizes (the products of its inner factors) are nearest on
/// a log scale; a permutation, discrete or categorical parameter keeps its
/// value (discrete: the nearest legal one) when the space has it; a
/// parameter the old config lacks, or cannot keep, takes its value in
/// `base` (the problem's default config). When the result violates a
/// constraint, the nearest valid config by neighbour steps (breadth-first,
/// bounded) is taken. std::nullopt when none was found.
std::optional<Config> adaptConfig(const llvm::json::Value &config,
                                  const Space &space, const Config &base);

/// One seed of a warm start.
struct WarmStartSeed {
  /// The similar problem and its distance (problemDistance).
  std::string problemKey;
  double distance = 0;
  /// Its best config there, as recorded, and that result's speed.
  std::string sourceConfigKey;
  double sourceGflops = 0;
  /// The adapted config, valid in the space.
  Config config;
  std::string configKey;
};

/// The seeds of `problem` (tuned on `target` over `space`): the best config
/// on exactly `target` of each of the nearest similar problems of `db` (the
/// problem itself excluded), adapted by adaptConfig, nearest first, without
/// repeats and without `base` itself (measured anyway).
llvm::Expected<llvm::SmallVector<WarmStartSeed>>
findWarmStartSeeds(TileTuneDatabase &db, const Problem &problem,
                   const TargetInfo &target, const Space &space,
                   const Config &base, const WarmStartOptions &options = {});

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_WARMSTART_H
