//===- ProblemSpec.cpp - MLIR-free description of a tuning problem --------===//
//
// Lookups, the FLOP count and construction of a ProblemSpec from sizes.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;
using namespace mlir::tiletune;

double mlir::tiletune::countFlops(ArrayRef<int64_t> loopSizes) {
  double product = 2.0;
  for (int64_t size : loopSizes)
    product *= static_cast<double>(size);
  return product;
}

/// How many (output position, filter tap) pairs of one spatial dim read
/// inside an image of `size` elements padded by `low` before it.
static int64_t countTapsInImage(int64_t outSize, int64_t kernelSize,
                                int64_t stride, int64_t dilation, int64_t low,
                                int64_t size) {
  int64_t count = 0;
  for (int64_t o = 0; o < outSize; ++o)
    for (int64_t k = 0; k < kernelSize; ++k) {
      int64_t in = o * stride + k * dilation;
      count += in >= low && in < low + size;
    }
  return count;
}

/// The position of the row (h) dim in the input of a conv of `kind` whose
/// input has `rank` dims; the column (w) dim follows it. NCHW-like layouts
/// end with h and w, NHWC-like ones have them right after n.
static size_t getConvInputRowDim(OpKind kind, size_t rank) {
  bool channelsFirst =
      kind == OpKind::ConvNchwFchw || kind == OpKind::ConvNgchwFgchw;
  return channelsFirst ? rank - 2 : 1;
}

bool mlir::tiletune::padsConvInputRows(OpKind kind, ArrayRef<int64_t> padLow,
                                       ArrayRef<int64_t> padHigh) {
  if (!isConv(kind) || padLow.size() != padHigh.size())
    return false;
  size_t h = getConvInputRowDim(kind, padLow.size());
  return h < padLow.size() && (padLow[h] > 0 || padHigh[h] > 0);
}

double mlir::tiletune::countConvFlopsInImage(
    OpKind kind, double flops, function_ref<int64_t(StringRef)> dimSize,
    std::array<int64_t, 2> strides, std::array<int64_t, 2> dilations,
    ArrayRef<int64_t> inputShape, ArrayRef<int64_t> padLow,
    ArrayRef<int64_t> padHigh) {
  size_t rank = inputShape.size();
  if (padLow.size() != rank || padHigh.size() != rank || !isConv(kind))
    return flops;
  size_t h = getConvInputRowDim(kind, rank);
  const char *outNames[2] = {"oh", "ow"}, *tapNames[2] = {"kh", "kw"};
  double scaled = flops;
  for (unsigned i = 0; i < 2; ++i) {
    int64_t out = dimSize(outNames[i]), taps = dimSize(tapNames[i]);
    size_t d = h + i;
    if (out < 1 || taps < 1 || d >= rank)
      return flops;
    int64_t size = inputShape[d] - padLow[d] - padHigh[d];
    scaled *= double(countTapsInImage(out, taps, strides[i], dilations[i],
                                      padLow[d], size)) /
              double(out * taps);
  }
  return scaled;
}

const ProblemDim *ProblemSpec::lookup(StringRef name) const {
  for (const ProblemDim &d : dims)
    if (d.name == name)
      return &d;
  return nullptr;
}

double ProblemSpec::getFlops() const {
  SmallVector<int64_t> sizes;
  for (const ProblemDim &d : dims)
    sizes.push_back(d.size);
  return countFlops(sizes);
}

Expected<ProblemSpec> mlir::tiletune::makeProblemSpec(StringRef opKind,
                                                      StringRef target,
                                                      ArrayRef<int64_t> sizes) {
  std::optional<OpKind> kind = symbolizeOpKind(opKind);
  if (!kind)
    return createStringError("unknown op kind '" + opKind +
                             "' (expected matmul, batch_matmul, "
                             "conv_2d_nhwc_hwcf or conv_2d_nchw_fchw)");
  if (llvm::Error err = checkKnownTarget(target))
    return std::move(err);
  ArrayRef<LoopTemplate> loops = getLoopTemplates(*kind);
  if (sizes.size() != loops.size())
    return createStringError(opKind + " has " + Twine(loops.size()) +
                             " loops, got " + Twine(sizes.size()) + " sizes");
  ProblemSpec spec;
  spec.opKind = *kind;
  spec.target = target.str();
  for (auto [loop, size] : llvm::zip(loops, sizes)) {
    if (size < 1)
      return createStringError("size of loop '" + loop.name + "' must be >= 1");
    spec.dims.push_back({loop.name.str(), size, loop.role});
  }
  return spec;
}
