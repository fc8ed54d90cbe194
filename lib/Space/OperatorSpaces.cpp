//===- OperatorSpaces.cpp - Tiling spaces of matmul/conv ops -------------===//
//
// Builds the G-BFS, OpEvo (cuda) and CPU spaces of the tunable ops, the
// AutoMCL pfactor restriction and ideal-cache-model filter, and converts
// between space points and factor lists + option values.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <numeric>

using namespace llvm;
using namespace mlir::tiletune;

static Error makeError(const Twine &msg) { return createStringError(msg); }

unsigned mlir::tiletune::getNumFactors(StringRef target, OpKind opKind,
                                       DimRole role) {
  return getDimLevels(target, opKind, role).size() + 1;
}

/// The `pack` values a space of `kind` searches: the op's own
/// (getPackValues) and, for a conv with an im2col GEMM, those of that GEMM
/// which apply with `im2col` (never `bt`, which the verifier refuses there):
/// `dn` of an FHWC conv and of an NCHW conv through NHWC (both read their
/// filter as [F][KH*KW*C] or [F][C*KH*KW]), the paper's Im2colDNMM332. Such
/// a value needs `im2col = true` (constraint "im2col-pack"; an NCHW conv's
/// also `layout = nhwc`).
static SmallVector<StringRef> getSpacePackValues(const ProblemSpec &problem) {
  OpKind kind = problem.opKind;
  SmallVector<StringRef> values = getPackValues(kind);
  // An NCHW conv's im2col GEMMs: through NHWC (a superset of the per-image
  // matmul's packs on a 1x1 conv).
  if (std::optional<OpKind> gemm =
          getIm2colMatmulKind(kind, /*nhwcLayout=*/true))
    for (StringRef value : getPackValues(*gemm))
      if (value != "bt" && !llvm::is_contained(values, value))
        values.push_back(value);
  return values;
}

/// The space parameter of a schedule option searched on `problem`, or null
/// for options that are not searched (`pad`: padding follows the factors).
static std::shared_ptr<Parameter>
makeOptionParameter(const OptionSpec &spec, const ProblemSpec &problem) {
  switch (spec.kind) {
  case OptionKind::Order: {
    // Parallel dims in iterator order, then reductions (default).
    SmallVector<std::string> order;
    for (DimRole role : {DimRole::Parallel, DimRole::Reduction})
      for (const ProblemDim &d : problem.dims)
        if (d.role == role)
          order.push_back(d.name);
    return std::make_shared<PermutationParam>(spec.name, order);
  }
  case OptionKind::Bool: {
    // The default first.
    bool def = spec.getDefaultBool();
    return std::make_shared<CategoricalParam>(
        spec.name,
        SmallVector<std::string>{def ? "true" : "false",
                                 def ? "false" : "true"},
        0);
  }
  case OptionKind::Enum: {
    // `compute` names a `pack` value (the searched parameter) or a compute
    // the passes do not generate: not a parameter of its own.
    if (spec.name == "compute")
      return nullptr;
    // `pack = bt` (ttmm) applies where B is stored [b?][n][k] only; a
    // conv adds the packs of its im2col GEMM (`dn` of an FHWC conv).
    SmallVector<StringRef> legal = spec.name == "pack"
                                       ? getSpacePackValues(problem)
                                       : spec.getLegalValues();
    SmallVector<std::string> choices;
    int64_t defaultIndex = 0;
    for (StringRef value : legal) {
      if (value == spec.defaultValue)
        defaultIndex = choices.size();
      choices.push_back(value.str());
    }
    return std::make_shared<CategoricalParam>(spec.name, choices, defaultIndex);
  }
  case OptionKind::Int:
    return std::make_shared<DiscreteParam>(spec.name, spec.getLegalInts(),
                                           spec.getDefaultInt());
  case OptionKind::Sizes:
    return nullptr;
  }
  return nullptr;
}

StringRef mlir::tiletune::getUnrollDim(OpKind opKind) {
  return isConv(opKind) ? "c" : "k";
}

StringRef mlir::tiletune::getVectorDim(OpKind opKind) {
  if (opKind == OpKind::ConvNhwcHwcf || opKind == OpKind::ConvNhwcFhwc ||
      opKind == OpKind::ConvNhwgcGfhwc)
    return "f";
  if (opKind == OpKind::ConvNchwFchw || opKind == OpKind::ConvNgchwFgchw)
    return "ow";
  return "n";
}

static Error checkProblem(const ProblemSpec &problem) {
  ArrayRef<LoopTemplate> loops = getLoopTemplates(problem.opKind);
  StringRef kindName = stringifyOpKind(problem.opKind);
  if (llvm::Error err = checkKnownTarget(problem.target))
    return err;
  if (problem.dims.size() != loops.size())
    return makeError(kindName + " needs " + Twine(loops.size()) +
                     " loops, the problem has " + Twine(problem.dims.size()));
  for (auto [d, t] : llvm::zip(problem.dims, loops)) {
    if (d.name != t.name || d.role != t.role)
      return makeError("loop '" + d.name + "' does not match " + kindName +
                       "'s loop '" + t.name + "' (" + stringifyDimRole(t.role) +
                       ")");
    if (d.size < 1)
      return makeError("loop '" + d.name + "' has size " + Twine(d.size));
  }
  if (llvm::any_of(problem.strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(problem.dilations, [](int64_t d) { return d < 1; }) ||
      problem.elementBytes < 1)
    return makeError("strides, dilations and element size must be >= 1");
  return Error::success();
}

/// Value of categorical option `name` of config `c`, or `fallback` when the
/// space has no such parameter.
static StringRef getChoice(const Space &s, const Config &c, StringRef name,
                           StringRef fallback) {
  std::optional<unsigned> index = s.lookup(name);
  if (!index)
    return fallback;
  return cast<CategoricalParam>(s.getParameter(*index))
      .getChoice(s.getValue(c, *index));
}

/// The dim on the vector lanes of a CPU config: the layout option computes
/// an NCHW conv as NHWC (filters on the lanes); `pack = dn` puts k there.
/// (The per-image im2col GEMM of an NCHW conv in its native layout puts
/// the pixels oh*ow there; the "register-file" constraint counts it.)
static StringRef getVectorDim(const Space &s, const Config &c,
                              OpKind opKind) {
  // DNMM332's vectors run along k (its innermost k factor is the cache
  // tile, whose vectors the register tile reads).
  if (getChoice(s, c, "pack", "none") == "dn")
    return isConv(opKind) ? "c" : "k"; // a conv's im2col GEMM: k ends in c
  if ((opKind == OpKind::ConvNchwFchw || opKind == OpKind::ConvNgchwFgchw) &&
      getChoice(s, c, "layout", "native") == "nhwc")
    return "f";
  return getVectorDim(opKind);
}

/// Elements of the operand and result tiles of one cache tile of `p`
/// (cache tile sizes from `tile`): A + B + C for matmuls (per batch),
/// input window + filter + output for convolutions.
template <typename TileFn>
static int64_t getCacheTileElements(const ProblemSpec &p, TileFn tile) {
  if (!isConv(p.opKind)) {
    int64_t m = tile("m"), n = tile("n"), k = tile("k");
    return m * k + k * n + m * n;
  }
  int64_t oh = tile("oh"), ow = tile("ow"), f = tile("f"), c = tile("c"),
          kh = tile("kh"), kw = tile("kw");
  int64_t ih = (oh - 1) * p.strides[0] + (kh - 1) * p.dilations[0] + 1;
  int64_t iw = (ow - 1) * p.strides[1] + (kw - 1) * p.dilations[1] + 1;
  return ih * iw * c + kh * kw * c * f + oh * ow * f;
}

/// Adds the constraints that size a CPU space by its target: "register-file"
/// (a vectorized register tile needs no more vector registers than the
/// target has) and "cache-fit" (a cache tile's operands fit the L2).
static void addCPUTargetConstraints(Space &space, const ProblemSpec &problem,
                                    const SpaceOptions &options) {
  SmallVector<std::string> parallel;
  for (const ProblemDim &d : problem.dims)
    if (d.role == DimRole::Parallel)
      parallel.push_back(d.name);
  OpKind kind = problem.opKind;
  if (options.vectorRegisters > 0 && options.vectorBytes > 0) {
    int64_t registers = options.vectorRegisters;
    int64_t lanes =
        std::max<int64_t>(1, options.vectorBytes / problem.elementBytes);
    space.addConstraint(
        {"register-file",
         [parallel, kind, registers,
          lanes](const Space &s, const Config &c) -> std::optional<std::string> {
           if (getChoice(s, c, "vectorize", "true") != "true")
             return std::nullopt;
           // `pack = dn` (dnmm332): rm x rn accumulator vectors (along k)
           // plus rm vectors of A and rn of B.
           if (getChoice(s, c, "pack", "none") == "dn") {
             // A conv's im2col GEMM: m = n*oh*ow, n = f (per level).
             auto gemmTile = [&](StringRef loop) {
               if (!isConv(kind))
                 return s.getValue(c, loop).back();
               int64_t tile = 1;
               for (const std::string &d : parallel)
                 if (getIm2colGemmLoop(d) == loop)
                   tile *= s.getValue(c, d).back();
               return tile;
             };
             int64_t rm = gemmTile("m");
             int64_t rn = gemmTile("n");
             int64_t need = rm * rn + rm + rn;
             if (need <= registers)
               return std::nullopt;
             return "dnmm register tile of " + std::to_string(rm) + " x " +
                    std::to_string(rn) + " needs " + std::to_string(need) +
                    " vector registers, the target has " +
                    std::to_string(registers);
           }
           StringRef vdim = getVectorDim(s, c, kind);
           int64_t rows = 1, vectors = 1;
           // The per-image im2col GEMM of an NCHW conv: f rows x oh*ow
           // pixels on the lanes.
           bool perImage =
               isPerImageIm2col(kind, getChoice(s, c, "layout", "native") ==
                                          "nhwc") &&
               getChoice(s, c, "im2col", "false") == "true";
           if (perImage) {
             int64_t pixels =
                 s.getValue(c, "oh").back() * s.getValue(c, "ow").back();
             rows = s.getValue(c, "f").back();
             vectors = (pixels + lanes - 1) / lanes;
           } else {
             for (const std::string &d : parallel) {
               int64_t reg = s.getValue(c, d).back();
               if (d == vdim)
                 vectors = (reg + lanes - 1) / lanes;
               else
                 rows *= reg;
             }
           }
           int64_t need =
               CPUDescription::getRegisterTileRegisters(rows, vectors);
           if (need <= registers)
             return std::nullopt;
           return "register tile of " + std::to_string(rows) + " x " +
                  std::to_string(vectors) + " vectors needs " +
                  std::to_string(need) + " vector registers, the target has " +
                  std::to_string(registers);
         }});
  }
  if (options.cacheBytes > 0) {
    int64_t limit = options.cacheBytes / problem.elementBytes;
    ProblemSpec p = problem;
    space.addConstraint(
        {"cache-fit",
         [p, limit](const Space &s,
                    const Config &c) -> std::optional<std::string> {
           auto tile = [&](StringRef name) -> int64_t {
             const ProblemDim *d = p.lookup(name);
             ArrayRef<int64_t> f = s.getValue(c, d->name);
             return d->role == DimRole::Parallel ? f[2] * f[3]
                    : d->role == DimRole::Reduction ? f[1]
                                                    : 1;
           };
           int64_t elements = getCacheTileElements(p, tile);
           if (elements <= limit)
             return std::nullopt;
           return "cache tile holds " + std::to_string(elements) +
                  " elements, the L2 " + std::to_string(limit);
         }});
  }
}

Expected<Space> mlir::tiletune::buildSpace(const ProblemSpec &problem,
                                           const SpaceOptions &options) {
  if (Error e = checkProblem(problem))
    return std::move(e);
  std::string name =
      problem.target + " " + stringifyOpKind(problem.opKind).str();
  for (size_t i = 0; i < problem.dims.size(); ++i)
    name += (i ? "x" : " ") + std::to_string(problem.dims[i].size);
  Space space(name);
  space.setProblem(problem);
  for (const ProblemDim &d : problem.dims)
    space.addParameter(std::make_shared<FactorizationParam>(
        d.name, d.size, getNumFactors(problem.target, problem.opKind, d.role)));

  SmallVector<std::string> parallel;
  for (const ProblemDim &d : problem.dims)
    if (d.role == DimRole::Parallel)
      parallel.push_back(d.name);

  OpKind kind = problem.opKind;
  if (problem.target == "cpu") {
    // The options of the template meant for this op kind (e.g. `layout`
    // only for NCHW convs, computed as NHWC: beyond the papers, see
    // docs/TileConfig.md).
    for (const OptionSpec &spec : getOptionSpecs(problem.target))
      if (spec.appliesTo(kind))
        if (std::shared_ptr<Parameter> param =
                makeOptionParameter(spec, problem))
          space.addParameter(std::move(param));

    std::string unrollDim = getUnrollDim(problem.opKind).str();
    space.addConstraint(
        {"unroll-divides-cache-tile",
         [unrollDim](const Space &s,
                     const Config &c) -> std::optional<std::string> {
           const auto &p = cast<DiscreteParam>(
               s.getParameter(*s.lookup("unroll")));
           int64_t unroll = p.getValue(s.getValue(c, "unroll"));
           int64_t tile = s.getValue(c, unrollDim)[1];
           if (tile % unroll == 0)
             return std::nullopt;
           return "unroll " + std::to_string(unroll) +
                  " does not divide the cache tile " + std::to_string(tile) +
                  " of '" + unrollDim + "'";
         }});
    // The im2col GEMM of an NCHW conv larger than 1x1 gathers its windows
    // through NHWC: only with `layout = nhwc` (the verifier's rule). A 1x1
    // one has both.
    if (kind == OpKind::ConvNchwFchw && space.lookup("im2col") &&
        !(problem.lookup("kh")->size == 1 && problem.lookup("kw")->size == 1))
      space.addConstraint(
          {"im2col-layout",
           [](const Space &s, const Config &c) -> std::optional<std::string> {
             if (getChoice(s, c, "im2col", "false") != "true" ||
                 getChoice(s, c, "layout", "native") == "nhwc")
               return std::nullopt;
             return std::string(
                 "im2col on an NCHW conv with a filter larger than "
                 "1x1 needs layout = nhwc");
           }});
    // The packs only the im2col GEMM has (`dn` of an FHWC conv, of a 1x1
    // NCHW conv through NHWC) need it.
    if (getSpacePackValues(problem).size() > getPackValues(kind).size()) {
      SmallVector<std::string> own;
      for (StringRef value : getPackValues(kind))
        own.push_back(value.str());
      bool needsNhwc = kind == OpKind::ConvNchwFchw;
      space.addConstraint(
          {"im2col-pack",
           [own, needsNhwc](const Space &s,
                            const Config &c) -> std::optional<std::string> {
             StringRef pack = getChoice(s, c, "pack", "none");
             if (llvm::is_contained(own, pack) ||
                 (getChoice(s, c, "im2col", "false") == "true" &&
                  (!needsNhwc ||
                   getChoice(s, c, "layout", "native") == "nhwc")))
               return std::nullopt;
             return "pack = " + pack.str() +
                    " is a compute of the im2col GEMM: it needs im2col = " +
                    "true" + (needsNhwc ? " and layout = nhwc" : "");
           }});
    }
    // A conv's padded rows (toProblemSpec) stay whole at the parallel level
    // (the verifier's rule); every compute pads them (the im2col GEMM its
    // pixel loop, batch 1).
    if (problem.paddedRows)
      space.addConstraint(
          {"padded-rows",
           [](const Space &s, const Config &c) -> std::optional<std::string> {
             if (s.getValue(c, "oh")[0] != 1)
               return std::string("the padded rows of a conv stay whole at "
                                  "the parallel level");
             return std::nullopt;
           }});
    if (options.maxRegisterTile > 0) {
      int64_t limit = options.maxRegisterTile;
      space.addConstraint(
          {"register-tile-limit",
           [parallel, limit](const Space &s,
                             const Config &c) -> std::optional<std::string> {
             int64_t tile = 1;
             for (const std::string &d : parallel)
               tile *= s.getValue(c, d).back();
             if (tile <= limit)
               return std::nullopt;
             return "register tile has " + std::to_string(tile) +
                    " elements, more than " + std::to_string(limit);
           }});
    }
    addCPUTargetConstraints(space, problem, options);
    return space;
  }

  // cuda (OpEvo appendix B).
  bool unrollOpts = options.cudaUnrollOptions.value_or(isConv(kind));
  if (unrollOpts)
    for (const OptionSpec &spec : getOptionSpecs(problem.target))
      if (spec.appliesTo(kind))
        if (std::shared_ptr<Parameter> param =
                makeOptionParameter(spec, problem))
          space.addParameter(std::move(param));
  if (options.maxThreadsPerBlock > 0) {
    int64_t limit = options.maxThreadsPerBlock;
    space.addConstraint(
        {"threads-per-block",
         [parallel, limit](const Space &s,
                           const Config &c) -> std::optional<std::string> {
           int64_t threads = 1;
           for (const std::string &d : parallel)
             threads *= s.getValue(c, d)[2];
           if (threads <= limit)
             return std::nullopt;
           return std::to_string(threads) + " threads per block, more than " +
                  std::to_string(limit);
         }});
  }
  return space;
}

Space mlir::tiletune::buildPaperMatmulSpace(int64_t m, int64_t k, int64_t n) {
  Space space("gbfs matmul " + std::to_string(m) + "x" + std::to_string(k) +
              "x" + std::to_string(n));
  space.addParameter(std::make_shared<FactorizationParam>("m", m, 4));
  space.addParameter(std::make_shared<FactorizationParam>("k", k, 2));
  space.addParameter(std::make_shared<FactorizationParam>("n", n, 4));
  return space;
}

//===----------------------------------------------------------------------===//
// AutoMCL
//===----------------------------------------------------------------------===//

int64_t mlir::tiletune::getPFactorThreads(const ProblemSpec &problem,
                                          int64_t numThreads) {
  // A thread count t can be split over the batch/parallel dims iff, for
  // every prime, its exponent in t is at most the sum of its exponents in
  // the dim sizes (distribute prime by prime). Take the largest such t.
  std::map<int64_t, unsigned> available;
  for (const ProblemDim &d : problem.dims)
    if (d.role != DimRole::Reduction && d.size >= 1)
      for (auto [p, e] : factorizePrimes(d.size))
        available[p] += e;
  int64_t best = 1;
  for (int64_t t = 2; t <= numThreads; ++t) {
    bool ok = true;
    for (auto [p, e] : factorizePrimes(t))
      ok &= available.count(p) && available[p] >= e;
    if (ok)
      best = t;
  }
  return best;
}

Expected<Space> mlir::tiletune::restrictToThreadGrid(const Space &space,
                                                     const ProblemSpec &problem,
                                                     int64_t numThreads) {
  if (Error e = checkProblem(problem))
    return std::move(e);
  if (problem.target != "cpu")
    return makeError("pfactor applies to cpu spaces only");
  if (numThreads < 1)
    return makeError("pfactor needs at least one thread");
  SmallVector<std::string> dims;
  for (const ProblemDim &d : problem.dims) {
    if (!space.lookup(d.name))
      return makeError("space has no parameter for loop '" + d.name + "'");
    if (d.role != DimRole::Reduction)
      dims.push_back(d.name);
  }
  int64_t threads = getPFactorThreads(problem, numThreads);
  Space result = space.withConstraint(
      {"pfactor-threads",
       [dims, threads](const Space &s,
                       const Config &c) -> std::optional<std::string> {
         int64_t t = 1;
         for (const std::string &d : dims)
           t *= s.getValue(c, d)[0];
         if (t == threads)
           return std::nullopt;
         return "thread grid has " + std::to_string(t) + " threads, pfactor "
                "wants " + std::to_string(threads);
       }});
  // Outermost factors the constraint leaves no choice for are pinned (factor
  // values: the encoding is unchanged), which shrinks the product space the
  // samplers draw from by the factorizations the constraint would reject:
  // a dim whose size shares no prime with the thread count has outermost
  // factor 1 (it divides both), and when one dim is left it takes all
  // threads. One thread pins them all to 1.
  SmallVector<std::string> open;
  std::string pins;
  auto pin = [&](const std::string &d, int64_t outer) {
    unsigned width = space.getParameter(*space.lookup(d)).getWidth();
    pins += (pins.empty() ? "" : ";") + d + "=[" + std::to_string(outer);
    for (unsigned i = 1; i < width; ++i)
      pins += ",*";
    pins += "]";
  };
  for (const std::string &d : dims) {
    if (std::gcd(problem.lookup(d)->size, threads) == 1)
      pin(d, 1);
    else
      open.push_back(d);
  }
  if (open.size() == 1)
    pin(open.front(), threads);
  if (!pins.empty()) {
    if (Expected<Space> pinned = result.withPinned(pins))
      result = std::move(*pinned);
    else
      consumeError(pinned.takeError()); // e.g. a --fix with other threads
  }
  result.setName((space.getName() + " pfactor(" + Twine(threads) + ")").str());
  return result;
}

/// ceil(a / b) for a >= 0; a line or vector width below 1 counts as 1.
static int64_t ceilDiv(int64_t a, int64_t b) {
  b = std::max<int64_t>(1, b);
  return (a + b - 1) / b;
}

int64_t mlir::tiletune::getMatmulCacheLines(MatmulSchedule schedule,
                                            int64_t mt, int64_t kt, int64_t nt,
                                            int64_t cw) {
  // Lines of an r x c row-major block: r * (ceil(c / C_w) + 1).
  auto rows = [cw](int64_t r, int64_t c) { return r * (ceilDiv(c, cw) + 1); };
  switch (schedule) {
  case MatmulSchedule::TMM:
  case MatmulSchedule::TTMM:
    // A tile (M_t x K_t) + B tile (K_t x N_t) + C tile (M_t x N_t). TTMM's
    // tiles are TMM's on the transposed B; its whole-B transpose (the first
    // term of its Table 2 row) runs once, before the tiles.
    return rows(mt, kt) + rows(kt, nt) + rows(mt, nt);
  case MatmulSchedule::DNMM:
    // A tile (M_t x K_t) + B tile (N_t x K_t, B stored [n][k]) + C tile.
    // The paper's CC[y][x][k_i] lives in registers here (k_i = one vector),
    // so its M_t (ceil(N_t K_t / C_w) + 1) term is the C tile's.
    return rows(mt, kt) + rows(nt, kt) + rows(mt, nt);
  case MatmulSchedule::LPMM:
    return 1 + std::max(ceilDiv(mt, cw) + mt,
                        ceilDiv(mt * nt, cw) +
                            std::max(rows(mt, nt),
                                     rows(kt, nt) + ceilDiv(kt * mt, cw) + 1));
  case MatmulSchedule::RPMM:
    return 1 + std::max(ceilDiv(nt, cw) + nt,
                        ceilDiv(mt * nt, cw) +
                            std::max(rows(mt, nt),
                                     rows(mt, kt) + ceilDiv(kt * nt, cw) + 1));
  case MatmulSchedule::DPMM:
    return 1 + std::max({ceilDiv(mt, cw) + mt, ceilDiv(nt, cw) + nt,
                         ceilDiv(mt * nt, cw) +
                             std::max(rows(mt, nt), ceilDiv(kt * mt, cw) +
                                                        ceilDiv(kt * nt, cw) +
                                                        2)});
  }
  return 0;
}

int64_t mlir::tiletune::getConvCacheLines(int64_t owt, int64_t ict,
                                          int64_t oct, int64_t kh, int64_t kw,
                                          int64_t s2, int64_t d2, int64_t cw) {
  int64_t window = s2 * (owt - 1) + (kw - 1) * d2 + 1;
  int64_t filter = kh * kw * ict * (ceilDiv(oct, cw) + 1);
  int64_t out = ceilDiv(owt * oct, cw) + 1;
  return std::max({oct * (ceilDiv(kh * kw * ict, cw) + 1) + filter,
                   out + kh * ict * (ceilDiv(window, cw) + 1) + filter,
                   out + owt * (ceilDiv(oct, cw) + 1),
                   owt * (ceilDiv(oct, cw) + 1) + oct * (ceilDiv(owt, cw) + 1)});
}

int64_t mlir::tiletune::getIm2colConvCacheLines(MatmulSchedule schedule,
                                                int64_t owt, int64_t ict,
                                                int64_t oct, int64_t kh,
                                                int64_t kw, int64_t s2,
                                                int64_t d2, int64_t cw) {
  int64_t window = (owt - 1) * s2 + (kw - 1) * d2 + 1;
  int64_t kt = kh * kw * ict;
  return std::max(
      {owt * (ceilDiv(kt, cw) + 1) + ict * (ceilDiv(window, cw) + 1),
       2 * oct * (ceilDiv(kt, cw) + 1),
       oct * (ceilDiv(owt, cw) + 1) + owt * (ceilDiv(oct, cw) + 1),
       getMatmulCacheLines(schedule, owt, kt, oct, cw)});
}

/// Cache tile of a dim in a CPU config: the product of the factors inside
/// the cache level (parallel: f2*f3; reduction: f1; batch: 1). With
/// `innermost`, the innermost tile instead: the register tile f3 of a
/// parallel dim (the reductions keep their cache tile, which a register
/// tile's accumulation loops run over).
static int64_t cacheTile(const Space &s, const Config &c, const ProblemDim &d,
                         bool innermost = false) {
  ArrayRef<int64_t> f = s.getValue(c, d.name);
  switch (d.role) {
  case DimRole::Parallel:
    return innermost ? f[3] : f[2] * f[3];
  case DimRole::Reduction:
    return f[1];
  case DimRole::Batch:
    return 1;
  }
  return 1;
}

Expected<Space> mlir::tiletune::filterByIdealCacheModel(
    const Space &space, const ProblemSpec &problem, const CacheModel &model) {
  if (Error e = checkProblem(problem))
    return std::move(e);
  if (problem.target != "cpu")
    return makeError("the ideal-cache-model filter applies to cpu spaces only");
  if (model.cacheBytes < model.lineBytes || model.lineBytes < 1 ||
      model.vectorBytes < 1 || model.innerCacheBytes < 0 ||
      (model.innerCacheBytes > 0 && model.innerCacheBytes < model.lineBytes))
    return makeError("invalid cache model");
  for (const ProblemDim &d : problem.dims)
    if (!space.lookup(d.name) ||
        space.getParameter(*space.lookup(d.name)).getWidth() !=
            getNumFactors("cpu", problem.opKind, d.role))
      return makeError("space does not have the cpu factorization of '" +
                       d.name + "'");
  int64_t cw = std::max<int64_t>(1, model.lineBytes / problem.elementBytes);
  int64_t vw = std::max<int64_t>(1, model.vectorBytes / problem.elementBytes);
  bool hasPack = space.lookup("pack").has_value();
  ProblemSpec p = problem;
  // T of Table 2 (by the config's `pack`) or Table 3 (CONVOpt, or
  // Im2col-CONV with the GEMM's `pack` row when `im2col = true`) on the
  // cache tile or the innermost tile.
  auto linesTouched = [p, cw, hasPack](const Space &s, const Config &c,
                                       bool innermost) {
    auto tile = [&](StringRef name) {
      return cacheTile(s, c, *p.lookup(name), innermost);
    };
    MatmulSchedule sched = MatmulSchedule::TMM;
    if (hasPack) {
      StringRef pack =
          cast<CategoricalParam>(s.getParameter(*s.lookup("pack")))
              .getChoice(s.getValue(c, "pack"));
      sched = pack == "a"    ? MatmulSchedule::LPMM
              : pack == "b"  ? MatmulSchedule::RPMM
              : pack == "ab" ? MatmulSchedule::DPMM
              : pack == "bt" ? MatmulSchedule::TTMM
              : pack == "dn" ? MatmulSchedule::DNMM
                             : MatmulSchedule::TMM;
    }
    if (isConv(p.opKind)) {
      if (getChoice(s, c, "im2col", "false") == "true")
        return getIm2colConvCacheLines(sched, tile("ow"), tile("c"), tile("f"),
                                       tile("kh"), tile("kw"), p.strides[1],
                                       p.dilations[1], cw);
      return getConvCacheLines(tile("ow"), tile("c"), tile("f"), tile("kh"),
                               tile("kw"), p.strides[1], p.dilations[1], cw);
    }
    return getMatmulCacheLines(sched, tile("m"), tile("k"), tile("n"), cw);
  };
  Space result = space;
  if (model.innerCacheBytes > 0) {
    int64_t innerLines = model.innerCacheBytes / model.lineBytes;
    result.addConstraint(
        {"innermost-tile-fit",
         [linesTouched, innerLines](
             const Space &s, const Config &c) -> std::optional<std::string> {
           int64_t t = linesTouched(s, c, /*innermost=*/true);
           if (t < innerLines)
             return std::nullopt;
           return "innermost tile touches " + std::to_string(t) +
                  " lines, the inner cache holds " + std::to_string(innerLines);
         }});
  }
  int64_t lines = model.cacheBytes / model.lineBytes; // Z_w / C_w
  result.addConstraint(
      {"ideal-cache-fit",
       [linesTouched, lines](const Space &s,
                             const Config &c) -> std::optional<std::string> {
         int64_t t = linesTouched(s, c, /*innermost=*/false);
         if (t < lines)
           return std::nullopt;
         return "cache tile touches " + std::to_string(t) +
                " lines, the cache holds " + std::to_string(lines);
       }});
  // The dim on the vector lanes is the config's: an NCHW conv computed as
  // NHWC (`layout = nhwc`) has the filters there, not the output width.
  bool hasVectorize = space.lookup("vectorize").has_value();
  result.addConstraint(
      {"vector-width",
       [p, vw, hasVectorize](const Space &s,
                             const Config &c) -> std::optional<std::string> {
         if (hasVectorize &&
             cast<CategoricalParam>(s.getParameter(*s.lookup("vectorize")))
                     .getChoice(s.getValue(c, "vectorize")) != "true")
           return std::nullopt;
         StringRef vdim = ::getVectorDim(s, c, p.opKind);
         int64_t need = std::min(p.lookup(vdim)->size, vw);
         int64_t reg = s.getValue(c, vdim).back();
         if (reg >= need)
           return std::nullopt;
         return "register tile " + std::to_string(reg) + " of '" + vdim.str() +
                "' is narrower than " + std::to_string(need) + " lanes";
       }});
  result.setName((space.getName() + " cache-filtered").str());
  return result;
}

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

/// Whether a categorical parameter is a boolean flag (possibly pinned to
/// one of its two values).
static bool isBoolChoice(const CategoricalParam &p) {
  return llvm::all_of(p.getChoices(), [](const std::string &c) {
    return c == "true" || c == "false";
  });
}

SpacePoint mlir::tiletune::toSpacePoint(const Space &space,
                                        const Config &config) {
  SpacePoint point;
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    const Parameter &p = space.getParameter(i);
    ArrayRef<int64_t> v = space.getValue(config, i);
    OptionValue o;
    if (isa<FactorizationParam>(p)) {
      point.factors[p.getName().str()] = SmallVector<int64_t>(v);
      continue;
    }
    if (auto *perm = dyn_cast<PermutationParam>(&p)) {
      o.kind = OptionValue::Kind::NameList;
      for (int64_t e : v)
        o.names.push_back(perm->getElements()[e]);
    } else if (auto *d = dyn_cast<DiscreteParam>(&p)) {
      o.kind = OptionValue::Kind::Int;
      o.intValue = d->getValue(v);
    } else {
      auto &c = cast<CategoricalParam>(p);
      if (isBoolChoice(c)) {
        o.kind = OptionValue::Kind::Bool;
        o.boolValue = c.getChoice(v) == "true";
      } else {
        o.kind = OptionValue::Kind::String;
        o.stringValue = c.getChoice(v).str();
      }
    }
    point.options[p.getName().str()] = std::move(o);
  }
  return point;
}

Expected<Config> mlir::tiletune::fromSpacePoint(const Space &space,
                                                const SpacePoint &point) {
  Config config = space.getDefault();
  for (const auto &[name, f] : point.factors) {
    auto i = space.lookup(name);
    if (!i || !isa<FactorizationParam>(space.getParameter(*i)))
      return makeError("the space has no factorization '" + name + "'");
  }
  for (const auto &[name, o] : point.options) {
    auto i = space.lookup(name);
    if (!i || isa<FactorizationParam>(space.getParameter(*i)))
      return makeError("the space has no option '" + name + "'");
  }
  for (unsigned i = 0; i < space.getNumParameters(); ++i) {
    const Parameter &p = space.getParameter(i);
    std::string name = p.getName().str();
    ParamValue v(p.getWidth());
    if (isa<FactorizationParam>(p)) {
      auto it = point.factors.find(name);
      if (it == point.factors.end())
        return makeError("missing factors of '" + name + "'");
      if (it->second.size() != p.getWidth())
        return makeError("'" + name + "' needs " + Twine(p.getWidth()) +
                         " factors, got " + Twine(it->second.size()));
      llvm::copy(it->second, v.begin());
    } else {
      auto it = point.options.find(name);
      if (it == point.options.end())
        continue; // keep the default
      const OptionValue &o = it->second;
      if (auto *perm = dyn_cast<PermutationParam>(&p)) {
        if (o.kind != OptionValue::Kind::NameList ||
            o.names.size() != p.getWidth())
          return makeError("option '" + name + "' needs a list of " +
                           Twine(p.getWidth()) + " loop names");
        for (size_t j = 0; j < o.names.size(); ++j) {
          auto e = llvm::find(perm->getElements(), o.names[j]);
          if (e == perm->getElements().end())
            return makeError("option '" + name + "': unknown loop '" +
                             o.names[j] + "'");
          v[j] = e - perm->getElements().begin();
        }
      } else if (auto *d = dyn_cast<DiscreteParam>(&p)) {
        auto idx = o.kind == OptionValue::Kind::Int ? d->indexOf(o.intValue)
                                                    : std::nullopt;
        if (!idx)
          return makeError("option '" + name + "' has an unsupported value");
        v[0] = *idx;
      } else {
        auto &c = cast<CategoricalParam>(p);
        std::optional<int64_t> idx;
        if (o.kind == OptionValue::Kind::Bool && isBoolChoice(c))
          idx = c.indexOf(o.boolValue ? "true" : "false");
        else if (o.kind == OptionValue::Kind::String)
          idx = c.indexOf(o.stringValue);
        if (!idx)
          return makeError("option '" + name + "' has an unsupported value");
        v[0] = *idx;
      }
    }
    std::string why;
    if (!p.isValid(v, &why))
      return makeError("'" + name + "': " + why);
    config = space.withValue(config, i, v);
  }
  std::string reason;
  if (!space.isValid(config, &reason))
    return makeError("config violates the space: " + reason);
  return config;
}
