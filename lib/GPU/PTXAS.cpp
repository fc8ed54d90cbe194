//===- PTXAS.cpp - Assemble PTX with ptxas and read its report ------------===//
//
// Implements PTXAS.h: finding and running ptxas, parsing its `-v` report and
// the resource/occupancy verdict.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/PTXAS.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir::tiletune;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The integer right before `unit` in `line` ("8192 bytes smem" with unit
/// " bytes smem" gives 8192); std::nullopt if absent.
static std::optional<int64_t> numberBefore(StringRef line, StringRef unit) {
  size_t pos = line.find(unit);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef head = line.take_front(pos).rtrim();
  size_t start = head.find_last_not_of("0123456789");
  StringRef digits =
      start == StringRef::npos ? head : head.drop_front(start + 1);
  int64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// The text between the first pair of single quotes after `marker`.
static std::optional<StringRef> quotedAfter(StringRef line, StringRef marker) {
  size_t pos = line.find(marker);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = line.drop_front(pos + marker.size());
  size_t open = rest.find('\'');
  if (open == StringRef::npos)
    return std::nullopt;
  size_t close = rest.find('\'', open + 1);
  if (close == StringRef::npos)
    return std::nullopt;
  return rest.slice(open + 1, close);
}

llvm::Expected<PtxasReport>
mlir::tiletune::parsePtxasOutput(StringRef output) {
  PtxasReport report;
  report.log = output.str();
  KernelResources *current = nullptr;
  llvm::SmallVector<StringRef> lines;
  output.split(lines, '\n');
  for (StringRef line : lines) {
    if (std::optional<StringRef> name =
            quotedAfter(line, "Compiling entry function")) {
      report.kernels.emplace_back();
      current = &report.kernels.back();
      current->name = name->str();
      if (std::optional<StringRef> arch = quotedAfter(
              line.drop_front(line.find(*name) + name->size() + 1), "for"))
        report.arch = arch->str();
      continue;
    }
    if (std::optional<StringRef> name =
            quotedAfter(line, "Function properties for")) {
      // Properties of a device function (not an entry) are not tracked.
      current = nullptr;
      for (KernelResources &kernel : report.kernels)
        if (kernel.name == *name)
          current = &kernel;
      continue;
    }
    if (!current)
      continue;
    if (line.contains("bytes stack frame")) {
      current->stackFrameBytes =
          numberBefore(line, " bytes stack frame").value_or(0);
      current->spillStoreBytes =
          numberBefore(line, " bytes spill stores").value_or(0);
      current->spillLoadBytes =
          numberBefore(line, " bytes spill loads").value_or(0);
      continue;
    }
    if (line.contains("Used ") && line.contains(" registers")) {
      current->registers =
          static_cast<int>(numberBefore(line, " registers").value_or(0));
      current->barriers =
          static_cast<int>(numberBefore(line, " barriers").value_or(0));
      current->sharedBytes = numberBefore(line, " bytes smem").value_or(0);
    }
  }
  if (report.kernels.empty())
    return makeError("ptxas reported no entry function:\n" + output);
  return report;
}

std::optional<std::string> mlir::tiletune::findPtxas() {
  if (const char *env = std::getenv("TILETUNE_PTXAS"))
    if (*env && llvm::sys::fs::can_execute(env))
      return std::string(env);
#ifdef TILETUNE_CUDA_BIN_DIR
  {
    llvm::SmallString<256> path(TILETUNE_CUDA_BIN_DIR);
    llvm::sys::path::append(path, "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
#endif
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return std::nullopt;
}

llvm::Expected<PtxasReport> mlir::tiletune::runPtxas(StringRef ptx,
                                                     StringRef chip,
                                                     StringRef ptxasPath,
                                                     unsigned timeoutSeconds,
                                                     std::string *cubin) {
  std::string ptxas = ptxasPath.str();
  if (ptxas.empty()) {
    std::optional<std::string> found = findPtxas();
    if (!found)
      return makeError("ptxas not found (install the CUDA toolkit or set "
                       "TILETUNE_PTXAS)");
    ptxas = *found;
  }
  llvm::SmallString<128> input, output, log;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tiletune", "ptx", input))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::sys::fs::createTemporaryFile("tiletune", "cubin", output);
  llvm::sys::fs::createTemporaryFile("tiletune-ptxas", "log", log);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(input);
    llvm::sys::fs::remove(output);
    llvm::sys::fs::remove(log);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (ec)
      return makeError("cannot write " + input + ": " + ec.message());
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  llvm::SmallVector<StringRef> args = {ptxas, arch, "-v", "-O3",
                                       input,  "-o", output};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     timeoutSeconds, 0, &execError);
  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    text = (*buffer)->getBuffer().str();
  if (rc != 0)
    return makeError("ptxas failed" +
                     (execError.empty() ? "" : " (" + execError + ")") +
                     ":\n" + text);
  if (cubin) {
    auto binary = llvm::MemoryBuffer::getFile(output, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!binary)
      return makeError("cannot read the cubin ptxas wrote: " +
                       binary.getError().message());
    *cubin = (*binary)->getBuffer().str();
  }
  return parsePtxasOutput(text);
}

SMResources SMResources::forChip(StringRef chip) {
  SMResources limits;
  if (chip == "sm_80" || chip == "sm_87") {
    limits.sharedBytesPerSM = 164 * 1024;
  } else if (chip == "sm_86" || chip == "sm_89") {
    limits.sharedBytesPerSM = 100 * 1024;
    limits.maxThreadsPerSM = chip == "sm_86" ? 1536 : 1536;
    limits.maxBlocksPerSM = chip == "sm_86" ? 16 : 24;
  } else if (chip == "sm_75") {
    limits.sharedBytesPerSM = 64 * 1024;
    limits.maxThreadsPerSM = 1024;
    limits.maxBlocksPerSM = 16;
  } else if (chip == "sm_70" || chip == "sm_72") {
    limits.sharedBytesPerSM = 96 * 1024;
  }
  return limits;
}

ResourceVerdict mlir::tiletune::checkResources(const KernelResources &kernel,
                                               int64_t threadsPerBlock,
                                               const SMResources &limits) {
  ResourceVerdict verdict;
  auto illegal = [&](const std::string &why) {
    verdict.legal = false;
    verdict.reason = why;
    return verdict;
  };
  if (kernel.spills() && !limits.allowSpills)
    return illegal("spills registers (" +
                   std::to_string(kernel.spillStoreBytes) + " B stores, " +
                   std::to_string(kernel.spillLoadBytes) + " B loads)");
  if (kernel.registers > limits.maxRegistersPerThread)
    return illegal(std::to_string(kernel.registers) +
                   " registers per thread exceed " +
                   std::to_string(limits.maxRegistersPerThread));
  // Registers are allocated per warp in units of 256.
  int64_t warps = (threadsPerBlock + 31) / 32;
  int64_t perWarp = ((int64_t(kernel.registers) * 32 + 255) / 256) * 256;
  int64_t blockRegisters = perWarp * warps;
  if (blockRegisters > limits.registersPerSM)
    return illegal("a block needs " + std::to_string(blockRegisters) +
                   " registers, the SM has " +
                   std::to_string(limits.registersPerSM));
  if (kernel.sharedBytes > limits.maxSharedBytesPerBlock)
    return illegal(std::to_string(kernel.sharedBytes) +
                   " bytes of shared memory exceed the per-block limit");
  if (threadsPerBlock > limits.maxThreadsPerSM)
    return illegal("too many threads per block");
  int64_t blocks = limits.maxBlocksPerSM;
  blocks = std::min<int64_t>(blocks, limits.maxThreadsPerSM / threadsPerBlock);
  if (blockRegisters > 0)
    blocks = std::min<int64_t>(blocks, limits.registersPerSM / blockRegisters);
  if (kernel.sharedBytes > 0)
    blocks = std::min<int64_t>(blocks,
                               limits.sharedBytesPerSM / kernel.sharedBytes);
  verdict.blocksPerSM = static_cast<int>(blocks);
  verdict.occupancy = static_cast<double>(blocks * threadsPerBlock) /
                      static_cast<double>(limits.maxThreadsPerSM);
  return verdict;
}
