//===- NN.h - Small dense neural networks on Eigen --------------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// A minimal, dependency-light neural network library used by the N-A2C search
// strategy: fully connected layers with ReLU/tanh activations, a multi-layer
// perceptron with exact back-propagation, the losses an advantage actor-critic
// needs (mean squared error for the value head, a masked-softmax policy
// gradient loss with an entropy bonus for the policy head) and the Adam and
// SGD optimisers. All arithmetic is Eigen (double precision); samples are the
// rows of a matrix.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_NN_H
#define TILETUNE_SEARCH_NN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <Eigen/Dense>

#include <cstdint>
#include <random>
#include <vector>

namespace mlir {
namespace tiletune {
namespace nn {

/// Element-wise activation functions of a dense layer.
enum class Activation { Identity, ReLU, Tanh };

/// One fully connected layer `y = act(x W^T + b)` on a batch whose samples are
/// the rows of `x`. The layer caches what back-propagation needs.
class DenseLayer {
public:
  /// Creates a layer with `inputs` inputs and `outputs` outputs. Weights are
  /// drawn from a uniform Glorot (tanh/identity) or He (ReLU) distribution
  /// using `rng`; biases start at zero.
  DenseLayer(unsigned inputs, unsigned outputs, Activation act,
             std::mt19937_64 &rng);

  /// Forward pass for training: caches the input and pre-activation.
  Eigen::MatrixXd forward(const Eigen::MatrixXd &input);
  /// Forward pass without caching (inference).
  Eigen::MatrixXd apply(const Eigen::MatrixXd &input) const;
  /// Back-propagates `gradOutput` (dLoss/dOutput, one row per sample) through
  /// the last `forward` call, accumulates the parameter gradients and returns
  /// dLoss/dInput.
  Eigen::MatrixXd backward(const Eigen::MatrixXd &gradOutput);

  /// Sets the accumulated gradients to zero.
  void zeroGrad();

  unsigned numInputs() const { return weights.cols(); }
  unsigned numOutputs() const { return weights.rows(); }
  Activation getActivation() const { return act; }

  /// Parameters (outputs x inputs) and bias (outputs).
  Eigen::MatrixXd weights;
  Eigen::VectorXd bias;
  /// Accumulated gradients of the same shapes.
  Eigen::MatrixXd gradWeights;
  Eigen::VectorXd gradBias;

private:
  Activation act;
  Eigen::MatrixXd cachedInput;
  Eigen::MatrixXd cachedPre;
};

/// A multi-layer perceptron: a stack of dense layers, hidden layers sharing
/// one activation and the last layer its own (usually Identity: logits or a
/// value).
class MLP {
public:
  /// `sizes` = {inputs, hidden..., outputs}; needs at least two entries.
  MLP(llvm::ArrayRef<unsigned> sizes, Activation hidden, Activation output,
      std::mt19937_64 &rng);

  /// Training forward pass (caches activations for `backward`).
  Eigen::MatrixXd forward(const Eigen::MatrixXd &input);
  /// Inference forward pass.
  Eigen::MatrixXd apply(const Eigen::MatrixXd &input) const;
  /// Back-propagates dLoss/dOutput of the last `forward` call, accumulating
  /// parameter gradients; returns dLoss/dInput.
  Eigen::MatrixXd backward(const Eigen::MatrixXd &gradOutput);
  /// Sets all accumulated gradients to zero.
  void zeroGrad();

  /// Total number of scalar parameters.
  size_t numParameters() const;
  /// All parameters flattened (layer by layer: weights column-major, bias).
  Eigen::VectorXd getParameters() const;
  /// Inverse of getParameters(); `params` must have numParameters() entries.
  void setParameters(const Eigen::VectorXd &params);
  /// Accumulated gradients in the getParameters() order.
  Eigen::VectorXd getGradients() const;

  unsigned numInputs() const { return layers.front().numInputs(); }
  unsigned numOutputs() const { return layers.back().numOutputs(); }
  llvm::ArrayRef<DenseLayer> getLayers() const { return layers; }
  llvm::MutableArrayRef<DenseLayer> getLayers() { return layers; }

private:
  llvm::SmallVector<DenseLayer, 4> layers;
};

/// Interface of a first-order optimiser over an MLP's accumulated gradients.
class Optimizer {
public:
  virtual ~Optimizer();
  /// Applies one update to `net` from its accumulated gradients.
  virtual void step(MLP &net) = 0;
  /// Optimiser state (moments, step count) flattened, for serialisation.
  virtual std::vector<double> getState() const = 0;
  /// Restores getState(); returns false when the size does not match.
  virtual bool setState(llvm::ArrayRef<double> state) = 0;
};

/// Plain stochastic gradient descent with optional momentum.
class SGD : public Optimizer {
public:
  explicit SGD(double learningRate, double momentum = 0.0)
      : learningRate(learningRate), momentum(momentum) {}
  void step(MLP &net) override;
  std::vector<double> getState() const override;
  bool setState(llvm::ArrayRef<double> state) override;

private:
  double learningRate, momentum;
  Eigen::VectorXd velocity;
};

/// Adam (Kingma & Ba, 2015) with bias correction.
class Adam : public Optimizer {
public:
  explicit Adam(double learningRate = 1e-3, double beta1 = 0.9,
                double beta2 = 0.999, double epsilon = 1e-8)
      : learningRate(learningRate), beta1(beta1), beta2(beta2),
        epsilon(epsilon) {}
  void step(MLP &net) override;
  std::vector<double> getState() const override;
  bool setState(llvm::ArrayRef<double> state) override;
  uint64_t getNumSteps() const { return numSteps; }

private:
  double learningRate, beta1, beta2, epsilon;
  uint64_t numSteps = 0;
  Eigen::VectorXd firstMoment, secondMoment;
};

/// Mean squared error `mean((pred - target)^2)` over all entries. When `grad`
/// is non-null it receives dLoss/dPred.
double mseLoss(const Eigen::MatrixXd &pred, const Eigen::MatrixXd &target,
               Eigen::MatrixXd *grad = nullptr);

/// Row-wise softmax of `logits` restricted to the entries where `mask` is
/// true (others get probability 0). Every row must have a true entry.
Eigen::MatrixXd
maskedSoftmax(const Eigen::MatrixXd &logits,
              const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> &mask);

/// Policy-gradient (actor) loss over a batch:
///   L = -mean_i[ A_i * log pi(a_i | s_i) ] - entropyCoef * mean_i[ H(pi_i) ]
/// with pi = maskedSoftmax(logits, mask). Minimising L raises the probability
/// of actions with a positive advantage and lowers it for a negative one.
/// With all advantages 1 and no entropy term this is softmax cross-entropy.
/// When `gradLogits` is non-null it receives dL/dLogits (0 on masked
/// entries). Every chosen action must be allowed by the mask.
double policyGradientLoss(
    const Eigen::MatrixXd &logits,
    const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> &mask,
    llvm::ArrayRef<unsigned> actions, llvm::ArrayRef<double> advantages,
    double entropyCoef, Eigen::MatrixXd *gradLogits = nullptr);

} // namespace nn
} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_SEARCH_NN_H
