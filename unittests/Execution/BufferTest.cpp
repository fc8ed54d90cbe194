//===- BufferTest.cpp - Tests of Buffer and memref descriptors ------------===//
//
// Allocation, alignment, fills, comparison and descriptor marshalling.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/MemRefDescriptor.h"

#include "gtest/gtest.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <algorithm>
#include <cstdint>

using namespace mlir::tiletune;

namespace {

Buffer make(ElementType type, llvm::ArrayRef<int64_t> shape) {
  auto buffer = Buffer::create(type, shape);
  EXPECT_TRUE(static_cast<bool>(buffer)) << llvm::toString(buffer.takeError());
  return std::move(*buffer);
}

TEST(BufferTest, ShapeStridesAlignment) {
  Buffer b = make(ElementType::F32, {3, 5, 7});
  EXPECT_EQ(b.getRank(), 3u);
  EXPECT_EQ(b.getNumElements(), 105);
  EXPECT_EQ(b.getByteSize(), 105u * 4);
  EXPECT_EQ(b.getStrides(), llvm::ArrayRef<int64_t>({35, 7, 1}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.getRawData()) % Buffer::kAlignment,
            0u);
  EXPECT_EQ(b.getTypeString(), "3x5x7xf32");
  for (int64_t i = 0; i < b.getNumElements(); ++i)
    EXPECT_EQ(b.getAsDouble(i), 0.0);
  EXPECT_EQ(b.delinearize(7 * 5 * 2 + 7 * 3 + 4),
            llvm::SmallVector<int64_t>({2, 3, 4}));
}

/// Where the data starts within its page is what create() was told (rounded
/// down to the alignment), whatever the heap did before, and a clone keeps
/// it; the staggered offsets of a kernel's arguments differ from each other.
TEST(BufferTest, PageOffsetIsChosenNotLeftToTheHeap) {
  size_t page = getPageByteSize();
  ASSERT_GE(page, Buffer::kAlignment);
  auto pageOffsetOf = [&](const Buffer &b) {
    return reinterpret_cast<uintptr_t>(b.getRawData()) % page;
  };
  llvm::SmallVector<Buffer> kept;
  for (size_t asked : {size_t(0), size_t(64), size_t(1088), size_t(1100),
                       page + 128}) {
    // An odd-sized allocation in between moves the heap's next address.
    kept.push_back(make(ElementType::F32, {int64_t(asked % 7 + 3)}));
    auto b = Buffer::create(ElementType::F32, {5, 9}, asked);
    ASSERT_TRUE(static_cast<bool>(b)) << llvm::toString(b.takeError());
    size_t expected = asked % page / Buffer::kAlignment * Buffer::kAlignment;
    EXPECT_EQ(b->getPageOffset(), expected) << asked;
    EXPECT_EQ(pageOffsetOf(*b), expected) << asked;
    b->fillRandom(3);
    Buffer copy = b->clone();
    EXPECT_EQ(pageOffsetOf(copy), expected);
    EXPECT_EQ(copy.getAsDouble(44), b->getAsDouble(44));
    Buffer moved = std::move(copy);
    EXPECT_EQ(pageOffsetOf(moved), expected);
    EXPECT_EQ(moved.getAsDouble(44), b->getAsDouble(44));
    kept.push_back(std::move(moved));
  }
  llvm::SmallVector<size_t> offsets;
  for (unsigned i = 0; i < 4; ++i) {
    offsets.push_back(getStaggeredPageOffset(i));
    EXPECT_EQ(offsets.back() % Buffer::kAlignment, 0u);
    EXPECT_LT(offsets.back(), page);
  }
  EXPECT_EQ(offsets[0], 0u);
  llvm::sort(offsets);
  EXPECT_EQ(std::unique(offsets.begin(), offsets.end()), offsets.end());
  // An empty buffer still has a valid data pointer.
  Buffer empty = make(ElementType::F64, {0, 4});
  EXPECT_NE(empty.getRawData(), nullptr);
}

TEST(BufferTest, CreateRejectsBadShapes) {
  auto negative = Buffer::create(ElementType::F32, {4, -1});
  ASSERT_FALSE(static_cast<bool>(negative));
  EXPECT_NE(llvm::toString(negative.takeError()).find("negative"),
            std::string::npos);
  auto tooDeep = Buffer::create(ElementType::F64, {1, 1, 1, 1, 1, 1, 1, 1});
  ASSERT_FALSE(static_cast<bool>(tooDeep));
  llvm::consumeError(tooDeep.takeError());
  auto huge = Buffer::create(ElementType::F64, {1ll << 40, 1ll << 40});
  ASSERT_FALSE(static_cast<bool>(huge));
  llvm::consumeError(huge.takeError());
}

TEST(BufferTest, RandomFillIsSeededAndInRange) {
  Buffer a = make(ElementType::F32, {64, 33});
  Buffer b = make(ElementType::F32, {64, 33});
  Buffer c = make(ElementType::F32, {64, 33});
  a.fillRandom(42);
  b.fillRandom(42);
  c.fillRandom(43);
  bool allSame = true, someDifferent = false;
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < a.getNumElements(); ++i) {
    allSame &= a.getAsDouble(i) == b.getAsDouble(i);
    someDifferent |= a.getAsDouble(i) != c.getAsDouble(i);
    lo = std::min(lo, a.getAsDouble(i));
    hi = std::max(hi, a.getAsDouble(i));
  }
  EXPECT_TRUE(allSame);
  EXPECT_TRUE(someDifferent);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9); // 2112 samples cover the range.
  EXPECT_GT(hi, 0.9);

  Buffer d = make(ElementType::F64, {10});
  d.fillRandom(7, 2.0, 3.0);
  for (int64_t i = 0; i < 10; ++i) {
    EXPECT_GE(d.getData<double>()[i], 2.0);
    EXPECT_LT(d.getData<double>()[i], 3.0);
  }
}

TEST(BufferTest, ConstantFillCloneAndCopy) {
  Buffer a = make(ElementType::F64, {4, 4});
  a.fillConstant(2.5);
  Buffer b = a.clone();
  EXPECT_NE(a.getRawData(), b.getRawData());
  EXPECT_EQ(b.getData<double>()[15], 2.5);
  b.setFromDouble(3, -1.0);
  EXPECT_EQ(a.getData<double>()[3], 2.5);
  EXPECT_FALSE(static_cast<bool>(a.copyFrom(b)));
  EXPECT_EQ(a.getData<double>()[3], -1.0);
  Buffer wrong = make(ElementType::F64, {16});
  llvm::Error err = a.copyFrom(wrong);
  EXPECT_TRUE(static_cast<bool>(err));
  llvm::consumeError(std::move(err));
}

TEST(BufferTest, CompareReportsFirstMismatch) {
  Buffer expected = make(ElementType::F32, {4, 8});
  expected.fillRandom(1);
  Buffer actual = expected.clone();
  Tolerance tol = Tolerance::forReduction(ElementType::F32, 64);
  auto same = compareBuffers(actual, expected, tol);
  ASSERT_TRUE(static_cast<bool>(same));
  EXPECT_TRUE(same->passed);
  EXPECT_EQ(same->maxAbsError, 0.0);

  // A tiny perturbation is within tolerance, a large one is not.
  actual.getData<float>()[5] += 1e-6f;
  actual.getData<float>()[2 * 8 + 3] += 0.5f;
  actual.getData<float>()[3 * 8 + 1] -= 0.25f;
  auto diff = compareBuffers(actual, expected, tol);
  ASSERT_TRUE(static_cast<bool>(diff));
  EXPECT_FALSE(diff->passed);
  EXPECT_EQ(diff->numMismatches, 2);
  EXPECT_EQ(diff->firstMismatch, llvm::SmallVector<int64_t>({2, 3}));
  EXPECT_NEAR(diff->maxAbsError, 0.5, 1e-6);
  EXPECT_NE(diff->summary().find("[2, 3]"), std::string::npos);

  // NaN never passes against a number.
  actual = expected.clone();
  actual.getData<float>()[0] = std::nanf("");
  auto nan = compareBuffers(actual, expected, tol);
  ASSERT_TRUE(static_cast<bool>(nan));
  EXPECT_FALSE(nan->passed);

  Buffer other = make(ElementType::F64, {4, 8});
  auto mismatch = compareBuffers(other, expected, tol);
  EXPECT_FALSE(static_cast<bool>(mismatch));
  llvm::consumeError(mismatch.takeError());
}

TEST(BufferTest, ToleranceGrowsWithReductionLength) {
  Tolerance small = Tolerance::forReduction(ElementType::F32, 16);
  Tolerance large = Tolerance::forReduction(ElementType::F32, 4096);
  Tolerance f64 = Tolerance::forReduction(ElementType::F64, 4096);
  EXPECT_LT(small.relTol, large.relTol);
  EXPECT_LT(f64.relTol, large.relTol);
  // Still far below an O(1) error for realistic lengths.
  EXPECT_LT(large.absTol, 1e-2);
}

class DescriptorRankTest : public ::testing::TestWithParam<int> {};

TEST_P(DescriptorRankTest, RoundTripsAnyRank) {
  int rank = GetParam();
  llvm::SmallVector<int64_t> shape;
  for (int d = 0; d < rank; ++d)
    shape.push_back(2 + d % 3);
  Buffer b = make(ElementType::F64, shape);
  b.fillRandom(rank);
  MemRefDescriptor desc = MemRefDescriptor::fromBuffer(b);
  EXPECT_EQ(desc.getRank(), static_cast<unsigned>(rank));
  EXPECT_EQ(desc.getWords().size(), getDescriptorWords(rank));
  EXPECT_EQ(desc.getAllocatedPtr(), b.getRawData());
  EXPECT_EQ(desc.getAlignedPtr(), b.getRawData());
  EXPECT_EQ(desc.getOffset(), 0);
  EXPECT_EQ(desc.getSizes(), b.getShape());
  EXPECT_EQ(desc.getStrides(), b.getStrides());
  // The struct pointer points at {ptr, ptr, offset, sizes..., strides...}.
  auto *words = static_cast<int64_t *>(desc.getStructPtr());
  EXPECT_EQ(words[0], reinterpret_cast<intptr_t>(b.getRawData()));
  for (int d = 0; d < rank; ++d) {
    EXPECT_EQ(words[3 + d], shape[d]);
    EXPECT_EQ(words[3 + rank + d], b.getStrides()[d]);
  }
  auto copy = desc.copyToBuffer(ElementType::F64);
  ASSERT_TRUE(static_cast<bool>(copy));
  auto cmp = compareBuffers(*copy, b, Tolerance{});
  ASSERT_TRUE(static_cast<bool>(cmp));
  EXPECT_TRUE(cmp->passed);
}

INSTANTIATE_TEST_SUITE_P(Ranks, DescriptorRankTest,
                         ::testing::Values(0, 1, 2, 3, 4, 5, 6, 7));

TEST(DescriptorTest, CopiesStridedView) {
  // A 3x2 view with offset 1 and strides {4, 2} into a 4x4 row-major array.
  Buffer base = make(ElementType::F32, {4, 4});
  for (int i = 0; i < 16; ++i)
    base.getData<float>()[i] = static_cast<float>(i);
  int64_t words[3 + 4] = {reinterpret_cast<intptr_t>(base.getRawData()),
                          reinterpret_cast<intptr_t>(base.getRawData()),
                          1, 3, 2, 4, 2};
  MemRefDescriptor view = MemRefDescriptor::fromWords(2, words);
  auto copy = view.copyToBuffer(ElementType::F32);
  ASSERT_TRUE(static_cast<bool>(copy));
  EXPECT_EQ(copy->getShape(), llvm::ArrayRef<int64_t>({3, 2}));
  const float expected[] = {1, 3, 5, 7, 9, 11};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(copy->getData<float>()[i], expected[i]);
}

} // namespace
