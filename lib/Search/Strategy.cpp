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
      {"seed_configs", "",
       "config keys separated by '|' (e.g. the adapted best configs of "
       "similar problems) proposed right after start_config, before the "
       "strategy's own proposals: G-BFS's initial queue, N-A2C's start "
       "states, OpEvo's initial population, part of xgb/automcl's first "
       "training set, the first trials of grid and random (empty: none). "
       "tiletune tune fills it from the database (see --warm-start)"},
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

Expected<StringRef>
mlir::tiletune::getChoiceOption(const StrategyOptions &options, StringRef name,
                                ArrayRef<StringRef> choices) {
  auto text = findOption(options, name);
  if (!text)
    return text.takeError();
  for (StringRef choice : choices)
    if (*text == choice)
      return choice;
  std::string list;
  for (auto [i, choice] : llvm::enumerate(choices))
    list += (i == 0                    ? ""
             : i + 1 == choices.size() ? " or "
                                       : ", ") +
            ("'" + choice + "'").str();
  return createStringError(inconvertibleErrorCode(),
                           "option '" + name + "' must be " + list + ", got '" +
                               *text + "'");
}

void mlir::tiletune::splitSeedConfigs(StringRef text,
                                      SmallVectorImpl<StringRef> &keys) {
  SmallVector<StringRef> parts;
  text.split(parts, '|', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    if (!part.trim().empty())
      keys.push_back(part.trim());
}

std::string mlir::tiletune::joinSeedConfigs(ArrayRef<std::string> keys) {
  std::string text;
  for (const std::string &key : keys)
    text += (text.empty() ? "" : "|") + key;
  return text;
}

Expected<StrategyOptions> mlir::tiletune::parseStrategyOptions(StringRef text) {
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
    : name(name), space(space), options(options), seed(seed), rng(seed) {
  auto it = options.find("max_trials");
  if (it != options.end()) {
    int64_t v = 0;
    if (!StringRef(it->second).trim().getAsInteger(10, v) && v > 0)
      maxTrials = v;
  }
  // Validated by StrategyRegistry::create.
  it = options.find("start_config");
  if (it != options.end() && !StringRef(it->second).trim().empty()) {
    if (llvm::Expected<Config> c = space.parseKey(it->second))
      startConfig = *c;
    else
      consumeError(c.takeError());
  }
  // The configs proposed before proposeImpl: the start config, then the
  // seeds, each once.
  if (startConfig && space.isValid(*startConfig))
    initialConfigs.push_back(*startConfig);
  it = options.find("seed_configs");
  if (it != options.end()) {
    SmallVector<StringRef> keys;
    splitSeedConfigs(it->second, keys);
    for (StringRef key : keys) {
      llvm::Expected<Config> c = space.parseKey(key);
      if (!c) {
        consumeError(c.takeError());
        continue;
      }
      if (!space.isValid(*c))
        continue;
      seedConfigs.push_back(*c);
      if (!llvm::is_contained(initialConfigs, *c))
        initialConfigs.push_back(*c);
    }
  }
}

Strategy::~Strategy() = default;

SmallVector<Trial> Strategy::propose(unsigned maxCount) {
  SmallVector<Trial> trials;
  if (maxTrials)
    maxCount = unsigned(
        std::min<uint64_t>(maxCount, maxTrials - std::min(maxTrials, nextId)));
  if (maxCount == 0 || exhausted)
    return trials;
  SmallVector<Config> configs;
  if (nextId < initialConfigs.size()) {
    // The start config and the seeds come first, in batches of their own
    // (the strategy sees their results before it proposes anything).
    for (size_t i = nextId; i < initialConfigs.size() && configs.size() < maxCount;
         ++i)
      configs.push_back(initialConfigs[i]);
  } else {
    proposeImpl(maxCount, configs);
  }
  for (Config &c : configs) {
    if (trials.size() == maxCount || proposed.count(c) || !space.isValid(c)) {
      ++numDropped;
      continue;
    }
    proposed.insert(c);
    pending.emplace(nextId, c);
    trials.push_back({nextId, std::move(c)});
    ++nextId;
  }
  return trials;
}

Error Strategy::observe(ArrayRef<TrialResult> results) {
  // Validate everything before changing any state.
  std::set<uint64_t> ids;
  for (const TrialResult &r : results) {
    auto it = pending.find(r.id);
    if (it == pending.end() || !ids.insert(r.id).second)
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + name + "': trial " + Twine(r.id) +
                                   " is not pending (unknown or already "
                                   "observed)");
    if (it->second != r.cfg)
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + name + "': trial " + Twine(r.id) +
                                   " reports a different config than the "
                                   "one proposed");
    if (r.isOk() && !std::isfinite(r.cost))
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + name + "': trial " + Twine(r.id) +
                                   " is ok but its cost is not "
                                   "finite");
  }
  for (const TrialResult &r : results) {
    pending.erase(r.id);
    history.push_back(r);
    if (r.isOk() && (!bestIndex || r.cost < history[*bestIndex].cost))
      bestIndex = history.size() - 1;
  }
  observeImpl(results);
  return Error::success();
}

std::optional<TrialResult> Strategy::getBest() const {
  if (!bestIndex)
    return std::nullopt;
  return history[*bestIndex];
}

bool Strategy::isDone() const {
  return exhausted || (maxTrials && nextId >= maxTrials);
}

json::Value Strategy::saveState() const {
  json::Object opts;
  for (const auto &[k, v] : options)
    opts[k] = v;
  std::ostringstream rngText;
  rngText << rng;
  json::Array pendingJson;
  for (const auto &[id, cfg] : pending)
    pendingJson.push_back(
        json::Object{{"id", int64_t(id)}, {"config", space.getKey(cfg)}});
  json::Array historyJson;
  for (const TrialResult &r : history) {
    json::Object o{{"id", int64_t(r.id)},
                   {"config", space.getKey(r.cfg)},
                   {"status", stringifyMeasureStatus(r.status)}};
    if (r.isOk())
      o["cost"] = r.cost;
    if (!r.message.empty())
      o["message"] = r.message;
    historyJson.push_back(std::move(o));
  }
  return json::Object{
      {"format", kStateFormat},
      {"strategy", name},
      {"seed", std::to_string(seed)},
      {"options", std::move(opts)},
      {"space", space.getName()},
      {"rng", rngText.str()},
      {"next_id", int64_t(nextId)},
      {"dropped", int64_t(numDropped)},
      {"exhausted", exhausted},
      {"pending", std::move(pendingJson)},
      {"history", std::move(historyJson)},
      {"state", saveImpl()},
  };
}

static Error stateError(const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot load strategy state: " + why);
}

Error Strategy::loadState(const json::Value &state) {
  if (nextId != 0 || !history.empty())
    return stateError("the strategy has already been used");
  const json::Object *obj = state.getAsObject();
  if (!obj)
    return stateError("not a JSON object");
  if (obj->getString("format") != std::optional<StringRef>(kStateFormat))
    return stateError("unknown format");
  if (obj->getString("strategy") != std::optional<StringRef>(name))
    return stateError("saved by another strategy");
  if (obj->getString("seed") != std::optional<StringRef>(std::to_string(seed)))
    return stateError("saved with another seed");
  const json::Object *opts = obj->getObject("options");
  if (!opts || opts->size() != options.size())
    return stateError("saved with other options");
  for (const auto &[k, v] : options)
    if (opts->getString(k) != std::optional<StringRef>(v))
      return stateError("saved with another value of option '" + k + "'");
  auto rngText = obj->getString("rng");
  auto savedNextId = obj->getInteger("next_id");
  auto savedDropped = obj->getInteger("dropped");
  auto savedExhausted = obj->getBoolean("exhausted");
  const json::Array *pendingJson = obj->getArray("pending");
  const json::Array *historyJson = obj->getArray("history");
  const json::Object *sub = obj->getObject("state");
  if (!rngText || !savedNextId || !savedDropped || !savedExhausted ||
      !pendingJson || !historyJson || !sub)
    return stateError("missing fields");

  std::mt19937_64 savedRng;
  std::istringstream rngIn(rngText->str());
  rngIn >> savedRng;
  if (rngIn.fail())
    return stateError("malformed random engine state");

  std::map<uint64_t, Config> newPending;
  ConfigSet newProposed;
  for (const json::Value &v : *pendingJson) {
    const json::Object *p = v.getAsObject();
    auto id = p ? p->getInteger("id") : std::nullopt;
    auto key = p ? p->getString("config") : std::nullopt;
    if (!id || !key)
      return stateError("malformed pending trial");
    auto cfg = space.parseKey(*key);
    if (!cfg)
      return stateError(toString(cfg.takeError()));
    newProposed.insert(*cfg);
    newPending.emplace(*id, std::move(*cfg));
  }
  SmallVector<TrialResult> newHistory;
  for (const json::Value &v : *historyJson) {
    const json::Object *h = v.getAsObject();
    auto id = h ? h->getInteger("id") : std::nullopt;
    auto key = h ? h->getString("config") : std::nullopt;
    auto status = h ? h->getString("status") : std::nullopt;
    if (!id || !key || !status)
      return stateError("malformed history entry");
    TrialResult r;
    r.id = *id;
    auto st = parseMeasureStatus(*status);
    if (!st)
      return stateError("unknown trial status '" + *status + "'");
    r.status = *st;
    if (r.isOk()) {
      auto cost = h->getNumber("cost");
      if (!cost)
        return stateError("ok history entry without cost");
      r.cost = *cost;
    }
    if (auto msg = h->getString("message"))
      r.message = msg->str();
    auto cfg = space.parseKey(*key);
    if (!cfg)
      return stateError(toString(cfg.takeError()));
    r.cfg = std::move(*cfg);
    newProposed.insert(r.cfg);
    newHistory.push_back(std::move(r));
  }

  rng = savedRng;
  nextId = *savedNextId;
  numDropped = *savedDropped;
  exhausted = *savedExhausted;
  pending = std::move(newPending);
  proposed = std::move(newProposed);
  history = std::move(newHistory);
  bestIndex.reset();
  for (size_t i = 0; i < history.size(); ++i)
    if (history[i].isOk() &&
        (!bestIndex || history[i].cost < history[*bestIndex].cost))
      bestIndex = i;
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
  if (infos.count(info.name))
    return createStringError(inconvertibleErrorCode(),
                             "strategy '" + info.name +
                                 "' is already registered");
  for (const auto &entry : info.paperOptions) {
    const std::string &key = entry.first;
    if (llvm::none_of(info.options,
                      [&](const OptionInfo &o) { return o.name == key; }))
      return createStringError(inconvertibleErrorCode(),
                               "strategy '" + info.name +
                                   "': paper option '" + key +
                                   "' is not one of its options");
  }
  std::string name = info.name;
  infos.emplace(std::move(name), std::move(info));
  return Error::success();
}

const StrategyInfo *StrategyRegistry::lookup(StringRef name) const {
  auto it = infos.find(name.str());
  return it == infos.end() ? nullptr : &it->second;
}

SmallVector<const StrategyInfo *> StrategyRegistry::getAll() const {
  SmallVector<const StrategyInfo *> all;
  for (const auto &[name, info] : infos)
    all.push_back(&info);
  return all;
}

Expected<std::unique_ptr<Strategy>>
StrategyRegistry::create(StringRef name, const Space &space,
                         const StrategyOptions &options, uint64_t seed) const {
  const StrategyInfo *info = lookup(name);
  if (!info) {
    std::string known;
    for (const auto &[n, i] : infos)
      known += (known.empty() ? "" : ", ") + n;
    return createStringError(inconvertibleErrorCode(),
                             "unknown search strategy '" + name +
                                 "' (known: " + known + ")");
  }
  StrategyOptions resolved;
  for (const OptionInfo &o : getCommonOptions())
    resolved[o.name] = o.defaultValue;
  for (const OptionInfo &o : info->options)
    resolved[o.name] = o.defaultValue;
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
  if (StringRef start = StringRef(resolved["start_config"]).trim();
      !start.empty()) {
    Expected<Config> c = space.parseKey(start);
    if (!c)
      return createStringError(inconvertibleErrorCode(),
                               "option 'start_config': " +
                                   toString(c.takeError()));
    std::string reason;
    if (!space.isValid(*c, &reason))
      return createStringError(
          inconvertibleErrorCode(),
          "option 'start_config': the config is not valid in "
          "the space: " +
              reason);
  }
  SmallVector<StringRef> seedKeys;
  splitSeedConfigs(resolved["seed_configs"], seedKeys);
  for (StringRef key : seedKeys) {
    Expected<Config> c = space.parseKey(key);
    if (!c)
      return createStringError(inconvertibleErrorCode(),
                               "option 'seed_configs': '" + key +
                                   "': " + toString(c.takeError()));
    std::string reason;
    if (!space.isValid(*c, &reason))
      return createStringError(inconvertibleErrorCode(),
                               "option 'seed_configs': the config '" + key +
                                   "' is not valid in the space: " + reason);
  }
  if (*maxTrials < 0)
    return createStringError(inconvertibleErrorCode(),
                             "option 'max_trials' must be >= 0");
  if (space.getNumParameters() == 0)
    return createStringError(inconvertibleErrorCode(),
                             "cannot search an empty space");
  return info->create(space, resolved, seed);
}

static constexpr StringLiteral kProtocols[] = {"default", "paper"};

ArrayRef<StringLiteral> mlir::tiletune::getProtocols() { return kProtocols; }

Error mlir::tiletune::applyProtocol(StringRef algorithm, StringRef protocol,
                                    StrategyOptions &options) {
  if (!llvm::is_contained(kProtocols, protocol))
    return createStringError(inconvertibleErrorCode(),
                             "unknown protocol '" + protocol +
                                 "' (known: default, paper)");
  const StrategyInfo *info = StrategyRegistry::get().lookup(algorithm);
  if (!info)
    return createStringError(inconvertibleErrorCode(),
                             "unknown search strategy '" + algorithm + "'");
  if (protocol == "paper")
    for (const auto &[key, value] : info->paperOptions)
      options.emplace(key, value); // keeps an explicit value
  return Error::success();
}

Expected<std::unique_ptr<Strategy>>
mlir::tiletune::createStrategy(StringRef name, const Space &space,
                               const StrategyOptions &options, uint64_t seed) {
  return StrategyRegistry::get().create(name, space, options, seed);
}
