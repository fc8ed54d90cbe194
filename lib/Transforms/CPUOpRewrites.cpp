//===- CPUOpRewrites.cpp - Op-level rewrites asked for by a CPU config ----===//
//
// Rewrites that replace a whole op before it is tiled, driven by options of
// its `#tiletune.config<cpu, ...>`: `layout = nhwc` computes an NCHW conv as
// an NHWC conv between transposes, `pack = bt` computes a matmul on its B
// transposed whole first (TTMM), and `pad` runs an op on buffers on
// zero-padded operands. Each returns the op to tile (carrying the config) and
// fails without changes when the config cannot be applied.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Transforms/CPUTiling.h"

#include "TilingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <map>

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Generic ops
//===----------------------------------------------------------------------===//

FailureOr<Operation *>
tiletune::specializeGenericToConfig(RewriterBase &rewriter, Operation *op,
                                    std::string *reason) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  TileConfigAttr config = getConfig(op);
  if (!generic || !config || config.getTarget() != kTargetCPU)
    return op;
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Type> resultTypes(op->getResultTypes());
  ValueRange inputs = generic.getInputs();
  ValueRange outputs = generic.getOutputs();
  auto strides = rewriter.getI64TensorAttr(tunable->strides);
  auto dilations = rewriter.getI64TensorAttr(tunable->dilations);
  Operation *named = nullptr;
  if (std::optional<MatmulForm> form = getMatmulForm(tunable->kind)) {
    if (form->batched)
      named = linalg::BatchMatmulOp::create(rewriter, loc, resultTypes, inputs,
                                            outputs);
    else
      named =
          linalg::MatmulOp::create(rewriter, loc, resultTypes, inputs, outputs);
    // The generic's maps are those of the form (matchTunableOp checked).
    named->setAttr("indexing_maps", generic.getIndexingMaps());
  } else if (tunable->kind == OpKind::ConvNhwcHwcf) {
    named = linalg::Conv2DNhwcHwcfOp::create(rewriter, loc, resultTypes, inputs,
                                             outputs, strides, dilations);
  } else if (tunable->kind == OpKind::ConvNhwcFhwc) {
    named = linalg::Conv2DNhwcFhwcOp::create(rewriter, loc, resultTypes, inputs,
                                             outputs, strides, dilations);
  } else if (tunable->kind == OpKind::ConvNchwFchw) {
    named = linalg::Conv2DNchwFchwOp::create(rewriter, loc, resultTypes, inputs,
                                             outputs, strides, dilations);
  } else {
    return failWithReason(reason, "no named op for this linalg.generic");
  }
  setConfig(named, config);
  rewriter.replaceOp(op, named->getResults());
  return named;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// Transposes `value` (result dim i = source dim perm[i]) into a fresh
/// tensor, or on buffers a fresh 64-byte aligned buffer (freed by the
/// pipeline's buffer deallocation), at the insertion point. Returns the
/// transpose and the transposed value (the transpose's result on tensors,
/// the buffer otherwise).
static std::pair<linalg::TransposeOp, Value>
transposeIntoFresh(RewriterBase &rewriter, Location loc, Value value,
                   ArrayRef<int64_t> perm, bool onTensors) {
  auto type = cast<ShapedType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getShape()[p]);
  Value target =
      onTensors ? Value(tensor::EmptyOp::create(rewriter, loc, shape,
                                                type.getElementType()))
                : Value(memref::AllocOp::create(
                      rewriter, loc, MemRefType::get(shape, type.getElementType()),
                      rewriter.getI64IntegerAttr(64)));
  auto transpose = linalg::TransposeOp::create(rewriter, loc, value, target, perm);
  return {transpose, onTensors ? transpose->getResult(0) : target};
}

/// Computes a conv_2d_nhwc_fhwc (TOSA's form) as a conv_2d_nhwc_hwcf on the
/// filter transposed once into HWCF: the filter is the small operand (its
/// transpose moves F*KH*KW*C elements, against N*OH*OW times as many
/// multiply-adds), and the HWCF filter puts F on the vector lanes of the
/// register tile, which the FHWC filter cannot (F is its outermost dim).
/// The loops keep their names and order (n, oh, ow, f, kh, kw, c), so the
/// config carries over unchanged.
static FailureOr<Operation *> convertFilterToHwcf(RewriterBase &rewriter,
                                                  linalg::Conv2DNhwcFhwcOp conv,
                                                  TileConfigAttr config,
                                                  std::string *reason) {
  if (!conv.hasPureTensorSemantics() && !conv.hasPureBufferSemantics())
    return failWithReason(reason, "linalg.conv_2d_nhwc_fhwc needs tensors or "
                                  "buffers, not both");
  Location loc = conv.getLoc();
  bool onTensors = conv.hasPureTensorSemantics();
  rewriter.setInsertionPoint(conv);
  auto [transpose, hwcfFilter] = transposeIntoFresh(
      rewriter, loc, conv.getInputs()[1], kFhwcToHwcf, onTensors);
  linalg::Conv2DNhwcHwcfOp nhwc =
      replaceWithHwcfConv(rewriter, conv, hwcfFilter);
  setConfig(nhwc, config);
  if (!onTensors)
    (void)tileAndVectorizeTranspose(rewriter, transpose);
  return nhwc.getOperation();
}

linalg::Conv2DNhwcHwcfOp
tiletune::replaceWithHwcfConv(RewriterBase &rewriter,
                              linalg::Conv2DNhwcFhwcOp conv, Value hwcfFilter) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(conv);
  auto nhwc = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, conv.getLoc(), conv->getResultTypes(),
      ValueRange{conv.getInputs()[0], hwcfFilter}, conv.getOutputs(),
      conv.getStrides(), conv.getDilations());
  if (conv->getNumResults() > 0)
    rewriter.replaceOp(conv, nhwc->getResults());
  else
    rewriter.eraseOp(conv);
  return nhwc;
}

/// Whether `op` is a 2-D conv with a 1x1 filter (static).
static bool isOneByOneConv(Operation *op) {
  FailureOr<TunableOp> tunable = matchTunableOp(op);
  if (failed(tunable) || !isConv(tunable->kind))
    return false;
  const LoopDim *kh = tunable->lookup("kh"), *kw = tunable->lookup("kw");
  return kh && kw && kh->size == 1 && kw->size == 1;
}

/// Splits a layout transpose on tensors over the conv's threads: an
/// scf.forall over its outermost dim that the thread count divides (so every
/// piece stays static and is vectorized in blocks after bufferization, see
/// vectorizeSmallCopies). Where the count divides no dim (an NCHW image of
/// 3 channels and 229 rows), the outermost dim of at least `threads`
/// elements is split in two static parts: the largest multiple of the
/// count, split over the threads, and the rest (fewer elements than
/// threads), a transpose of its own.
static void splitTransposeOverThreads(RewriterBase &rewriter,
                                      linalg::TransposeOp transpose,
                                      int64_t threads) {
  if (threads <= 1)
    return;
  SmallVector<int64_t> ranges =
      cast<linalg::LinalgOp>(transpose.getOperation()).getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return;
  auto dividing = llvm::find_if(ranges, [&](int64_t range) {
    return range >= threads && range % threads == 0;
  });
  auto splittable =
      llvm::find_if(ranges, [&](int64_t range) { return range >= threads; });
  if (dividing == ranges.end() && splittable == ranges.end())
    return;
  int64_t dim = std::distance(ranges.begin(),
                              dividing != ranges.end() ? dividing : splittable);
  int64_t whole = ranges[dim] / threads * threads;
  rewriter.setInsertionPoint(transpose);
  if (whole < ranges[dim]) {
    // Two transposes of static slices along loop dim `dim` (output dim
    // `dim`, input dim perm[dim]): [0, whole) and [whole, range).
    Location loc = transpose.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    ArrayRef<int64_t> perm = transpose.getPermutation();
    Value input = transpose.getInput(), result = transpose.getInit();
    // Offsets, sizes and strides of the slice [offset, offset + length)
    // along `sliceDim` of a tensor of type `type`.
    auto slab = [&](Type type, int64_t sliceDim, int64_t offset,
                    int64_t length) {
      auto shaped = cast<RankedTensorType>(type);
      SmallVector<int64_t> offsets(shaped.getRank(), 0),
          sizes(shaped.getShape()), strides(shaped.getRank(), 1);
      offsets[sliceDim] = offset;
      sizes[sliceDim] = length;
      return std::make_tuple(getAsIndexOpFoldResult(ctx, offsets),
                             getAsIndexOpFoldResult(ctx, sizes),
                             getAsIndexOpFoldResult(ctx, strides));
    };
    linalg::TransposeOp main;
    for (auto [offset, length] :
         {std::pair<int64_t, int64_t>{0, whole},
          std::pair<int64_t, int64_t>{whole, ranges[dim] - whole}}) {
      auto [inOffsets, inSizes, inStrides] =
          slab(input.getType(), perm[dim], offset, length);
      auto [offsets, sizes, strides] =
          slab(result.getType(), dim, offset, length);
      auto piece = linalg::TransposeOp::create(
          rewriter, loc,
          tensor::ExtractSliceOp::create(rewriter, loc, input, inOffsets,
                                         inSizes, inStrides),
          tensor::ExtractSliceOp::create(rewriter, loc, result, offsets, sizes,
                                         strides),
          perm);
      // The pieces keep the marks of the whole (kLayoutCopyInAttrName, ...).
      piece->setDiscardableAttrs(transpose->getDiscardableAttrDictionary());
      result = tensor::InsertSliceOp::create(rewriter, loc, piece->getResult(0),
                                             result, offsets, sizes, strides);
      if (!main)
        main = piece;
    }
    rewriter.replaceOp(transpose, result);
    transpose = main;
    rewriter.setInsertionPoint(transpose);
  }
  SmallVector<int64_t> tiles(ranges.size(), 0);
  tiles[dim] = whole / threads;
  (void)tileOneLevel(rewriter, transpose,
                     getAsIndexOpFoldResult(rewriter.getContext(), tiles),
                     scf::SCFTilingOptions::LoopType::ForallOp);
}

/// Moves the layout transposes of a conv computed as `computed`: on tensors
/// each is split over as many threads as `computed`'s parallel level uses
/// (and moved in vector blocks after bufferization, see
/// vectorizeSmallCopies); on buffers each is moved as vector blocks now.
static void moveLayoutTransposes(RewriterBase &rewriter,
                                 ArrayRef<linalg::TransposeOp> transposes,
                                 Operation *computed, bool onTensors) {
  if (!onTensors) {
    for (linalg::TransposeOp t : transposes)
      (void)tileAndVectorizeTranspose(rewriter, t);
    return;
  }
  FailureOr<CPUSchedule> schedule =
      decodeCPUSchedule(computed, getConfig(computed));
  int64_t threads = succeeded(schedule) ? schedule->getParallelTrips() : 1;
  for (linalg::TransposeOp t : transposes)
    splitTransposeOverThreads(rewriter, t, threads);
}

/// Applies `pack = bt` (AutoMCL's TTMM, "transpose B, then multiply") of a
/// matmul or batch_matmul whose B is stored transposed ([b?][n][k]): B is
/// transposed whole into a fresh [b?][k][n] tensor or buffer once, before
/// the loop nest (split over the op's threads on tensors), and the op is
/// replaced by the same matmul on it (A's form kept) with the same config,
/// unpacked (`pack = none`, no `compute`). The loops keep their names.
static FailureOr<Operation *> transposeRhsWhole(RewriterBase &rewriter,
                                                Operation *matmul,
                                                TileConfigAttr config,
                                                std::string *reason) {
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(matmul, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  std::optional<MatmulForm> form = getMatmulForm(tunable->kind);
  auto op = dyn_cast<linalg::LinalgOp>(matmul);
  if (!form || !form->transposeB || tunable->isGeneric ||
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(matmul))
    return failWithReason(
        reason, "'pack = bt' needs a linalg.matmul or linalg.batch_matmul "
                "whose B operand is stored transposed ([b?][n][k])");
  if (!op.hasPureTensorSemantics() && !op.hasPureBufferSemantics())
    return failWithReason(reason, "'pack = bt' needs a matmul on tensors or "
                                  "on buffers, not both");
  MLIRContext *ctx = op->getContext();
  Location loc = op.getLoc();
  bool onTensors = op.hasPureTensorSemantics();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> perm =
      form->batched ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{1, 0};
  auto [transpose, kn] = transposeIntoFresh(rewriter, loc, op.getDpsInputs()[1],
                                            perm, onTensors);
  SmallVector<Type> resultTypes(op->getResultTypes());
  ValueRange outputs = op.getDpsInits();
  SmallVector<Value> inputs = {op.getDpsInputs()[0], kn};
  Operation *plain =
      form->batched
          ? linalg::BatchMatmulOp::create(rewriter, loc, resultTypes, inputs,
                                          outputs)
                .getOperation()
          : linalg::MatmulOp::create(rewriter, loc, resultTypes, inputs,
                                     outputs)
                .getOperation();
  MatmulForm untransposed = *form;
  untransposed.transposeB = false;
  SmallVector<Attribute> maps;
  for (AffineMap map : getMatmulFormMaps(ctx, untransposed))
    maps.push_back(AffineMapAttr::get(map));
  plain->setAttr("indexing_maps", ArrayAttr::get(ctx, maps));
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : config.getEntries())
    if (entry.getName() != "compute" && entry.getName() != "pack")
      entries.push_back(entry);
  entries.push_back(
      NamedAttribute(StringAttr::get(ctx, "pack"), StringAttr::get(ctx, "none")));
  setConfig(plain, TileConfigAttr::get(ctx, config.getTarget(),
                                       DictionaryAttr::get(ctx, entries)));
  if (onTensors) {
    rewriter.replaceOp(op, plain->getResults());
    FailureOr<CPUSchedule> schedule = decodeCPUSchedule(plain, getConfig(plain));
    splitTransposeOverThreads(
        rewriter, transpose,
        succeeded(schedule) ? schedule->getParallelTrips() : 1);
  } else {
    rewriter.eraseOp(op);
    (void)tileAndVectorizeTranspose(rewriter, transpose);
  }
  return plain;
}

//===----------------------------------------------------------------------===//
// Grouped convolutions
//===----------------------------------------------------------------------===//

/// `config` without the group loop `g` at any level.
static TileConfigAttr dropGroupLoop(TileConfigAttr config) {
  MLIRContext *ctx = config.getContext();
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : config.getEntries()) {
    auto level = dyn_cast<DictionaryAttr>(entry.getValue());
    if (!level || !level.get("g")) {
      entries.push_back(entry);
      continue;
    }
    SmallVector<NamedAttribute> tiles;
    for (NamedAttribute tile : level)
      if (tile.getName() != "g")
        tiles.push_back(tile);
    entries.push_back(
        NamedAttribute(entry.getName(), DictionaryAttr::get(ctx, tiles)));
  }
  return TileConfigAttr::get(ctx, config.getTarget(),
                             DictionaryAttr::get(ctx, entries));
}

/// Computes a grouped conv of one group (its g loop has size 1) as the plain
/// conv of that group on rank-reduced slices: conv_2d_nhwgc_gfhwc as
/// conv_2d_nhwc_fhwc (input [N,H,W,C] strided by G*C, filter [F,KH,KW,C],
/// output [N,OH,OW,F]), conv_2d_ngchw_fgchw as conv_2d_nchw_fchw. The plain
/// conv gets `config` (without g). Returns it.
static Operation *buildGroupConv(RewriterBase &rewriter, linalg::LinalgOp op,
                                 OpKind kind, TileConfigAttr config) {
  Location loc = op.getLoc();
  bool nhwgc = kind == OpKind::ConvNhwgcGfhwc;
  // The group dim of input, filter and output.
  int64_t inG = nhwgc ? 3 : 1, filterG = nhwgc ? 0 : 1, outG = nhwgc ? 3 : 1;
  rewriter.setInsertionPoint(op);
  Value input = dropUnitDim(rewriter, loc, op.getDpsInputs()[0], inG);
  Value filter = dropUnitDim(rewriter, loc, op.getDpsInputs()[1], filterG);
  Value init = op.getDpsInits()[0];
  Value output = dropUnitDim(rewriter, loc, init, outG);
  std::array<int64_t, 2> strides, dilations;
  getConvStridesAndDilations(op, strides, dilations);
  auto stridesAttr = rewriter.getI64TensorAttr(strides);
  auto dilationsAttr = rewriter.getI64TensorAttr(dilations);
  bool onTensors = op.hasPureTensorSemantics();
  SmallVector<Type> resultTypes;
  if (onTensors)
    resultTypes.push_back(output.getType());
  Operation *conv =
      nhwgc ? linalg::Conv2DNhwcFhwcOp::create(
                  rewriter, loc, resultTypes, ValueRange{input, filter},
                  ValueRange{output}, stridesAttr, dilationsAttr)
                  .getOperation()
            : linalg::Conv2DNchwFchwOp::create(
                  rewriter, loc, resultTypes, ValueRange{input, filter},
                  ValueRange{output}, stridesAttr, dilationsAttr)
                  .getOperation();
  setConfig(conv, config);
  if (!onTensors) {
    rewriter.eraseOp(op);
    return conv;
  }
  // The group's result back into the 5-D output.
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<OpFoldResult> offsets(initType.getRank(),
                                    rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes,
      ones(initType.getRank(), rewriter.getIndexAttr(1));
  for (int64_t size : initType.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  Value inserted = tensor::InsertSliceOp::create(
      rewriter, loc, conv->getResult(0), init, offsets, sizes, ones);
  rewriter.replaceOp(op, inserted);
  return conv;
}

/// Tiles loop `dim` of `op` to one iteration at a time: an scf.forall over
/// dim / `perThread` threads, each running its `perThread` iterations in an
/// scf.for; both are left out where they would have one trip. Returns the
/// op of one iteration; `what` names the iterations in the error.
static FailureOr<Operation *>
tileToOneAtATime(RewriterBase &rewriter, Operation *op, const LoopDim &dim,
                 int64_t perThread, StringRef what, std::string *reason) {
  MLIRContext *ctx = op->getContext();
  unsigned numLoops = cast<linalg::LinalgOp>(op).getNumLoops();
  Operation *current = op;
  auto tileOnce = [&](int64_t tile,
                      scf::SCFTilingOptions::LoopType type) -> LogicalResult {
    SmallVector<int64_t> tiles(numLoops, 0);
    tiles[dim.loopIndex] = tile;
    FailureOr<scf::SCFTilingResult> tiled = tileOneLevel(
        rewriter, current, getAsIndexOpFoldResult(ctx, tiles), type);
    if (failed(tiled))
      return failure();
    current = tiled->tiledOps.back();
    return success();
  };
  if (perThread < dim.size &&
      failed(tileOnce(perThread, scf::SCFTilingOptions::LoopType::ForallOp)))
    return failWithReason(reason,
                          "tiling the " + what.str() + " over threads failed");
  if (perThread > 1 &&
      failed(tileOnce(1, scf::SCFTilingOptions::LoopType::ForOp)))
    return failWithReason(reason,
                          "tiling the loop over the " + what.str() + " failed");
  return current;
}

/// Computes a grouped conv as a loop over its groups whose body is the plain
/// conv of one group, carrying the config without g (its loops keep their
/// names and `order` names no batch loop, so the plain conv's schedule is
/// the config's). The group loop is an scf.forall over g / (g's parallel
/// tile) threads, each running its groups in an scf.for; both are left out
/// where they would have one trip. Then converts the plain conv's layout
/// (FHWC filters to HWCF, `layout = nhwc`) like a plain conv's.
static FailureOr<Operation *> convertGroupedConv(RewriterBase &rewriter,
                                                 Operation *op, OpKind kind,
                                                 TileConfigAttr config,
                                                 std::string *reason) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!linalgOp.hasPureTensorSemantics() && !linalgOp.hasPureBufferSemantics())
    return failWithReason(reason, "a grouped convolution needs tensors or "
                                  "buffers, not both");
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  const LoopDim *g = tunable->lookup("g");
  std::optional<int64_t> groupTile = config.getTileSize("parallel", "g");
  int64_t perThread = groupTile.value_or(g->size);
  if (perThread < 1 || g->size % perThread != 0)
    return failWithReason(
        reason, "the parallel tile of 'g' (" + Twine(perThread) +
                    ") does not divide the groups (" + Twine(g->size) + ")");
  // Threads over groups, then one group at a time.
  FailureOr<Operation *> current =
      tileToOneAtATime(rewriter, op, *g, perThread, "groups", reason);
  if (failed(current))
    return failure();
  Operation *conv = buildGroupConv(rewriter, cast<linalg::LinalgOp>(*current),
                                   kind, dropGroupLoop(config));
  return convertLayoutToConfig(rewriter, conv, reason);
}

FailureOr<Operation *> tiletune::convertLayoutToConfig(RewriterBase &rewriter,
                                                       Operation *op,
                                                       std::string *reason) {
  TileConfigAttr config = getConfig(op);
  if (config && config.getTarget() == kTargetCPU &&
      isa<linalg::Conv2DNgchwFgchwOp, linalg::Conv2DNhwgcGfhwcOp>(op))
    return convertGroupedConv(rewriter, op,
                              isa<linalg::Conv2DNgchwFgchwOp>(op)
                                  ? OpKind::ConvNgchwFgchw
                                  : OpKind::ConvNhwgcGfhwc,
                              config, reason);
  // An FHWC conv whose config packs the filter (`pack = b`/`ab`) keeps its
  // form: the packing copy transposes each filter tile (CPUTiling.cpp,
  // packFilterToHwcf). Otherwise the whole filter is transposed first.
  // An im2col conv reads its FHWC filter as the [F][KH*KW*C] matrix it is
  // (convertConvToIm2col).
  if (auto fhwc = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op);
      fhwc && config && config.getTarget() == kTargetCPU) {
    StringRef pack = getCPUPack(config);
    if (pack == "b" || pack == "ab" || usesIm2col(config))
      return op;
    return convertFilterToHwcf(rewriter, fhwc, config, reason);
  }
  if (config && config.getTarget() == kTargetCPU && getCPUPack(config) == "bt")
    return transposeRhsWhole(rewriter, op, config, reason);
  if (!config || config.getTarget() != kTargetCPU ||
      config.getStringOption("layout") != "nhwc")
    return op;
  // An NCHW conv's im2col GEMM through NHWC reads its FCHW filter as the
  // [F][C*KH*KW] matrix it is: no filter transpose (convertConvToIm2col).
  if (isa<linalg::Conv2DNchwFchwOp>(op) && usesIm2col(config))
    return op;
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  if (!conv || (!conv.hasPureTensorSemantics() &&
                !conv.hasPureBufferSemantics()))
    return failWithReason(
        reason, "'layout = nhwc' needs a linalg.conv_2d_nchw_fchw on tensors "
                "or on buffers");
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  bool onTensors = conv.hasPureTensorSemantics();
  rewriter.setInsertionPoint(op);
  SmallVector<linalg::TransposeOp> transposes;
  // `value` with its dims permuted (result dim i = source dim perm[i]) into
  // `target` (a fresh tensor or buffer when null); the transposed value.
  auto transposed = [&](Value value, ArrayRef<int64_t> perm,
                        Value target = {}) -> Value {
    if (!target) {
      auto [t, result] =
          transposeIntoFresh(rewriter, loc, value, perm, onTensors);
      transposes.push_back(t);
      return result;
    }
    auto t = linalg::TransposeOp::create(rewriter, loc, value, target, perm);
    transposes.push_back(t);
    return onTensors ? t->getResult(0) : target;
  };
  // NCHW -> NHWC, FCHW -> HWCF; the output keeps its (accumulated) values.
  Value input = transposed(conv.getInputs()[0], {0, 2, 3, 1});
  Value filter = transposed(conv.getInputs()[1], {2, 3, 1, 0});
  Value init = conv.getOutputs()[0];
  Value output = transposed(init, {0, 2, 3, 1});
  if (onTensors)
    transposes.back()->setAttr(kLayoutCopyInAttrName, rewriter.getUnitAttr());
  SmallVector<Type> resultTypes;
  if (onTensors)
    resultTypes.push_back(output.getType());
  // The same config without the layout option: its levels and `order` name
  // the same loops (n, f, oh, ow, c, kh, kw).
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : config.getEntries())
    if (entry.getName() != "layout")
      entries.push_back(entry);
  auto nhwc = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, loc, resultTypes, ValueRange{input, filter},
      ValueRange{output}, conv.getStrides(), conv.getDilations());
  setConfig(nhwc, TileConfigAttr::get(ctx, config.getTarget(),
                                      DictionaryAttr::get(ctx, entries)));
  rewriter.setInsertionPointAfter(nhwc);
  if (onTensors) {
    // Back into the conv's own init, which tiletune-optimize-cpu-buffers
    // needs to fold the pair of transposes into the conv's accesses
    // (foldLayoutTransposesIntoAccesses).
    Value result = transposed(nhwc->getResult(0), {0, 3, 1, 2}, init);
    transposes.back()->setAttr(kLayoutCopyOutAttrName, rewriter.getUnitAttr());
    rewriter.replaceOp(op, result);
  } else {
    transposed(output, {0, 3, 1, 2}, init);
    rewriter.eraseOp(op);
  }
  moveLayoutTransposes(rewriter, transposes, nhwc, onTensors);
  return nhwc.getOperation();
}

//===----------------------------------------------------------------------===//
// im2col
//===----------------------------------------------------------------------===//

/// The config of the im2col GEMM of a conv with config `config`: each
/// level's tile of a GEMM loop is the product of the tiles of its conv
/// loops (getIm2colGemmLoop). Windows form: m = n*oh*ow (n only at the
/// parallel level, where the batch is tiled), n = f, k = kh*kw*c; per-image
/// form (`perImage`): m = f, n = oh*ow, k = c*kh*kw, the batch in the loop
/// around the GEMM. The conv's tiles divide its loops, so these divide the
/// GEMM's loops and nest. `order` keeps the first of the conv loops of each
/// GEMM loop; `vectorize` and `unroll` carry over (unroll divides c's cache
/// tile, so k's); `pack` is the conv's (or its compute's); padded output
/// rows of `columns` pixels pad the GEMM's pixel loop.
static TileConfigAttr getIm2colGemmConfig(TileConfigAttr config,
                                          bool perImage, int64_t columns) {
  MLIRContext *ctx = config.getContext();
  Builder b(ctx);
  auto tile = [&](StringRef level, StringRef dim) -> int64_t {
    return config.getTileSize(level, dim).value_or(1);
  };
  SmallVector<NamedAttribute> entries;
  for (StringRef level : getTargetLevels(kTargetCPU)) {
    std::map<StringRef, int64_t> sizes;
    for (StringRef dim : {"n", "f", "oh", "ow", "c", "kh", "kw"}) {
      StringRef gemm = getIm2colGemmLoop(dim, perImage);
      if (gemm.empty() || (gemm == "k" && level != "cache") ||
          (dim == "n" && level != "parallel"))
        continue;
      auto [it, inserted] = sizes.try_emplace(gemm, 1);
      it->second *= tile(level, dim);
    }
    SmallVector<NamedAttribute> attrs;
    for (auto [gemm, size] : sizes)
      attrs.push_back(b.getNamedAttr(gemm, b.getI64IntegerAttr(size)));
    entries.push_back(b.getNamedAttr(level, b.getDictionaryAttr(attrs)));
  }
  if (config.getOption("order")) {
    SmallVector<Attribute> order;
    for (StringRef dim : config.getOrder()) {
      StringRef gemm = getIm2colGemmLoop(dim, perImage);
      if (!gemm.empty() && !llvm::is_contained(order, b.getStringAttr(gemm)))
        order.push_back(b.getStringAttr(gemm));
    }
    entries.push_back(b.getNamedAttr("order", b.getArrayAttr(order)));
  }
  for (StringRef name : {"vectorize", "unroll"})
    if (Attribute value = config.getOption(name))
      entries.push_back(b.getNamedAttr(name, value));
  entries.push_back(
      b.getNamedAttr("pack", b.getStringAttr(getCPUPack(config))));
  // Padded output rows (batch 1, the verifier's rule) pad the end of the
  // GEMM's pixel loop: its rows run oh outside ow, so `pad = {oh = P}` is
  // `P * OW` pixels, of which the last `(P - OH) * OW` are not computed.
  if (auto pad = llvm::dyn_cast_or_null<DictionaryAttr>(config.getOption("pad")))
    if (auto rows = llvm::dyn_cast_or_null<IntegerAttr>(pad.get("oh"))) {
      StringRef pixels = getIm2colGemmLoop("oh", perImage);
      entries.push_back(b.getNamedAttr(
          "pad", b.getDictionaryAttr(b.getNamedAttr(
                     pixels, b.getI64IntegerAttr(rows.getInt() * columns)))));
    }
  return TileConfigAttr::get(ctx, config.getTarget(),
                             b.getDictionaryAttr(entries));
}

/// The reassociation of `rank` dims collapsed into two groups, the first
/// `split` dims and the rest.
static SmallVector<ReassociationIndices> splitInTwo(int64_t rank,
                                                    int64_t split) {
  ReassociationIndices first, second;
  for (int64_t d = 0; d < rank; ++d)
    (d < split ? first : second).push_back(d);
  return {first, second};
}

/// Collapses `value` (a tensor, or a buffer with the identity layout) by
/// `reassociation`.
static Value collapse(OpBuilder &b, Location loc, Value value,
                      ArrayRef<ReassociationIndices> reassociation) {
  if (isa<RankedTensorType>(value.getType()))
    return tensor::CollapseShapeOp::create(b, loc, value, reassociation);
  return memref::CollapseShapeOp::create(b, loc, value, reassociation);
}

/// `value` (a static tensor or buffer) without its unit dims, keeping one
/// dim (a row of one element has rank 1): a rank-reducing slice of all of
/// it.
static Value dropUnitDims(OpBuilder &b, Location loc, Value value) {
  auto type = cast<ShapedType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t size : type.getShape())
    if (size != 1)
      shape.push_back(size);
  if (shape.empty())
    shape.push_back(1);
  if (isa<RankedTensorType>(type))
    return tensor::createCanonicalRankReducingExtractSliceOp(
        b, loc, value, RankedTensorType::get(shape, type.getElementType()));
  return memref::createCanonicalRankReducingSubViewOp(b, loc, value, shape);
}

/// The im2col GEMM `acc += lhs x rhs` in matmul form `kind` (its indexing
/// maps), carrying `config`; on tensors it has a result.
static linalg::MatmulOp createIm2colGemm(RewriterBase &rewriter, Location loc,
                                         Value lhs, Value rhs, Value acc,
                                         OpKind kind, TileConfigAttr config) {
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<Type> resultTypes;
  if (isa<RankedTensorType>(acc.getType()))
    resultTypes.push_back(acc.getType());
  auto gemm = linalg::MatmulOp::create(rewriter, loc, resultTypes,
                                       ValueRange{lhs, rhs}, ValueRange{acc});
  SmallVector<Attribute> maps;
  for (AffineMap map : getMatmulFormMaps(ctx, *getMatmulForm(kind)))
    maps.push_back(AffineMapAttr::get(map));
  gemm->setAttr("indexing_maps", ArrayAttr::get(ctx, maps));
  setConfig(gemm, config);
  return gemm;
}

/// The im2col GEMM of a conv_2d_nchw_fchw with `layout = nhwc`: the FCHW
/// filter is read in place as the [F][C*KH*KW] matrix it is (B stored
/// [n][k]: no filter copy), and the window matrix is gathered from the NCHW
/// input in the filter's (c, kh, kw) order. Its layout depends on the
/// config:
/// - transposed, [C*KH*KW][N*OH*OW] (a matmul_transpose_ab), where the
///   GEMM's cache tile of pixels is a whole image (the cache tiles of oh
///   and ow are whole; small maps such as ResNet-50's 7x7 stage), so that
///   its A tile is contiguous, and the compute is not dnmm332: for each
///   filter tap (kh, kw), the input pixels it reads (a strided view
///   [N][C][OH][OW]) are copied into windows[c][kh][kw][n][oh][ow], whole
///   [OH][OW] blocks instead of single elements KH*KW apart; at batch 1 a 1x1
///   unstrided conv reads the input in place;
/// - [N*OH*OW][C*KH*KW] (a matmul_transpose_b) otherwise, which dnmm332
///   needs (it reads both operands along k) and where the GEMM tiles the
///   pixels of an image (a row of A^T would then be read in short pieces,
///   each straddling cache lines): each tap's pixels are transposed into
///   windows[n][oh][ow][c][kh][kw] (a 1x1 filter's window matrix is the
///   input transposed once into [N][OH][OW][C]).
/// The GEMM accumulates into [N][OH][OW][F] (the output transposed, or a
/// fill of the same value when the output is a fill on tensors),
/// transposed back into the NCHW output. The copies and transposes are
/// split over the GEMM's threads.
static FailureOr<Operation *>
convertNchwConvThroughNhwc(RewriterBase &rewriter, linalg::LinalgOp conv,
                           const TunableOp &tunable, std::string *reason) {
  auto size = [&](StringRef dim) { return tunable.lookup(dim)->size; };
  int64_t n = size("n"), c = size("c"), oh = size("oh"), ow = size("ow"),
          kh = size("kh"), kw = size("kw");
  MLIRContext *ctx = conv->getContext();
  Location loc = conv.getLoc();
  bool onTensors = conv.hasPureTensorSemantics();
  TileConfigAttr config = getConfig(conv);
  bool transposedWindows =
      getCPUPack(config) != "dn" &&
      config.getTileSize("cache", "oh").value_or(1) >= oh &&
      config.getTileSize("cache", "ow").value_or(1) == ow;
  rewriter.setInsertionPoint(conv);
  SmallVector<linalg::TransposeOp> transposes;
  int64_t sh = tunable.strides[0], sw = tunable.strides[1];
  int64_t dh = tunable.dilations[0], dw = tunable.dilations[1];
  // The pixels filter tap (i, j) reads: [N][C][OH][OW] from row i*dh and
  // column j*dw, every sh-th row and sw-th column.
  Value input = conv.getDpsInputs()[0];
  auto inputType = cast<ShapedType>(input.getType());
  bool inputIsWindow = sh == 1 && sw == 1 && inputType.getShape()[2] == oh &&
                       inputType.getShape()[3] == ow;
  auto tapPixels = [&](int64_t i, int64_t j) -> Value {
    if (i == 0 && j == 0 && inputIsWindow)
      return input;
    SmallVector<OpFoldResult> offsets =
        getAsIndexOpFoldResult(ctx, {0, 0, i * dh, j * dw});
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(ctx, {n, c, oh, ow});
    SmallVector<OpFoldResult> strides =
        getAsIndexOpFoldResult(ctx, {1, 1, sh, sw});
    return onTensors
               ? Value(tensor::ExtractSliceOp::create(rewriter, loc, input,
                                                      offsets, sizes, strides))
               : Value(memref::SubViewOp::create(rewriter, loc, input, offsets,
                                                 sizes, strides));
  };
  Type elementType = tunable.elementType;
  // Each tap's pixels, [N][C][OH][OW], are permuted by `tapPerm` into the
  // tap's slot of the window matrix.
  SmallVector<int64_t> shape, tapShape, tapPerm;
  if (transposedWindows)
    shape = {c, kh, kw, n, oh, ow}, tapShape = {c, n, oh, ow},
    tapPerm = {1, 0, 2, 3};
  else
    shape = {n, oh, ow, c, kh, kw}, tapShape = {n, oh, ow, c},
    tapPerm = {0, 2, 3, 1};
  Value windows;
  bool inPlace =
      transposedWindows && n == 1 && kh == 1 && kw == 1 && inputIsWindow &&
      (onTensors || cast<MemRefType>(inputType).getLayout().isIdentity());
  Value lhs;
  if (inPlace) {
    // [1][C][OH][OW] is the window matrix [C][OH*OW] itself.
    lhs = collapse(rewriter, loc, input, {{0, 1}, {2, 3}});
  } else if (kh == 1 && kw == 1 && !transposedWindows) {
    auto [inputT, transposed] =
        transposeIntoFresh(rewriter, loc, tapPixels(0, 0), tapPerm, onTensors);
    transposes.push_back(inputT);
    windows = transposed;
  } else {
    windows =
        onTensors
            ? Value(tensor::EmptyOp::create(rewriter, loc, shape, elementType))
            : Value(memref::AllocOp::create(rewriter, loc,
                                            MemRefType::get(shape, elementType),
                                            rewriter.getI64IntegerAttr(64)));
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        SmallVector<int64_t> at = transposedWindows
                                      ? SmallVector<int64_t>{0, i, j, 0, 0, 0}
                                      : SmallVector<int64_t>{0, 0, 0, 0, i, j};
        SmallVector<int64_t> extent =
            transposedWindows ? SmallVector<int64_t>{c, 1, 1, n, oh, ow}
                              : SmallVector<int64_t>{n, oh, ow, c, 1, 1};
        SmallVector<OpFoldResult> offsets = getAsIndexOpFoldResult(ctx, at);
        SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, extent);
        SmallVector<OpFoldResult> ones(6, rewriter.getIndexAttr(1));
        Value pixels = tapPixels(i, j);
        if (onTensors) {
          auto tapTensor = RankedTensorType::get(tapShape, elementType);
          Value slot = tensor::ExtractSliceOp::create(
              rewriter, loc, tapTensor, windows, offsets, sizes, ones);
          auto t =
              linalg::TransposeOp::create(rewriter, loc, pixels, slot, tapPerm);
          transposes.push_back(t);
          windows = tensor::InsertSliceOp::create(
              rewriter, loc, t->getResult(0), windows, offsets, sizes, ones);
        } else {
          auto slotType = memref::SubViewOp::inferRankReducedResultType(
              tapShape, cast<MemRefType>(windows.getType()), offsets, sizes,
              ones);
          Value slot = memref::SubViewOp::create(rewriter, loc,
                                                 cast<MemRefType>(slotType),
                                                 windows, offsets, sizes, ones);
          transposes.push_back(linalg::TransposeOp::create(
              rewriter, loc, pixels, slot, tapPerm));
        }
      }
  }
  Value init = conv.getDpsInits()[0];
  Value acc;
  if (auto fill = init.getDefiningOp<linalg::FillOp>(); fill && onTensors) {
    auto type = cast<RankedTensorType>(init.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{n, oh, ow, type.getShape()[1]},
        type.getElementType());
    acc = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
              ->getResult(0);
  } else {
    auto [initT, transposedInit] =
        transposeIntoFresh(rewriter, loc, init, {0, 2, 3, 1}, onTensors);
    transposes.push_back(initT);
    acc = transposedInit;
  }
  if (!lhs) {
    int64_t windowsRank = cast<ShapedType>(windows.getType()).getRank();
    lhs = collapse(rewriter, loc, windows, splitInTwo(windowsRank, 3));
  }
  Value rhs = collapse(rewriter, loc, conv.getDpsInputs()[1], splitInTwo(4, 1));
  Value accMatrix = collapse(rewriter, loc, acc, splitInTwo(4, 3));
  linalg::MatmulOp gemm = createIm2colGemm(
      rewriter, loc, lhs, rhs, accMatrix,
      transposedWindows ? OpKind::MatmulTransposeAB : OpKind::MatmulTransposeB,
      getIm2colGemmConfig(config, /*perImage=*/false, ow));
  rewriter.setInsertionPointAfter(gemm);
  if (onTensors) {
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, acc.getType(), gemm->getResult(0), splitInTwo(4, 3));
    auto [outT, output] =
        transposeIntoFresh(rewriter, loc, result, {0, 3, 1, 2}, onTensors);
    transposes.push_back(outT);
    rewriter.replaceOp(conv, output);
  } else {
    transposes.push_back(linalg::TransposeOp::create(
        rewriter, loc, acc, init, ArrayRef<int64_t>{0, 3, 1, 2}));
    rewriter.eraseOp(conv);
  }
  moveLayoutTransposes(rewriter, transposes, gemm, onTensors);
  return gemm.getOperation();
}

/// The per-image im2col GEMM of a 1x1 conv_2d_nchw_fchw in its native
/// layout: for each image, out[F][OH*OW] += filter[F][C] x input[C][OH*OW],
/// a plain matmul of the operands as they are stored (the input of a
/// strided conv is first copied to its [C][OH][OW] pixels). No transposes:
/// the pixels are on the vector lanes. The images are a loop around the
/// GEMM: an scf.forall over the threads of the parallel tile of n (where it
/// splits the batch), each image in an scf.for; both are left out where they
/// would have one trip. The GEMM carries the conv's tiles as m = f,
/// n = oh*ow, k = c (getIm2colGemmConfig).
static FailureOr<Operation *> convertNchwConvPerImage(RewriterBase &rewriter,
                                                      linalg::LinalgOp conv,
                                                      const TunableOp &tunable,
                                                      std::string *reason) {
  TileConfigAttr config = getConfig(conv);
  MLIRContext *ctx = conv->getContext();
  const LoopDim *batch = tunable.lookup("n");
  int64_t perThread = config.getTileSize("parallel", "n").value_or(batch->size);
  if (perThread < 1 || batch->size % perThread != 0)
    return failWithReason(reason, "the parallel tile of 'n' does not divide "
                                  "the batch");
  FailureOr<Operation *> current =
      tileToOneAtATime(rewriter, conv, *batch, perThread, "images", reason);
  if (failed(current))
    return failure();
  auto image = cast<linalg::LinalgOp>(*current);
  bool onTensors = image.hasPureTensorSemantics();
  Location loc = image.getLoc();
  rewriter.setInsertionPoint(image);
  auto size = [&](StringRef dim) { return tunable.lookup(dim)->size; };
  int64_t c = size("c"), oh = size("oh"), ow = size("ow");
  // [C][OH][OW]: the input image, or its every sh-th row and sw-th column
  // copied into a fresh tensor or buffer.
  Value input = dropUnitDim(rewriter, loc, image.getDpsInputs()[0], 0);
  auto [sh, sw] = tunable.strides;
  auto inputType = cast<ShapedType>(input.getType());
  if (sh != 1 || sw != 1 || inputType.getShape()[1] != oh ||
      inputType.getShape()[2] != ow) {
    SmallVector<OpFoldResult> offsets(3, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, {c, oh, ow});
    SmallVector<OpFoldResult> strides =
        getAsIndexOpFoldResult(ctx, {1, sh, sw});
    Value pixels =
        onTensors ? Value(tensor::ExtractSliceOp::create(
                        rewriter, loc, input, offsets, sizes, strides))
                  : Value(memref::SubViewOp::create(rewriter, loc, input,
                                                    offsets, sizes, strides));
    SmallVector<int64_t> shape = {c, oh, ow};
    Value fresh =
        onTensors ? Value(tensor::EmptyOp::create(rewriter, loc, shape,
                                                  inputType.getElementType()))
                  : Value(memref::AllocOp::create(
                        rewriter, loc,
                        MemRefType::get(shape, inputType.getElementType()),
                        rewriter.getI64IntegerAttr(64)));
    auto copy = linalg::CopyOp::create(rewriter, loc, pixels, fresh);
    input = onTensors ? copy->getResult(0) : fresh;
  }
  Value lhs =
      collapse(rewriter, loc, image.getDpsInputs()[1], splitInTwo(4, 1));
  Value rhs = collapse(rewriter, loc, input, splitInTwo(3, 1));
  Value init = image.getDpsInits()[0];
  Value output = dropUnitDim(rewriter, loc, init, 0);
  Value acc = collapse(rewriter, loc, output, splitInTwo(3, 1));
  linalg::MatmulOp gemm =
      createIm2colGemm(rewriter, loc, lhs, rhs, acc, OpKind::Matmul,
                       getIm2colGemmConfig(config, /*perImage=*/true, ow));
  if (!onTensors) {
    rewriter.eraseOp(image);
    return gemm.getOperation();
  }
  rewriter.setInsertionPointAfter(gemm);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, loc, output.getType(), gemm->getResult(0), splitInTwo(3, 1));
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(4, rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(ctx, initType.getShape());
  Value inserted = tensor::InsertSliceOp::create(rewriter, loc, result, init,
                                                 offsets, sizes, ones);
  rewriter.replaceOp(image, inserted);
  return gemm.getOperation();
}

/// Sets each operand of `op` that is collapse_shape(expand_shape(x)), with
/// one reassociation and x's type, to x itself (and erases the reshapes
/// left unused).
static void foldCollapseOfExpand(RewriterBase &rewriter, Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto collapseOp = operand.get().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapseOp)
      continue;
    auto expandOp = collapseOp.getSrc().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expandOp || expandOp.getSrcType() != collapseOp.getResultType() ||
        expandOp.getReassociationIndices() !=
            collapseOp.getReassociationIndices())
      continue;
    rewriter.modifyOpInPlace(op, [&] { operand.set(expandOp.getSrc()); });
    if (collapseOp->use_empty())
      rewriter.eraseOp(collapseOp);
    if (expandOp->use_empty())
      rewriter.eraseOp(expandOp);
  }
}

/// How collapseIntoGemmSpace reads an operand of an elementwise op on
/// [N][OH][OW][F] over the GEMM's loops (m, f).
enum class CollapsedOperand {
  Whole,    // Read whole (the identity): collapsed like the output, (m, f).
  Channels, // Read along f only (a bias, a per-channel scale; its other
            // dims of size 1, which TOSA reads with constant 0s): (f).
  Scalar,   // One element (constant 0s on unit dims, or rank 0): ().
};

/// The form of an operand of type `type` read through `map` by an op of
/// loop sizes `loops`, or nullopt where n, oh and ow do not read it
/// together. A unit loop read on a unit dim counts as a constant 0 (TOSA
/// reads its per-channel constants with the batch loop: (d0, 0, 0, d3)).
static std::optional<CollapsedOperand>
getCollapsedOperand(Type type, AffineMap map, ArrayRef<int64_t> loops) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !tensorType.hasStaticShape())
    return std::nullopt;
  if (map.isIdentity())
    return CollapsedOperand::Whole;
  int64_t alongF = 0;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (dim.getPosition() < 3 && loops[dim.getPosition()] == 1 &&
          tensorType.getDimSize(i) == 1)
        continue;
      if (dim.getPosition() != 3 || alongF++)
        return std::nullopt;
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0 || tensorType.getDimSize(i) != 1)
      return std::nullopt;
  }
  return alongF ? CollapsedOperand::Channels : CollapsedOperand::Scalar;
}

/// `operand` in its collapsed `form` and its map over (m, f).
static std::pair<Value, AffineMap> collapseOperand(RewriterBase &rewriter,
                                                   Location loc, Value operand,
                                                   CollapsedOperand form) {
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), f = getAffineDimExpr(1, ctx);
  int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
  switch (form) {
  case CollapsedOperand::Whole:
    return {collapse(rewriter, loc, operand, splitInTwo(4, 3)),
            AffineMap::get(2, 0, {m, f}, ctx)};
  case CollapsedOperand::Channels: {
    ReassociationIndices all;
    for (int64_t i = 0; i < rank; ++i)
      all.push_back(i);
    return {rank == 1 ? operand : collapse(rewriter, loc, operand, {all}),
            AffineMap::get(2, 0, {f}, ctx)};
  }
  case CollapsedOperand::Scalar:
    return {rank == 0 ? operand : collapse(rewriter, loc, operand, {}),
            AffineMap::get(2, 0, {}, ctx)};
  }
  llvm_unreachable("unknown operand form");
}

/// Moves `op`, an elementwise op on [N][OH][OW][F] (an epilogue or an init
/// producer of an NHWC conv), into the [N*OH*OW][F] space of the conv's
/// im2col GEMM: the same body over loops (m, f), its operands collapsed
/// (CollapsedOperand), its result expanded back; the reshape pairs between
/// it and the GEMM fold away. Returns the collapsed op, or null where an
/// operand is read otherwise (it is then left as it is, nothing created).
static Operation *collapseIntoGemmSpace(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumLoops() != 4 ||
      linalgOp.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      linalgOp.getNumReductionLoops() != 0 ||
      !linalgOp.getIndexingMapMatchingResult(op->getResult(0)).isIdentity())
    return nullptr;
  if (!isa<linalg::FillOp, linalg::GenericOp>(op) ||
      llvm::any_of(linalgOp.getBlock()->getOperations(), [](Operation &inner) {
        return isa<linalg::IndexOp>(inner);
      }))
    return nullptr;
  // Every operand's form first: nothing is created for an op that stays.
  // (A fill's input is its scalar.)
  SmallVector<int64_t> loops = linalgOp.getStaticLoopRanges();
  SmallVector<CollapsedOperand> forms;
  for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
    if (isa<linalg::FillOp>(op))
      break;
    std::optional<CollapsedOperand> form =
        getCollapsedOperand(operand->get().getType(),
                            linalgOp.getMatchingIndexingMap(operand), loops);
    if (!form)
      return nullptr;
    forms.push_back(*form);
  }
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Value init =
      collapse(rewriter, loc, linalgOp.getDpsInits()[0], splitInTwo(4, 3));
  Operation *collapsed = nullptr;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    collapsed = linalg::FillOp::create(rewriter, loc, fill.getInputs(),
                                       ValueRange{init});
  } else {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (auto [operand, form] :
         llvm::zip_equal(linalgOp.getDpsInputOperands(), forms)) {
      auto [value, map] = collapseOperand(rewriter, loc, operand->get(), form);
      inputs.push_back(value);
      maps.push_back(map);
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(2, op->getContext()));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
        maps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    rewriter.inlineRegionBefore(cast<linalg::GenericOp>(op).getRegion(),
                                generic.getRegion(), generic.getRegion().end());
    collapsed = generic;
  }
  Value result =
      tensor::ExpandShapeOp::create(rewriter, loc, op->getResult(0).getType(),
                                    collapsed->getResult(0), splitInTwo(4, 3));
  rewriter.replaceOp(op, result);
  foldCollapseOfExpand(rewriter, collapsed);
  return collapsed;
}

/// The end of convertConvToIm2col for an NHWC conv `op` computed as `gemm`:
/// replaces the conv by the GEMM's result expanded back to
/// [N][OH][OW][F], and moves the conv's elementwise `chain` and
/// `initProducer` (found before the rewrite; empty and null on buffers)
/// into the GEMM's space, so that the tiling fuses them with the GEMM as
/// with any matmul (FuseEpilogues.cpp). The chain moves from its first op
/// while each op collapses; the rest stays after the reshape, unfused.
static Operation *finishNhwcIm2col(RewriterBase &rewriter, Operation *op,
                                   linalg::MatmulOp gemm,
                                   ArrayRef<Operation *> chain,
                                   Operation *initProducer) {
  if (op->getNumResults() == 0) {
    rewriter.eraseOp(op);
    return gemm.getOperation();
  }
  rewriter.setInsertionPointAfter(gemm);
  Value result = tensor::ExpandShapeOp::create(
      rewriter, op->getLoc(), op->getResult(0).getType(), gemm->getResult(0),
      splitInTwo(4, 3));
  rewriter.replaceOp(op, result);
  for (Operation *chainOp : chain)
    if (!collapseIntoGemmSpace(rewriter, chainOp))
      break;
  if (initProducer && collapseIntoGemmSpace(rewriter, initProducer))
    foldCollapseOfExpand(rewriter, gemm);
  return gemm.getOperation();
}

FailureOr<Operation *> tiletune::convertConvToIm2col(RewriterBase &rewriter,
                                                     Operation *op,
                                                     std::string *reason) {
  TileConfigAttr config = getConfig(op);
  if (!config || config.getTarget() != kTargetCPU || !usesIm2col(config))
    return op;
  if (!isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
           linalg::Conv2DNchwFchwOp>(op))
    return failWithReason(reason, "'im2col' computes a conv_2d_nhwc_hwcf, "
                                  "conv_2d_nhwc_fhwc or 1x1 "
                                  "conv_2d_nchw_fchw (a larger NCHW conv "
                                  "with 'layout = nhwc')");
  auto conv = cast<linalg::LinalgOp>(op);
  bool onTensors = conv.hasPureTensorSemantics();
  if (!onTensors) {
    if (!conv.hasPureBufferSemantics())
      return failWithReason(reason, "'im2col' needs the conv on tensors or "
                                    "on buffers, not both");
    for (Value operand : op->getOperands())
      if (!cast<MemRefType>(operand.getType()).getLayout().isIdentity())
        return failWithReason(reason, "'im2col' on buffers needs operands "
                                      "with the identity layout (they are "
                                      "viewed as matrices)");
  }
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  // An NCHW conv: through NHWC with its filter in place, or (1x1 only) per
  // image in its native layout.
  if (isa<linalg::Conv2DNchwFchwOp>(op)) {
    if (config.getStringOption("layout") == "nhwc")
      return convertNchwConvThroughNhwc(rewriter, conv, *tunable, reason);
    if (!isOneByOneConv(op))
      return failWithReason(reason, "'im2col' on a conv_2d_nchw_fchw with a "
                                    "filter larger than 1x1 needs 'layout = "
                                    "nhwc'");
    return convertNchwConvPerImage(rewriter, conv, *tunable, reason);
  }
  auto size = [&](StringRef dim) { return tunable->lookup(dim)->size; };
  int64_t n = size("n"), oh = size("oh"), ow = size("ow"), kh = size("kh"),
          kw = size("kw"), c = size("c");
  bool fhwc = isa<linalg::Conv2DNhwcFhwcOp>(op);
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  Type elementType = tunable->elementType;
  rewriter.setInsertionPoint(op);

  // The elementwise chain after the conv and the init's producer, found
  // before the rewrite (they move into the GEMM's space below).
  SmallVector<Operation *> chain;
  Operation *initProducer = nullptr;
  if (onTensors) {
    if (FailureOr<SmallVector<Operation *>> found =
            findEpilogueChain(op, /*reason=*/nullptr);
        succeeded(found))
      chain = std::move(*found);
    initProducer = getFusableInitProducer(op);
  }
  auto [sh, sw] = tunable->strides;
  auto [dh, dw] = tunable->dilations;
  // The GEMM: the window matrix [N*OH*OW][KH*KW*C] `lhs` x the filter ->
  // [N*OH*OW][F].
  auto createGemm = [&](Value lhs) {
    Value rhs = collapse(rewriter, loc, conv.getDpsInputs()[1],
                         fhwc ? splitInTwo(4, 1) : splitInTwo(4, 3));
    Value acc =
        collapse(rewriter, loc, conv.getDpsInits()[0], splitInTwo(4, 3));
    return createIm2colGemm(rewriter, loc, lhs, rhs, acc,
                            *getIm2colMatmulKind(tunable->kind),
                            getIm2colGemmConfig(config, /*perImage=*/false,
                                                tunable->lookup("ow")->size));
  };
  // An unstrided 1x1 conv's input is its window matrix: [N*OH*OW][C], read
  // in place.
  if (kh == 1 && kw == 1 && sh == 1 && sw == 1) {
    linalg::MatmulOp gemm = createGemm(
        collapse(rewriter, loc, conv.getDpsInputs()[0], splitInTwo(4, 3)));
    return finishNhwcIm2col(rewriter, op, gemm, chain, initProducer);
  }

  // The windows: im2col[n][oh][ow][kh][kw][c] =
  //   input[n][oh*sh + kh*dh][ow*sw + kw*dw][c].
  SmallVector<int64_t> windowShape = {n, oh, ow, kh, kw, c};
  Value windows =
      onTensors ? Value(tensor::EmptyOp::create(rewriter, loc, windowShape,
                                                elementType))
                : Value(memref::AllocOp::create(
                      rewriter, loc, MemRefType::get(windowShape, elementType),
                      rewriter.getI64IntegerAttr(64)));
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  AffineMap inputMap = AffineMap::get(
      6, 0, {d[0], d[1] * sh + d[3] * dh, d[2] * sw + d[4] * dw, d[5]}, ctx);
  SmallVector<AffineMap> maps = {inputMap,
                                 AffineMap::getMultiDimIdentityMap(6, ctx)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  SmallVector<Type> windowTypes;
  if (onTensors)
    windowTypes.push_back(windows.getType());
  auto gather = linalg::GenericOp::create(
      rewriter, loc, windowTypes, ValueRange{conv.getDpsInputs()[0]},
      ValueRange{windows}, maps, iterators,
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  if (onTensors)
    windows = gather->getResult(0);

  linalg::MatmulOp gemm =
      createGemm(collapse(rewriter, loc, windows, splitInTwo(6, 3)));

  // The window copy, split over the GEMM's threads, one row of c at a time.
  FailureOr<CPUSchedule> schedule = decodeCPUSchedule(gemm, getConfig(gemm));
  int64_t threads = succeeded(schedule) ? schedule->getParallelTrips() : 1;
  Operation *copy = gather;
  if (threads > 1) {
    // The first of n, oh that the threads divide, else oh in ceil parts.
    SmallVector<int64_t> tiles(6, 0);
    if (n % threads == 0)
      tiles[0] = n / threads;
    else
      tiles[1] = llvm::divideCeil(oh, std::min(threads, oh));
    FailureOr<scf::SCFTilingResult> split =
        tileOneLevel(rewriter, copy, getAsIndexOpFoldResult(ctx, tiles),
                     scf::SCFTilingOptions::LoopType::ForallOp);
    if (succeeded(split))
      copy = split->tiledOps.back();
  }
  // One piece per window row: c, or kw x c where the row of input pixels
  // is contiguous (unit stride and dilation along w). Each piece becomes a
  // linalg.copy of the row without its unit dims, which the pipeline moves
  // in vectors (or memcpy) after bufferization, like the packing copies.
  bool wholeKw = sw == 1 && dw == 1;
  SmallVector<int64_t> pieceTiles = {1, 1, 1, 1, wholeKw ? 0 : 1, 0};
  FailureOr<scf::SCFTilingResult> rows =
      tileOneLevel(rewriter, copy, getAsIndexOpFoldResult(ctx, pieceTiles));
  if (failed(rows))
    return failWithReason(reason, "tiling the im2col copy failed");
  auto piece = cast<linalg::LinalgOp>(rows->tiledOps.back());
  rewriter.setInsertionPoint(piece);
  Value source = piece.getDpsInputs()[0], target = piece.getDpsInits()[0];
  Value rowSource = dropUnitDims(rewriter, loc, source);
  Value rowTarget = dropUnitDims(rewriter, loc, target);
  auto rowCopy = linalg::CopyOp::create(rewriter, loc, rowSource, rowTarget);
  if (onTensors) {
    Value whole = tensor::InsertSliceOp::create(
        rewriter, loc, rowCopy->getResult(0), target,
        SmallVector<OpFoldResult>(6, rewriter.getIndexAttr(0)),
        tensor::getMixedSizes(rewriter, loc, target),
        SmallVector<OpFoldResult>(6, rewriter.getIndexAttr(1)));
    rewriter.replaceOp(piece, whole);
  } else {
    rewriter.eraseOp(piece);
  }
  return finishNhwcIm2col(rewriter, op, gemm, chain, initProducer);
}

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

FailureOr<Operation *> tiletune::padToConfig(RewriterBase &rewriter,
                                             Operation *op,
                                             std::string *reason) {
  TileConfigAttr config = getConfig(op);
  if (!config || config.getTarget() != kTargetCPU || !config.getOption("pad"))
    return op;
  std::string why;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &why);
  if (failed(tunable))
    return failWithReason(reason, why);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || (!linalgOp.hasPureTensorSemantics() &&
                    !linalgOp.hasPureBufferSemantics()))
    return failWithReason(
        reason, "padding needs a structured op on tensors or on buffers");
  SmallVector<int64_t> loopSizes(linalgOp.getNumLoops(), 0);
  bool anyPadded = false;
  for (const LoopDim &dim : tunable->dims) {
    int64_t padded = getPaddedSize(config, dim);
    if (padded < dim.size)
      return failWithReason(reason,
                            "'pad' of '" + dim.name + "' is below its size");
    if (padded > getMaxPaddedSize(dim.size))
      return failWithReason(reason, "'pad' of '" + dim.name +
                                        "' is too large for its size");
    loopSizes[dim.loopIndex] = padded;
    anyPadded |= padded != dim.size;
  }
  // On tensors, the tiling handles the padded loops instead: their partial
  // tiles run in place with peeled register loops (tileAndVectorizeForCPU,
  // CPUSchedule.md, "Remainders").
  bool onTensors = linalgOp.hasPureTensorSemantics();
  if (!anyPadded || onTensors)
    return op;
  if (isConv(tunable->kind))
    return failWithReason(reason, "'pad' of a conv's output rows needs the "
                                  "conv on tensors (its partial tile is "
                                  "computed in place)");

  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Type elementType = tunable->elementType;
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(elementType));
  auto unitSteps = [&](int64_t rank) {
    return SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1));
  };
  auto zeros = [&](int64_t rank) {
    return SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(0));
  };
  // Copies are plain linalg.copy ops, row-tiled and vectorized like the
  // packing copies (memref.copy of strided views would become calls of the
  // generic runtime copy).
  SmallVector<Operation *> copies;
  SmallVector<Value> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<ShapedType>(operand.get().getType());
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    SmallVector<int64_t> shape;
    for (AffineExpr expr : map.getResults()) {
      auto dimExpr = dyn_cast<AffineDimExpr>(expr);
      if (!dimExpr)
        return failWithReason(reason,
                              "padding needs operands indexed by plain loops");
      shape.push_back(loopSizes[dimExpr.getPosition()]);
    }
    if (shape == type.getShape()) {
      operands.push_back(operand.get());
      continue;
    }
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
    if (onTensors) {
      // Bufferizes to a fresh buffer, a fill and a copy of the operand into
      // it (vectorized row by row after bufferization, see
      // vectorizeSmallCopies).
      auto paddedType = RankedTensorType::get(shape, elementType);
      operands.push_back(tensor::createPadHighOp(paddedType, operand.get(),
                                                 zero, /*nofold=*/false, loc,
                                                 rewriter));
      continue;
    }
    // Freed by the pipeline's buffer deallocation, like packing buffers.
    Value buffer = memref::AllocOp::create(
        rewriter, loc, MemRefType::get(shape, elementType),
        rewriter.getI64IntegerAttr(64));
    linalg::FillOp::create(rewriter, loc, ValueRange{zero}, ValueRange{buffer});
    Value window = memref::SubViewOp::create(rewriter, loc, buffer, zeros(rank),
                                             sizes, unitSteps(rank));
    copies.push_back(
        linalg::CopyOp::create(rewriter, loc, operand.get(), window));
    operands.push_back(buffer);
  }
  Value init = linalgOp.getDpsInits()[0];
  Value paddedInit = operands.back();
  SmallVector<Type> resultTypes;
  if (onTensors)
    resultTypes.push_back(paddedInit.getType());
  Operation *padded = clone(rewriter, op, resultTypes, operands);
  auto initType = cast<ShapedType>(init.getType());
  int64_t rank = initType.getRank();
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), initType.getShape());
  if (onTensors) {
    Value valid = tensor::ExtractSliceOp::create(
        rewriter, loc, padded->getResult(0), zeros(rank), sizes,
        unitSteps(rank));
    rewriter.replaceOp(op, valid);
  } else {
    if (paddedInit != init) {
      Value valid = memref::SubViewOp::create(
          rewriter, loc, paddedInit, zeros(rank), sizes, unitSteps(rank));
      copies.push_back(linalg::CopyOp::create(rewriter, loc, valid, init));
    }
    rewriter.eraseOp(op);
  }
  for (Operation *copy : copies)
    if (failed(tileAndVectorizeCopy(rewriter, copy, !onTensors)))
      return failWithReason(reason, "tiling a padding copy failed");
  return padded;
}
