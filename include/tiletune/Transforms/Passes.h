//===- Passes.h - TileTune transformation passes ----------------*- C++ -*-===//
//
// Declarations of the TileTune passes (generated from Passes.td) and their
// registration.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_PASSES_H
#define TILETUNE_TRANSFORMS_PASSES_H

#include "tiletune/Dialect/TileTuneDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletune {

#define GEN_PASS_DECL
#include "tiletune/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tiletune/Transforms/Passes.h.inc"

/// Registers every TileTune transformation pass (the generated
/// registerTileTuneCPUPasses()) and the `tiletune-lower-cpu` pipeline with
/// the global registry.
void registerTileTuneTransformsPasses();

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_PASSES_H
