//===- TransformScript.h - CPU configs as transform-dialect IR --*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Writes the `#tiletune.config<cpu, ...>` of each op under a root as a
// transform-dialect script that upstream `--transform-interpreter` applies,
// producing the loops `tiletune-tile-cpu` produces, so that frameworks that
// keep schedules as transform scripts can consume tuning results. See
// docs/Passes.md ("Transform-dialect export").
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_TRANSFORMSCRIPT_H
#define TILETUNE_TRANSFORMS_TRANSFORMSCRIPT_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tiletune {

/// The result of buildCPUTransformScript.
struct CPUTransformScript {
  /// A module with `transform.with_named_sequence` holding one matcher and
  /// one action per distinct (op name, loop sizes) and the entry point
  /// `@__transform_main` (a `transform.foreach_match` over the payload).
  std::string text;
  /// Ops with a CPU config that the script schedules.
  unsigned numOps = 0;
  /// Distinct schedules (matcher/action pairs) in the script.
  unsigned numSchedules = 0;
  /// Ops with a CPU config the script does not schedule, each as
  /// "<location>: <op name>: <why>" (also written as comments in the script).
  SmallVector<std::string> skipped;
};

/// Writes the CPU configs of the tunable ops under `root` as a transform
/// script built from upstream structured transform ops: `pad` (the config's
/// `pad` option, on tensors), `tile_using_forall` (parallel level),
/// `tile_using_for` with the config's interchange (cache level),
/// `tile_using_for` (register level), for convolutions the split into
/// output rows (`tile_using_for` + `loop.unroll`) and `decompose` into 1-D
/// convolutions, `vectorize`, then the cleanups and accumulator hoisting of
/// tiletune-tile-cpu (`apply_patterns`, `hoist_loop_invariant_subsets` on
/// tensors; alias folding, LICM and `hoist_redundant_vector_transfers` on
/// buffers). Operand packing (`pack`) has no upstream equivalent and is left
/// out (said in a comment: the loops are the same, the operands are read in
/// place). Ops the script cannot schedule the way the pass does (a
/// `layout = nhwc` conversion, padding or a conv on buffers) are listed in
/// `skipped`, and so is an op whose config differs from that of an earlier
/// op of the same name and loop sizes (the matcher cannot tell them apart:
/// the earlier op's schedule applies to both).
CPUTransformScript buildCPUTransformScript(Operation *root);

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_TRANSFORMSCRIPT_H
