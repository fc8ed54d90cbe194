//===- TuningSpace.cpp - The space and default config a run uses ----------===//
//
// Pinned tuning spaces, the AutoMCL search space and default configs as
// points of a space.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/TuningSpace.h"

#include "tiletune/Driver/TuneOptions.h"
#include "tiletune/GPU/GPUTiling.h"
#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Transforms/DefaultConfig.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <random>

using namespace mlir;
using namespace mlir::tiletune;

/// `config` of `full` moved into `space`, a pinned copy of `full`: every
/// parameter keeps its value where the pins allow it and takes the pinned
/// default otherwise.
static Config projectOntoPinned(const Space &space, const Space &full,
                                const Config &config) {
  Config out = space.getDefault();
  for (unsigned i = 0, e = space.getNumParameters(); i < e; ++i) {
    const Parameter &param = space.getParameter(i);
    std::string text;
    llvm::raw_string_ostream os(text);
    full.getParameter(i).print(full.getValue(config, i), os);
    ParamValue value(param.getWidth());
    if (llvm::Error err = param.parse(text, value)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    out = space.withValue(out, i, value);
  }
  return out;
}

/// A valid config of `space` close to `start`: `start` itself when valid,
/// else the first valid config found by a breadth-first walk over the
/// space's neighbourhoods (changing as few parameters as possible), else one
/// sampled deterministically from the whole space. std::nullopt only when
/// the space has no valid config that either search finds.
static std::optional<Config> nearestValidConfig(const Space &space,
                                                const Config &start) {
  if (space.isValid(start))
    return start;
  // A few thousand configs: a handful of parameter changes away from start.
  constexpr size_t kMaxVisited = 20000;
  llvm::StringSet<> seen;
  std::deque<Config> queue;
  seen.insert(space.getKey(start));
  queue.push_back(start);
  SmallVector<Config> neighbors;
  while (!queue.empty() && seen.size() < kMaxVisited) {
    Config current = std::move(queue.front());
    queue.pop_front();
    neighbors.clear();
    space.getNeighbors(current, neighbors);
    for (Config &next : neighbors) {
      if (!seen.insert(space.getKey(next)).second)
        continue;
      if (space.isValid(next))
        return next;
      queue.push_back(std::move(next));
    }
  }
  std::mt19937_64 rng(0);
  return space.sampleValidIf(rng, [](const Config &) { return true; });
}

/// Registers of one thread (sm_70 and later): a thread cannot hold more
/// accumulators than this without spilling.
static constexpr int64_t kMaxAccumulatorsPerThread = 255;

Space mlir::tiletune::withGPUKernelLimits(MLIRContext *ctx,
                                          const Problem &problem,
                                          const Space &space) {
  TunableOp op = toTunableOp(ctx, problem);
  return space.withConstraint(
      {"gpu-kernel-limits",
       [ctx, problem, op](const Space &s,
                          const Config &c) -> std::optional<std::string> {
         llvm::Expected<TileConfigAttr> attr =
             buildConfigAttr(ctx, problem, s, c);
         if (!attr)
           return toString(attr.takeError());
         std::string reason;
         FailureOr<GPUKernelPlan> plan = planGPUKernel(op, *attr, &reason);
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

/// The heuristic's default config of `problem` as a point of `space`, or
/// the point it is projected to (possibly invalid; see getDefaultConfig).
static Config getHeuristicPoint(MLIRContext *ctx, const Problem &problem,
                                const Space &space, unsigned threads,
                                llvm::raw_ostream *log) {
  {
    TileConfigAttr attr;
    if (problem.target == kTargetCPU) {
      CPUTarget target;
      target.threads = resolveThreads(threads);
      attr = computeDefaultCPUConfig(ctx, toTunableOp(ctx, problem), target);
    } else {
      attr = computeDefaultCUDAConfig(ctx, toTunableOp(ctx, problem));
    }
    if (!attr) {
      if (log)
        *log << "  the default-config heuristic has no config for "
             << problem.describe() << "; starting from the space's default\n";
      return space.getDefault();
    }
    // Usually the heuristic's config is a point of the tuning space itself.
    llvm::Expected<Config> config = attrToConfig(problem, space, attr);
    if (config && space.isValid(*config))
      return *config;
    std::string why =
        config ? "it breaks a constraint" : toString(config.takeError());
    // Pinned parameters (--fix) may exclude it: keep what the pins allow.
    llvm::Expected<Space> full =
        buildProblemSpace(problem, resolveThreads(threads));
    if (full) {
      llvm::Expected<Config> unpinned = attrToConfig(problem, *full, attr);
      if (unpinned)
        return projectOntoPinned(space, *full, *unpinned);
      why = toString(unpinned.takeError());
    } else {
      why = toString(full.takeError());
    }
    if (log)
      *log << "  the default config " << printAttr(attr)
           << " is not in the tuning space (" << why
           << "); starting from the space's default\n";
  }
  return space.getDefault();
}

Config mlir::tiletune::getDefaultConfig(MLIRContext *ctx,
                                        const Problem &problem,
                                        const Space &space, unsigned threads,
                                        llvm::raw_ostream *log) {
  Config point = getHeuristicPoint(ctx, problem, space, threads, log);
  // Pins (--fix) are checked against the space, not against its default: a
  // projection or space default that breaks a constraint (e.g. a pinned
  // register slot times the heuristic's other register tile over the
  // register-tile limit, or a pinned unroll that does not divide the
  // default's cache tile) moves to the nearest valid config.
  std::string reason;
  if (space.isValid(point, &reason))
    return point;
  std::optional<Config> valid = nearestValidConfig(space, point);
  if (!valid)
    return point;
  if (log)
    *log << "  the default config " << space.getKey(point)
         << " breaks a constraint of the tuning space (" << reason
         << "); starting from the nearest valid config "
         << space.getKey(*valid) << "\n";
  return *valid;
}

llvm::Expected<Space> mlir::tiletune::buildTuningSpace(MLIRContext *ctx,
                                                       const Problem &problem,
                                                       StringRef fixed,
                                                       unsigned threads) {
  if (problem.target != kTargetCPU)
    if (std::optional<std::string> why =
            getGPUUnsupportedReason(problem.opKind))
      return llvm::createStringError(problem.describe() + ": " + *why);
  llvm::Expected<Space> space =
      buildProblemSpace(problem, resolveThreads(threads));
  if (space && problem.target != kTargetCPU)
    space = withGPUKernelLimits(ctx, problem, *space);
  if (!space || fixed.trim().empty())
    return space;
  llvm::Expected<Space> pinned = space->withPinned(fixed);
  if (!pinned)
    return llvm::createStringError("--fix: " + toString(pinned.takeError()));
  std::mt19937_64 rng(0);
  if (!pinned->sampleValidIf(rng, [](const Config &) { return true; }))
    return llvm::createStringError("--fix '" + fixed +
                                   "' leaves no valid config of " +
                                   problem.describe());
  return pinned;
}

llvm::Expected<Space> mlir::tiletune::getSearchSpace(StringRef algorithm,
                                                     const Problem &problem,
                                                     const Space &space,
                                                     unsigned threads,
                                                     const Config *start) {
  if (algorithm != "automcl" || problem.target != kTargetCPU)
    return space;
  ProblemSpec spec = toProblemSpec(problem, resolveThreads(threads));
  llvm::Expected<Space> grid =
      restrictToThreadGrid(space, spec, resolveThreads(threads));
  if (!grid)
    return grid.takeError();
  // The CPU target's L1 and L2, line size and vector width.
  CacheModel model;
  llvm::Expected<Space> filtered = filterByIdealCacheModel(*grid, spec, model);
  if (!filtered || !start || !space.isValid(*start))
    return filtered;
  // AutoMCL's configuration space is "solely formed by different tiling
  // sizes" (paper 001, Sec. 3): the schedule options are the compute's
  // template, here the default config's, except the parameters that select
  // the compute itself: `pack` (the matmul computes) and a conv's `im2col`
  // (direct or im2col + GEMM; the strategy's `conv_compute` decides whether
  // it is searched).
  //
  // The strategy's configs go to the tuner, which reads them in `space`'s
  // encoding: G must keep it. A pinned permutation or factorization does
  // (its slots are loop indices or factor values), but a pinned categorical
  // or discrete parameter renumbers its one value to index 0, so e.g. a
  // pinned `layout=nhwc` (index 1 of `space`) would reach the tuner as
  // `layout=native`. Such options are held at the start's value by a
  // constraint instead.
  std::string pins;
  SmallVector<std::pair<std::string, SmallVector<int64_t>>> held;
  for (unsigned i = 0, e = space.getNumParameters(); i < e; ++i) {
    const Parameter &param = space.getParameter(i);
    if (isa<FactorizationParam>(param) || param.getName() == "pack" ||
        param.getName() == "im2col" || param.count() == 1)
      continue;
    std::string pin;
    llvm::raw_string_ostream os(pin);
    os << param.getName() << "=";
    param.print(space.getValue(*start, i), os);
    ArrayRef<int64_t> startSlots = space.getValue(*start, i);
    llvm::Expected<Space> one = filtered->withPinned(pin);
    if (!one) {
      llvm::consumeError(one.takeError());
      continue;
    }
    if (one->getValue(one->getDefault(), i) == startSlots) {
      pins += (pins.empty() ? "" : ";") + pin;
      continue;
    }
    held.emplace_back(param.getName().str(), SmallVector<int64_t>(startSlots));
  }
  if (pins.empty() && held.empty())
    return filtered;
  llvm::Expected<Space> pinned = pins.empty() ? llvm::Expected<Space>(*filtered)
                                              : filtered->withPinned(pins);
  if (!pinned) {
    llvm::consumeError(pinned.takeError());
    return filtered;
  }
  if (!held.empty())
    *pinned = pinned->withConstraint(
        {"automcl-template",
         [held](const Space &s, const Config &c) -> std::optional<std::string> {
           for (const auto &[name, slots] : held) {
             if (s.getValue(c, name) == ArrayRef<int64_t>(slots))
               continue;
             const Parameter &p = s.getParameter(*s.lookup(name));
             std::string text;
             llvm::raw_string_ostream os(text);
             os << "'" << name << "' is ";
             p.print(s.getValue(c, name), os);
             os << ", AutoMCL's template (the default config) has ";
             p.print(slots, os);
             return text;
           }
           return std::nullopt;
         }});
  std::mt19937_64 rng(0);
  if (!pinned->sampleValidIf(rng, [](const Config &) { return true; }))
    return filtered;
  std::string name = filtered->getName().str() + " tile sizes";
  pinned->setName(name);
  return pinned;
}
