//===- QRandomWalkTest.cpp - The q-random walk distribution of OpEvo -----===//
//
// On OpEvo's C = 8, nu = 3 example: the library's distribution sums to 1,
// equals (1 - q) (I - Q)^-1 p0 computed independently with Eigen from a
// brute-force adjacency, and matches the empirical distribution of the
// sampler.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/OpEvo.h"
#include "tiletune/Space/Space.h"

#include <Eigen/Dense>

#include "gtest/gtest.h"

#include <map>

using namespace mlir::tiletune;
using llvm::SmallVector;

namespace {

/// The paper's adjacency: u ~ v iff u_m = v_m * z and u_n = v_n / z for a
/// prime z and distinct m, n (all other entries equal).
bool adjacent(llvm::ArrayRef<int64_t> u, llvm::ArrayRef<int64_t> v) {
  for (size_t m = 0; m < u.size(); ++m)
    for (size_t n = 0; n < u.size(); ++n) {
      if (m == n || v[m] == 0 || u[m] % v[m] != 0)
        continue;
      int64_t z = u[m] / v[m];
      bool prime = z >= 2;
      for (int64_t d = 2; d * d <= z; ++d)
        prime &= z % d != 0;
      if (!prime || v[n] % z != 0 || u[n] != v[n] / z)
        continue;
      bool rest = true;
      for (size_t i = 0; i < u.size(); ++i)
        if (i != m && i != n)
          rest &= u[i] == v[i];
      if (rest)
        return true;
    }
  return false;
}

/// (1 - q) (I - Q)^-1 p0 with Q[v][u] = q / |S(u)| for adjacent u, v.
Eigen::VectorXd eigenDistribution(const FactorizationParam &p,
                                  llvm::ArrayRef<int64_t> start, double q) {
  int n = int(p.count());
  std::vector<ParamValue> values(n, ParamValue(p.getWidth()));
  for (int r = 0; r < n; ++r)
    p.unrank(r, values[r]);
  Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(n, n);
  for (int u = 0; u < n; ++u) {
    int degree = 0;
    for (int v = 0; v < n; ++v)
      degree += adjacent(values[u], values[v]);
    for (int v = 0; v < n; ++v)
      if (adjacent(values[u], values[v]))
        Q(v, u) = q / degree;
  }
  Eigen::VectorXd p0 = Eigen::VectorXd::Zero(n);
  p0(int(p.rank(start))) = 1.0;
  Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  return (1.0 - q) * (I - Q).inverse() * p0;
}

TEST(QRandomWalk, PaperExampleMatchesClosedForm) {
  FactorizationParam p("x", 8, 3); // 10 tuples, OpEvo Figure 1a / 2
  ASSERT_EQ(p.count(), 10u);
  ParamValue start{8, 1, 1};
  for (double q : {0.3, 0.5, 0.8}) {
    auto dist = computeQRandomWalkDistribution(p, start, q);
    double sum = 0;
    for (auto [r, pr] : dist)
      sum += pr;
    EXPECT_NEAR(sum, 1.0, 1e-12) << "q=" << q;
    Eigen::VectorXd ref = eigenDistribution(p, start, q);
    EXPECT_NEAR(ref.sum(), 1.0, 1e-12);
    for (int r = 0; r < int(p.count()); ++r)
      EXPECT_NEAR(dist[r], ref(r), 1e-12) << "q=" << q << " rank " << r;
  }
  // Section 4.3: from (8,1,1), (2,2,2) is likelier than (2,1,4) and
  // (2,4,1), which are equally far but have smaller degree.
  auto d = computeQRandomWalkDistribution(p, start, 0.5);
  uint64_t r222 = p.rank(ParamValue{2, 2, 2}), r214 = p.rank(ParamValue{2, 1, 4}),
           r241 = p.rank(ParamValue{2, 4, 1});
  EXPECT_GT(d[r222], d[r214]);
  EXPECT_NEAR(d[r214], d[r241], 1e-15);
}

TEST(QRandomWalk, SamplerMatchesDistribution) {
  FactorizationParam p("x", 8, 3);
  ParamValue start{8, 1, 1};
  const double q = 0.5;
  Eigen::VectorXd ref = eigenDistribution(p, start, q);
  std::mt19937_64 rng(2024);
  std::map<uint64_t, int> hist;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    ParamValue v = sampleQRandomWalk(p, start, q, rng);
    ASSERT_TRUE(p.isValid(v));
    ++hist[p.rank(v)];
  }
  for (int r = 0; r < int(p.count()); ++r)
    EXPECT_NEAR(hist[r] / double(n), ref(r), 0.005) << "rank " << r;
}

TEST(QRandomWalk, OtherTopologies) {
  // Permutations, discrete and categorical parameters: still a
  // distribution, and the start value is the most likely one for q = 0.5.
  PermutationParam perm("order", {"a", "b", "c", "d"});
  DiscreteParam disc("u", {1, 2, 4, 8, 16}, 4);
  CategoricalParam cat("c", {"x", "y", "z"});
  const Parameter *params[] = {&perm, &disc, &cat};
  for (const Parameter *p : params) {
    ParamValue start(p->getWidth());
    p->getDefault(start);
    auto d = computeQRandomWalkDistribution(*p, start, 0.5);
    double sum = 0, maxOther = 0;
    for (auto [r, pr] : d) {
      sum += pr;
      if (r != p->rank(start))
        maxOther = std::max(maxOther, pr);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << p->getName().str();
    EXPECT_GT(d[p->rank(start)], maxOther) << p->getName().str();
  }
}

} // namespace
