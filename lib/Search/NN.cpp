//===- NN.cpp - Small dense neural networks on Eigen ----------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Dense layers, an MLP with back-propagation, actor-critic losses and the
// SGD/Adam optimisers (see NN.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/NN.h"

#include <cassert>
#include <cmath>
#include <limits>

using namespace mlir::tiletune::nn;

//===----------------------------------------------------------------------===//
// DenseLayer
//===----------------------------------------------------------------------===//

DenseLayer::DenseLayer(unsigned inputs, unsigned outputs, Activation act,
                       std::mt19937_64 &rng)
    : weights(outputs, inputs), bias(Eigen::VectorXd::Zero(outputs)),
      gradWeights(Eigen::MatrixXd::Zero(outputs, inputs)),
      gradBias(Eigen::VectorXd::Zero(outputs)), act(act) {
  assert(inputs > 0 && outputs > 0 && "empty layer");
  // Glorot-uniform for tanh/identity, He-uniform for ReLU.
  double limit = act == Activation::ReLU ? std::sqrt(6.0 / inputs)
                                         : std::sqrt(6.0 / (inputs + outputs));
  std::uniform_real_distribution<double> dist(-limit, limit);
  // Column-major fill order, fixed for reproducibility.
  for (Eigen::Index c = 0; c < weights.cols(); ++c)
    for (Eigen::Index r = 0; r < weights.rows(); ++r)
      weights(r, c) = dist(rng);
}

static Eigen::MatrixXd activate(Activation act, const Eigen::MatrixXd &pre) {
  switch (act) {
  case Activation::Identity:
    return pre;
  case Activation::ReLU:
    return pre.cwiseMax(0.0);
  case Activation::Tanh:
    return pre.array().tanh().matrix();
  }
  return pre;
}

Eigen::MatrixXd DenseLayer::apply(const Eigen::MatrixXd &input) const {
  assert(input.cols() == weights.cols() && "input width mismatch");
  Eigen::MatrixXd pre = input * weights.transpose();
  pre.rowwise() += bias.transpose();
  return activate(act, pre);
}

Eigen::MatrixXd DenseLayer::forward(const Eigen::MatrixXd &input) {
  assert(input.cols() == weights.cols() && "input width mismatch");
  cachedInput = input;
  cachedPre = input * weights.transpose();
  cachedPre.rowwise() += bias.transpose();
  return activate(act, cachedPre);
}

Eigen::MatrixXd DenseLayer::backward(const Eigen::MatrixXd &gradOutput) {
  assert(gradOutput.rows() == cachedPre.rows() &&
         gradOutput.cols() == cachedPre.cols() && "backward before forward");
  Eigen::MatrixXd gradPre;
  switch (act) {
  case Activation::Identity:
    gradPre = gradOutput;
    break;
  case Activation::ReLU:
    gradPre = (cachedPre.array() > 0.0).cast<double>() * gradOutput.array();
    break;
  case Activation::Tanh: {
    Eigen::ArrayXXd t = cachedPre.array().tanh();
    gradPre = ((1.0 - t.square()) * gradOutput.array()).matrix();
    break;
  }
  }
  gradWeights.noalias() += gradPre.transpose() * cachedInput;
  gradBias.noalias() += gradPre.colwise().sum().transpose();
  return gradPre * weights;
}

void DenseLayer::zeroGrad() {
  gradWeights.setZero();
  gradBias.setZero();
}

//===----------------------------------------------------------------------===//
// MLP
//===----------------------------------------------------------------------===//

MLP::MLP(llvm::ArrayRef<unsigned> sizes, Activation hidden, Activation output,
         std::mt19937_64 &rng) {
  assert(sizes.size() >= 2 && "an MLP needs inputs and outputs");
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    bool last = i + 2 == sizes.size();
    layers.emplace_back(sizes[i], sizes[i + 1], last ? output : hidden, rng);
  }
}

Eigen::MatrixXd MLP::forward(const Eigen::MatrixXd &input) {
  Eigen::MatrixXd x = input;
  for (DenseLayer &layer : layers)
    x = layer.forward(x);
  return x;
}

Eigen::MatrixXd MLP::apply(const Eigen::MatrixXd &input) const {
  Eigen::MatrixXd x = input;
  for (const DenseLayer &layer : layers)
    x = layer.apply(x);
  return x;
}

Eigen::MatrixXd MLP::backward(const Eigen::MatrixXd &gradOutput) {
  Eigen::MatrixXd g = gradOutput;
  for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    g = it->backward(g);
  return g;
}

void MLP::zeroGrad() {
  for (DenseLayer &layer : layers)
    layer.zeroGrad();
}

size_t MLP::numParameters() const {
  size_t n = 0;
  for (const DenseLayer &layer : layers)
    n += layer.weights.size() + layer.bias.size();
  return n;
}

Eigen::VectorXd MLP::getParameters() const {
  Eigen::VectorXd out(numParameters());
  Eigen::Index pos = 0;
  for (const DenseLayer &layer : layers) {
    out.segment(pos, layer.weights.size()) = Eigen::Map<const Eigen::VectorXd>(
        layer.weights.data(), layer.weights.size());
    pos += layer.weights.size();
    out.segment(pos, layer.bias.size()) = layer.bias;
    pos += layer.bias.size();
  }
  return out;
}

void MLP::setParameters(const Eigen::VectorXd &params) {
  assert(static_cast<size_t>(params.size()) == numParameters() &&
         "parameter count mismatch");
  Eigen::Index pos = 0;
  for (DenseLayer &layer : layers) {
    Eigen::Map<Eigen::VectorXd>(layer.weights.data(), layer.weights.size()) =
        params.segment(pos, layer.weights.size());
    pos += layer.weights.size();
    layer.bias = params.segment(pos, layer.bias.size());
    pos += layer.bias.size();
  }
}

Eigen::VectorXd MLP::getGradients() const {
  Eigen::VectorXd out(numParameters());
  Eigen::Index pos = 0;
  for (const DenseLayer &layer : layers) {
    out.segment(pos, layer.gradWeights.size()) =
        Eigen::Map<const Eigen::VectorXd>(layer.gradWeights.data(),
                                          layer.gradWeights.size());
    pos += layer.gradWeights.size();
    out.segment(pos, layer.gradBias.size()) = layer.gradBias;
    pos += layer.gradBias.size();
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Optimisers
//===----------------------------------------------------------------------===//

Optimizer::~Optimizer() = default;

void SGD::step(MLP &net) {
  Eigen::VectorXd grad = net.getGradients();
  if (velocity.size() != grad.size())
    velocity = Eigen::VectorXd::Zero(grad.size());
  velocity = momentum * velocity + grad;
  net.setParameters(net.getParameters() - learningRate * velocity);
}

std::vector<double> SGD::getState() const {
  return std::vector<double>(velocity.data(),
                             velocity.data() + velocity.size());
}

bool SGD::setState(llvm::ArrayRef<double> state) {
  velocity = Eigen::Map<const Eigen::VectorXd>(state.data(), state.size());
  return true;
}

void Adam::step(MLP &net) {
  Eigen::VectorXd grad = net.getGradients();
  if (firstMoment.size() != grad.size()) {
    firstMoment = Eigen::VectorXd::Zero(grad.size());
    secondMoment = Eigen::VectorXd::Zero(grad.size());
    numSteps = 0;
  }
  ++numSteps;
  firstMoment = beta1 * firstMoment + (1.0 - beta1) * grad;
  secondMoment =
      beta2 * secondMoment + (1.0 - beta2) * grad.array().square().matrix();
  double c1 = 1.0 - std::pow(beta1, static_cast<double>(numSteps));
  double c2 = 1.0 - std::pow(beta2, static_cast<double>(numSteps));
  Eigen::ArrayXd update = (firstMoment.array() / c1) /
                          ((secondMoment.array() / c2).sqrt() + epsilon);
  net.setParameters(net.getParameters() - learningRate * update.matrix());
}

std::vector<double> Adam::getState() const {
  std::vector<double> out;
  out.reserve(1 + 2 * firstMoment.size());
  out.push_back(static_cast<double>(numSteps));
  out.insert(out.end(), firstMoment.data(),
             firstMoment.data() + firstMoment.size());
  out.insert(out.end(), secondMoment.data(),
             secondMoment.data() + secondMoment.size());
  return out;
}

bool Adam::setState(llvm::ArrayRef<double> state) {
  if (state.empty() || (state.size() - 1) % 2 != 0)
    return false;
  size_t n = (state.size() - 1) / 2;
  numSteps = static_cast<uint64_t>(state[0]);
  firstMoment = Eigen::Map<const Eigen::VectorXd>(state.data() + 1, n);
  secondMoment = Eigen::Map<const Eigen::VectorXd>(state.data() + 1 + n, n);
  return true;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

double mlir::tiletune::nn::mseLoss(const Eigen::MatrixXd &pred,
                                   const Eigen::MatrixXd &target,
                                   Eigen::MatrixXd *grad) {
  assert(pred.rows() == target.rows() && pred.cols() == target.cols() &&
         "shape mismatch");
  Eigen::MatrixXd diff = pred - target;
  double n = static_cast<double>(diff.size());
  if (grad)
    *grad = (2.0 / n) * diff;
  return diff.squaredNorm() / n;
}

Eigen::MatrixXd mlir::tiletune::nn::maskedSoftmax(
    const Eigen::MatrixXd &logits,
    const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> &mask) {
  assert(logits.rows() == mask.rows() && logits.cols() == mask.cols() &&
         "mask shape mismatch");
  Eigen::MatrixXd probs = Eigen::MatrixXd::Zero(logits.rows(), logits.cols());
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    double maxLogit = -std::numeric_limits<double>::infinity();
    for (Eigen::Index c = 0; c < logits.cols(); ++c)
      if (mask(r, c))
        maxLogit = std::max(maxLogit, logits(r, c));
    assert(std::isfinite(maxLogit) && "row without an allowed entry");
    double sum = 0.0;
    for (Eigen::Index c = 0; c < logits.cols(); ++c)
      if (mask(r, c)) {
        probs(r, c) = std::exp(logits(r, c) - maxLogit);
        sum += probs(r, c);
      }
    probs.row(r) /= sum;
  }
  return probs;
}

double mlir::tiletune::nn::policyGradientLoss(
    const Eigen::MatrixXd &logits,
    const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> &mask,
    llvm::ArrayRef<unsigned> actions, llvm::ArrayRef<double> advantages,
    double entropyCoef, Eigen::MatrixXd *gradLogits) {
  Eigen::Index n = logits.rows();
  assert(static_cast<size_t>(n) == actions.size() &&
         actions.size() == advantages.size() && "batch size mismatch");
  Eigen::MatrixXd probs = maskedSoftmax(logits, mask);
  if (gradLogits)
    *gradLogits = Eigen::MatrixXd::Zero(logits.rows(), logits.cols());
  double loss = 0.0;
  double invN = 1.0 / static_cast<double>(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    unsigned a = actions[r];
    assert(a < logits.cols() && mask(r, a) && "chosen action is masked");
    double logP = std::log(std::max(probs(r, a), 1e-300));
    // Entropy over the allowed entries.
    double entropy = 0.0;
    for (Eigen::Index c = 0; c < logits.cols(); ++c)
      if (mask(r, c) && probs(r, c) > 0.0)
        entropy -= probs(r, c) * std::log(probs(r, c));
    loss += -advantages[r] * logP * invN - entropyCoef * entropy * invN;
    if (!gradLogits)
      continue;
    for (Eigen::Index c = 0; c < logits.cols(); ++c) {
      if (!mask(r, c))
        continue;
      double p = probs(r, c);
      // d(-A log p_a)/dz_c = A (p_c - [c == a]).
      double g = advantages[r] * (p - (c == a ? 1.0 : 0.0));
      // d(-beta H)/dz_c = beta p_c (log p_c + H).
      if (p > 0.0)
        g += entropyCoef * p * (std::log(p) + entropy);
      (*gradLogits)(r, c) = g * invN;
    }
  }
  return loss;
}
