//===- Passes.h - TileTune tuning passes ------------------------*- C++ -*-===//
//
// Declarations (generated from Passes.td) and registration of the passes
// `tiletune-apply-db` and `tiletune-autotune`. They run the tuner, so they
// live in a library of their own (TileTuneTuningPasses) that a tool or
// framework links only when it wants tuning in its pipelines; the tiling and
// lowering passes (registerAllTileTunePasses) never link the tuner.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TUNINGPASSES_PASSES_H
#define TILETUNE_TUNINGPASSES_PASSES_H

#include "tiletune/Driver/TuneOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <string>

namespace mlir::tiletune {

#define GEN_PASS_DECL
#include "tiletune/TuningPasses/Passes.h.inc"

/// Generated registration: registerTileTuneTuningPasses() registers
/// `tiletune-apply-db` and `tiletune-autotune` with the global pass registry
/// (tools call it once, next to registerAllTileTunePasses()).
#define GEN_PASS_REGISTRATION
#include "tiletune/TuningPasses/Passes.h.inc"

} // namespace mlir::tiletune

#endif // TILETUNE_TUNINGPASSES_PASSES_H
