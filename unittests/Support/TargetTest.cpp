//===- TargetTest.cpp - Tests of target descriptions and keys -------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Target.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

TargetInfo makeTarget() {
  TargetInfo target;
  target.kind = "cpu";
  target.model = "Test CPU (znver5)";
  target.features = "avx2,avx512f,fma";
  target.threads = 4;
  target.toolchain = "tiletune 0.1.0; LLVM 22.1.8";
  return target;
}

TEST(TargetTest, KeyIsStableAndSensitiveToEveryField) {
  TargetInfo a = makeTarget();
  EXPECT_EQ(a.key().size(), 16u);
  EXPECT_EQ(a.key(), makeTarget().key());

  TargetInfo b = a;
  b.threads = 1;
  EXPECT_NE(a.key(), b.key());
  b = a;
  b.toolchain = "tiletune 0.1.0; LLVM 21.1.0";
  EXPECT_NE(a.key(), b.key());
  b = a;
  b.features = "avx2,fma";
  EXPECT_NE(a.key(), b.key());
  b = a;
  b.model = "Other CPU";
  EXPECT_NE(a.key(), b.key());
  b = a;
  b.kind = "cuda";
  EXPECT_NE(a.key(), b.key());
  // Moving text between fields must change the key too.
  b = a;
  b.model = a.model + ";";
  b.features = a.features.substr(1);
  EXPECT_NE(a.canonical(), b.canonical());
}

TEST(TargetTest, JSONRoundTrip) {
  TargetInfo a = makeTarget();
  llvm::Expected<TargetInfo> back = TargetInfo::fromJSON(a.toJSON());
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, a);

  llvm::json::Value missing = llvm::json::Object{{"kind", "cpu"}};
  llvm::Expected<TargetInfo> bad = TargetInfo::fromJSON(missing);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("model"), std::string::npos);
}

TEST(TargetTest, HostDetection) {
  TargetInfo host = TargetInfo::detectHostCPU(2);
  EXPECT_EQ(host.kind, "cpu");
  EXPECT_FALSE(host.model.empty());
  EXPECT_EQ(host.threads, 2u);
  EXPECT_NE(host.toolchain.find("LLVM"), std::string::npos);
  // Detection is deterministic on one machine.
  EXPECT_EQ(host.key(), TargetInfo::detectHostCPU(2).key());
}

} // namespace

TEST(TargetTest, ThreadCountRange) {
  for (int64_t ok : {int64_t(0), int64_t(1), kMaxThreads})
    EXPECT_FALSE(static_cast<bool>(checkThreadCount(ok))) << ok;
  for (int64_t bad : {int64_t(-1), kMaxThreads + 1, int64_t(100000)}) {
    llvm::Error err = checkThreadCount(bad, "--threads");
    ASSERT_TRUE(static_cast<bool>(err)) << bad;
    EXPECT_EQ(llvm::toString(std::move(err)),
              "--threads must be between 0 and 1024 (0: all cores), got " +
                  std::to_string(bad));
  }
}
