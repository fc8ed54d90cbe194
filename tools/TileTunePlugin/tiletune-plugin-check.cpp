//===- tiletune-plugin-check.cpp - Load a plugin as a foreign-LLVM host ---===//
//
// A test helper standing in for an mlir-opt of another LLVM version. It
// links no LLVM; it exports its own LLVMGetVersion (answering the version
// given on the command line), loads the plugin the way mlir-opt does
// (dlopen, RTLD_LAZY | RTLD_GLOBAL) and prints what the plugin's entry points
// answer, without calling their registration callbacks.
//
//   tiletune-plugin-check PLUGIN.so MAJOR.MINOR.PATCH
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <dlfcn.h>

namespace {
unsigned versionParts[3];

/// The leading members of mlir::PassPluginLibraryInfo and
/// mlir::DialectPluginLibraryInfo (both start the same way).
struct PluginInfoHead {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  void *callback;
};
} // namespace

/// The host's LLVM version, found by the plugin in the global scope.
extern "C" __attribute__((visibility("default"))) void
LLVMGetVersion(unsigned *major, unsigned *minor, unsigned *patch) {
  *major = versionParts[0];
  *minor = versionParts[1];
  *patch = versionParts[2];
}

int main(int argc, char **argv) {
  if (argc != 3 || std::sscanf(argv[2], "%u.%u.%u", &versionParts[0],
                               &versionParts[1], &versionParts[2]) != 3) {
    std::fprintf(stderr, "usage: %s PLUGIN.so MAJOR.MINOR.PATCH\n", argv[0]);
    return 2;
  }
  void *handle = dlopen(argv[1], RTLD_LAZY | RTLD_GLOBAL);
  if (!handle) {
    std::fprintf(stderr, "error: cannot load '%s': %s\n", argv[1], dlerror());
    return 1;
  }
  int status = 0;
  const char *entries[] = {"mlirGetPassPluginInfo", "mlirGetDialectPluginInfo"};
  for (const char *entry : entries) {
    auto get = reinterpret_cast<PluginInfoHead (*)()>(dlsym(handle, entry));
    if (!get) {
      std::printf("%s: missing\n", entry);
      status = 1;
      continue;
    }
    PluginInfoHead info = get();
    std::printf("%s: api %u, name %s, version %s\n", entry, info.apiVersion,
                info.pluginName, info.pluginVersion);
  }
  return status;
}
