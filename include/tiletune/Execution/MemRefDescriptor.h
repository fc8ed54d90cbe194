//===- MemRefDescriptor.h - C-interface memref descriptors ------*- C++ -*-===//
//
// Runtime storage of ranked memref descriptors, the structs that the
// `_mlir_ciface_` wrappers of JIT-compiled functions take by pointer:
//   { T *allocated; T *aligned; int64_t offset; int64_t sizes[R];
//     int64_t strides[R]; }
// The rank is a run-time value, so one type serves ranks 0 to 7.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_MEMREFDESCRIPTOR_H
#define TILETUNE_EXECUTION_MEMREFDESCRIPTOR_H

#include "tiletune/Execution/Buffer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace mlir::tiletune {

static_assert(sizeof(void *) == sizeof(int64_t),
              "memref descriptors are laid out for 64-bit pointers");

/// Number of 64-bit words of a descriptor of rank `rank` (3 + 2 * rank).
constexpr unsigned getDescriptorWords(unsigned rank) { return 3 + 2 * rank; }

/// One ranked memref descriptor, owning its words (not the data it points to).
class MemRefDescriptor {
public:
  /// A zeroed descriptor of the given rank (for results filled by a kernel).
  explicit MemRefDescriptor(unsigned rank = 0);

  /// Describes all of `buffer` (offset 0, its sizes and row-major strides).
  static MemRefDescriptor fromBuffer(Buffer &buffer);

  /// Reads a descriptor of rank `rank` from raw words laid out as above.
  static MemRefDescriptor fromWords(unsigned rank, const int64_t *words);

  unsigned getRank() const { return rank; }
  void *getAllocatedPtr() const { return wordToPtr(words[0]); }
  void *getAlignedPtr() const { return wordToPtr(words[1]); }
  int64_t getOffset() const { return words[2]; }
  llvm::ArrayRef<int64_t> getSizes() const {
    return llvm::ArrayRef<int64_t>(words).slice(3, rank);
  }
  llvm::ArrayRef<int64_t> getStrides() const {
    return llvm::ArrayRef<int64_t>(words).slice(3 + rank, rank);
  }

  /// Pointer to the descriptor struct, what a `_mlir_ciface_` function takes.
  void *getStructPtr() { return words.data(); }
  /// The raw words (3 + 2 * rank of them).
  llvm::ArrayRef<int64_t> getWords() const { return words; }

  /// Copies the (possibly strided) memref this descriptor describes into a
  /// new contiguous buffer of element type `type`. Fails on a null data
  /// pointer or a rank above kMaxBufferRank.
  llvm::Expected<Buffer> copyToBuffer(ElementType type) const;

private:
  static void *wordToPtr(int64_t w) {
    return reinterpret_cast<void *>(static_cast<intptr_t>(w));
  }
  unsigned rank;
  llvm::SmallVector<int64_t, getDescriptorWords(4)> words;
};

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_MEMREFDESCRIPTOR_H
