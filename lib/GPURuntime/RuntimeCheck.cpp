//===- RuntimeCheck.cpp - Probe the CUDA runtime and run a self-test ------===//
//
// `tiletune-gpu-runtime-check` reports whether libtiletune_cuda_runtime can
// reach a CUDA device. With --selftest it also JIT-loads a small PTX kernel
// (y = a*x + y) through the same mgpu* entry points that lowered host code
// uses, launches it inside a profiling window and checks the result.
//
// Exit codes: 0 = device usable (and self-test passed), 1 = self-test failed,
// 2 = no usable CUDA device (the reason is printed), 3 = bad arguments.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/CudaRuntime.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

/// y[i] = a * x[i] + y[i] for i < n, one element per thread.
const char kSaxpyPTX[] = R"PTX(
.version 7.0
.target sm_70
.address_size 64

.visible .entry saxpy(.param .u64 px, .param .u64 py, .param .f32 pa,
                      .param .u32 pn)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [py];
  ld.param.f32 %f1, [pa];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)PTX";

int fail(const char *what) {
  const char *err = tiletuneCudaGetError();
  std::fprintf(stderr, "self-test failed: %s: %s\n", what,
               err ? err : "no error recorded");
  return 1;
}

int selfTest() {
  const unsigned n = 1 << 20;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), expected(n);
  for (unsigned i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.25f;
    y[i] = static_cast<float>(i % 13) - 6.0f;
    expected[i] = std::fma(a, x[i], y[i]);
  }
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kSaxpyPTX), 2);
  if (!module)
    return fail("loading the PTX module");
  void *function = mgpuModuleGetFunction(module, "saxpy");
  if (!function)
    return fail("looking up the kernel");
  void *dx = tiletuneCudaMalloc(n * sizeof(float));
  void *dy = tiletuneCudaMalloc(n * sizeof(float));
  if (!dx || !dy || tiletuneCudaCopyToDevice(dx, x.data(), n * 4) ||
      tiletuneCudaCopyToDevice(dy, y.data(), n * 4))
    return fail("allocating or copying buffers");
  float alpha = a;
  unsigned count = n;
  void *params[] = {&dx, &dy, &alpha, &count};
  if (tiletuneCudaProfileBegin())
    return fail("opening a profiling window");
  void *stream = mgpuStreamCreate();
  mgpuLaunchKernel(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream,
                   params, nullptr, 4);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  float ms = 0.0f;
  int launches = tiletuneCudaProfileEnd(&ms, 1);
  if (launches != 1)
    return fail("profiling the launch");
  if (tiletuneCudaCopyToHost(y.data(), dy, n * 4))
    return fail("copying the result back");
  unsigned wrong = 0;
  for (unsigned i = 0; i < n; ++i)
    wrong += std::fabs(y[i] - expected[i]) > 1e-5f * (1 + std::fabs(expected[i]));
  tiletuneCudaFree(dx);
  tiletuneCudaFree(dy);
  mgpuModuleUnload(module);
  if (const char *err = tiletuneCudaGetError())
    return fail(err);
  if (wrong) {
    std::fprintf(stderr, "self-test failed: %u of %u results wrong\n", wrong,
                 n);
    return 1;
  }
  std::printf("self-test passed: saxpy of %u floats in %.4f ms (%.1f GB/s)\n",
              n, ms, 3.0 * n * 4 / (ms * 1e-3) / 1e9);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  bool runSelfTest = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--selftest")) {
      runSelfTest = true;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: %s [--selftest]\n"
                  "Reports whether a CUDA device is usable through "
                  "libtiletune_cuda_runtime.\nExit codes: 0 usable, 1 "
                  "self-test failed, 2 no usable device, 3 bad arguments.\n",
                  argv[0]);
      return 0;
    } else {
      std::fprintf(stderr, "error: unknown argument '%s' (try --help)\n",
                   argv[i]);
      return 3;
    }
  }
  tiletuneCudaSetQuiet(1);
  if (!tiletuneCudaInit()) {
    const char *err = tiletuneCudaGetError();
    std::printf("no usable CUDA device: %s\n", err ? err : "unknown reason");
    return 2;
  }
  char description[512];
  if (!tiletuneCudaDeviceDescription(description, sizeof(description)))
    return fail("querying the device");
  std::printf("CUDA devices: %d\ndevice: %s\n", tiletuneCudaDeviceCount(),
              description);
  return runSelfTest ? selfTest() : 0;
}
