//===- ConfigKeyFuzzer.cpp - libFuzzer target: config keys and --fix -----===//
//
// Input: byte 0 picks a space (CPU and CUDA operator spaces of each op
// family, the G-BFS paper space) and whether the rest is a config key
// (Space::parseKey: `tiletune apply`/resume/start_config) or a `--fix`
// assignment list (Space::withPinned). Properties checked:
//  * a parsed key prints (getKey) and parses back to the same config;
//  * a pinned space is no larger than the full one, and its first config's
//    key parses in the full space and prints back unchanged.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Space/Space.h"
#include "tiletune/Support/ProblemSpec.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

using namespace mlir::tiletune;

namespace {

std::vector<Space> buildSpaces() {
  struct Problem {
    const char *opKind;
    const char *target;
    std::vector<int64_t> sizes;
  };
  const Problem problems[] = {
      {"matmul", "cpu", {64, 48, 32}},
      {"matmul", "cpu", {13, 1, 7}},
      {"batch_matmul", "cpu", {4, 16, 32, 8}},
      {"conv_2d_nhwc_hwcf", "cpu", {1, 8, 8, 8, 3, 3, 3}},
      {"conv_2d_nchw_fchw", "cpu", {2, 4, 8, 8, 3, 2, 2}},
      {"matmul", "cuda", {64, 64, 32}},
      {"conv_2d_nhwc_hwcf", "cuda", {1, 8, 8, 16, 3, 3, 4}},
  };
  std::vector<Space> spaces;
  for (const Problem &p : problems) {
    llvm::Expected<ProblemSpec> spec =
        makeProblemSpec(p.opKind, p.target, p.sizes);
    if (!spec) {
      llvm::errs() << llvm::toString(spec.takeError()) << "\n";
      std::abort();
    }
    llvm::Expected<Space> space = buildSpace(*spec);
    if (!space) {
      llvm::errs() << llvm::toString(space.takeError()) << "\n";
      std::abort();
    }
    spaces.push_back(std::move(*space));
  }
  spaces.push_back(buildPaperMatmulSpace(64, 32, 48));
  return spaces;
}

[[noreturn]] void fail(const llvm::Twine &what) {
  llvm::errs() << what << "\n";
  std::abort();
}

void checkKeyRoundTrip(const Space &space, const Config &config) {
  std::string key = space.getKey(config);
  llvm::Expected<Config> again = space.parseKey(key);
  if (!again)
    fail("key '" + key + "' printed by getKey does not parse: " +
         llvm::toString(again.takeError()));
  if (*again != config)
    fail("key '" + key + "' parses to another config");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<Space> spaces = buildSpaces();
  if (size < 1 || size > 4096)
    return 0;
  const Space &space = spaces[(data[0] >> 1) % spaces.size()];
  bool pin = data[0] & 1;
  llvm::StringRef text(reinterpret_cast<const char *>(data) + 1, size - 1);

  if (!pin) {
    llvm::Expected<Config> config = space.parseKey(text);
    if (!config) {
      llvm::consumeError(config.takeError());
      return 0;
    }
    checkKeyRoundTrip(space, *config);
    (void)space.isValid(*config);
    return 0;
  }

  llvm::Expected<Space> pinned = space.withPinned(text);
  if (!pinned) {
    llvm::consumeError(pinned.takeError());
    return 0;
  }
  if (pinned->getWidth() != space.getWidth())
    fail("pinning changed the width of configs");
  if (pinned->countProduct() > space.countProduct())
    fail("a pinned space is larger than the full one");
  if (pinned->countProduct() == 0)
    return 0;
  Config first = pinned->unrank(0);
  checkKeyRoundTrip(*pinned, first);
  llvm::Expected<Config> inFull = space.parseKey(pinned->getKey(first));
  if (!inFull)
    fail("a key of the pinned space does not parse in the full space: " +
         llvm::toString(inFull.takeError()));
  // Slots of a pinned parameter may be numbered differently; the keys are
  // what the two spaces share.
  if (space.getKey(*inFull) != pinned->getKey(first))
    fail("key '" + pinned->getKey(first) +
         "' of the pinned space names another config in the full space: '" +
         space.getKey(*inFull) + "'");
  return 0;
}
