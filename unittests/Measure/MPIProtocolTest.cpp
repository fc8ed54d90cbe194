//===- MPIProtocolTest.cpp - Tests of the messages of MPI measurement -----===//
//
// Every message between rank 0 and the worker ranks round-trips through its
// JSON text; broken messages are errors naming the field; the handshake
// check names the rank and what differs.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/MPIMeasurer.h"

#include "gtest/gtest.h"

using namespace mlir::tiletune;

namespace {

std::string errorText(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : std::string();
}

TEST(MPIProtocolTest, HelloRoundTrips) {
  MPIHello hello;
  hello.mcpu = "haswell";
  hello.mattr = "-avx512f";
  hello.threads = 3;
  hello.version = "TileTune 0.1.0 (git abc)";
  llvm::Expected<MPIHello> back = decodeMPIHello(encodeMPIHello(hello));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->mcpu, "haswell");
  EXPECT_EQ(back->mattr, "-avx512f");
  EXPECT_EQ(back->threads, 3u);
  EXPECT_EQ(back->version, hello.version);

  llvm::Expected<MPIHello> bad =
      decodeMPIHello(R"({"mcpu":"","mattr":"","threads":0,"version":"v"})");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("'threads'"),
            std::string::npos);
  llvm::Expected<MPIHello> notJSON = decodeMPIHello("{");
  ASSERT_FALSE(static_cast<bool>(notJSON));
  EXPECT_NE(llvm::toString(notJSON.takeError()).find("not JSON"),
            std::string::npos);
}

TEST(MPIProtocolTest, HelloReplyRoundTripsWithTargetOrError) {
  MPIHelloReply reply;
  reply.host = "node7";
  reply.version = "v";
  TargetInfo target;
  target.model = "AMD EPYC (znver4)";
  target.features = "avx2,fma";
  target.threads = 2;
  target.toolchain = "tiletune 0.1.0; LLVM 22";
  reply.target = target;
  llvm::Expected<MPIHelloReply> back =
      decodeMPIHelloReply(encodeMPIHelloReply(reply));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->host, "node7");
  ASSERT_TRUE(back->target.has_value());
  EXPECT_EQ(*back->target, target);
  EXPECT_TRUE(back->error.empty());

  MPIHelloReply failed;
  failed.host = "node8";
  failed.version = "v";
  failed.error = "cannot run haswell";
  llvm::Expected<MPIHelloReply> failedBack =
      decodeMPIHelloReply(encodeMPIHelloReply(failed));
  ASSERT_TRUE(static_cast<bool>(failedBack));
  EXPECT_FALSE(failedBack->target.has_value());
  EXPECT_EQ(failedBack->error, "cannot run haswell");

  // Neither a target nor an error.
  llvm::Expected<MPIHelloReply> empty =
      decodeMPIHelloReply(R"({"host":"h","version":"v","error":""})");
  ASSERT_FALSE(static_cast<bool>(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("'target'"),
            std::string::npos);
}

TEST(MPIProtocolTest, HandshakeCheckNamesTheRankAndTheDifference) {
  TargetInfo target;
  target.model = "AMD EPYC (znver4)";
  target.features = "avx2,avx512f,fma";
  target.threads = 2;
  MPIHelloReply reply;
  reply.host = "node3";
  reply.version = "v1";
  reply.target = target;
  EXPECT_EQ(errorText(checkMPIHelloReply(3, reply, target, "v1")), "");

  std::string version = errorText(checkMPIHelloReply(3, reply, target, "v2"));
  EXPECT_NE(version.find("rank 3 (host node3) runs v1 but rank 0 runs v2"),
            std::string::npos)
      << version;

  TargetInfo other = target;
  other.features = "avx2,fma";
  reply.target = other;
  std::string differs = errorText(checkMPIHelloReply(3, reply, target, "v1"));
  EXPECT_NE(differs.find("rank 3 (host node3) measures on"), std::string::npos)
      << differs;
  EXPECT_NE(differs.find("rank 0's target"), std::string::npos) << differs;

  reply.target.reset();
  reply.error = "the host cannot run haswell";
  std::string own = errorText(checkMPIHelloReply(2, reply, target, "v1"));
  EXPECT_NE(own.find("rank 2 (host node3) cannot measure: the host cannot "
                     "run haswell"),
            std::string::npos)
      << own;
}

TEST(MPIProtocolTest, MeasureChunkRoundTrips) {
  MPIMeasureChunk chunk;
  chunk.chunk = 17;
  chunk.problem = 4;
  chunk.request.role = MeasurementRole::Final;
  chunk.request.runTimeoutSeconds = 1.5;
  chunk.request.compileTimeoutSeconds = 30;
  chunk.configs.emplace_back(0, "m=[4,2,8,1];order=[n,k,m]");
  chunk.configs.emplace_back(5, "m=[64,1,1,1]");
  llvm::Expected<MPIMeasureChunk> back =
      decodeMPIMeasureChunk(encodeMPIMeasureChunk(chunk));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->chunk, 17u);
  EXPECT_EQ(back->problem, 4u);
  EXPECT_EQ(back->request.role, MeasurementRole::Final);
  EXPECT_DOUBLE_EQ(back->request.runTimeoutSeconds, 1.5);
  EXPECT_DOUBLE_EQ(back->request.compileTimeoutSeconds, 30);
  ASSERT_EQ(back->configs.size(), 2u);
  EXPECT_EQ(back->configs[1].first, 5u);
  EXPECT_EQ(back->configs[1].second, "m=[64,1,1,1]");

  llvm::Expected<MPIMeasureChunk> badRole = decodeMPIMeasureChunk(
      R"({"chunk":1,"problem":1,"role":"best","run_timeout":0,)"
      R"("compile_timeout":0,"incumbent":0,"configs":[]})");
  ASSERT_FALSE(static_cast<bool>(badRole));
  EXPECT_NE(llvm::toString(badRole.takeError()).find("'role'"),
            std::string::npos);
  llvm::Expected<MPIMeasureChunk> badConfig = decodeMPIMeasureChunk(
      R"({"chunk":1,"problem":1,"role":"search","run_timeout":0,)"
      R"("compile_timeout":0,"incumbent":0,"configs":[{"index":-1,"key":"x"}]})");
  ASSERT_FALSE(static_cast<bool>(badConfig));
  EXPECT_NE(llvm::toString(badConfig.takeError()).find("'configs'"),
            std::string::npos);
}

TEST(MPIProtocolTest, ChunkRepliesRoundTrip) {
  TimeStats time = TimeStats::fromSamples({2e-3, 1e-3, 3e-3});
  MPIChunkReply reply;
  reply.chunk = 9;
  reply.index = 3;
  reply.result = MeasureResult::success(time, 12.5);
  reply.result.relative = 0.8;
  reply.result.referenceSeconds = 2.5e-3;
  reply.result.costSeconds = 0.4;
  llvm::Expected<MPIChunkReply> back =
      decodeMPIChunkReply(encodeMPIChunkReply(reply));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_FALSE(back->done);
  EXPECT_EQ(back->chunk, 9u);
  EXPECT_EQ(back->index, 3u);
  EXPECT_TRUE(back->result.ok());
  EXPECT_DOUBLE_EQ(back->result.time.median, 2e-3);
  EXPECT_DOUBLE_EQ(back->result.time.min, 1e-3);
  EXPECT_DOUBLE_EQ(back->result.gflops, 12.5);
  EXPECT_DOUBLE_EQ(back->result.relative, 0.8);
  EXPECT_DOUBLE_EQ(back->result.referenceSeconds, 2.5e-3);

  // A crash on the worker travels as a typed failure with its message.
  MPIChunkReply crashed;
  crashed.chunk = 9;
  crashed.index = 4;
  crashed.result = MeasureResult::failure(MeasureStatus::RuntimeError,
                                          "worker crashed: SIGSEGV");
  llvm::Expected<MPIChunkReply> crashedBack =
      decodeMPIChunkReply(encodeMPIChunkReply(crashed));
  ASSERT_TRUE(static_cast<bool>(crashedBack));
  EXPECT_EQ(crashedBack->result.status, MeasureStatus::RuntimeError);
  EXPECT_EQ(crashedBack->result.message, "worker crashed: SIGSEGV");

  MPIChunkReply done;
  done.chunk = 9;
  done.done = true;
  done.error = "rank 1 (host h): cannot measure this problem";
  llvm::Expected<MPIChunkReply> doneBack =
      decodeMPIChunkReply(encodeMPIChunkReply(done));
  ASSERT_TRUE(static_cast<bool>(doneBack));
  EXPECT_TRUE(doneBack->done);
  EXPECT_EQ(doneBack->error, done.error);

  llvm::Expected<MPIChunkReply> noResult =
      decodeMPIChunkReply(R"({"chunk":1,"done":false,"index":0})");
  ASSERT_FALSE(static_cast<bool>(noResult));
  EXPECT_NE(llvm::toString(noResult.takeError()).find("'result'"),
            std::string::npos);
}

} // namespace
