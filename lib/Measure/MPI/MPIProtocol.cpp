//===- MPIProtocol.cpp - The messages between rank 0 and worker ranks -----===//
//
// JSON text of the hello, its reply, chunks of configs and their results.
// Needs no MPI: the unit tests round-trip every message.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/MPIMeasurer.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::tiletune;
using llvm::json::Object;
using llvm::json::Value;

static std::string printJSON(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

/// Parses `text` as a JSON object for a message called `what`.
static llvm::Expected<Object> parseObject(llvm::StringRef text,
                                          llvm::StringRef what) {
  llvm::Expected<Value> value = llvm::json::parse(text);
  if (!value)
    return llvm::createStringError("MPI message (" + what.str() +
                                   ") is not JSON: " +
                                   llvm::toString(value.takeError()));
  Object *obj = value->getAsObject();
  if (!obj)
    return llvm::createStringError("MPI message (" + what.str() +
                                   ") is not a JSON object");
  return std::move(*obj);
}

static llvm::Error missing(llvm::StringRef what, llvm::StringRef field) {
  return llvm::createStringError("MPI message (" + what.str() +
                                 ") has no valid '" + field.str() + "'");
}

std::string mlir::tiletune::encodeMPIHello(const MPIHello &hello) {
  return printJSON(Object{{"mcpu", hello.mcpu},
                          {"mattr", hello.mattr},
                          {"threads", int64_t(hello.threads)},
                          {"version", hello.version}});
}

llvm::Expected<MPIHello> mlir::tiletune::decodeMPIHello(llvm::StringRef text) {
  llvm::Expected<Object> obj = parseObject(text, "hello");
  if (!obj)
    return obj.takeError();
  MPIHello hello;
  std::optional<llvm::StringRef> mcpu = obj->getString("mcpu");
  std::optional<llvm::StringRef> mattr = obj->getString("mattr");
  std::optional<int64_t> threads = obj->getInteger("threads");
  std::optional<llvm::StringRef> version = obj->getString("version");
  if (!mcpu)
    return missing("hello", "mcpu");
  if (!mattr)
    return missing("hello", "mattr");
  if (!threads || *threads < 1 || *threads > kMaxThreads)
    return missing("hello", "threads");
  if (!version)
    return missing("hello", "version");
  hello.mcpu = mcpu->str();
  hello.mattr = mattr->str();
  hello.threads = unsigned(*threads);
  hello.version = version->str();
  return hello;
}

std::string mlir::tiletune::encodeMPIHelloReply(const MPIHelloReply &reply) {
  Object obj{{"host", reply.host},
             {"version", reply.version},
             {"error", reply.error}};
  if (reply.target)
    obj["target"] = reply.target->toJSON();
  return printJSON(std::move(obj));
}

llvm::Expected<MPIHelloReply>
mlir::tiletune::decodeMPIHelloReply(llvm::StringRef text) {
  llvm::Expected<Object> obj = parseObject(text, "hello reply");
  if (!obj)
    return obj.takeError();
  MPIHelloReply reply;
  std::optional<llvm::StringRef> host = obj->getString("host");
  std::optional<llvm::StringRef> version = obj->getString("version");
  std::optional<llvm::StringRef> error = obj->getString("error");
  if (!host)
    return missing("hello reply", "host");
  if (!version)
    return missing("hello reply", "version");
  if (!error)
    return missing("hello reply", "error");
  reply.host = host->str();
  reply.version = version->str();
  reply.error = error->str();
  if (const Value *target = obj->get("target")) {
    llvm::Expected<TargetInfo> parsed = TargetInfo::fromJSON(*target);
    if (!parsed)
      return llvm::createStringError("MPI message (hello reply): target: " +
                                     llvm::toString(parsed.takeError()));
    reply.target = std::move(*parsed);
  } else if (reply.error.empty()) {
    return missing("hello reply", "target");
  }
  return reply;
}

std::string mlir::tiletune::encodeMPIMeasureChunk(const MPIMeasureChunk &c) {
  llvm::json::Array configs;
  for (const auto &[index, key] : c.configs)
    configs.push_back(Object{{"index", int64_t(index)}, {"key", key}});
  return printJSON(Object{
      {"chunk", int64_t(c.chunk)},
      {"problem", int64_t(c.problem)},
      {"role", stringifyMeasurementRole(c.request.role)},
      {"run_timeout", c.request.runTimeoutSeconds},
      {"compile_timeout", c.request.compileTimeoutSeconds},
      {"incumbent", c.request.incumbentSeconds},
      {"incumbent_relative", c.request.incumbentRelative},
      {"configs", std::move(configs)}});
}

llvm::Expected<MPIMeasureChunk>
mlir::tiletune::decodeMPIMeasureChunk(llvm::StringRef text) {
  llvm::Expected<Object> obj = parseObject(text, "measure");
  if (!obj)
    return obj.takeError();
  MPIMeasureChunk c;
  std::optional<int64_t> chunk = obj->getInteger("chunk");
  std::optional<int64_t> problem = obj->getInteger("problem");
  std::optional<llvm::StringRef> roleName = obj->getString("role");
  std::optional<MeasurementRole> role =
      roleName ? parseMeasurementRole(*roleName) : std::nullopt;
  std::optional<double> runTimeout = obj->getNumber("run_timeout");
  std::optional<double> compileTimeout = obj->getNumber("compile_timeout");
  std::optional<double> incumbent = obj->getNumber("incumbent");
  const llvm::json::Array *configs = obj->getArray("configs");
  if (!chunk || *chunk < 0)
    return missing("measure", "chunk");
  if (!problem || *problem < 0)
    return missing("measure", "problem");
  if (!role)
    return missing("measure", "role");
  if (!runTimeout)
    return missing("measure", "run_timeout");
  if (!compileTimeout)
    return missing("measure", "compile_timeout");
  if (!incumbent)
    return missing("measure", "incumbent");
  if (!configs)
    return missing("measure", "configs");
  c.chunk = uint64_t(*chunk);
  c.problem = uint64_t(*problem);
  c.request.role = *role;
  c.request.runTimeoutSeconds = *runTimeout;
  c.request.compileTimeoutSeconds = *compileTimeout;
  c.request.incumbentSeconds = *incumbent;
  c.request.incumbentRelative =
      obj->getNumber("incumbent_relative").value_or(0.0);
  for (const Value &entry : *configs) {
    const Object *config = entry.getAsObject();
    std::optional<int64_t> index =
        config ? config->getInteger("index") : std::nullopt;
    std::optional<llvm::StringRef> key =
        config ? config->getString("key") : std::nullopt;
    if (!index || *index < 0 || !key)
      return missing("measure", "configs");
    c.configs.emplace_back(uint64_t(*index), key->str());
  }
  return c;
}

std::string mlir::tiletune::encodeMPIChunkReply(const MPIChunkReply &r) {
  Object obj{{"chunk", int64_t(r.chunk)}, {"done", r.done}};
  if (r.done) {
    obj["error"] = r.error;
  } else {
    obj["index"] = int64_t(r.index);
    obj["result"] = encodeMeasureResult(r.result);
  }
  return printJSON(std::move(obj));
}

llvm::Expected<MPIChunkReply>
mlir::tiletune::decodeMPIChunkReply(llvm::StringRef text) {
  llvm::Expected<Object> obj = parseObject(text, "result");
  if (!obj)
    return obj.takeError();
  MPIChunkReply r;
  std::optional<int64_t> chunk = obj->getInteger("chunk");
  std::optional<bool> done = obj->getBoolean("done");
  if (!chunk || *chunk < 0)
    return missing("result", "chunk");
  if (!done)
    return missing("result", "done");
  r.chunk = uint64_t(*chunk);
  r.done = *done;
  if (r.done) {
    std::optional<llvm::StringRef> error = obj->getString("error");
    if (!error)
      return missing("result", "error");
    r.error = error->str();
    return r;
  }
  std::optional<int64_t> index = obj->getInteger("index");
  std::optional<llvm::StringRef> result = obj->getString("result");
  if (!index || *index < 0)
    return missing("result", "index");
  if (!result)
    return missing("result", "result");
  llvm::Expected<MeasureResult> decoded = decodeMeasureResult(*result);
  if (!decoded)
    return llvm::createStringError("MPI message (result): " +
                                   llvm::toString(decoded.takeError()));
  r.index = uint64_t(*index);
  r.result = std::move(*decoded);
  return r;
}

llvm::Error mlir::tiletune::checkMPIHelloReply(int rank,
                                              const MPIHelloReply &reply,
                                              const TargetInfo &target,
                                              llvm::StringRef version) {
  std::string who = llvm::formatv("rank {0} (host {1})", rank, reply.host);
  if (!reply.error.empty())
    return llvm::createStringError(who + " cannot measure: " + reply.error);
  if (reply.version != version)
    return llvm::createStringError(who + " runs " + reply.version +
                                   " but rank 0 runs " + version.str() +
                                   ": every rank must run the same build");
  if (!reply.target)
    return llvm::createStringError(who + " reported no target");
  if (*reply.target != target)
    return llvm::createStringError(
        who + " measures on " + reply.target->describe() + " [" +
        reply.target->canonical() + "] but rank 0's target is " +
        target.describe() + " [" + target.canonical() +
        "]: all ranks must measure the same target (the database records "
        "one per result); run on machines of one CPU kind, or choose a "
        "target they all run with --mcpu/--mattr");
  return llvm::Error::success();
}
