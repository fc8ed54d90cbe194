//===- KernelHarness.cpp - Inputs, reference and check of a kernel --------===//
//
// Seeded arguments, the C++ reference output and the tolerance check shared
// by the measurers and tiletune-run.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Execution/EpilogueReference.h"

#include <limits>

using namespace mlir;
using namespace mlir::tiletune;

/// Checks that buffers of the types `args` (and `extraOutputs` more copies
/// of argument `outArg`) fit in the memory available, before any is
/// allocated: operands larger than memory are an error, not an allocation
/// that the kernel's first touch turns into an out-of-memory kill.
static llvm::Error checkArgumentsFit(llvm::ArrayRef<MemRefInfo> args,
                                     unsigned outArg = 0,
                                     unsigned extraOutputs = 0) {
  uint64_t total = 0;
  std::string types;
  for (auto [i, arg] : llvm::enumerate(args)) {
    std::optional<uint64_t> bytes =
        getBufferByteSize(arg.elementType, arg.shape);
    unsigned copies = 1 + (i == outArg ? extraOutputs : 0);
    if (!bytes || *bytes > std::numeric_limits<uint64_t>::max() / 2 / copies ||
        total > std::numeric_limits<uint64_t>::max() / 2)
      return llvm::createStringError("the size of the kernel's argument #" +
                                     llvm::Twine(i) + " (" + arg.str() +
                                     ") overflows");
    total += *bytes * copies;
    types += (types.empty() ? "" : ", ") + arg.str();
  }
  std::string what = "the kernel's operands (" + types + ")";
  if (extraOutputs)
    what += " and the reference output";
  return checkMemoryAvailable(total, what);
}

llvm::Expected<KernelHarness>
KernelHarness::create(const ReferenceProblem &problem,
                      llvm::ArrayRef<MemRefInfo> args, uint64_t seed,
                      bool computeExpected) {
  unsigned numArgs = args.size();
  if (problem.lhsArg >= numArgs || problem.rhsArg >= numArgs ||
      problem.outArg >= numArgs)
    return llvm::createStringError(
        "the kernel's arguments do not match its op's operands");
  if (llvm::Error err =
          checkArgumentsFit(args, problem.outArg, computeExpected ? 1 : 0))
    return std::move(err);
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
  if (llvm::Error err = checkArgumentsFit(args))
    return std::move(err);
  llvm::SmallVector<Buffer> buffers;
  for (auto [i, arg] : llvm::enumerate(args)) {
    llvm::Expected<Buffer> buffer = arg.allocate(getStaggeredPageOffset(i));
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
  if (llvm::Error err = problem.compute(arguments, out))
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
