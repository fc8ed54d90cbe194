//===- Reference.h - Plain C++ reference kernels ----------------*- C++ -*-===//
//
// Straightforward C++ implementations of the ops TileTune tunes, used to
// verify every compiled variant. They accumulate into the output like the
// linalg ops do (C += A * B), take the same layouts as the linalg named ops,
// and are written for locality (the innermost loop runs over contiguous
// memory and vectorizes) because the tuner verifies every variant it times.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_EXECUTION_REFERENCE_H
#define TILETUNE_EXECUTION_REFERENCE_H

#include "tiletune/Execution/Buffer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>

namespace mlir::tiletune {

/// Strides and dilations of a 2-D convolution ({h, w} each).
struct Conv2DParams {
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 2> dilations = {1, 1};
};

/// C[m, n] += sum_k A[m, k] * B[k, n]  (linalg.matmul).
/// A: MxK, B: KxN, C: MxN, all of one element type.
llvm::Error referenceMatmul(const Buffer &a, const Buffer &b, Buffer &c);

/// C[b, m, n] += sum_k A[b, m, k] * B[b, k, n]  (linalg.batch_matmul).
llvm::Error referenceBatchMatmul(const Buffer &a, const Buffer &b, Buffer &c);

/// O[n, oh, ow, f] += sum_{kh, kw, c} I[n, oh*sh + kh*dh, ow*sw + kw*dw, c]
///                                   * F[kh, kw, c, f]
/// (linalg.conv_2d_nhwc_hwcf; the input is already padded).
llvm::Error referenceConv2DNhwcHwcf(const Buffer &input, const Buffer &filter,
                                    Buffer &output,
                                    const Conv2DParams &params = {});

/// O[n, f, oh, ow] += sum_{c, kh, kw} I[n, c, oh*sh + kh*dh, ow*sw + kw*dw]
///                                   * F[f, c, kh, kw]
/// (linalg.conv_2d_nchw_fchw; the input is already padded).
llvm::Error referenceConv2DNchwFchw(const Buffer &input, const Buffer &filter,
                                    Buffer &output,
                                    const Conv2DParams &params = {});

/// C[b?, m, n] += sum_k A[b?, m, k] * B[b?, k, n] where A is stored
/// [b?][k][m] when `transposeA` and B [b?][n][k] when `transposeB`
/// (linalg.matmul / batch_matmul with transposing indexing_maps).
llvm::Error referenceMatmulForm(const Buffer &a, const Buffer &b, Buffer &c,
                                bool batched, bool transposeA,
                                bool transposeB);

/// O[n, oh, ow, f] += sum_{kh, kw, c} I[n, oh*sh + kh*dh, ow*sw + kw*dw, c]
///                                   * F[f, kh, kw, c]
/// (linalg.conv_2d_nhwc_fhwc, TOSA's layout; the input is already padded).
llvm::Error referenceConv2DNhwcFhwc(const Buffer &input, const Buffer &filter,
                                    Buffer &output,
                                    const Conv2DParams &params = {});

/// O[n, g, f, oh, ow] += sum_{c, kh, kw}
///     I[n, g, c, oh*sh + kh*dh, ow*sw + kw*dw] * F[f, g, c, kh, kw]
/// (linalg.conv_2d_ngchw_fgchw, a grouped conv; F and C are per group).
llvm::Error referenceConv2DNgchwFgchw(const Buffer &input, const Buffer &filter,
                                      Buffer &output,
                                      const Conv2DParams &params = {});

/// O[n, oh, ow, g, f] += sum_{kh, kw, c}
///     I[n, oh*sh + kh*dh, ow*sw + kw*dw, g, c] * F[g, f, kh, kw, c]
/// (linalg.conv_2d_nhwgc_gfhwc, a grouped conv; F and C are per group).
llvm::Error referenceConv2DNhwgcGfhwc(const Buffer &input, const Buffer &filter,
                                      Buffer &output,
                                      const Conv2DParams &params = {});

/// A copy of `in` with its dimensions permuted: dim i of the result is dim
/// perm[i] of `in`.
llvm::Expected<Buffer> permuteBuffer(const Buffer &in,
                                     llvm::ArrayRef<int64_t> perm);

} // namespace mlir::tiletune

#endif // TILETUNE_EXECUTION_REFERENCE_H
