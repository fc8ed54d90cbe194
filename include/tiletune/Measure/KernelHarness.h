//===- KernelHarness.h - Inputs, reference and check of a kernel -*- C++ -*-===//
//
// What every measurement of a single-op kernel shares, whatever runs it
// (the CPU measurer's worker, the GPU measurer, tiletune-run): the kernel's
// arguments filled with seeded random values, the output the C++ reference
// computes from them, and the comparison of a variant's output with it at
// the tolerance of the op's reduction length. Argument i is seeded
// `seed + i`, the one seeding scheme of TileTune, so the same kernel and
// seed give the same inputs in every tool.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_MEASURE_KERNELHARNESS_H
#define TILETUNE_MEASURE_KERNELHARNESS_H

#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/KernelInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace mlir::tiletune {

class KernelHarness {
public:
  /// A harness for a kernel computing `problem` whose arguments have the
  /// types `args` (the function's, or those of its lowered form, which may
  /// add trailing out-parameters). With `computeExpected`, the reference
  /// output is computed now (the expensive part for large problems).
  static llvm::Expected<KernelHarness>
  create(const ReferenceProblem &problem, llvm::ArrayRef<MemRefInfo> args,
         uint64_t seed, bool computeExpected = true);
  /// The harness of a kernel function before lowering (its single op is
  /// recognised by analyzeSingleOpKernel; the error says why not).
  static llvm::Expected<KernelHarness> create(func::FuncOp func, uint64_t seed,
                                              bool computeExpected = true);

  /// Buffers of the types `args`, argument i filled from `seed + i` (for
  /// kernels whose op is not known, which have no reference).
  static llvm::Expected<llvm::SmallVector<Buffer>>
  seedArguments(llvm::ArrayRef<MemRefInfo> args, uint64_t seed);

  const ReferenceProblem &getProblem() const { return problem; }
  uint64_t getSeed() const { return seed; }
  /// The seeded arguments; the output argument holds its initial value.
  llvm::MutableArrayRef<Buffer> getArguments() { return arguments; }
  llvm::ArrayRef<Buffer> getArguments() const { return arguments; }
  /// A fresh copy of the output argument's initial value, for one run.
  Buffer cloneInitialOutput() const;
  /// Pointers to the arguments for a run that writes into `out` (a buffer of
  /// the output's type) instead of the output argument.
  llvm::SmallVector<Buffer *> getRunArguments(Buffer &out);
  /// Whether the reference output has been computed.
  bool hasExpected() const { return expected.has_value(); }
  /// Computes the reference output now if it has not been.
  llvm::Error computeExpected();
  /// Compares `actual` with the reference output (computed on first use) at
  /// the op's tolerance (ReferenceProblem::getTolerance), or with
  /// `toleranceFactor` in place of Tolerance::forReduction's default factor.
  llvm::Expected<ComparisonResult>
  verify(const Buffer &actual,
         std::optional<double> toleranceFactor = std::nullopt);

private:
  KernelHarness() = default;

  ReferenceProblem problem;
  uint64_t seed = 0;
  llvm::SmallVector<Buffer> arguments;
  std::optional<Buffer> expected;
};

} // namespace mlir::tiletune

#endif // TILETUNE_MEASURE_KERNELHARNESS_H
