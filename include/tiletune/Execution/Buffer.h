//===- Buffer.h - Owning aligned N-d buffers for kernel execution -*- C++ -*-===//
//
// An owning, 64-byte aligned, row-major N-d buffer of f32 or f64 elements,
// the unit of data the JIT runner passes to compiled kernels as a memref.
// Seeded random and constant fills, and a tolerance-aware comparison used to
// verify kernels against the C++ reference implementations.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_BUFFER_H
#define TILETUNE_EXECUTION_BUFFER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace mlir::tiletune {

/// Element types a Buffer can hold.
enum class ElementType { F32, F64 };

/// Size in bytes of one element of `type`.
size_t getElementByteSize(ElementType type);

/// Short name of `type` as MLIR spells it ("f32", "f64").
llvm::StringRef stringifyElementType(ElementType type);

/// Parses "f32"/"f64"; std::nullopt otherwise.
std::optional<ElementType> parseElementType(llvm::StringRef name);

/// Machine epsilon of `type` (2^-23 for f32, 2^-52 for f64).
double getEpsilon(ElementType type);

/// Bytes of a contiguous buffer of `type` and `shape`; std::nullopt on a
/// negative dimension or when the size overflows 64 bits.
std::optional<uint64_t> getBufferByteSize(ElementType type,
                                          llvm::ArrayRef<int64_t> shape);

/// Bytes of memory this process can still allocate and use, as the OS tells:
/// the smallest of the memory available on the machine (MemAvailable of
/// /proc/meminfo, else the free physical pages), what the process's cgroups
/// (v2) allow beyond their current use, and what RLIMIT_AS leaves beyond
/// the address space already mapped. std::nullopt when nothing can be read.
std::optional<uint64_t> getAvailableMemoryBytes();

/// "512 B", "3.0 KiB", "1.5 GiB", ...
std::string formatByteSize(uint64_t bytes);

/// Fails, before anything is allocated, when `bytes` (what `what` needs,
/// e.g. "the kernel's operands (memref<...>, ...)") exceed the memory
/// available (getAvailableMemoryBytes); succeeds when that is unknown.
llvm::Error checkMemoryAvailable(uint64_t bytes, const llvm::Twine &what);

/// Largest rank a Buffer (and a memref descriptor built from it) supports.
constexpr unsigned kMaxBufferRank = 7;

/// Bytes of a page of this process's memory (sysconf; 4096 when unknown).
size_t getPageByteSize();

/// The offset within a page where argument `index` of a measured kernel
/// starts (KernelHarness::seedArguments, the benchmarks): distinct offsets
/// (17 cache lines apart, modulo the page) keep the argument streams off
/// the same L1 sets and out of each other's 4 KiB store-to-load aliasing.
/// Every process that times a kernel places its arguments the same way, so
/// the tuner's worker and tiletune-run measure the same placement.
size_t getStaggeredPageOffset(unsigned index);

/// An owning, 64-byte aligned, contiguous row-major N-d array. Rank 0 (a
/// scalar) up to kMaxBufferRank. Strides are in elements, like a memref's.
/// Movable, not implicitly copyable (use clone()).
///
/// The data starts at a chosen offset within a page (0 unless create() is
/// told otherwise): where the heap put a buffer would otherwise decide its
/// L1 sets and 4 KiB aliasing, and a kernel's time would differ from one
/// process to the next by where its operands happened to land.
class Buffer {
public:
  /// Alignment of the data pointer in bytes (one cache line, one zmm).
  static constexpr size_t kAlignment = 64;

  /// An empty buffer of rank 0 with no storage; isValid() is false.
  Buffer() = default;

  /// Allocates a zero-initialised buffer whose data starts `pageOffset`
  /// bytes into a page (rounded down to kAlignment, modulo the page size).
  /// Fails on a negative dimension, a rank above kMaxBufferRank or a size
  /// that does not fit in memory.
  static llvm::Expected<Buffer> create(ElementType type,
                                       llvm::ArrayRef<int64_t> shape,
                                       size_t pageOffset = 0);

  Buffer(Buffer &&other) { *this = std::move(other); }
  Buffer &operator=(Buffer &&other) {
    elementType = other.elementType;
    shape = std::move(other.shape);
    strides = std::move(other.strides);
    numElements = other.numElements;
    pageOffset = std::exchange(other.pageOffset, 0);
    storage = std::move(other.storage);
    data = std::exchange(other.data, nullptr);
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  /// Deep copy (same shape, type, contents and page offset; fresh storage).
  Buffer clone() const;

  /// Copies the contents of `other`, which must have the same type and shape.
  llvm::Error copyFrom(const Buffer &other);

  bool isValid() const { return storage != nullptr || numElements == 0; }
  ElementType getElementType() const { return elementType; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getStrides() const { return strides; }
  unsigned getRank() const { return shape.size(); }
  int64_t getNumElements() const { return numElements; }
  size_t getByteSize() const {
    return numElements * getElementByteSize(elementType);
  }

  /// Untyped pointer to the first element (64-byte aligned, getPageOffset()
  /// bytes into a page).
  void *getRawData() { return data; }
  const void *getRawData() const { return data; }
  /// Where the data starts within its page, in bytes.
  size_t getPageOffset() const { return pageOffset; }

  /// Typed access. `T` must be float for F32 and double for F64 (asserted).
  template <typename T> T *getData() {
    checkType<T>();
    return static_cast<T *>(getRawData());
  }
  template <typename T> const T *getData() const {
    checkType<T>();
    return static_cast<const T *>(getRawData());
  }

  /// Element `linearIndex` converted to double (any element type).
  double getAsDouble(int64_t linearIndex) const;
  /// Sets element `linearIndex` from a double (rounded to the element type).
  void setFromDouble(int64_t linearIndex, double value);

  /// Fills with values drawn uniformly from [lo, hi) by a std::mt19937_64
  /// seeded with `seed`: the same seed gives the same contents.
  void fillRandom(uint64_t seed, double lo = -1.0, double hi = 1.0);
  /// Fills every element with `value`.
  void fillConstant(double value);

  /// Converts a linear (row-major) index into a multi-index.
  llvm::SmallVector<int64_t> delinearize(int64_t linearIndex) const;

  /// "64x32xf32"-style description (the memref shape spelling).
  std::string getTypeString() const;

private:
  struct AlignedFree {
    void operator()(void *p) const;
  };
  template <typename T> void checkType() const;

  ElementType elementType = ElementType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> strides;
  int64_t numElements = 0;
  size_t pageOffset = 0;
  /// The allocation (page aligned) and the first element within it.
  std::unique_ptr<void, AlignedFree> storage;
  void *data = nullptr;
};

/// Element-wise tolerance: an element passes when
/// |actual - expected| <= absTol + relTol * |expected|.
struct Tolerance {
  double absTol = 0.0;
  double relTol = 0.0;

  /// Tolerance for results of dot products of length `reductionLength`
  /// whose inputs are O(1) (e.g. uniform in [-1, 1]): rounding errors of two
  /// different summation orders grow at worst linearly with the length, so
  /// both bounds are `factor * reductionLength * eps(type)` (at least
  /// `factor * eps`). A wrong kernel (a missing or doubled term) gives
  /// errors of O(1), far above this bound for any practical length.
  static Tolerance forReduction(ElementType type, int64_t reductionLength,
                                double factor = 4.0);
};

/// Outcome of comparing two buffers.
struct ComparisonResult {
  /// True when every element is within tolerance (and nothing is NaN unless
  /// both sides are NaN).
  bool passed = true;
  /// Largest |actual - expected| over all elements.
  double maxAbsError = 0.0;
  /// Largest |actual - expected| / max(|expected|, tiny) over all elements.
  double maxRelError = 0.0;
  /// Number of elements outside the tolerance.
  int64_t numMismatches = 0;
  /// Multi-index of the first (in row-major order) mismatching element and
  /// the two values there; empty when passed.
  llvm::SmallVector<int64_t> firstMismatch;
  double firstActual = 0.0;
  double firstExpected = 0.0;

  /// One-line human-readable summary.
  std::string summary() const;
};

/// Compares `actual` against `expected` element by element. Fails (as an
/// llvm::Error) only when the two buffers differ in type or shape.
llvm::Expected<ComparisonResult> compareBuffers(const Buffer &actual,
                                                const Buffer &expected,
                                                const Tolerance &tolerance);

//===----------------------------------------------------------------------===//
// Template implementation.
//===----------------------------------------------------------------------===//

template <typename T> void Buffer::checkType() const {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "Buffer holds float or double");
  assert(((std::is_same_v<T, float> && elementType == ElementType::F32) ||
          (std::is_same_v<T, double> && elementType == ElementType::F64)) &&
         "Buffer::getData<T>() with the wrong element type");
}

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_BUFFER_H
