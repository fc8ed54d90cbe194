//===- ComputeModelTest.cpp - Tests of AutoMCL's compute model ------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The versioned compute-model file (a small XGBoost classifier trained here
// through the C API, wrapped as bench/automcl/train.py wraps its model):
// prediction, refusal of foreign, stale and missing files, and the automcl
// strategy fixing the predicted compute or falling back to searching it.
//
//===----------------------------------------------------------------------===//

#include "SearchTestUtils.h"

#include "tiletune/Search/ComputeModel.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <set>
#include <xgboost/c_api.h>

using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;
using llvm::SmallVector;

namespace {

/// A classifier that says tmm for m <= 16 and rpmmv above: the booster of a
/// multi:softprob model trained on sizes, as XGBoost JSON text.
std::string trainBooster() {
  std::vector<float> rows;
  std::vector<float> labels;
  for (int64_t m : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512})
    for (int64_t n : {16, 64, 256})
      for (int64_t k : {16, 64, 256}) {
        SmallVector<float> f = ComputeModel::getFeatures(m, n, k);
        rows.insert(rows.end(), f.begin(), f.end());
        labels.push_back(m <= 16 ? 0.0f : 1.0f);
      }
  size_t numFeatures = ComputeModel::getFeatureNames().size();
  DMatrixHandle dtrain = nullptr;
  EXPECT_EQ(XGDMatrixCreateFromMat(rows.data(), labels.size(), numFeatures,
                                   NAN, &dtrain),
            0);
  EXPECT_EQ(XGDMatrixSetFloatInfo(dtrain, "label", labels.data(),
                                  labels.size()),
            0);
  BoosterHandle booster = nullptr;
  EXPECT_EQ(XGBoosterCreate(&dtrain, 1, &booster), 0);
  XGBoosterSetParam(booster, "objective", "multi:softprob");
  XGBoosterSetParam(booster, "num_class", "2");
  XGBoosterSetParam(booster, "max_depth", "2");
  XGBoosterSetParam(booster, "nthread", "1");
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(XGBoosterUpdateOneIter(booster, i, dtrain), 0);
  bst_ulong length = 0;
  const char *data = nullptr;
  EXPECT_EQ(XGBoosterSaveModelToBuffer(booster, "{\"format\": \"json\"}",
                                       &length, &data),
            0);
  std::string text(data, length);
  XGBoosterFree(booster);
  XGDMatrixFree(dtrain);
  return text;
}

/// A model file's text; the fields can be spoiled one by one. The booster's
/// two classes are `computes` (m <= 16, then above); `op` is the form's op
/// kind ("" writes no "op" field, as the first trained files have none).
std::string modelText(llvm::StringRef cpu = "", int64_t version = -1,
                      llvm::StringRef format = ComputeModel::kFormat,
                      llvm::StringRef op = "",
                      llvm::ArrayRef<llvm::StringRef> computes = {"tmm",
                                                                  "rpmmv"}) {
  static const std::string booster = trainBooster();
  CPUDescription target = getDefaultTargetCPU();
  llvm::json::Array features;
  for (llvm::StringRef name : ComputeModel::getFeatureNames())
    features.push_back(name);
  llvm::json::Object root{
      {"format", format},
      {"version", version < 0 ? ComputeModel::kVersion : version},
      {"target",
       llvm::json::Object{{"cpu", cpu.empty() ? target.cpu : cpu.str()},
                          {"isa", target.getISAName()},
                          {"vector_bits", target.vectorBits}}},
      {"threads", 1},
      {"features", std::move(features)},
      {"computes", llvm::json::Array(computes)},
      {"booster", booster}};
  if (!op.empty())
    root["op"] = op;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(root));
  return text;
}

/// Writes `text` to a fresh temporary file and returns its path.
std::string writeTemp(llvm::StringRef text) {
  llvm::SmallString<128> path;
  int fd = -1;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("compute-model", "json", fd,
                                                  path));
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << text;
  return path.str().str();
}

std::string errorOf(llvm::Expected<ComputeModel> model) {
  if (model)
    return "";
  return llvm::toString(model.takeError());
}

TEST(ComputeModel, PredictsTheComputeOfASize) {
  auto model = ComputeModel::parse(modelText(), getDefaultTargetCPU());
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_EQ(model->getComputes().size(), 2u);
  EXPECT_EQ(*model->predict(4, 64, 64), "tmm");
  EXPECT_EQ(*model->predict(256, 64, 64), "rpmmv");
}

TEST(ComputeModel, RefusesForeignStaleAndMissingFiles) {
  CPUDescription target = getDefaultTargetCPU();
  EXPECT_NE(errorOf(ComputeModel::parse("not json", target))
                .find("not a compute model"),
            std::string::npos);
  EXPECT_NE(errorOf(ComputeModel::parse(modelText("", -1, "xgboost"), target))
                .find("not a compute model"),
            std::string::npos);
  EXPECT_NE(errorOf(ComputeModel::parse(modelText("", 99), target))
                .find("stale compute model: version 99"),
            std::string::npos);
  std::string other = target.cpu == "haswell" ? "skylake" : "haswell";
  EXPECT_NE(errorOf(ComputeModel::parse(modelText(other), target))
                .find("stale compute model: made for " + other),
            std::string::npos);
  EXPECT_NE(errorOf(ComputeModel::load("/nonexistent/model.json", target))
                .find("cannot read compute model"),
            std::string::npos);
}

TEST(ComputeModel, KnowsTheFormItWasTrainedOn) {
  CPUDescription target = getDefaultTargetCPU();
  auto plain = ComputeModel::parse(modelText(), target);
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ(plain->getOpKind(), OpKind::Matmul);
  auto linear =
      ComputeModel::parse(modelText("", -1, ComputeModel::kFormat,
                                    "matmul_transpose_b", {"dnmm332", "rpmmv"}),
                          target);
  ASSERT_TRUE(bool(linear)) << llvm::toString(linear.takeError());
  EXPECT_EQ(linear->getOpKind(), OpKind::MatmulTransposeB);
  EXPECT_EQ(*linear->predict(1, 768, 768), "dnmm332");
  // dnmm332 needs a B stored N x K; a conv is not a matmul form.
  EXPECT_NE(
      errorOf(ComputeModel::parse(modelText("", -1, ComputeModel::kFormat,
                                            "matmul", {"dnmm332", "rpmmv"}),
                                  target))
          .find("names compute dnmm332, which does not apply"),
      std::string::npos);
  EXPECT_NE(errorOf(ComputeModel::parse(modelText("", -1, ComputeModel::kFormat,
                                                  "conv_2d_nhwc_hwcf"),
                                        target))
                .find("chooses the compute of a matmul form"),
            std::string::npos);
}

/// The strategy-specific part of a strategy's saved state.
llvm::json::Object stateOf(const Strategy &s) {
  llvm::json::Value saved = s.saveState();
  return *saved.getAsObject()->getObject("state");
}

/// The `pack` choices of the first `count` proposals.
std::set<std::string> proposedPacks(Strategy &s, const Space &space,
                                    unsigned count) {
  std::set<std::string> packs;
  auto &pack =
      llvm::cast<CategoricalParam>(space.getParameter(*space.lookup("pack")));
  for (const Trial &t : s.propose(count))
    packs.insert(pack.getChoice(space.getValue(t.cfg, "pack")).str());
  return packs;
}

TEST(ComputeModel, AutoMCLFixesThePredictedCompute) {
  auto p = makeProblemSpec("matmul", "cpu", {128, 64, 32});
  Space space = *buildSpace(*p);
  std::string path = writeTemp(modelText());
  auto st = makeStrategy("automcl", space,
                         {{"compute_model", path}, {"batch", "16"}}, 1);
  ASSERT_TRUE(st);
  EXPECT_EQ(stateOf(*st).getString("compute"), "rpmmv");
  EXPECT_EQ(proposedPacks(*st, space, 16), std::set<std::string>{"b"});
  llvm::sys::fs::remove(path);
}

/// The state of an automcl strategy over the cpu space of an 8 x 64 x 32
/// op of `kind` with compute_model = `models`: its fixed compute ("" when
/// it searches the compute) and its note.
llvm::json::Object automclStateFor(llvm::StringRef kind,
                                   const std::string &models) {
  auto problem = makeProblemSpec(kind, "cpu", {8, 64, 32});
  EXPECT_TRUE(bool(problem));
  Space space = *buildSpace(*problem);
  auto st = makeStrategy("automcl", space,
                         {{"compute_model", models}, {"batch", "16"}}, 1);
  EXPECT_TRUE(st);
  llvm::json::Object state = stateOf(*st);
  // A fixed compute is all the strategy proposes.
  if (std::optional<llvm::StringRef> compute = state.getString("compute");
      compute && !compute->empty())
    EXPECT_EQ(proposedPacks(*st, space, 16),
              std::set<std::string>{getPackOfCompute(*compute)->str()});
  return state;
}

TEST(ComputeModel, AutoMCLUsesAModelOfTheOpsForm) {
  std::string linear =
      writeTemp(modelText("", -1, ComputeModel::kFormat, "matmul_transpose_b",
                          {"dnmm332", "rpmmv"}));
  EXPECT_EQ(automclStateFor("matmul_transpose_b", linear).getString("compute"),
            "dnmm332");
  // The same model on a plain matmul: another form, the compute is searched.
  llvm::json::Object other = automclStateFor("matmul", linear);
  EXPECT_EQ(other.getString("compute"), "");
  EXPECT_NE(other.getString("compute_note")
                ->find("trained on matmul_transpose_b, the op is matmul"),
            llvm::StringRef::npos);
  // One model per form, ','-separated: each op takes the model of its form.
  std::string plain = writeTemp(modelText());
  std::string both = plain + "," + linear;
  EXPECT_EQ(automclStateFor("matmul", both).getString("compute"), "tmm");
  EXPECT_EQ(automclStateFor("matmul_transpose_b", both).getString("compute"),
            "dnmm332");
  llvm::sys::fs::remove(linear);
  llvm::sys::fs::remove(plain);
}

TEST(ComputeModel, AutoMCLSearchesTheComputeWithoutAUsableModel) {
  auto p = makeProblemSpec("matmul", "cpu", {128, 64, 32});
  Space space = *buildSpace(*p);
  std::string stale = writeTemp(modelText("", 99));
  for (const std::string &path : {std::string("/nonexistent/model.json"),
                                  stale}) {
    auto st = makeStrategy("automcl", space,
                           {{"compute_model", path}, {"batch", "64"}}, 1);
    ASSERT_TRUE(st);
    EXPECT_EQ(stateOf(*st).getString("compute"), "");
    EXPECT_NE(stateOf(*st).getString("compute_note")->find("searching the "
                                                           "compute"),
              llvm::StringRef::npos);
    EXPECT_GT(proposedPacks(*st, space, 64).size(), 1u);
  }
  // Not a matmul: the model does not apply.
  auto c = makeProblemSpec("conv_2d_nhwc_hwcf", "cpu", {1, 8, 8, 16, 3, 3, 8});
  std::string path = writeTemp(modelText());
  Space convSpace = *buildSpace(*c);
  auto st = makeStrategy("automcl", convSpace, {{"compute_model", path}}, 1);
  ASSERT_TRUE(st);
  EXPECT_EQ(stateOf(*st).getString("compute"), "");
  llvm::sys::fs::remove(path);
  llvm::sys::fs::remove(stale);
}

} // namespace
