//===- ProblemSpec.h - MLIR-free description of a problem -------*- C++ -*-===//
//
// The one context-free description of a tunable op: its kind, the target,
// its named loops with sizes and roles (in the op's iterator order),
// convolution strides and dilations and the element size. The spaces and
// search strategies work on it; the MLIR side builds one from an op
// (lib/Problem). The FLOP count of every problem description is defined
// here once.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_PROBLEMSPEC_H
#define TILETUNE_SUPPORT_PROBLEMSPEC_H

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>

namespace mlir::tiletune {

/// FLOPs of one execution of a tunable op whose loops have `loopSizes`: two
/// per multiply-add, one multiply-add per point of the iteration space.
double countFlops(llvm::ArrayRef<int64_t> loopSizes);

/// Whether pads `padLow`/`padHigh` of the input of a conv of `kind` (one per
/// input dim) pad its rows (its h dim).
bool padsConvInputRows(OpKind kind, llvm::ArrayRef<int64_t> padLow,
                       llvm::ArrayRef<int64_t> padHigh);

/// The FLOPs of a conv of `kind` whose input (the operand, of shape
/// `inputShape`) is a zero pad by `padLow`/`padHigh` of a smaller image:
/// `flops` (the loop nest's, countFlops) scaled to the (output position,
/// filter tap) pairs of the h and w dims that read inside the image, as
/// libraries count. `dimSize` gives the size of the loop called oh, ow, kh
/// or kw. `flops` unchanged without pads or when a size is missing.
double countConvFlopsInImage(
    OpKind kind, double flops,
    llvm::function_ref<int64_t(llvm::StringRef)> dimSize,
    std::array<int64_t, 2> strides, std::array<int64_t, 2> dilations,
    llvm::ArrayRef<int64_t> inputShape, llvm::ArrayRef<int64_t> padLow,
    llvm::ArrayRef<int64_t> padHigh);

/// One named loop dimension of a problem.
struct ProblemDim {
  /// Loop name as in `#tiletune.config` (m, n, k, b, oh, ow, f, kh, kw, c).
  std::string name;
  /// Trip count (static size), >= 1.
  int64_t size = 1;
  /// Role of the loop.
  DimRole role = DimRole::Parallel;
};

/// The tunable view of one op: kind, target and loops in iterator order.
struct ProblemSpec {
  OpKind opKind = OpKind::Matmul;
  /// "cpu" or "cuda".
  std::string target = "cpu";
  /// Loops in the op's iterator order.
  llvm::SmallVector<ProblemDim> dims;
  /// Convolution strides and dilations ({h, w}); {1, 1} for matmuls.
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 2> dilations = {1, 1};
  /// Bytes per element of the operands (4 for f32).
  int64_t elementBytes = 4;
  /// A conv whose output rows were padded (getCPUPaddedConvRows, else
  /// getCPUPaddedIm2colRows; batch 1): its configs keep them whole at the
  /// parallel level, as the verifier requires of a padded conv.
  bool paddedRows = false;

  /// The dim called `name`, or null.
  const ProblemDim *lookup(llvm::StringRef name) const;
  /// FLOPs of one execution (countFlops of the loop sizes). Problem::getFlops
  /// leaves out the taps a padded conv reads on its padding.
  double getFlops() const;
};

/// Builds a problem from sizes given in the op's iterator order
/// (matmul: m, n, k; batch_matmul: b, m, n, k; conv_2d_nhwc_hwcf: n, oh, ow,
/// f, kh, kw, c; conv_2d_nchw_fchw: n, f, oh, ow, c, kh, kw). Errors on an
/// unknown op kind or target, a wrong number of sizes or a size < 1.
llvm::Expected<ProblemSpec> makeProblemSpec(llvm::StringRef opKind,
                                            llvm::StringRef target,
                                            llvm::ArrayRef<int64_t> sizes);

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_PROBLEMSPEC_H
