//===- Parameter.cpp - Typed tuning parameters and their topologies ------===//
//
// Factorization, permutation, discrete and categorical parameters: exact
// counting, rank/unrank, uniform sampling, neighbours, validity, features and
// the canonical text form.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/Space.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace llvm;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

uint64_t mlir::tiletune::saturatingMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > std::numeric_limits<uint64_t>::max() / b)
    return std::numeric_limits<uint64_t>::max();
  return a * b;
}

uint64_t mlir::tiletune::binomial(uint64_t n, uint64_t k) {
  if (k > n)
    return 0;
  k = std::min(k, n - k);
  // Multiplicative formula; each partial result is itself a binomial, so the
  // division is exact. Use 128-bit intermediates to detect overflow.
  unsigned __int128 result = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    result = result * (n - k + i) / i;
    if (result > std::numeric_limits<uint64_t>::max())
      return std::numeric_limits<uint64_t>::max();
  }
  return uint64_t(result);
}

SmallVector<std::pair<int64_t, unsigned>>
mlir::tiletune::factorizePrimes(int64_t n) {
  assert(n >= 1 && "factorizePrimes needs a positive number");
  SmallVector<std::pair<int64_t, unsigned>> primes;
  for (int64_t p = 2; p * p <= n; ++p) {
    unsigned e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    if (e)
      primes.push_back({p, e});
  }
  if (n > 1)
    primes.push_back({n, 1});
  return primes;
}

uint64_t mlir::tiletune::uniformIndex(std::mt19937_64 &rng, uint64_t n) {
  assert(n >= 1 && "empty range");
  if (n == 1)
    return 0;
  // Reject the top partial bucket so that every residue is equally likely.
  uint64_t limit = std::numeric_limits<uint64_t>::max() -
                   std::numeric_limits<uint64_t>::max() % n;
  while (true) {
    uint64_t x = rng();
    if (x < limit)
      return x % n;
  }
}

double mlir::tiletune::uniformReal(std::mt19937_64 &rng) {
  return double(rng() >> 11) * 0x1.0p-53;
}

StringRef mlir::tiletune::stringifyParamKind(ParamKind kind) {
  switch (kind) {
  case ParamKind::Factorization:
    return "factorization";
  case ParamKind::Permutation:
    return "permutation";
  case ParamKind::Discrete:
    return "discrete";
  case ParamKind::Categorical:
    return "categorical";
  }
  return "unknown";
}

Parameter::~Parameter() = default;

static Error makeParseError(StringRef param, StringRef text, const Twine &why) {
  return createStringError(inconvertibleErrorCode(), "parameter '" + param +
                                                         "': cannot parse '" +
                                                         text + "': " + why);
}

/// Splits "[a,b,c]" into its trimmed elements.
static Expected<SmallVector<StringRef>> splitList(StringRef param,
                                                  StringRef text) {
  StringRef t = text.trim();
  if (!t.consume_front("[") || !t.consume_back("]"))
    return makeParseError(param, text, "expected '[...]'");
  SmallVector<StringRef> parts;
  if (t.trim().empty())
    return parts;
  t.split(parts, ',');
  for (StringRef &p : parts)
    p = p.trim();
  return parts;
}

//===----------------------------------------------------------------------===//
// FactorizationParam
//===----------------------------------------------------------------------===//

/// Number of ordered compositions of `n` into `parts` non-negative parts.
static uint64_t numCompositions(uint64_t n, unsigned parts) {
  if (parts == 0)
    return n == 0 ? 1 : 0;
  return binomial(n + parts - 1, parts - 1);
}

/// Writes the composition of `total` into out.size() parts with the given
/// rank. Order: the first part descending (rank 0 = everything in part 0),
/// then recursively the rest.
static void unrankComposition(uint64_t index, unsigned total,
                              MutableArrayRef<unsigned> out) {
  unsigned remaining = total;
  for (size_t j = 0; j + 1 < out.size(); ++j) {
    unsigned restParts = out.size() - j - 1;
    for (int v = remaining; v >= 0; --v) {
      uint64_t c = numCompositions(remaining - v, restParts);
      if (index < c) {
        out[j] = v;
        remaining -= v;
        break;
      }
      index -= c;
    }
  }
  out.back() = remaining;
}

/// Inverse of unrankComposition.
static uint64_t rankComposition(ArrayRef<unsigned> parts, unsigned total) {
  uint64_t index = 0;
  unsigned remaining = total;
  for (size_t j = 0; j + 1 < parts.size(); ++j) {
    unsigned restParts = parts.size() - j - 1;
    for (unsigned v = remaining; v > parts[j]; --v)
      index += numCompositions(remaining - v, restParts);
    remaining -= parts[j];
  }
  return index;
}

FactorizationParam::FactorizationParam(StringRef name, int64_t total,
                                       unsigned numFactors)
    : Parameter(ParamKind::Factorization, name), total(total),
      numFactors(numFactors) {
  assert(total >= 1 && numFactors >= 1 && "invalid factorization parameter");
  primes = factorizePrimes(total);
  for (auto [p, e] : primes)
    perPrimeCounts.push_back(numCompositions(e, numFactors));
}

FactorizationParam::FactorizationParam(StringRef name, int64_t total,
                                       unsigned numFactors,
                                       ArrayRef<int64_t> pinned)
    : FactorizationParam(name, total, numFactors) {
  assert(pinned.size() == numFactors && "one pin per slot");
  int64_t rest = total;
  for (unsigned i = 0; i < numFactors; ++i) {
    if (pinned[i] <= 0) {
      freeSlots.push_back(i);
      continue;
    }
    assert(rest % pinned[i] == 0 && "pinned factors must divide the total");
    rest /= pinned[i];
  }
  assert((!freeSlots.empty() || rest == 1) &&
         "fully pinned factors must multiply to the total");
  this->pinned.assign(pinned.begin(), pinned.end());
  for (int64_t &p : this->pinned)
    p = std::max<int64_t>(p, 0);
  if (!freeSlots.empty())
    freeParam =
        std::make_shared<FactorizationParam>(name, rest, freeSlots.size());
}

void FactorizationParam::scatterFree(ArrayRef<int64_t> free,
                                     MutableArrayRef<int64_t> out) const {
  for (unsigned i = 0; i < numFactors; ++i)
    out[i] = pinned[i];
  for (unsigned j = 0; j < freeSlots.size(); ++j)
    out[freeSlots[j]] = free[j];
}

SmallVector<int64_t, 8>
FactorizationParam::gatherFree(ArrayRef<int64_t> value) const {
  SmallVector<int64_t, 8> free;
  for (unsigned slot : freeSlots)
    free.push_back(value[slot]);
  return free;
}

uint64_t FactorizationParam::count() const {
  if (!pinned.empty())
    return freeParam ? freeParam->count() : 1;
  uint64_t c = 1;
  for (uint64_t n : perPrimeCounts)
    c = saturatingMul(c, n);
  return c;
}

/// Builds the factors from per-prime exponent compositions.
static void factorsFromExponents(ArrayRef<std::pair<int64_t, unsigned>> primes,
                                 ArrayRef<SmallVector<unsigned, 8>> exps,
                                 MutableArrayRef<int64_t> out) {
  for (int64_t &f : out)
    f = 1;
  for (size_t i = 0; i < primes.size(); ++i)
    for (size_t j = 0; j < out.size(); ++j)
      for (unsigned e = 0; e < exps[i][j]; ++e)
        out[j] *= primes[i].first;
}

void FactorizationParam::unrank(uint64_t index,
                                MutableArrayRef<int64_t> out) const {
  assert(out.size() == numFactors && index < count());
  if (!pinned.empty()) {
    SmallVector<int64_t, 8> free(freeSlots.size());
    if (freeParam)
      freeParam->unrank(index, free);
    scatterFree(free, out);
    return;
  }
  SmallVector<SmallVector<unsigned, 8>> exps(primes.size());
  // The last prime is the least significant digit.
  for (size_t i = primes.size(); i-- > 0;) {
    uint64_t digit = index % perPrimeCounts[i];
    index /= perPrimeCounts[i];
    exps[i].assign(numFactors, 0);
    unrankComposition(digit, primes[i].second, exps[i]);
  }
  factorsFromExponents(primes, exps, out);
}

/// Exponent of prime `p` in `v`.
static unsigned exponentOf(int64_t v, int64_t p) {
  unsigned e = 0;
  while (v % p == 0) {
    v /= p;
    ++e;
  }
  return e;
}

uint64_t FactorizationParam::rank(ArrayRef<int64_t> value) const {
  assert(isValid(value) && "rank of an infeasible factorization");
  if (!pinned.empty())
    return freeParam ? freeParam->rank(gatherFree(value)) : 0;
  uint64_t index = 0;
  for (size_t i = 0; i < primes.size(); ++i) {
    SmallVector<unsigned, 8> parts;
    for (int64_t f : value)
      parts.push_back(exponentOf(f, primes[i].first));
    index =
        index * perPrimeCounts[i] + rankComposition(parts, primes[i].second);
  }
  return index;
}

void FactorizationParam::sample(std::mt19937_64 &rng,
                                MutableArrayRef<int64_t> out) const {
  if (!pinned.empty()) {
    SmallVector<int64_t, 8> free(freeSlots.size());
    if (freeParam)
      freeParam->sample(rng, free);
    scatterFree(free, out);
    return;
  }
  // Uniform over tuples <=> independent uniform composition per prime.
  SmallVector<SmallVector<unsigned, 8>> exps(primes.size());
  for (size_t i = 0; i < primes.size(); ++i) {
    exps[i].assign(numFactors, 0);
    unrankComposition(uniformIndex(rng, perPrimeCounts[i]), primes[i].second,
                      exps[i]);
  }
  factorsFromExponents(primes, exps, out);
}

void FactorizationParam::getNeighbors(ArrayRef<int64_t> value,
                                      SmallVectorImpl<ParamValue> &out) const {
  if (!pinned.empty()) {
    if (!freeParam)
      return;
    SmallVector<ParamValue> freeNeighbors;
    freeParam->getNeighbors(gatherFree(value), freeNeighbors);
    for (const ParamValue &f : freeNeighbors) {
      ParamValue n(numFactors);
      scatterFree(f, n);
      out.push_back(std::move(n));
    }
    return;
  }
  for (auto [p, e] : primes) {
    (void)e;
    for (unsigned from = 0; from < numFactors; ++from) {
      if (value[from] % p != 0)
        continue;
      for (unsigned to = 0; to < numFactors; ++to) {
        if (to == from)
          continue;
        ParamValue n(value.begin(), value.end());
        n[from] /= p;
        n[to] *= p;
        out.push_back(std::move(n));
      }
    }
  }
}

bool FactorizationParam::isValid(ArrayRef<int64_t> value,
                                 std::string *reason) const {
  if (value.size() != numFactors) {
    if (reason)
      *reason = "expected " + std::to_string(numFactors) + " factors, got " +
                std::to_string(value.size());
    return false;
  }
  int64_t product = 1;
  for (int64_t f : value) {
    if (f < 1) {
      if (reason)
        *reason = "factor " + std::to_string(f) + " is not positive";
      return false;
    }
    if (total % f != 0 || product > total / f) {
      if (reason)
        *reason = "factors do not multiply to " + std::to_string(total);
      return false;
    }
    product *= f;
  }
  if (product != total) {
    if (reason)
      *reason = "factors multiply to " + std::to_string(product) +
                ", expected " + std::to_string(total);
    return false;
  }
  for (unsigned i = 0; i < pinned.size(); ++i)
    if (pinned[i] > 0 && value[i] != pinned[i]) {
      if (reason)
        *reason = "factor " + std::to_string(i) + " is fixed to " +
                  std::to_string(pinned[i]);
      return false;
    }
  return true;
}

void FactorizationParam::getDefault(MutableArrayRef<int64_t> out) const {
  if (!pinned.empty()) {
    SmallVector<int64_t, 8> free(freeSlots.size());
    if (freeParam)
      freeParam->getDefault(free);
    scatterFree(free, out);
    return;
  }
  out[0] = total;
  for (unsigned i = 1; i < numFactors; ++i)
    out[i] = 1;
}

void FactorizationParam::encode(ArrayRef<int64_t> value,
                                SmallVectorImpl<double> &features) const {
  for (int64_t f : value)
    features.push_back(std::log2(double(f)));
}

void FactorizationParam::getFeatureNames(
    SmallVectorImpl<std::string> &names) const {
  for (unsigned i = 0; i < numFactors; ++i)
    names.push_back((getName() + ".log2f" + Twine(i)).str());
}

void FactorizationParam::print(ArrayRef<int64_t> value, raw_ostream &os) const {
  os << '[';
  llvm::interleave(value, os, ",");
  os << ']';
}

Error FactorizationParam::parse(StringRef text,
                                MutableArrayRef<int64_t> out) const {
  auto parts = splitList(getName(), text);
  if (!parts)
    return parts.takeError();
  if (parts->size() != numFactors)
    return makeParseError(getName(), text,
                          "expected " + Twine(numFactors) + " factors");
  for (size_t i = 0; i < parts->size(); ++i)
    if ((*parts)[i].getAsInteger(10, out[i]))
      return makeParseError(getName(), text, "not an integer list");
  std::string reason;
  if (!isValid(out, &reason))
    return makeParseError(getName(), text, reason);
  return Error::success();
}

Expected<std::shared_ptr<const Parameter>>
FactorizationParam::pin(StringRef pattern) const {
  auto parts = splitList(getName(), pattern);
  if (!parts)
    return parts.takeError();
  if (parts->size() != numFactors)
    return makeParseError(getName(), pattern,
                          "expected " + Twine(numFactors) + " factors or '*'");
  SmallVector<int64_t> pins(numFactors, 0);
  int64_t rest = total;
  bool anyFree = false;
  for (unsigned i = 0; i < numFactors; ++i) {
    StringRef item = (*parts)[i];
    if (item == "*") {
      if (!pinned.empty() && pinned[i] > 0)
        pins[i] = pinned[i]; // an earlier pin stays
      else
        anyFree = true;
    } else if (item.getAsInteger(10, pins[i]) || pins[i] < 1) {
      return makeParseError(getName(), pattern,
                            "'" + item +
                                "' is neither a positive integer "
                                "nor '*'");
    } else if (!pinned.empty() && pinned[i] > 0 && pinned[i] != pins[i]) {
      return makeParseError(getName(), pattern,
                            "factor " + Twine(i) + " is already fixed to " +
                                Twine(pinned[i]));
    }
    if (pins[i] > 0) {
      if (rest % pins[i] != 0)
        return makeParseError(getName(), pattern,
                              "the fixed factors do not divide " +
                                  Twine(total));
      rest /= pins[i];
    }
  }
  if (!anyFree && rest != 1)
    return makeParseError(getName(), pattern,
                          "factors do not multiply to " + Twine(total));
  return std::make_shared<FactorizationParam>(getName(), total, numFactors,
                                              pins);
}

//===----------------------------------------------------------------------===//
// PermutationParam
//===----------------------------------------------------------------------===//

PermutationParam::PermutationParam(StringRef name,
                                   ArrayRef<std::string> elements)
    : Parameter(ParamKind::Permutation, name),
      elements(elements.begin(), elements.end()) {
  assert(!this->elements.empty() && this->elements.size() <= 20 &&
         "permutation of 1..20 elements");
}

PermutationParam::PermutationParam(StringRef name,
                                   ArrayRef<std::string> elements,
                                   ArrayRef<int64_t> only)
    : PermutationParam(name, elements) {
  assert(only.size() == this->elements.size() && isValid(only) &&
         "pinned to a non-permutation");
  this->only.assign(only.begin(), only.end());
}

uint64_t PermutationParam::count() const {
  if (!only.empty())
    return 1;
  uint64_t c = 1;
  for (uint64_t i = 2; i <= elements.size(); ++i)
    c *= i;
  return c;
}

void PermutationParam::unrank(uint64_t index,
                              MutableArrayRef<int64_t> out) const {
  if (!only.empty()) {
    llvm::copy(only, out.begin());
    return;
  }
  // Lehmer code: the first position is the most significant digit.
  size_t n = elements.size();
  SmallVector<int64_t> avail;
  for (size_t i = 0; i < n; ++i)
    avail.push_back(i);
  uint64_t fact = count();
  for (size_t i = 0; i < n; ++i) {
    fact /= (n - i);
    uint64_t d = index / fact;
    index %= fact;
    out[i] = avail[d];
    avail.erase(avail.begin() + d);
  }
}

uint64_t PermutationParam::rank(ArrayRef<int64_t> value) const {
  if (!only.empty())
    return 0;
  size_t n = elements.size();
  uint64_t index = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t smaller = 0;
    for (size_t j = i + 1; j < n; ++j)
      smaller += value[j] < value[i];
    index = index * (n - i) + smaller;
  }
  return index;
}

void PermutationParam::sample(std::mt19937_64 &rng,
                              MutableArrayRef<int64_t> out) const {
  unrank(uniformIndex(rng, count()), out);
}

void PermutationParam::getNeighbors(ArrayRef<int64_t> value,
                                    SmallVectorImpl<ParamValue> &out) const {
  if (!only.empty())
    return;
  for (size_t i = 0; i < value.size(); ++i)
    for (size_t j = i + 1; j < value.size(); ++j) {
      ParamValue n(value.begin(), value.end());
      std::swap(n[i], n[j]);
      out.push_back(std::move(n));
    }
}

bool PermutationParam::isValid(ArrayRef<int64_t> value,
                               std::string *reason) const {
  if (value.size() != elements.size()) {
    if (reason)
      *reason = "expected " + std::to_string(elements.size()) + " entries";
    return false;
  }
  SmallVector<bool> seen(elements.size(), false);
  for (int64_t v : value) {
    if (v < 0 || v >= int64_t(elements.size()) || seen[v]) {
      if (reason)
        *reason = "not a permutation";
      return false;
    }
    seen[v] = true;
  }
  if (!only.empty() && value != ArrayRef<int64_t>(only)) {
    if (reason) {
      std::string text;
      raw_string_ostream os(text);
      print(only, os);
      *reason = "fixed to " + text;
    }
    return false;
  }
  return true;
}

void PermutationParam::getDefault(MutableArrayRef<int64_t> out) const {
  if (!only.empty()) {
    llvm::copy(only, out.begin());
    return;
  }
  for (size_t i = 0; i < elements.size(); ++i)
    out[i] = i;
}

void PermutationParam::encode(ArrayRef<int64_t> value,
                              SmallVectorImpl<double> &features) const {
  // Feature e = position of element e.
  SmallVector<double> pos(elements.size(), 0.0);
  for (size_t i = 0; i < value.size(); ++i)
    pos[value[i]] = double(i);
  features.append(pos.begin(), pos.end());
}

void PermutationParam::getFeatureNames(
    SmallVectorImpl<std::string> &names) const {
  for (const std::string &e : elements)
    names.push_back((getName() + ".pos_" + e).str());
}

void PermutationParam::print(ArrayRef<int64_t> value, raw_ostream &os) const {
  os << '[';
  llvm::interleave(
      value, os, [&](int64_t v) { os << elements[v]; }, ",");
  os << ']';
}

Error PermutationParam::parse(StringRef text,
                              MutableArrayRef<int64_t> out) const {
  auto parts = splitList(getName(), text);
  if (!parts)
    return parts.takeError();
  if (parts->size() != elements.size())
    return makeParseError(getName(), text,
                          "expected " + Twine(elements.size()) + " elements");
  for (size_t i = 0; i < parts->size(); ++i) {
    auto it = llvm::find(elements, (*parts)[i]);
    if (it == elements.end())
      return makeParseError(getName(), text,
                            "unknown element '" + (*parts)[i] + "'");
    out[i] = it - elements.begin();
  }
  std::string reason;
  if (!isValid(out, &reason))
    return makeParseError(getName(), text, reason);
  return Error::success();
}

Expected<std::shared_ptr<const Parameter>>
PermutationParam::pin(StringRef pattern) const {
  SmallVector<int64_t> value(elements.size());
  if (Error err = parse(pattern, value))
    return std::move(err);
  return std::make_shared<PermutationParam>(getName(), elements, value);
}

//===----------------------------------------------------------------------===//
// DiscreteParam
//===----------------------------------------------------------------------===//

DiscreteParam::DiscreteParam(StringRef name, ArrayRef<int64_t> values,
                             int64_t defaultValue)
    : Parameter(ParamKind::Discrete, name),
      values(values.begin(), values.end()) {
  llvm::sort(this->values);
  this->values.erase(std::unique(this->values.begin(), this->values.end()),
                     this->values.end());
  assert(!this->values.empty() && "discrete parameter without values");
  auto idx = indexOf(defaultValue);
  assert(idx && "default is not one of the values");
  defaultIndex = idx ? *idx : 0;
}

std::optional<int64_t> DiscreteParam::indexOf(int64_t v) const {
  auto it = llvm::lower_bound(values, v);
  if (it == values.end() || *it != v)
    return std::nullopt;
  return it - values.begin();
}

void DiscreteParam::unrank(uint64_t index, MutableArrayRef<int64_t> out) const {
  out[0] = index;
}
uint64_t DiscreteParam::rank(ArrayRef<int64_t> value) const { return value[0]; }
void DiscreteParam::sample(std::mt19937_64 &rng,
                           MutableArrayRef<int64_t> out) const {
  out[0] = uniformIndex(rng, values.size());
}
void DiscreteParam::getNeighbors(ArrayRef<int64_t> value,
                                 SmallVectorImpl<ParamValue> &out) const {
  if (value[0] > 0)
    out.push_back(ParamValue{value[0] - 1});
  if (value[0] + 1 < int64_t(values.size()))
    out.push_back(ParamValue{value[0] + 1});
}
bool DiscreteParam::isValid(ArrayRef<int64_t> value,
                            std::string *reason) const {
  if (value.size() != 1 || value[0] < 0 || value[0] >= int64_t(values.size())) {
    if (reason)
      *reason = "index out of range";
    return false;
  }
  return true;
}
void DiscreteParam::getDefault(MutableArrayRef<int64_t> out) const {
  out[0] = defaultIndex;
}
void DiscreteParam::encode(ArrayRef<int64_t> value,
                           SmallVectorImpl<double> &features) const {
  features.push_back(double(values[value[0]]));
}
void DiscreteParam::getFeatureNames(SmallVectorImpl<std::string> &names) const {
  names.push_back(getName().str());
}
void DiscreteParam::print(ArrayRef<int64_t> value, raw_ostream &os) const {
  os << values[value[0]];
}
Error DiscreteParam::parse(StringRef text, MutableArrayRef<int64_t> out) const {
  int64_t v;
  if (text.trim().getAsInteger(10, v))
    return makeParseError(getName(), text, "not an integer");
  auto idx = indexOf(v);
  if (!idx)
    return makeParseError(getName(), text, "not an allowed value");
  out[0] = *idx;
  return Error::success();
}

Expected<std::shared_ptr<const Parameter>>
DiscreteParam::pin(StringRef pattern) const {
  int64_t index;
  if (Error err = parse(pattern, MutableArrayRef<int64_t>(index)))
    return std::move(err);
  int64_t value = values[index];
  return std::make_shared<DiscreteParam>(getName(), ArrayRef<int64_t>(value),
                                         value);
}

//===----------------------------------------------------------------------===//
// CategoricalParam
//===----------------------------------------------------------------------===//

CategoricalParam::CategoricalParam(StringRef name,
                                   ArrayRef<std::string> choices,
                                   unsigned defaultIndex)
    : Parameter(ParamKind::Categorical, name),
      choices(choices.begin(), choices.end()), defaultIndex(defaultIndex) {
  assert(!this->choices.empty() && defaultIndex < this->choices.size() &&
         "invalid categorical parameter");
}

std::optional<int64_t> CategoricalParam::indexOf(StringRef name) const {
  auto it = llvm::find(choices, name);
  if (it == choices.end())
    return std::nullopt;
  return it - choices.begin();
}

void CategoricalParam::unrank(uint64_t index,
                              MutableArrayRef<int64_t> out) const {
  out[0] = index;
}
uint64_t CategoricalParam::rank(ArrayRef<int64_t> value) const {
  return value[0];
}
void CategoricalParam::sample(std::mt19937_64 &rng,
                              MutableArrayRef<int64_t> out) const {
  out[0] = uniformIndex(rng, choices.size());
}
void CategoricalParam::getNeighbors(ArrayRef<int64_t> value,
                                    SmallVectorImpl<ParamValue> &out) const {
  for (int64_t i = 0; i < int64_t(choices.size()); ++i)
    if (i != value[0])
      out.push_back(ParamValue{i});
}
bool CategoricalParam::isValid(ArrayRef<int64_t> value,
                               std::string *reason) const {
  if (value.size() != 1 || value[0] < 0 ||
      value[0] >= int64_t(choices.size())) {
    if (reason)
      *reason = "choice index out of range";
    return false;
  }
  return true;
}
void CategoricalParam::getDefault(MutableArrayRef<int64_t> out) const {
  out[0] = defaultIndex;
}
void CategoricalParam::encode(ArrayRef<int64_t> value,
                              SmallVectorImpl<double> &features) const {
  for (int64_t i = 0; i < int64_t(choices.size()); ++i)
    features.push_back(i == value[0] ? 1.0 : 0.0);
}
void CategoricalParam::getFeatureNames(
    SmallVectorImpl<std::string> &names) const {
  for (const std::string &c : choices)
    names.push_back((getName() + "=" + c).str());
}
void CategoricalParam::print(ArrayRef<int64_t> value, raw_ostream &os) const {
  os << choices[value[0]];
}
Error CategoricalParam::parse(StringRef text,
                              MutableArrayRef<int64_t> out) const {
  auto idx = indexOf(text.trim());
  if (!idx)
    return makeParseError(getName(), text, "not one of the choices");
  out[0] = *idx;
  return Error::success();
}

Expected<std::shared_ptr<const Parameter>>
CategoricalParam::pin(StringRef pattern) const {
  int64_t index;
  if (Error err = parse(pattern, MutableArrayRef<int64_t>(index)))
    return std::move(err);
  return std::make_shared<CategoricalParam>(
      getName(), ArrayRef<std::string>(choices[index]), 0);
}
