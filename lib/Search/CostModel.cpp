//===- CostModel.cpp - XGBoost cost model over config features ------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Thin RAII layer over the XGBoost C API: DMatrix construction, booster
// parameters, round-by-round training with AutoTVM-style early stopping on
// the training top-k recall, and prediction (see CostModel.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/CostModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

using namespace mlir::tiletune;

/// Wraps the last XGBoost error into an llvm::Error.
static llvm::Error xgbError(llvm::StringRef what) {
  const char *msg = XGBGetLastError();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "xgboost: %s failed: %s", what.str().c_str(),
                                 msg ? msg : "(no message)");
}

namespace {
/// Owns a DMatrixHandle.
class DMatrix {
public:
  DMatrix() = default;
  ~DMatrix() {
    if (handle)
      XGDMatrixFree(handle);
  }
  DMatrix(const DMatrix &) = delete;
  DMatrix &operator=(const DMatrix &) = delete;
  DMatrixHandle handle = nullptr;
};
} // namespace

/// Creates a DMatrix from a dense row-major matrix (NaN = missing).
static llvm::Error makeDMatrix(const FeatureMatrix &features, DMatrix &out) {
  if (XGDMatrixCreateFromMat(features.data(),
                             static_cast<bst_ulong>(features.rows()),
                             static_cast<bst_ulong>(features.cols()),
                             std::nanf(""), &out.handle) != 0)
    return xgbError("XGDMatrixCreateFromMat");
  return llvm::Error::success();
}

/// Runs a normal prediction with trees [0, iterationEnd) (0 = all).
static llvm::Error predictRaw(BoosterHandle booster, DMatrixHandle dmat,
                              unsigned iterationEnd, size_t expectedRows,
                              std::vector<float> &out) {
  std::string config = llvm::formatv(
      "{{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
      "\"iteration_end\": {0}, \"strict_shape\": false}",
      iterationEnd);
  const bst_ulong *shape = nullptr;
  bst_ulong dim = 0;
  const float *result = nullptr;
  if (XGBoosterPredictFromDMatrix(booster, dmat, config.c_str(), &shape, &dim,
                                  &result) != 0)
    return xgbError("XGBoosterPredictFromDMatrix");
  bst_ulong total = 1;
  for (bst_ulong i = 0; i < dim; ++i)
    total *= shape[i];
  if (total != expectedRows)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "xgboost: prediction has %llu values for %zu rows (multi-output "
        "objectives are not supported)",
        static_cast<unsigned long long>(total), expectedRows);
  out.assign(result, result + total);
  return llvm::Error::success();
}

double mlir::tiletune::averageTopKRecall(llvm::ArrayRef<float> scores,
                                         llvm::ArrayRef<float> targets,
                                         unsigned k) {
  assert(scores.size() == targets.size() && "size mismatch");
  size_t n = scores.size();
  if (n == 0)
    return 0.0;
  k = static_cast<unsigned>(std::min<size_t>(k, n));
  if (k == 0)
    return 0.0;
  auto orderBy = [&](llvm::ArrayRef<float> v) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return v[a] > v[b] || (v[a] == v[b] && a < b);
    });
    return idx;
  };
  std::vector<size_t> predOrder = orderBy(scores);
  std::vector<size_t> trueOrder = orderBy(targets);
  std::vector<char> inPred(n, 0), inTrue(n, 0);
  size_t common = 0;
  double sum = 0.0;
  for (unsigned j = 0; j < k; ++j) {
    size_t p = predOrder[j], t = trueOrder[j];
    inPred[p] = 1;
    if (inTrue[p])
      ++common;
    inTrue[t] = 1;
    if (inPred[t])
      ++common;
    sum += static_cast<double>(common) / static_cast<double>(j + 1);
  }
  return sum / k;
}

XGBoostModel::XGBoostModel(XGBoostOptions options)
    : options(std::move(options)) {}

XGBoostModel::~XGBoostModel() { release(); }

XGBoostModel::XGBoostModel(XGBoostModel &&other)
    : options(std::move(other.options)), booster(other.booster),
      numFeatures(other.numFeatures), numUsedRounds(other.numUsedRounds) {
  other.booster = nullptr;
}

XGBoostModel &XGBoostModel::operator=(XGBoostModel &&other) {
  if (this != &other) {
    release();
    options = std::move(other.options);
    booster = other.booster;
    numFeatures = other.numFeatures;
    numUsedRounds = other.numUsedRounds;
    other.booster = nullptr;
  }
  return *this;
}

void XGBoostModel::release() {
  if (booster)
    XGBoosterFree(static_cast<BoosterHandle>(booster));
  booster = nullptr;
  numUsedRounds = 0;
}

std::string XGBoostModel::getLibraryVersion() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return llvm::formatv("{0}.{1}.{2}", major, minor, patch);
}

static std::string fmtDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

llvm::Error XGBoostModel::fit(const FeatureMatrix &features,
                              llvm::ArrayRef<float> targets,
                              const Deadline &deadline) {
  release();
  if (features.rows() == 0 || features.cols() == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "xgboost: empty training set");
  if (static_cast<size_t>(features.rows()) != targets.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "xgboost: %zu targets for %lld feature rows",
                                   targets.size(),
                                   static_cast<long long>(features.rows()));
  for (float t : targets)
    if (!std::isfinite(t))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "xgboost: non-finite training target");
  if (options.numRounds == 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "xgboost: numRounds must be positive");

  DMatrix dtrain;
  if (llvm::Error err = makeDMatrix(features, dtrain))
    return err;
  if (XGDMatrixSetFloatInfo(dtrain.handle, "label", targets.data(),
                            static_cast<bst_ulong>(targets.size())) != 0)
    return xgbError("XGDMatrixSetFloatInfo(label)");
  if (llvm::StringRef(options.objective).starts_with("rank:")) {
    // All rows form one query group.
    unsigned group = static_cast<unsigned>(features.rows());
    if (XGDMatrixSetUIntInfo(dtrain.handle, "group", &group, 1) != 0)
      return xgbError("XGDMatrixSetUIntInfo(group)");
  }

  BoosterHandle handle = nullptr;
  if (XGBoosterCreate(&dtrain.handle, 1, &handle) != 0)
    return xgbError("XGBoosterCreate");
  booster = handle;

  const std::pair<const char *, std::string> params[] = {
      {"verbosity", "0"},
      {"objective", options.objective},
      {"booster", "gbtree"},
      {"tree_method", options.treeMethod},
      {"max_depth", std::to_string(options.maxDepth)},
      {"gamma", fmtDouble(options.gamma)},
      {"min_child_weight", fmtDouble(options.minChildWeight)},
      {"subsample", fmtDouble(options.subsample)},
      {"eta", fmtDouble(options.eta)},
      {"lambda", fmtDouble(options.lambda)},
      {"alpha", fmtDouble(options.alpha)},
      {"nthread", std::to_string(options.numThreads)},
      {"seed", std::to_string(options.seed)},
  };
  for (const auto &[key, value] : params) {
    if (XGBoosterSetParam(handle, key, value.c_str()) != 0) {
      llvm::Error err = xgbError(
          llvm::formatv("XGBoosterSetParam({0}={1})", key, value).str());
      release();
      return err;
    }
  }

  size_t n = static_cast<size_t>(features.rows());
  double bestRecall = -1.0;
  unsigned bestRound = 0;
  std::vector<float> preds;
  for (unsigned round = 0; round < options.numRounds; ++round) {
    if (XGBoosterUpdateOneIter(handle, static_cast<int>(round),
                               dtrain.handle) != 0) {
      llvm::Error err = xgbError("XGBoosterUpdateOneIter");
      release();
      return err;
    }
    if (options.earlyStoppingRounds == 0) {
      bestRound = round;
      if (deadline.passed())
        break;
      continue;
    }
    if (llvm::Error err = predictRaw(handle, dtrain.handle, 0, n, preds)) {
      release();
      return err;
    }
    double recall = averageTopKRecall(preds, targets, options.recallK);
    if (recall > bestRecall) {
      bestRecall = recall;
      bestRound = round;
    } else if (round - bestRound >= options.earlyStoppingRounds) {
      break;
    }
    // Out of time: keep the best round so far.
    if (deadline.passed())
      break;
  }
  numFeatures = static_cast<unsigned>(features.cols());
  numUsedRounds = bestRound + 1;
  return llvm::Error::success();
}

llvm::Expected<std::vector<float>>
XGBoostModel::predict(const FeatureMatrix &features) const {
  if (!booster)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "xgboost: predict before a successful fit");
  if (features.cols() != numFeatures)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "xgboost: %lld features given, model was trained on %u",
        static_cast<long long>(features.cols()), numFeatures);
  std::vector<float> out;
  if (features.rows() == 0)
    return out;
  DMatrix dmat;
  if (llvm::Error err = makeDMatrix(features, dmat))
    return std::move(err);
  if (llvm::Error err =
          predictRaw(static_cast<BoosterHandle>(booster), dmat.handle,
                     numUsedRounds, static_cast<size_t>(features.rows()), out))
    return std::move(err);
  return out;
}
