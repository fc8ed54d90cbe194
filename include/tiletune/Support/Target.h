//===- Target.h - Description of the machine a result belongs to -*- C++
//-*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// A tuned configuration is only trustworthy on the machine and compiler that
// measured it. TargetInfo names that context (CPU or GPU model, features,
// threads, toolchain) and gives it a stable key, so that the database never
// applies a result from another machine or compiler silently.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_TARGET_H
#define TILETUNE_SUPPORT_TARGET_H

#include "tiletune/Support/CPUDescription.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace tiletune {

/// The LLVM optimisation level (IR passes and code generation) at which every
/// CPU JIT of TileTune compiles by default: the tuner's workers, tiletune-run,
/// the Python bindings and embedders (JITOptions). Our passes emit code that
/// is already tiled, vectorised and unrolled; O3's extra unrolling doubles
/// LLVM's compile time on large kernels without making them faster
/// (docs/Execution.md, "JIT optimisation level").
constexpr unsigned kDefaultJITOptLevel = 2;

/// The execution context of a measurement. Two results are comparable only
/// when their targets have the same key().
struct TargetInfo {
  /// "cpu" or "cuda".
  std::string kind = "cpu";
  /// CPU brand and LLVM CPU name (e.g. "AMD EPYC 9R45 (znver5)"), or the GPU
  /// name and compute capability.
  std::string model;
  /// Canonical feature list: sorted, comma separated, enabled features only
  /// (e.g. "avx2,avx512f,fma").
  std::string features;
  /// Worker threads the kernels were run with (CPU), or 0 when not relevant.
  unsigned threads = 1;
  /// Compiler and tool versions that produced the code, e.g.
  /// "tiletune 0.1.0; LLVM 22.1.8".
  std::string toolchain;

  /// A stable, unambiguous text form of all fields (the input of key()).
  std::string canonical() const;
  /// A 16-hex-digit hash of canonical(); stable across runs, builds and
  /// machines (xxh3).
  std::string key() const;
  /// A short human-readable description for messages.
  std::string describe() const;

  llvm::json::Value toJSON() const;
  /// Parses the object written by toJSON(); an error names the bad field.
  static llvm::Expected<TargetInfo> fromJSON(const llvm::json::Value &value);

  /// Describes the host CPU as LLVM sees it (LLVM CPU name, brand string from
  /// /proc/cpuinfo where available, enabled features), with \p threads
  /// threads and the default toolchain string.
  static TargetInfo detectHostCPU(unsigned threads);

  /// Describes the CPU target `cpu` compiles for with \p threads threads.
  /// The host's own target (no mcpu/mattr) is detectHostCPU(threads); an
  /// override keeps the host's brand, names the target CPU and mattr in the
  /// model ("AMD EPYC (znver4 as haswell)") and keeps only the host features
  /// the target enables, so results of two ISAs never share a key.
  static TargetInfo forCPU(const CPUDescription &cpu, unsigned threads);

  friend bool operator==(const TargetInfo &a, const TargetInfo &b) {
    return a.canonical() == b.canonical();
  }
  friend bool operator!=(const TargetInfo &a, const TargetInfo &b) {
    return !(a == b);
  }
};

/// The TileTune version of this build (e.g. "0.1.0").
llvm::StringRef getTileTuneVersion();

/// The git revision the build was made from (a short hash), "unknown" when
/// the sources were not a git checkout.
llvm::StringRef getTileTuneGitRevision();

/// "TileTune <version> (git <revision>)": the first line of `--version`.
std::string getTileTuneVersionLine();

/// Makes `--version` of the calling tool print getTileTuneVersionLine()
/// followed by LLVM's version text. Call before parsing the command line.
void registerTileTuneVersionPrinter();

/// The toolchain string of this build: "tiletune <version>; LLVM <version>".
std::string getDefaultToolchain();

/// The most threads a kernel may be asked to run with (tuning, lowering,
/// running, benchmarks): above any core count TileTune meets, below the
/// counts at which the OpenMP runtime cannot start its threads and every
/// variant fails.
constexpr int64_t kMaxThreads = 1024;

/// Success when 0 <= threads <= kMaxThreads (0: all cores, or the OpenMP
/// runtime's default); otherwise an error that names `what` (e.g. "--threads")
/// and the valid range.
llvm::Error checkThreadCount(int64_t threads,
                             llvm::StringRef what = "the thread count");

} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_SUPPORT_TARGET_H
