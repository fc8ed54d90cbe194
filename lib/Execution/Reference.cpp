//===- Reference.cpp - Plain C++ reference kernels ------------------------===//
//
// Reference matmul, batch_matmul and 2-D convolutions with loop orders chosen
// so that the innermost loop streams over contiguous memory.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/Reference.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace mlir::tiletune;

namespace {

llvm::Error checkSameType(const Buffer &a, const Buffer &b, const Buffer &c,
                          llvm::StringRef op) {
  if (a.getElementType() != b.getElementType() ||
      a.getElementType() != c.getElementType())
    return llvm::createStringError(
        llvm::formatv("{0}: operands have different element types", op));
  return llvm::Error::success();
}

llvm::Error shapeError(llvm::StringRef op, const Buffer &a, const Buffer &b,
                       const Buffer &c) {
  return llvm::createStringError(
      llvm::formatv("{0}: incompatible operand shapes {1}, {2} -> {3}", op,
                    a.getTypeString(), b.getTypeString(), c.getTypeString()));
}

/// C (MxN, row stride ldc) += A (MxK, lda) * B (KxN, ldb). i-k-j order: the
/// inner loop is an axpy over a row of B into a row of C.
template <typename T>
void matmulKernel(const T *a, const T *b, T *c, int64_t m, int64_t n,
                  int64_t k) {
  // Block over k and n so a panel of B stays in cache across rows of A.
  constexpr int64_t kBlockK = 128, kBlockN = 512;
  for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
    int64_t j1 = std::min(n, j0 + kBlockN);
    for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
      int64_t p1 = std::min(k, p0 + kBlockK);
      for (int64_t i = 0; i < m; ++i) {
        T *__restrict crow = c + i * n;
        const T *arow = a + i * k;
        for (int64_t p = p0; p < p1; ++p) {
          const T av = arow[p];
          const T *__restrict brow = b + p * n;
          for (int64_t j = j0; j < j1; ++j)
            crow[j] += av * brow[j];
        }
      }
    }
  }
}

template <typename T>
void conv2DNhwcHwcfKernel(const T *in, const T *flt, T *out,
                          llvm::ArrayRef<int64_t> is,
                          llvm::ArrayRef<int64_t> fs,
                          llvm::ArrayRef<int64_t> os, const Conv2DParams &p) {
  const int64_t n = os[0], oh = os[1], ow = os[2], f = os[3];
  const int64_t ih = is[1], iw = is[2], c = is[3];
  const int64_t kh = fs[0], kw = fs[1];
  (void)ih;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        T *__restrict o = out + ((b * oh + y) * ow + x) * f;
        for (int64_t r = 0; r < kh; ++r) {
          int64_t iy = y * p.strides[0] + r * p.dilations[0];
          for (int64_t s = 0; s < kw; ++s) {
            int64_t ix = x * p.strides[1] + s * p.dilations[1];
            const T *i = in + ((b * ih + iy) * iw + ix) * c;
            const T *fl = flt + (r * kw + s) * c * f;
            for (int64_t ch = 0; ch < c; ++ch) {
              const T iv = i[ch];
              const T *__restrict frow = fl + ch * f;
              for (int64_t q = 0; q < f; ++q)
                o[q] += iv * frow[q];
            }
          }
        }
      }
}

template <typename T>
void conv2DNchwFchwKernel(const T *in, const T *flt, T *out,
                          llvm::ArrayRef<int64_t> is,
                          llvm::ArrayRef<int64_t> fs,
                          llvm::ArrayRef<int64_t> os, const Conv2DParams &p) {
  const int64_t n = os[0], f = os[1], oh = os[2], ow = os[3];
  const int64_t c = is[1], ih = is[2], iw = is[3];
  const int64_t kh = fs[2], kw = fs[3];
  const int64_t sw = p.strides[1];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t q = 0; q < f; ++q) {
      T *oplane = out + (b * f + q) * oh * ow;
      for (int64_t ch = 0; ch < c; ++ch) {
        const T *iplane = in + (b * c + ch) * ih * iw;
        for (int64_t r = 0; r < kh; ++r)
          for (int64_t s = 0; s < kw; ++s) {
            const T fv = flt[((q * c + ch) * kh + r) * kw + s];
            for (int64_t y = 0; y < oh; ++y) {
              int64_t iy = y * p.strides[0] + r * p.dilations[0];
              const T *irow = iplane + iy * iw + s * p.dilations[1];
              T *__restrict orow = oplane + y * ow;
              if (sw == 1) {
                for (int64_t x = 0; x < ow; ++x)
                  orow[x] += fv * irow[x];
              } else {
                for (int64_t x = 0; x < ow; ++x)
                  orow[x] += fv * irow[x * sw];
              }
            }
          }
      }
    }
}

llvm::Error checkConvParams(llvm::StringRef op, const Conv2DParams &p) {
  for (int64_t v : {p.strides[0], p.strides[1], p.dilations[0],
                    p.dilations[1]})
    if (v < 1)
      return llvm::createStringError(
          llvm::formatv("{0}: strides and dilations must be >= 1", op));
  return llvm::Error::success();
}

} // namespace

llvm::Error mlir::tiletune::referenceMatmul(const Buffer &a, const Buffer &b,
                                            Buffer &c) {
  if (auto err = checkSameType(a, b, c, "matmul"))
    return err;
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2 ||
      a.getShape()[0] != c.getShape()[0] ||
      b.getShape()[1] != c.getShape()[1] || a.getShape()[1] != b.getShape()[0])
    return shapeError("matmul", a, b, c);
  int64_t m = c.getShape()[0], n = c.getShape()[1], k = a.getShape()[1];
  if (a.getElementType() == ElementType::F32)
    matmulKernel(a.getData<float>(), b.getData<float>(), c.getData<float>(), m,
                 n, k);
  else
    matmulKernel(a.getData<double>(), b.getData<double>(),
                 c.getData<double>(), m, n, k);
  return llvm::Error::success();
}

llvm::Error mlir::tiletune::referenceBatchMatmul(const Buffer &a,
                                                 const Buffer &b, Buffer &c) {
  if (auto err = checkSameType(a, b, c, "batch_matmul"))
    return err;
  if (a.getRank() != 3 || b.getRank() != 3 || c.getRank() != 3 ||
      a.getShape()[0] != c.getShape()[0] ||
      b.getShape()[0] != c.getShape()[0] ||
      a.getShape()[1] != c.getShape()[1] ||
      b.getShape()[2] != c.getShape()[2] || a.getShape()[2] != b.getShape()[1])
    return shapeError("batch_matmul", a, b, c);
  int64_t batch = c.getShape()[0], m = c.getShape()[1], n = c.getShape()[2],
          k = a.getShape()[2];
  for (int64_t i = 0; i < batch; ++i) {
    if (a.getElementType() == ElementType::F32)
      matmulKernel(a.getData<float>() + i * m * k,
                   b.getData<float>() + i * k * n,
                   c.getData<float>() + i * m * n, m, n, k);
    else
      matmulKernel(a.getData<double>() + i * m * k,
                   b.getData<double>() + i * k * n,
                   c.getData<double>() + i * m * n, m, n, k);
  }
  return llvm::Error::success();
}

/// Checks the shapes of a convolution in the NHWC/HWCF layout (`nhwc`) or
/// the NCHW/FCHW layout, including that the input covers every window.
static llvm::Error checkConvShapes(llvm::StringRef op, const Buffer &in,
                                   const Buffer &flt, const Buffer &out,
                                   const Conv2DParams &p, bool nhwc) {
  if (in.getRank() != 4 || flt.getRank() != 4 || out.getRank() != 4)
    return shapeError(op, in, flt, out);
  auto is = in.getShape(), fs = flt.getShape(), os = out.getShape();
  int64_t n = is[0], c = nhwc ? is[3] : is[1];
  int64_t ih = nhwc ? is[1] : is[2], iw = nhwc ? is[2] : is[3];
  int64_t kh = nhwc ? fs[0] : fs[2], kw = nhwc ? fs[1] : fs[3];
  int64_t fc = nhwc ? fs[2] : fs[1], ff = nhwc ? fs[3] : fs[0];
  int64_t on = os[0], of = nhwc ? os[3] : os[1];
  int64_t oh = nhwc ? os[1] : os[2], ow = nhwc ? os[2] : os[3];
  if (n != on || c != fc || ff != of || oh < 1 || ow < 1 ||
      (oh - 1) * p.strides[0] + (kh - 1) * p.dilations[0] + 1 > ih ||
      (ow - 1) * p.strides[1] + (kw - 1) * p.dilations[1] + 1 > iw)
    return shapeError(op, in, flt, out);
  return llvm::Error::success();
}

llvm::Error mlir::tiletune::referenceConv2DNhwcHwcf(const Buffer &input,
                                                    const Buffer &filter,
                                                    Buffer &output,
                                                    const Conv2DParams &p) {
  llvm::StringRef op = "conv_2d_nhwc_hwcf";
  if (auto err = checkSameType(input, filter, output, op))
    return err;
  if (auto err = checkConvParams(op, p))
    return err;
  if (auto err = checkConvShapes(op, input, filter, output, p, /*nhwc=*/true))
    return err;
  if (input.getElementType() == ElementType::F32)
    conv2DNhwcHwcfKernel(input.getData<float>(), filter.getData<float>(),
                         output.getData<float>(), input.getShape(),
                         filter.getShape(), output.getShape(), p);
  else
    conv2DNhwcHwcfKernel(input.getData<double>(), filter.getData<double>(),
                         output.getData<double>(), input.getShape(),
                         filter.getShape(), output.getShape(), p);
  return llvm::Error::success();
}

llvm::Error mlir::tiletune::referenceConv2DNchwFchw(const Buffer &input,
                                                    const Buffer &filter,
                                                    Buffer &output,
                                                    const Conv2DParams &p) {
  llvm::StringRef op = "conv_2d_nchw_fchw";
  if (auto err = checkSameType(input, filter, output, op))
    return err;
  if (auto err = checkConvParams(op, p))
    return err;
  if (auto err = checkConvShapes(op, input, filter, output, p, /*nhwc=*/false))
    return err;
  if (input.getElementType() == ElementType::F32)
    conv2DNchwFchwKernel(input.getData<float>(), filter.getData<float>(),
                         output.getData<float>(), input.getShape(),
                         filter.getShape(), output.getShape(), p);
  else
    conv2DNchwFchwKernel(input.getData<double>(), filter.getData<double>(),
                         output.getData<double>(), input.getShape(),
                         filter.getShape(), output.getShape(), p);
  return llvm::Error::success();
}

/// `in` with its dimensions permuted: result dim i is source dim perm[i].
template <typename T>
static void permuteInto(const Buffer &in, Buffer &out,
                        llvm::ArrayRef<int64_t> perm) {
  llvm::ArrayRef<int64_t> shape = out.getShape();
  unsigned rank = shape.size();
  // Strides of the source, in the order of the result's dims.
  llvm::SmallVector<int64_t> srcStrides(rank), srcRowMajor(rank, 1);
  for (int i = int(rank) - 2; i >= 0; --i)
    srcRowMajor[i] = srcRowMajor[i + 1] * in.getShape()[i + 1];
  for (unsigned i = 0; i < rank; ++i)
    srcStrides[i] = srcRowMajor[perm[i]];
  const T *src = in.getData<T>();
  T *dst = out.getData<T>();
  llvm::SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0, e = out.getNumElements(); linear < e; ++linear) {
    int64_t offset = 0;
    for (unsigned i = 0; i < rank; ++i)
      offset += index[i] * srcStrides[i];
    dst[linear] = src[offset];
    for (int i = int(rank) - 1; i >= 0; --i) {
      if (++index[i] < shape[i])
        break;
      index[i] = 0;
    }
  }
}

llvm::Expected<Buffer> mlir::tiletune::permuteBuffer(
    const Buffer &in, llvm::ArrayRef<int64_t> perm) {
  if (perm.size() != in.getRank())
    return llvm::createStringError("permutation of the wrong rank");
  llvm::SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(in.getRank()))
      return llvm::createStringError("invalid permutation");
    shape.push_back(in.getShape()[p]);
  }
  llvm::Expected<Buffer> out = Buffer::create(in.getElementType(), shape);
  if (!out)
    return out.takeError();
  if (in.getElementType() == ElementType::F32)
    permuteInto<float>(in, *out, perm);
  else
    permuteInto<double>(in, *out, perm);
  return out;
}

llvm::Error mlir::tiletune::referenceMatmulForm(const Buffer &a,
                                                const Buffer &b, Buffer &c,
                                                bool batched, bool transposeA,
                                                bool transposeB) {
  unsigned rank = batched ? 3 : 2;
  if (a.getRank() != rank || b.getRank() != rank)
    return shapeError(batched ? "batch_matmul" : "matmul", a, b, c);
  llvm::SmallVector<int64_t> swap =
      batched ? llvm::SmallVector<int64_t>{0, 2, 1}
              : llvm::SmallVector<int64_t>{1, 0};
  std::optional<Buffer> plainA, plainB;
  if (transposeA) {
    llvm::Expected<Buffer> t = permuteBuffer(a, swap);
    if (!t)
      return t.takeError();
    plainA = std::move(*t);
  }
  if (transposeB) {
    llvm::Expected<Buffer> t = permuteBuffer(b, swap);
    if (!t)
      return t.takeError();
    plainB = std::move(*t);
  }
  const Buffer &lhs = plainA ? *plainA : a;
  const Buffer &rhs = plainB ? *plainB : b;
  return batched ? referenceBatchMatmul(lhs, rhs, c)
                 : referenceMatmul(lhs, rhs, c);
}

llvm::Error mlir::tiletune::referenceConv2DNhwcFhwc(const Buffer &input,
                                                    const Buffer &filter,
                                                    Buffer &output,
                                                    const Conv2DParams &p) {
  if (filter.getRank() != 4)
    return shapeError("conv_2d_nhwc_fhwc", input, filter, output);
  llvm::Expected<Buffer> hwcf = permuteBuffer(filter, {1, 2, 3, 0});
  if (!hwcf)
    return hwcf.takeError();
  return referenceConv2DNhwcHwcf(input, *hwcf, output, p);
}

//===----------------------------------------------------------------------===//
// Grouped convolutions
//===----------------------------------------------------------------------===//

namespace {
/// The sizes of a grouped conv read from its operands in either layout.
struct GroupedConvSizes {
  int64_t n, g, c, ih, iw, f, kh, kw, oh, ow;
};

/// Reads and checks the shapes of a grouped conv: NGCHW/FGCHW/NGFHW when
/// `nhwgc` is false, NHWGC/GFHWC/NHWGF when it is true.
llvm::Expected<GroupedConvSizes>
checkGroupedConvShapes(llvm::StringRef op, const Buffer &in, const Buffer &flt,
                       const Buffer &out, const Conv2DParams &p, bool nhwgc) {
  if (auto err = checkSameType(in, flt, out, op))
    return std::move(err);
  if (auto err = checkConvParams(op, p))
    return std::move(err);
  if (in.getRank() != 5 || flt.getRank() != 5 || out.getRank() != 5)
    return shapeError(op, in, flt, out);
  auto is = in.getShape(), fs = flt.getShape(), os = out.getShape();
  GroupedConvSizes s;
  if (nhwgc) {
    s = {is[0], is[3], is[4], is[1], is[2], fs[1], fs[2], fs[3], os[1], os[2]};
    if (fs[0] != s.g || fs[4] != s.c || os[0] != s.n || os[3] != s.g ||
        os[4] != s.f)
      return shapeError(op, in, flt, out);
  } else {
    s = {is[0], is[1], is[2], is[3], is[4], fs[0], fs[3], fs[4], os[3], os[4]};
    if (fs[1] != s.g || fs[2] != s.c || os[0] != s.n || os[1] != s.g ||
        os[2] != s.f)
      return shapeError(op, in, flt, out);
  }
  if (s.oh < 1 || s.ow < 1 ||
      (s.oh - 1) * p.strides[0] + (s.kh - 1) * p.dilations[0] + 1 > s.ih ||
      (s.ow - 1) * p.strides[1] + (s.kw - 1) * p.dilations[1] + 1 > s.iw)
    return shapeError(op, in, flt, out);
  return s;
}

/// Both grouped layouts by element strides: the innermost loop runs over
/// the output width (NGCHW) or the filters of a group (NHWGC).
template <typename T>
void groupedConvKernel(const T *in, const T *flt, T *out,
                       const GroupedConvSizes &s, const Conv2DParams &p,
                       bool nhwgc) {
  // Element strides of each index of the three operands.
  int64_t inN, inG, inC, inH, inW, fF, fG, fC, fH, fW, oN, oG, oF, oH, oW;
  if (nhwgc) {
    inC = 1, inG = s.c, inW = s.g * s.c, inH = s.iw * inW, inN = s.ih * inH;
    fC = 1, fW = s.c, fH = s.kw * fW, fF = s.kh * fH, fG = s.f * fF;
    oF = 1, oG = s.f, oW = s.g * s.f, oH = s.ow * oW, oN = s.oh * oH;
  } else {
    inW = 1, inH = s.iw, inC = s.ih * s.iw, inG = s.c * inC, inN = s.g * inG;
    fW = 1, fH = s.kw, fC = s.kh * fH, fG = s.c * fC, fF = s.g * fG;
    oW = 1, oH = s.ow, oF = s.oh * oH, oG = s.f * oF, oN = s.g * oG;
  }
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t g = 0; g < s.g; ++g)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x)
          for (int64_t q = 0; q < s.f; ++q) {
            T acc = out[b * oN + g * oG + y * oH + x * oW + q * oF];
            for (int64_t r = 0; r < s.kh; ++r) {
              int64_t iy = y * p.strides[0] + r * p.dilations[0];
              for (int64_t t = 0; t < s.kw; ++t) {
                int64_t ix = x * p.strides[1] + t * p.dilations[1];
                const T *i = in + b * inN + g * inG + iy * inH + ix * inW;
                const T *fl = flt + q * fF + g * fG + r * fH + t * fW;
                for (int64_t ch = 0; ch < s.c; ++ch)
                  acc += i[ch * inC] * fl[ch * fC];
              }
            }
            out[b * oN + g * oG + y * oH + x * oW + q * oF] = acc;
          }
}

llvm::Error groupedConv(llvm::StringRef op, const Buffer &input,
                        const Buffer &filter, Buffer &output,
                        const Conv2DParams &p, bool nhwgc) {
  llvm::Expected<GroupedConvSizes> sizes =
      checkGroupedConvShapes(op, input, filter, output, p, nhwgc);
  if (!sizes)
    return sizes.takeError();
  if (input.getElementType() == ElementType::F32)
    groupedConvKernel(input.getData<float>(), filter.getData<float>(),
                      output.getData<float>(), *sizes, p, nhwgc);
  else
    groupedConvKernel(input.getData<double>(), filter.getData<double>(),
                      output.getData<double>(), *sizes, p, nhwgc);
  return llvm::Error::success();
}
} // namespace

llvm::Error mlir::tiletune::referenceConv2DNgchwFgchw(const Buffer &input,
                                                      const Buffer &filter,
                                                      Buffer &output,
                                                      const Conv2DParams &p) {
  return groupedConv("conv_2d_ngchw_fgchw", input, filter, output, p,
                     /*nhwgc=*/false);
}

llvm::Error mlir::tiletune::referenceConv2DNhwgcGfhwc(const Buffer &input,
                                                      const Buffer &filter,
                                                      Buffer &output,
                                                      const Conv2DParams &p) {
  return groupedConv("conv_2d_nhwgc_gfhwc", input, filter, output, p,
                     /*nhwgc=*/true);
}
