//===- ComputeModel.cpp - AutoMCL's learned choice of compute -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Reading a versioned compute-model file (bench/automcl/train.py writes
// it) and predicting the compute of a matmul size with its XGBoost
// classifier (multi:softprob, one probability per compute).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/ComputeModel.h"

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <xgboost/c_api.h>

using namespace llvm;
using namespace mlir::tiletune;

static Error modelError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

ComputeModel::ComputeModel(ComputeModel &&other) noexcept
    : computes(std::move(other.computes)), opKind(other.opKind),
      threads(other.threads), booster(other.booster) {
  other.booster = nullptr;
}

ComputeModel &ComputeModel::operator=(ComputeModel &&other) noexcept {
  if (this != &other) {
    if (booster)
      XGBoosterFree(static_cast<BoosterHandle>(booster));
    computes = std::move(other.computes);
    opKind = other.opKind;
    threads = other.threads;
    booster = other.booster;
    other.booster = nullptr;
  }
  return *this;
}

ComputeModel::~ComputeModel() {
  if (booster)
    XGBoosterFree(static_cast<BoosterHandle>(booster));
}

ArrayRef<StringRef> ComputeModel::getFeatureNames() {
  static const StringRef names[] = {"m", "n", "k", "log2_mnk"};
  return names;
}

SmallVector<float> ComputeModel::getFeatures(int64_t m, int64_t n, int64_t k) {
  double volume = double(m) * double(n) * double(k);
  return {float(m), float(n), float(k),
          float(std::log2(std::max(1.0, volume)))};
}

Expected<ComputeModel> ComputeModel::parse(StringRef text,
                                           const CPUDescription &target) {
  Expected<json::Value> value = json::parse(text);
  if (!value) {
    consumeError(value.takeError());
    return modelError("not a compute model (not JSON)");
  }
  const json::Object *root = value->getAsObject();
  std::optional<StringRef> format =
      root ? root->getString("format") : std::nullopt;
  if (!format || *format != kFormat)
    return modelError(Twine("not a compute model (no \"format\": \"") +
                      kFormat + "\")");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version || *version != kVersion)
    return modelError("stale compute model: version " +
                      (version ? std::to_string(*version) : "(none)") +
                      ", this build reads version " + Twine(kVersion) +
                      " (regenerate it, docs/Search.md)");
  const json::Object *tgt = root->getObject("target");
  if (!tgt)
    return modelError("compute model without a \"target\"");
  std::optional<StringRef> cpu = tgt->getString("cpu");
  std::optional<StringRef> isa = tgt->getString("isa");
  std::optional<int64_t> bits = tgt->getInteger("vector_bits");
  if (!cpu || !isa || !bits)
    return modelError("compute model target needs \"cpu\", \"isa\" and "
                      "\"vector_bits\"");
  if (*cpu != target.cpu || *isa != target.getISAName() ||
      *bits != target.vectorBits)
    return modelError("stale compute model: made for " + *cpu + " (" + *isa +
                      ", " + Twine(*bits) + "-bit vectors), the target is " +
                      target.cpu + " (" + target.getISAName() + ", " +
                      Twine(target.vectorBits) +
                      "-bit vectors); regenerate it on this CPU "
                      "(docs/Search.md)");
  const json::Array *features = root->getArray("features");
  ArrayRef<StringRef> expected = getFeatureNames();
  bool sameFeatures = features && features->size() == expected.size();
  for (size_t i = 0; sameFeatures && i < expected.size(); ++i)
    sameFeatures = (*features)[i].getAsString() == expected[i];
  if (!sameFeatures)
    return modelError("stale compute model: its features are not m, n, k, "
                      "log2_mnk");
  ComputeModel model;
  const json::Array *computes = root->getArray("computes");
  if (!computes || computes->size() < 1)
    return modelError("compute model without \"computes\"");
  for (const json::Value &c : *computes) {
    std::optional<StringRef> name = c.getAsString();
    if (!name || !getPackOfCompute(*name))
      return modelError("compute model names a compute the cpu passes do not "
                        "generate: " +
                        (name ? *name : StringRef("(not a string)")));
    model.computes.push_back(name->str());
  }
  model.threads = root->getInteger("threads").value_or(0);
  // The op form the sizes were measured on; files of the first trainings
  // have none and were measured on plain matmuls.
  std::optional<StringRef> opName = root->getString("op");
  std::optional<OpKind> kind =
      opName ? symbolizeOpKind(*opName) : OpKind::Matmul;
  if (!kind || !getMatmulForm(*kind) || getMatmulForm(*kind)->batched)
    return modelError("compute model for \"" + opName.value_or("") +
                      "\": the model chooses the compute of a matmul form "
                      "(matmul, matmul_transpose_b, ...)");
  model.opKind = *kind;
  for (const std::string &c : model.computes)
    if (!isComputeApplicable(*kind, *getPackOfCompute(c)))
      return modelError("compute model for " + stringifyOpKind(*kind) +
                        " names compute " + c + ", which does not apply to it");
  // The booster is XGBoost's own JSON as a string: reprinting it through
  // another JSON library would turn its floats 0.0 into integers, which
  // XGBoost refuses.
  std::optional<StringRef> boosterText = root->getString("booster");
  if (!boosterText)
    return modelError("compute model without a \"booster\" (XGBoost JSON "
                      "text)");
  BoosterHandle handle = nullptr;
  if (XGBoosterCreate(nullptr, 0, &handle) != 0)
    return modelError(Twine("xgboost: XGBoosterCreate failed: ") +
                      XGBGetLastError());
  model.booster = handle;
  if (XGBoosterLoadModelFromBuffer(handle, boosterText->data(),
                                   boosterText->size()) != 0)
    return modelError(Twine("compute model: unreadable booster: ") +
                      XGBGetLastError());
  // The classifier must have one output per compute.
  Expected<std::string> probe = model.predict(64, 64, 64);
  if (!probe)
    return probe.takeError();
  return std::move(model);
}

Expected<ComputeModel> ComputeModel::load(StringRef path,
                                          const CPUDescription &target) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return modelError("cannot read compute model '" + path +
                      "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), target);
}

Expected<std::string> ComputeModel::predict(int64_t m, int64_t n,
                                            int64_t k) const {
  SmallVector<float> row = getFeatures(m, n, k);
  DMatrixHandle dmat = nullptr;
  if (XGDMatrixCreateFromMat(row.data(), 1, row.size(), NAN, &dmat) != 0)
    return modelError(Twine("xgboost: XGDMatrixCreateFromMat failed: ") +
                      XGBGetLastError());
  bst_ulong length = 0;
  const float *out = nullptr;
  int rc = XGBoosterPredict(static_cast<BoosterHandle>(booster), dmat,
                            /*option_mask=*/0, /*ntree_limit=*/0,
                            /*training=*/0, &length, &out);
  if (rc != 0) {
    std::string why = XGBGetLastError();
    XGDMatrixFree(dmat);
    return modelError("xgboost: prediction failed: " + why);
  }
  SmallVector<float> scores(out, out + length);
  XGDMatrixFree(dmat);
  if (scores.size() != computes.size())
    return modelError("compute model predicts " + Twine(scores.size()) +
                      " classes for " + Twine(computes.size()) + " computes");
  size_t best = std::max_element(scores.begin(), scores.end()) - scores.begin();
  return computes[best];
}
