//===- NNTest.cpp - Tests of the Eigen neural network library -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/NN.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir::tiletune::nn;
using BoolMatrix = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;

namespace {

Eigen::MatrixXd randomMatrix(Eigen::Index rows, Eigen::Index cols,
                             std::mt19937_64 &rng, double scale = 1.0) {
  std::normal_distribution<double> dist(0.0, scale);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index c = 0; c < cols; ++c)
    for (Eigen::Index r = 0; r < rows; ++r)
      m(r, c) = dist(rng);
  return m;
}

/// Compares the analytic gradient of `loss(net)` with central finite
/// differences over every parameter.
template <typename LossFn> void checkGradient(MLP &net, LossFn loss) {
  net.zeroGrad();
  loss(net, /*withGrad=*/true);
  Eigen::VectorXd analytic = net.getGradients();
  Eigen::VectorXd params = net.getParameters();
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < params.size(); ++i) {
    Eigen::VectorXd p = params;
    p(i) += h;
    net.setParameters(p);
    double up = loss(net, false);
    p(i) -= 2 * h;
    net.setParameters(p);
    double down = loss(net, false);
    double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(analytic(i), numeric, 1e-6 + 1e-4 * std::abs(numeric))
        << "parameter " << i;
  }
  net.setParameters(params);
}

TEST(NNTest, MseGradientMatchesFiniteDifferences) {
  for (Activation act : {Activation::Tanh, Activation::ReLU}) {
    std::mt19937_64 rng(7);
    MLP net({3, 5, 4, 2}, act, Activation::Identity, rng);
    Eigen::MatrixXd x = randomMatrix(6, 3, rng);
    Eigen::MatrixXd y = randomMatrix(6, 2, rng);
    checkGradient(net, [&](MLP &n, bool withGrad) {
      if (!withGrad)
        return mseLoss(n.apply(x), y);
      Eigen::MatrixXd grad;
      double l = mseLoss(n.forward(x), y, &grad);
      n.backward(grad);
      return l;
    });
  }
}

TEST(NNTest, PolicyGradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(11);
  MLP net({4, 6, 5}, Activation::Tanh, Activation::Identity, rng);
  Eigen::MatrixXd x = randomMatrix(5, 4, rng);
  BoolMatrix mask = BoolMatrix::Constant(5, 5, true);
  mask(0, 1) = false;
  mask(2, 4) = false;
  mask(3, 0) = false;
  mask(3, 2) = false;
  llvm::SmallVector<unsigned> actions = {0, 3, 1, 4, 2};
  llvm::SmallVector<double> adv = {1.5, -0.7, 0.3, 2.0, -1.1};
  checkGradient(net, [&](MLP &n, bool withGrad) {
    if (!withGrad)
      return policyGradientLoss(n.apply(x), mask, actions, adv, 0.05);
    Eigen::MatrixXd grad;
    double l =
        policyGradientLoss(n.forward(x), mask, actions, adv, 0.05, &grad);
    // Masked logits get no gradient.
    EXPECT_EQ(grad(0, 1), 0.0);
    EXPECT_EQ(grad(3, 2), 0.0);
    n.backward(grad);
    return l;
  });
}

TEST(NNTest, MaskedSoftmaxIgnoresMaskedEntries) {
  Eigen::MatrixXd logits(2, 3);
  logits << 1.0, 50.0, 1.0, 0.0, 0.0, 0.0;
  BoolMatrix mask(2, 3);
  mask << true, false, true, true, true, true;
  Eigen::MatrixXd p = maskedSoftmax(logits, mask);
  EXPECT_DOUBLE_EQ(p(0, 1), 0.0);
  EXPECT_NEAR(p(0, 0), 0.5, 1e-12);
  EXPECT_NEAR(p.row(1).sum(), 1.0, 1e-12);
}

TEST(NNTest, RegressionLossDecreases) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 128;
  Eigen::MatrixXd x(n, 2), y(n, 1);
  for (int i = 0; i < n; ++i) {
    x(i, 0) = u(rng);
    x(i, 1) = u(rng);
    y(i, 0) = std::sin(3.0 * x(i, 0)) + x(i, 1) * x(i, 1);
  }
  MLP net({2, 32, 32, 1}, Activation::Tanh, Activation::Identity, rng);
  Adam adam(0.01);
  double initial = mseLoss(net.apply(x), y);
  for (int epoch = 0; epoch < 400; ++epoch) {
    net.zeroGrad();
    Eigen::MatrixXd grad;
    mseLoss(net.forward(x), y, &grad);
    net.backward(grad);
    adam.step(net);
  }
  double final = mseLoss(net.apply(x), y);
  EXPECT_LT(final, 0.05 * initial) << "initial " << initial;
  EXPECT_LT(final, 0.02);
}

TEST(NNTest, SoftmaxClassifierLearnsSectors) {
  // Three classes by angle sector of a 2-d point; trained with the policy
  // loss with unit advantages (= cross-entropy) on minibatches.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  const int n = 300;
  Eigen::MatrixXd x(n, 2);
  llvm::SmallVector<unsigned> labels;
  for (int i = 0; i < n; ++i) {
    x(i, 0) = g(rng);
    x(i, 1) = g(rng);
    double angle = std::atan2(x(i, 1), x(i, 0)) + M_PI; // [0, 2pi]
    labels.push_back(
        std::min(2u, static_cast<unsigned>(angle / (2 * M_PI / 3))));
  }
  MLP net({2, 32, 3}, Activation::ReLU, Activation::Identity, rng);
  Adam adam(0.01);
  BoolMatrix fullMask = BoolMatrix::Constant(32, 3, true);
  std::uniform_int_distribution<int> pick(0, n - 1);
  llvm::SmallVector<double> ones(32, 1.0);
  for (int it = 0; it < 1500; ++it) {
    Eigen::MatrixXd xb(32, 2);
    llvm::SmallVector<unsigned> yb;
    for (int j = 0; j < 32; ++j) {
      int k = pick(rng);
      xb.row(j) = x.row(k);
      yb.push_back(labels[k]);
    }
    net.zeroGrad();
    Eigen::MatrixXd grad;
    policyGradientLoss(net.forward(xb), fullMask, yb, ones, 0.0, &grad);
    net.backward(grad);
    adam.step(net);
  }
  Eigen::MatrixXd logits = net.apply(x);
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    Eigen::Index best;
    logits.row(i).maxCoeff(&best);
    correct += static_cast<unsigned>(best) == labels[i];
  }
  EXPECT_GT(correct, 0.9 * n);
}

TEST(NNTest, ActorStepFollowsAdvantageSign) {
  // One policy-gradient step must raise pi(a|s) for a positive advantage and
  // lower it for a negative one (the sign bug this guards against).
  for (double advantage : {1.0, -1.0}) {
    std::mt19937_64 rng(13);
    MLP net({3, 8, 4}, Activation::Tanh, Activation::Identity, rng);
    Eigen::MatrixXd s = randomMatrix(1, 3, rng);
    BoolMatrix mask = BoolMatrix::Constant(1, 4, true);
    const unsigned action = 2;
    double before = maskedSoftmax(net.apply(s), mask)(0, action);
    SGD sgd(0.1);
    net.zeroGrad();
    Eigen::MatrixXd grad;
    llvm::SmallVector<double> adv = {advantage};
    llvm::SmallVector<unsigned> acts = {action};
    policyGradientLoss(net.forward(s), mask, acts, adv, 0.0, &grad);
    net.backward(grad);
    sgd.step(net);
    double after = maskedSoftmax(net.apply(s), mask)(0, action);
    if (advantage > 0)
      EXPECT_GT(after, before);
    else
      EXPECT_LT(after, before);
  }
}

TEST(NNTest, ParametersAndOptimizerStateRoundTrip) {
  std::mt19937_64 rng(17);
  MLP a({2, 4, 1}, Activation::ReLU, Activation::Identity, rng);
  MLP b({2, 4, 1}, Activation::ReLU, Activation::Identity, rng);
  EXPECT_NE(a.getParameters(), b.getParameters());
  b.setParameters(a.getParameters());
  EXPECT_EQ(a.getParameters(), b.getParameters());
  EXPECT_EQ(a.numParameters(), 2u * 4 + 4 + 4 + 1);

  // Two Adam optimisers, one restored from the other's state, must produce
  // identical updates.
  Eigen::MatrixXd x = randomMatrix(8, 2, rng), y = randomMatrix(8, 1, rng);
  auto trainStep = [&](MLP &net, Adam &opt) {
    net.zeroGrad();
    Eigen::MatrixXd grad;
    mseLoss(net.forward(x), y, &grad);
    net.backward(grad);
    opt.step(net);
  };
  Adam optA(0.01);
  trainStep(a, optA);
  trainStep(a, optA);
  MLP c({2, 4, 1}, Activation::ReLU, Activation::Identity, rng);
  c.setParameters(a.getParameters());
  Adam optC(0.01);
  ASSERT_TRUE(optC.setState(optA.getState()));
  trainStep(a, optA);
  trainStep(c, optC);
  EXPECT_EQ(a.getParameters(), c.getParameters());
}

} // namespace
