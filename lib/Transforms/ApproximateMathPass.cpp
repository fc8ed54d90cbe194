//===- ApproximateMathPass.cpp - The tiletune-approximate-math pass -------===//
//
// Expands f32 transcendental math ops into polynomial arithmetic (upstream's
// approximation patterns), so that the loops and vectors around them stay
// vectorized instead of calling libm's scalar functions once per element.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::tiletune {
#define GEN_PASS_DEF_TILETUNEAPPROXIMATEMATH
#include "tiletune/Transforms/Passes.h.inc"
} // namespace mlir::tiletune

using namespace mlir;
using namespace mlir::tiletune;

namespace {
struct ApproximateMathPass
    : public tiletune::impl::TileTuneApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The functions models use (softmax, GELU, sigmoid, log-softmax), by
    // op name; the patterns only rewrite f32 (and vectors of it).
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return llvm::StringSwitch<bool>(name)
              .Cases({"math.exp", "math.expm1", "math.tanh", "math.erf",
                      "math.log", "math.log1p", "math.log2"},
                     true)
              .Default(false);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
