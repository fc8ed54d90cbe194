//===- CPUDescription.cpp - The CPU a kernel is compiled for --------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/CPUDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif
#include <unistd.h>

using namespace mlir::tiletune;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Caches, cores and clock from the operating system.
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::tiletune::parseCacheSize(StringRef text) {
  text = text.trim();
  int64_t scale = 1;
  if (text.consume_back("K") || text.consume_back("k"))
    scale = 1024;
  else if (text.consume_back("M"))
    scale = 1024 * 1024;
  else if (text.consume_back("G"))
    scale = 1024 * 1024 * 1024;
  int64_t value = 0;
  if (text.empty() || text.getAsInteger(10, value) || value < 0 ||
      value > (int64_t(1) << 40) / scale)
    return std::nullopt;
  return value * scale;
}

/// The trimmed contents of a small text file, or nullopt.
static std::optional<std::string> readSmallFile(const llvm::Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().trim().str();
}

llvm::Expected<CPUCaches> mlir::tiletune::readSysfsCaches(StringRef directory) {
  CPUCaches caches;
  std::error_code ec;
  bool any = false;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       !ec && it != end; it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (!name.starts_with("index"))
      continue;
    std::optional<std::string> level = readSmallFile(it->path() + "/level");
    std::optional<std::string> type = readSmallFile(it->path() + "/type");
    std::optional<std::string> size = readSmallFile(it->path() + "/size");
    if (!level || !type || !size || *type == "Instruction")
      continue;
    std::optional<int64_t> bytes = parseCacheSize(*size);
    int64_t levelNumber = 0;
    if (!bytes || StringRef(*level).getAsInteger(10, levelNumber))
      return llvm::createStringError("cache entry " + it->path() +
                                     ": cannot read level '" + *level +
                                     "' or size '" + *size + "'");
    int64_t *slot = levelNumber == 1   ? &caches.l1Bytes
                    : levelNumber == 2 ? &caches.l2Bytes
                    : levelNumber == 3 ? &caches.l3Bytes
                                       : nullptr;
    if (!slot)
      continue;
    *slot = std::max(*slot, *bytes);
    any = true;
    if (std::optional<std::string> line =
            readSmallFile(it->path() + "/coherency_line_size")) {
      int64_t lineBytes = 0;
      if (!StringRef(*line).getAsInteger(10, lineBytes) && lineBytes > 0)
        caches.lineBytes = std::max(caches.lineBytes, lineBytes);
    }
  }
  if (ec)
    return llvm::createStringError("cannot read " + directory + ": " +
                                   ec.message());
  if (!any || caches.l1Bytes == 0)
    return llvm::createStringError("no data cache described in " + directory);
  caches.source = directory.str();
  return caches;
}

llvm::Error mlir::tiletune::overrideCacheSizes(CPUCaches &caches,
                                               StringRef text) {
  if (text.trim().empty())
    return llvm::Error::success();
  llvm::SmallVector<StringRef> entries;
  text.split(entries, ',');
  if (entries.size() < 2 || entries.size() > 3)
    return llvm::createStringError(
        "cache sizes must be 'L1,L2' or 'L1,L2,L3' (e.g. '48K,1M,32M'), got '" +
        text + "'");
  CPUCaches result = caches;
  int64_t *resultSlots[] = {&result.l1Bytes, &result.l2Bytes, &result.l3Bytes};
  for (auto [i, entry] : llvm::enumerate(entries)) {
    std::optional<int64_t> bytes = parseCacheSize(entry);
    if (!bytes || *bytes < 1024)
      return llvm::createStringError(
          "cache size '" + entry.trim() + "' of L" + llvm::Twine(i + 1) +
          " is not a size of at least 1K (e.g. 32K, 1M, 1048576)");
    *resultSlots[i] = *bytes;
  }
  result.source = "given";
  caches = result;
  return llvm::Error::success();
}

CPUCaches mlir::tiletune::detectHostCaches() {
  llvm::Expected<CPUCaches> sysfs =
      readSysfsCaches("/sys/devices/system/cpu/cpu0/cache");
  CPUCaches caches;
  if (sysfs) {
    caches = *sysfs;
  } else {
    llvm::consumeError(sysfs.takeError());
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    caches.l1Bytes = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
    caches.l2Bytes = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
    caches.l3Bytes = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
    caches.lineBytes = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_LINESIZE));
    caches.source = "sysconf";
#endif
  }
  // The documented fallback, per missing level.
  bool fallback = false;
  auto fill = [&](int64_t &slot, int64_t value) {
    if (slot <= 0) {
      slot = value;
      fallback = true;
    }
  };
  fill(caches.l1Bytes, 32 * 1024);
  fill(caches.l2Bytes, 1024 * 1024);
  fill(caches.l3Bytes, 8 * 1024 * 1024);
  fill(caches.lineBytes, 64);
  if (fallback)
    caches.source += caches.source.empty() ? "fallback values"
                                           : " and fallback values";
  return caches;
}

/// Logical CPUs this process may run on.
static unsigned detectCores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// The highest of `operations` / (seconds `round` took) over rounds of
/// `round`, run at least 12 times and for at least 30 ms: long enough for
/// the clock to have ramped up, and for a short slow spell of a shared VM's
/// core not to set the result (12 rounds of 1 ms once measured a clock of
/// 3.02 GHz where every other process measured 3.33-3.36).
[[maybe_unused]] static double
bestRateOverRounds(double operations, llvm::function_ref<void()> round) {
  constexpr double kMinSeconds = 0.03;
  double best = 0;
  auto first = std::chrono::steady_clock::now();
  for (int i = 0; i < 12 || std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - first)
                                    .count() < kMinSeconds;
       ++i) {
    auto start = std::chrono::steady_clock::now();
    round();
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - start;
    if (seconds.count() > 0)
      best = std::max(best, operations / seconds.count());
  }
  return best;
}

/// Clock rate of the calling core in GHz measured with dependent integer
/// additions of a register (latency one cycle on every x86 core since the
/// P6), best of rounds (bestRateOverRounds); 0 where not x86. The addend is
/// a register, not an immediate: Intel cores since Golden Cove fold chains
/// of `add $imm, reg` in the renamer, and such a chain measured 21.2 GHz on
/// a 3.6 GHz Xeon (2026-12-05), where register additions measure 3.59.
static double measureAddChainGHz() {
#if defined(__x86_64__) || defined(__i386__)
  constexpr int kIterations = 1 << 16; // x 64 additions: ~1 ms at 4 GHz
  return bestRateOverRounds(64.0 * kIterations,
                            [] {
                              uint64_t x = 0, one = 1;
                              for (int i = 0; i < kIterations; ++i)
                                asm volatile(".rept 64\n\tadd %1, %0\n\t.endr"
                                             : "+r"(x)
                                             : "r"(one));
                            }) /
         1e9;
#else
  return 0;
#endif
}

/// Vector FMA instructions per second that the calling core sustains at
/// `vectorBits` (128, 256 or 512; f32, twelve independent accumulators, more
/// than two pipes of latency five need), best of rounds
/// (bestRateOverRounds); 0 where the host cannot run them (no FMA, or no
/// AVX-512 for 512) or not x86. A kernel cannot issue FMAs faster, so this
/// bounds the peak from below whatever the clock and the scheduling model
/// say (Zen 5: the dependent additions measured 3.57 GHz where FMA
/// throughput and an FMA latency chain both showed 3.68, and 64^3 matmuls
/// ran at 218-221 GFLOP/s against a 213-215 "peak").
static double measureFMARate(int64_t vectorBits) {
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("fma") ||
      (vectorBits >= 512 && !__builtin_cpu_supports("avx512f")))
    return 0;
  constexpr int kIterations = 1 << 12; // x 96 FMAs: ~0.1 ms at 2 per cycle
#define TILETUNE_FMA12(R)                                                      \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "2\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "3\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "4\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "5\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "6\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "7\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "8\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "9\n\t"                               \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "10\n\t"                              \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "11\n\t"                              \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "12\n\t"                              \
  "vfmadd231ps %%" R "1, %%" R "1, %%" R "13\n\t"
#define TILETUNE_FMA_CLOBBERS                                                  \
  "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
      "xmm10", "xmm11", "xmm12", "xmm13"
  double best = bestRateOverRounds(96.0 * kIterations, [&] {
    // Zeros in every register used (a VEX xor clears the whole register):
    // no denormal or NaN left there by other code slows the FMAs.
    asm volatile("vxorps %%xmm1, %%xmm1, %%xmm1\n\t"
                 ".irp r, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13\n\t"
                 "vxorps %%xmm\\r, %%xmm\\r, %%xmm\\r\n\t"
                 ".endr" ::
                     : TILETUNE_FMA_CLOBBERS);
    for (int i = 0; i < kIterations; ++i) {
      if (vectorBits >= 512)
        asm volatile(".rept 8\n\t" TILETUNE_FMA12("zmm") ".endr" ::
                         : TILETUNE_FMA_CLOBBERS);
      else if (vectorBits >= 256)
        asm volatile(".rept 8\n\t" TILETUNE_FMA12("ymm") ".endr" ::
                         : TILETUNE_FMA_CLOBBERS);
      else
        asm volatile(".rept 8\n\t" TILETUNE_FMA12("xmm") ".endr" ::
                         : TILETUNE_FMA_CLOBBERS);
    }
  });
#undef TILETUNE_FMA12
#undef TILETUNE_FMA_CLOBBERS
  // Clear the upper halves before SSE code runs again.
  asm volatile("vzeroupper" ::: "memory");
  return best;
#else
  (void)vectorBits;
  return 0;
#endif
}

double mlir::tiletune::getHostFMARate(int64_t vectorBits) {
  static std::mutex mutex;
  static std::map<int64_t, double> rates;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = rates.try_emplace(vectorBits, 0.0);
  if (inserted)
    it->second = measureFMARate(vectorBits);
  return it->second;
}

const CPUClock &mlir::tiletune::getHostClock() {
  static const CPUClock clock = [] {
    CPUClock result;
    double measured = measureAddChainGHz();
    result.ghz = measured;
    result.source = "measured (dependent additions)";
    if (std::optional<std::string> khz = readSmallFile(
            "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")) {
      int64_t value = 0;
      if (!StringRef(*khz).getAsInteger(10, value) && value / 1e6 > result.ghz) {
        result.ghz = value / 1e6;
        result.source = "cpufreq cpuinfo_max_freq";
      }
    }
    if (auto cpuinfo = llvm::MemoryBuffer::getFileAsStream("/proc/cpuinfo")) {
      llvm::SmallVector<StringRef> lines;
      (*cpuinfo)->getBuffer().split(lines, '\n');
      for (StringRef line : lines) {
        auto [name, value] = line.split(':');
        double mhz = 0;
        if (name.trim() == "cpu MHz" && !value.trim().getAsDouble(mhz) &&
            mhz / 1e3 > result.ghz) {
          result.ghz = mhz / 1e3;
          result.source = "/proc/cpuinfo cpu MHz";
        }
      }
    }
    return result;
  }();
  return clock;
}

//===----------------------------------------------------------------------===//
// The LLVM side: CPU name, features, scheduling model.
//===----------------------------------------------------------------------===//

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The host's features as an LLVM feature string, sorted.
static std::string getHostFeatureString() {
  llvm::SmallVector<std::pair<std::string, bool>> sorted;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    sorted.emplace_back(entry.getKey().str(), entry.getValue());
  llvm::sort(sorted);
  llvm::SubtargetFeatures features;
  for (const auto &[name, enabled] : sorted)
    features.AddFeature(name, enabled);
  return features.getString();
}

/// Whether `sti` enables feature `name` (false for names it does not know).
static bool testFeature(const llvm::MCSubtargetInfo &sti, StringRef name) {
  for (const llvm::SubtargetFeatureKV &kv : sti.getAllProcessorFeatures())
    if (kv.Key == name)
      return sti.getFeatureBits().test(kv.Value);
  return false;
}

static bool knowsFeature(const llvm::MCSubtargetInfo &sti, StringRef name) {
  return llvm::any_of(sti.getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &kv) {
                        return kv.Key == name;
                      });
}

/// Instructions per cycle of opcode `name` in the scheduling model of `sti`
/// (1 / reciprocal throughput), or nullopt where the model does not say.
static std::optional<double> getIssueRate(const llvm::MCSubtargetInfo &sti,
                                          const llvm::MCInstrInfo &instrInfo,
                                          StringRef name, double *rthroughput) {
  const llvm::MCSchedModel &model = sti.getSchedModel();
  if (!model.hasInstrSchedModel())
    return std::nullopt;
  for (unsigned opcode = 0, e = instrInfo.getNumOpcodes(); opcode < e;
       ++opcode) {
    if (instrInfo.getName(opcode) != name)
      continue;
    const llvm::MCSchedClassDesc *desc =
        model.getSchedClassDesc(instrInfo.get(opcode).getSchedClass());
    if (!desc || !desc->isValid() || desc->isVariant())
      return std::nullopt;
    double rt = llvm::MCSchedModel::getReciprocalThroughput(sti, *desc);
    if (!(rt > 0))
      return std::nullopt;
    *rthroughput = rt;
    return 1.0 / rt;
  }
  return std::nullopt;
}

/// Corrections to LLVM's scheduling models where they understate a CPU's FMA
/// rate (a peak must never be underestimated), keyed by LLVM's CPU name and
/// the vector width in use.
struct FMACorrection {
  StringRef cpu;
  int64_t vectorBits;
  double perCycle;
  StringRef why;
};
static const FMACorrection kFMACorrections[] = {
    {"znver5", 512, 2,
     "Zen 5 issues two 512-bit FMAs per cycle; LLVM 22's model gives one"},
};

/// Fills the FMA throughput of `desc` from LLVM's scheduling model of its CPU,
/// else from the fallback table (two FMA pipes, or one multiply and one add
/// pipe: the most any x86 core LLVM knows has, so a peak is never
/// underestimated).
static void computeFMARate(CPUDescription &desc,
                           const llvm::MCSubtargetInfo &sti,
                           const llvm::MCInstrInfo &instrInfo) {
  StringRef width = desc.vectorBits >= 512   ? "Z"
                    : desc.vectorBits >= 256 ? "Y"
                                             : "";
  double rt = 0;
  if (desc.hasFMA) {
    std::string name = ("VFMADD231PS" + width + "r").str();
    if (std::optional<double> rate = getIssueRate(sti, instrInfo, name, &rt)) {
      desc.fmaPerCycle = *rate;
      desc.fmaSource = llvm::formatv("LLVM scheduling model of {0} ({1}: "
                                     "reciprocal throughput {2})",
                                     desc.cpu, name, rt)
                           .str();
      for (const FMACorrection &fix : kFMACorrections)
        if (fix.cpu == desc.cpu && fix.vectorBits == desc.vectorBits &&
            fix.perCycle > desc.fmaPerCycle) {
          desc.fmaPerCycle = fix.perCycle;
          desc.fmaSource = ("table: " + fix.why).str();
        }
      return;
    }
    desc.fmaPerCycle = 2;
    desc.fmaSource = "fallback table (2 FMA pipes; LLVM's model of " +
                     desc.cpu + " has no figure)";
    return;
  }
  bool vex = desc.vectorBits >= 256 || desc.hasFeature("avx");
  std::string prefix = vex ? "V" : "";
  std::string suffix = width.str() + "rr";
  std::string mul = prefix + "MULPS" + suffix, add = prefix + "ADDPS" + suffix;
  double rtMul = 0, rtAdd = 0;
  std::optional<double> mulRate = getIssueRate(sti, instrInfo, mul, &rtMul);
  std::optional<double> addRate = getIssueRate(sti, instrInfo, add, &rtAdd);
  if (mulRate && addRate) {
    desc.fmaPerCycle = (*mulRate + *addRate) / 2;
    desc.fmaSource =
        llvm::formatv("LLVM scheduling model of {0} (no FMA: {1} reciprocal "
                      "throughput {2}, {3} {4})",
                      desc.cpu, mul, rtMul, add, rtAdd)
            .str();
    return;
  }
  desc.fmaPerCycle = 1;
  desc.fmaSource = "fallback table (no FMA: 1 multiply + 1 add per cycle)";
}

static llvm::Expected<CPUDescription> computeDescription(StringRef mcpu,
                                                         StringRef mattr) {
  initializeNativeTarget();
  CPUDescription desc;
  desc.mcpu = mcpu.str();
  desc.mattr = mattr.str();
  desc.triple = llvm::sys::getProcessTriple();
  llvm::Triple triple(desc.triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for '" + desc.triple +
                                   "': " + error);
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!generic)
    return llvm::createStringError("no subtarget information for '" +
                                   desc.triple + "'");
  // Names first (LLVM only warns about unknown names, then aborts later or
  // ignores them).
  if (!mcpu.empty() && !generic->isCPUStringValid(mcpu))
    return llvm::createStringError(
        "unknown CPU '" + mcpu + "' for " + desc.triple + " (the host is '" +
        llvm::sys::getHostCPUName() + "'; `llc -mtriple=" + desc.triple +
        " -mcpu=help` lists them)");
  llvm::SmallVector<StringRef> requested;
  mattr.split(requested, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef feature : requested) {
    feature = feature.trim();
    if (!feature.starts_with("+") && !feature.starts_with("-"))
      return llvm::createStringError(
          "CPU feature '" + feature +
          "' must start with '+' (enable) or '-' (disable)");
    if (!knowsFeature(*generic, feature.drop_front()))
      return llvm::createStringError(
          "unknown CPU feature '" + feature.drop_front() + "' for " +
          desc.triple + " (`llc -mtriple=" + desc.triple +
          " -mattr=help` lists them)");
  }
  if (mcpu.empty()) {
    desc.cpu = llvm::sys::getHostCPUName().str();
    desc.features = getHostFeatureString();
  } else {
    desc.cpu = mcpu.str();
  }
  llvm::SmallVector<std::string> trimmed;
  for (StringRef feature : requested)
    trimmed.push_back(feature.trim().str());
  if (!trimmed.empty()) {
    if (!desc.features.empty())
      desc.features += ",";
    desc.features += llvm::join(trimmed, ",");
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, desc.cpu, desc.features));
  std::unique_ptr<llvm::MCInstrInfo> instrInfo(target->createMCInstrInfo());
  if (!sti || !instrInfo)
    return llvm::createStringError("no subtarget information for '" +
                                   desc.cpu + "'");

  // The host's own CPU: LLVM's tuning of some AVX-512 cores prefers 256-bit
  // vectors (the first AVX-512 Xeons lowered their clock for 512-bit code).
  // Where this host issues 512-bit FMAs at 1.5x the flops of 256-bit ones or
  // more (two 512-bit pipes), that preference halves the peak, so it is
  // dropped unless `mattr` names it. Measured, not keyed by the CPU's name:
  // a VM may report a client model for a server core (2026-12-05: LLVM
  // named a Xeon with AMX "rocketlake", whose 512-bit FMAs measured 217
  // GFLOP/s against 115 at 256 bits).
  bool mattrNamesPreference = llvm::any_of(requested, [](StringRef feature) {
    return feature.trim().drop_front() == "prefer-256-bit";
  });
  if (mcpu.empty() && !mattrNamesPreference &&
      testFeature(*sti, "prefer-256-bit") && testFeature(*sti, "avx512f") &&
      !StringRef(desc.features).contains("-evex512")) {
    double flops256 = getHostFMARate(256) * 8 * 2 / 1e9;
    double flops512 = getHostFMARate(512) * 16 * 2 / 1e9;
    if (flops256 > 0 && flops512 >= 1.5 * flops256) {
      desc.features += ",-prefer-256-bit";
      sti.reset(target->createMCSubtargetInfo(triple, desc.cpu, desc.features));
      if (!sti)
        return llvm::createStringError("no subtarget information for '" +
                                       desc.cpu + "'");
      desc.preferenceNote =
          llvm::formatv("LLVM's model of {0} prefers 256 bits; dropped: this "
                        "host's 512-bit FMAs measured {1:F1} against {2:F1} "
                        "GFLOP/s at 256 bits",
                        desc.cpu, flops512, flops256)
              .str();
    }
  }

  // Registers: AVX-512 (with its 512-bit encoding unless "-evex512" turns it
  // off), AVX, SSE.
  bool avx512 = testFeature(*sti, "avx512f");
  bool evex512 = testFeature(*sti, "evex512") ||
                 !StringRef(desc.features).contains("-evex512");
  if (avx512 && evex512)
    desc.registerBits = 512;
  else if (testFeature(*sti, "avx"))
    desc.registerBits = 256;
  else
    desc.registerBits = 128;
  if (testFeature(*sti, "prefer-128-bit"))
    desc.preferredBits = 128;
  else if (testFeature(*sti, "prefer-256-bit"))
    desc.preferredBits = 256;
  desc.vectorBits = desc.preferredBits
                        ? std::min(desc.registerBits, desc.preferredBits)
                        : desc.registerBits;
  // 32 registers: zmm with AVX-512F; xmm/ymm need AVX-512VL too.
  bool thirtyTwo =
      avx512 && (desc.vectorBits == 512 || testFeature(*sti, "avx512vl"));
  desc.vectorRegisters = thirtyTwo ? 32 : 16;
  desc.hasFMA = testFeature(*sti, "fma");
  computeFMARate(desc, *sti, *instrInfo);
  desc.caches = detectHostCaches();
  desc.cores = detectCores();
  return desc;
}

llvm::Expected<CPUDescription> mlir::tiletune::describeCPU(StringRef mcpu,
                                                           StringRef mattr) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, CPUDescription> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(mcpu.trim().str(), mattr.trim().str());
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  llvm::Expected<CPUDescription> desc =
      computeDescription(key.first, key.second);
  if (desc)
    cache.emplace(key, *desc);
  return desc;
}

const CPUDescription &mlir::tiletune::getHostCPUDescription() {
  static const CPUDescription host = [] {
    llvm::Expected<CPUDescription> desc = describeCPU();
    if (!desc)
      llvm::report_fatal_error(llvm::Twine("cannot describe the host CPU: ") +
                               llvm::toString(desc.takeError()));
    return *desc;
  }();
  return host;
}

/// The (mcpu, mattr) setDefaultTargetCPU chose.
static std::mutex defaultTargetMutex;
static std::pair<std::string, std::string> defaultTarget;

llvm::Error mlir::tiletune::setDefaultTargetCPU(StringRef mcpu,
                                                StringRef mattr) {
  llvm::Expected<CPUDescription> desc = describeCPU(mcpu, mattr);
  if (!desc)
    return desc.takeError();
  std::lock_guard<std::mutex> lock(defaultTargetMutex);
  defaultTarget = {mcpu.trim().str(), mattr.trim().str()};
  return llvm::Error::success();
}

std::pair<std::string, std::string> mlir::tiletune::getDefaultTargetCPUNames() {
  std::lock_guard<std::mutex> lock(defaultTargetMutex);
  return defaultTarget;
}

llvm::Error mlir::tiletune::DefaultTargetCPUScope::use(StringRef mcpu,
                                                       StringRef mattr) {
  if (mcpu.trim().empty() && mattr.trim().empty())
    return llvm::Error::success();
  std::pair<std::string, std::string> before = getDefaultTargetCPUNames();
  if (llvm::Error err = setDefaultTargetCPU(mcpu, mattr))
    return err;
  if (!previous)
    previous = std::move(before);
  return llvm::Error::success();
}

mlir::tiletune::DefaultTargetCPUScope::~DefaultTargetCPUScope() {
  if (previous)
    llvm::consumeError(setDefaultTargetCPU(previous->first, previous->second));
}

CPUDescription mlir::tiletune::getDefaultTargetCPU() {
  std::pair<std::string, std::string> chosen;
  {
    std::lock_guard<std::mutex> lock(defaultTargetMutex);
    chosen = defaultTarget;
  }
  if (chosen.first.empty() && chosen.second.empty())
    return getHostCPUDescription();
  // Checked by setDefaultTargetCPU.
  return llvm::cantFail(describeCPU(chosen.first, chosen.second));
}

llvm::Expected<CPUDescription>
mlir::tiletune::describeTargetCPU(StringRef mcpu, StringRef mattr) {
  if (mcpu.trim().empty() && mattr.trim().empty())
    return getDefaultTargetCPU();
  return describeCPU(mcpu, mattr);
}

llvm::Error mlir::tiletune::checkRunsOnHost(const CPUDescription &desc) {
  if (desc.mcpu.empty() && desc.mattr.empty())
    return llvm::Error::success();
  initializeNativeTarget();
  llvm::Triple triple(desc.triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for '" + desc.triple +
                                   "': " + error);
  // Every feature the target enables must be present here. Not counted: what
  // the host detection does not report at all (tuning flags such as
  // "prefer-256-bit"), and what the host's own CPU model has but a virtual
  // machine hides (system instructions such as "mwaitx" or "pku", which no
  // kernel uses), so that naming the host's CPU is always accepted.
  std::unique_ptr<llvm::MCSubtargetInfo> chosen(
      target->createMCSubtargetInfo(triple, desc.cpu, desc.features));
  std::unique_ptr<llvm::MCSubtargetInfo> hostModel(
      target->createMCSubtargetInfo(triple, llvm::sys::getHostCPUName(), ""));
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  llvm::SmallVector<std::string> missing;
  for (const llvm::SubtargetFeatureKV &kv : chosen->getAllProcessorFeatures()) {
    if (!chosen->getFeatureBits().test(kv.Value) ||
        hostModel->getFeatureBits().test(kv.Value))
      continue;
    auto it = host.find(kv.Key);
    if (it != host.end() && !it->second)
      missing.push_back(kv.Key);
  }
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      "this host's CPU ('" + llvm::sys::getHostCPUName() + "') lacks " +
      llvm::join(missing, ", ") + ", which the target CPU '" + desc.cpu + "'" +
      (desc.mattr.empty() ? "" : " with features '" + desc.mattr + "'") +
      " enables: the kernel would die with an illegal instruction");
}

llvm::Expected<CPUDescription>
mlir::tiletune::describeRunnableCPU(StringRef mcpu, StringRef mattr) {
  llvm::Expected<CPUDescription> desc = describeCPU(mcpu, mattr);
  if (!desc)
    return desc.takeError();
  if (llvm::Error err = checkRunsOnHost(*desc))
    return std::move(err);
  return desc;
}

//===----------------------------------------------------------------------===//
// Derived figures and printing.
//===----------------------------------------------------------------------===//

int64_t CPUDescription::getLanes(int64_t elementBytes) const {
  return std::max<int64_t>(1, vectorBits / 8 / std::max<int64_t>(1, elementBytes));
}

int64_t CPUDescription::getAccumulatorElements(int64_t elementBytes) const {
  return vectorRegisters * 3 / 4 * getLanes(elementBytes);
}

int64_t CPUDescription::getRegisterTileRegisters(int64_t rows,
                                                 int64_t vectors) {
  return rows * vectors + vectors + 1;
}

int64_t CPUDescription::getMaxRegisterRows(int64_t registers,
                                           int64_t vectors) {
  vectors = std::max<int64_t>(1, vectors);
  return std::max<int64_t>(1, (registers - vectors - 1) / vectors);
}

int64_t CPUDescription::getRegisterRows(int64_t registers,
                                        int64_t accumulatorElements,
                                        int64_t width, int64_t lanes) {
  width = std::max<int64_t>(1, width);
  lanes = std::max<int64_t>(1, lanes);
  int64_t vectors = (width + lanes - 1) / lanes;
  return std::max<int64_t>(
      1, std::min({int64_t(12), accumulatorElements / width,
                   getMaxRegisterRows(registers, vectors)}));
}

int64_t CPUDescription::getRegisterRows(int64_t vectors,
                                        int64_t elementBytes) const {
  int64_t lanes = getLanes(elementBytes);
  return getRegisterRows(vectorRegisters,
                         getAccumulatorElements(elementBytes),
                         std::max<int64_t>(1, vectors) * lanes, lanes);
}

double CPUDescription::getFlopsPerCycle(int64_t elementBytes) const {
  return static_cast<double>(getLanes(elementBytes)) * 2 * fmaPerCycle;
}

double CPUDescription::getMeasuredFMAGFlops(int64_t elementBytes) const {
  if (!hasFMA)
    return 0;
  return getHostFMARate(vectorBits) * getLanes(elementBytes) * 2 / 1e9;
}

double CPUDescription::getPeakGFlops(unsigned threads,
                                     int64_t elementBytes) const {
  unsigned used = threads == 0 ? cores : std::min(threads, cores);
  double perThread =
      std::max(getFlopsPerCycle(elementBytes) * getHostClock().ghz,
               getMeasuredFMAGFlops(elementBytes));
  return perThread * used;
}

bool CPUDescription::hasFeature(StringRef name) const {
  // The last mention in the feature string wins, as in LLVM; a CPU's own
  // features are not in the string for an explicit mcpu, so ask LLVM.
  initializeNativeTarget();
  llvm::Triple t(triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(t, error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(t, cpu, features));
  return sti && testFeature(*sti, name);
}

std::string CPUDescription::getEnabledFeatures() const {
  initializeNativeTarget();
  llvm::Triple t(triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(t, error);
  if (!target)
    return "";
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(t, cpu, features));
  if (!sti)
    return "";
  llvm::SmallVector<std::string> enabled;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->getFeatureBits().test(kv.Value))
      enabled.push_back(kv.Key);
  llvm::sort(enabled);
  return llvm::join(enabled, ",");
}

StringRef CPUDescription::getISAName() const {
  if (registerBits >= 512)
    return "avx512";
  if (registerBits >= 256)
    return hasFMA ? "avx2" : "avx";
  return "sse";
}

void CPUDescription::print(llvm::raw_ostream &os, bool peak) const {
  os << "cpu: " << cpu << (mcpu.empty() ? " (host)" : "") << "\n";
  os << "triple: " << triple << "\n";
  if (!mattr.empty())
    os << "mattr: " << mattr << "\n";
  os << "isa: " << getISAName() << "\n";
  os << "register width: " << registerBits << " bits\n";
  os << "preferred vector width: ";
  if (preferredBits)
    os << preferredBits << " bits";
  else
    os << "none";
  if (!preferenceNote.empty())
    os << " (" << preferenceNote << ")";
  os << "\n";
  os << "vector width: " << vectorBits << " bits (" << getLanes(4)
     << " x f32)\n";
  os << "vector registers: " << vectorRegisters << "\n";
  os << "register tile budget: " << getAccumulatorElements(4)
     << " f32 accumulators\n";
  os << "fma: " << (hasFMA ? "yes" : "no") << ", "
     << llvm::format("%.2f", fmaPerCycle) << " per cycle (" << fmaSource
     << ")\n";
  os << "flops per cycle and core (f32): "
     << llvm::format("%.0f", getFlopsPerCycle(4)) << "\n";
  os << "caches: L1d " << caches.l1Bytes / 1024 << " KiB, L2 "
     << caches.l2Bytes / 1024 << " KiB, L3 " << caches.l3Bytes / 1024
     << " KiB, line " << caches.lineBytes << " B (" << caches.source << ")\n";
  os << "cores: " << cores << "\n";
  if (!peak)
    return;
  const CPUClock &clock = getHostClock();
  os << "clock: " << llvm::format("%.2f", clock.ghz) << " GHz (" << clock.source
     << ")\n";
  os << "measured fma throughput: ";
  if (double measured = getMeasuredFMAGFlops(4))
    os << llvm::format("%.1f", measured) << " GFLOP/s f32 on 1 thread\n";
  else
    os << "not measured ("
       << (hasFMA ? "the host cannot run this target's FMAs"
                  : "the target has no FMA")
       << ")\n";
  os << "peak f32: " << llvm::format("%.1f", getPeakGFlops(1))
     << " GFLOP/s on 1 thread";
  if (cores > 1)
    os << ", " << llvm::format("%.1f", getPeakGFlops(cores)) << " on " << cores
       << " threads";
  os << " (the higher of flops per cycle x clock and the measured fma "
        "throughput)\n";
}

llvm::json::Value CPUDescription::toJSON(bool peak) const {
  llvm::json::Object object{
      {"cpu", cpu},
      {"triple", triple},
      {"mcpu", mcpu},
      {"mattr", mattr},
      {"isa", getISAName()},
      {"register_bits", registerBits},
      {"preferred_bits", preferredBits},
      {"preference_note", preferenceNote},
      {"vector_bits", vectorBits},
      {"vector_registers", vectorRegisters},
      {"fma", hasFMA},
      {"fma_per_cycle", fmaPerCycle},
      {"fma_source", fmaSource},
      {"l1_bytes", caches.l1Bytes},
      {"l2_bytes", caches.l2Bytes},
      {"l3_bytes", caches.l3Bytes},
      {"line_bytes", caches.lineBytes},
      {"cores", static_cast<int64_t>(cores)},
  };
  if (peak) {
    object["ghz"] = getHostClock().ghz;
    object["clock_source"] = getHostClock().source;
    object["measured_fma_gflops_1_thread"] = getMeasuredFMAGFlops(4);
    object["peak_gflops_1_thread"] = getPeakGFlops(1);
    object["peak_gflops_all_threads"] = getPeakGFlops(cores);
  }
  return object;
}
