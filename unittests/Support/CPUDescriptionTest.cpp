//===- CPUDescriptionTest.cpp - Tests of the CPU target description -------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

TEST(CPUDescriptionTest, ParsesCacheSizes) {
  EXPECT_EQ(parseCacheSize("48K"), 48 * 1024);
  EXPECT_EQ(parseCacheSize("1024K\n"), 1024 * 1024);
  EXPECT_EQ(parseCacheSize("32M"), 32 * 1024 * 1024);
  EXPECT_EQ(parseCacheSize("512"), 512);
  EXPECT_EQ(parseCacheSize(" 2G "), int64_t(2) * 1024 * 1024 * 1024);
  EXPECT_FALSE(parseCacheSize(""));
  EXPECT_FALSE(parseCacheSize("K"));
  EXPECT_FALSE(parseCacheSize("-4K"));
  EXPECT_FALSE(parseCacheSize("12Q"));
  EXPECT_FALSE(parseCacheSize("99999999999999G"));
}

/// A fake sysfs cache directory with the given index entries.
class SysfsCaches : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tiletune-caches", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  void addEntry(int index, llvm::StringRef level, llvm::StringRef type,
                llvm::StringRef size, llvm::StringRef line = "64") {
    llvm::SmallString<128> entry(dir);
    llvm::sys::path::append(entry, "index" + std::to_string(index));
    ASSERT_FALSE(llvm::sys::fs::create_directory(entry));
    auto write = [&](llvm::StringRef name, llvm::StringRef text) {
      llvm::SmallString<128> path(entry);
      llvm::sys::path::append(path, name);
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      ASSERT_FALSE(ec);
      os << text << "\n";
    };
    write("level", level);
    write("type", type);
    write("size", size);
    if (!line.empty())
      write("coherency_line_size", line);
  }

  llvm::SmallString<128> dir;
};

TEST_F(SysfsCaches, ReadsDataAndUnifiedLevels) {
  addEntry(0, "1", "Data", "48K");
  addEntry(1, "1", "Instruction", "32K");
  addEntry(2, "2", "Unified", "1024K");
  addEntry(3, "3", "Unified", "32768K");
  llvm::Expected<CPUCaches> caches = readSysfsCaches(dir);
  ASSERT_TRUE(static_cast<bool>(caches)) << llvm::toString(caches.takeError());
  EXPECT_EQ(caches->l1Bytes, 48 * 1024); // not the instruction cache
  EXPECT_EQ(caches->l2Bytes, 1024 * 1024);
  EXPECT_EQ(caches->l3Bytes, 32 * 1024 * 1024);
  EXPECT_EQ(caches->lineBytes, 64);
  EXPECT_EQ(caches->source, dir.str().str());
}

TEST_F(SysfsCaches, MissingLevelsStayUnknown) {
  addEntry(0, "1", "Data", "32K", /*line=*/"");
  addEntry(1, "2", "Unified", "256K");
  llvm::Expected<CPUCaches> caches = readSysfsCaches(dir);
  ASSERT_TRUE(static_cast<bool>(caches)) << llvm::toString(caches.takeError());
  EXPECT_EQ(caches->l1Bytes, 32 * 1024);
  EXPECT_EQ(caches->l2Bytes, 256 * 1024);
  EXPECT_EQ(caches->l3Bytes, 0);
}

TEST_F(SysfsCaches, ErrorsNameTheProblem) {
  llvm::Expected<CPUCaches> empty = readSysfsCaches(dir);
  ASSERT_FALSE(static_cast<bool>(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("no data cache"),
            std::string::npos);
  addEntry(0, "1", "Data", "lots");
  llvm::Expected<CPUCaches> bad = readSysfsCaches(dir);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("size 'lots'"),
            std::string::npos);
  llvm::Expected<CPUCaches> missing = readSysfsCaches((dir + "/nonexistent").str());
  ASSERT_FALSE(static_cast<bool>(missing));
  llvm::consumeError(missing.takeError());
}

TEST(CPUDescriptionTest, OverridesCacheSizes) {
  CPUCaches caches;
  caches.l3Bytes = 7;
  ASSERT_FALSE(static_cast<bool>(overrideCacheSizes(caches, "")));
  EXPECT_EQ(caches.l1Bytes, 0);
  ASSERT_FALSE(static_cast<bool>(overrideCacheSizes(caches, "48K,1M")));
  EXPECT_EQ(caches.l1Bytes, 48 * 1024);
  EXPECT_EQ(caches.l2Bytes, 1024 * 1024);
  EXPECT_EQ(caches.l3Bytes, 7);
  ASSERT_FALSE(static_cast<bool>(overrideCacheSizes(caches, "32K,2M,64M")));
  EXPECT_EQ(caches.l3Bytes, 64 * 1024 * 1024);
  for (const char *bad : {"48K", "1,2,3,4", "48K,x", "48K,100"}) {
    llvm::Error err = overrideCacheSizes(caches, bad);
    EXPECT_TRUE(static_cast<bool>(err)) << bad;
    llvm::consumeError(std::move(err));
  }
  EXPECT_EQ(caches.l1Bytes, 32 * 1024); // unchanged by the errors
}

TEST(CPUDescriptionTest, HostCachesAreAlwaysKnown) {
  CPUCaches caches = detectHostCaches();
  EXPECT_GT(caches.l1Bytes, 0);
  EXPECT_GT(caches.l2Bytes, 0);
  EXPECT_GT(caches.l3Bytes, 0);
  EXPECT_GT(caches.lineBytes, 0);
  EXPECT_FALSE(caches.source.empty());
}

/// LLVM's CPU names give the ISA facts, whatever the host.
TEST(CPUDescriptionTest, DescribesNamedCPUs) {
  llvm::Expected<CPUDescription> haswell = describeCPU("haswell", "");
  ASSERT_TRUE(static_cast<bool>(haswell))
      << llvm::toString(haswell.takeError());
  EXPECT_EQ(haswell->vectorBits, 256);
  EXPECT_EQ(haswell->vectorRegisters, 16);
  EXPECT_TRUE(haswell->hasFMA);
  EXPECT_EQ(haswell->getLanes(4), 8);
  EXPECT_EQ(haswell->getLanes(8), 4);
  EXPECT_EQ(haswell->getAccumulatorElements(4), 12 * 8);
  EXPECT_EQ(haswell->getISAName(), "avx2");
  EXPECT_GT(haswell->fmaPerCycle, 0);

  // Skylake-AVX512: 512-bit registers, but LLVM prefers 256-bit vectors.
  llvm::Expected<CPUDescription> skx = describeCPU("skylake-avx512", "");
  ASSERT_TRUE(static_cast<bool>(skx)) << llvm::toString(skx.takeError());
  EXPECT_EQ(skx->registerBits, 512);
  EXPECT_EQ(skx->preferredBits, 256);
  EXPECT_EQ(skx->vectorBits, 256);
  EXPECT_EQ(skx->vectorRegisters, 32); // ymm0-31 with AVX-512VL

  llvm::Expected<CPUDescription> zen4 = describeCPU("znver4", "");
  ASSERT_TRUE(static_cast<bool>(zen4)) << llvm::toString(zen4.takeError());
  EXPECT_EQ(zen4->vectorBits, 512);
  EXPECT_EQ(zen4->vectorRegisters, 32);
  EXPECT_EQ(zen4->getAccumulatorElements(4), 24 * 16);

  // mattr on top of the CPU: AVX-512 off leaves AVX2.
  llvm::Expected<CPUDescription> noAVX512 =
      describeCPU("znver4", "-avx512f,-evex512");
  ASSERT_TRUE(static_cast<bool>(noAVX512))
      << llvm::toString(noAVX512.takeError());
  EXPECT_EQ(noAVX512->vectorBits, 256);
  EXPECT_EQ(noAVX512->vectorRegisters, 16);
  EXPECT_FALSE(noAVX512->hasFeature("avx512f"));
  EXPECT_TRUE(noAVX512->hasFeature("avx2"));

  // Peak: lanes x 2 x FMAs per cycle x clock x threads, capped at the cores.
  EXPECT_DOUBLE_EQ(haswell->getFlopsPerCycle(4),
                   8 * 2 * haswell->fmaPerCycle);
  EXPECT_DOUBLE_EQ(haswell->getPeakGFlops(haswell->cores + 5),
                   haswell->getPeakGFlops(0));
}

TEST(CPUDescriptionTest, PeakIsAtLeastTheMeasuredFMAThroughput) {
  const CPUDescription &host = getHostCPUDescription();
  if (!host.hasFMA)
    GTEST_SKIP() << "the host has no FMA";
  double measured = host.getMeasuredFMAGFlops(4);
  // At least one FMA per 10 cycles of a 0.5 GHz clock: the loop ran.
  EXPECT_GT(measured, host.getLanes(4) * 2 * 0.05);
  EXPECT_GE(host.getPeakGFlops(1), measured);
  EXPECT_GE(host.getPeakGFlops(0), measured * host.cores);
  // f64: half the lanes, half the flops of the same instructions.
  EXPECT_DOUBLE_EQ(host.getMeasuredFMAGFlops(8), measured / 2);
  // Measured once per width and process.
  EXPECT_EQ(getHostFMARate(host.vectorBits), getHostFMARate(host.vectorBits));
}

TEST(CPUDescriptionTest, MeasuredClockIsAClock) {
  const CPUClock &clock = getHostClock();
  // No x86 core runs above 7 GHz; a renamer that folds the measuring chain
  // (as Golden Cove does with immediate additions) once gave 21.2 GHz.
  EXPECT_GT(clock.ghz, 0.2) << clock.source;
  EXPECT_LT(clock.ghz, 7.0) << clock.source;
  const CPUDescription &host = getHostCPUDescription();
  if (!host.hasFMA)
    return;
  // The FMAs the core sustains need at most its scheduling model's pipes
  // at that clock (a margin of 3: a model that counts two pipes where the
  // core has one, a VM's noisy rounds): a clock far
  // above what the FMA rate implies is a broken measurement.
  double fmaGHz = getHostFMARate(host.vectorBits) / 1e9 / host.fmaPerCycle;
  EXPECT_LT(clock.ghz, 3.0 * fmaGHz) << clock.source;
}

TEST(CPUDescriptionTest, HostDropsA256BitPreferenceWhere512BitFMAsPay) {
  const CPUDescription &host = getHostCPUDescription();
  llvm::Expected<CPUDescription> model =
      describeCPU(llvm::sys::getHostCPUName());
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  if (model->preferredBits != 256 || model->registerBits != 512 ||
      host.registerBits != 512)
    GTEST_SKIP() << "LLVM's model of the host CPU prefers no narrower vectors";
  bool pays = getHostFMARate(512) * 16 >= 1.5 * getHostFMARate(256) * 8;
  EXPECT_EQ(host.vectorBits, pays ? 512 : 256) << host.preferenceNote;
  EXPECT_EQ(host.preferenceNote.empty(), !pays);
  // Naming the preference keeps it, whatever the measurement says.
  llvm::Expected<CPUDescription> kept = describeCPU("", "+prefer-256-bit");
  ASSERT_TRUE(static_cast<bool>(kept)) << llvm::toString(kept.takeError());
  EXPECT_EQ(kept->vectorBits, 256);
  EXPECT_TRUE(kept->preferenceNote.empty());
  // An explicit CPU is LLVM's model of it, not this host.
  EXPECT_EQ(model->vectorBits, 256);
  EXPECT_TRUE(model->preferenceNote.empty());
}

TEST(CPUDescriptionTest, BadNamesAreErrors) {
  auto message = [](llvm::StringRef mcpu, llvm::StringRef mattr) {
    llvm::Expected<CPUDescription> desc = describeCPU(mcpu, mattr);
    return desc ? std::string() : llvm::toString(desc.takeError());
  };
  EXPECT_NE(message("bogus", "").find("unknown CPU 'bogus'"),
            std::string::npos);
  EXPECT_NE(message("", "+bogus").find("unknown CPU feature 'bogus'"),
            std::string::npos);
  EXPECT_NE(message("", "avx2").find("must start with '+'"),
            std::string::npos);
  EXPECT_EQ(message("", ""), "");
}

TEST(CPUDescriptionTest, HostRunsItselfButNotMissingFeatures) {
  const CPUDescription &host = getHostCPUDescription();
  EXPECT_FALSE(static_cast<bool>(checkRunsOnHost(host)));
  llvm::Expected<CPUDescription> same = describeCPU(host.cpu, "");
  ASSERT_TRUE(static_cast<bool>(same));
  EXPECT_FALSE(static_cast<bool>(checkRunsOnHost(*same)));
  // FMA4 and XOP (AMD Bulldozer only) are on no CPU this runs on.
  llvm::Expected<CPUDescription> bulldozer = describeCPU("", "+fma4,+xop");
  ASSERT_TRUE(static_cast<bool>(bulldozer));
  llvm::Error err = checkRunsOnHost(*bulldozer);
  ASSERT_TRUE(static_cast<bool>(err));
  std::string text = llvm::toString(std::move(err));
  EXPECT_NE(text.find("lacks fma4"), std::string::npos) << text;
  EXPECT_NE(text.find("illegal instruction"), std::string::npos);
}

TEST(CPUDescriptionTest, DefaultTargetFollowsTheTool) {
  std::string hostCPU = getHostCPUDescription().cpu;
  EXPECT_EQ(getDefaultTargetCPU().cpu, hostCPU);
  ASSERT_FALSE(static_cast<bool>(setDefaultTargetCPU("haswell", "")));
  EXPECT_EQ(getDefaultTargetCPU().cpu, "haswell");
  llvm::Expected<CPUDescription> viaEmpty = describeTargetCPU("", "");
  ASSERT_TRUE(static_cast<bool>(viaEmpty));
  EXPECT_EQ(viaEmpty->cpu, "haswell");
  llvm::Error bad = setDefaultTargetCPU("bogus", "");
  EXPECT_TRUE(static_cast<bool>(bad));
  llvm::consumeError(std::move(bad));
  EXPECT_EQ(getDefaultTargetCPU().cpu, "haswell");
  ASSERT_FALSE(static_cast<bool>(setDefaultTargetCPU("", "")));
  EXPECT_EQ(getDefaultTargetCPU().cpu, hostCPU);
}

/// Results for two ISAs never share a target key.
TEST(CPUDescriptionTest, TargetKeyNamesTheISA) {
  TargetInfo host = TargetInfo::forCPU(getHostCPUDescription(), 1);
  EXPECT_EQ(host, TargetInfo::detectHostCPU(1));
  llvm::Expected<CPUDescription> fewer = describeCPU("", "-avx2,-fma");
  ASSERT_TRUE(static_cast<bool>(fewer));
  TargetInfo reduced = TargetInfo::forCPU(*fewer, 1);
  EXPECT_NE(reduced.key(), host.key());
  EXPECT_EQ(reduced.features.find("avx2"), std::string::npos)
      << reduced.features;
  EXPECT_NE(reduced.model.find(" as "), std::string::npos) << reduced.model;
}

} // namespace
