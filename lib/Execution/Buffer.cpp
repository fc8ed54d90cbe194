//===- Buffer.cpp - Owning aligned N-d buffers ----------------------------===//
//
// Allocation, fills and tolerance-aware comparison of Buffer.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/Buffer.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <iterator>
#include <random>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir::tiletune;

size_t mlir::tiletune::getElementByteSize(ElementType type) {
  return type == ElementType::F32 ? sizeof(float) : sizeof(double);
}

llvm::StringRef mlir::tiletune::stringifyElementType(ElementType type) {
  return type == ElementType::F32 ? "f32" : "f64";
}

std::optional<ElementType>
mlir::tiletune::parseElementType(llvm::StringRef name) {
  if (name == "f32")
    return ElementType::F32;
  if (name == "f64")
    return ElementType::F64;
  return std::nullopt;
}

double mlir::tiletune::getEpsilon(ElementType type) {
  return type == ElementType::F32 ? std::numeric_limits<float>::epsilon()
                                  : std::numeric_limits<double>::epsilon();
}

std::optional<uint64_t>
mlir::tiletune::getBufferByteSize(ElementType type,
                                  llvm::ArrayRef<int64_t> shape) {
  uint64_t bytes = getElementByteSize(type);
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && bytes > std::numeric_limits<uint64_t>::max() /
                                static_cast<uint64_t>(dim))
      return std::nullopt;
    bytes *= static_cast<uint64_t>(dim);
  }
  return bytes;
}

/// The value of the line `key` (e.g. "MemAvailable:") of a /proc file whose
/// values are in kB, in bytes.
static std::optional<uint64_t> readProcKiB(const char *path,
                                           llvm::StringRef key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    llvm::StringRef rest(line);
    if (!rest.consume_front(key))
      continue;
    uint64_t kib = 0;
    if (rest.trim().split(' ').first.getAsInteger(10, kib))
      return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

/// The first line of a file as an unsigned number; std::nullopt when the
/// file cannot be read or says "max".
static std::optional<uint64_t> readNumberFile(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line))
    return std::nullopt;
  uint64_t value = 0;
  if (llvm::StringRef(line).trim().getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// What the cgroup v2 hierarchy of this process allows beyond its current
/// use: the smallest memory.max - memory.current of its cgroup and the
/// cgroups above it.
static std::optional<uint64_t> getCgroupAvailableBytes() {
  std::ifstream in("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(in, line))
    if (llvm::StringRef(line).starts_with("0::"))
      path = line.substr(3);
  if (path.empty())
    return std::nullopt;
  std::optional<uint64_t> best;
  llvm::StringRef dir(path);
  while (true) {
    std::string base = "/sys/fs/cgroup" + dir.rtrim('/').str();
    std::optional<uint64_t> max = readNumberFile(base + "/memory.max");
    std::optional<uint64_t> current = readNumberFile(base + "/memory.current");
    if (max) {
      uint64_t left = current && *current < *max ? *max - *current : 0;
      best = best ? std::min(*best, left) : left;
    }
    if (dir.empty() || dir == "/")
      break;
    dir = dir.rtrim('/');
    dir = dir.take_front(dir.rfind('/') + 1);
  }
  return best;
}

std::optional<uint64_t> mlir::tiletune::getAvailableMemoryBytes() {
  std::optional<uint64_t> available =
      readProcKiB("/proc/meminfo", "MemAvailable:");
  if (!available) {
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
      available = uint64_t(pages) * uint64_t(pageSize);
  }
  auto limitTo = [&](std::optional<uint64_t> bound) {
    if (bound)
      available = available ? std::min(*available, *bound) : *bound;
  };
  limitTo(getCgroupAvailableBytes());
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    std::optional<uint64_t> mapped = readProcKiB("/proc/self/status", "VmSize:");
    uint64_t cap = uint64_t(limit.rlim_cur);
    limitTo(mapped && *mapped < cap ? cap - *mapped : (mapped ? 0 : cap));
  }
  return available;
}

std::string mlir::tiletune::formatByteSize(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double value = double(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:F1} {1}", value, units[unit]).str();
}

llvm::Error mlir::tiletune::checkMemoryAvailable(uint64_t bytes,
                                                 const llvm::Twine &what) {
  std::optional<uint64_t> available = getAvailableMemoryBytes();
  if (!available || bytes <= *available)
    return llvm::Error::success();
  return llvm::createStringError(
      what + " need " + formatByteSize(bytes) + ", more than the " +
      formatByteSize(*available) +
      " of memory available (free memory, cgroup and address-space limits "
      "of this process); nothing was allocated");
}

void Buffer::AlignedFree::operator()(void *p) const { std::free(p); }

size_t mlir::tiletune::getPageByteSize() {
  static const size_t page = [] {
    long bytes = sysconf(_SC_PAGESIZE);
    // The page must hold kAlignment-aligned offsets and be a power of two
    // (aligned_alloc); anything else is not a page size worth trusting.
    return bytes >= long(Buffer::kAlignment) && llvm::isPowerOf2_64(bytes)
               ? size_t(bytes)
               : size_t(4096);
  }();
  return page;
}

size_t mlir::tiletune::getStaggeredPageOffset(unsigned index) {
  return size_t(index) * 17 * Buffer::kAlignment % getPageByteSize();
}

llvm::Expected<Buffer> Buffer::create(ElementType type,
                                      llvm::ArrayRef<int64_t> shape,
                                      size_t pageOffset) {
  if (shape.size() > kMaxBufferRank)
    return llvm::createStringError(
        llvm::formatv("buffer rank {0} exceeds the supported maximum {1}",
                      shape.size(), kMaxBufferRank));
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return llvm::createStringError(
          llvm::formatv("negative buffer dimension {0}", dim));
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / 16 / dim)
      return llvm::createStringError("buffer size overflows");
    count *= dim;
  }
  Buffer buffer;
  buffer.elementType = type;
  buffer.shape.assign(shape.begin(), shape.end());
  buffer.strides.resize(shape.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    buffer.strides[i] = stride;
    stride *= shape[i];
  }
  buffer.numElements = count;
  size_t bytes = count * getElementByteSize(type);
  size_t page = getPageByteSize();
  pageOffset = pageOffset % page / kAlignment * kAlignment;
  // aligned_alloc wants a multiple of the alignment (the page); never
  // allocate 0 bytes so that the data pointer of an empty buffer is still a
  // valid address. The page-size multiples cannot overflow: `count` was
  // bounded above far below SIZE_MAX.
  size_t rounded =
      (pageOffset + std::max<size_t>(bytes, kAlignment) + page - 1) / page *
      page;
  void *p = std::aligned_alloc(page, rounded);
  if (!p)
    return llvm::createStringError(
        llvm::formatv("cannot allocate {0} bytes", rounded));
  std::memset(p, 0, rounded);
  buffer.storage.reset(p);
  buffer.pageOffset = pageOffset;
  buffer.data = static_cast<char *>(p) + pageOffset;
  return std::move(buffer);
}

Buffer Buffer::clone() const {
  Buffer copy = llvm::cantFail(create(elementType, shape, pageOffset));
  if (getByteSize())
    std::memcpy(copy.getRawData(), getRawData(), getByteSize());
  return copy;
}

llvm::Error Buffer::copyFrom(const Buffer &other) {
  if (other.elementType != elementType || other.shape != shape)
    return llvm::createStringError(
        llvm::formatv("cannot copy a {0} buffer into a {1} buffer",
                      other.getTypeString(), getTypeString()));
  if (getByteSize())
    std::memcpy(getRawData(), other.getRawData(), getByteSize());
  return llvm::Error::success();
}

double Buffer::getAsDouble(int64_t i) const {
  assert(i >= 0 && i < numElements && "index out of range");
  if (elementType == ElementType::F32)
    return getData<float>()[i];
  return getData<double>()[i];
}

void Buffer::setFromDouble(int64_t i, double value) {
  assert(i >= 0 && i < numElements && "index out of range");
  if (elementType == ElementType::F32)
    getData<float>()[i] = static_cast<float>(value);
  else
    getData<double>()[i] = value;
}

void Buffer::fillRandom(uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  if (elementType == ElementType::F32) {
    float *p = getData<float>();
    for (int64_t i = 0; i < numElements; ++i)
      p[i] = static_cast<float>(dist(rng));
  } else {
    double *p = getData<double>();
    for (int64_t i = 0; i < numElements; ++i)
      p[i] = dist(rng);
  }
}

void Buffer::fillConstant(double value) {
  if (elementType == ElementType::F32) {
    float *p = getData<float>();
    std::fill(p, p + numElements, static_cast<float>(value));
  } else {
    double *p = getData<double>();
    std::fill(p, p + numElements, value);
  }
}

llvm::SmallVector<int64_t> Buffer::delinearize(int64_t linearIndex) const {
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (size_t d = 0; d < shape.size(); ++d) {
    index[d] = linearIndex / strides[d];
    linearIndex %= strides[d];
  }
  return index;
}

std::string Buffer::getTypeString() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t dim : shape)
    os << dim << 'x';
  os << stringifyElementType(elementType);
  return s;
}

Tolerance Tolerance::forReduction(ElementType type, int64_t reductionLength,
                                  double factor) {
  double length = static_cast<double>(std::max<int64_t>(reductionLength, 1));
  double tol = factor * length * getEpsilon(type);
  return Tolerance{tol, tol};
}

std::string ComparisonResult::summary() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << (passed ? "PASSED" : "FAILED") << ": max abs error "
     << llvm::formatv("{0:e3}", maxAbsError) << ", max rel error "
     << llvm::formatv("{0:e3}", maxRelError);
  if (!passed) {
    os << ", " << numMismatches << " mismatching element"
       << (numMismatches == 1 ? "" : "s") << ", first at [";
    llvm::interleaveComma(firstMismatch, os);
    os << "]: got " << llvm::format("%.9g", firstActual) << ", expected "
       << llvm::format("%.9g", firstExpected);
  }
  return s;
}

namespace {
template <typename T>
ComparisonResult compareTyped(const T *actual, const T *expected, int64_t n,
                              const Tolerance &tol, const Buffer &shapeOf) {
  ComparisonResult result;
  int64_t firstIndex = -1;
  for (int64_t i = 0; i < n; ++i) {
    double a = actual[i], e = expected[i];
    bool bad;
    double absErr;
    if (std::isnan(a) || std::isnan(e)) {
      bad = !(std::isnan(a) && std::isnan(e));
      absErr = bad ? std::numeric_limits<double>::infinity() : 0.0;
    } else {
      absErr = std::fabs(a - e);
      bad = !(absErr <= tol.absTol + tol.relTol * std::fabs(e));
    }
    double relErr =
        absErr / std::max(std::fabs(e), std::numeric_limits<double>::min());
    if (absErr > result.maxAbsError)
      result.maxAbsError = absErr;
    if (relErr > result.maxRelError && std::fabs(e) > 0)
      result.maxRelError = relErr;
    if (bad) {
      ++result.numMismatches;
      if (firstIndex < 0) {
        firstIndex = i;
        result.firstActual = a;
        result.firstExpected = e;
      }
    }
  }
  result.passed = result.numMismatches == 0;
  if (firstIndex >= 0)
    result.firstMismatch = shapeOf.delinearize(firstIndex);
  return result;
}
} // namespace

llvm::Expected<ComparisonResult>
mlir::tiletune::compareBuffers(const Buffer &actual, const Buffer &expected,
                               const Tolerance &tolerance) {
  if (actual.getElementType() != expected.getElementType() ||
      actual.getShape() != expected.getShape())
    return llvm::createStringError(
        llvm::formatv("cannot compare a {0} buffer with a {1} buffer",
                      actual.getTypeString(), expected.getTypeString()));
  if (actual.getElementType() == ElementType::F32)
    return compareTyped(actual.getData<float>(), expected.getData<float>(),
                        actual.getNumElements(), tolerance, actual);
  return compareTyped(actual.getData<double>(), expected.getData<double>(),
                      actual.getNumElements(), tolerance, actual);
}
