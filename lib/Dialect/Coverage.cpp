//===- Coverage.cpp - Which matmul/conv FLOPs TileTune tiles --------------===//
//
// Splits a module's contractions and 2-D convolutions into those TileTune
// tiles and those it leaves to the untiled lowering (with the reason).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Coverage.h"
#include "tiletune/Dialect/TileConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tiletune;

int64_t MatmulConvCoverage::untouchedOps() const {
  int64_t count = 0;
  for (const UntouchedOps &group : untouched)
    count += group.count;
  return count;
}

double MatmulConvCoverage::untouchedFlops() const {
  double flops = 0;
  for (const UntouchedOps &group : untouched)
    flops += group.flops;
  return flops;
}

void MatmulConvCoverage::print(llvm::raw_ostream &os,
                               llvm::StringRef prefix) const {
  double total = totalFlops();
  auto share = [&](double flops) {
    return total > 0 ? 100.0 * flops / total : 0.0;
  };
  os << prefix
     << llvm::formatv("matmul/conv coverage: {0} of {1} op(s) tiled by "
                      "TileTune, {2:F3} of {3:F3} GFLOP ({4:F1}%); {5} op(s), "
                      "{6:F3} GFLOP ({7:F1}%) left to the untiled lowering\n",
                      tiledOps, tiledOps + untouchedOps(), tiledFlops * 1e-9,
                      total * 1e-9, share(tiledFlops), untouchedOps(),
                      untouchedFlops() * 1e-9, share(untouchedFlops()));
  for (const UntouchedOps &group : untouched) {
    os << prefix
       << llvm::formatv("  untouched: {0} x {1}, {2:F3} GFLOP ({3:F1}%){4}: "
                        "{5}\n",
                        group.count, group.opName, group.flops * 1e-9,
                        share(group.flops),
                        group.countable ? "" : " (some sizes dynamic)",
                        group.reason);
  }
}

/// True when the op's body multiplies (a convolution, not a pooling).
static bool bodyMultiplies(linalg::LinalgOp op) {
  for (Operation &inner : op.getBlock()->without_terminator())
    if (isa<arith::MulFOp, arith::MulIOp>(inner))
      return true;
  return false;
}

MatmulConvCoverage mlir::tiletune::analyzeMatmulConvCoverage(Operation *root) {
  MatmulConvCoverage coverage;
  root->walk([&](linalg::LinalgOp op) {
    // Static loop sizes: the FLOPs and the reduction length.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    bool isStatic = llvm::none_of(ranges, ShapedType::isDynamic);
    auto noteReduction = [&] {
      if (!isStatic)
        return;
      int64_t length = 1;
      for (auto [size, kind] : llvm::zip(ranges, op.getIteratorTypesArray()))
        if (kind == utils::IteratorType::reduction)
          length *= size;
      coverage.maxReductionLength =
          std::max(coverage.maxReductionLength, length);
    };

    std::string reason;
    if (FailureOr<TunableOp> tunable = matchTunableOp(op, &reason);
        succeeded(tunable)) {
      ++coverage.tiledOps;
      coverage.tiledFlops += tunable->flops();
      noteReduction();
      return;
    }
    if (getEmptyOpReason(op))
      return; // Computes nothing.
    bool contraction = linalg::isaContractionOpInterface(op);
    bool convolution =
        !contraction && linalg::isaConvolutionOpInterface(op) &&
        bodyMultiplies(op);
    // Any reduction counts towards the verification tolerance:
    // tiletune-lower-cpu reorders the sums of those it leaves untiled too
    // (tiletune-reassociate-reductions).
    noteReduction();
    if (!contraction && !convolution)
      return;
    double flops = 2;
    for (int64_t size : ranges)
      flops *= isStatic ? double(size) : 0.0;
    std::string name = op->getName().getStringRef().str();
    if (reason.empty())
      reason = "not recognised as a tunable op";
    auto *group = llvm::find_if(coverage.untouched, [&](const UntouchedOps &g) {
      return g.opName == name && g.reason == reason;
    });
    if (group == coverage.untouched.end()) {
      coverage.untouched.push_back(UntouchedOps{name, reason, 0, 0, true});
      group = coverage.untouched.end() - 1;
    }
    ++group->count;
    group->flops += flops;
    group->countable &= isStatic;
  });
  return coverage;
}
