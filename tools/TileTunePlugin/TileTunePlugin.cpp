//===- TileTunePlugin.cpp - TileTune as an mlir-opt pass/dialect plugin ---===//
//
// The entry points upstream tools look up in a plugin library:
// mlirGetPassPluginInfo (--load-pass-plugin) and mlirGetDialectPluginInfo
// (--load-dialect-plugin). They register only what such a host lacks: the
// tiletune dialect, the TileTune passes and pipelines, and (unless built with
// -DTILETUNE_PLUGIN_TUNING_PASSES=OFF) the tuning passes. The host has
// registered the upstream dialects, extensions and passes already; a second
// registration of an upstream pass would abort.
//
// The plugin links libMLIR.so / libLLVM.so of the LLVM it was built against
// and only works in a process that uses the same libraries. Before
// registering anything it asks the process which LLVM it runs
// (LLVMGetVersion, looked up in the global scope, so the host's copy is the
// one found) and, on a mismatch, explains it on stderr and answers with an
// API version no host accepts: the host then reports the plugin as
// unloadable instead of calling into libraries of another ABI.
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"
#ifdef TILETUNE_PLUGIN_TUNING_PASSES
#include "tiletune/TuningPasses/Passes.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

#include <cstdio>
#include <dlfcn.h>

#ifndef TILETUNE_VERSION_STRING
#define TILETUNE_VERSION_STRING "unknown"
#endif

namespace {

/// The plugin's version as the host prints it: ours and the LLVM it was
/// built for.
constexpr const char *kPluginVersion =
    TILETUNE_VERSION_STRING " (built for LLVM/MLIR " LLVM_VERSION_STRING ")";

/// An API version no host implements: PassPlugin::load and
/// DialectPlugin::load reject the plugin with "Wrong API version".
constexpr uint32_t kRejectedAPIVersion = 0;

using GetVersionFn = void (*)(unsigned *, unsigned *, unsigned *);

/// Checks that the process runs the LLVM this plugin was built against
/// (same major and minor: the soname of libLLVM/libMLIR changes with them).
/// Prints why not on stderr, once, and returns false on a mismatch.
bool hostMatches() {
  static const bool matches = [] {
    // RTLD_DEFAULT searches the global scope in load order: the executable
    // and its libraries come before this plugin and the libraries it
    // brought, so a host with an LLVM of its own finds its own.
    auto getVersion =
        reinterpret_cast<GetVersionFn>(dlsym(RTLD_DEFAULT, "LLVMGetVersion"));
    if (!getVersion)
      return true; // No C API exported (a static host): nothing to compare.
    unsigned major = 0, minor = 0, patch = 0;
    getVersion(&major, &minor, &patch);
    if (major == LLVM_VERSION_MAJOR && minor == LLVM_VERSION_MINOR)
      return true;
    std::fprintf(stderr,
                 "TileTunePlugin: built for LLVM/MLIR %d.%d (%s), but this "
                 "process runs LLVM %u.%u.%u; rebuild TileTune against this "
                 "LLVM or load the plugin into the mlir-opt of LLVM %d.%d\n",
                 LLVM_VERSION_MAJOR, LLVM_VERSION_MINOR, LLVM_VERSION_STRING,
                 major, minor, patch, LLVM_VERSION_MAJOR, LLVM_VERSION_MINOR);
    return false;
  }();
  return matches;
}

/// Registers the TileTune passes and pipelines once, whichever entry point
/// (or both) the host calls.
void registerPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  mlir::tiletune::registerTileTuneCompilerPasses();
#ifdef TILETUNE_PLUGIN_TUNING_PASSES
  mlir::tiletune::registerTileTuneTuningPasses();
#endif
}

void registerNothing() {}
void registerNoDialects(mlir::DialectRegistry *) {}

} // namespace

/// --load-pass-plugin: the TileTune passes and pipelines. The tiletune
/// dialect is loaded by the passes that create its attribute; input that
/// already carries #tiletune.config needs --load-dialect-plugin as well (or
/// instead: it registers the passes too).
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  if (!hostMatches())
    return {kRejectedAPIVersion, "TileTune", kPluginVersion, registerNothing};
  return {MLIR_PLUGIN_API_VERSION, "TileTune", kPluginVersion, registerPasses};
}

/// --load-dialect-plugin: the tiletune dialect, and the passes and
/// pipelines (so one option is enough).
extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  if (!hostMatches())
    return {kRejectedAPIVersion, "TileTune", kPluginVersion,
            registerNoDialects};
  return {MLIR_PLUGIN_API_VERSION, "TileTune", kPluginVersion,
          [](mlir::DialectRegistry *registry) {
            mlir::tiletune::registerTileTuneDialect(*registry);
            registerPasses();
          }};
}
