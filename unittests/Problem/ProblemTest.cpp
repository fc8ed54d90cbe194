//===- ProblemTest.cpp - Tests of problems and standalone kernels ---------===//
//
// Problem extraction, keys and de-duplication, the JSON round trip of a
// problem, and standalone kernels (built from a problem on tensors or
// memrefs, and cloned from an op with all its attributes).
//
//===----------------------------------------------------------------------===//

#include "ModuleFixture.h"

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Problem/ProblemSpace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tiletune;

namespace {

class ProblemTest : public ModuleFixture {};

TEST_F(ProblemTest, ExtractsAndDeduplicatesProblems) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  ASSERT_EQ(set->problems.size(), 2u);
  EXPECT_EQ(set->ops[0].size(), 2u);
  EXPECT_EQ(set->ops[1].size(), 1u);
  EXPECT_EQ(set->problems[0].getKey(), "matmul/f32/m=8,n=12,k=16");
  EXPECT_EQ(set->problems[1].getKey(),
            "conv_2d_nhwc_hwcf/f32/n=2,oh=3,ow=3,f=4,kh=3,kw=3,c=3/s=2x2/"
            "d=1x1");
  EXPECT_TRUE(set->problems[0].onTensors);
  EXPECT_FALSE(set->problems[1].onTensors);
  EXPECT_DOUBLE_EQ(set->problems[0].getFlops(), 2.0 * 8 * 12 * 16);
}

// Ops with a loop of size 0 are skipped with a remark (issue 16: they
// crashed the space and default-config code), the others are collected.
TEST_F(ProblemTest, SkipsOpsWithAnEmptyLoop) {
  OwningOpRef<ModuleOp> mixed = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: memref<0x4xf32>, %b: memref<4x8xf32>, %c: memref<0x8xf32>,
             %d: memref<2x4xf32>, %e: memref<2x8xf32>) {
  linalg.matmul ins(%a, %b : memref<0x4xf32>, memref<4x8xf32>) outs(%c : memref<0x8xf32>)
  linalg.matmul ins(%d, %b : memref<2x4xf32>, memref<4x8xf32>) outs(%e : memref<2x8xf32>)
  return
})mlir",
                                                            &ctx);
  ASSERT_TRUE(mixed);
  std::vector<std::string> remarks;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    EXPECT_EQ(diag.getSeverity(), DiagnosticSeverity::Remark);
    remarks.push_back(diag.str());
    return success();
  });
  FailureOr<ProblemSet> set = collectProblems(*mixed, "cpu");
  ASSERT_TRUE(succeeded(set));
  ASSERT_EQ(set->problems.size(), 1u);
  EXPECT_EQ(set->problems[0].getKey(), "matmul/f32/m=2,n=8,k=4");
  ASSERT_EQ(remarks.size(), 1u);
  EXPECT_NE(remarks[0].find("not tuned: loop 'm' has size 0"),
            std::string::npos)
      << remarks[0];

  // A problem that says 0 bytes per element pads nothing and divides by
  // nothing.
  Problem p = set->problems[0];
  p.elementBytes = 0;
  ProblemSpec spec = toProblemSpec(p);
  EXPECT_EQ(spec.dims.size(), 3u);
}

TEST_F(ProblemTest, ProblemJSONRoundTrips) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  for (const Problem &p : set->problems) {
    llvm::Expected<Problem> back = Problem::fromJSON(p.toJSON());
    ASSERT_TRUE(bool(back)) << toString(back.takeError());
    EXPECT_EQ(back->getKey(), p.getKey());
    EXPECT_EQ(back->operandShapes, p.operandShapes);
    EXPECT_EQ(back->strides, p.strides);
  }
  llvm::Expected<Problem> bad =
      Problem::fromJSON(llvm::json::Object{{"op", "softmax"}});
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

// A conv reading a zero tensor.pad is a problem of its own: the key names
// the pads, the FLOPs count the taps inside the image, the JSON keeps the
// pads and both kernels pad an argument of the unpadded shape.
TEST_F(ProblemTest, PaddedConvIsItsOwnProblem) {
  OwningOpRef<ModuleOp> padded = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%x: tensor<1x7x7x16xf32>, %w: tensor<32x3x3x16xf32>,
             %o: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %r = linalg.conv_2d_nhwc_fhwc ins(%p, %w : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %r : tensor<1x7x7x32xf32>
})mlir",
                                                             &ctx);
  ASSERT_TRUE(padded);
  FailureOr<ProblemSet> set = collectProblems(*padded, "cpu");
  ASSERT_TRUE(succeeded(set));
  ASSERT_EQ(set->problems.size(), 1u);
  const Problem &p = set->problems[0];
  EXPECT_EQ(p.getKey(), "conv_2d_nhwc_fhwc/f32/n=1,oh=7,ow=7,f=32,kh=3,kw=3,"
                        "c=16/s=1x1/d=1x1/pad=0,1,1,0-0,1,1,0");
  // 19 of the 21 (row, tap) pairs of each spatial dim read the image.
  EXPECT_DOUBLE_EQ(p.getFlops(),
                   2.0 * 49 * 32 * 16 * 9 * (19.0 / 21) * (19.0 / 21));
  llvm::Expected<Problem> back = Problem::fromJSON(p.toJSON());
  ASSERT_TRUE(bool(back)) << toString(back.takeError());
  EXPECT_EQ(back->getKey(), p.getKey());
  EXPECT_EQ(back->inputPadLow, p.inputPadLow);
  EXPECT_EQ(back->inputPadHigh, p.inputPadHigh);

  for (bool fromOp : {false, true}) {
    FailureOr<OwningOpRef<ModuleOp>> kernel =
        fromOp ? buildKernelModule(set->ops[0].front(), false)
               : buildKernelModule(&ctx, p);
    ASSERT_TRUE(succeeded(kernel)) << fromOp;
    auto kernelFunc = *(**kernel).getOps<func::FuncOp>().begin();
    EXPECT_EQ(cast<MemRefType>(kernelFunc.getArgumentTypes()[0]).getShape(),
              ArrayRef<int64_t>({1, 7, 7, 16}));
    unsigned pads = 0;
    kernelFunc.walk([&](tensor::PadOp) { ++pads; });
    EXPECT_EQ(pads, 1u) << fromOp;
  }

  // Pads that leave no image are refused.
  llvm::json::Value json = p.toJSON();
  (*json.getAsObject()->getObject("input_pad"))["low"] =
      llvm::json::Array{0, 9, 9, 0};
  llvm::Expected<Problem> bad = Problem::fromJSON(json);
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

// An op with an epilogue whose output starts from a constant (a fill, or
// TOSA's broadcast of a splat bias) has the constant in its problem: the
// tiling fuses the producer, so the kernel holds a clone of it and does not
// read its output argument. Any other init stays an argument.
TEST_F(ProblemTest, ConstantInitIsPartOfTheProblem) {
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(R"mlir(
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @f(%x: tensor<1x8x8x16xf32>, %w: tensor<32x1x1x16xf32>,
             %w2: tensor<32x1x1x32xf32>)
    -> (tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>, tensor<1x8x8x64xf32>) {
  %half = arith.constant dense<0.5> : tensor<32xf32>
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %b = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%half : tensor<32xf32>) outs(%e : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf32>, tensor<32x1x1x16xf32>)
    outs(%b : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x8x8x32xf32>) outs(%e : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x32xf32>
  // Bias values that differ: the init stays the output argument's.
  %vals = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<32xf32>
  %e2 = tensor.empty() : tensor<1x8x8x32xf32>
  %b2 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%vals : tensor<32xf32>) outs(%e2 : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x32xf32>
  %r2 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%relu, %w2 : tensor<1x8x8x32xf32>, tensor<32x1x1x32xf32>)
    outs(%b2 : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %relu2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r2 : tensor<1x8x8x32xf32>) outs(%e2 : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x32xf32>
  // A fill of zero without an epilogue: the op alone, init not recorded.
  %c0 = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<1x8x8x64xf32>
  %f3 = linalg.fill ins(%c0 : f32) outs(%e3 : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %w3 = tensor.empty() : tensor<64x1x1x32xf32>
  %r3 = linalg.conv_2d_nhwc_fhwc ins(%relu2, %w3 : tensor<1x8x8x32xf32>, tensor<64x1x1x32xf32>)
    outs(%f3 : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return %relu, %relu2, %r3 : tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>, tensor<1x8x8x64xf32>
})mlir",
                                                        &ctx);
  ASSERT_TRUE(m);
  FailureOr<ProblemSet> set =
      collectProblems(*m, "cpu", /*allowEmpty=*/false, /*withEpilogue=*/true);
  ASSERT_TRUE(succeeded(set));
  ASSERT_EQ(set->problems.size(), 3u);
  const Problem &p = set->problems[0];
  EXPECT_EQ(p.getKey(), "conv_2d_nhwc_fhwc/f32/n=1,oh=8,ow=8,f=32,kh=1,kw=1,"
                        "c=16/s=1x1/d=1x1/init=0.5/epilogue=maximumf");
  EXPECT_EQ(set->problems[1].getKey(),
            "conv_2d_nhwc_fhwc/f32/n=1,oh=8,ow=8,f=32,kh=1,kw=1,c=32/s=1x1/"
            "d=1x1/epilogue=maximumf");
  EXPECT_EQ(set->problems[2].getKey(),
            "conv_2d_nhwc_fhwc/f32/n=1,oh=8,ow=8,f=64,kh=1,kw=1,c=32/s=1x1/"
            "d=1x1");
  llvm::Expected<Problem> back = Problem::fromJSON(p.toJSON());
  ASSERT_TRUE(bool(back)) << toString(back.takeError());
  EXPECT_EQ(back->getKey(), p.getKey());
  EXPECT_EQ(back->initValue, p.initValue);

  // The kernel sets the init with the broadcast, on an empty tensor: only
  // the image and the filter enter as tensors; %out is only written.
  FailureOr<OwningOpRef<ModuleOp>> kernel =
      buildKernelModule(set->ops[0].front(), /*withEpilogue=*/true);
  ASSERT_TRUE(succeeded(kernel));
  unsigned toTensors = 0, generics = 0;
  (**kernel).walk([&](Operation *op) {
    toTensors += op->getName().getStringRef() == "bufferization.to_tensor";
    generics += isa<linalg::GenericOp>(op);
  });
  EXPECT_EQ(toTensors, 2u);
  EXPECT_EQ(generics, 2u);
  FailureOr<Problem> again =
      extractProblem(getKernelOp(**kernel), "cpu", nullptr, true);
  ASSERT_TRUE(succeeded(again));
  EXPECT_EQ(again->getKey(), p.getKey());

  // An init without an epilogue is refused (extractProblem never makes one).
  llvm::json::Value json = set->problems[2].toJSON();
  (*json.getAsObject())["init"] = 0.0;
  llvm::Expected<Problem> bad = Problem::fromJSON(json);
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST_F(ProblemTest, KernelKeepsTensorOpsOnTensors) {
  FailureOr<ProblemSet> set = collectProblems(*module, "cpu");
  ASSERT_TRUE(succeeded(set));
  for (const Problem &p : set->problems) {
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(&ctx, p);
    ASSERT_TRUE(succeeded(kernel));
    Operation *op = getKernelOp(**kernel);
    ASSERT_NE(op, nullptr);
    FailureOr<Problem> again = extractProblem(op, "cpu");
    ASSERT_TRUE(succeeded(again));
    EXPECT_EQ(again->getKey(), p.getKey());
    EXPECT_EQ(again->onTensors, p.onTensors);
  }
}

/// The kernel of an op is a clone of that op: attributes the problem does
/// not describe travel with it, memref operands of another layout enter
/// through a cast, and the kernel's op has the same problem.
TEST_F(ProblemTest, KernelOfAnOpClonesItWithAllAttributes) {
  const char *text = R"mlir(
func.func @h(%a: tensor<8x16xf32>, %b: tensor<16x12xf32>,
             %c: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %r = linalg.matmul {user.note = "kept", tiletune.config =
          #tiletune.config<cpu, parallel = {m = 8, n = 12},
                           cache = {m = 4, n = 12, k = 16},
                           register = {m = 4, n = 12}>}
         ins(%a, %b : tensor<8x16xf32>, tensor<16x12xf32>)
         outs(%c : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %r : tensor<8x12xf32>
}
func.func @s(%a: memref<8x16xf32, strided<[?, 1], offset: ?>>,
             %b: memref<16x12xf32>, %c: memref<8x12xf32, strided<[32, 1]>>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32, strided<[?, 1], offset: ?>>,
                              memref<16x12xf32>)
                outs(%c : memref<8x12xf32, strided<[32, 1]>>)
  return
}
)mlir";
  OwningOpRef<ModuleOp> input = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(input);
  SmallVector<Operation *> ops;
  input->walk([&](linalg::MatmulOp op) { ops.push_back(op); });
  ASSERT_EQ(ops.size(), 2u);
  for (Operation *op : ops) {
    FailureOr<OwningOpRef<ModuleOp>> kernel = buildKernelModule(op);
    ASSERT_TRUE(succeeded(kernel));
    Operation *clone = getKernelOp(**kernel);
    ASSERT_NE(clone, nullptr);
    // Every attribute but the config is kept.
    EXPECT_FALSE(getConfig(clone));
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != kConfigAttrName)
        EXPECT_EQ(clone->getAttr(attr.getName()), attr.getValue())
            << attr.getName().str();
    FailureOr<Problem> original = extractProblem(op, "cpu");
    FailureOr<Problem> again = extractProblem(clone, "cpu");
    ASSERT_TRUE(succeeded(original) && succeeded(again));
    EXPECT_EQ(again->getKey(), original->getKey());
    EXPECT_EQ(again->onTensors, original->onTensors);
  }
  // The dynamically strided operand is cast from an identity-layout
  // argument; the output's static strides of a larger buffer cannot be, and
  // it works on the contiguous argument.
  FailureOr<OwningOpRef<ModuleOp>> strided = buildKernelModule(ops[1]);
  ASSERT_TRUE(succeeded(strided));
  unsigned casts = 0;
  (*strided)->walk([&](memref::CastOp) { ++casts; });
  EXPECT_EQ(casts, 1u);
  // Not a tunable op: no kernel.
  Operation *ret = &ops[0]->getBlock()->back();
  EXPECT_TRUE(failed(buildKernelModule(ret)));
}

} // namespace
