//===- CostModel.h - XGBoost cost model over config features ----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// A learned cost model for model-based search strategies (the AutoTVM-style
// baseline and AutoMCL): gradient-boosted trees trained with the real XGBoost
// C API (libxgboost) on a dense feature matrix (one row per configuration)
// and a target per row where HIGHER IS BETTER (e.g. normalised throughput).
// The objective is configurable (`rank:pairwise` for AutoTVM's rank loss,
// `reg:squarederror` for a regressor). Training runs up to `numRounds`
// boosting rounds and, like AutoTVM, stops early when the average top-k
// recall on the training set has not improved for `earlyStoppingRounds`
// rounds; prediction then uses the trees up to the best round.
//
// Determinism: with a fixed `seed` and `numThreads` the model is a pure
// function of its training data (tests use numThreads = 1).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_COSTMODEL_H
#define TILETUNE_SEARCH_COSTMODEL_H

#include "tiletune/Support/Deadline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace tiletune {

/// Dense row-major feature matrix: one row per configuration (the layout the
/// XGBoost C API reads directly).
using FeatureMatrix =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Hyper-parameters of the XGBoost cost model. Defaults are AutoTVM's
/// (python/tvm/autotvm/tuner/xgboost_cost_model.py): depth-3 trees, eta 0.3,
/// gamma 1e-4, lambda 1, alpha 0, up to 8000 rounds with early stopping after
/// 20 rounds without improvement of the top-64 recall.
struct XGBoostOptions {
  /// XGBoost objective, e.g. "rank:pairwise" or "reg:squarederror".
  std::string objective = "rank:pairwise";
  unsigned maxDepth = 3;
  double gamma = 1e-4;
  double minChildWeight = 1.0;
  double subsample = 1.0;
  double eta = 0.3;
  double lambda = 1.0;
  double alpha = 0.0;
  /// XGBoost tree construction algorithm ("exact", "hist", "approx").
  std::string treeMethod = "exact";
  /// Maximum number of boosting rounds.
  unsigned numRounds = 8000;
  /// Stop when the training top-k recall has not improved for this many
  /// rounds; 0 trains all `numRounds` rounds.
  unsigned earlyStoppingRounds = 20;
  /// k of the average top-k recall used for early stopping (AutoTVM uses the
  /// plan size).
  unsigned recallK = 64;
  /// XGBoost threads (1 for bit-reproducible tests).
  int numThreads = 1;
  /// XGBoost random seed (row subsampling, rank pair sampling).
  uint64_t seed = 0;
};

/// Average top-k recall of `scores` against `targets` (both higher is
/// better): the mean over j = 1..k of |predicted top-j ∩ true top-j| / j.
/// 1.0 means the predicted order of the k best is exact. Ties are broken by
/// row index. k is clamped to the number of rows.
double averageTopKRecall(llvm::ArrayRef<float> scores,
                         llvm::ArrayRef<float> targets, unsigned k);

/// Gradient-boosted-tree cost model over the XGBoost C API.
class XGBoostModel {
public:
  explicit XGBoostModel(XGBoostOptions options = {});
  ~XGBoostModel();
  XGBoostModel(const XGBoostModel &) = delete;
  XGBoostModel &operator=(const XGBoostModel &) = delete;
  XGBoostModel(XGBoostModel &&other);
  XGBoostModel &operator=(XGBoostModel &&other);

  /// Trains a fresh model (any previous one is discarded) on `features`
  /// (rows = samples) and `targets` (one per row, higher is better). Fails
  /// with XGBoost's message on any C API error or on malformed input. Once
  /// `deadline` has passed, boosting stops after the current round (at least
  /// one round is trained): the model is then usable, with fewer trees.
  llvm::Error fit(const FeatureMatrix &features, llvm::ArrayRef<float> targets,
                  const Deadline &deadline = {});

  /// Predicted scores (higher is better) for every row of `features`. Fails
  /// when the model is untrained or the width differs from training.
  llvm::Expected<std::vector<float>>
  predict(const FeatureMatrix &features) const;

  /// True once fit() succeeded.
  bool isTrained() const { return booster != nullptr; }
  /// Number of boosting rounds used for prediction (best round + 1).
  unsigned getNumTrees() const { return numUsedRounds; }
  const XGBoostOptions &getOptions() const { return options; }

  /// The XGBoost library version, e.g. "1.7.4".
  static std::string getLibraryVersion();

private:
  void release();

  XGBoostOptions options;
  void *booster = nullptr;
  unsigned numFeatures = 0;
  unsigned numUsedRounds = 0;
};

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_SEARCH_COSTMODEL_H
