//===- GPUDriver.cpp - Tuning problems on a CUDA GPU ----------------------===//
//
// Implements GPUDriver.h.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/GPUDriver.h"

#include "tiletune/Driver/Driver.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "llvm/ADT/DenseMap.h"

#include <random>

using namespace mlir;
using namespace mlir::tiletune;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<TargetInfo> mlir::tiletune::getCudaTarget() {
  llvm::Expected<CudaDeviceInfo> device = getCudaDeviceInfo();
  if (!device)
    return device.takeError();
  TargetInfo target;
  target.kind = "cuda";
  target.model = device->description;
  target.features = device->chip;
  // One kernel launch per variant; the CPU thread count does not apply.
  target.threads = 0;
  target.toolchain = getDefaultToolchain() + "; PTX JIT by the CUDA driver";
  return target;
}

//===----------------------------------------------------------------------===//
// Compile-only ranking
//===----------------------------------------------------------------------===//

llvm::Expected<SmallVector<RankedConfig>>
mlir::tiletune::rankProblemCompileOnly(MLIRContext *ctx,
                                       const Problem &problem,
                                       const Space &space, unsigned count,
                                       uint64_t seed,
                                       const GPULoweringOptions &lowering) {
  FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(ctx, problem);
  if (failed(kernel))
    return makeError("cannot build the kernel of " + problem.describe());
  // The candidates: the default config (tiletune-default-gpu-config's),
  // then distinct uniform valid draws.
  SmallVector<Config> candidates;
  ConfigSet seen;
  Config def = getDefaultConfig(ctx, problem, space, /*threads=*/1);
  if (space.isValid(def)) {
    candidates.push_back(def);
    seen.insert(def);
  }
  std::mt19937_64 rng(seed);
  while (candidates.size() < count) {
    std::optional<Config> c = space.sampleValidIf(
        rng, [&](const Config &c) { return !seen.count(c); });
    if (!c)
      break; // the space has fewer valid configs
    seen.insert(*c);
    candidates.push_back(*c);
  }
  SmallVector<TileConfigAttr> attrs;
  llvm::DenseMap<Attribute, std::string> keys;
  SmallVector<RankedConfig> invalid;
  for (const Config &c : candidates) {
    llvm::Expected<TileConfigAttr> attr = configToAttr(ctx, problem, space, c);
    if (!attr) {
      RankedConfig r;
      r.key = space.getKey(c);
      r.score.reason = toString(attr.takeError());
      invalid.push_back(std::move(r));
      continue;
    }
    attrs.push_back(*attr);
    keys[*attr] = space.getKey(c);
  }
  GPUMeasureOptions options;
  options.lowering = lowering;
  llvm::Expected<SmallVector<CompileOnlyScore>> scores =
      rankConfigsCompileOnly(**kernel, kKernelFunctionName, attrs, options);
  if (!scores)
    return scores.takeError();
  SmallVector<RankedConfig> ranked;
  for (CompileOnlyScore &score : *scores) {
    RankedConfig r;
    r.key = keys.lookup(score.config);
    r.score = std::move(score);
    ranked.push_back(std::move(r));
  }
  ranked.append(invalid.begin(), invalid.end());
  return ranked;
}

//===----------------------------------------------------------------------===//
// Compile-only ranking of a module
//===----------------------------------------------------------------------===//

/// The first informative line of a multi-line failure message, shortened.
static std::string summarizeReason(StringRef reason) {
  SmallVector<StringRef> lines;
  reason.split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string text;
  for (StringRef line : lines) {
    line = line.trim();
    if (line.empty() || line.starts_with("note:"))
      continue;
    text += (text.empty() ? "" : " ") + line.str();
    if (!line.ends_with(":"))
      break; // a heading such as "GPU lowering failed:" continues
  }
  if (text.size() > 240)
    text = text.substr(0, 237) + "...";
  return text;
}

llvm::Error mlir::tiletune::rankModuleCompileOnly(ModuleOp module,
                                                  const TuneOptions &options,
                                                  StringRef chip,
                                                  unsigned show,
                                                  llvm::raw_ostream &os) {
  MLIRContext *ctx = module.getContext();
  GPULoweringOptions lowering;
  lowering.chip = chip.str();
  lowering.format = "isa";
  std::string reason;
  if (failed(validateGPULoweringOptions(lowering, &reason)))
    return llvm::createStringError(reason);
  if (options.trials <= 0)
    return llvm::createStringError("compile-only ranking needs a number of trials");
  FailureOr<ProblemSet> set = collectProblems(module, "cuda");
  if (failed(set))
    return llvm::createStringError("the module cannot be tuned (see the errors above)");
  os << "compile-only ranking for " << chip
     << ": configs ordered by the ptxas legality filter, then occupancy and "
        "registers; nothing was run or timed\n";
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    llvm::Expected<Space> space = buildTuningSpace(ctx, problem, options.fixed);
    if (!space)
      return space.takeError();
    if (options.log)
      *options.log << llvm::formatv("[{0}/{1}] ranking {2} configs of {3}\n",
                                    index + 1, set->problems.size(),
                                    options.trials, problem.describe());
    llvm::Expected<SmallVector<RankedConfig>> ranked = rankProblemCompileOnly(
        ctx, problem, *space, options.trials, options.seed, lowering);
    if (!ranked)
      return ranked.takeError();
    unsigned legal = llvm::count_if(
        *ranked, [](const RankedConfig &r) { return r.score.legal; });
    os << "problem " << problem.getKey() << ": " << legal << " of "
       << ranked->size() << " configs legal\n";
    for (const RankedConfig &r : llvm::ArrayRef(*ranked).take_front(show)) {
      if (r.score.legal)
        os << llvm::formatv("  legal   occupancy {0,4:F2} regs {1,3} smem "
                            "{2,6} threads {3,4}  {4}\n",
                            r.score.occupancy, r.score.registers,
                            r.score.sharedBytes, r.score.threadsPerBlock,
                            r.key);
      else
        os << "  ILLEGAL " << r.key << ": " << summarizeReason(r.score.reason)
           << "\n";
    }
    if (ranked->empty() || !ranked->front().score.legal) {
      os << "  no legal config: the ops are left untouched\n";
      continue;
    }
    for (Operation *op : set->ops[index])
      setConfig(op, ranked->front().score.config);
  }
  return llvm::Error::success();
}
