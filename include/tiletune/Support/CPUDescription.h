//===- CPUDescription.h - The CPU a kernel is compiled for ------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The one description of the CPU target: everything TileTune sizes tiles
// for, compiles for or compares against (vector width in use, vector
// registers, FMA throughput, caches, cores, peak FLOP/s) is derived here from
// LLVM's CPU name and features (`mcpu`/`mattr`, host defaults) and from the
// operating system (caches, cores, clock). No other file holds an ISA
// constant. MLIR-free: the search core, the heuristics, the JIT and the
// benchmarks all use it.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_CPUDESCRIPTION_H
#define TILETUNE_SUPPORT_CPUDESCRIPTION_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace mlir::tiletune {

/// Data cache sizes of one core's view of the hierarchy, in bytes (0: not
/// known). `source` says where they came from.
struct CPUCaches {
  int64_t l1Bytes = 0;
  int64_t l2Bytes = 0;
  int64_t l3Bytes = 0;
  int64_t lineBytes = 0;
  std::string source;
};

/// Parses a sysfs cache size ("48K", "1024K", "32M", "512"): bytes, or
/// nullopt for text that is not a size.
std::optional<int64_t> parseCacheSize(llvm::StringRef text);

/// Reads the data/unified caches of a sysfs directory laid out like
/// /sys/devices/system/cpu/cpu0/cache (index*/level, type, size,
/// coherency_line_size). An error when the directory has no readable data
/// cache entry.
llvm::Expected<CPUCaches> readSysfsCaches(llvm::StringRef directory);

/// Overrides the sizes in `caches` from text "L1,L2[,L3]" in sysfs syntax
/// ("48K,1M" or "49152,1048576,32M"; the `caches` option of the passes and
/// tools, so that configs sized for a target do not depend on the machine
/// that computes them). An error names the bad entry; empty text changes
/// nothing.
llvm::Error overrideCacheSizes(CPUCaches &caches, llvm::StringRef text);

/// The host's caches: sysfs for cpu0, else sysconf(_SC_LEVEL*_CACHE_SIZE),
/// else the documented fallback (32 KiB / 1 MiB / 8 MiB, 64-byte lines; a
/// lower bound on the x86 CPUs TileTune targets), `source` naming which.
CPUCaches detectHostCaches();

/// The processor's clock used for peak FLOP/s, in GHz, and where it came
/// from. Measured with a chain of dependent integer additions (one per
/// cycle on every x86 core) and raised to any higher figure the OS reports
/// (cpufreq's cpuinfo_max_freq, /proc/cpuinfo's "cpu MHz"): a peak must
/// never be underestimated. Measured once per process (about 10 ms).
struct CPUClock {
  double ghz = 0;
  std::string source;
};
const CPUClock &getHostClock();

/// Vector FMA instructions per second one core of the host sustains at
/// `vectorBits` (128, 256, 512), measured once per width and process
/// (about 30 ms); 0 where the host cannot run them. A lower bound on any
/// peak: no kernel issues FMAs faster.
double getHostFMARate(int64_t vectorBits);

/// Everything TileTune needs to know about one CPU target.
struct CPUDescription {
  /// LLVM triple, CPU name and the full feature string compiled for
  /// ("+avx2,+fma,-avx512f,..."; host features then `mattr`).
  std::string triple;
  std::string cpu;
  std::string features;
  /// What was asked: empty when the host's default.
  std::string mcpu;
  std::string mattr;
  /// Widest vector register of the ISA (128, 256, 512 bits).
  int64_t registerBits = 128;
  /// LLVM's preferred vector width for this CPU (its `prefer-256-bit` /
  /// `prefer-128-bit` tuning), 0 when it has no preference.
  int64_t preferredBits = 0;
  /// Why the host's description departs from LLVM's preference, empty where
  /// it does not: on the host's own CPU a `prefer-256-bit` tuning is dropped
  /// (`-prefer-256-bit` joins `features`) where 512-bit FMAs measure at least
  /// 1.5x the flops of 256-bit ones, unless `mattr` names the preference.
  std::string preferenceNote;
  /// The vector width in use: registerBits capped by preferredBits.
  int64_t vectorBits = 128;
  /// Vector registers of that width (16, or 32 with AVX-512).
  int64_t vectorRegisters = 16;
  bool hasFMA = false;
  /// Vector FMA instructions (or, without FMA, multiply+add pairs) issued
  /// per cycle at vectorBits, from LLVM's scheduling model for the CPU.
  double fmaPerCycle = 0;
  /// Where fmaPerCycle came from ("LLVM scheduling model of znver4
  /// (VFMADD231PSYr: reciprocal throughput 0.5)" or the fallback table).
  std::string fmaSource;
  CPUCaches caches;
  /// Logical CPUs this process may run on.
  unsigned cores = 1;

  /// Lanes of a vector register in use for elements of `elementBytes`.
  int64_t getLanes(int64_t elementBytes = 4) const;
  /// Register budget of a matmul/conv register tile, in elements: three
  /// quarters of the vector registers hold accumulators (12 of 16, 24 of
  /// 32), the rest hold operands.
  int64_t getAccumulatorElements(int64_t elementBytes = 4) const;
  /// Vector registers a register tile of `rows` x `vectors` needs (the
  /// micro-kernel of the BLAS libraries: `rows` x `vectors` accumulators,
  /// one register per loaded vector of the lane operand and one broadcast
  /// of the other operand): rows * vectors + vectors + 1. A tile spills
  /// when this exceeds vectorRegisters.
  static int64_t getRegisterTileRegisters(int64_t rows, int64_t vectors);
  /// Most rows of a register tile `vectors` vectors wide that fit
  /// `registers` vector registers (getRegisterTileRegisters <= registers;
  /// at least 1): AVX-512 (32 registers) 14 x 2, 9 x 3, 6 x 4; AVX2 (16)
  /// 14 x 1, 6 x 2, 4 x 3.
  static int64_t getMaxRegisterRows(int64_t registers, int64_t vectors);
  /// Rows of a register tile `width` elements wide on vectors of `lanes`
  /// lanes: getMaxRegisterRows of `registers`, within `accumulatorElements`
  /// (the accumulator budget) and at most 12 (the BLAS micro-kernels' 6-12
  /// rows; 14 x 2 measured no faster than 12 x 2 or 8 x 2 on AVX-512); at
  /// least 1.
  static int64_t getRegisterRows(int64_t registers,
                                 int64_t accumulatorElements, int64_t width,
                                 int64_t lanes);
  /// getRegisterRows of a tile `vectors` vectors wide for elements of
  /// `elementBytes` on this target (the `registerRows` of
  /// getCPUPaddedSize).
  int64_t getRegisterRows(int64_t vectors, int64_t elementBytes = 4) const;
  /// Peak FLOP/s per cycle and core for elements of `elementBytes`.
  double getFlopsPerCycle(int64_t elementBytes = 4) const;
  /// GFLOP/s of one core issuing this target's FMAs back to back (from
  /// getHostFMARate at vectorBits); 0 without FMA or where the host cannot
  /// run them.
  double getMeasuredFMAGFlops(int64_t elementBytes = 4) const;
  /// Peak GFLOP/s with `threads` threads (0: all cores): the higher of
  /// flops per cycle x getHostClock() and getMeasuredFMAGFlops, times
  /// min(threads, cores).
  double getPeakGFlops(unsigned threads, int64_t elementBytes = 4) const;
  /// Enabled features only, sorted, comma separated, without '+'
  /// ("avx,avx2,fma,..."): the form TargetInfo records.
  std::string getEnabledFeatures() const;
  /// Whether the target enables LLVM feature `name` ("avx512f").
  bool hasFeature(llvm::StringRef name) const;
  /// A short ISA name: "avx512", "avx2", "avx", "sse" (for messages, the
  /// reference libraries and database keys).
  llvm::StringRef getISAName() const;

  /// Multi-line human-readable form (the --print-target output); with
  /// `peak`, the clock and the peak at 1 and `cores` threads too.
  void print(llvm::raw_ostream &os, bool peak = true) const;
  llvm::json::Value toJSON(bool peak = true) const;
};

/// Describes the target named by LLVM's `mcpu` and `mattr`: an empty `mcpu`
/// means the host CPU with the features the host reports, `mattr`
/// ("+avx2,-avx512f", LLVM's names) is applied on top of either. Errors (an
/// unknown CPU or feature, a feature without '+'/'-') name what is valid.
/// Whether the host can run it is checkRunsOnHost's business. Cached per
/// (mcpu, mattr) in the process.
llvm::Expected<CPUDescription> describeCPU(llvm::StringRef mcpu = "",
                                           llvm::StringRef mattr = "");

/// The host's own description (describeCPU("", "")); never fails on the
/// CPUs LLVM knows (aborts with a message otherwise).
const CPUDescription &getHostCPUDescription();

/// Sets the target an empty `mcpu` and `mattr` stand for in this process
/// (describeTargetCPU): tools call it with their --mcpu/--mattr so that the
/// passes they run (tiletune-default-config, tiletune-lower-cpu) and the JIT
/// all use that target. An error (unknown names) leaves it unchanged.
llvm::Error setDefaultTargetCPU(llvm::StringRef mcpu, llvm::StringRef mattr);

/// The (mcpu, mattr) of the process's default target ("", "": the host).
std::pair<std::string, std::string> getDefaultTargetCPUNames();

/// The process's default target: the host unless setDefaultTargetCPU chose
/// another.
CPUDescription getDefaultTargetCPU();

/// Makes a target the process's default for a while (a run of `tiletune
/// tune` with --mcpu, a Python call with mcpu=) and restores the one before
/// it when destroyed.
class DefaultTargetCPUScope {
public:
  DefaultTargetCPUScope() = default;
  DefaultTargetCPUScope(const DefaultTargetCPUScope &) = delete;
  DefaultTargetCPUScope &operator=(const DefaultTargetCPUScope &) = delete;
  ~DefaultTargetCPUScope();

  /// setDefaultTargetCPU(mcpu, mattr), remembering the previous default
  /// (once: a second call keeps the first one's). Both empty change
  /// nothing. An error (unknown names) leaves the default as it was.
  llvm::Error use(llvm::StringRef mcpu, llvm::StringRef mattr);

private:
  std::optional<std::pair<std::string, std::string>> previous;
};

/// describeCPU(mcpu, mattr), except that both empty mean
/// getDefaultTargetCPU(). What every pass option and front-end resolves.
llvm::Expected<CPUDescription> describeTargetCPU(llvm::StringRef mcpu,
                                                 llvm::StringRef mattr);

/// Success when this host can execute code compiled for `target`: every
/// feature the target enables is present here (code for a missing one dies
/// with an illegal instruction). The error names the missing features.
llvm::Error checkRunsOnHost(const CPUDescription &target);

/// describeCPU + checkRunsOnHost: for front-ends that will run kernels.
llvm::Expected<CPUDescription> describeRunnableCPU(llvm::StringRef mcpu,
                                                   llvm::StringRef mattr);

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_CPUDESCRIPTION_H
