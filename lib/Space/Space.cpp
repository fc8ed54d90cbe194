//===- Space.cpp - Products of typed parameters with constraints ---------===//
//
// Mixed-radix enumeration, sampling, product-topology neighbours, validity
// with named constraints, canonical keys and feature encoding of spaces.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/Space.h"
#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <cassert>
#include <limits>

using namespace llvm;
using namespace mlir::tiletune;

unsigned Space::addParameter(std::shared_ptr<const Parameter> param) {
  assert(param && !lookup(param->getName()) && "duplicate parameter name");
  params.push_back(std::move(param));
  offsets.push_back(width);
  width += params.back()->getWidth();
  return params.size() - 1;
}

void Space::addConstraint(Constraint constraint) {
  constraints.push_back(std::move(constraint));
}

void Space::setProblem(const ProblemSpec &spec) {
  problem = std::make_shared<const ProblemSpec>(spec);
}

Space Space::withConstraint(Constraint constraint) const {
  Space copy = *this;
  copy.addConstraint(std::move(constraint));
  return copy;
}

Expected<Space> Space::withPinned(StringRef assignments) const {
  Space copy = *this;
  SmallVector<StringRef> items;
  assignments.split(items, ';', -1, /*KeepEmpty=*/false);
  std::string canonical;
  for (StringRef item : items) {
    item = item.trim();
    if (item.empty())
      continue;
    auto [paramName, pattern] = item.split('=');
    paramName = paramName.trim();
    pattern = pattern.trim();
    std::optional<unsigned> idx = lookup(paramName);
    if (!idx) {
      std::string known;
      for (const auto &p : params)
        known += (known.empty() ? "" : ", ") + p->getName().str();
      return createStringError(inconvertibleErrorCode(),
                               "cannot fix unknown parameter '" + paramName +
                                   "' of " + name + " (parameters: " + known +
                                   ")");
    }
    if (pattern.empty())
      return createStringError(inconvertibleErrorCode(),
                               "no value to fix parameter '" + paramName +
                                   "' to");
    Expected<std::shared_ptr<const Parameter>> pinned =
        copy.params[*idx]->pin(pattern);
    if (!pinned)
      return pinned.takeError();
    copy.params[*idx] = std::move(*pinned);
    canonical +=
        (canonical.empty() ? "" : ";") + paramName.str() + "=" + pattern.str();
  }
  if (!canonical.empty())
    copy.name = name + " fixed{" + canonical + "}";
  return copy;
}

std::optional<unsigned> Space::lookup(StringRef paramName) const {
  for (unsigned i = 0; i < params.size(); ++i)
    if (params[i]->getName() == paramName)
      return i;
  return std::nullopt;
}

ArrayRef<int64_t> Space::getValue(const Config &config,
                                  StringRef paramName) const {
  auto i = lookup(paramName);
  assert(i && "unknown parameter");
  return getValue(config, *i);
}

Config Space::withValue(const Config &config, unsigned i,
                        ArrayRef<int64_t> value) const {
  Config copy = config;
  assert(value.size() == params[i]->getWidth());
  llvm::copy(value, copy.getSlots().begin() + offsets[i]);
  return copy;
}

uint64_t Space::countProduct() const {
  uint64_t c = 1;
  for (const auto &p : params)
    c = saturatingMul(c, p->count());
  return c;
}

Expected<uint64_t> Space::countValid(uint64_t limit) const {
  uint64_t total = countProduct();
  if (!isConstrained())
    return total;
  if (total > limit)
    return createStringError(inconvertibleErrorCode(),
                             "space '" + name + "' has " + Twine(total) +
                                 " points, more than the enumeration limit " +
                                 Twine(limit));
  // Odometer over per-parameter value tables.
  SmallVector<SmallVector<ParamValue>> tables(params.size());
  for (unsigned i = 0; i < params.size(); ++i)
    for (uint64_t r = 0, e = params[i]->count(); r < e; ++r) {
      ParamValue v(params[i]->getWidth());
      params[i]->unrank(r, v);
      tables[i].push_back(std::move(v));
    }
  SmallVector<uint64_t> digits(params.size(), 0);
  Config cfg(SmallVector<int64_t>(width, 0));
  for (unsigned i = 0; i < params.size(); ++i)
    llvm::copy(tables[i][0], cfg.getSlots().begin() + offsets[i]);
  uint64_t valid = 0;
  for (uint64_t n = 0; n < total; ++n) {
    bool ok = true;
    for (const Constraint &c : constraints)
      if (c.check(*this, cfg)) {
        ok = false;
        break;
      }
    valid += ok;
    // Increment (last parameter least significant).
    for (unsigned i = params.size(); i-- > 0;) {
      if (++digits[i] < tables[i].size()) {
        llvm::copy(tables[i][digits[i]], cfg.getSlots().begin() + offsets[i]);
        break;
      }
      digits[i] = 0;
      llvm::copy(tables[i][0], cfg.getSlots().begin() + offsets[i]);
    }
  }
  return valid;
}

Config Space::unrank(uint64_t index) const {
  assert(index < countProduct() && "rank out of range");
  Config cfg(SmallVector<int64_t>(width, 0));
  for (unsigned i = params.size(); i-- > 0;) {
    uint64_t n = params[i]->count();
    params[i]->unrank(index % n,
                      cfg.getSlots().slice(offsets[i], params[i]->getWidth()));
    index /= n;
  }
  return cfg;
}

uint64_t Space::rank(const Config &config) const {
  uint64_t index = 0;
  for (unsigned i = 0; i < params.size(); ++i)
    index = index * params[i]->count() + params[i]->rank(getValue(config, i));
  return index;
}

Config Space::sample(std::mt19937_64 &rng) const {
  Config cfg(SmallVector<int64_t>(width, 0));
  for (unsigned i = 0; i < params.size(); ++i)
    params[i]->sample(rng,
                      cfg.getSlots().slice(offsets[i], params[i]->getWidth()));
  return cfg;
}

std::optional<Config> Space::sampleValid(std::mt19937_64 &rng,
                                         unsigned maxAttempts) const {
  for (unsigned a = 0; a < maxAttempts; ++a) {
    Config cfg = sample(rng);
    if (isValid(cfg))
      return cfg;
  }
  return std::nullopt;
}

std::optional<Config>
Space::sampleValidIf(std::mt19937_64 &rng,
                     const std::function<bool(const Config &)> &accept,
                     unsigned maxAttempts, uint64_t scanLimit) const {
  for (unsigned a = 0; a < maxAttempts; ++a) {
    Config cfg = sample(rng);
    if (accept(cfg) && isValid(cfg))
      return cfg;
  }
  uint64_t total = countProduct();
  if (total > scanLimit || total == 0)
    return std::nullopt;
  uint64_t start = uniformIndex(rng, total);
  for (uint64_t i = 0; i < total; ++i) {
    Config cfg = unrank((start + i) % total);
    if (accept(cfg) && isValid(cfg))
      return cfg;
  }
  return std::nullopt;
}

Config Space::getDefault() const {
  Config cfg(SmallVector<int64_t>(width, 0));
  for (unsigned i = 0; i < params.size(); ++i)
    params[i]->getDefault(
        cfg.getSlots().slice(offsets[i], params[i]->getWidth()));
  return cfg;
}

void Space::getNeighbors(const Config &config,
                         SmallVectorImpl<Config> &out) const {
  SmallVector<ParamValue> values;
  for (unsigned i = 0; i < params.size(); ++i) {
    values.clear();
    params[i]->getNeighbors(getValue(config, i), values);
    for (const ParamValue &v : values)
      out.push_back(withValue(config, i, v));
  }
}

bool Space::isValid(const Config &config, std::string *reason) const {
  if (config.size() != width) {
    if (reason)
      *reason = "config has " + std::to_string(config.size()) +
                " slots, expected " + std::to_string(width);
    return false;
  }
  std::string why;
  for (unsigned i = 0; i < params.size(); ++i)
    if (!params[i]->isValid(getValue(config, i), reason ? &why : nullptr)) {
      if (reason)
        *reason = (params[i]->getName() + ": " + why).str();
      return false;
    }
  for (const Constraint &c : constraints)
    if (auto r = c.check(*this, config)) {
      if (reason)
        *reason = c.name + ": " + *r;
      return false;
    }
  return true;
}

SmallVector<Violation> Space::getViolations(const Config &config) const {
  SmallVector<Violation> out;
  if (config.size() != width) {
    out.push_back({"config", "wrong number of slots"});
    return out;
  }
  bool paramsOk = true;
  for (unsigned i = 0; i < params.size(); ++i) {
    std::string why;
    if (!params[i]->isValid(getValue(config, i), &why)) {
      out.push_back({params[i]->getName().str(), why});
      paramsOk = false;
    }
  }
  // Constraints may assume feasible parameter values.
  if (paramsOk)
    for (const Constraint &c : constraints)
      if (auto r = c.check(*this, config))
        out.push_back({c.name, *r});
  return out;
}

std::string Space::getKey(const Config &config) const {
  std::string key;
  raw_string_ostream os(key);
  for (unsigned i = 0; i < params.size(); ++i) {
    if (i)
      os << ';';
    os << params[i]->getName() << '=';
    params[i]->print(getValue(config, i), os);
  }
  return key;
}

Expected<Config> Space::parseKey(StringRef key) const {
  Config cfg(SmallVector<int64_t>(width, 0));
  SmallVector<bool> seen(params.size(), false);
  SmallVector<StringRef> parts;
  key.split(parts, ';', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    auto [paramName, text] = part.split('=');
    auto idx = lookup(paramName.trim());
    if (!idx)
      return createStringError(inconvertibleErrorCode(),
                               "config key '" + key + "': unknown parameter '" +
                                   paramName.trim() + "'");
    if (seen[*idx])
      return createStringError(inconvertibleErrorCode(),
                               "config key '" + key + "': parameter '" +
                                   paramName.trim() + "' given twice");
    seen[*idx] = true;
    if (Error e = params[*idx]->parse(
            text,
            cfg.getSlots().slice(offsets[*idx], params[*idx]->getWidth())))
      return std::move(e);
  }
  for (unsigned i = 0; i < params.size(); ++i) {
    if (seen[i])
      continue;
    if (isa<FactorizationParam>(*params[i]))
      return createStringError(inconvertibleErrorCode(),
                               "config key '" + key + "': missing parameter '" +
                                   params[i]->getName() + "'");
    params[i]->getDefault(
        cfg.getSlots().slice(offsets[i], params[i]->getWidth()));
  }
  return cfg;
}

json::Value Space::toJSON(const Config &config) const {
  json::Object object;
  for (unsigned i = 0; i < params.size(); ++i) {
    const Parameter &param = *params[i];
    ArrayRef<int64_t> value = getValue(config, i);
    if (const auto *perm = dyn_cast<PermutationParam>(&param)) {
      // Element names; an index out of range (never in a valid config) is
      // written as the number.
      ArrayRef<std::string> elements = perm->getElements();
      json::Array names;
      for (int64_t index : value)
        names.push_back(index >= 0 && index < int64_t(elements.size())
                            ? elements[index]
                            : std::to_string(index));
      object[param.getName()] = std::move(names);
    } else if (const auto *discrete = dyn_cast<DiscreteParam>(&param)) {
      object[param.getName()] = discrete->getValue(value);
    } else if (const auto *categorical = dyn_cast<CategoricalParam>(&param)) {
      object[param.getName()] = categorical->getChoice(value).str();
    } else {
      json::Array slots;
      for (int64_t slot : value)
        slots.push_back(slot);
      object[param.getName()] = std::move(slots);
    }
  }
  object["key"] = getKey(config);
  return object;
}

unsigned Space::getNumFeatures() const {
  unsigned n = 0;
  for (const auto &p : params)
    n += p->getNumFeatures();
  return n;
}

void Space::encode(const Config &config,
                   SmallVectorImpl<double> &features) const {
  for (unsigned i = 0; i < params.size(); ++i)
    params[i]->encode(getValue(config, i), features);
}

SmallVector<std::string> Space::getFeatureNames() const {
  SmallVector<std::string> names;
  for (const auto &p : params)
    p->getFeatureNames(names);
  return names;
}
