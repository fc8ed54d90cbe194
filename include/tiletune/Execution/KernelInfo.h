//===- KernelInfo.h - Kernel signatures and reference problems --*- C++ -*-===//
//
// What the runner needs to know about a kernel function before and after
// lowering: the shapes and element types of its memref (or tensor)
// arguments and results, recorded on the function as an attribute so that
// it survives lowering to the LLVM dialect; and, for a function whose body
// is a single supported linalg op, which C++ reference computes the same
// thing and how many FLOPs one call performs.
//
// Kernel convention: destination-passing style on memrefs,
//   func.func @kernel(%A: memref<MxKxf32>, %B: memref<KxNxf32>,
//                     %C: memref<MxNxf32>)
// with no results. Tensor functions bufferized with function-boundary
// bufferization are accepted too: their results come back as memrefs that
// the runner copies out (and frees when the kernel allocated them), or are
// turned into trailing arguments by `buffer-results-to-out-params` (see
// docs/Execution.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_KERNELINFO_H
#define TILETUNE_EXECUTION_KERNELINFO_H

#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/Reference.h"
#include "tiletune/Support/ProblemSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir::tiletune {

class EpilogueReference;

/// Name of the function attribute holding the pre-lowering signature, a
/// TypeAttr of a FunctionType over memref/tensor types. Its prefix is not
/// the tiletune dialect's, whose verifier admits only tiletune.config.
/// Function-to-LLVM conversion keeps it on the llvm.func.
constexpr llvm::StringLiteral kSignatureAttrName = "tiletune_exec.signature";

/// Name of the attribute that makes func-to-llvm emit `_mlir_ciface_<name>`.
constexpr llvm::StringLiteral kEmitCInterfaceAttrName =
    "llvm.emit_c_interface";

/// Shape and element type of one memref argument or result.
struct MemRefInfo {
  ElementType elementType = ElementType::F32;
  llvm::SmallVector<int64_t> shape;

  /// Allocates a zeroed buffer of this type, its data `pageOffset` bytes
  /// into a page (Buffer::create).
  llvm::Expected<Buffer> allocate(size_t pageOffset = 0) const;
  /// True when `buffer` has exactly this element type and shape.
  bool matches(const Buffer &buffer) const;
  /// "memref<64x32xf32>".
  std::string str() const;
};

/// The memref view of a kernel function: its arguments and its results.
struct KernelSignature {
  std::string name;
  llvm::SmallVector<MemRefInfo> args;
  llvm::SmallVector<MemRefInfo> results;

  /// "@name(memref<..>, ...) -> (memref<..>)".
  std::string str() const;
  /// Allocates zeroed buffers for every argument, argument i at
  /// getStaggeredPageOffset(i).
  llvm::Expected<llvm::SmallVector<Buffer>> allocateArguments() const;
};

/// Reads the signature of a func.func whose arguments and results are
/// statically shaped memrefs or tensors of f32/f64 with identity (or fully
/// strided, row-major compatible) layouts. Fails with a message naming the
/// first unsupported argument otherwise.
llvm::Expected<KernelSignature> getKernelSignature(func::FuncOp func);

/// Finds the signature of `name` in a module before lowering (a func.func)
/// or after (an llvm.func carrying kSignatureAttrName).
llvm::Expected<KernelSignature> getKernelSignature(ModuleOp module,
                                                   llvm::StringRef name);

/// Prepares the functions of `module` for execution before lowering: every
/// func.func with a body gets `llvm.emit_c_interface` and the
/// kSignatureAttrName attribute. Functions whose signature is unsupported
/// are left alone unless `strict` is set, in which case the first one is an
/// error. Call it before running a lowering pipeline.
llvm::Error prepareForExecution(ModuleOp module, bool strict = false);

/// A kernel whose body is one supported linalg op applied to the function's
/// arguments, with the C++ reference that computes the same thing.
struct ReferenceProblem {
  OpKind kind = OpKind::Matmul;
  /// Function-argument indices of the first input (A / image), the second
  /// input (B / filter) and the output's initial value.
  unsigned lhsArg = 0, rhsArg = 1, outArg = 2;
  /// True when the op works on tensors and its result is the function's
  /// (only) result; false for destination-passing style on memrefs.
  bool outputIsResult = false;
  Conv2DParams conv;
  /// A conv whose input is a zero `tensor.pad` of argument lhsArg (the
  /// form frontends emit): the pads before and after each input dim; empty
  /// when the input is the argument itself. The reference pads first.
  llvm::SmallVector<int64_t, 4> lhsPadLow, lhsPadHigh;
  /// The constant the op's output starts from when its init is set by a
  /// fill or a broadcast of a splat constant (getSplatInitValue) in the
  /// kernel; the result is then materialized into argument outArg, whose
  /// initial contents are not read. nullopt: the init is argument outArg.
  std::optional<double> initValue;
  /// Length of each dot product (K, or KH*KW*C for convolutions).
  int64_t reductionLength = 0;
  /// FLOPs of one call (countFlops of the loop ranges).
  double flops = 0.0;
  /// The elementwise chain after the op (a kernel built with its epilogue),
  /// applied to the op's result by the reference; null when there is none.
  std::shared_ptr<const EpilogueReference> epilogue;

  /// The op's name, e.g. "linalg.matmul".
  llvm::StringRef getOpName() const;
  /// Computes the reference: `out` must hold the initial output value (as
  /// passed to the kernel) and receives the op's result.
  llvm::Error compute(const Buffer &lhs, const Buffer &rhs, Buffer &out) const;
  /// The reference of the whole kernel from its arguments: the op, then its
  /// epilogue (if any) on the op's result.
  llvm::Error compute(llvm::ArrayRef<Buffer> args, Buffer &out) const;
  /// Default verification tolerance for this problem's element type.
  Tolerance getTolerance(ElementType type) const {
    return Tolerance::forReduction(type, reductionLength);
  }
};

/// Recognises a function whose body is exactly one tunable op (a matmul or
/// batch_matmul form, a 2-D convolution TileTune tiles, or a linalg.generic
/// that is one of them) operating directly on the function's arguments,
/// optionally followed by its elementwise epilogue chain
/// (findEpilogueChain; its other operands are arguments, constants or
/// tensor.empty), plus constants and the terminator. A conv's input may be
/// a zero `tensor.pad` of an argument (static pads); the op's init may be
/// set to a constant by its producer (a fill or a broadcast of a splat,
/// getSplatInitValue) when the result is materialized into an argument.
/// The error says why it is not one.
llvm::Expected<ReferenceProblem> analyzeSingleOpKernel(func::FuncOp func);

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_KERNELINFO_H
