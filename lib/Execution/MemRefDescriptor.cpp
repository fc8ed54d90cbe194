//===- MemRefDescriptor.cpp - C-interface memref descriptors --------------===//
//
// Building descriptors from buffers and copying strided memrefs out.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/MemRefDescriptor.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir::tiletune;

MemRefDescriptor::MemRefDescriptor(unsigned rank)
    : rank(rank), words(getDescriptorWords(rank), 0) {}

MemRefDescriptor MemRefDescriptor::fromBuffer(Buffer &buffer) {
  MemRefDescriptor desc(buffer.getRank());
  int64_t ptr = static_cast<int64_t>(
      reinterpret_cast<intptr_t>(buffer.getRawData()));
  desc.words[0] = ptr;
  desc.words[1] = ptr;
  desc.words[2] = 0;
  for (unsigned d = 0; d < desc.rank; ++d) {
    desc.words[3 + d] = buffer.getShape()[d];
    desc.words[3 + desc.rank + d] = buffer.getStrides()[d];
  }
  return desc;
}

MemRefDescriptor MemRefDescriptor::fromWords(unsigned rank,
                                             const int64_t *raw) {
  MemRefDescriptor desc(rank);
  std::memcpy(desc.words.data(), raw, desc.words.size() * sizeof(int64_t));
  return desc;
}

llvm::Expected<Buffer> MemRefDescriptor::copyToBuffer(ElementType type) const {
  auto buffer = Buffer::create(type, getSizes());
  if (!buffer)
    return buffer.takeError();
  if (buffer->getNumElements() == 0)
    return buffer;
  if (!getAlignedPtr())
    return llvm::createStringError("memref descriptor has a null data pointer");
  size_t elt = getElementByteSize(type);
  const char *base =
      static_cast<const char *>(getAlignedPtr()) + getOffset() * elt;
  char *dst = static_cast<char *>(buffer->getRawData());
  // Walk the multi-index in row-major order; copy one element at a time
  // unless the innermost dimension is contiguous.
  auto sizes = getSizes(), strides = getStrides();
  if (rank == 0) {
    std::memcpy(dst, base, elt);
    return buffer;
  }
  int64_t inner = sizes[rank - 1];
  bool contiguousInner = strides[rank - 1] == 1;
  llvm::SmallVector<int64_t, 8> index(rank, 0);
  int64_t rows = buffer->getNumElements() / inner;
  for (int64_t row = 0; row < rows; ++row) {
    int64_t srcOffset = 0;
    for (unsigned d = 0; d + 1 < rank; ++d)
      srcOffset += index[d] * strides[d];
    const char *src = base + srcOffset * elt;
    if (contiguousInner) {
      std::memcpy(dst, src, inner * elt);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(dst + i * elt, src + i * strides[rank - 1] * elt, elt);
    }
    dst += inner * elt;
    // Advance the outer multi-index.
    for (int d = static_cast<int>(rank) - 2; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return buffer;
}
