//===- LoopNestFeatures.cpp - Loop-nest ("itervar") config features -------===//
//
// The loop nest of a config (from the op's loop roles and the config's
// factors and options) and AutoTVM-style per-loop features over it (see
// LoopNestFeatures.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/LoopNestFeatures.h"

#include "tiletune/Space/OperatorSpaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"

#include <cmath>

using namespace llvm;
using namespace mlir::tiletune;

StringRef mlir::tiletune::stringifyLoopAnnotation(LoopAnnotation annotation) {
  switch (annotation) {
  case LoopAnnotation::Serial:
    return "serial";
  case LoopAnnotation::Parallel:
    return "parallel";
  case LoopAnnotation::Thread:
    return "thread";
  case LoopAnnotation::Vectorized:
    return "vectorized";
  case LoopAnnotation::Unrolled:
    return "unrolled";
  }
  return "serial";
}

namespace {
/// The CPU options a nest depends on (defaults when the space has none).
struct CPUOptions {
  SmallVector<std::string> order;
  bool vectorize = true;
  std::string pack = "none";
  int64_t unroll = 1;
  bool nhwc = false;
  bool im2col = false;
};
} // namespace

static CPUOptions readCPUOptions(const ProblemSpec &problem, const Space &space,
                                 const Config &config) {
  CPUOptions o;
  if (std::optional<unsigned> i = space.lookup("order")) {
    if (const auto *p = dyn_cast<PermutationParam>(&space.getParameter(*i)))
      for (int64_t e : space.getValue(config, *i))
        o.order.push_back(p->getElements()[e]);
  }
  if (o.order.empty()) // parallel dims, then reductions (the default)
    for (DimRole role : {DimRole::Parallel, DimRole::Reduction})
      for (const ProblemDim &d : problem.dims)
        if (d.role == role)
          o.order.push_back(d.name);
  auto choice = [&](StringRef name) -> std::optional<StringRef> {
    if (std::optional<unsigned> i = space.lookup(name))
      if (const auto *p = dyn_cast<CategoricalParam>(&space.getParameter(*i)))
        return p->getChoice(space.getValue(config, *i));
    return std::nullopt;
  };
  if (std::optional<StringRef> v = choice("vectorize"))
    o.vectorize = *v == "true";
  if (std::optional<StringRef> v = choice("pack"))
    o.pack = v->str();
  if (std::optional<StringRef> v = choice("layout"))
    o.nhwc = *v == "nhwc";
  if (std::optional<StringRef> v = choice("im2col"))
    o.im2col = *v == "true";
  if (std::optional<unsigned> i = space.lookup("unroll"))
    if (const auto *p = dyn_cast<DiscreteParam>(&space.getParameter(*i)))
      o.unroll = p->getValue(space.getValue(config, *i));
  return o;
}

static int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

Expected<SmallVector<NestLoop>>
mlir::tiletune::buildLoopNest(const ProblemSpec &problem, const Space &space,
                              const Config &config) {
  // The factors of every dim, checked against the template.
  StringMap<SmallVector<int64_t, 4>> factors;
  for (const ProblemDim &d : problem.dims) {
    std::optional<unsigned> i = space.lookup(d.name);
    unsigned expected = getNumFactors(problem.target, problem.opKind, d.role);
    if (!i || !isa<FactorizationParam>(space.getParameter(*i)) ||
        space.getParameter(*i).getWidth() != expected)
      return createStringError("space '" + space.getName() +
                               "' has no factorization of loop '" + d.name +
                               "' into " + Twine(expected) + " factors");
    ArrayRef<int64_t> f = space.getValue(config, *i);
    factors[d.name].assign(f.begin(), f.end());
  }
  auto loop = [&](const ProblemDim &d, StringRef level, unsigned index,
                  LoopAnnotation annotation) {
    ArrayRef<int64_t> f = factors[d.name];
    return NestLoop{d.name, level.str(), f[index], product(f.drop_front(index + 1)),
                    annotation};
  };
  SmallVector<NestLoop> nest;

  if (problem.target != kTargetCPU) {
    // CUDA: every level in the target's order, dims in iterator order, then
    // the per-thread tiles.
    for (StringRef level : getTargetLevels(problem.target)) {
      LoopAnnotation annotation = LoopAnnotation::Serial;
      if (level == "block")
        annotation = LoopAnnotation::Parallel;
      else if (level == "vthread" || level == "thread")
        annotation = LoopAnnotation::Thread;
      for (const ProblemDim &d : problem.dims) {
        ArrayRef<StringRef> levels =
            getDimLevels(problem.target, problem.opKind, d.role);
        for (auto [index, l] : llvm::enumerate(levels))
          if (l == level)
            nest.push_back(loop(d, level, index, annotation));
      }
    }
    for (const ProblemDim &d : problem.dims)
      nest.push_back(loop(d, "tile", factors[d.name].size() - 1,
                          LoopAnnotation::Unrolled));
    return nest;
  }

  CPUOptions options = readCPUOptions(problem, space, config);
  StringRef unrollDim = getUnrollDim(problem.opKind);
  StringRef vectorDim = options.nhwc ? "f" : getVectorDim(problem.opKind);
  // Parallel level: one scf.forall over the batch and parallel dims.
  for (const ProblemDim &d : problem.dims)
    if (d.role != DimRole::Reduction)
      nest.push_back(loop(d, "parallel", 0, LoopAnnotation::Parallel));
  // Cache level: batch dims first (step 1), then `order`.
  for (const ProblemDim &d : problem.dims)
    if (d.role == DimRole::Batch)
      nest.push_back(loop(d, "cache", 1, LoopAnnotation::Serial));
  for (const std::string &name : options.order) {
    const ProblemDim *d = problem.lookup(name);
    if (!d || d->role == DimRole::Batch)
      return createStringError("order names '" + name +
                               "', not a loop of the op");
    nest.push_back(
        loop(*d, "cache", d->role == DimRole::Parallel ? 1 : 0,
             LoopAnnotation::Serial));
  }
  // Register level: parallel dims by their register tile, then reductions
  // over their cache tile (the unroll dim by `unroll`).
  for (const ProblemDim &d : problem.dims)
    if (d.role == DimRole::Parallel)
      nest.push_back(loop(d, "register", 2, LoopAnnotation::Serial));
  int64_t unroll = std::max<int64_t>(1, options.unroll);
  for (const ProblemDim &d : problem.dims) {
    if (d.role != DimRole::Reduction)
      continue;
    NestLoop l = loop(d, "register", 1, LoopAnnotation::Serial);
    if (d.name == unrollDim) {
      l.extent = (l.extent + unroll - 1) / unroll;
      l.step = unroll;
    }
    nest.push_back(std::move(l));
  }
  // The register tile, then the unrolled reduction step.
  for (const ProblemDim &d : problem.dims)
    if (d.role == DimRole::Parallel)
      nest.push_back(loop(d, "tile", 3,
                          !options.vectorize   ? LoopAnnotation::Serial
                          : d.name == vectorDim ? LoopAnnotation::Vectorized
                                                : LoopAnnotation::Unrolled));
  if (problem.lookup(unrollDim))
    nest.push_back(
        NestLoop{unrollDim.str(), "tile", unroll, 1, LoopAnnotation::Unrolled});
  return nest;
}

//===----------------------------------------------------------------------===//
// LoopNestFeaturizer
//===----------------------------------------------------------------------===//

static constexpr LoopAnnotation kAnnotations[] = {
    LoopAnnotation::Serial, LoopAnnotation::Parallel, LoopAnnotation::Thread,
    LoopAnnotation::Vectorized, LoopAnnotation::Unrolled};

LoopNestFeaturizer::LoopNestFeaturizer(const Space &space, ProblemSpec problem,
                                       SmallVector<NestLoop> shape)
    : space(space), problem(std::move(problem)), shape(std::move(shape)) {
  numOperands = getOperandAccesses(this->problem).size();
  numFeatures = kGlobalFeatures +
                this->shape.size() * (kLoopFeatures + numOperands * kBufferFeatures);
  for (unsigned i = 0; i < space.getNumParameters(); ++i)
    if (!isa<FactorizationParam>(space.getParameter(i))) {
      optionParams.push_back(i);
      numFeatures += space.getParameter(i).getNumFeatures();
    }
}

Expected<LoopNestFeaturizer> LoopNestFeaturizer::create(const Space &space) {
  const ProblemSpec *problem = space.getProblem();
  if (!problem)
    return createStringError("loop-nest features need the op of the space; '" +
                             space.getName() + "' is an abstract space");
  auto nest = buildLoopNest(*problem, space, space.getDefault());
  if (!nest)
    return nest.takeError();
  return LoopNestFeaturizer(space, *problem, std::move(*nest));
}

/// log2(1 + x) of a non-negative quantity (AutoTVM's flattened features).
static double squash(double x) { return std::log2(1.0 + std::max(0.0, x)); }

void LoopNestFeaturizer::encode(const Config &config,
                                SmallVectorImpl<double> &out) const {
  size_t start = out.size();
  auto nestOr = buildLoopNest(problem, space, config);
  if (!nestOr || nestOr->size() != shape.size()) {
    // Cannot happen for configs of the space (the nest's shape depends only
    // on the op); keep the width so the matrix stays rectangular.
    consumeError(nestOr.takeError());
    out.append(numFeatures, 0.0);
    return;
  }
  const SmallVector<NestLoop> &nest = *nestOr;
  CPUOptions options;
  if (problem.target == kTargetCPU)
    options = readCPUOptions(problem, space, config);
  SmallVector<OperandAccess, 3> operands =
      getOperandAccesses(problem, options.nhwc);
  // `pack = bt` (ttmm): the loop nest reads B from its whole transpose,
  // [b?][k][n].
  if (options.pack == "bt" && operands.size() == 3 &&
      operands[1].indices.size() >= 2)
    std::swap(operands[1].indices[operands[1].indices.size() - 2],
              operands[1].indices.back());
  // `im2col = true`: the GEMM reads the input from its window matrix
  // [n][oh][ow][kh][kw][c] (the copy convertConvToIm2col makes), one element
  // per output pixel and filter tap, so the output-pixel loops stride by
  // whole windows and the filter-tap loops are contiguous; the filter and
  // the output are read in place.
  if (options.im2col && !operands.empty() && operands[0].name == "input") {
    operands[0].indices.clear();
    for (StringRef d : {"n", "oh", "ow", "kh", "kw", "c"})
      operands[0].indices.push_back({IndexTerm{d.str(), 1}});
  }
  size_t n = nest.size();
  int64_t elementBytes = problem.elementBytes;

  // Globals.
  double threads = 1, tile = 1, vector = 0, unrollStep = 1;
  for (const NestLoop &l : nest) {
    if (l.annotation == LoopAnnotation::Parallel)
      threads *= l.extent;
    if (l.level == "tile" && problem.lookup(l.dim)->role != DimRole::Reduction)
      tile *= l.extent;
    if (l.annotation == LoopAnnotation::Vectorized)
      vector = l.extent;
    if (l.level == "tile" && problem.target == kTargetCPU &&
        l.dim == getUnrollDim(problem.opKind))
      unrollStep = l.extent;
  }
  out.push_back(squash(threads));
  out.push_back(squash(tile));
  out.push_back(squash(vector));
  out.push_back(squash(unrollStep));

  // Row-major element strides of each operand dim: of the whole tensor, or,
  // for a packed operand inside the cache tile, of the packed tile.
  auto rowMajor = [](ArrayRef<int64_t> extents) {
    SmallVector<int64_t, 4> strides(extents.size(), 1);
    for (int i = int(extents.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * extents[i + 1];
    return strides;
  };
  // span(d) of the sub-nest rooted at loop j.
  auto spanFrom = [&](size_t j) {
    StringMap<int64_t> span;
    for (size_t i = j; i < n; ++i)
      span[nest[i].dim] += (nest[i].extent - 1) * nest[i].step;
    return [span = std::move(span)](StringRef d) {
      auto it = span.find(d);
      return 1 + (it == span.end() ? 0 : it->second);
    };
  };
  size_t firstInner = n; // first loop inside the cache tile
  for (size_t i = 0; i < n; ++i)
    if (nest[i].level == "register" || nest[i].level == "tile") {
      firstInner = i;
      break;
    }
  SmallVector<SmallVector<int64_t, 4>> fullStrides, tileStrides;
  SmallVector<bool> packed;
  for (auto [index, op] : llvm::enumerate(operands)) {
    fullStrides.push_back(rowMajor(op.getExtents([&](StringRef d) {
      return problem.lookup(d)->size;
    })));
    tileStrides.push_back(rowMajor(op.getExtents(spanFrom(firstInner))));
    bool isPacked = problem.target == kTargetCPU && !op.isOutput &&
                    ((index == 0 && (options.pack == "a" || options.pack == "ab")) ||
                     (index == 1 && (options.pack == "b" || options.pack == "ab")));
    packed.push_back(isPacked);
  }

  double topDown = 1;
  for (size_t j = 0; j < n; ++j) {
    const NestLoop &l = nest[j];
    topDown *= l.extent;
    double bottomUp = 1;
    for (size_t i = j; i < n; ++i)
      bottomUp *= nest[i].extent;
    out.push_back(squash(l.extent));
    out.push_back(squash(topDown));
    out.push_back(squash(bottomUp));
    for (LoopAnnotation a : kAnnotations)
      out.push_back(l.annotation == a ? 1.0 : 0.0);
    auto span = spanFrom(j);
    for (auto [index, op] : llvm::enumerate(operands)) {
      ArrayRef<int64_t> strides =
          packed[index] && j >= firstInner ? tileStrides[index]
                                           : fullStrides[index];
      int64_t stride = 0;
      for (auto [dimIndex, terms] : llvm::enumerate(op.indices))
        for (const IndexTerm &t : terms)
          if (t.dim == l.dim)
            stride += t.coefficient * l.step * strides[dimIndex];
      double elements = 1;
      for (int64_t e : op.getExtents(span))
        elements *= e;
      out.push_back(squash(double(stride) * elementBytes));
      out.push_back(squash(elements * elementBytes));
      out.push_back(squash(bottomUp / elements));
    }
  }
  for (unsigned i : optionParams)
    space.getParameter(i).encode(space.getValue(config, i), out);
  assert(out.size() - start == numFeatures && "feature width changed");
  (void)start;
}

SmallVector<std::string> LoopNestFeaturizer::getFeatureNames() const {
  SmallVector<std::string> names = {"threads", "register_tile", "vector_width",
                                    "unroll_step"};
  SmallVector<OperandAccess, 3> operands = getOperandAccesses(problem);
  for (auto [j, l] : llvm::enumerate(shape)) {
    // The dims of the CPU cache loops follow `order`: named by position.
    std::string prefix = "L" + std::to_string(j) + "." + l.level;
    if (!(problem.target == kTargetCPU && l.level == "cache" &&
          problem.lookup(l.dim)->role != DimRole::Batch))
      prefix += "." + l.dim;
    names.push_back(prefix + ".extent");
    names.push_back(prefix + ".topdown");
    names.push_back(prefix + ".bottomup");
    for (LoopAnnotation a : kAnnotations)
      names.push_back(prefix + "." + stringifyLoopAnnotation(a).str());
    for (const OperandAccess &op : operands) {
      names.push_back(prefix + "." + op.name + ".stride");
      names.push_back(prefix + "." + op.name + ".bytes");
      names.push_back(prefix + "." + op.name + ".reuse");
    }
  }
  for (unsigned i : optionParams) {
    SmallVector<std::string> knobNames;
    space.getParameter(i).getFeatureNames(knobNames);
    names.append(knobNames.begin(), knobNames.end());
  }
  return names;
}
