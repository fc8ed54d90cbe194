//===- Passes.h - TileTune tuning passes ------------------------*- C++ -*-===//
//
// Declarations (generated from Passes.td) and registration of the passes
// `tiletune-apply-db` and `tiletune-autotune`.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DRIVER_PASSES_H
#define TILETUNE_DRIVER_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <string>

namespace mlir::tiletune {

#define GEN_PASS_DECL
#include "tiletune/Driver/Passes.h.inc"

/// Generated registration: registerTileTuneDriverPasses() registers
/// `tiletune-apply-db` and `tiletune-autotune` with the global pass registry
/// (tools call it once, next to registerAllTileTunePasses()).
#define GEN_PASS_REGISTRATION
#include "tiletune/Driver/Passes.h.inc"

} // namespace mlir::tiletune

#endif // TILETUNE_DRIVER_PASSES_H
