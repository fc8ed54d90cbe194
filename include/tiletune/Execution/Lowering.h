//===- Lowering.h - Running textual pass pipelines --------------*- C++ -*-===//
//
// Helpers to lower a kernel module before JIT compilation: run a textual
// pass pipeline with errors returned as llvm::Error, and the upstream
// lowering without tiling that serves as the "untiled" baseline and as the
// test pipeline before TileTune's own CPU pipeline is used.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_LOWERING_H
#define TILETUNE_EXECUTION_LOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir::tiletune {

/// Upstream lowering of linalg kernels (memref or tensor functions) to the
/// LLVM dialect with no tiling: function-boundary bufferization with
/// identity layouts, linalg to loops, then scf/affine/memref/arith/func to
/// LLVM. A public tensor function keeps its memref results (MLIR 22's
/// drop-equivalent-buffer-results leaves public functions alone); the
/// runner copies them out.
llvm::StringRef getUntiledLoweringPipeline();

/// Registers every upstream MLIR pass with the global pass registry so that
/// textual pipelines can name them, unless they already are (by this
/// function or another entry point). Idempotent and thread-safe.
void registerUpstreamPasses();

/// Parses `pipeline` as a pass pipeline on builtin.module and runs it on
/// `module`. The pipeline is a comma-separated list of passes ("a,b{opt=1}");
/// an outer "builtin.module(...)" is accepted and unwrapped (nesting it again
/// would silently run nothing). Upstream passes are registered first; other
/// passes must already be registered. Parse and pass failures come back as
/// an error carrying the diagnostics. An empty pipeline does nothing.
llvm::Error runPassPipeline(ModuleOp module, llvm::StringRef pipeline);

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_LOWERING_H
