//===- BenchCPU.cpp - Our CPU kernels against OpenBLAS and oneDNN ---------===//
//
// One run measures, on this machine: matmul 1024^3 f32 (or --matmul-shape) (our tiled kernel
// under a config, the untiled lowering, OpenBLAS cblas_sgemm with its
// AVX-512 kernel, oneDNN dnnl_sgemm) and two convolutions (AlexNet C2 at
// batch 8, a ResNet-50 3x3 layer; ours against oneDNN with its preferred
// blocked layout), at 1 and 2 threads, and prints GFLOP/s (medians) and the
// ratios ours / best library. Our kernels are built exactly like a user's
// compile: the op carries `tiletune.config` and goes through
// buildCPULoweringPipeline.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/Lowering.h"
#include "tiletune/Execution/Reference.h"
#include "tiletune/InitAll.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Transforms/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tiletune;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory benchCategory("tiletune-bench-cpu options");

cl::opt<std::string> matmulShape(
    "matmul-shape",
    cl::desc("M x N x K of the matmul (default 1024x1024x1024); odd and "
             "prime sizes exercise the padded configs"),
    cl::init("1024x1024x1024"), cl::cat(benchCategory));
cl::opt<std::string> matmulConfig(
    "matmul-config",
    cl::desc("Config of the matmul: the body of #tiletune.config<cpu, "
             "...> (e.g. \"parallel = {m = 512, n = 1024}, cache = {m = 64, "
             "n = 512, k = 256}, register = {m = 8, n = 32}, order = [n, k, "
             "m]\"); empty: the tiletune-default-config heuristic"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<std::string> alexnetConfig(
    "alexnet-config",
    cl::desc("Config of the AlexNet C2 conv (conv_2d_nhwc_hwcf); empty: the "
             "default-config heuristic"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<std::string> resnetConfig(
    "resnet-config",
    cl::desc("Config of the ResNet-50 3x3 conv (conv_2d_nhwc_hwcf); empty: "
             "the default-config heuristic"),
    cl::init(""), cl::cat(benchCategory));
cl::list<int> threadCounts("num-threads",
                           cl::desc("Thread counts to measure (default 1,2)"),
                           cl::CommaSeparated, cl::cat(benchCategory));
cl::opt<unsigned> repeats("repeats", cl::desc("Timed samples per measurement"),
                          cl::init(10), cl::cat(benchCategory));
cl::opt<unsigned> warmup("warmup", cl::desc("Warm-up calls per measurement"),
                         cl::init(2), cl::cat(benchCategory));
cl::opt<bool> skipUntiled("skip-untiled",
                          cl::desc("Do not measure the untiled lowering "
                                   "(about 5 s)"),
                          cl::init(false), cl::cat(benchCategory));
cl::opt<std::string> only("only",
                          cl::desc("Run only 'matmul' or 'conv' (default: "
                                   "both)"),
                          cl::init(""), cl::cat(benchCategory));
cl::opt<bool> noReexec(
    "no-reexec",
    cl::desc("Do not re-execute with OPENBLAS_CORETYPE and the LLVM OpenMP "
             "runtime set up (see docs/Benchmarks.md)"),
    cl::init(false), cl::cat(benchCategory));

cl::opt<std::string> cpuName(
    "mcpu",
    cl::desc("CPU target of our kernels, LLVM's name (e.g. haswell; default: "
             "the host); the reference libraries are restricted to the same "
             "ISA (OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA)"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<std::string> cpuFeatures(
    "mattr",
    cl::desc("CPU target features on top of the CPU's, LLVM's names (e.g. "
             "-avx512f,-evex512)"),
    cl::init(""), cl::cat(benchCategory));

[[noreturn]] void die(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::WithColor::error(llvm::errs(), "tiletune-bench-cpu") << message << "\n";
  std::exit(1);
}

template <typename T> T check(llvm::Expected<T> value, llvm::StringRef what) {
  if (!value)
    die(what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error err, llvm::StringRef what) {
  if (err)
    die(what + ": " + llvm::toString(std::move(err)));
}

void checkDnnl(dnnl_status_t status, llvm::StringRef what) {
  if (status != dnnl_success)
    die(llvm::formatv("oneDNN {0} failed with status {1}", what,
                      static_cast<int>(status)));
}

/// OpenBLAS's core type and oneDNN's maximum ISA for the ISA of `target`,
/// so that the reference libraries run code of the same ISA as ours.
std::pair<llvm::StringRef, llvm::StringRef>
getLibraryISA(const CPUDescription &target) {
  llvm::StringRef isa = target.getISAName();
  if (isa == "avx512")
    return {"SkylakeX", "AVX512_CORE"};
  if (isa == "avx2")
    return {"Haswell", "AVX2"};
  if (isa == "avx")
    return {"Sandybridge", "AVX"};
  return {"Nehalem", "SSE41"};
}

/// Re-executes this binary once with the environment the libraries read at
/// load time: OPENBLAS_CORETYPE and ONEDNN_MAX_CPU_ISA for the ISA of the
/// target (getLibraryISA; Debian's OpenBLAS detects newer AVX-512 CPUs as
/// Haswell and runs its AVX2 kernel at half speed; a user's setting wins)
/// and the LLVM library directory first on LD_LIBRARY_PATH, so that OpenBLAS
/// and oneDNN (built against libgomp.so.1) get LLVM's libomp, which also runs
/// our JIT-compiled OpenMP code: one thread pool instead of two fighting.
void reexecWithLibraryEnvironment(char **argv, const CPUDescription &target) {
  if (std::getenv("TILETUNE_BENCH_CHILD"))
    return;
  setenv("TILETUNE_BENCH_CHILD", "1", 1);
  auto [coreType, maxISA] = getLibraryISA(target);
  setenv("OPENBLAS_CORETYPE", coreType.str().c_str(), /*overwrite=*/0);
  setenv("ONEDNN_MAX_CPU_ISA", maxISA.str().c_str(), /*overwrite=*/0);
  std::string path = getMLIRLibraryDir();
  if (const char *old = std::getenv("LD_LIBRARY_PATH"); old && *old)
    path += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  execv("/proc/self/exe", argv);
  // Falls through only if exec failed: measure in this process anyway.
  llvm::WithColor::warning(llvm::errs(), "tiletune-bench-cpu")
      << "re-exec failed (" << std::strerror(errno)
      << "); OpenBLAS may use its AVX2 kernel\n";
}

/// FLOPs of the useful multiply-adds of a padded 2-D convolution: taps that
/// fall into the zero padding are not counted (oneDNN skips them).
double usefulConvFlops(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                       int64_t kh, int64_t kw, int64_t pad, int64_t stride) {
  auto valid = [&](int64_t size, int64_t k) {
    int64_t out = (size + 2 * pad - k) / stride + 1;
    int64_t count = 0;
    for (int64_t o = 0; o < out; ++o)
      for (int64_t t = 0; t < k; ++t) {
        int64_t i = o * stride - pad + t;
        count += i >= 0 && i < size;
      }
    return count;
  };
  return 2.0 * n * f * c * valid(h, kh) * valid(w, kw);
}

/// One of our kernels, compiled.
struct OurKernel {
  std::unique_ptr<ExecutionModule> module;
  std::optional<Kernel> kernel;
  std::string config;
};

/// Builds the kernel module for `opText` (a func.func with one op carrying
/// `configBody`, or no config), lowers it with the CPU pipeline (`tile`) and
/// JIT-compiles it.
OurKernel compileOurs(MLIRContext &context, llvm::StringRef funcTemplate,
                      llvm::StringRef configBody, bool tile) {
  std::string attr;
  if (tile && !configBody.empty())
    attr = ("{tiletune.config = #tiletune.config<cpu, " + configBody + ">}")
               .str();
  std::string source = funcTemplate.str();
  size_t pos = source.find("$CONFIG");
  source.replace(pos, strlen("$CONFIG"), attr);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    die("cannot parse the kernel (bad config?):\n" + source);
  check(prepareForExecution(*module, /*strict=*/true), "prepare");

  // Without a config, the heuristic picks one first (so it can be printed).
  if (tile && configBody.empty())
    check(runPassPipeline(*module, "tiletune-default-config"),
          "tiletune-default-config");
  PassManager pm(&context, ModuleOp::getOperationName());
  CPULoweringOptions options;
  options.tile = tile;
  buildCPULoweringPipeline(pm, options);
  // Record the config actually used.
  OurKernel result;
  module->walk([&](Operation *op) {
    if (TileConfigAttr a = getConfig(op)) {
      llvm::raw_string_ostream os(result.config);
      os << a;
    }
  });
  if (failed(pm.run(*module)))
    die("the CPU lowering pipeline failed on:\n" + source);
  result.module = check(ExecutionModule::create(*module), "JIT");
  result.kernel = check(result.module->getKernel("kernel"), "lookup");
  if (tile && configBody.empty())
    result.config += " (tiletune-default-config heuristic)";
  return result;
}

/// Runs `kernel` once on copies of `args` and compares its output (result
/// 0 or argument `outArg`) with `expected`.
void verifyOurs(const Kernel &kernel, llvm::ArrayRef<Buffer *> args,
                unsigned outArg, const Buffer &expected, int64_t reduction,
                llvm::StringRef what) {
  SmallVector<Buffer> copies;
  SmallVector<Buffer *> ptrs;
  for (Buffer *b : args)
    copies.push_back(b->clone());
  for (Buffer &b : copies)
    ptrs.push_back(&b);
  SmallVector<Buffer> results;
  check(kernel.run(ptrs, &results), what);
  const Buffer &actual = results.empty() ? copies[outArg] : results.front();
  auto cmp = check(compareBuffers(actual, expected,
                                  Tolerance::forReduction(ElementType::F32,
                                                          reduction)),
                   what);
  llvm::outs() << "  verify " << what << ": " << cmp.summary() << "\n";
  if (!cmp.passed)
    die(what + " computes wrong results");
}

TimingOptions timingOptions() {
  TimingOptions t;
  t.warmupRuns = warmup;
  t.repeats = repeats;
  t.minSampleSeconds = 0.05;
  return t;
}

/// Prints one result row and returns the median GFLOP/s.
double report(llvm::StringRef name, int threads, const TimeStats &stats,
              double flops) {
  double median = computeGFlops(flops, stats.median);
  // f32 peak of the target (CPUDescription) with this many threads.
  double peak = getDefaultTargetCPU().getPeakGFlops(threads);
  llvm::outs() << llvm::formatv(
      "  {0,-34} {1,2} thr  median {2,8:f1} GFLOP/s  (mean {3,7:f1}, best "
      "{4,7:f1}, cv {5,4:f1}%)  {6,3:f0}% of peak\n",
      name, threads, median, computeGFlops(flops, stats.mean),
      computeGFlops(flops, stats.min), 100 * stats.relativeStddev(),
      100 * median / peak);
  return median;
}

void setThreads(int threads) {
  check(setOpenMPNumThreads(threads), "omp_set_num_threads");
  openblas_set_num_threads(threads);
}

//===----------------------------------------------------------------------===//
// Matmul.
//===----------------------------------------------------------------------===//

/// The matmul kernel of `m` x `n` x `k` with a `$CONFIG` placeholder.
std::string matmulTemplate(int64_t m, int64_t n, int64_t k) {
  return llvm::formatv(R"mlir(
func.func @kernel(%A: tensor<{0}x{2}xf32>, %B: tensor<{2}x{1}xf32>,
                  %C: tensor<{0}x{1}xf32>) -> tensor<{0}x{1}xf32> {{
  %r = linalg.matmul $CONFIG
      ins(%A, %B : tensor<{0}x{2}xf32>, tensor<{2}x{1}xf32>)
      outs(%C : tensor<{0}x{1}xf32>) -> tensor<{0}x{1}xf32>
  return %r : tensor<{0}x{1}xf32>
}
)mlir",
                       m, n, k)
      .str();
}

struct Summary {
  SmallVector<std::string> lines;
};

void benchMatmul(MLIRContext &context, Summary &summary) {
  int64_t m = 0, n = 0, k = 0;
  {
    SmallVector<StringRef> parts;
    StringRef(matmulShape).split(parts, 'x');
    if (parts.size() != 3 || parts[0].getAsInteger(10, m) ||
        parts[1].getAsInteger(10, n) || parts[2].getAsInteger(10, k) ||
        m < 1 || n < 1 || k < 1)
      die("--matmul-shape must be MxNxK with positive sizes, got '" +
          matmulShape + "'");
  }
  const double flops = 2.0 * m * n * k;
  const std::string kernelTemplate = matmulTemplate(m, n, k);
  llvm::outs() << llvm::formatv("\n== matmul {0}x{1}x{2} f32 (C += A * B) ==\n",
                                m, n, k);
  Buffer a = check(Buffer::create(ElementType::F32, {m, k}), "alloc");
  Buffer b = check(Buffer::create(ElementType::F32, {k, n}), "alloc");
  Buffer c = check(Buffer::create(ElementType::F32, {m, n}), "alloc");
  a.fillRandom(1);
  b.fillRandom(2);
  c.fillRandom(3);
  Buffer expected = c.clone();
  check(referenceMatmul(a, b, expected), "reference");

  OurKernel tiled = compileOurs(context, kernelTemplate, matmulConfig, true);
  llvm::outs() << "  config: " << tiled.config << "\n";
  SmallVector<Buffer *> args = {&a, &b, &c};
  verifyOurs(*tiled.kernel, args, 2, expected, k, "tiled matmul");

  if (!skipUntiled) {
    OurKernel untiled = compileOurs(context, kernelTemplate, "", false);
    verifyOurs(*untiled.kernel, args, 2, expected, k, "untiled matmul");
    setThreads(1);
    TimingOptions once;
    once.warmupRuns = 0;
    once.repeats = 1;
    once.minSampleSeconds = 0;
    auto stats = check(untiled.kernel->time(args, once), "time untiled");
    double g = report("ours, untiled lowering", 1, stats, flops);
    summary.lines.push_back(
        llvm::formatv("matmul untiled, 1 thread: {0:f2} GFLOP/s", g));
  }

  double ours1 = 0;
  for (int threads : threadCounts) {
    setThreads(threads);
    auto oursStats =
        check(tiled.kernel->time(args, timingOptions()), "time ours");
    double ours = report("ours, tiled", threads, oursStats, flops);
    auto blasStats = check(
        measure(
            [&] {
              cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k,
                          1.0f, a.getData<float>(), k, b.getData<float>(), n,
                          1.0f, c.getData<float>(), n);
            },
            timingOptions()),
        "time openblas");
    double blas = report(llvm::formatv("OpenBLAS sgemm ({0})",
                                       openblas_get_corename())
                             .str(),
                         threads, blasStats, flops);
    auto dnnlStats = check(
        measure(
            [&] {
              dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.getData<float>(), k,
                         b.getData<float>(), n, 1.0f, c.getData<float>(), n);
            },
            timingOptions()),
        "time onednn");
    double dnnl = report("oneDNN sgemm", threads, dnnlStats, flops);
    double best = std::max(blas, dnnl);
    llvm::outs() << llvm::formatv(
        "  -> ours / best library ({0}) at {1} thread(s): {2:f3}\n",
        blas >= dnnl ? "OpenBLAS" : "oneDNN", threads, ours / best);
    summary.lines.push_back(llvm::formatv(
        "matmul {0} thread(s): ours {1:f1}, OpenBLAS {2:f1}, oneDNN {3:f1} "
        "GFLOP/s; ours/best = {4:f3}{5}",
        threads, ours, blas, dnnl, ours / best,
        threads == 1 ? (ours / best >= 0.85 ? "  [target >= 0.85: met]"
                                            : "  [target >= 0.85: NOT met]")
                     : ""));
    if (threads == 1)
      ours1 = ours;
    else if (ours1 > 0)
      summary.lines.push_back(llvm::formatv(
          "matmul ours {0} threads / ours 1 thread = {1:f2}x{2}", threads,
          ours / ours1,
          threads == 2 ? (ours / ours1 >= 1.7 ? "  [target >= 1.7x: met]"
                                              : "  [target >= 1.7x: NOT met]")
                       : ""));
  }
}

//===----------------------------------------------------------------------===//
// Convolutions.
//===----------------------------------------------------------------------===//

struct ConvProblem {
  const char *name;
  int64_t n, c, h, w, f, k, pad;
  const cl::opt<std::string> *config;
};

/// oneDNN forward-inference convolution with `any` formats (oneDNN picks
/// its blocked layout), no bias. Owns its objects.
class DnnlConv {
public:
  explicit DnnlConv(const ConvProblem &p) {
    checkDnnl(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
    checkDnnl(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
              "stream");
    int64_t oh = p.h + 2 * p.pad - p.k + 1, ow = p.w + 2 * p.pad - p.k + 1;
    dnnl_dims_t src = {p.n, p.c, p.h, p.w}, wei = {p.f, p.c, p.k, p.k},
                dst = {p.n, p.f, oh, ow};
    dnnl_dims_t strides = {1, 1}, pad = {p.pad, p.pad};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    checkDnnl(dnnl_memory_desc_init_by_tag(&srcMd, 4, src, dnnl_f32,
                                           dnnl_format_tag_any),
              "src md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&weiMd, 4, wei, dnnl_f32,
                                           dnnl_format_tag_any),
              "weights md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&dstMd, 4, dst, dnnl_f32,
                                           dnnl_format_tag_any),
              "dst md");
    dnnl_convolution_desc_t desc;
    checkDnnl(dnnl_convolution_forward_desc_init(
                  &desc, dnnl_forward_inference, dnnl_convolution_direct,
                  &srcMd, &weiMd, nullptr, &dstMd, strides, pad, pad),
              "convolution desc");
    checkDnnl(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr),
              "primitive desc");
    const char *impl = nullptr;
    checkDnnl(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
                                        &impl),
              "impl query");
    implName = impl ? impl : "?";
    dnnl_query_t queries[3] = {dnnl_query_src_md, dnnl_query_weights_md,
                               dnnl_query_dst_md};
    int argIds[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    for (int i = 0; i < 3; ++i) {
      const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, queries[i], 0);
      checkDnnl(dnnl_memory_create(&mem[i], md, engine, DNNL_MEMORY_ALLOCATE),
                "memory");
      void *data = nullptr;
      checkDnnl(dnnl_memory_get_data_handle(mem[i], &data), "data handle");
      size_t count = dnnl_memory_desc_get_size(md) / sizeof(float);
      std::mt19937_64 rng(10 + i);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (size_t j = 0; j < count; ++j)
        static_cast<float *>(data)[j] = dist(rng);
      args[i] = {argIds[i], mem[i]};
    }
    checkDnnl(dnnl_primitive_create(&prim, pd), "primitive");
  }
  ~DnnlConv() {
    dnnl_primitive_destroy(prim);
    for (dnnl_memory_t m : mem)
      dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
  }
  void run() {
    dnnl_primitive_execute(prim, stream, 3, args);
    dnnl_stream_wait(stream);
  }
  std::string implName;

private:
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_t mem[3] = {};
  dnnl_exec_arg_t args[3];
};

void benchConv(MLIRContext &context, const ConvProblem &p, Summary &summary) {
  int64_t hp = p.h + 2 * p.pad, wp = p.w + 2 * p.pad;
  int64_t oh = hp - p.k + 1, ow = wp - p.k + 1;
  double flops = usefulConvFlops(p.n, p.c, p.h, p.w, p.f, p.k, p.k, p.pad, 1);
  llvm::outs() << llvm::formatv(
      "\n== conv {0}: {1}x{2}x{3}x{4} -> {5} filters {6}x{6}, pad {7} "
      "({8:e3} useful FLOP) ==\n",
      p.name, p.n, p.c, p.h, p.w, p.f, p.k, p.pad, flops);

  // Ours: NHWC input already padded (the pad copy is not timed), HWCF filter.
  std::string shapes = llvm::formatv(
      "tensor<{0}x{1}x{2}x{3}xf32>|tensor<{4}x{4}x{3}x{5}xf32>|"
      "tensor<{0}x{6}x{7}x{5}xf32>",
      p.n, hp, wp, p.c, p.k, p.f, oh, ow);
  SmallVector<StringRef> t;
  StringRef(shapes).split(t, '|');
  std::string source = llvm::formatv(R"mlir(
func.func @kernel(%I: {0}, %F: {1}, %O: {2}) -> {2} {{
  %r = linalg.conv_2d_nhwc_hwcf $CONFIG
      ins(%I, %F : {0}, {1}) outs(%O : {2}) -> {2}
  return %r : {2}
}
)mlir",
                                     t[0], t[1], t[2]);
  OurKernel ours = compileOurs(context, source, *p.config, true);
  llvm::outs() << "  config: " << ours.config << "\n";
  Buffer in = check(Buffer::create(ElementType::F32, {p.n, hp, wp, p.c}), "alloc");
  Buffer flt = check(Buffer::create(ElementType::F32, {p.k, p.k, p.c, p.f}), "alloc");
  Buffer out = check(Buffer::create(ElementType::F32, {p.n, oh, ow, p.f}), "alloc");
  in.fillRandom(4);
  flt.fillRandom(5);
  // Zero the padding border like a padded tensor.
  float *ip = in.getData<float>();
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t y = 0; y < hp; ++y)
      for (int64_t x = 0; x < wp; ++x)
        if (y < p.pad || y >= hp - p.pad || x < p.pad || x >= wp - p.pad)
          std::fill_n(ip + ((b * hp + y) * wp + x) * p.c, p.c, 0.0f);
  Buffer expected = out.clone();
  check(referenceConv2DNhwcHwcf(in, flt, expected), "reference");
  SmallVector<Buffer *> args = {&in, &flt, &out};
  verifyOurs(*ours.kernel, args, 2, expected, p.k * p.k * p.c, p.name);

  for (int threads : threadCounts) {
    setThreads(threads);
    // oneDNN fixes a primitive's thread partition when it is created: build
    // it under the thread count it is timed with.
    DnnlConv dnnl(p);
    auto oursStats = check(ours.kernel->time(args, timingOptions()), "time ours");
    double g = report("ours, tiled (nhwc)", threads, oursStats, flops);
    auto dnnlStats =
        check(measure([&] { dnnl.run(); }, timingOptions()), "time onednn");
    double d = report(("oneDNN " + dnnl.implName).c_str(), threads, dnnlStats,
                      flops);
    llvm::outs() << llvm::formatv(
        "  -> ours / oneDNN at {0} thread(s): {1:f3}\n", threads, g / d);
    summary.lines.push_back(llvm::formatv(
        "conv {0} {1} thread(s): ours {2:f1}, oneDNN {3:f1} GFLOP/s; "
        "ours/oneDNN = {4:f3}",
        p.name, threads, g, d, g / d));
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tiletune-bench-cpu: TileTune's tiled matmul and convolutions against "
      "OpenBLAS and oneDNN on this CPU (see docs/Benchmarks.md)\n");
  // Every option is checked before anything runs (or is re-executed).
  if (threadCounts.empty()) {
    threadCounts.push_back(1);
    threadCounts.push_back(2);
  }
  for (int t : threadCounts)
    if (t < 1 || t > kMaxThreads)
      die(llvm::formatv("--num-threads: every thread count must be between 1 "
                        "and {0}, got {1}",
                        kMaxThreads, t));
  if (llvm::Error err = validateTimingOptions(timingOptions()))
    die(llvm::toString(std::move(err)));
  if (!only.empty() && only != "matmul" && only != "conv")
    die("--only must be 'matmul' or 'conv'");
  // The target: checked (the host must run it) before anything runs; the
  // default configs and the JIT use it as the process's default.
  CPUDescription target = check(describeRunnableCPU(cpuName, cpuFeatures),
                                "--mcpu/--mattr");
  check(setDefaultTargetCPU(cpuName, cpuFeatures), "--mcpu/--mattr");
  if (!noReexec)
    reexecWithLibraryEnvironment(argv, target);

  TargetDescription host = getHostTarget();
  const dnnl_version_t *dv = dnnl_version();
  llvm::outs() << "host CPU: " << host.cpu << " (" << host.triple << ")\n"
               << llvm::formatv(
                      "target: {0}{1}{2}, {3}, {4}-bit vectors, {5} vector "
                      "registers; f32 peak {6:f1} GFLOP/s per thread ({7:f2} "
                      "GHz, {8:f0} flop/cycle)\n",
                      target.cpu, target.mattr.empty() ? "" : " ",
                      target.mattr, target.getISAName(), target.vectorBits,
                      target.vectorRegisters, target.getPeakGFlops(1),
                      getHostClock().ghz, target.getFlopsPerCycle(4))
               << "OpenBLAS: core " << openblas_get_corename()
               << ", parallel mode " << openblas_get_parallel()
               << " (2 = OpenMP), OPENBLAS_CORETYPE="
               << (std::getenv("OPENBLAS_CORETYPE")
                       ? std::getenv("OPENBLAS_CORETYPE")
                       : "(unset)")
               << ", ONEDNN_MAX_CPU_ISA="
               << (std::getenv("ONEDNN_MAX_CPU_ISA")
                       ? std::getenv("ONEDNN_MAX_CPU_ISA")
                       : "(unset)")
               << "\n"
               << llvm::formatv("oneDNN: {0}.{1}.{2} (cpu runtime {3})\n",
                                dv->major, dv->minor, dv->patch,
                                dv->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP"
                                                                    : "other")
               << "OpenMP runtime for JIT code: " << getOpenMPRuntimePath()
               << "\ntiming: " << repeats << " samples after " << warmup
               << " warm-up calls; medians reported\n";

  // Which OpenMP runtimes are mapped (one is the goal, see the re-exec).
  if (auto maps = llvm::MemoryBuffer::getFileAsStream("/proc/self/maps")) {
    llvm::SmallVector<std::string, 4> runtimes;
    SmallVector<StringRef> lines;
    (*maps)->getBuffer().split(lines, '\n');
    for (StringRef line : lines) {
      StringRef path = line.substr(std::min(line.find('/'), line.size()));
      if (path.contains("libomp") || path.contains("libgomp"))
        if (!llvm::is_contained(runtimes, path.str()))
          runtimes.push_back(path.str());
    }
    llvm::outs() << "OpenMP runtimes mapped: "
                 << llvm::join(runtimes, ", ") << "\n";
  }

  MLIRContext context;
  initializeContext(context);
  registerAllTileTunePasses();

  Summary summary;
  if (only.empty() || only == "matmul")
    benchMatmul(context, summary);
  if (only.empty() || only == "conv") {
    benchConv(context, {"AlexNet-C2 b8", 8, 64, 27, 27, 192, 5, 2, &alexnetConfig},
              summary);
    benchConv(context, {"ResNet50-3x3", 1, 64, 56, 56, 64, 3, 1, &resnetConfig},
              summary);
  }
  llvm::outs() << "\n== summary (median GFLOP/s) ==\n";
  for (const std::string &line : summary.lines)
    llvm::outs() << "  " << line << "\n";
  return 0;
}
