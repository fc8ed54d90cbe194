//===- Passes.h - TileTune GPU passes ---------------------------*- C++ -*-===//
//
// Declarations of the GPU passes (generated from Passes.td) and the
// registration of the passes and the `tiletune-lower-gpu` pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_GPU_PASSES_H
#define TILETUNE_GPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tiletune {

#define GEN_PASS_DECL
#include "tiletune/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tiletune/GPU/Passes.h.inc"

/// Registers the GPU passes and the `tiletune-lower-gpu` pipeline.
void registerTileTuneGPUPasses();

} // namespace mlir::tiletune

#endif // TILETUNE_GPU_PASSES_H
