//===- Target.cpp - Description of the machine a result belongs to --------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

#ifndef TILETUNE_VERSION_STRING
#define TILETUNE_VERSION_STRING "unknown"
#endif

using namespace mlir::tiletune;
using llvm::StringRef;

StringRef mlir::tiletune::getTileTuneVersion() {
  return TILETUNE_VERSION_STRING;
}

std::string mlir::tiletune::getDefaultToolchain() {
  return (llvm::Twine("tiletune ") + getTileTuneVersion() + "; LLVM " +
          LLVM_VERSION_STRING)
      .str();
}

std::string TargetInfo::canonical() const {
  // Length-prefixed fields: no separator inside a field can make two
  // different targets print the same text.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto field = [&](StringRef name, StringRef value) {
    os << name << '[' << value.size() << "]=" << value << ';';
  };
  field("kind", kind);
  field("model", model);
  field("features", features);
  field("threads", std::to_string(threads));
  field("toolchain", toolchain);
  return text;
}

std::string TargetInfo::key() const {
  return llvm::utohexstr(llvm::xxh3_64bits(canonical()), /*LowerCase=*/true,
                         /*Width=*/16);
}

std::string TargetInfo::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kind << " " << (model.empty() ? "<unknown model>" : model);
  if (kind == "cpu")
    os << ", " << threads << (threads == 1 ? " thread" : " threads");
  if (!toolchain.empty())
    os << ", " << toolchain;
  os << " [" << key() << "]";
  return text;
}

llvm::json::Value TargetInfo::toJSON() const {
  return llvm::json::Object{
      {"kind", kind},           {"model", model},
      {"features", features},   {"threads", static_cast<int64_t>(threads)},
      {"toolchain", toolchain}, {"key", key()}};
}

llvm::Expected<TargetInfo>
TargetInfo::fromJSON(const llvm::json::Value &value) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return llvm::createStringError("target: expected a JSON object");
  TargetInfo target;
  auto getString = [&](StringRef name, std::string &out) -> llvm::Error {
    std::optional<StringRef> text = object->getString(name);
    if (!text)
      return llvm::createStringError("target: missing or non-string field '" +
                                     name + "'");
    out = text->str();
    return llvm::Error::success();
  };
  if (llvm::Error err = getString("kind", target.kind))
    return std::move(err);
  if (llvm::Error err = getString("model", target.model))
    return std::move(err);
  if (llvm::Error err = getString("features", target.features))
    return std::move(err);
  if (llvm::Error err = getString("toolchain", target.toolchain))
    return std::move(err);
  std::optional<int64_t> threads = object->getInteger("threads");
  if (!threads || *threads < 0)
    return llvm::createStringError(
        "target: missing or invalid integer field 'threads'");
  target.threads = static_cast<unsigned>(*threads);
  return target;
}

/// The "model name" line of /proc/cpuinfo, or "" where there is none.
static std::string readCPUBrand() {
  auto buffer = llvm::MemoryBuffer::getFileAsStream("/proc/cpuinfo");
  if (!buffer)
    return "";
  llvm::SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    auto [name, value] = line.split(':');
    if (name.trim() == "model name")
      return value.trim().str();
  }
  return "";
}

TargetInfo TargetInfo::detectHostCPU(unsigned threads) {
  TargetInfo target;
  target.kind = "cpu";
  std::string brand = readCPUBrand();
  StringRef cpuName = llvm::sys::getHostCPUName();
  target.model =
      brand.empty() ? cpuName.str() : (brand + " (" + cpuName + ")").str();
  llvm::SmallVector<std::string> enabled;
  for (const auto &entry : llvm::sys::getHostCPUFeatures())
    if (entry.second)
      enabled.push_back(entry.first().str());
  std::sort(enabled.begin(), enabled.end());
  target.features = llvm::join(enabled, ",");
  target.threads = threads;
  target.toolchain = getDefaultToolchain();
  return target;
}

TargetInfo TargetInfo::forCPU(const CPUDescription &cpu, unsigned threads) {
  TargetInfo target = detectHostCPU(threads);
  if (cpu.mcpu.empty() && cpu.mattr.empty())
    return target;
  std::string brand = readCPUBrand();
  std::string as = cpu.cpu + (cpu.mattr.empty() ? "" : " " + cpu.mattr);
  std::string hostName = llvm::sys::getHostCPUName().str();
  target.model = brand.empty() ? hostName + " as " + as
                               : brand + " (" + hostName + " as " + as + ")";
  llvm::SmallVector<StringRef> targetFeatures;
  std::string enabledText = cpu.getEnabledFeatures();
  StringRef(enabledText).split(targetFeatures, ',', -1, false);
  llvm::StringSet<> enabled;
  for (StringRef feature : targetFeatures)
    enabled.insert(feature);
  llvm::SmallVector<StringRef> hostFeatures;
  StringRef(target.features).split(hostFeatures, ',', -1, false);
  llvm::SmallVector<std::string> kept;
  for (StringRef feature : hostFeatures)
    if (enabled.contains(feature))
      kept.push_back(feature.str());
  target.features = llvm::join(kept, ",");
  return target;
}

llvm::Error mlir::tiletune::checkThreadCount(int64_t threads,
                                             llvm::StringRef what) {
  if (threads >= 0 && threads <= kMaxThreads)
    return llvm::Error::success();
  return llvm::createStringError(
      what + " must be between 0 and " + llvm::Twine(kMaxThreads) +
      " (0: all cores), got " + llvm::Twine(threads));
}
