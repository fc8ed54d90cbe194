//===- Strategy.h - Ask/tell interface of search strategies -----*- C++ -*-===//
//
// One interface for every search strategy (grid, random, G-BFS, OpEvo,
// N-A2C, XGBoost+SA, AutoMCL): propose a batch of never-proposed configs,
// observe typed results, best so far, and a JSON state for exact resume.
// Strategies never measure; a driver owns measurement. Also the registry of
// strategies by name with documented options.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_STRATEGY_H
#define TILETUNE_SEARCH_STRATEGY_H

#include "tiletune/Measure/MeasureResult.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/Deadline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>

namespace mlir::tiletune {

/// Outcome of measuring one config: the measurer's status
/// (Measure/MeasureResult.h). Everything but Ok has no cost and is treated as
/// the worst possible result (zero fitness).
using TrialStatus = MeasureStatus;

/// A proposed config, identified by a per-strategy sequence number.
struct Trial {
  /// 0, 1, 2, ... in proposal order.
  uint64_t id = 0;
  /// The config to measure.
  Config cfg;
};

/// The measured outcome of a trial.
struct TrialResult {
  /// Id of the trial this result answers.
  uint64_t id = 0;
  /// The measured config (must equal the proposed one).
  Config cfg;
  /// Outcome type.
  TrialStatus status = TrialStatus::Ok;
  /// Cost to minimise (e.g. seconds); meaningful only when status is Ok.
  double cost = 0.0;
  /// Optional diagnostic (error text of a failure).
  std::string message;

  /// Whether the trial was measured successfully.
  bool isOk() const { return status == TrialStatus::Ok; }
};

/// Option values by name, as text (e.g. {"rho", "5"}). Ordered so that
/// serialisation is deterministic.
using StrategyOptions = std::map<std::string, std::string>;

/// One documented option of a strategy.
struct OptionInfo {
  /// Option name.
  std::string name;
  /// Default value as text.
  std::string defaultValue;
  /// One-line description (what it means, where the default comes from).
  std::string help;
};

/// Options every strategy accepts (handled by the Strategy base class):
/// "max_trials" (0 = unlimited): propose() never hands out more trials;
/// "start_config" (a config key) and "seed_configs" (config keys separated
/// by '|'): proposed first, in that order, before the strategy's own
/// proposals (see Strategy::propose).
llvm::ArrayRef<OptionInfo> getCommonOptions();

/// Splits the text of option "seed_configs" into config keys.
void splitSeedConfigs(llvm::StringRef text,
                      llvm::SmallVectorImpl<llvm::StringRef> &keys);
/// The text of option "seed_configs" for `keys`.
std::string joinSeedConfigs(llvm::ArrayRef<std::string> keys);

/// Typed readers of resolved option text; errors name the option.
llvm::Expected<int64_t> getIntOption(const StrategyOptions &options,
                                     llvm::StringRef name);
/// Reads a floating-point option.
llvm::Expected<double> getDoubleOption(const StrategyOptions &options,
                                       llvm::StringRef name);
/// Reads a boolean option ("true"/"false"/"1"/"0").
llvm::Expected<bool> getBoolOption(const StrategyOptions &options,
                                   llvm::StringRef name);
/// Reads an option that takes one of `choices` (returned as that element);
/// the error lists them: "option 'loss' must be 'rank' or 'reg', got 'l1'".
llvm::Expected<llvm::StringRef>
getChoiceOption(const StrategyOptions &options, llvm::StringRef name,
                llvm::ArrayRef<llvm::StringRef> choices);

/// Base class of all search strategies (ask/tell). The base class owns the
/// bookkeeping every strategy shares: trial ids, the set of proposed configs
/// (so nothing is proposed twice), pending trials, the history of results,
/// the best result, the budget and the random engine. Subclasses implement
/// proposeImpl/observeImpl and (de)serialise their own extra state.
///
/// Determinism: given the same space, options, seed, and the same sequence
/// of propose/observe calls, a strategy produces the same proposals; after
/// saveState() -> loadState() on a fresh instance it continues exactly as
/// the original would have.
class Strategy {
public:
  virtual ~Strategy();

  /// Registered name of the strategy.
  llvm::StringRef getName() const { return name; }
  /// The space searched.
  const Space &getSpace() const { return space; }
  /// Resolved options (defaults filled in).
  const StrategyOptions &getOptions() const { return options; }
  /// Seed of the random engine.
  uint64_t getSeed() const { return seed; }

  /// Proposes up to `maxCount` configs that were never proposed before and
  /// satisfy the space's constraints. The first proposals are the start
  /// config and the seed configs (options "start_config", "seed_configs"),
  /// in batches of their own; then the strategy's. May return fewer (also
  /// none) when the
  /// strategy waits for pending results (e.g. G-BFS needs the costs of its
  /// queue), when the budget is spent, or when the space is exhausted. If it
  /// returns none while nothing is pending, the search is over (isDone()).
  llvm::SmallVector<Trial> propose(unsigned maxCount);

  /// Reports results of pending trials (any order, any subset). Errors on an
  /// unknown or already observed id or a config that does not match.
  llvm::Error observe(llvm::ArrayRef<TrialResult> results);

  /// Best (lowest cost) successful result so far; ties keep the earliest.
  std::optional<TrialResult> getBest() const;
  /// All observed results in observation order.
  llvm::ArrayRef<TrialResult> getHistory() const { return history; }
  /// Number of trials proposed so far.
  uint64_t getNumProposed() const { return nextId; }
  /// Number of proposed trials without a result yet.
  size_t getNumPending() const { return pending.size(); }
  /// Whether a config was already proposed.
  bool wasProposed(const Config &config) const {
    return proposed.count(config) != 0;
  }
  /// The budget ("max_trials"), 0 if unlimited.
  uint64_t getMaxTrials() const { return maxTrials; }
  /// True when no more proposals will come: the budget is spent or the
  /// strategy has exhausted its space (and nothing is pending).
  bool isDone() const;

  /// The deadline of the strategy's work (none by default). Slow work in
  /// propose() and observe() (a cost model's fit, simulated annealing,
  /// N-A2C's training) polls it and, once it has passed, stops early with
  /// what it has: fewer boosting rounds, the best configs annealing has
  /// found so far, fewer training steps. Work cut short leaves a state that
  /// differs from the one without a deadline, so proposals made after the
  /// deadline are not those a run without it would make: the tuning loop
  /// sets the end of its time budget here and measures nothing the strategy
  /// proposes after it (see docs/Tuning.md, "The time budget"). Not part of
  /// the saved state.
  void setDeadline(Deadline deadline) { this->deadline = deadline; }
  /// The deadline set by setDeadline().
  const Deadline &getDeadline() const { return deadline; }
  /// Whether the deadline has passed.
  bool deadlinePassed() const { return deadline.passed(); }

  /// Serialises the full state (options, seed, random engine, proposals,
  /// pending trials, history and the subclass's state) as JSON.
  llvm::json::Value saveState() const;
  /// Restores a state saved by saveState() into a freshly created strategy
  /// of the same name, space, options and seed. Errors on any mismatch.
  llvm::Error loadState(const llvm::json::Value &state);

protected:
  /// `options` must be resolved (all documented options present).
  Strategy(llvm::StringRef name, const Space &space,
           const StrategyOptions &options, uint64_t seed);

  /// Appends up to `maxCount` configs that were never proposed
  /// (wasProposed() is false) and are valid in the space. The base class
  /// drops anything else (and counts it in getNumDropped()).
  virtual void proposeImpl(unsigned maxCount,
                           llvm::SmallVectorImpl<Config> &out) = 0;
  /// Called after the base class recorded `results` in the history.
  virtual void observeImpl(llvm::ArrayRef<TrialResult> results) {}
  /// The subclass's state beyond the base class's (default: none).
  virtual llvm::json::Object saveImpl() const { return {}; }
  /// Restores saveImpl()'s object; the base state is already loaded.
  virtual llvm::Error loadImpl(const llvm::json::Object &state) {
    return llvm::Error::success();
  }

  /// The config of option "start_config", if given (validated at creation).
  /// The base class proposes it first (alone when there are no seeds), so
  /// a strategy meets it, measured, in its history: G-BFS's s0, OpEvo's
  /// population, the cost models' training data.
  const std::optional<Config> &getStartConfig() const { return startConfig; }
  /// The configs of option "seed_configs" (validated at creation), proposed
  /// by the base class right after the start config.
  llvm::ArrayRef<Config> getSeedConfigs() const { return seedConfigs; }

  /// The strategy's random engine (seeded with getSeed()).
  std::mt19937_64 &getRng() { return rng; }
  /// Marks the space as exhausted for this strategy (no more proposals).
  void setExhausted() { exhausted = true; }
  /// Whether setExhausted() was called.
  bool isExhausted() const { return exhausted; }

public:
  /// Number of configs proposeImpl produced that the base class dropped
  /// (duplicates or invalid); a correct strategy keeps this at zero.
  uint64_t getNumDropped() const { return numDropped; }

private:
  std::string name;
  Space space;
  StrategyOptions options;
  uint64_t seed;
  uint64_t maxTrials = 0;
  std::optional<Config> startConfig;
  llvm::SmallVector<Config> seedConfigs;
  /// startConfig and seedConfigs without repeats: trial ids
  /// 0..initialConfigs.size()-1.
  llvm::SmallVector<Config> initialConfigs;
  std::mt19937_64 rng;
  uint64_t nextId = 0;
  uint64_t numDropped = 0;
  bool exhausted = false;
  Deadline deadline;
  ConfigSet proposed;
  /// Pending trials by id (ordered for deterministic serialisation).
  std::map<uint64_t, Config> pending;
  llvm::SmallVector<TrialResult> history;
  std::optional<size_t> bestIndex;
};

/// Factory signature: builds a strategy from resolved options.
using StrategyFactory = std::function<llvm::Expected<std::unique_ptr<Strategy>>(
    const Space &space, const StrategyOptions &options, uint64_t seed)>;

/// A registered strategy: its name, summary, documented options and factory.
struct StrategyInfo {
  /// Registry name, e.g. "gbfs".
  std::string name;
  /// One-line description with the paper it comes from.
  std::string summary;
  /// Documented options (the common options are added implicitly).
  llvm::SmallVector<OptionInfo> options;
  /// Protocol "paper": the option values under which the strategy runs as
  /// its paper's experiments did. Only options whose default differs from
  /// (or is not stated to be) the paper's value are listed; all must be
  /// documented options.
  StrategyOptions paperOptions;
  /// Builds an instance.
  StrategyFactory create;
};

/// The experiment protocols: "default" (our defaults) and "paper" (each
/// algorithm's options as its paper's experiments; the driver then also
/// starts from the paper's start state instead of a warm start).
llvm::ArrayRef<llvm::StringLiteral> getProtocols();

/// Adds the options of `protocol` for `algorithm` that `options` does not
/// set (explicit options win): nothing for "default",
/// StrategyInfo::paperOptions for "paper". Errors name an unknown protocol
/// (listing the known ones) or algorithm.
llvm::Error applyProtocol(llvm::StringRef algorithm, llvm::StringRef protocol,
                          StrategyOptions &options);

/// Registry of strategies by name. The built-in strategies are registered
/// on first use (see lib/Search/Strategies.def); users may add their own.
class StrategyRegistry {
public:
  /// The process-wide registry.
  static StrategyRegistry &get();

  /// Registers a strategy; errors if the name is taken.
  llvm::Error add(StrategyInfo info);
  /// The strategy called `name`, or null.
  const StrategyInfo *lookup(llvm::StringRef name) const;
  /// All registered strategies, sorted by name.
  llvm::SmallVector<const StrategyInfo *> getAll() const;

  /// Validates `options` against the documented ones (unknown names are an
  /// error), fills in defaults and builds the strategy.
  llvm::Expected<std::unique_ptr<Strategy>>
  create(llvm::StringRef name, const Space &space,
         const StrategyOptions &options, uint64_t seed) const;

private:
  StrategyRegistry();
  std::map<std::string, StrategyInfo> infos;
};

/// Shorthand for StrategyRegistry::get().create(...).
llvm::Expected<std::unique_ptr<Strategy>>
createStrategy(llvm::StringRef name, const Space &space,
               const StrategyOptions &options = {}, uint64_t seed = 0);

/// Parses "a=1,b=2" into options (for command lines).
llvm::Expected<StrategyOptions> parseStrategyOptions(llvm::StringRef text);

} // namespace mlir::tiletune

#endif // TILETUNE_SEARCH_STRATEGY_H
