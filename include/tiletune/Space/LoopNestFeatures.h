//===- LoopNestFeatures.h - Loop-nest ("itervar") config features -*- C++ -*-===//
//
// The features AutoTVM's XGBoost cost model learns from by default
// (`feature_type="itervar"`): one row of numbers per loop of the loop nest a
// config generates, outer to inner — its extent, the products of the
// extents above and below it, its annotation (parallel, GPU thread,
// vectorized, unrolled, serial) and, per operand buffer, the stride of the
// loop in bytes, the bytes the loop's sub-nest touches and their reuse
// (accesses / distinct elements) — flattened with log2(1 + x).
//
// Here the nest is derived from the space's op (Space::getProblem(): loop
// roles, which loops index which operand, element size) and the config's
// factors and options, following the lowering the CPU and CUDA tilers
// perform (docs/PassReference.md, docs/GPU.md); no IR is built, so this
// stays MLIR-free. The nest of one op has the same loops for every config
// (unit loops included), so every config has the same number of features.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SPACE_LOOPNESTFEATURES_H
#define TILETUNE_SPACE_LOOPNESTFEATURES_H

#include "tiletune/Space/Space.h"
#include "tiletune/Support/OperandAccess.h"
#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tiletune {

/// How a loop of the generated nest runs.
enum class LoopAnnotation {
  Serial,     ///< plain sequential loop
  Parallel,   ///< CPU threads (scf.forall) or CUDA thread blocks
  Thread,     ///< CUDA threads and virtual threads
  Vectorized, ///< the vector dimension of the register tile
  Unrolled,   ///< fully unrolled (register tile, unroll step)
};

/// "serial", "parallel", "thread", "vectorized", "unrolled".
llvm::StringRef stringifyLoopAnnotation(LoopAnnotation annotation);

/// One loop of the nest a config generates.
struct NestLoop {
  /// The problem dim the loop iterates (m, n, k, oh, ...).
  std::string dim;
  /// The tiling level it belongs to (target level names, e.g. "parallel",
  /// "cache", "register", or "tile" for the innermost tile loops).
  std::string level;
  /// Trip count.
  int64_t extent = 1;
  /// Elements of `dim` one iteration advances.
  int64_t step = 1;
  LoopAnnotation annotation = LoopAnnotation::Serial;
};

/// The loop nest `config` generates for `problem` (outer to inner).
/// CPU: the parallel level (batch and parallel dims, threads), the cache
/// level (batch dims first, then the loops of `order`), the register level
/// (parallel dims by their register tile, reductions; the unroll dim steps
/// by `unroll`), then the register tile (the vector dim vectorized, the
/// others unrolled, when `vectorize`) and the `unroll` step (unrolled).
/// CUDA: one loop per dim and level in the target's level order (block:
/// parallel, vthread/thread: thread), then the per-thread tiles (unrolled).
/// Errors when the space lacks a dim's factorization.
llvm::Expected<llvm::SmallVector<NestLoop>>
buildLoopNest(const ProblemSpec &problem, const Space &space,
              const Config &config);

/// The loop-nest features of a space's configs. Built once per space (its
/// op and parameters); encode() is then a pure function of the config.
class LoopNestFeaturizer {
public:
  /// Errors when the space carries no op (Space::getProblem() is null, e.g.
  /// the abstract G-BFS paper space) or does not match it.
  static llvm::Expected<LoopNestFeaturizer> create(const Space &space);

  /// Features per config (constant for the space).
  unsigned getNumFeatures() const { return numFeatures; }
  /// Appends the features of `config` (getNumFeatures() of them).
  void encode(const Config &config, llvm::SmallVectorImpl<double> &out) const;
  /// One name per feature, e.g. "L3.cache.k.B.bytes".
  llvm::SmallVector<std::string> getFeatureNames() const;

  /// Per loop: extent, top-down and bottom-up products, 5 annotation flags.
  static constexpr unsigned kLoopFeatures = 8;
  /// Per loop and operand: stride (bytes), bytes touched, reuse.
  static constexpr unsigned kBufferFeatures = 3;
  /// Per config: threads, register-tile elements, vector width, unroll step
  /// (then the knob encoding of the option parameters).
  static constexpr unsigned kGlobalFeatures = 4;

private:
  LoopNestFeaturizer(const Space &space, ProblemSpec problem,
                     llvm::SmallVector<NestLoop> shape);

  Space space;
  ProblemSpec problem;
  /// The nest of the default config (names and levels of the loops).
  llvm::SmallVector<NestLoop> shape;
  unsigned numOperands = 0;
  /// Parameters that are not factorizations (options), encoded as knobs.
  llvm::SmallVector<unsigned> optionParams;
  unsigned numFeatures = 0;
};

} // namespace mlir::tiletune

#endif // TILETUNE_SPACE_LOOPNESTFEATURES_H
