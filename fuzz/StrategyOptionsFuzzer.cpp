//===- StrategyOptionsFuzzer.cpp - libFuzzer target: --algorithm-options -===//
//
// Input: byte 0 picks a strategy of the registry (and the space it runs
// on); the rest is the text of `tiletune tune --algorithm-options`. It is
// parsed (parseStrategyOptions) and validated by the registry
// (StrategyRegistry::create: unknown names, ranges, start_config keys).
// The harness gives training-heavy options small defaults the input may
// override, and skips ask/tell when the options ask for seconds of training.
// Options that are accepted must give a working strategy: a few rounds of
// propose/observe must neither crash nor hand out an invalid or repeated
// config, and the state must save and load into a fresh instance.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <set>

using namespace mlir::tiletune;

namespace {

[[noreturn]] void fail(const llvm::Twine &what) {
  llvm::errs() << what << "\n";
  std::abort();
}

const Space &getSpace(bool paper) {
  static const Space cpu = [] {
    llvm::Expected<ProblemSpec> spec =
        makeProblemSpec("matmul", "cpu", {32, 16, 24});
    if (!spec)
      fail(llvm::toString(spec.takeError()));
    llvm::Expected<Space> space = buildSpace(*spec);
    if (!space)
      fail(llvm::toString(space.takeError()));
    return std::move(*space);
  }();
  static const Space paperSpace = buildPaperMatmulSpace(16, 8, 16);
  return paper ? paperSpace : cpu;
}

/// The value of a resolved integer option, or 0.
int64_t intOption(const StrategyOptions &options, llvm::StringRef name) {
  auto it = options.find(name.str());
  int64_t v = 0;
  if (it == options.end() ||
      llvm::StringRef(it->second).trim().getAsInteger(10, v))
    return 0;
  return v;
}

/// Whether the ask/tell rounds of these (validated) options stay cheap
/// enough for a fuzzer: the options bound training effort by design (e.g.
/// 8000 boosting rounds without early stopping are legal and take seconds).
bool isCheap(const StrategyOptions &o) {
  return intOption(o, "num_rounds") <= 200 &&
         intOption(o, "sa_iterations") * intOption(o, "sa_chains") <= 20000 &&
         intOption(o, "train_steps") * intOption(o, "minibatch") <= 4096 &&
         intOption(o, "hidden_units") * intOption(o, "hidden_layers") <= 1024 &&
         intOption(o, "sample_size") <= 20000;
}

/// Options whose defaults make a single propose() train for seconds; the
/// harness lowers them unless the input sets them.
const std::pair<const char *, const char *> kCheapDefaults[] = {
    {"num_rounds", "30"}, {"sa_iterations", "20"}, {"sa_chains", "8"},
    {"train_steps", "2"}, {"sample_size", "500"}};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 2048)
    return 0;
  llvm::SmallVector<const StrategyInfo *> all =
      StrategyRegistry::get().getAll();
  const StrategyInfo *info = all[data[0] % all.size()];
  // G-BFS and N-A2C search the paper's space; the others the CPU space.
  bool paper = info->name == "gbfs" || info->name == "na2c";
  const Space &space = getSpace(paper);
  llvm::StringRef text(reinterpret_cast<const char *>(data) + 1, size - 1);

  llvm::Expected<StrategyOptions> options = parseStrategyOptions(text);
  if (!options) {
    llvm::consumeError(options.takeError());
    return 0;
  }
  for (const auto &entry : kCheapDefaults)
    if (llvm::any_of(info->options, [&](const OptionInfo &o) {
          return o.name == entry.first;
        }))
      options->emplace(entry.first, entry.second);
  llvm::Expected<std::unique_ptr<Strategy>> strategy =
      StrategyRegistry::get().create(info->name, space, *options, /*seed=*/1);
  if (!strategy) {
    llvm::consumeError(strategy.takeError());
    return 0;
  }
  if (!isCheap((*strategy)->getOptions()))
    return 0;

  // A few rounds of ask/tell with a deterministic cost.
  std::set<Config> seen;
  for (int round = 0; round < 4 && !(*strategy)->isDone(); ++round) {
    llvm::SmallVector<Trial> trials = (*strategy)->propose(4);
    llvm::SmallVector<TrialResult> results;
    for (const Trial &trial : trials) {
      if (!space.isValid(trial.cfg))
        fail("strategy " + info->name + " proposed an invalid config " +
             space.getKey(trial.cfg));
      if (!seen.insert(trial.cfg).second)
        fail("strategy " + info->name + " proposed a config twice: " +
             space.getKey(trial.cfg));
      TrialResult result;
      result.id = trial.id;
      result.cfg = trial.cfg;
      result.cost = 1.0 + double(size_t(trial.cfg.hash()) % 1000) / 1000.0;
      if (trial.id % 5 == 3)
        result.status = TrialStatus::RuntimeError;
      results.push_back(std::move(result));
    }
    if (llvm::Error err = (*strategy)->observe(results))
      fail("observe failed: " + llvm::toString(std::move(err)));
  }

  // The state round-trips into a fresh instance with the same options.
  llvm::Expected<std::unique_ptr<Strategy>> fresh =
      StrategyRegistry::get().create(info->name, space, *options, 1);
  if (!fresh)
    fail("the same options were refused the second time: " +
         llvm::toString(fresh.takeError()));
  if (llvm::Error err = (*fresh)->loadState((*strategy)->saveState()))
    fail("saved state does not load: " + llvm::toString(std::move(err)));
  return 0;
}
