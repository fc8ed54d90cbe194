//===- Strategy.cpp - Ask/tell base class and strategy registry ----------===//
//
// Shared bookkeeping of all strategies (ids, proposed set, pending trials,
// history, best, budget, random engine), JSON state for exact resume, option
// parsing and the registry of strategies by name.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/Strategy.h"

#include "StrategyRegistration.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <set>
#include <sstream>

using namespace llvm;
using namespace mlir::tiletune;

static constexpr StringLiteral kStateFormat = "tiletune-strategy-state/1";

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

ArrayRef<OptionInfo> mlir::tiletune::getCommonOptions() {
  static const OptionInfo common[] = {
      {"max_trials", "0",
       "budget: propose() never hands out more trials in total (0 = "
       "unlimited)"},
      {"start_config", "",
       "config key to start from instead of the paper's start state (empty: "
       "the paper's); G-BFS and N-A2C use it as s0, the others propose it "
       "first. tiletune tune passes the default config (see --paper-start)"},
  };
  return common;
}

static Error optionError(StringRef name, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "option '" + name + "': " + why);
}

static Expected<StringRef> findOption(const StrategyOptions &options,
                                      StringRef name) {
  auto it = options.find(name.str());
  if (it == options.end())
    return optionError(name, "missing");
  return StringRef(it->second);
}

Expected<int64_t> mlir::tiletune::getIntOption(const StrategyOptions &options,
                                               StringRef name) {
  auto text = findOption(options, name);
  if (!text)
    return text.takeError();
  int64_t v;
  if (text->trim().getAsInteger(10, v))
    return optionError(name, "'" + *text + "' is not an integer");
  return v;
}

Expected<double> mlir::tiletune::getDoubleOption(const StrategyOptions &options,
                                                 StringRef name) {
  auto text = findOption(options, name);
  if (!text)
    return text.takeError();
  double v;
  if (text->trim().getAsDouble(v) || !std::isfinite(v))
    return optionError(name, "'" + *text + "' is not a finite number");
  return v;
}

Expected<bool> mlir::tiletune::getBoolOption(const StrategyOptions &options,
                                             StringRef name) {
  auto text = findOption(options, name);
  if (!text)
    return text.takeError();
  StringRef t = text->trim();
  if (t == "true" || t == "1")
    return true;
  if (t == "false" || t == "0")
    return false;
  return optionError(name, "'" + *text + "' is not a boolean");
}

Expected<StrategyOptions>
mlir::tiletune::parseStrategyOptions(StringRef text) {
  StrategyOptions options;
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    auto [name, value] = part.split('=');
    name = name.trim();
    if (name.empty() || !part.contains('='))
      return createStringError(inconvertibleErrorCode(),
                               "malformed option '" + part +
                                   "' (expected name=value)");
    if (!options.emplace(name.str(), value.trim().str()).second)
      return createStringError(inconvertibleErrorCode(),
                               "option '" + name + "' given twice");
  }
  return options;
}

//===----------------------------------------------------------------------===//
// Strategy
//===----------------------------------------------------------------------===//

Strategy::Strategy(StringRef name, const Space &space,
                   const StrategyOptions &options, uint64_t seed)
    : Name(name), TheSpace(space), Options(options), Seed(seed), Rng(seed) {
  auto it = Options.find("max_trials");
  if (it != Options.end()) {
    int64_t v = 0;
    if (!StringRef(it->second).trim().getAsInteger(10, v) && v > 0)
      MaxTrials = v;
  }
  // Validated by StrategyRegistry::create.
  it = Options.find("start_config");
  if (it != Options.end() && !StringRef(it->second).trim().empty()) {
    if (llvm::Expected<Config> c = TheSpace.parseKey(it->second))
      StartConfig = *c;
    else
      consumeError(c.takeError());
  }
}

Strategy::~Strategy() = default;

SmallVector<Trial> Strategy::propose(unsigned maxCount) {
  SmallVector<Trial> trials;
  if (MaxTrials)
    maxCount = unsigned(std::min<uint64_t>(maxCount, MaxTrials - std::min(MaxTrials, NextId)));
  if (maxCount == 0 || Exhausted)
    return trials;
  SmallVector<Config> configs;
  if (StartConfig && NextId == 0 && !handlesStartConfig())
    configs.push_back(*StartConfig); // alone: the first batch is the start
  else
    proposeImpl(maxCount, configs);
  for (Config &c : configs) {
    if (trials.size() == maxCount || Proposed.count(c) ||
        !TheSpace.isValid(c)) {
      ++NumDropped;
      continue;
    }
    Proposed.insert(c);
    Pending.emplace(NextId, c);
    trials.push_back({NextId, std::move(c)});
    ++NextId;
  }
  return trials;
}

Error Strategy::observe(ArrayRef<TrialResult> results) {
  // Validate everything before changing any state.
  std::set<uint64_t> ids;
  for (const TrialResult &r : results) {
    auto it = Pending.find(r.Id);
    if (it == Pending.end() || !ids.insert(r.Id).second)
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + Name + "': trial " +
                                   Twine(r.Id) +
                                   " is not pending (unknown or already "
                                   "observed)");
    if (it->second != r.Cfg)
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + Name + "': trial " +
                                   Twine(r.Id) +
                                   " reports a different config than the "
                                   "one proposed");
    if (r.isOk() && !std::isfinite(r.Cost))
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + Name + "': trial " +
                                   Twine(r.Id) + " is ok but its cost is not "
                                                 "finite");
  }
  for (const TrialResult &r : results) {
    Pending.erase(r.Id);
    History.push_back(r);
    if (r.isOk() && (!BestIndex || r.Cost < History[*BestIndex].Cost))
      BestIndex = History.size() - 1;
  }
  observeImpl(results);
  return Error::success();
}

std::optional<TrialResult> Strategy::getBest() const {
  if (!BestIndex)
    return std::nullopt;
  return History[*BestIndex];
}

bool Strategy::isDone() const {
  return Exhausted || (MaxTrials && NextId >= MaxTrials);
}

json::Value Strategy::saveState() const {
  json::Object opts;
  for (const auto &[k, v] : Options)
    opts[k] = v;
  std::ostringstream rngText;
  rngText << Rng;
  json::Array pending;
  for (const auto &[id, cfg] : Pending)
    pending.push_back(json::Object{{"id", int64_t(id)},
                                   {"config", TheSpace.getKey(cfg)}});
  json::Array history;
  for (const TrialResult &r : History) {
    json::Object o{{"id", int64_t(r.Id)},
                   {"config", TheSpace.getKey(r.Cfg)},
                   {"status", stringifyMeasureStatus(r.Status)}};
    if (r.isOk())
      o["cost"] = r.Cost;
    if (!r.Message.empty())
      o["message"] = r.Message;
    history.push_back(std::move(o));
  }
  return json::Object{
      {"format", kStateFormat},
      {"strategy", Name},
      {"seed", std::to_string(Seed)},
      {"options", std::move(opts)},
      {"space", TheSpace.getName()},
      {"rng", rngText.str()},
      {"next_id", int64_t(NextId)},
      {"dropped", int64_t(NumDropped)},
      {"exhausted", Exhausted},
      {"pending", std::move(pending)},
      {"history", std::move(history)},
      {"state", saveImpl()},
  };
}

static Error stateError(const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot load strategy state: " + why);
}

Error Strategy::loadState(const json::Value &state) {
  if (NextId != 0 || !History.empty())
    return stateError("the strategy has already been used");
  const json::Object *obj = state.getAsObject();
  if (!obj)
    return stateError("not a JSON object");
  if (obj->getString("format") != std::optional<StringRef>(kStateFormat))
    return stateError("unknown format");
  if (obj->getString("strategy") != std::optional<StringRef>(Name))
    return stateError("saved by another strategy");
  if (obj->getString("seed") !=
      std::optional<StringRef>(std::to_string(Seed)))
    return stateError("saved with another seed");
  const json::Object *opts = obj->getObject("options");
  if (!opts || opts->size() != Options.size())
    return stateError("saved with other options");
  for (const auto &[k, v] : Options)
    if (opts->getString(k) != std::optional<StringRef>(v))
      return stateError("saved with another value of option '" + k + "'");
  auto rngText = obj->getString("rng");
  auto nextId = obj->getInteger("next_id");
  auto dropped = obj->getInteger("dropped");
  auto exhausted = obj->getBoolean("exhausted");
  const json::Array *pending = obj->getArray("pending");
  const json::Array *history = obj->getArray("history");
  const json::Object *sub = obj->getObject("state");
  if (!rngText || !nextId || !dropped || !exhausted || !pending || !history ||
      !sub)
    return stateError("missing fields");

  std::mt19937_64 rng;
  std::istringstream rngIn(rngText->str());
  rngIn >> rng;
  if (rngIn.fail())
    return stateError("malformed random engine state");

  std::map<uint64_t, Config> newPending;
  ConfigSet newProposed;
  for (const json::Value &v : *pending) {
    const json::Object *p = v.getAsObject();
    auto id = p ? p->getInteger("id") : std::nullopt;
    auto key = p ? p->getString("config") : std::nullopt;
    if (!id || !key)
      return stateError("malformed pending trial");
    auto cfg = TheSpace.parseKey(*key);
    if (!cfg)
      return stateError(toString(cfg.takeError()));
    newProposed.insert(*cfg);
    newPending.emplace(*id, std::move(*cfg));
  }
  SmallVector<TrialResult> newHistory;
  for (const json::Value &v : *history) {
    const json::Object *h = v.getAsObject();
    auto id = h ? h->getInteger("id") : std::nullopt;
    auto key = h ? h->getString("config") : std::nullopt;
    auto status = h ? h->getString("status") : std::nullopt;
    if (!id || !key || !status)
      return stateError("malformed history entry");
    TrialResult r;
    r.Id = *id;
    auto st = parseMeasureStatus(*status);
    if (!st)
      return stateError("unknown trial status '" + *status + "'");
    r.Status = *st;
    if (r.isOk()) {
      auto cost = h->getNumber("cost");
      if (!cost)
        return stateError("ok history entry without cost");
      r.Cost = *cost;
    }
    if (auto msg = h->getString("message"))
      r.Message = msg->str();
    auto cfg = TheSpace.parseKey(*key);
    if (!cfg)
      return stateError(toString(cfg.takeError()));
    r.Cfg = std::move(*cfg);
    newProposed.insert(r.Cfg);
    newHistory.push_back(std::move(r));
  }

  Rng = rng;
  NextId = *nextId;
  NumDropped = *dropped;
  Exhausted = *exhausted;
  Pending = std::move(newPending);
  Proposed = std::move(newProposed);
  History = std::move(newHistory);
  BestIndex.reset();
  for (size_t i = 0; i < History.size(); ++i)
    if (History[i].isOk() &&
        (!BestIndex || History[i].Cost < History[*BestIndex].Cost))
      BestIndex = i;
  return loadImpl(*sub);
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

StrategyRegistry::StrategyRegistry() {
#define TILETUNE_STRATEGY(NAME) register##NAME##Strategy(*this);
#include "Strategies.def"
}

StrategyRegistry &StrategyRegistry::get() {
  static StrategyRegistry registry;
  return registry;
}

Error StrategyRegistry::add(StrategyInfo info) {
  if (Infos.count(info.Name))
    return createStringError(inconvertibleErrorCode(),
                             "strategy '" + info.Name +
                                 "' is already registered");
  std::string name = info.Name;
  Infos.emplace(std::move(name), std::move(info));
  return Error::success();
}

const StrategyInfo *StrategyRegistry::lookup(StringRef name) const {
  auto it = Infos.find(name.str());
  return it == Infos.end() ? nullptr : &it->second;
}

SmallVector<const StrategyInfo *> StrategyRegistry::getAll() const {
  SmallVector<const StrategyInfo *> all;
  for (const auto &[name, info] : Infos)
    all.push_back(&info);
  return all;
}

Expected<std::unique_ptr<Strategy>>
StrategyRegistry::create(StringRef name, const Space &space,
                         const StrategyOptions &options, uint64_t seed) const {
  const StrategyInfo *info = lookup(name);
  if (!info) {
    std::string known;
    for (const auto &[n, i] : Infos)
      known += (known.empty() ? "" : ", ") + n;
    return createStringError(inconvertibleErrorCode(),
                             "unknown search strategy '" + name +
                                 "' (known: " + known + ")");
  }
  StrategyOptions resolved;
  for (const OptionInfo &o : getCommonOptions())
    resolved[o.Name] = o.Default;
  for (const OptionInfo &o : info->Options)
    resolved[o.Name] = o.Default;
  for (const auto &[k, v] : options) {
    if (!resolved.count(k)) {
      std::string known;
      for (const auto &[n, d] : resolved)
        known += (known.empty() ? "" : ", ") + n;
      return createStringError(inconvertibleErrorCode(),
                               "unknown option '" + k + "' for strategy '" +
                                   name + "' (known: " + known + ")");
    }
    resolved[k] = v;
  }
  auto maxTrials = getIntOption(resolved, "max_trials");
  if (!maxTrials)
    return maxTrials.takeError();
  if (StringRef start = StringRef(resolved["start_config"]).trim(); !start.empty()) {
    Expected<Config> c = space.parseKey(start);
    if (!c)
      return createStringError(inconvertibleErrorCode(),
                               "option 'start_config': " + toString(c.takeError()));
    std::string reason;
    if (!space.isValid(*c, &reason))
      return createStringError(inconvertibleErrorCode(),
                               "option 'start_config': the config is not valid in "
                               "the space: " + reason);
  }
  if (*maxTrials < 0)
    return createStringError(inconvertibleErrorCode(),
                             "option 'max_trials' must be >= 0");
  if (space.getNumParameters() == 0)
    return createStringError(inconvertibleErrorCode(),
                             "cannot search an empty space");
  return info->Create(space, resolved, seed);
}

Expected<std::unique_ptr<Strategy>>
mlir::tiletune::createStrategy(StringRef name, const Space &space,
                               const StrategyOptions &options, uint64_t seed) {
  return StrategyRegistry::get().create(name, space, options, seed);
}
