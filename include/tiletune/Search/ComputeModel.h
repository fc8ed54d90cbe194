//===- ComputeModel.h - AutoMCL's learned choice of compute -----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// AutoMCL's "learning to choose schedules" (paper 001, Sec. 3 and Fig. 3):
// an XGBoost classifier over the matrix sizes that predicts the fastest
// compute (tmm, lpmm, rpmmv, dpmm, and for a B stored N x K ttmm and
// dnmm332: the `compute` option of a cpu config) of a matmul form, so that
// the automcl strategy spends no trials on the compute.
// The model is a versioned JSON file made for one CPU target by
// bench/automcl/train.py from the measurements of bench/automcl/collect.py
// (docs/Search.md, "AutoMCL's compute model"). MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_COMPUTEMODEL_H
#define TILETUNE_SEARCH_COMPUTEMODEL_H

#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::tiletune {

/// A loaded compute model.
class ComputeModel {
public:
  /// The "format" field of a model file.
  static constexpr const char *kFormat = "tiletune-automcl-compute-model";
  /// The version this build reads and writes; a file of another version is
  /// stale.
  static constexpr int64_t kVersion = 1;

  ComputeModel(ComputeModel &&) noexcept;
  ComputeModel &operator=(ComputeModel &&) noexcept;
  ~ComputeModel();

  /// Parses model file text made for `target`. Errors say why the model
  /// cannot be used: not a model file (foreign), another version (stale),
  /// another CPU name or feature set (stale: regenerate it on this CPU), or
  /// an unreadable booster.
  static llvm::Expected<ComputeModel> parse(llvm::StringRef text,
                                            const CPUDescription &target);
  /// parse() of the file at `path` (a missing file is an error too).
  static llvm::Expected<ComputeModel> load(llvm::StringRef path,
                                           const CPUDescription &target);

  /// The predicted fastest compute of an M x K times K x N matmul.
  llvm::Expected<std::string> predict(int64_t m, int64_t n, int64_t k) const;

  /// The computes the model chooses among (its classes, in order).
  llvm::ArrayRef<std::string> getComputes() const { return computes; }
  /// The op form the training data was measured on (its "op" field:
  /// matmul, or matmul_transpose_b for nn.Linear's B stored N x K, where
  /// ttmm and dnmm332 apply too); the model chooses for that form only.
  OpKind getOpKind() const { return opKind; }
  /// The thread count the training data was measured with.
  int64_t getThreads() const { return threads; }

  /// The feature vector of a size, in the order of the "features" field
  /// (m, n, k, log2(m n k)): what train.py and predict() both use.
  static llvm::SmallVector<float> getFeatures(int64_t m, int64_t n, int64_t k);
  /// The names of those features.
  static llvm::ArrayRef<llvm::StringRef> getFeatureNames();

private:
  ComputeModel() = default;
  llvm::SmallVector<std::string> computes;
  OpKind opKind = OpKind::Matmul;
  int64_t threads = 0;
  /// The XGBoost booster (BoosterHandle), freed with the model.
  void *booster = nullptr;
};

} // namespace mlir::tiletune

#endif // TILETUNE_SEARCH_COMPUTEMODEL_H
