//===- GPUBench.cpp - TileTune GPU matmul vs cuBLAS on BERT shapes --------===//
//
// For each BERT GEMM of OpEvo's appendix B (M x K x N = 512x1024x1024,
// 512x1024x4096, 512x4096x1024): times cuBLAS sgemm (libcublas opened with
// dlopen, timed with a device synchronisation around a batch of calls) and
// TileTune kernels for a few cuda configs (lowered by tiletune-lower-gpu,
// verified against the C++ reference and timed with CUDA events), and prints
// one line per variant. On a machine without a GPU it says so and exits 2;
// --compile-only ranks the configs with ptxas instead.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/CudaRuntime.h"
#include "tiletune/Measure/GPUMeasurer.h"
#include "tiletune/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

struct Shape {
  int64_t m, k, n;
};
const Shape kShapes[] = {{512, 1024, 1024}, {512, 1024, 4096}, {512, 4096, 1024}};

/// Candidate configs (blocks / vthreads / threads / register tile of m and
/// n; shared and register tiles of k), all dividing the three shapes.
const char *kConfigs[] = {
    "block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 2, "
    "n = 2}, shared = {k = 16}, register = {k = 4}",
    "block = {m = 64, n = 128}, vthread = {m = 64, n = 64}, thread = {m = 4, "
    "n = 4}, shared = {k = 8}, register = {k = 2}, explicit_unroll = true",
    "block = {m = 128, n = 64}, vthread = {m = 64, n = 64}, thread = {m = 4, "
    "n = 4}, shared = {k = 16}, register = {k = 4}, explicit_unroll = true",
    "block = {m = 32, n = 64}, vthread = {m = 32, n = 64}, thread = {m = 2, "
    "n = 4}, shared = {k = 32}, register = {k = 8}",
};

/// cuBLAS entry points (v2 API, column-major).
struct Cublas {
  int (*create)(void **) = nullptr;
  int (*destroy)(void *) = nullptr;
  int (*sgemm)(void *, int, int, int, int, int, const float *, const float *,
               int, const float *, int, const float *, float *, int) = nullptr;
};

bool loadCublas(Cublas &api, std::string &error) {
  for (const char *name : {"libcublas.so.13", "libcublas.so.12",
                           "libcublas.so.11", "libcublas.so"}) {
    auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(name, &error);
    if (!lib.isValid())
      continue;
    api.create = reinterpret_cast<decltype(api.create)>(
        lib.getAddressOfSymbol("cublasCreate_v2"));
    api.destroy = reinterpret_cast<decltype(api.destroy)>(
        lib.getAddressOfSymbol("cublasDestroy_v2"));
    api.sgemm = reinterpret_cast<decltype(api.sgemm)>(
        lib.getAddressOfSymbol("cublasSgemm_v2"));
    if (api.create && api.destroy && api.sgemm)
      return true;
  }
  if (error.empty())
    error = "libcublas not found";
  return false;
}

/// Median seconds of one row-major C = A*B + C with cuBLAS.
double timeCublas(const Cublas &api, const Shape &s, std::string &error) {
  void *handle = nullptr;
  if (api.create(&handle) != 0) {
    error = "cublasCreate failed";
    return 0;
  }
  size_t a = s.m * s.k * 4, b = s.k * s.n * 4, c = s.m * s.n * 4;
  void *da = tiletuneCudaMalloc(a), *db = tiletuneCudaMalloc(b),
       *dc = tiletuneCudaMalloc(c);
  std::vector<float> host(std::max({a, b, c}) / 4, 0.5f);
  tiletuneCudaCopyToDevice(da, host.data(), a);
  tiletuneCudaCopyToDevice(db, host.data(), b);
  tiletuneCudaCopyToDevice(dc, host.data(), c);
  const float one = 1.0f;
  // Row-major C (MxN) = A (MxK) B (KxN) is column-major C^T = B^T A^T.
  auto gemm = [&] {
    return api.sgemm(handle, 0, 0, s.n, s.m, s.k, &one,
                     static_cast<const float *>(db), s.n,
                     static_cast<const float *>(da), s.k, &one,
                     static_cast<float *>(dc), s.n);
  };
  for (int i = 0; i < 5; ++i)
    gemm();
  tiletuneCudaSynchronize();
  std::vector<double> samples;
  for (int rep = 0; rep < 10; ++rep) {
    const int calls = 20;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      gemm();
    tiletuneCudaSynchronize();
    samples.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - t0)
                          .count() /
                      calls);
  }
  tiletuneCudaFree(da);
  tiletuneCudaFree(db);
  tiletuneCudaFree(dc);
  api.destroy(handle);
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

std::string matmulModule(const Shape &s) {
  return llvm::formatv(
      "func.func @matmul(%A: memref<{0}x{1}xf32>, %B: memref<{1}x{2}xf32>, "
      "%C: memref<{0}x{2}xf32>) {{\n"
      "  linalg.matmul ins(%A, %B : memref<{0}x{1}xf32>, "
      "memref<{1}x{2}xf32>) outs(%C : memref<{0}x{2}xf32>)\n"
      "  return\n}\n",
      s.m, s.k, s.n);
}

} // namespace

int main(int argc, char **argv) {
  bool compileOnly = false;
  std::string chip = "sm_90";
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--compile-only")
      compileOnly = true;
    else if (arg.consume_front("--chip="))
      chip = arg.str();
    else {
      llvm::errs() << "usage: tiletune-bench-gpu [--compile-only] "
                      "[--chip=sm_90]\n";
      return 3;
    }
  }
  MLIRContext context;
  initializeContext(context);
  GPUMeasureOptions options;
  options.lowering.chip = chip;

  std::string reason;
  bool haveGPU = isCudaDeviceAvailable(&reason);
  if (!haveGPU && !compileOnly) {
    llvm::outs() << "no GPU: " << reason
                 << "\n(run on a machine with an NVIDIA GPU, or pass "
                    "--compile-only to rank the configs with ptxas)\n";
    return 2;
  }
  Cublas cublas;
  std::string cublasError;
  bool haveCublas = haveGPU && loadCublas(cublas, cublasError);
  if (haveGPU) {
    llvm::Expected<CudaDeviceInfo> device = getCudaDeviceInfo();
    if (!device) {
      llvm::errs() << "tiletune-bench-gpu: "
                   << llvm::toString(device.takeError()) << "\n";
      return 1;
    }
    llvm::outs() << "device: " << device->description << "\n";
    // Match the chip to the device so that the PTX JIT targets it.
    options.lowering.chip = device->chip;
    if (haveCublas)
      llvm::outs() << "cuBLAS: found\n";
    else
      llvm::outs() << "cuBLAS: not available (" << cublasError << ")\n";
  }

  for (const Shape &shape : kShapes) {
    double flops = 2.0 * shape.m * shape.n * shape.k;
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(matmulModule(shape), &context);
    if (!module)
      return 1;
    SmallVector<TileConfigAttr> configs;
    for (const char *text : kConfigs)
      configs.push_back(dyn_cast_or_null<TileConfigAttr>(parseAttribute(
          (std::string("#tiletune.config<cuda, ") + text + ">").c_str(),
          &context)));
    llvm::outs() << llvm::formatv("\nmatmul {0}x{1}x{2} (MxKxN)\n", shape.m,
                                  shape.k, shape.n);
    if (compileOnly) {
      auto ranked = rankConfigsCompileOnly(*module, "matmul", configs, options);
      if (!ranked) {
        llvm::errs() << llvm::toString(ranked.takeError()) << "\n";
        return 1;
      }
      for (const CompileOnlyScore &score : *ranked)
        llvm::outs() << llvm::formatv(
            "  {0,-7} occupancy {1,4:F2} regs {2,3} smem {3,6} threads {4,4}  "
            "{5} {6}\n",
            score.legal ? "legal" : "ILLEGAL", score.occupancy,
            score.registers, score.sharedBytes, score.threadsPerBlock,
            score.config, score.reason);
      continue;
    }
    if (haveCublas) {
      std::string error;
      double seconds = timeCublas(cublas, shape, error);
      if (seconds > 0)
        llvm::outs() << llvm::formatv("  cuBLAS sgemm     {0,9:F4} ms {1,8:F1} "
                                      "GFLOP/s\n",
                                      seconds * 1e3, flops / seconds / 1e9);
      else
        llvm::outs() << "  cuBLAS sgemm failed: " << error << "\n";
    }
    for (TileConfigAttr config : configs) {
      MeasureResult result = measureOnGPU(*module, "matmul", config, options);
      if (result.ok())
        llvm::outs() << llvm::formatv(
            "  tiletune         {0,9:F4} ms {1,8:F1} GFLOP/s  {2}\n",
            result.time.median * 1e3, result.gflops, config);
      else
        llvm::outs() << "  tiletune " << stringifyMeasureStatus(result.status)
                     << ": " << result.message << "  " << config << "\n";
    }
  }
  return 0;
}
