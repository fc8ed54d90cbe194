//===- GPUDriver.cpp - Tuning problems on a CUDA GPU ----------------------===//
//
// Implements GPUDriver.h.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/GPUDriver.h"

#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Driver/Driver.h"
#include "tiletune/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

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

/// Registers of one thread (sm_70 and later): a thread cannot hold more
/// accumulators than this without spilling.
static constexpr int64_t kMaxAccumulatorsPerThread = 255;

Space mlir::tiletune::withGPUKernelLimits(MLIRContext *ctx,
                                          const Problem &problem,
                                          const Space &space) {
  SmallVector<int64_t> strides(problem.strides.begin(), problem.strides.end());
  SmallVector<int64_t> dilations(problem.dilations.begin(),
                                 problem.dilations.end());
  TunableOp op = toTunableOp(ctx, problem);
  return space.withConstraint(
      {"gpu-kernel-limits",
       [ctx, problem, op, strides,
        dilations](const Space &s,
                   const Config &c) -> std::optional<std::string> {
         llvm::Expected<TileConfigAttr> attr =
             buildConfigAttr(ctx, problem, s, c);
         if (!attr)
           return toString(attr.takeError());
         std::string reason;
         FailureOr<GPUKernelPlan> plan =
             planGPUKernel(op, *attr, strides, dilations, &reason);
         if (failed(plan) || failed(checkGPULimits(*plan, GPULimits(), &reason)))
           return reason;
         // More accumulators than a thread has registers must spill, which
         // the ptxas filter rejects after a long compile: exclude them here.
         if (plan->outputsPerThread > kMaxAccumulatorsPerThread)
           return std::to_string(plan->outputsPerThread) +
                  " accumulators per thread exceed the " +
                  std::to_string(kMaxAccumulatorsPerThread) +
                  " registers of a thread";
         return std::nullopt;
       }});
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
