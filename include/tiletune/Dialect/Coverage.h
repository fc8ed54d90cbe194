//===- Coverage.h - Which matmul/conv FLOPs TileTune tiles ------*- C++ -*-===//
//
// The matmul/conv coverage of a module: every op that is a contraction or a
// 2-D convolution (by upstream's inference, whatever its name), split into
// the ops TileTune tiles (matchTunableOp accepts them) and the ones it
// leaves to the untiled lowering, with the reason and the FLOPs of each, so
// that a model's untiled share is visible.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_COVERAGE_H
#define TILETUNE_DIALECT_COVERAGE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::tiletune {

/// Ops of one name left untouched for one reason.
struct UntouchedOps {
  std::string opName;
  std::string reason;
  int64_t count = 0;
  /// FLOPs (2 per multiply-add) of the ops whose loop sizes are static.
  double flops = 0;
  /// False when some op has a dynamic loop size (its FLOPs are not counted).
  bool countable = true;
};

/// Matmul/conv coverage of a module or function.
struct MatmulConvCoverage {
  /// Ops TileTune tiles (tunable ops) and their FLOPs.
  int64_t tiledOps = 0;
  double tiledFlops = 0;
  /// Contractions and convolutions left untouched, grouped by op name and
  /// reason, in walk order of their first op.
  llvm::SmallVector<UntouchedOps> untouched;
  /// The longest reduction (product of the reduction loop sizes) of any
  /// linalg op with static sizes (matmuls and convs, tiled or not, and the
  /// reductions tiletune-lower-cpu reorders: softmax sums, norms); 1 for
  /// ops without reductions, 0 when there is no linalg op.
  int64_t maxReductionLength = 0;

  int64_t untouchedOps() const;
  double untouchedFlops() const;
  double totalFlops() const { return tiledFlops + untouchedFlops(); }
  /// Prints "matmul/conv coverage: ..." and one line per untouched group,
  /// each line starting with `prefix`.
  void print(llvm::raw_ostream &os, llvm::StringRef prefix = "") const;
};

/// Analyses every linalg op under `root`: tunable ops count as tiled (the
/// tiling passes tile every op matchTunableOp accepts; ops that compute
/// nothing, see getEmptyOpReason, are left out), ops that upstream infers
/// to be a contraction (linalg::isaContractionOpInterface) or a convolution
/// with a multiplication in its body (linalg::isaConvolutionOpInterface;
/// pooling is not counted) count as untouched with matchTunableOp's reason.
MatmulConvCoverage analyzeMatmulConvCoverage(Operation *root);

} // namespace mlir::tiletune

#endif // TILETUNE_DIALECT_COVERAGE_H
