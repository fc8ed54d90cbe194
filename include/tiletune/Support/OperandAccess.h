//===- OperandAccess.h - Which loops index which operand --------*- C++ -*-===//
//
// The MLIR-free description of how the loops of a tunable op (ProblemSpec)
// index its operands: each operand's dimensions in row-major memory order,
// each an affine sum of loops (a convolution's input row is
// oh * stride + kh * dilation). Loop-nest cost-model features
// (Space/LoopNestFeatures.h) derive strides, footprints and reuse from it.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_OPERANDACCESS_H
#define TILETUNE_SUPPORT_OPERANDACCESS_H

#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tiletune {

/// One term of an operand index: `coefficient` times loop `dim`.
struct IndexTerm {
  std::string dim;
  int64_t coefficient = 1;
};

/// How the loops of a problem index one of its operands.
struct OperandAccess {
  /// "A", "B", "C" for matmuls; "input", "filter", "output" for convs.
  std::string name;
  /// Whether the op writes it (the accumulator).
  bool isOutput = false;
  /// The operand's dimensions, outer to inner in memory.
  llvm::SmallVector<llvm::SmallVector<IndexTerm, 2>, 4> indices;

  /// Extent of each operand dimension when every loop `d` spans
  /// `span(d)` consecutive values: sum of coefficient * (span - 1), plus 1.
  llvm::SmallVector<int64_t, 4>
  getExtents(llvm::function_ref<int64_t(llvm::StringRef)> span) const;
};

/// The operands of `problem` in the order inputs, output (matmul: A[m, k],
/// B[k, n], C[m, n]; batch_matmul with a leading b; conv_2d_nhwc_hwcf:
/// input[n, oh*s+kh*d, ow*s+kw*d, c], filter[kh, kw, c, f],
/// output[n, oh, ow, f]; conv_2d_nchw_fchw: input[n, c, ...],
/// filter[f, c, kh, kw], output[n, f, oh, ow]; the grouped convs in their
/// 5-D layouts, with the group g). `asNHWC` gives an NCHW conv
/// the NHWC layouts it is computed in with the CPU option layout = nhwc.
llvm::SmallVector<OperandAccess, 3>
getOperandAccesses(const ProblemSpec &problem, bool asNHWC = false);

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_OPERANDACCESS_H
