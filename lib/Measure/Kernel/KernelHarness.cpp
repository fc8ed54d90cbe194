//===- KernelHarness.cpp - Inputs, reference and check of a kernel --------===//
//
// Seeded arguments, the C++ reference output and the tolerance check shared
// by the measurers and tiletune-run.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/KernelHarness.h"

using namespace mlir;
using namespace mlir::tiletune;

llvm::Expected<KernelHarness>
KernelHarness::create(const ReferenceProblem &problem,
                      llvm::ArrayRef<MemRefInfo> args, uint64_t seed,
                      bool computeExpected) {
  unsigned numArgs = args.size();
  if (problem.lhsArg >= numArgs || problem.rhsArg >= numArgs ||
      problem.outArg >= numArgs)
    return llvm::createStringError(
        "the kernel's arguments do not match its op's operands");
  llvm::Expected<llvm::SmallVector<Buffer>> arguments =
      seedArguments(args, seed);
  if (!arguments)
    return arguments.takeError();
  KernelHarness harness;
  harness.problem = problem;
  harness.seed = seed;
  harness.arguments = std::move(*arguments);
  if (computeExpected)
    if (llvm::Error err = harness.computeExpected())
      return std::move(err);
  return std::move(harness);
}

llvm::Expected<llvm::SmallVector<Buffer>>
KernelHarness::seedArguments(llvm::ArrayRef<MemRefInfo> args, uint64_t seed) {
  llvm::SmallVector<Buffer> buffers;
  for (auto [i, arg] : llvm::enumerate(args)) {
    llvm::Expected<Buffer> buffer = arg.allocate();
    if (!buffer)
      return buffer.takeError();
    buffer->fillRandom(seed + i);
    buffers.push_back(std::move(*buffer));
  }
  return std::move(buffers);
}

llvm::Expected<KernelHarness> KernelHarness::create(func::FuncOp func,
                                                    uint64_t seed,
                                                    bool computeExpected) {
  llvm::Expected<ReferenceProblem> problem = analyzeSingleOpKernel(func);
  if (!problem)
    return problem.takeError();
  llvm::Expected<KernelSignature> signature = getKernelSignature(func);
  if (!signature)
    return signature.takeError();
  return create(*problem, signature->args, seed, computeExpected);
}

Buffer KernelHarness::cloneInitialOutput() const {
  return arguments[problem.outArg].clone();
}

llvm::SmallVector<Buffer *> KernelHarness::getRunArguments(Buffer &out) {
  llvm::SmallVector<Buffer *> pointers;
  for (auto [i, buffer] : llvm::enumerate(arguments))
    pointers.push_back(i == problem.outArg ? &out : &buffer);
  return pointers;
}

llvm::Error KernelHarness::computeExpected() {
  if (expected)
    return llvm::Error::success();
  Buffer out = cloneInitialOutput();
  if (llvm::Error err = problem.compute(arguments[problem.lhsArg],
                                        arguments[problem.rhsArg], out))
    return err;
  expected = std::move(out);
  return llvm::Error::success();
}

llvm::Expected<ComparisonResult>
KernelHarness::verify(const Buffer &actual,
                      std::optional<double> toleranceFactor) {
  if (llvm::Error err = computeExpected())
    return std::move(err);
  ElementType type = expected->getElementType();
  Tolerance tolerance =
      toleranceFactor ? Tolerance::forReduction(type, problem.reductionLength,
                                                *toleranceFactor)
                      : problem.getTolerance(type);
  return compareBuffers(actual, *expected, tolerance);
}
