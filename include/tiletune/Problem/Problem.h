//===- Problem.h - Tuning problems extracted from a module ------*- C++ -*-===//
//
// A tuning problem is everything that determines the code a tunable op
// compiles to and its speed: the op kind, its named loop dimensions and
// operand shapes, the element type, convolution strides and dilations, and
// the target. Problems are plain data (no MLIR context), have a stable key
// (the tuning database's problem key), and are de-duplicated per module. A
// problem can build its standalone kernel: a function on memrefs in
// destination-passing style whose body runs a copy of the op.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_PROBLEM_PROBLEM_H
#define TILETUNE_PROBLEM_PROBLEM_H

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Support/ProblemSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tiletune {

/// One tuning problem (context free): the MLIR-free ProblemSpec of the op
/// (op kind, target, loops in iterator order with their real sizes,
/// strides, dilations, element bytes; the flop count) plus what its
/// standalone kernel and its key need.
struct Problem : ProblemSpec {
  /// "f32" or "f64".
  std::string elementType = "f32";
  /// Shapes of the operands: lhs (A / image), rhs (B / filter), output.
  llvm::SmallVector<llvm::SmallVector<int64_t>, 3> operandShapes;
  /// Whether the op works on tensors (the kernel keeps it on tensors).
  bool onTensors = true;
  /// The op's elementwise epilogue (describeEpilogueChain, e.g.
  /// "addf(1:d1)+maximumf"), when the problem was extracted with its
  /// epilogue (CPU tuning with `fuse-epilogues`): the kernel then computes
  /// the op and the chain, which the CPU tiling fuses. Empty: the op alone.
  std::string epilogue;
  /// A conv whose input is a zero `tensor.pad` (matchZeroPad; CPU problems
  /// on tensors): the pads before and after each input dim. Its kernel
  /// holds the pad on an argument of the unpadded shape, so that the code
  /// measured is the code a model runs (tiletune-tile-cpu's
  /// skip-padding-taps reads the pad). Empty: the input is an argument.
  /// operandShapes[0] stays the padded shape (the op's operand).
  llvm::SmallVector<int64_t, 4> inputPadLow, inputPadHigh;
  /// The constant the op's output starts from when a problem with an
  /// epilogue has its init set by a fill or a broadcast of a splat constant
  /// (getSplatInitValue; frontends start from zero): the CPU tiling fuses
  /// that producer into the tiles, so the kernel holds it too and its
  /// output argument is written, not read. nullopt: the kernel reads the
  /// init from its output argument.
  std::optional<double> initValue;

  /// The stable key, e.g. "matmul/f32/m=64,n=256,k=512" or
  /// "conv_2d_nhwc_hwcf/f32/n=1,oh=56,...,c=64/s=1x1/d=1x1", followed by
  /// "/pad=<low>-<high>" (e.g. "/pad=0,1,1,0-0,1,1,0") for a conv of a
  /// padded input, then "/init=<value>" (e.g. "/init=0") for an output that
  /// starts from a constant, then "/epilogue=<description>" for a problem
  /// with an epilogue. The target is
  /// not part of it (the database keys results by target separately).
  std::string getKey() const;
  /// FLOPs of one execution: ProblemSpec's, except for a conv of a padded
  /// input, where the taps that read the padding are not counted (as
  /// libraries count; the kernel skips them).
  double getFlops() const;
  /// Size of the dimension called `name`; 0 when there is none.
  int64_t getDimSize(llvm::StringRef name) const;
  /// "matmul 64x256x512 f32"-style short description.
  std::string describe() const;
  /// JSON description (kind, element type, dims, shapes, strides, ...).
  llvm::json::Value toJSON() const;
  /// Parses toJSON()'s object; the error names the bad field.
  static llvm::Expected<Problem> fromJSON(const llvm::json::Value &value);
};

/// Builds the problem of a tunable op for `target`. On failure `reason`
/// says why (not tunable, dynamic shape, unsupported element type).
/// With `withEpilogue`, the op's elementwise epilogue chain
/// (findEpilogueChain), if it has one, becomes part of the problem.
FailureOr<Problem> extractProblem(Operation *op, llvm::StringRef target,
                                  std::string *reason = nullptr,
                                  bool withEpilogue = false);

/// The unique problems of a module and the ops that share each of them.
struct ProblemSet {
  /// Unique problems in first-occurrence order.
  std::vector<Problem> problems;
  /// For each problem, the ops (in walk order) that have it.
  std::vector<llvm::SmallVector<Operation *>> ops;
  /// Matmul- and conv-like ops (isMatmulOrConvLike) that cannot be tuned,
  /// in walk order, with matchTunableOp's reason.
  std::vector<std::pair<Operation *, std::string>> skipped;

  /// Index of the problem with `key`, or -1.
  int find(llvm::StringRef key) const;
};

/// Walks `module` and collects every tunable op as a problem, identical
/// problems once. Matmul- and conv-like ops that cannot be tuned (dynamic
/// shapes, mixed element types, forms TileTune does not tile such as grouped
/// convolutions) are left untouched with a remark on the op naming the
/// reason, and listed in `skipped`; ops with a loop of size 0 compute
/// nothing and are skipped with a remark (getEmptyOpReason); an unknown
/// target is an error; `allowEmpty` = false makes a module without a
/// tunable op an error too.
/// `withEpilogue` extracts each op with its epilogue (extractProblem).
FailureOr<ProblemSet> collectProblems(ModuleOp module, llvm::StringRef target,
                                      bool allowEmpty = false,
                                      bool withEpilogue = false);

/// Name of the kernel function of buildKernelModule.
constexpr llvm::StringLiteral kKernelFunctionName = "tiletune_kernel";

/// Builds the standalone kernel of `op`: a module with one public function
/// `@tiletune_kernel(%lhs: memref, %rhs: memref, %out: memref)` whose body
/// runs a clone of `op` (every attribute kept, any config removed), so that
/// a measurement measures the op a user's compile tiles. Ops on tensors stay
/// on tensors: the arguments enter through `bufferization.to_tensor` and the
/// result leaves through `bufferization.materialize_in_destination` into
/// `%out`, so the kernel takes the same tensor path a user's compile takes.
/// Memref operands of another layout enter through `memref.cast` where an
/// identity-layout buffer casts to it (else the op works on the contiguous
/// buffer). With `withEpilogue`, the op's epilogue chain is cloned after it
/// (constants and tensor.empty with it; every other operand it reads
/// becomes a further argument after %out) and the chain's result is what
/// `%out` receives; an init set to a constant (Problem::initValue) is set
/// by a clone of its producer on a `tensor.empty`, and `%out` is then only
/// written. Fails on an op that is not tunable.
FailureOr<OwningOpRef<ModuleOp>> buildKernelModule(Operation *op,
                                                   bool withEpilogue = false);

/// Builds the kernel from a problem description alone (creates the op with
/// default indexing maps); for problems that do not come from an op. Fails
/// for a problem with an epilogue (its ops are not in the description).
FailureOr<OwningOpRef<ModuleOp>> buildKernelModule(MLIRContext *ctx,
                                                   const Problem &problem);

/// A kernel module as text, the form in which it crosses into a worker
/// process or another MLIR context.
std::string printKernelModule(ModuleOp kernel);

/// The single tunable op of a kernel module, or null.
Operation *getKernelOp(ModuleOp kernel);

} // namespace mlir::tiletune

#endif // TILETUNE_PROBLEM_PROBLEM_H
