//===- EpilogueReference.h - Reference of a fused epilogue ------*- C++ -*-===//
//
// The reference of a kernel whose tunable op is followed by its elementwise
// epilogue chain (Dialect/Epilogue.h): after the C++ reference kernel has
// computed the op's result, this evaluator applies the chain to it element
// by element, interpreting the scalar ops of each linalg body
// (isEpilogueBodyOp) in double precision. It is built once from the kernel's
// IR and then runs without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_EPILOGUEREFERENCE_H
#define TILETUNE_EXECUTION_EPILOGUEREFERENCE_H

#include "tiletune/Execution/Buffer.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace mlir::tiletune {

class EpilogueReference {
public:
  /// The evaluator of `chain`, the epilogue of `op`. Each operand of a
  /// chain op is the chained value, a constant (splat or dense), a
  /// tensor.empty, or a value `argIndex` maps to a kernel argument; the
  /// error names any other operand or body op.
  static llvm::Expected<EpilogueReference>
  build(Operation *op, llvm::ArrayRef<Operation *> chain,
        llvm::function_ref<std::optional<unsigned>(Value)> argIndex);

  /// Applies the chain in place to `value` (the op's result), reading the
  /// kernel arguments the chain uses from `args` (indexed by argument).
  llvm::Error apply(Buffer &value, llvm::ArrayRef<Buffer> args) const;

  /// The kernel arguments the chain reads.
  llvm::ArrayRef<unsigned> getArguments() const { return arguments; }
  /// Number of chain ops.
  size_t size() const { return steps.size(); }

  /// One operand of a chain op (in block-argument order).
  struct Operand {
    enum class Kind { Chained, Argument, Constant, Undefined };
    Kind kind = Kind::Chained;
    unsigned argument = 0;
    /// For each dim of the operand, the loop it is indexed by (kZero: the
    /// constant 0 of a broadcast size-1 dim).
    static constexpr unsigned kZero = ~0u;
    llvm::SmallVector<unsigned> loops;
    /// Constant values, row-major over the operand's shape (one: a splat).
    std::vector<double> values;
    llvm::SmallVector<int64_t> shape;
  };
  /// One scalar op of a body; operands index the step's slots (block
  /// arguments first, then the results of earlier instructions).
  struct Instruction {
    enum class Code {
      Constant, Add, Sub, Mul, Div, Neg, Maximum, Minimum, MaxNum, MinNum,
      CmpF, Select, Tanh, Exp, Abs, Sqrt, Fma
    };
    Code code = Code::Constant;
    llvm::SmallVector<unsigned, 3> operands;
    double constant = 0;
    /// arith::CmpFPredicate as an integer.
    int predicate = 0;
  };
  struct Step {
    llvm::SmallVector<Operand> operands;
    llvm::SmallVector<Instruction> body;
    /// Slot yielded.
    unsigned yield = 0;
  };

private:
  llvm::SmallVector<Step> steps;
  llvm::SmallVector<unsigned> arguments;
};

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_EPILOGUEREFERENCE_H
