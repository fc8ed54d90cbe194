//===- SpaceTest.cpp - Tests of typed parameters and spaces --------------===//
//
// Exact counting against brute force, rank/unrank bijections, neighbourhood
// symmetry, uniform sampling, canonical keys and constraints.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/Space.h"

#include "llvm/Support/Casting.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace mlir::tiletune;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

/// All ordered nu-tuples of positive integers with product c, by brute
/// force over divisors (independent of the library's combinatorics).
void bruteFactorizations(int64_t c, unsigned nu, SmallVector<int64_t> &prefix,
                         std::set<SmallVector<int64_t>> &out) {
  if (nu == 1) {
    prefix.push_back(c);
    out.insert(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t d = 1; d <= c; ++d)
    if (c % d == 0) {
      prefix.push_back(d);
      bruteFactorizations(c / d, nu - 1, prefix, out);
      prefix.pop_back();
    }
}

std::set<SmallVector<int64_t>> bruteFactorizations(int64_t c, unsigned nu) {
  std::set<SmallVector<int64_t>> out;
  SmallVector<int64_t> prefix;
  bruteFactorizations(c, nu, prefix, out);
  return out;
}

/// Checks rank/unrank bijection, validity and neighbour symmetry of a
/// parameter by enumerating it.
void checkParameterTopology(const Parameter &p) {
  SCOPED_TRACE(p.getName().str());
  uint64_t n = p.count();
  std::set<SmallVector<int64_t>> values;
  for (uint64_t r = 0; r < n; ++r) {
    ParamValue v(p.getWidth());
    p.unrank(r, v);
    EXPECT_TRUE(p.isValid(v));
    EXPECT_EQ(p.rank(v), r);
    values.insert(SmallVector<int64_t>(v.begin(), v.end()));
  }
  EXPECT_EQ(values.size(), n) << "unrank is not injective";
  ParamValue def(p.getWidth());
  p.getDefault(def);
  EXPECT_TRUE(p.isValid(def));
  for (const auto &v : values) {
    SmallVector<ParamValue> nbrs;
    p.getNeighbors(v, nbrs);
    std::set<SmallVector<int64_t>> unique;
    for (const ParamValue &w : nbrs) {
      SmallVector<int64_t> key(w.begin(), w.end());
      EXPECT_TRUE(p.isValid(w));
      EXPECT_NE(key, v) << "a value is its own neighbour";
      EXPECT_TRUE(unique.insert(key).second) << "duplicate neighbour";
      // Symmetry.
      SmallVector<ParamValue> back;
      p.getNeighbors(w, back);
      bool found = false;
      for (const ParamValue &x : back)
        found |= SmallVector<int64_t>(x.begin(), x.end()) == v;
      EXPECT_TRUE(found) << "neighbourhood is not symmetric";
    }
  }
}

TEST(SpaceMath, Binomial) {
  EXPECT_EQ(binomial(5, 2), 10u);
  EXPECT_EQ(binomial(12, 3), 220u);
  EXPECT_EQ(binomial(3, 5), 0u);
  EXPECT_EQ(binomial(0, 0), 1u);
  EXPECT_EQ(binomial(200, 100), UINT64_MAX); // saturates
}

TEST(SpaceMath, PrimeFactorization) {
  auto f = factorizePrimes(720);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], (std::pair<int64_t, unsigned>(2, 4)));
  EXPECT_EQ(f[1], (std::pair<int64_t, unsigned>(3, 2)));
  EXPECT_EQ(f[2], (std::pair<int64_t, unsigned>(5, 1)));
  EXPECT_TRUE(factorizePrimes(1).empty());
  EXPECT_EQ(factorizePrimes(97).size(), 1u);
}

TEST(Factorization, CountMatchesBruteForce) {
  for (int64_t c : {1, 2, 8, 12, 30, 64, 97, 360, 1024})
    for (unsigned nu = 1; nu <= 4; ++nu) {
      FactorizationParam p("x", c, nu);
      auto brute = bruteFactorizations(c, nu);
      EXPECT_EQ(p.count(), brute.size()) << "C=" << c << " nu=" << nu;
      // Enumeration by rank yields exactly the brute-force set.
      std::set<SmallVector<int64_t>> enumerated;
      for (uint64_t r = 0; r < p.count(); ++r) {
        ParamValue v(nu);
        p.unrank(r, v);
        enumerated.insert(SmallVector<int64_t>(v.begin(), v.end()));
      }
      EXPECT_EQ(enumerated, brute) << "C=" << c << " nu=" << nu;
    }
}

TEST(Factorization, CountWithoutEnumeration) {
  // 2^30 * 3^20 into 6 factors: C(35,5) * C(25,5), far too many to list.
  FactorizationParam p("x", (int64_t(1) << 30) * 3486784401LL, 6);
  EXPECT_EQ(p.count(), binomial(35, 5) * binomial(25, 5));
}

TEST(Factorization, TopologyAndDefault) {
  for (int64_t c : {8, 12, 36, 60})
    for (unsigned nu = 1; nu <= 3; ++nu)
      checkParameterTopology(FactorizationParam("f", c, nu));
  FactorizationParam p("m", 64, 4);
  ParamValue def(4);
  p.getDefault(def);
  EXPECT_EQ(ArrayRef<int64_t>(def), ArrayRef<int64_t>({64, 1, 1, 1}));
  ParamValue r0(4);
  p.unrank(0, r0);
  EXPECT_EQ(r0, def);
}

TEST(Factorization, NeighboursMoveOnePrime) {
  // OpEvo Figure 1a: C = 8, nu = 3. (2,2,2) has 6 neighbours: one prime 2
  // moved from any slot to any other.
  FactorizationParam p("f", 8, 3);
  SmallVector<ParamValue> n;
  p.getNeighbors(ParamValue{2, 2, 2}, n);
  EXPECT_EQ(n.size(), 6u);
  n.clear();
  p.getNeighbors(ParamValue{8, 1, 1}, n);
  std::set<SmallVector<int64_t>> got;
  for (auto &v : n)
    got.insert(SmallVector<int64_t>(v.begin(), v.end()));
  EXPECT_EQ(got, (std::set<SmallVector<int64_t>>{{4, 2, 1}, {4, 1, 2}}));
  // Non-powers of two: 12 = 2^2 * 3.
  FactorizationParam q("g", 12, 2);
  n.clear();
  q.getNeighbors(ParamValue{12, 1}, n);
  got.clear();
  for (auto &v : n)
    got.insert(SmallVector<int64_t>(v.begin(), v.end()));
  EXPECT_EQ(got, (std::set<SmallVector<int64_t>>{{6, 2}, {4, 3}}));
}

TEST(Factorization, SamplingIsUniform) {
  FactorizationParam p("f", 12, 3); // 18 tuples
  ASSERT_EQ(p.count(), 18u);
  std::mt19937_64 rng(123);
  std::map<uint64_t, int> hist;
  const int n = 180000;
  for (int i = 0; i < n; ++i) {
    ParamValue v(3);
    p.sample(rng, v);
    ASSERT_TRUE(p.isValid(v));
    ++hist[p.rank(v)];
  }
  EXPECT_EQ(hist.size(), 18u);
  for (auto [r, c] : hist)
    EXPECT_NEAR(c, n / 18.0, n / 18.0 * 0.06) << "rank " << r;
}

TEST(Factorization, ValidityReasons) {
  FactorizationParam p("m", 64, 4);
  std::string why;
  EXPECT_FALSE(p.isValid(ParamValue{64, 2, 1, 1}, &why));
  EXPECT_NE(why.find("multiply"), std::string::npos);
  EXPECT_FALSE(p.isValid(ParamValue{64, 1, 1}, &why));
  EXPECT_FALSE(p.isValid(ParamValue{-64, -1, 1, 1}, &why));
  EXPECT_TRUE(p.isValid(ParamValue{4, 4, 2, 2}));
}

TEST(Permutation, CountRankNeighbours) {
  PermutationParam p("order", {"m", "n", "k", "x"});
  EXPECT_EQ(p.count(), 24u);
  checkParameterTopology(p);
  SmallVector<ParamValue> n;
  p.getNeighbors(ParamValue{0, 1, 2, 3}, n);
  EXPECT_EQ(n.size(), 6u); // C(4,2) swaps
  std::string s;
  llvm::raw_string_ostream os(s);
  p.print(ParamValue{1, 2, 0, 3}, os);
  EXPECT_EQ(s, "[n,k,m,x]");
  ParamValue back(4);
  EXPECT_FALSE(bool(p.parse("[n,k,m,x]", back)));
  EXPECT_EQ(back, (ParamValue{1, 2, 0, 3}));
  llvm::Error e = p.parse("[n,n,m,x]", back);
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));
}

TEST(Discrete, AdjacentValues) {
  DiscreteParam p("max_unroll", {1500, 0, 512}, 512);
  EXPECT_EQ(p.count(), 3u);
  checkParameterTopology(p);
  ParamValue def(1);
  p.getDefault(def);
  EXPECT_EQ(p.getValue(def), 512);
  SmallVector<ParamValue> n;
  p.getNeighbors(def, n);
  EXPECT_EQ(n.size(), 2u);
  n.clear();
  p.getNeighbors(ParamValue{0}, n);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(p.getValue(n[0]), 512);
}

TEST(Categorical, AllAdjacent) {
  CategoricalParam p("pack", {"none", "a", "b", "ab"});
  checkParameterTopology(p);
  SmallVector<ParamValue> n;
  p.getNeighbors(ParamValue{2}, n);
  EXPECT_EQ(n.size(), 3u);
  SmallVector<double> f;
  p.encode(ParamValue{2}, f);
  EXPECT_EQ(f, (SmallVector<double>{0, 0, 1, 0}));
}

Space makeSmallSpace() {
  Space s("small");
  s.addParameter(std::make_shared<FactorizationParam>("m", 12, 3));
  s.addParameter(std::make_shared<PermutationParam>(
      "order", SmallVector<std::string>{"a", "b", "c"}));
  s.addParameter(std::make_shared<DiscreteParam>(
      "u", SmallVector<int64_t>{1, 2, 4}, 1));
  s.addParameter(std::make_shared<CategoricalParam>(
      "v", SmallVector<std::string>{"true", "false"}));
  return s;
}

TEST(SpaceTest, ProductCountRankAndKeys) {
  Space s = makeSmallSpace();
  EXPECT_EQ(s.countProduct(), 18u * 6 * 3 * 2);
  EXPECT_EQ(s.getWidth(), 3u + 3 + 1 + 1);
  std::set<std::string> keys;
  for (uint64_t r = 0; r < s.countProduct(); ++r) {
    Config c = s.unrank(r);
    EXPECT_EQ(s.rank(c), r);
    std::string key = s.getKey(c);
    EXPECT_TRUE(keys.insert(key).second);
    auto parsed = s.parseKey(key);
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    EXPECT_EQ(*parsed, c);
  }
  EXPECT_EQ(s.getKey(s.getDefault()), "m=[12,1,1];order=[a,b,c];u=1;v=true");
  EXPECT_EQ(s.getNumFeatures(), 3u + 3 + 1 + 2);
  EXPECT_EQ(s.getFeatureNames().size(), s.getNumFeatures());
}

TEST(SpaceTest, ConfigToJSON) {
  Space s = makeSmallSpace();
  Config c = s.getDefault();
  c = s.withValue(c, 0, {3, 2, 2});
  c = s.withValue(c, 1, {2, 0, 1});
  c = s.withValue(c, 2, {2});
  c = s.withValue(c, 3, {1});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << s.toJSON(c);
  EXPECT_EQ(text, "{\"key\":\"m=[3,2,2];order=[c,a,b];u=4;v=false\","
                  "\"m\":[3,2,2],\"order\":[\"c\",\"a\",\"b\"],\"u\":4,"
                  "\"v\":\"false\"}");
}

TEST(SpaceTest, ParseKeyErrors) {
  Space s = makeSmallSpace();
  for (const char *bad :
       {"order=[a,b,c];u=1;v=true", "m=[12,1,1];order=[a,b,c];u=3;v=true",
        "m=[12,2,1];order=[a,b,c];u=1;v=true",
        "m=[12,1,1];order=[a,b,c];u=1;v=true;w=1",
        "m=[12,1,1];m=[12,1,1];order=[a,b,c];u=1;v=true"}) {
    auto c = s.parseKey(bad);
    EXPECT_FALSE(bool(c)) << bad;
    if (!c)
      llvm::consumeError(c.takeError());
  }
  // A missing option (a key older than the option) takes its default.
  auto old = s.parseKey("m=[12,1,1];order=[a,b,c];u=1");
  ASSERT_TRUE(bool(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(s.getKey(*old),
            s.getKey(*s.parseKey("m=[12,1,1];order=[a,b,c];u=1;v=true")));
}

TEST(SpaceTest, NeighboursAreProductTopology) {
  Space s = makeSmallSpace();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 50; ++i) {
    Config c = s.sample(rng);
    SmallVector<Config> n;
    s.getNeighbors(c, n);
    size_t expected = 0;
    for (unsigned p = 0; p < s.getNumParameters(); ++p) {
      SmallVector<ParamValue> pn;
      s.getParameter(p).getNeighbors(s.getValue(c, p), pn);
      expected += pn.size();
    }
    EXPECT_EQ(n.size(), expected);
    for (const Config &m : n) {
      unsigned differing = 0;
      for (unsigned p = 0; p < s.getNumParameters(); ++p)
        differing += s.getValue(m, p) != s.getValue(c, p);
      EXPECT_EQ(differing, 1u);
      SmallVector<Config> back;
      s.getNeighbors(m, back);
      EXPECT_TRUE(llvm::is_contained(back, c));
    }
  }
}

TEST(SpaceTest, ConstraintsFilterAndReport) {
  Space base = makeSmallSpace();
  Space s = base.withConstraint(
      {"inner-small",
       [](const Space &sp, const Config &c) -> std::optional<std::string> {
         if (sp.getValue(c, "m")[2] <= 2)
           return std::nullopt;
         return "inner factor " + std::to_string(sp.getValue(c, "m")[2]) +
                " > 2";
       }});
  EXPECT_FALSE(base.isConstrained());
  EXPECT_TRUE(s.isConstrained());
  // Brute force count of the filtered space.
  uint64_t brute = 0;
  for (auto &t : bruteFactorizations(12, 3))
    brute += t[2] <= 2;
  brute *= 6 * 3 * 2;
  auto counted = s.countValid();
  ASSERT_TRUE(bool(counted));
  EXPECT_EQ(*counted, brute);
  auto tooBig = s.countValid(10);
  EXPECT_FALSE(bool(tooBig));
  llvm::consumeError(tooBig.takeError());

  Config c = *s.parseKey("m=[1,1,12];order=[a,b,c];u=1;v=true");
  std::string why;
  EXPECT_FALSE(s.isValid(c, &why));
  EXPECT_EQ(why, "inner-small: inner factor 12 > 2");
  auto v = s.getViolations(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "inner-small");
  EXPECT_TRUE(base.isValid(c));

  std::mt19937_64 rng(9);
  for (int i = 0; i < 100; ++i) {
    auto x = s.sampleValid(rng);
    ASSERT_TRUE(x.has_value());
    EXPECT_TRUE(s.isValid(*x));
  }
}

TEST(Pinning, FactorizationSlotsMatchBruteForce) {
  // 72 = 2^3 * 3^2 in 4 factors with slot 0 fixed to 2 and slot 2 to 3:
  // the free slots factorize 12 into 2, and the values are exactly the
  // brute-force tuples with those slots.
  FactorizationParam base("m", 72, 4);
  auto pinned = base.pin("[2,*,3,*]");
  ASSERT_TRUE(bool(pinned)) << llvm::toString(pinned.takeError());
  const Parameter &p = **pinned;
  std::set<SmallVector<int64_t>> expected;
  for (const auto &t : bruteFactorizations(72, 4))
    if (t[0] == 2 && t[2] == 3)
      expected.insert(t);
  EXPECT_EQ(p.count(), expected.size());
  std::set<SmallVector<int64_t>> got;
  for (uint64_t r = 0; r < p.count(); ++r) {
    ParamValue v(4);
    p.unrank(r, v);
    got.insert(SmallVector<int64_t>(v.begin(), v.end()));
  }
  EXPECT_EQ(got, expected);
  checkParameterTopology(p);
  ParamValue def(4);
  p.getDefault(def);
  EXPECT_EQ(SmallVector<int64_t>(def.begin(), def.end()),
            (SmallVector<int64_t>{2, 12, 3, 1}));
  std::string reason;
  EXPECT_FALSE(p.isValid(ParamValue{1, 24, 3, 1}, &reason));
  EXPECT_EQ(reason, "factor 0 is fixed to 2");
  // Keys print and parse like the unpinned parameter.
  ParamValue parsed(4);
  EXPECT_FALSE(bool(p.parse("[2,6,3,2]", parsed)));
  EXPECT_EQ(SmallVector<int64_t>(parsed.begin(), parsed.end()),
            (SmallVector<int64_t>{2, 6, 3, 2}));
  auto wrong = p.parse("[4,3,3,2]", parsed);
  EXPECT_TRUE(bool(wrong));
  llvm::consumeError(std::move(wrong));
  // Pins accumulate; a contradicting pin is an error.
  auto again = p.pin("[*,*,*,1]");
  ASSERT_TRUE(bool(again));
  EXPECT_EQ((*again)->count(), 1u);
  auto contradiction = p.pin("[4,*,*,*]");
  EXPECT_FALSE(bool(contradiction));
  llvm::consumeError(contradiction.takeError());
}

TEST(Pinning, BadPatterns) {
  FactorizationParam f("m", 12, 3);
  for (const char *bad : {"[5,*,*]", "[2,2,2]", "[*,*]", "[x,*,*]", "4"}) {
    auto p = f.pin(bad);
    EXPECT_FALSE(bool(p)) << bad;
    if (!p)
      llvm::consumeError(p.takeError());
  }
  Space s = makeSmallSpace();
  for (const char *bad : {"w=1", "u=3", "v=maybe", "order=[a,a,b]", "u="}) {
    auto p = s.withPinned(bad);
    EXPECT_FALSE(bool(p)) << bad;
    if (!p)
      llvm::consumeError(p.takeError());
  }
}

TEST(Pinning, SpaceWithPinnedOptions) {
  Space s = makeSmallSpace();
  auto pinned = s.withPinned("order=[c,a,b]; u=4;v=false;m=[*,1,*]");
  ASSERT_TRUE(bool(pinned)) << llvm::toString(pinned.takeError());
  // m=[*,1,*] leaves the factorizations of 12 into 2 slots: 6 divisors.
  EXPECT_EQ(pinned->countProduct(), 6u);
  EXPECT_EQ(pinned->getName(),
            "small fixed{order=[c,a,b];u=4;v=false;m=[*,1,*]}");
  EXPECT_EQ(pinned->getKey(pinned->getDefault()),
            "m=[12,1,1];order=[c,a,b];u=4;v=false");
  for (uint64_t r = 0; r < pinned->countProduct(); ++r) {
    Config c = pinned->unrank(r);
    std::string key = pinned->getKey(c);
    // Every pinned key is a key of the original space too.
    auto inBase = s.parseKey(key);
    ASSERT_TRUE(bool(inBase)) << llvm::toString(inBase.takeError());
    EXPECT_EQ(s.getKey(*inBase), key);
    SmallVector<Config> neighbors;
    pinned->getNeighbors(c, neighbors);
    for (const Config &n : neighbors) {
      EXPECT_TRUE(pinned->isValid(n));
      EXPECT_EQ(pinned->getKey(n).substr(pinned->getKey(n).find(';')),
                key.substr(key.find(';')));
    }
  }
  auto outside = pinned->parseKey("m=[12,1,1];order=[a,b,c];u=4;v=false");
  EXPECT_FALSE(bool(outside));
  llvm::consumeError(outside.takeError());
}

TEST(SpaceTest, ConfigHashAndEquality) {
  Space s = makeSmallSpace();
  ConfigSet set;
  for (uint64_t r = 0; r < s.countProduct(); ++r)
    set.insert(s.unrank(r));
  EXPECT_EQ(set.size(), s.countProduct());
  EXPECT_TRUE(set.count(s.getDefault()));
}

} // namespace
