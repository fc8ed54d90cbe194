//===- AutoMCL.cpp - AutoMCL's AutoConfig tuning loop
//----------------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The "automcl" strategy: Algorithm 2 (AutoConfig) of the AutoMCL paper
// (paper 001). The space G it searches is meant to be the paper's
// ideal-cache-model-filtered pfactor space (a space transformation built by
// the Space library); the strategy itself works on any space:
//   1. the first batch N = `batch` configs drawn uniformly from G;
//   2. once every config of N has been measured (the paper trains only then),
//      an XGBoost regressor is fitted on all measurements D (features = the
//      space's encoding, target = normalised throughput bestCost / cost,
//      failures 0; ranking by it equals ranking by predicted time) and
//      predicts every unmeasured config of G; the `batch` best-predicted
//      ones become the next N;
//   3. repeat until the budget (max_trials, the paper's m) is spent or G is
//      exhausted.
// G is predicted exhaustively when it has at most `exhaustive_limit` valid
// configs (enumerated once when its product space has at most
// `enumerate_limit` points); otherwise a uniform sample of `sample_size`
// unmeasured configs is predicted instead (documented deviation for spaces
// larger than the paper's "usually less than 10,000").
// The model is not serialised: N, the refill count and the sampling state
// are saved, and the model is only used while refilling N, so a resumed
// search continues exactly.
// The compute (the paper's schedule: `pack` of a cpu matmul space) is fixed
// up front by AutoMCL's learned compute model (`compute_model`, Sec. 3
// "Learning to choose schedules", see ComputeModel.h): G becomes the configs
// with the predicted compute and no trial is spent on the others. Without a
// usable model (none given, missing, stale, foreign, not a matmul space) the
// compute stays a searched parameter, with a message saying why.
//
//===----------------------------------------------------------------------===//

#include "CostModelSearch.h"
#include "StrategyRegistration.h"
#include "tiletune/Search/ComputeModel.h"
#include "tiletune/Search/CostModel.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/ProblemSpec.h"
#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <deque>
#include <numeric>

using namespace llvm;
using namespace mlir::tiletune;

namespace {
struct AutoMCLOptions {
  unsigned batch;
  uint64_t exhaustiveLimit;
  uint64_t enumerateLimit;
  unsigned sampleSize;
  XGBoostOptions model;
  /// The compute models' paths, ','-separated, one per matmul form ("" =
  /// search the compute).
  std::string computeModel;
};

/// What the compute model decided for a space.
struct ComputeChoice {
  /// The space restricted to the predicted compute, if one was predicted.
  std::optional<Space> space;
  /// The predicted compute ("" when the compute is searched).
  std::string compute;
  /// Why (the prediction, or why the compute is searched).
  std::string note;
  /// With a fixed compute: the slot of the parameter that selects it
  /// (`pack` of a matmul, `im2col` of a conv) in a config and the index of
  /// the chosen value among the full space's choices. A config of `space`
  /// (where that parameter has the one choice 0) becomes a config of the
  /// strategy's space by setting that slot, and back by clearing it.
  unsigned slot = 0;
  int64_t index = 0;

  /// `cfg` of G as a config of the strategy's space.
  Config toFull(Config cfg) const {
    if (space)
      cfg.getSlots()[slot] = index;
    return cfg;
  }
  /// `cfg` of the strategy's space as a config of G.
  Config toG(Config cfg) const {
    if (space)
      cfg.getSlots()[slot] = 0;
    return cfg;
  }
};

/// Applies the compute model at `path` to `space` (a cpu matmul space with
/// factorizations m, n, k and a `pack` parameter).
static ComputeChoice chooseCompute(const Space &space, StringRef path) {
  ComputeChoice choice;
  auto searched = [&](const Twine &why) {
    choice.note = ("compute model '" + path + "' not used: " + why +
                   "; searching the compute")
                      .str();
    return std::move(choice);
  };
  std::optional<unsigned> pack = space.lookup("pack");
  std::optional<unsigned> m = space.lookup("m"), n = space.lookup("n"),
                          k = space.lookup("k");
  auto factorization = [&](std::optional<unsigned> i) {
    return i ? llvm::dyn_cast<FactorizationParam>(&space.getParameter(*i)) : nullptr;
  };
  if (!pack || !factorization(m) || !factorization(n) || !factorization(k) ||
      space.lookup("b"))
    return searched("the space is not a cpu matmul space (the model chooses "
                    "among matmul computes)");
  // A model knows the computes of the form it was measured on (a B stored
  // N x K adds ttmm and dnmm332, and changes which compute wins): the first
  // model of the op's form is used, the others are not an error.
  OpKind kind =
      space.getProblem() ? space.getProblem()->opKind : OpKind::Matmul;
  std::optional<ComputeModel> model;
  StringRef used;
  std::string why;
  for (StringRef file : llvm::split(path, ',')) {
    Expected<ComputeModel> loaded =
        ComputeModel::load(file, getDefaultTargetCPU());
    std::string reason;
    if (!loaded)
      reason = toString(loaded.takeError());
    else if (loaded->getOpKind() != kind)
      reason = ("'" + file + "' was trained on " +
                stringifyOpKind(loaded->getOpKind()) + ", the op is " +
                stringifyOpKind(kind) + " (collect.py --form)")
                   .str();
    else {
      model = std::move(*loaded);
      used = file;
      break;
    }
    why += (why.empty() ? "" : "; ") + reason;
  }
  if (!model)
    return searched(why);
  int64_t sm = factorization(m)->getTotal(), sn = factorization(n)->getTotal(),
          sk = factorization(k)->getTotal();
  Expected<std::string> compute = model->predict(sm, sn, sk);
  if (!compute)
    return searched(toString(compute.takeError()));
  std::optional<StringRef> packValue = getPackOfCompute(*compute);
  Expected<Space> pinned = space.withPinned(("pack=" + *packValue).str());
  if (!pinned)
    return searched(toString(pinned.takeError()));
  std::mt19937_64 rng(0);
  if (!pinned->sampleValidIf(rng, [](const Config &) { return true; }))
    return searched("no config of the space has the predicted compute " +
                    *compute);
  auto &packParam = llvm::cast<CategoricalParam>(space.getParameter(*pack));
  auto choices = packParam.getChoices();
  auto it = llvm::find(choices, *packValue);
  if (it == choices.end())
    return searched("the space has no pack value " + *packValue);
  choice.slot = space.getOffset(*pack);
  choice.index = int64_t(it - choices.begin());
  choice.space = std::move(*pinned);
  choice.compute = *compute;
  choice.note =
      ("compute model '" + used + "' chose " + *compute +
       " (pack = " + *packValue + ") for " + Twine(sm) + "x" + Twine(sn) + "x" +
       Twine(sk) + "; no trials are spent on the compute")
          .str();
  return choice;
}

/// `conv_compute = direct`: the paper's conv compute, CONVOpt (Sec. 4: its
/// learned choice "does not work quite well" for conv2d, so AutoMCL keeps
/// CONVOpt): G becomes the configs of a conv space with `im2col = false`.
/// A space without a searched `im2col` (a matmul, a grouped conv, or
/// `im2col` fixed by the user) is left as it is.
static std::optional<ComputeChoice> pinDirectConv(const Space &space) {
  std::optional<unsigned> i = space.lookup("im2col");
  const auto *param =
      i ? llvm::dyn_cast<CategoricalParam>(&space.getParameter(*i)) : nullptr;
  if (!param || param->getChoices().size() < 2)
    return std::nullopt;
  auto choices = param->getChoices();
  auto it = llvm::find(choices, "false");
  if (it == choices.end())
    return std::nullopt;
  Expected<Space> pinned = space.withPinned("im2col=false");
  if (!pinned) {
    consumeError(pinned.takeError());
    return std::nullopt;
  }
  ComputeChoice choice;
  choice.slot = space.getOffset(*i);
  choice.index = int64_t(it - choices.begin());
  choice.space = std::move(*pinned);
  choice.compute = "direct";
  choice.note = "conv_compute = direct: the paper's conv compute (CONVOpt, "
                "im2col = false); no trials are spent on the compute";
  return choice;
}

class AutoMCLStrategy : public Strategy {
public:
  AutoMCLStrategy(const Space &space, const StrategyOptions &options,
                  uint64_t seed, AutoMCLOptions opts, ComputeChoice choice)
      : Strategy("automcl", space, options, seed), opts(std::move(opts)),
        choice(std::move(choice)) {}

protected:
  void proposeImpl(unsigned maxCount, SmallVectorImpl<Config> &out) override;
  json::Object saveImpl() const override;
  Error loadImpl(const json::Object &state) override;

private:
  /// Fills `queue` with `batch` random unmeasured configs.
  void fillRandom();
  /// Trains on D and fills `queue` with the best-predicted configs of G.
  Error fillFromModel();
  /// The valid configs of G by product rank, if G is small enough to be
  /// predicted exhaustively (computed once; deterministic).
  const std::vector<uint64_t> *getEnumeratedSpace();

  /// G: the space, or its configs with the compute the model chose.
  const Space &getG() const {
    return choice.space ? *choice.space : getSpace();
  }

  AutoMCLOptions opts;
  ComputeChoice choice;
  bool started = false;
  std::deque<Config> queue;
  unsigned numRefills = 0;
  std::string lastError;
  // Cache (not serialised; recomputed identically on demand).
  bool enumerated = false;
  bool tooLarge = false;
  std::vector<uint64_t> validRanks;
};
} // namespace

const std::vector<uint64_t> *AutoMCLStrategy::getEnumeratedSpace() {
  if (!enumerated) {
    enumerated = true;
    const Space &space = getG();
    uint64_t total = space.countProduct();
    if (total > opts.enumerateLimit) {
      tooLarge = true;
    } else {
      for (uint64_t r = 0; r < total && !tooLarge; ++r) {
        if (space.isValid(space.unrank(r)))
          validRanks.push_back(r);
        tooLarge = validRanks.size() > opts.exhaustiveLimit;
      }
      if (tooLarge)
        validRanks.clear();
    }
  }
  return tooLarge ? nullptr : &validRanks;
}

void AutoMCLStrategy::fillRandom() {
  const Space &space = getG();
  ConfigSet local;
  auto taken = [&](const Config &c) {
    return wasProposed(choice.toFull(c)) || local.count(c) != 0;
  };
  while (queue.size() < opts.batch) {
    std::optional<Config> c = learned::drawFreshConfig(space, getRng(), taken);
    if (!c)
      break;
    local.insert(*c);
    queue.push_back(choice.toFull(std::move(*c)));
  }
}

Error AutoMCLStrategy::fillFromModel() {
  const Space &space = getG();
  ArrayRef<TrialResult> history = getHistory();
  std::vector<Config> seen;
  for (const TrialResult &r : history)
    seen.push_back(choice.toG(r.cfg));
  XGBoostModel model(opts.model);
  if (Error e = model.fit(learned::encodeConfigs(space, seen),
                          learned::throughputTargets(history), getDeadline()))
    return e;

  // Candidates: all unmeasured configs of G, or a uniform sample of them.
  std::vector<Config> candidates;
  if (const std::vector<uint64_t> *all = getEnumeratedSpace()) {
    for (uint64_t r : *all) {
      Config c = space.unrank(r);
      if (!wasProposed(choice.toFull(c)))
        candidates.push_back(std::move(c));
    }
  } else {
    ConfigSet local;
    auto taken = [&](const Config &c) {
      return wasProposed(choice.toFull(c)) || local.count(c) != 0;
    };
    while (candidates.size() < opts.sampleSize) {
      std::optional<Config> c =
          learned::drawFreshConfig(space, getRng(), taken);
      if (!c)
        break;
      local.insert(*c);
      candidates.push_back(std::move(*c));
    }
  }
  if (candidates.empty())
    return Error::success();

  // Predict in chunks to bound the feature matrix size.
  std::vector<float> scores;
  scores.reserve(candidates.size());
  const size_t chunk = 65536;
  for (size_t begin = 0; begin < candidates.size(); begin += chunk) {
    size_t end = std::min(candidates.size(), begin + chunk);
    auto part = model.predict(learned::encodeConfigs(
        space, ArrayRef<Config>(candidates).slice(begin, end - begin)));
    if (!part)
      return part.takeError();
    scores.insert(scores.end(), part->begin(), part->end());
  }
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  size_t n = std::min<size_t>(opts.batch, order.size());
  std::partial_sort(
      order.begin(), order.begin() + n, order.end(), [&](size_t a, size_t b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
      });
  for (size_t i = 0; i < n; ++i)
    queue.push_back(choice.toFull(candidates[order[i]]));
  return Error::success();
}

void AutoMCLStrategy::proposeImpl(unsigned maxCount,
                                  SmallVectorImpl<Config> &out) {
  if (!started) {
    started = true;
    fillRandom();
  }
  if (queue.empty()) {
    // AutoConfig trains only after the whole batch N has been measured.
    if (getNumPending() > 0)
      return;
    ++numRefills;
    bool anyOk = llvm::any_of(getHistory(),
                              [](const TrialResult &r) { return r.isOk(); });
    if (!anyOk) {
      fillRandom(); // nothing to learn from yet
    } else if (Error e = fillFromModel()) {
      lastError = toString(std::move(e));
      fillRandom();
    }
    if (queue.empty()) {
      setExhausted();
      return;
    }
  }
  while (out.size() < maxCount && !queue.empty()) {
    Config c = std::move(queue.front());
    queue.pop_front();
    if (!wasProposed(c))
      out.push_back(std::move(c));
  }
}

json::Object AutoMCLStrategy::saveImpl() const {
  return json::Object{
      {"started", started},
      {"queue",
       learned::configsToJSON(getSpace(),
                              std::vector<Config>(queue.begin(), queue.end()))},
      {"refills", int64_t(numRefills)},
      {"last_error", lastError},
      {"compute", choice.compute},
      {"compute_note", choice.note}};
}

Error AutoMCLStrategy::loadImpl(const json::Object &state) {
  auto savedQueue =
      learned::configsFromJSON(getSpace(), state.getArray("queue"), "queue");
  if (!savedQueue)
    return savedQueue.takeError();
  auto savedStarted = state.getBoolean("started");
  auto savedRefills = state.getInteger("refills");
  auto savedLastError = state.getString("last_error");
  if (!savedStarted || !savedRefills || !savedLastError || *savedRefills < 0)
    return createStringError(inconvertibleErrorCode(),
                             "automcl state: missing or malformed fields");
  started = *savedStarted;
  queue.assign(savedQueue->begin(), savedQueue->end());
  numRefills = unsigned(*savedRefills);
  lastError = savedLastError->str();
  return Error::success();
}

void mlir::tiletune::registerAutoMCLStrategy(StrategyRegistry &registry) {
  StrategyInfo info;
  info.name = "automcl";
  info.summary = "AutoMCL AutoConfig: random first batch, then batches of the "
                 "best configs predicted by an XGBoost regressor over the "
                 "(cache-filtered) space (paper 001, Algorithm 2)";
  info.options = {
      {"batch", "64",
       "the paper's n: configs measured between two trainings (value not "
       "given in the paper; AutoTVM's plan size)"},
      {"loss", "reg",
       "'reg' (reg:squarederror regressor, as in the paper) or 'rank' "
       "(rank:pairwise)"},
      {"exhaustive_limit", "200000",
       "predict every unmeasured config when the space has at most this many "
       "valid configs"},
      {"enumerate_limit", "1000000",
       "largest product space enumerated to list the valid configs"},
      {"sample_size", "20000",
       "configs predicted per batch when the space is too large to predict "
       "exhaustively (uniform sample of unmeasured configs)"},
      {"num_rounds", "8000", "maximum XGBoost boosting rounds"},
      {"early_stopping", "20",
       "stop boosting after this many rounds without better top-batch recall "
       "on the training set; 0 = off"},
      {"max_depth", "3", "XGBoost tree depth"},
      {"eta", "0.3", "XGBoost learning rate"},
      {"threads", "1",
       "XGBoost threads (1 = bit-reproducible; more is faster)"},
      {"compute_model", "",
       "AutoMCL's learned compute choice: model files of "
       "bench/automcl/train.py for this CPU, ','-separated, one per matmul "
       "form (matmul, matmul_transpose_b); the predicted compute (pack) is "
       "fixed for a cpu matmul of a model's form; empty, missing, stale or "
       "foreign, or no model of the op's form: the compute is searched "
       "(with a message)"},
      {"conv_compute", "search",
       "the compute of a cpu conv: 'search' = `im2col` is a searched "
       "parameter (direct or im2col + GEMM, beyond the paper); 'direct' = "
       "the paper's CONVOpt only (im2col = false; --protocol=paper)"},
  };
  info.paperOptions = {{"conv_compute", "direct"}};
  info.create = [](const Space &space, const StrategyOptions &options,
                   uint64_t seed) -> Expected<std::unique_ptr<Strategy>> {
    using namespace learned;
    AutoMCLOptions o;
    const int64_t big = int64_t(1) << 40;
    auto batch = getIntOptionInRange(options, "batch", 1, 1 << 24);
    if (!batch)
      return batch.takeError();
    o.batch = unsigned(*batch);
    auto loss = getChoiceOption(options, "loss", {"reg", "rank"});
    if (!loss)
      return loss.takeError();
    o.model.objective = *loss == "reg" ? "reg:squarederror" : "rank:pairwise";
    auto exhaustive = getIntOptionInRange(options, "exhaustive_limit", 0, big);
    if (!exhaustive)
      return exhaustive.takeError();
    o.exhaustiveLimit = uint64_t(*exhaustive);
    auto enumerate = getIntOptionInRange(options, "enumerate_limit", 0, big);
    if (!enumerate)
      return enumerate.takeError();
    o.enumerateLimit = uint64_t(*enumerate);
    auto sample = getIntOptionInRange(options, "sample_size", 1, 1 << 24);
    if (!sample)
      return sample.takeError();
    o.sampleSize = unsigned(*sample);
    if (Error err = learned::readXGBoostOptions(options, seed, o.model))
      return std::move(err);
    o.model.recallK = o.batch;
    ComputeChoice choice;
    auto convCompute =
        getChoiceOption(options, "conv_compute", {"direct", "search"});
    if (!convCompute)
      return convCompute.takeError();
    std::optional<ComputeChoice> direct;
    if (*convCompute == "direct")
      direct = pinDirectConv(space);
    auto modelPath = options.find("compute_model");
    if (direct) {
      choice = std::move(*direct);
      WithColor::remark(errs(), "automcl") << choice.note << "\n";
    } else if (modelPath != options.end() && !modelPath->second.empty()) {
      o.computeModel = modelPath->second;
      choice = chooseCompute(space, o.computeModel);
      if (choice.space)
        WithColor::remark(errs(), "automcl") << choice.note << "\n";
      else
        WithColor::warning(errs(), "automcl") << choice.note << "\n";
    }
    return std::make_unique<AutoMCLStrategy>(space, options, seed,
                                             std::move(o), std::move(choice));
  };
  cantFail(registry.add(std::move(info)));
}
