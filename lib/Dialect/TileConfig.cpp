//===- TileConfig.cpp - Tunable ops and their tiling configs --------------===//
//
// Recognition of tunable ops, the factor view of a config and its
// verification against an op (levels and options from TilingTemplates.def).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Support/ProblemSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::tiletune;

const LoopDim *TunableOp::lookup(StringRef name) const {
  for (const LoopDim &dim : dims)
    if (dim.name == name)
      return &dim;
  return nullptr;
}

double TunableOp::flops() const {
  SmallVector<int64_t> sizes;
  for (const LoopDim &dim : dims)
    sizes.push_back(dim.size);
  return countFlops(sizes);
}

/// Reads a 2-element strides/dilations attribute ({1, 1} when absent).
static std::array<int64_t, 2> readWindowPair(DenseIntElementsAttr attr) {
  std::array<int64_t, 2> result = {1, 1};
  if (!attr || attr.getNumElements() != 2)
    return result;
  unsigned i = 0;
  for (const APInt &v : attr.getValues<APInt>())
    result[i++] = v.getSExtValue();
  return result;
}

void mlir::tiletune::getConvStridesAndDilations(
    Operation *op, std::array<int64_t, 2> &strides,
    std::array<int64_t, 2> &dilations) {
  strides = dilations = {1, 1};
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    strides = readWindowPair(conv.getStrides());
    dilations = readWindowPair(conv.getDilations());
  } else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
    strides = readWindowPair(conv.getStrides());
    dilations = readWindowPair(conv.getDilations());
  } else if (auto conv = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op)) {
    strides = readWindowPair(conv.getStrides());
    dilations = readWindowPair(conv.getDilations());
  } else if (auto conv = dyn_cast<linalg::Conv2DNgchwFgchwOp>(op)) {
    strides = readWindowPair(conv.getStrides());
    dilations = readWindowPair(conv.getDilations());
  } else if (auto conv = dyn_cast<linalg::Conv2DNhwgcGfhwcOp>(op)) {
    strides = readWindowPair(conv.getStrides());
    dilations = readWindowPair(conv.getDilations());
  }
}

SmallVector<AffineMap> mlir::tiletune::getMatmulFormMaps(MLIRContext *ctx,
                                                        MatmulForm form) {
  unsigned b = form.batched ? 1 : 0;
  unsigned numLoops = b + 3;
  auto map = [&](unsigned first, unsigned second) {
    SmallVector<AffineExpr> exprs;
    if (form.batched)
      exprs.push_back(getAffineDimExpr(0, ctx));
    exprs.push_back(getAffineDimExpr(b + first, ctx));
    exprs.push_back(getAffineDimExpr(b + second, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  // Loops m, n, k are 0, 1, 2 after the batch loop.
  return {form.transposeA ? map(2, 0) : map(0, 2),
          form.transposeB ? map(1, 2) : map(2, 1), map(0, 1)};
}

/// The kind of a linalg.matmul / linalg.batch_matmul from its indexing maps:
/// the output must be [b?][m][n], A [b?][m][k] or [b?][k][m], B [b?][k][n]
/// or [b?][n][k] (loops in the op's order b?, m, n, k). Other maps
/// (broadcasts of A or B, a transposed output) set `reason`.
template <typename MatmulOpTy>
static std::optional<OpKind> matchMatmulForm(MatmulOpTy matmul,
                                             std::string *reason) {
  MatmulForm form;
  form.batched = std::is_same_v<MatmulOpTy, linalg::BatchMatmulOp>;
  if (!matmul.hasUserDefinedMaps())
    return getMatmulKind(form);
  MLIRContext *ctx = matmul.getContext();
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  SmallVector<AffineMap> plain = getMatmulFormMaps(ctx, form);
  MatmulForm both = form;
  both.transposeA = both.transposeB = true;
  SmallVector<AffineMap> transposed = getMatmulFormMaps(ctx, both);
  if (maps.size() != 3 || maps[2] != plain[2]) {
    *reason = "has indexing_maps TileTune does not tile (only transposes of "
              "A and B are supported; the output must be [b?][m][n])";
    return std::nullopt;
  }
  if (maps[0] == transposed[0])
    form.transposeA = true;
  else if (maps[0] != plain[0]) {
    *reason = "has an A indexing map TileTune does not tile (supported: "
              "A[b?][m][k] or transposed A[b?][k][m]; broadcasts are not)";
    return std::nullopt;
  }
  if (maps[1] == transposed[1])
    form.transposeB = true;
  else if (maps[1] != plain[1]) {
    *reason = "has a B indexing map TileTune does not tile (supported: "
              "B[b?][k][n] or transposed B[b?][n][k]; broadcasts are not)";
    return std::nullopt;
  }
  return getMatmulKind(form);
}

/// The indexing maps of a 2-D convolution kind with the given strides and
/// dilations ({h, w}): input, filter, output, as the named op has them.
static SmallVector<AffineMap> getConvMaps(MLIRContext *ctx, OpKind kind,
                                          ArrayRef<int64_t> strides,
                                          ArrayRef<int64_t> dilations) {
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  unsigned numLoops = getLoopTemplates(kind).size();
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  auto window = [&](unsigned out, unsigned filter, unsigned i) {
    return d(out) * strides[i] + d(filter) * dilations[i];
  };
  switch (kind) {
  case OpKind::ConvNhwcHwcf: // n, oh, ow, f, kh, kw, c
    return {map({d(0), window(1, 4, 0), window(2, 5, 1), d(6)}),
            map({d(4), d(5), d(6), d(3)}), map({d(0), d(1), d(2), d(3)})};
  case OpKind::ConvNhwcFhwc: // n, oh, ow, f, kh, kw, c
    return {map({d(0), window(1, 4, 0), window(2, 5, 1), d(6)}),
            map({d(3), d(4), d(5), d(6)}), map({d(0), d(1), d(2), d(3)})};
  case OpKind::ConvNchwFchw: // n, f, oh, ow, c, kh, kw
    return {map({d(0), d(4), window(2, 5, 0), window(3, 6, 1)}),
            map({d(1), d(4), d(5), d(6)}), map({d(0), d(1), d(2), d(3)})};
  case OpKind::ConvNgchwFgchw: // n, g, f, oh, ow, c, kh, kw
    return {map({d(0), d(1), d(5), window(3, 6, 0), window(4, 7, 1)}),
            map({d(2), d(1), d(5), d(6), d(7)}),
            map({d(0), d(1), d(2), d(3), d(4)})};
  case OpKind::ConvNhwgcGfhwc: // n, oh, ow, g, f, kh, kw, c
    return {map({d(0), window(1, 5, 0), window(2, 6, 1), d(3), d(7)}),
            map({d(3), d(4), d(5), d(6), d(7)}),
            map({d(0), d(1), d(2), d(3), d(4)})};
  default:
    return {};
  }
}

/// Whether the body of `op` is exactly `out + in0 * in1` (or with the
/// operands of either op swapped) over floats, and nothing else.
static bool hasMulAddBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul || mul->getBlock() != &body)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

std::optional<OpKind>
mlir::tiletune::matchGenericOpKind(Operation *op, std::array<int64_t, 2> &strides,
                                   std::array<int64_t, 2> &dilations,
                                   std::string *reason) {
  strides = dilations = {1, 1};
  auto fail = [&](const Twine &why) -> std::optional<OpKind> {
    if (reason)
      *reason = why.str();
    return std::nullopt;
  };
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return fail("is not a linalg.generic");
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return fail("is not a matmul or 2-D convolution (it needs two inputs and "
                "one output)");
  if (!hasMulAddBody(generic))
    return fail("does not compute out + lhs * rhs (its body must be one "
                "arith.mulf of the inputs and one arith.addf into the output, "
                "with no casts)");
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iterators =
      generic.getIteratorTypesArray();
  auto iteratorsAre = [&](unsigned parallel, unsigned reduction) {
    if (iterators.size() != parallel + reduction)
      return false;
    for (auto [i, it] : llvm::enumerate(iterators))
      if ((i < parallel) != (it == utils::IteratorType::parallel))
        return false;
    return true;
  };
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalg::isaContractionOpInterface(linalgOp)) {
    for (bool batched : {false, true})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          MatmulForm form{batched, ta, tb};
          if (iteratorsAre(batched ? 3 : 2, 1) &&
              maps == getMatmulFormMaps(ctx, form))
            return getMatmulKind(form);
        }
    return fail("is a contraction, but not in a matmul or batch_matmul form "
                "TileTune tiles (loops (b?, m, n, k) in that order; A "
                "[b?][m][k] or [b?][k][m], B [b?][k][n] or [b?][n][k], C "
                "[b?][m][n])");
  }
  if (linalg::isaConvolutionOpInterface(linalgOp)) {
    FailureOr<linalg::ConvolutionDimensions> dims =
        linalg::inferConvolutionDims(linalgOp);
    if (succeeded(dims) && dims->strides.size() == 2 &&
        dims->dilations.size() == 2 &&
        (iteratorsAre(4, 3) || iteratorsAre(5, 3))) {
      strides = {dims->strides[0], dims->strides[1]};
      dilations = {dims->dilations[0], dims->dilations[1]};
      for (OpKind kind :
           {OpKind::ConvNhwcHwcf, OpKind::ConvNhwcFhwc, OpKind::ConvNchwFchw,
            OpKind::ConvNgchwFgchw, OpKind::ConvNhwgcGfhwc})
        if (maps == getConvMaps(ctx, kind, strides, dilations))
          return kind;
    }
    strides = dilations = {1, 1};
    return fail("is a convolution, but not in a 2-D form TileTune tiles "
                "(the loops and maps of conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc, "
                "conv_2d_nchw_fchw, conv_2d_ngchw_fgchw or "
                "conv_2d_nhwgc_gfhwc)");
  }
  return fail("is neither a matmul-like contraction nor a convolution");
}

bool mlir::tiletune::isMatmulOrConvLike(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getName().getStringRef().contains("pooling"))
    return false;
  return isa<linalg::ContractionOpInterface, linalg::ConvolutionOpInterface>(
             op) ||
         linalg::isaContractionOpInterface(linalgOp) ||
         linalg::isaConvolutionOpInterface(linalgOp);
}

std::optional<OpKind> mlir::tiletune::matchMatmulOpKind(Operation *op,
                                                        std::string *reason) {
  std::string why;
  std::optional<OpKind> kind;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    kind = matchMatmulForm(matmul, &why);
  else if (auto matmul = dyn_cast<linalg::BatchMatmulOp>(op))
    kind = matchMatmulForm(matmul, &why);
  else
    why = "is not a linalg.matmul or linalg.batch_matmul";
  if (!kind && reason)
    *reason = why;
  return kind;
}

/// matchTunableOp; with `allowEmpty`, loops of size 0 are accepted.
static FailureOr<TunableOp>
matchTunableOpImpl(Operation *op, std::string *reason, bool allowEmpty) {
  auto fail = [&](const Twine &why) -> FailureOr<TunableOp> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  std::string formReason;
  std::array<int64_t, 2> genericStrides = {1, 1}, genericDilations = {1, 1};
  bool isGeneric = false;
  std::optional<OpKind> kind =
      llvm::TypeSwitch<Operation *, std::optional<OpKind>>(op)
          .Case<linalg::MatmulOp, linalg::BatchMatmulOp>(
              [&](auto matmul) -> std::optional<OpKind> {
                return matchMatmulForm(matmul, &formReason);
              })
          .Case([](linalg::Conv2DNhwcHwcfOp) { return OpKind::ConvNhwcHwcf; })
          .Case([](linalg::Conv2DNchwFchwOp) { return OpKind::ConvNchwFchw; })
          .Case([](linalg::Conv2DNhwcFhwcOp) { return OpKind::ConvNhwcFhwc; })
          .Case(
              [](linalg::Conv2DNgchwFgchwOp) { return OpKind::ConvNgchwFgchw; })
          .Case(
              [](linalg::Conv2DNhwgcGfhwcOp) { return OpKind::ConvNhwgcGfhwc; })
          .Case([&](linalg::GenericOp) -> std::optional<OpKind> {
            std::optional<OpKind> kind = matchGenericOpKind(
                op, genericStrides, genericDilations, &formReason);
            isGeneric = kind.has_value();
            return kind;
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind && !formReason.empty())
    return fail("'" + op->getName().getStringRef() + "' " + formReason);
  if (!kind)
    return fail("'" + op->getName().getStringRef() +
                "' is not a tunable op (supported: linalg.matmul and "
                "linalg.batch_matmul, with A and/or B transposed by their "
                "indexing_maps, linalg.conv_2d_nhwc_hwcf, "
                "linalg.conv_2d_nhwc_fhwc, linalg.conv_2d_nchw_fchw, and the "
                "grouped linalg.conv_2d_ngchw_fgchw, "
                "linalg.conv_2d_nhwgc_gfhwc)");
  auto linalgOp = cast<linalg::LinalgOp>(op);

  TunableOp result;
  result.kind = *kind;
  result.onTensors = linalgOp.hasPureTensorSemantics();
  if (!result.onTensors && !linalgOp.hasPureBufferSemantics())
    return fail("mixed tensor and buffer operands are not supported");

  Type elementType;
  for (OpOperand &operand : op->getOpOperands()) {
    auto shaped = dyn_cast<ShapedType>(operand.get().getType());
    if (!shaped)
      return fail("operand #" + Twine(operand.getOperandNumber()) +
                  " is not a tensor or memref");
    if (!shaped.hasStaticShape())
      return fail("operand #" + Twine(operand.getOperandNumber()) +
                  " has a dynamic shape");
    if (!elementType)
      elementType = shaped.getElementType();
    else if (elementType != shaped.getElementType())
      return fail("operands have different element types");
  }
  if (!elementType || !(elementType.isF32() || elementType.isF64()))
    return fail("unsupported element type (supported: f32, f64)");
  result.elementType = elementType;

  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  ArrayRef<LoopTemplate> specs = getLoopTemplates(*kind);
  if (ranges.size() != specs.size())
    return fail("unexpected number of loops");
  for (auto [index, spec] : llvm::enumerate(specs)) {
    if (ShapedType::isDynamic(ranges[index]))
      return fail(Twine("loop '") + spec.name + "' has a dynamic size");
    LoopDim dim;
    dim.name = spec.name.str();
    dim.size = ranges[index];
    dim.role = spec.role;
    dim.loopIndex = index;
    result.dims.push_back(std::move(dim));
  }
  if (!allowEmpty)
    if (std::optional<std::string> why = describeEmptyLoops(result))
      return fail(*why);
  getConvStridesAndDilations(op, result.strides, result.dilations);
  if (isGeneric) {
    result.isGeneric = true;
    result.strides = genericStrides;
    result.dilations = genericDilations;
  }
  if (isConv(result.kind) && result.onTensors)
    if (std::optional<ZeroPad> pad =
            matchZeroPad(op->getOperand(0).getDefiningOp()))
      result.zeroPaddedRows =
          padsConvInputRows(result.kind, pad->low, pad->high);
  return result;
}

std::optional<std::string>
mlir::tiletune::describeEmptyLoops(const TunableOp &op) {
  for (const LoopDim &dim : op.dims)
    if (dim.size == 0)
      return "loop '" + dim.name +
             "' has size 0: the op computes nothing, there is nothing to "
             "tile or tune";
  return std::nullopt;
}

std::optional<ZeroPad> mlir::tiletune::matchZeroPad(Operation *op) {
  auto pad = dyn_cast_or_null<tensor::PadOp>(op);
  if (!pad || !pad.getSourceType().hasStaticShape() ||
      !pad.getResultType().hasStaticShape() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return std::nullopt;
  Value value = pad.getConstantPaddingValue();
  FloatAttr zero;
  if (!value || !matchPattern(value, m_Constant(&zero)) ||
      !zero.getValue().isPosZero())
    return std::nullopt;
  ZeroPad result;
  result.low.assign(pad.getStaticLow().begin(), pad.getStaticLow().end());
  result.high.assign(pad.getStaticHigh().begin(), pad.getStaticHigh().end());
  return result;
}

FailureOr<TunableOp> mlir::tiletune::matchTunableOp(Operation *op,
                                                    std::string *reason) {
  return matchTunableOpImpl(op, reason, /*allowEmpty=*/false);
}

std::optional<std::string> mlir::tiletune::getEmptyOpReason(Operation *op) {
  FailureOr<TunableOp> tunable =
      matchTunableOpImpl(op, /*reason=*/nullptr, /*allowEmpty=*/true);
  if (failed(tunable))
    return std::nullopt;
  return describeEmptyLoops(*tunable);
}

int64_t mlir::tiletune::getMaxPaddedSize(int64_t size) {
  size = std::max<int64_t>(0, size);
  int64_t increase = std::max(size, kMaxPadIncrease);
  if (size > std::numeric_limits<int64_t>::max() - increase)
    return std::numeric_limits<int64_t>::max();
  return size + increase;
}

/// Whether the config may pad loop `dim` of an op of `kind` on `target`.
static bool isPaddable(StringRef target, OpKind kind, const LoopDim &dim) {
  const OptionSpec *pad = lookupOptionSpec(target, "pad");
  if (!pad || !pad->appliesTo(kind) || dim.role == DimRole::Batch)
    return false;
  // A conv pads only its output rows (oh): the register tile's rows.
  return !isConv(kind) || dim.name == "oh";
}

int64_t mlir::tiletune::getPaddedSize(TileConfigAttr config,
                                      const LoopDim &dim) {
  if (auto pad = llvm::dyn_cast_or_null<DictionaryAttr>(
          config.getOption("pad")))
    if (auto size = llvm::dyn_cast_or_null<IntegerAttr>(pad.get(dim.name)))
      return size.getInt();
  return dim.size;
}

FactorMap mlir::tiletune::getFactors(TileConfigAttr config,
                                     const TunableOp &op) {
  FactorMap factors;
  for (const LoopDim &dim : op.dims) {
    SmallVector<int64_t> list;
    int64_t outer = getPaddedSize(config, dim);
    for (StringRef level : getDimLevels(config.getTarget(), op.kind, dim.role)) {
      int64_t tile = config.getTileSize(level, dim.name).value_or(outer);
      list.push_back(tile > 0 ? outer / tile : 0);
      outer = tile;
    }
    list.push_back(outer);
    factors[dim.name] = std::move(list);
  }
  return factors;
}

TileConfigAttr mlir::tiletune::buildConfig(MLIRContext *ctx, StringRef target,
                                           const TunableOp &op,
                                           const FactorMap &factors,
                                           ArrayRef<NamedAttribute> options) {
  // Attributes of a dialect that is registered but not loaded (e.g. a pass
  // running in tiletune-opt on IR without configs) cannot be created.
  ctx->getOrLoadDialect<TileTuneDialect>();
  Builder b(ctx);
  llvm::StringMap<SmallVector<NamedAttribute>> levels;
  SmallVector<NamedAttribute> pads;
  for (const LoopDim &dim : op.dims) {
    auto it = factors.find(dim.name);
    if (it == factors.end())
      return {};
    ArrayRef<StringRef> dimLevels = getDimLevels(target, op.kind, dim.role);
    const SmallVector<int64_t> &list = it->second;
    if (list.size() != dimLevels.size() + 1)
      return {};
    // Products saturate: factors far beyond the size are refused below.
    uint64_t product = 1;
    for (int64_t f : list) {
      if (f < 1)
        return {};
      product = llvm::SaturatingMultiply(product, uint64_t(f));
    }
    if (product != uint64_t(dim.size)) {
      if (product < uint64_t(dim.size) || !isPaddable(target, op.kind, dim) ||
          product > uint64_t(getMaxPaddedSize(dim.size)))
        return {};
      pads.push_back(b.getNamedAttr(dim.name, b.getI64IntegerAttr(product)));
    }
    // The tile at level i is the product of the factors inside it.
    for (auto [index, level] : llvm::enumerate(dimLevels)) {
      int64_t tile = 1;
      for (int64_t f : ArrayRef<int64_t>(list).drop_front(index + 1))
        tile *= f; // at most the product, checked above
      levels[level].push_back(
          b.getNamedAttr(dim.name, b.getI64IntegerAttr(tile)));
    }
  }
  SmallVector<NamedAttribute> entries;
  for (StringRef level : getTargetLevels(target)) {
    auto it = levels.find(level);
    if (it != levels.end())
      entries.push_back(
          b.getNamedAttr(level, b.getDictionaryAttr(it->second)));
  }
  llvm::append_range(entries, options);
  if (!pads.empty()) {
    llvm::erase_if(entries, [](const NamedAttribute &entry) {
      return entry.getName() == "pad";
    });
    entries.push_back(b.getNamedAttr("pad", b.getDictionaryAttr(pads)));
  }
  return TileConfigAttr::getChecked(
      [&]() { return emitError(UnknownLoc::get(ctx)); }, ctx, target,
      b.getDictionaryAttr(entries));
}

LogicalResult
mlir::tiletune::verifyConfig(TileConfigAttr config, const TunableOp &op,
                             function_ref<InFlightDiagnostic()> emitError) {
  StringRef target = config.getTarget();
  StringRef kindName = stringifyOpKind(op.kind);
  // Every dimension named at a level must exist and belong to that level.
  for (StringRef level : getTargetLevels(target)) {
    for (NamedAttribute tile : config.getLevel(level)) {
      StringRef dimName = tile.getName().getValue();
      const LoopDim *dim = op.lookup(dimName);
      if (!dim) {
        InFlightDiagnostic diag = emitError();
        diag << "unknown dimension '" << dimName << "' at level '" << level
             << "' for " << kindName << " (dimensions: ";
        llvm::interleaveComma(op.dims, diag,
                              [&](const LoopDim &d) { diag << d.name; });
        return diag << ")";
      }
      if (!llvm::is_contained(getDimLevels(target, op.kind, dim->role), level))
        return emitError() << "dimension '" << dimName
                           << "' cannot be tiled at level '" << level
                           << "' on target '" << target << "'";
    }
  }
  // Padding: CPU matmul loops (not the batch), never below the size.
  if (auto pad = config.getOption("pad")) {
    for (NamedAttribute entry : llvm::cast<DictionaryAttr>(pad)) {
      StringRef dimName = entry.getName().getValue();
      const LoopDim *dim = op.lookup(dimName);
      if (!dim || !isPaddable(target, op.kind, *dim))
        return emitError() << "'pad' cannot pad dimension '" << dimName
                           << "' of " << kindName
                           << " (only the m, n and k loops of cpu matmul "
                              "and batch_matmul configs, and the oh loop of "
                              "cpu conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc and "
                              "conv_2d_nchw_fchw ones)";
      int64_t padded = llvm::cast<IntegerAttr>(entry.getValue()).getInt();
      if (padded < dim->size)
        return emitError() << "'pad' size " << padded << " of dimension '"
                           << dimName << "' is smaller than its size ("
                           << dim->size << ")";
      // A conv's padded rows stay whole at the parallel level: the thread
      // tiles of a padded conv are not versioned (only its cache and
      // register tiles are peeled).
      if (isConv(op.kind) && config.getTileSize("parallel", dimName) &&
          *config.getTileSize("parallel", dimName) != padded)
        return emitError() << "'pad' of the conv's rows needs them whole at "
                              "the 'parallel' level ("
                           << dimName << " = " << padded
                           << "): the threads may split other loops";
      // Sizes far beyond the loop only add zeros (and could not be
      // allocated): at most double the loop, or add kMaxPadIncrease.
      if (padded > getMaxPaddedSize(dim->size))
        return emitError() << "'pad' size " << padded << " of dimension '"
                           << dimName << "' is too large for its size ("
                           << dim->size << "): padding may at most double a "
                           << "loop or add " << kMaxPadIncrease
                           << " to it (at most " << getMaxPaddedSize(dim->size)
                           << ")";
    }
  }
  // Layout conversion: only NCHW convolutions (plain or grouped) can be
  // computed as NHWC.
  if (auto layout = llvm::dyn_cast_or_null<StringAttr>(
          config.getOption("layout")))
    if (layout.getValue() != "native" && op.kind != OpKind::ConvNchwFchw &&
        op.kind != OpKind::ConvNgchwFgchw)
      return emitError() << "'layout = " << layout.getValue()
                         << "' only applies to conv_2d_nchw_fchw and "
                            "conv_2d_ngchw_fgchw, not "
                         << kindName;
  // Every dimension at every one of its levels, each tile dividing the
  // enclosing one.
  for (const LoopDim &dim : op.dims) {
    int64_t outer = getPaddedSize(config, dim);
    StringRef outerName = outer == dim.size ? StringRef("the dimension size")
                                            : StringRef("the padded size");
    for (StringRef level : getDimLevels(target, op.kind, dim.role)) {
      std::optional<int64_t> tile = config.getTileSize(level, dim.name);
      if (!tile)
        return emitError() << "missing tile size of dimension '" << dim.name
                           << "' at level '" << level << "'";
      if (*tile > outer || outer % *tile != 0)
        return emitError() << "tile size " << *tile << " of dimension '"
                           << dim.name << "' at level '" << level
                           << "' does not divide " << outerName << " ("
                           << outer << ")";
      outer = *tile;
      outerName = level;
    }
  }
  if (target != kTargetCPU)
    return success();

  // CPU options that depend on the op.
  SmallVector<StringRef> expectedOrder;
  for (const LoopDim &dim : op.dims)
    if (dim.role != DimRole::Batch)
      expectedOrder.push_back(dim.name);
  SmallVector<StringRef> order = config.getOrder();
  if (config.getOption("order")) {
    SmallVector<StringRef> sortedOrder(order), sortedExpected(expectedOrder);
    llvm::sort(sortedOrder);
    llvm::sort(sortedExpected);
    if (sortedOrder != sortedExpected) {
      InFlightDiagnostic diag = emitError();
      diag << "'order' must be a permutation of [";
      llvm::interleaveComma(expectedOrder, diag);
      return diag << "]";
    }
  }
  // AutoMCL computes (paper 001, Table 1): the ones the passes generate are
  // `pack` values (and `im2col` on a conv); a config naming both must agree.
  StringRef pack;
  if (auto given = llvm::dyn_cast_or_null<StringAttr>(config.getOption("pack")))
    pack = given.getValue();
  std::optional<bool> im2col;
  if (auto given = llvm::dyn_cast_or_null<BoolAttr>(config.getOption("im2col")))
    im2col = given.getValue();
  if (auto compute =
          llvm::dyn_cast_or_null<StringAttr>(config.getOption("compute"))) {
    StringRef name = compute.getValue();
    std::optional<StringRef> computePack;
    if (isConv(op.kind)) {
      std::optional<ConvCompute> conv = getConvCompute(name);
      if (!conv)
        return emitError() << "'compute = " << name << "' is a matmul compute; "
                           << "a " << kindName
                           << " takes 'direct' or im2col_X (im2col_tmm, "
                              "im2col_lpmm, im2col_rpmmv, im2col_dpmm, "
                              "im2col_dnmm332)";
      if (im2col && *im2col != conv->im2col)
        return emitError() << "'compute = " << name << "' means 'im2col = "
                           << (conv->im2col ? "true" : "false")
                           << "', but the config says 'im2col = "
                           << (*im2col ? "true" : "false") << "'";
      im2col = conv->im2col;
      if (conv->im2col)
        computePack = conv->pack;
    } else {
      computePack = getPackOfCompute(name);
      if (!computePack)
        return emitError() << "'compute = " << name << "' is a conv compute; a "
                           << kindName
                           << " takes tmm, lpmm, rpmmv, dpmm, ttmm or dnmm332";
    }
    if (computePack) {
      if (!pack.empty() && pack != *computePack)
        return emitError() << "'compute = " << name
                           << "' means 'pack = " << *computePack
                           << "', but the config says 'pack = " << pack << "'";
      pack = *computePack;
    }
  }
  // An im2col conv is computed as a matmul of its form: `pack` must apply
  // to that matmul.
  OpKind packKind = op.kind;
  if (im2col.value_or(false)) {
    bool nhwcLayout = config.getStringOption("layout") == "nhwc";
    bool oneByOne = isConv(op.kind) && op.lookup("kh") && op.lookup("kw") &&
                    op.lookup("kh")->size == 1 && op.lookup("kw")->size == 1;
    if (op.kind == OpKind::ConvNchwFchw && !nhwcLayout && !oneByOne)
      return emitError() << "'im2col' on a conv_2d_nchw_fchw with a filter "
                            "larger than 1x1 needs 'layout = nhwc' (its "
                            "im2col GEMM reads NHWC windows)";
    std::optional<OpKind> gemm =
        getIm2colMatmulKind(op.kind, nhwcLayout, oneByOne);
    if (!gemm)
      return emitError() << "'im2col' applies to conv_2d_nhwc_hwcf, "
                            "conv_2d_nhwc_fhwc and conv_2d_nchw_fchw, not "
                         << kindName;
    if (pack == "bt")
      return emitError() << "'pack = bt' (transpose B whole) does not apply "
                            "with 'im2col': the GEMM reads the filter as the "
                            "matrix it is";
    // The GEMM's pixel loop (m, or n per image) runs over the rows of one
    // image, oh outside ow: padding oh pads its end (getIm2colGemmConfig).
    if (config.getOption("pad") && op.lookup("n")->size != 1)
      return emitError() << "'pad' (of a conv's output rows) with 'im2col' "
                            "needs a batch of 1: the GEMM's rows are the "
                            "pixels of all images, and padding each image's "
                            "rows would interleave padding with them";
    packKind = *gemm;
    kindName = stringifyOpKind(packKind);
  }
  // Where `bt` and `dn` apply: getPackValues, the rule the spaces search by.
  if (pack == "bt" && !llvm::is_contained(getPackValues(packKind), pack))
    return emitError()
           << "'pack = bt' (compute ttmm: transpose B whole, then multiply) "
              "applies to a matmul whose B operand is stored transposed "
              "([b?][n][k]); the B of this "
           << kindName << " is not: use 'pack = none' (tmm) or 'b' (rpmmv)";
  if (pack == "dn" && !llvm::is_contained(getPackValues(packKind), pack))
    return emitError()
           << "'pack = dn' (compute dnmm332: vectors along k) applies to a "
              "matmul whose A is stored [b?][m][k] and B [b?][n][k] (both "
              "contiguous along k: matmul_transpose_b, "
              "batch_matmul_transpose_b, an FHWC conv with 'im2col', a 1x1 "
              "NCHW one with 'im2col' and 'layout = nhwc'); this "
           << kindName << " is not: use 'pack = none' (tmm) or 'b' (rpmmv)";
  kindName = stringifyOpKind(op.kind);
  int64_t unroll = config.getIntOption("unroll");
  StringRef innerReduction = isConv(op.kind) ? "c" : "k";
  int64_t reductionTile = config.getTileSize("cache", innerReduction).value_or(1);
  if (reductionTile % unroll != 0)
    return emitError() << "'unroll' (" << unroll
                       << ") must divide the cache tile of '" << innerReduction
                       << "' (" << reductionTile << ")";
  // Saturating: the tiles of huge loops must not wrap below the limit.
  uint64_t registerElements = 1;
  for (const LoopDim &dim : op.dims)
    if (dim.role == DimRole::Parallel)
      registerElements = llvm::SaturatingMultiply(
          registerElements,
          uint64_t(config.getTileSize("register", dim.name).value_or(1)));
  if (registerElements > uint64_t(kMaxRegisterTileElements))
    return emitError() << "register tile has " << registerElements
                       << " elements, more than the limit of "
                       << kMaxRegisterTileElements;
  return success();
}

StringRef mlir::tiletune::getCPUPack(TileConfigAttr config) {
  StringRef compute = config.getStringOption("compute");
  if (std::optional<StringRef> pack = getPackOfCompute(compute))
    return *pack;
  if (std::optional<ConvCompute> conv = getConvCompute(compute);
      conv && conv->im2col)
    return conv->pack;
  return config.getStringOption("pack");
}

bool mlir::tiletune::usesIm2col(TileConfigAttr config) {
  if (std::optional<ConvCompute> conv =
          getConvCompute(config.getStringOption("compute")))
    return conv->im2col;
  return config.getBoolOption("im2col");
}

TileConfigAttr mlir::tiletune::getConfig(Operation *op) {
  return op->getAttrOfType<TileConfigAttr>(kConfigAttrName);
}

void mlir::tiletune::setConfig(Operation *op, TileConfigAttr config) {
  op->setAttr(kConfigAttrName, config);
}

void mlir::tiletune::eraseConfig(Operation *op) {
  op->removeAttr(kConfigAttrName);
}

void mlir::tiletune::forEachOpToConfigure(
    Operation *root, bool overwrite, llvm::StringRef passName,
    llvm::function_ref<void(Operation *, const TunableOp &)> fn) {
  root->walk([&](Operation *op) {
    if (getConfig(op) && !overwrite)
      return;
    // Not tunable because it computes nothing: it lowers untiled to loops
    // that run no iteration; say why it gets no config.
    if (std::optional<std::string> why = getEmptyOpReason(op)) {
      op->emitRemark() << passName << ": left without a config: " << *why;
      return;
    }
    FailureOr<TunableOp> tunable = matchTunableOp(op);
    if (succeeded(tunable))
      fn(op, *tunable);
  });
}
