//===- InitAll.h - Registration of everything TileTune uses -----*- C++ -*-===//
//
// One place that registers the upstream dialects, extensions and external
// models (Linalg's TilingInterface models among them: tiling crashes without
// them) together with the tiletune dialect and passes. Every entry point —
// tiletune-opt, tiletune, tests, the Python module, the tuner — calls these.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_INITALL_H
#define TILETUNE_INITALL_H

namespace mlir {
class DialectRegistry;
class MLIRContext;

namespace tiletune {

/// Adds the upstream dialects, their extensions and external models, and the
/// tiletune dialect to `registry`.
void registerAllTileTuneDialects(DialectRegistry &registry);

/// Adds only the tiletune dialect to `registry`, for hosts that register the
/// upstream dialects and extensions themselves (mlir-opt loading
/// TileTunePlugin.so).
void registerTileTuneDialect(DialectRegistry &registry);

/// Registers the upstream passes and the TileTune compiler passes and
/// pipelines (CPU and GPU) with the global pass registry. The tuning passes
/// (tiletune-apply-db, tiletune-autotune) run the tuner and live in a library
/// of their own (TileTuneTuningPasses); tools that want them also call
/// registerTileTuneTuningPasses() from tiletune/TuningPasses/Passes.h.
void registerAllTileTunePasses();

/// Everything at once, for tools and frameworks that want all of TileTune:
/// registerAllTileTuneDialects(registry), registerAllTileTunePasses() and
/// the tuning passes (registerTileTuneTuningPasses(): tiletune-apply-db,
/// tiletune-autotune). Defined in the TileTuneTuningPasses library, since
/// the tuning passes link the tuner: link it (or TileTune::TileTune) to call
/// this; a tool built from the compiler libraries alone calls the two
/// functions above instead.
void registerAllTileTune(DialectRegistry &registry);

/// Registers only the TileTune compiler passes and pipelines (CPU and GPU),
/// not the upstream ones, for hosts that have registered those already
/// (registering an upstream pass twice aborts). Idempotent.
/// registerAllTileTunePasses() calls it.
void registerTileTuneCompilerPasses();

/// Creates the registry above, appends it to `context` and loads every
/// dialect (lowering passes create ops of dialects nobody loaded otherwise).
void initializeContext(MLIRContext &context);

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_INITALL_H
