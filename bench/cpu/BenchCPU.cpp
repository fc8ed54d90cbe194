//===- BenchCPU.cpp - Our CPU kernels against OpenBLAS and oneDNN ---------===//
//
// One run measures, on this machine: matmul 1024^3 f32 (or --matmul-shape) (our
// tiled kernel under a config, the untiled lowering, OpenBLAS cblas_sgemm with
// its AVX-512 kernel, oneDNN dnnl_sgemm) and two convolutions (AlexNet C2 at
// batch 8, a ResNet-50 3x3 layer; ours against oneDNN with its preferred
// blocked layout), at 1 and 2 threads, and prints GFLOP/s (medians) and the
// ratios ours / best library. Our kernels are built exactly like a user's
// compile: the op carries `tiletune.config` and goes through
// buildCPULoweringPipeline. With --model-ops=FILE it instead times oneDNN on
// every matmul/conv of a module (a whole model, e.g. from
// scripts/gen-models.py), OpenBLAS on its matmuls, and prints the sums of
// the per-op times: the library references of bench/models.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Dialect/TileConfig.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/Lowering.h"
#include "tiletune/Execution/Reference.h"
#include "tiletune/InitAll.h"
#include "tiletune/Measure/Timing.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Transforms/Pipelines.h"
#include "tiletune/TuningPasses/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
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
cl::opt<std::string> modelOps(
    "model-ops",
    cl::desc("Time oneDNN on every matmul and 2-D convolution of this linalg "
             "module (static shapes; recognised by upstream's contraction "
             "and convolution inference), and OpenBLAS on its matmuls, and "
             "print the sums of the per-op times (oneDNN's, and the faster "
             "library's per op), instead of the fixed benchmarks"),
    cl::value_desc("file.mlir"), cl::init(""), cl::cat(benchCategory));
cl::opt<bool> noReexec(
    "no-reexec",
    cl::desc("Do not re-execute with OPENBLAS_CORETYPE and the LLVM OpenMP "
             "runtime set up (see docs/Benchmarks.md)"),
    cl::init(false), cl::cat(benchCategory));

cl::opt<std::string> suite(
    "suite",
    cl::desc("What to measure: 'classic' (the matmul of --matmul-shape, "
             "AlexNet C2 and a ResNet-50 3x3 conv; the default) or 'models' "
             "(ResNet-50, BERT-base, attention, GPT-2, ViT-B/16 and odd "
             "shapes, with geomean ratios per family; docs/Benchmarks.md)"),
    cl::init("classic"), cl::cat(benchCategory));
cl::opt<std::string> jsonFile(
    "json",
    cl::desc("models suite: also write every measurement and the per-family "
             "geomeans to this JSON file"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<std::string> shapeFilter(
    "filter",
    cl::desc("models suite: only the shapes whose 'family/name' contains one "
             "of these comma-separated substrings (e.g. bert,odd)"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<bool> quick("quick",
                    cl::desc("models suite: one or two shapes per family"),
                    cl::init(false), cl::cat(benchCategory));
cl::opt<bool> listShapes(
    "list",
    cl::desc("models suite: print the shapes that would run, then exit"),
    cl::init(false), cl::cat(benchCategory));
cl::opt<std::string> emitMlir(
    "emit-mlir",
    cl::desc("models suite: write the selected shapes' kernels to this file "
             "(one function each, named after the shape), then exit: the "
             "module to tune for --db"),
    cl::init(""), cl::cat(benchCategory));
cl::opt<std::string> tunedDb(
    "db",
    cl::desc("models suite: tuning database; shapes it holds a config for "
             "(tuned with the same thread count, tiletune-apply-db) are also "
             "measured with that config"),
    cl::init(""), cl::cat(benchCategory));

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

/// The (output position, tap) pairs of one spatial dim of a convolution
/// over `size` pixels padded by `before` and `after` whose tap falls inside
/// the image.
static int64_t countValidTaps(int64_t size, int64_t k, int64_t stride,
                              int64_t before, int64_t after) {
  int64_t out = (size + before + after - k) / stride + 1;
  int64_t count = 0;
  for (int64_t o = 0; o < out; ++o)
    for (int64_t t = 0; t < k; ++t) {
      int64_t i = o * stride - before + t;
      count += i >= 0 && i < size;
    }
  return count;
}

/// FLOPs of the useful multiply-adds of a padded 2-D convolution: taps that
/// fall into the zero padding are not counted (oneDNN skips them).
double usefulConvFlops(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f,
                       int64_t kh, int64_t kw, int64_t pad, int64_t stride) {
  return 2.0 * n * f * c * countValidTaps(h, kh, stride, pad, pad) *
         countValidTaps(w, kw, stride, pad, pad);
}

/// One of our kernels, compiled.
struct OurKernel {
  std::unique_ptr<ExecutionModule> module;
  std::optional<Kernel> kernel;
  std::string config;
};

/// Builds the kernel module for `opText` (a func.func with one op carrying
/// `configBody`, or no config), lowers it with the CPU pipeline (`tile`) and
/// JIT-compiles it. Without a config the op gets the default config for
/// `threads` threads (the thread count it is timed with), or, with `db`,
/// the config tuned for it with `threads` threads: std::nullopt when the
/// database has none.
/// `funcTemplate` with its `$CONFIG` placeholder replaced by `attr`.
std::string instantiateKernel(llvm::StringRef funcTemplate,
                              llvm::StringRef attr) {
  std::string source = funcTemplate.str();
  size_t pos = source.find("$CONFIG");
  assert(pos != std::string::npos && "kernel template without $CONFIG");
  source.replace(pos, strlen("$CONFIG"), attr.str());
  return source;
}

std::optional<OurKernel> compileOursOrNone(MLIRContext &context,
                                           llvm::StringRef funcTemplate,
                                           llvm::StringRef configBody,
                                           bool tile, int threads,
                                           llvm::StringRef db = "") {
  std::string attr;
  if (tile && !configBody.empty())
    attr = ("{tiletune.config = #tiletune.config<cpu, " + configBody + ">}")
               .str();
  std::string source = instantiateKernel(funcTemplate, attr);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    die("cannot parse the kernel (bad config?):\n" + source);
  check(prepareForExecution(*module, /*strict=*/true), "prepare");

  // Without a config, the database or the heuristic picks one first (so it
  // can be printed), for the thread count the kernel runs with.
  if (tile && configBody.empty() && !db.empty()) {
    PassManager apply(&context, ModuleOp::getOperationName());
    TileTuneApplyDBOptions options;
    options.database = db.str();
    options.threads = threads;
    apply.addPass(createTileTuneApplyDB(options));
    if (failed(apply.run(*module)))
      die("tiletune-apply-db failed with --db=" + db);
    bool tuned = false;
    module->walk([&](Operation *op) { tuned |= bool(getConfig(op)); });
    if (!tuned)
      return std::nullopt;
  }
  if (tile && configBody.empty() && db.empty())
    check(runPassPipeline(*module,
                          llvm::formatv("tiletune-default-config{{threads={0}}",
                                        threads)
                              .str()),
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
    result.config += db.empty() ? llvm::formatv(
                                      " (tiletune-default-config heuristic, "
                                      "threads={0})",
                                      threads)
                                      .str()
                                : " (tuned, from --db)";
  return result;
}

OurKernel compileOurs(MLIRContext &context, llvm::StringRef funcTemplate,
                      llvm::StringRef configBody, bool tile, int threads = 1) {
  return std::move(
      *compileOursOrNone(context, funcTemplate, configBody, tile, threads));
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
  Buffer a =
      check(Buffer::create(ElementType::F32, {m, k}, getStaggeredPageOffset(0)),
            "alloc");
  Buffer b =
      check(Buffer::create(ElementType::F32, {k, n}, getStaggeredPageOffset(1)),
            "alloc");
  Buffer c =
      check(Buffer::create(ElementType::F32, {m, n}, getStaggeredPageOffset(2)),
            "alloc");
  a.fillRandom(1);
  b.fillRandom(2);
  c.fillRandom(3);
  Buffer expected = c.clone();
  check(referenceMatmul(a, b, expected), "reference");
  // Timing accumulates into C: verification starts from this copy.
  Buffer c0 = c.clone();
  SmallVector<Buffer *> verifyArgs = {&a, &b, &c0};

  SmallVector<Buffer *> args = {&a, &b, &c};

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
    // The default config is computed for the thread count it runs with.
    OurKernel tiled =
        compileOurs(context, kernelTemplate, matmulConfig, true, threads);
    llvm::outs() << "  config: " << tiled.config << "\n";
    verifyOurs(*tiled.kernel, verifyArgs, 2, expected, k, "tiled matmul");
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
          threads == 2 ? (ours / ours1 >= 1.8 ? "  [target >= 1.8x: met]"
                                              : "  [target >= 1.8x: NOT met]")
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

/// The dims of a square-kernel 2-D convolution with symmetric padding.
struct ConvDims {
  int64_t n, c, h, w, f, k, pad, stride;
  int64_t outH() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t outW() const { return (w + 2 * pad - k) / stride + 1; }
};

/// oneDNN forward-inference convolution with `any` formats (oneDNN picks
/// its blocked layout), no bias. Owns its objects.
class DnnlConv {
public:
  explicit DnnlConv(const ConvDims &p) {
    checkDnnl(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
    checkDnnl(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
              "stream");
    int64_t oh = p.outH(), ow = p.outW();
    dnnl_dims_t src = {p.n, p.c, p.h, p.w}, wei = {p.f, p.c, p.k, p.k},
                dst = {p.n, p.f, oh, ow};
    dnnl_dims_t strides = {p.stride, p.stride}, pad = {p.pad, p.pad};
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
  Buffer in = check(Buffer::create(ElementType::F32, {p.n, hp, wp, p.c},
                                   getStaggeredPageOffset(0)),
                    "alloc");
  Buffer flt = check(Buffer::create(ElementType::F32, {p.k, p.k, p.c, p.f},
                                    getStaggeredPageOffset(1)),
                     "alloc");
  Buffer out = check(Buffer::create(ElementType::F32, {p.n, oh, ow, p.f},
                                    getStaggeredPageOffset(2)),
                     "alloc");
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
  // Timing accumulates into the output: verification starts from this copy.
  Buffer out0 = out.clone();
  SmallVector<Buffer *> verifyArgs = {&in, &flt, &out0};

  double ours1 = 0;
  for (int threads : threadCounts) {
    // The default config is computed for the thread count it runs with.
    OurKernel ours = compileOurs(context, source, *p.config, true, threads);
    llvm::outs() << "  config: " << ours.config << "\n";
    verifyOurs(*ours.kernel, verifyArgs, 2, expected, p.k * p.k * p.c,
               p.name);
    setThreads(threads);
    // oneDNN fixes a primitive's thread partition when it is created: build
    // it under the thread count it is timed with.
    DnnlConv dnnl(ConvDims{p.n, p.c, p.h, p.w, p.f, p.k, p.pad, 1});
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
    if (threads == 1)
      ours1 = g;
    else if (ours1 > 0)
      summary.lines.push_back(llvm::formatv(
          "conv {0} ours {1} threads / ours 1 thread = {2:f2}x{3}", p.name,
          threads, g / ours1,
          threads == 2 ? (g / ours1 >= 1.8 ? "  [target >= 1.8x: met]"
                                           : "  [target >= 1.8x: NOT met]")
                       : ""));
  }
}

//===----------------------------------------------------------------------===//
// The models suite (--suite=models).
//===----------------------------------------------------------------------===//

/// One shape of the models suite. GEMMs: C[batch] (m x n) += A (m x k) *
/// B (k x n); convolutions: `batch` images of c x h x w, f filters k x k.
struct ModelShape {
  enum Kind { Gemm, BatchGemm, Conv } kind = Gemm;
  std::string family, name;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  ConvDims conv{};
  bool nchw = false;
  bool quick = false;

  std::string key() const { return family + "/" + name; }
  double flops() const {
    if (kind == Conv)
      return usefulConvFlops(conv.n, conv.c, conv.h, conv.w, conv.f, conv.k,
                             conv.k, conv.pad, conv.stride);
    return 2.0 * batch * m * n * k;
  }
  /// The reduction length (for the verification tolerance).
  int64_t reduction() const {
    return kind == Conv ? conv.k * conv.k * conv.c : k;
  }
};

/// Input rows/columns our conv kernels read: exactly what the output needs,
/// the zero padding included (it is not part of the timed kernel).
int64_t convInputSize(int64_t out, int64_t k, int64_t stride) {
  return (out - 1) * stride + k;
}

std::vector<ModelShape> getModelShapes() {
  std::vector<ModelShape> shapes;
  auto gemm = [&](std::string family, std::string name, int64_t m, int64_t n,
                  int64_t k, bool isQuick = false) {
    ModelShape s;
    s.family = std::move(family);
    s.name = std::move(name) + llvm::formatv(" {0}x{1}x{2}", m, n, k).str();
    s.m = m, s.n = n, s.k = k, s.quick = isQuick;
    shapes.push_back(s);
  };
  // Square: the figure of issue 12's table (and its 2-thread target).
  gemm("square", "matmul", 1024, 1024, 1024, true);
  // BERT-base (hidden 768, FFN 3072), one sequence of 128 or 384 tokens;
  // names give M x N x K.
  for (int64_t seq : {128, 384}) {
    std::string family = "bert-s" + std::to_string(seq);
    gemm(family, "qkv", seq, 3 * 768, 768);
    gemm(family, "attn-out", seq, 768, 768);
    gemm(family, "ffn-up", seq, 3072, 768, seq == 128);
    gemm(family, "ffn-down", seq, 768, 3072);
  }
  // Attention of BERT-base: 12 heads of 64, 128 tokens: Q.K^T and P.V.
  {
    ModelShape s;
    s.kind = ModelShape::BatchGemm;
    s.family = "attention";
    s.batch = 12, s.m = 128, s.n = 128, s.k = 64, s.quick = true;
    s.name = "q.kT 12x128x128x64";
    shapes.push_back(s);
    s.n = 64, s.k = 128, s.quick = false;
    s.name = "p.v 12x128x64x128";
    shapes.push_back(s);
  }
  // GPT-2 (small) MLP over its 1024-token context.
  gemm("gpt2-mlp", "fc", 1024, 3072, 768, true);
  gemm("gpt2-mlp", "proj", 1024, 768, 3072);
  // ViT-B/16: 197 tokens (196 patches + class token).
  gemm("vit-b16", "qkv", 197, 3 * 768, 768);
  gemm("vit-b16", "proj", 197, 768, 768);
  gemm("vit-b16", "fc1", 197, 3072, 768, true);
  gemm("vit-b16", "fc2", 197, 768, 3072);
  // Odd and prime sizes, and the nearest divisible shapes they are compared
  // with (issue 12: within 10%).
  gemm("odd", "one-row", 1, 768, 768);
  gemm("odd", "prime", 7, 7, 7);
  gemm("odd", "prime", 127, 127, 127);
  gemm("odd", "prime", 197, 197, 197);
  gemm("odd", "mixed", 257, 511, 129, true);
  gemm("odd", "round", 1000, 1000, 1000);
  gemm("divisible", "near-7", 8, 8, 8);
  gemm("divisible", "near-127", 128, 128, 128);
  gemm("divisible", "near-197", 192, 192, 192);
  gemm("divisible", "near-257x511x129", 256, 512, 128, true);
  // (1000^3's nearest divisible shape is the square family's 1024^3.)

  // ResNet-50 v1.5 (stride in the 3x3 convs): every distinct convolution.
  struct ResNetConv {
    const char *name;
    int64_t c, hw, f, k, stride, pad;
    bool isQuick;
  };
  static const ResNetConv resnet[] = {
      {"conv1 7x7/2", 3, 224, 64, 7, 2, 3, false},
      {"l1 1x1 64-64", 64, 56, 64, 1, 1, 0, false},
      {"l1 3x3 64", 64, 56, 64, 3, 1, 1, true},
      {"l1 1x1 64-256", 64, 56, 256, 1, 1, 0, false},
      {"l1 1x1 256-64", 256, 56, 64, 1, 1, 0, true},
      {"l2 1x1 256-128", 256, 56, 128, 1, 1, 0, false},
      {"l2 3x3/2 128", 128, 56, 128, 3, 2, 1, false},
      {"l2 1x1 128-512", 128, 28, 512, 1, 1, 0, false},
      {"l2 down 1x1/2 256-512", 256, 56, 512, 1, 2, 0, false},
      {"l2 1x1 512-128", 512, 28, 128, 1, 1, 0, false},
      {"l2 3x3 128", 128, 28, 128, 3, 1, 1, false},
      {"l3 1x1 512-256", 512, 28, 256, 1, 1, 0, false},
      {"l3 3x3/2 256", 256, 28, 256, 3, 2, 1, false},
      {"l3 1x1 256-1024", 256, 14, 1024, 1, 1, 0, false},
      {"l3 down 1x1/2 512-1024", 512, 28, 1024, 1, 2, 0, false},
      {"l3 1x1 1024-256", 1024, 14, 256, 1, 1, 0, false},
      {"l3 3x3 256", 256, 14, 256, 3, 1, 1, false},
      {"l4 1x1 1024-512", 1024, 14, 512, 1, 1, 0, false},
      {"l4 3x3/2 512", 512, 14, 512, 3, 2, 1, false},
      {"l4 1x1 512-2048", 512, 7, 2048, 1, 1, 0, false},
      {"l4 down 1x1/2 1024-2048", 1024, 14, 2048, 1, 2, 0, false},
      {"l4 1x1 2048-512", 2048, 7, 512, 1, 1, 0, false},
      {"l4 3x3 512", 512, 7, 512, 3, 1, 1, false},
  };
  for (int64_t batch : {1, 8})
    for (bool nchw : {false, true})
      for (const ResNetConv &r : resnet) {
        ModelShape s;
        s.kind = ModelShape::Conv;
        s.family = llvm::formatv("resnet50-b{0}-{1}", batch,
                                 nchw ? "nchw" : "nhwc")
                       .str();
        s.name = r.name;
        s.conv = {batch, r.c, r.hw, r.hw, r.f, r.k, r.pad, r.stride};
        s.nchw = nchw;
        s.quick = r.isQuick && batch == 1;
        shapes.push_back(s);
      }
  return shapes;
}

/// The kernel of `s` with a `$CONFIG` placeholder.
std::string modelKernelTemplate(const ModelShape &s) {
  if (s.kind == ModelShape::Gemm)
    return matmulTemplate(s.m, s.n, s.k);
  if (s.kind == ModelShape::BatchGemm)
    return llvm::formatv(R"mlir(
func.func @kernel(%A: tensor<{0}x{1}x{3}xf32>, %B: tensor<{0}x{3}x{2}xf32>,
                  %C: tensor<{0}x{1}x{2}xf32>) -> tensor<{0}x{1}x{2}xf32> {{
  %r = linalg.batch_matmul $CONFIG
      ins(%A, %B : tensor<{0}x{1}x{3}xf32>, tensor<{0}x{3}x{2}xf32>)
      outs(%C : tensor<{0}x{1}x{2}xf32>) -> tensor<{0}x{1}x{2}xf32>
  return %r : tensor<{0}x{1}x{2}xf32>
}
)mlir",
                         s.batch, s.m, s.n, s.k)
        .str();
  const ConvDims &d = s.conv;
  int64_t oh = d.outH(), ow = d.outW();
  int64_t ih = convInputSize(oh, d.k, d.stride),
          iw = convInputSize(ow, d.k, d.stride);
  std::string in, flt, out, op;
  if (s.nchw) {
    in = llvm::formatv("tensor<{0}x{1}x{2}x{3}xf32>", d.n, d.c, ih, iw);
    flt = llvm::formatv("tensor<{0}x{1}x{2}x{2}xf32>", d.f, d.c, d.k);
    out = llvm::formatv("tensor<{0}x{1}x{2}x{3}xf32>", d.n, d.f, oh, ow);
    op = "linalg.conv_2d_nchw_fchw";
  } else {
    in = llvm::formatv("tensor<{0}x{1}x{2}x{3}xf32>", d.n, ih, iw, d.c);
    flt = llvm::formatv("tensor<{0}x{0}x{1}x{2}xf32>", d.k, d.c, d.f);
    out = llvm::formatv("tensor<{0}x{1}x{2}x{3}xf32>", d.n, oh, ow, d.f);
    op = "linalg.conv_2d_nhwc_hwcf";
  }
  return llvm::formatv(R"mlir(
func.func @kernel(%I: {0}, %F: {1}, %O: {2}) -> {2} {{
  %r = {3} $CONFIG {{strides = dense<{4}> : tensor<2xi64>,
                    dilations = dense<1> : tensor<2xi64>}
      ins(%I, %F : {0}, {1}) outs(%O : {2}) -> {2}
  return %r : {2}
}
)mlir",
                       in, flt, out, op, d.stride)
      .str();
}

/// The buffers of one shape (inputs random, convolution padding zero) and
/// the reference result, computed on first use.
struct ModelData {
  SmallVector<Buffer> buffers; // A, B, C or input, filter, output
  /// The initial output: timing accumulates into buffers[2].
  std::optional<Buffer> initialOutput;
  std::optional<Buffer> expected;

  /// The arguments to verify with (the initial output).
  SmallVector<Buffer *> getVerifyArgs() {
    if (!initialOutput)
      initialOutput = buffers[2].clone();
    return {&buffers[0], &buffers[1], &*initialOutput};
  }

  explicit ModelData(const ModelShape &s) {
    auto alloc = [&](ArrayRef<int64_t> shape, uint64_t seed) {
      // Placed like the tuner's and tiletune-run's operands.
      Buffer b = check(Buffer::create(ElementType::F32, shape,
                                      getStaggeredPageOffset(buffers.size())),
                       "alloc");
      b.fillRandom(seed);
      buffers.push_back(std::move(b));
    };
    if (s.kind == ModelShape::Gemm) {
      alloc({s.m, s.k}, 1), alloc({s.k, s.n}, 2), alloc({s.m, s.n}, 3);
      return;
    }
    if (s.kind == ModelShape::BatchGemm) {
      alloc({s.batch, s.m, s.k}, 1), alloc({s.batch, s.k, s.n}, 2);
      alloc({s.batch, s.m, s.n}, 3);
      return;
    }
    const ConvDims &d = s.conv;
    int64_t oh = d.outH(), ow = d.outW();
    int64_t ih = convInputSize(oh, d.k, d.stride),
            iw = convInputSize(ow, d.k, d.stride);
    if (s.nchw) {
      alloc({d.n, d.c, ih, iw}, 4), alloc({d.f, d.c, d.k, d.k}, 5);
      alloc({d.n, d.f, oh, ow}, 6);
    } else {
      alloc({d.n, ih, iw, d.c}, 4), alloc({d.k, d.k, d.c, d.f}, 5);
      alloc({d.n, oh, ow, d.f}, 6);
    }
    // Zero the padding border (rows/columns outside [pad, pad + h)).
    float *p = buffers[0].getData<float>();
    auto isPad = [&](int64_t y, int64_t x) {
      return y < d.pad || y >= d.pad + d.h || x < d.pad || x >= d.pad + d.w;
    };
    for (int64_t b = 0; b < d.n; ++b)
      for (int64_t ch = 0; ch < d.c; ++ch)
        for (int64_t y = 0; y < ih; ++y)
          for (int64_t x = 0; x < iw; ++x)
            if (isPad(y, x)) {
              int64_t index = s.nchw ? ((b * d.c + ch) * ih + y) * iw + x
                                     : ((b * ih + y) * iw + x) * d.c + ch;
              p[index] = 0.0f;
            }
    initialOutput = buffers[2].clone();
  }

  const Buffer &getExpected(const ModelShape &s) {
    if (expected)
      return *expected;
    Buffer out = getVerifyArgs()[2]->clone();
    Conv2DParams params;
    params.strides = {s.conv.stride, s.conv.stride};
    if (s.kind == ModelShape::Gemm)
      check(referenceMatmul(buffers[0], buffers[1], out), "reference");
    else if (s.kind == ModelShape::BatchGemm)
      check(referenceBatchMatmul(buffers[0], buffers[1], out), "reference");
    else if (s.nchw)
      check(referenceConv2DNchwFchw(buffers[0], buffers[1], out, params),
            "reference");
    else
      check(referenceConv2DNhwcHwcf(buffers[0], buffers[1], out, params),
            "reference");
    expected = std::move(out);
    return *expected;
  }
};

/// oneDNN batched matmul primitive (plain row-major abc layouts) over the
/// buffers of a batch GEMM. Owns its objects.
class DnnlBatchMatmul {
public:
  DnnlBatchMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, float *a,
                  float *b, float *c) {
    checkDnnl(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
    checkDnnl(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
              "stream");
    dnnl_dims_t src = {batch, m, k}, wei = {batch, k, n}, dst = {batch, m, n};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    checkDnnl(dnnl_memory_desc_init_by_tag(&srcMd, 3, src, dnnl_f32, dnnl_abc),
              "src md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&weiMd, 3, wei, dnnl_f32, dnnl_abc),
              "weights md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&dstMd, 3, dst, dnnl_f32, dnnl_abc),
              "dst md");
    dnnl_matmul_desc_t desc;
    checkDnnl(dnnl_matmul_desc_init(&desc, &srcMd, &weiMd, nullptr, &dstMd),
              "matmul desc");
    checkDnnl(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr),
              "primitive desc");
    const char *impl = nullptr;
    checkDnnl(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
                                        &impl),
              "impl query");
    implName = impl ? impl : "?";
    float *data[3] = {a, b, c};
    const dnnl_memory_desc_t *mds[3] = {&srcMd, &weiMd, &dstMd};
    int argIds[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    for (int i = 0; i < 3; ++i) {
      checkDnnl(dnnl_memory_create(&mem[i], mds[i], engine, data[i]),
                "memory");
      args[i] = {argIds[i], mem[i]};
    }
    checkDnnl(dnnl_primitive_create(&prim, pd), "primitive");
  }
  ~DnnlBatchMatmul() {
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

/// One row of the models table: a shape at one thread count.
struct ModelResult {
  const ModelShape *shape;
  int threads;
  double peak = 0, ours = 0;
  std::optional<double> tuned, openblas, onednn;
  std::string config, tunedConfig, onednnImpl;
  /// The database's config is the default one: it was timed once, and
  /// `tuned` is that measurement (two timings of one kernel would show two
  /// figures, 5-15 % apart on a busy VM, for the same code).
  bool tunedIsDefault = false;

  double bestLibrary() const {
    return std::max(openblas.value_or(0), onednn.value_or(0));
  }
  llvm::StringRef bestLibraryName() const {
    return openblas.value_or(0) >= onednn.value_or(0) ? "OpenBLAS" : "oneDNN";
  }
};

ModelResult measureModelShape(MLIRContext &context, const ModelShape &s,
                              ModelData &data, int threads) {
  ModelResult r;
  r.shape = &s;
  r.threads = threads;
  r.peak = getDefaultTargetCPU().getPeakGFlops(threads);
  std::string kernelTemplate = modelKernelTemplate(s);
  SmallVector<Buffer *> args;
  for (Buffer &b : data.buffers)
    args.push_back(&b);
  const double flops = s.flops();
  auto gflops = [&](const TimeStats &stats) {
    return computeGFlops(flops, stats.median);
  };

  // Ours: the default config for this thread count, then the tuned one.
  OurKernel ours = compileOurs(context, kernelTemplate, "", true, threads);
  r.config = ours.config;
  verifyOurs(*ours.kernel, data.getVerifyArgs(), 2, data.getExpected(s),
             s.reduction(), "default config");
  setThreads(threads);
  r.ours = gflops(check(ours.kernel->time(args, timingOptions()), "time"));
  if (!tunedDb.empty()) {
    if (std::optional<OurKernel> tuned = compileOursOrNone(
            context, kernelTemplate, "", true, threads, tunedDb)) {
      r.tunedConfig = tuned->config;
      // The configs without the "(...)" saying where they came from.
      auto body = [](StringRef text) { return text.split(" (").first; };
      r.tunedIsDefault = body(r.tunedConfig) == body(r.config);
      if (r.tunedIsDefault) {
        r.tuned = r.ours;
      } else {
        verifyOurs(*tuned->kernel, data.getVerifyArgs(), 2, data.getExpected(s),
                   s.reduction(), "tuned config");
        setThreads(threads);
        r.tuned =
            gflops(check(tuned->kernel->time(args, timingOptions()), "time"));
      }
    }
  }

  // The libraries, on the same buffers.
  float *a = data.buffers[0].getData<float>();
  float *b = data.buffers[1].getData<float>();
  float *c = data.buffers[2].getData<float>();
  setThreads(threads);
  if (s.kind == ModelShape::Gemm) {
    int64_t m = s.m, n = s.n, k = s.k;
    r.openblas = gflops(check(
        measure(
            [&] {
              cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k,
                          1.0f, a, k, b, n, 1.0f, c, n);
            },
            timingOptions()),
        "time openblas"));
    r.onednn = gflops(check(
        measure(
            [&] {
              dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 1.0f, c, n);
            },
            timingOptions()),
        "time onednn"));
    r.onednnImpl = "dnnl_sgemm";
  } else if (s.kind == ModelShape::BatchGemm) {
    int64_t m = s.m, n = s.n, k = s.k;
    // OpenBLAS has no batched sgemm here: one call per batch entry.
    r.openblas = gflops(check(
        measure(
            [&] {
              for (int64_t i = 0; i < s.batch; ++i)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n,
                            k, 1.0f, a + i * m * k, k, b + i * k * n, n, 1.0f,
                            c + i * m * n, n);
            },
            timingOptions()),
        "time openblas"));
    Buffer scratch = data.buffers[2].clone();
    DnnlBatchMatmul dnnl(s.batch, m, n, k, a, b, scratch.getData<float>());
    r.onednn = gflops(check(measure([&] { dnnl.run(); }, timingOptions()),
                            "time onednn"));
    r.onednnImpl = "matmul " + dnnl.implName;
  } else {
    // oneDNN with its preferred (blocked) layouts for either of ours.
    DnnlConv dnnl(s.conv);
    r.onednn = gflops(check(measure([&] { dnnl.run(); }, timingOptions()),
                            "time onednn"));
    r.onednnImpl = dnnl.implName;
  }

  auto cell = [](std::optional<double> v) {
    return v ? llvm::formatv("{0,8:f1}", *v).str() : std::string("       -");
  };
  llvm::outs() << llvm::formatv(
      "  {0,-26} {1,2} thr  ours {2,8:f1} ({3,3:f0}% peak)  tuned {4}  "
      "OpenBLAS {5}  oneDNN {6}  ours/best {7,5:f2}{8}\n",
      s.name, threads, r.ours, 100 * r.ours / r.peak, cell(r.tuned),
      cell(r.openblas), cell(r.onednn), r.ours / r.bestLibrary(),
      r.tuned ? llvm::formatv("  tuned/best {0,5:f2}",
                              *r.tuned / r.bestLibrary())
                    .str()
              : "");
  llvm::outs() << "      config: " << r.config << "\n";
  if (r.tuned)
    llvm::outs() << "      tuned: "
                 << (r.tunedIsDefault
                         ? StringRef("the default config (timed once, above)")
                         : StringRef(r.tunedConfig))
                 << "\n";
  return r;
}

double geomean(ArrayRef<double> values) {
  if (values.empty())
    return 0;
  double sum = 0;
  for (double v : values)
    sum += std::log(v);
  return std::exp(sum / values.size());
}

/// --emit-mlir: writes the kernels of `selected` (no config), one function
/// each named after its shape, as one module.
int emitModelKernels(ArrayRef<const ModelShape *> selected) {
  if (emitMlir == "-")
    die("--emit-mlir needs a file (standard output carries the banner)");
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file =
      mlir::openOutputFile(emitMlir, &error);
  if (!file)
    die("--emit-mlir: " + error);
  file->os() << "// The kernels of tiletune-bench-cpu --suite=models"
             << (shapeFilter.empty() ? "" : " --filter=" + shapeFilter)
             << (quick ? " --quick" : "") << ", one function per shape.\n"
             << "module {";
  for (const ModelShape *s : selected) {
    std::string name = "@";
    for (char c : s->key())
      name += llvm::isAlnum(c) ? c : '_';
    std::string text = instantiateKernel(modelKernelTemplate(*s), "");
    size_t at = text.find("@kernel");
    assert(at != std::string::npos && "kernel template without @kernel");
    text.replace(at, strlen("@kernel"), name);
    file->os() << text;
  }
  file->os() << "}\n";
  file->keep();
  llvm::errs() << "wrote " << selected.size() << " kernels to " << emitMlir
               << "\n";
  return 0;
}

int runModelsSuite(MLIRContext &context, const CPUDescription &target) {
  std::vector<ModelShape> shapes = getModelShapes();
  SmallVector<StringRef> filters;
  StringRef(shapeFilter).split(filters, ',', -1, /*KeepEmpty=*/false);
  std::vector<const ModelShape *> selected;
  for (const ModelShape &s : shapes) {
    if (quick && !s.quick)
      continue;
    if (!filters.empty() && llvm::none_of(filters, [&](StringRef f) {
          return StringRef(s.key()).contains(f.trim());
        }))
      continue;
    selected.push_back(&s);
  }
  if (selected.empty())
    die("--filter '" + shapeFilter + "'" + (quick ? " with --quick" : "") +
        " selects no shape of the models suite (--list shows them)");
  if (listShapes) {
    for (const ModelShape *s : selected)
      llvm::outs() << s->key() << "  ("
                   << llvm::formatv("{0:e2}", s->flops()) << " FLOP)\n";
    llvm::outs() << selected.size() << " of " << shapes.size()
                 << " shapes\n";
    return 0;
  }
  if (!emitMlir.empty())
    return emitModelKernels(selected);

  std::vector<ModelResult> results;
  std::string family;
  for (const ModelShape *s : selected) {
    if (s->family != family) {
      family = s->family;
      llvm::outs() << "\n== " << family << " ==\n";
    }
    ModelData data(*s);
    for (int threads : threadCounts)
      results.push_back(measureModelShape(context, *s, data, threads));
  }

  // Geomeans per family and thread count.
  struct FamilyStats {
    SmallVector<double> defaultRatios, tunedRatios, speedups;
  };
  std::map<std::pair<std::string, int>, FamilyStats> families;
  std::map<std::string, double> oneThread;
  for (const ModelResult &r : results) {
    FamilyStats &f = families[{r.shape->family, r.threads}];
    f.defaultRatios.push_back(r.ours / r.bestLibrary());
    if (r.tuned)
      f.tunedRatios.push_back(*r.tuned / r.bestLibrary());
    if (r.threads == 1)
      oneThread[r.shape->key()] = r.ours;
    else if (oneThread.count(r.shape->key()))
      f.speedups.push_back(r.ours / oneThread[r.shape->key()]);
  }
  llvm::outs() << "\n== geomean per family (ours / best library) ==\n";
  for (auto &[key, f] : families) {
    llvm::outs() << llvm::formatv("  {0,-20} {1,2} thr  default {2:f2}",
                                  key.first, key.second,
                                  geomean(f.defaultRatios));
    if (!f.tunedRatios.empty())
      llvm::outs() << llvm::formatv("  tuned {0:f2} ({1} tuned)",
                                    geomean(f.tunedRatios),
                                    f.tunedRatios.size());
    if (!f.speedups.empty())
      llvm::outs() << llvm::formatv("  ours vs 1 thread {0:f2}x",
                                    geomean(f.speedups));
    llvm::outs() << "  (" << f.defaultRatios.size() << " shapes)\n";
  }

  if (jsonFile.empty())
    return 0;
  std::error_code ec;
  llvm::raw_fd_ostream file(jsonFile, ec);
  if (ec)
    die("--json: cannot write '" + jsonFile + "': " + ec.message());
  llvm::json::OStream json(file, 2);
  auto optional = [&](llvm::StringRef name, std::optional<double> v) {
    if (v)
      json.attribute(name, *v);
    else
      json.attribute(name, nullptr);
  };
  json.object([&] {
    json.attribute("suite", "models");
    json.attribute("target", target.toJSON(/*peak=*/true));
    json.attribute("host_cpu", getHostTarget().cpu);
    json.attribute("openblas_core", openblas_get_corename());
    json.attributeArray("results", [&] {
      for (const ModelResult &r : results)
        json.object([&] {
          const ModelShape &s = *r.shape;
          json.attribute("family", s.family);
          json.attribute("name", s.name);
          json.attribute("op", s.kind == ModelShape::Conv
                                   ? (s.nchw ? "conv_2d_nchw_fchw"
                                             : "conv_2d_nhwc_hwcf")
                               : s.kind == ModelShape::BatchGemm
                                   ? "batch_matmul"
                                   : "matmul");
          if (s.kind == ModelShape::Conv) {
            json.attributeObject("conv", [&] {
              json.attribute("n", s.conv.n);
              json.attribute("c", s.conv.c);
              json.attribute("h", s.conv.h);
              json.attribute("w", s.conv.w);
              json.attribute("f", s.conv.f);
              json.attribute("k", s.conv.k);
              json.attribute("stride", s.conv.stride);
              json.attribute("pad", s.conv.pad);
            });
          } else {
            json.attribute("batch", s.batch);
            json.attribute("m", s.m);
            json.attribute("n", s.n);
            json.attribute("k", s.k);
          }
          json.attribute("threads", r.threads);
          json.attribute("flop", s.flops());
          json.attribute("peak_gflops", r.peak);
          json.attribute("ours_default_gflops", r.ours);
          json.attribute("ours_default_config", r.config);
          optional("ours_tuned_gflops", r.tuned);
          json.attribute("ours_tuned_config", r.tunedConfig);
          if (r.tuned)
            json.attribute("tuned_is_default", r.tunedIsDefault);
          optional("openblas_gflops", r.openblas);
          optional("onednn_gflops", r.onednn);
          json.attribute("onednn_impl", r.onednnImpl);
          json.attribute("best_library", r.bestLibraryName());
          json.attribute("default_percent_of_peak", 100 * r.ours / r.peak);
          json.attribute("default_over_best", r.ours / r.bestLibrary());
          optional("tuned_over_best",
                   r.tuned ? std::optional<double>(*r.tuned / r.bestLibrary())
                           : std::nullopt);
        });
    });
    json.attributeArray("families", [&] {
      for (auto &entry : families)
        json.object([&, &key = entry.first, &f = entry.second] {
          json.attribute("family", key.first);
          json.attribute("threads", key.second);
          json.attribute("shapes", int64_t(f.defaultRatios.size()));
          json.attribute("geomean_default_over_best",
                         geomean(f.defaultRatios));
          optional("geomean_tuned_over_best",
                   f.tunedRatios.empty()
                       ? std::nullopt
                       : std::optional<double>(geomean(f.tunedRatios)));
          optional("geomean_speedup_over_1_thread",
                   f.speedups.empty()
                       ? std::nullopt
                       : std::optional<double>(geomean(f.speedups)));
        });
    });
  });
  file << "\n";
  llvm::outs() << "\nwrote " << jsonFile << "\n";
  return 0;
}

//===----------------------------------------------------------------------===//
// The matmul/conv ops of a model against oneDNN (--model-ops).
//===----------------------------------------------------------------------===//

/// A oneDNN post-op standing for part of a model op's epilogue: a binary op
/// with a second operand of `dims` (the primitive's destination dims, 1
/// where it broadcasts) or an eltwise op.
struct DnnlPostOp {
  bool binary = false;
  dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
  std::vector<int64_t> dims;
  std::string name;
};

/// One oneDNN primitive (matmul or convolution) with its own memory filled
/// with random values; the engine and stream are shared.
class DnnlOp {
public:
  /// A (batched) matmul: [b x] m x k times [b x] k x n, row-major (the
  /// operands as the linalg op reads them, transposes resolved by the
  /// strides of the memory descriptors).
  static std::unique_ptr<DnnlOp> matmul(int64_t b, int64_t m, int64_t n,
                                        int64_t k, bool transA, bool transB,
                                        const std::vector<DnnlPostOp> &post = {}) {
    auto op = std::unique_ptr<DnnlOp>(new DnnlOp());
    dnnl_dims_t src = {b, m, k}, wei = {b, k, n}, dst = {b, m, n};
    dnnl_dims_t srcStrides = {m * k, transA ? 1 : k, transA ? m : 1};
    dnnl_dims_t weiStrides = {k * n, transB ? 1 : n, transB ? k : 1};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    checkDnnl(dnnl_memory_desc_init_by_strides(&srcMd, 3, src, dnnl_f32,
                                               srcStrides),
              "matmul src md");
    checkDnnl(dnnl_memory_desc_init_by_strides(&weiMd, 3, wei, dnnl_f32,
                                               weiStrides),
              "matmul weights md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&dstMd, 3, dst, dnnl_f32,
                                           dnnl_abc),
              "matmul dst md");
    dnnl_matmul_desc_t desc;
    checkDnnl(dnnl_matmul_desc_init(&desc, &srcMd, &weiMd, nullptr, &dstMd),
              "matmul desc");
    if (!op->create(&desc, post))
      return nullptr;
    return op;
  }

  /// A 2-D convolution in oneDNN's preferred (blocked) layout.
  static std::unique_ptr<DnnlOp> conv(int64_t n, int64_t c, int64_t h,
                                      int64_t w, int64_t f, int64_t kh,
                                      int64_t kw, std::array<int64_t, 2> stride,
                                      std::array<int64_t, 4> pad,
                                      const std::vector<DnnlPostOp> &post = {}) {
    auto op = std::unique_ptr<DnnlOp>(new DnnlOp());
    int64_t oh = (h + pad[0] + pad[1] - kh) / stride[0] + 1;
    int64_t ow = (w + pad[2] + pad[3] - kw) / stride[1] + 1;
    dnnl_dims_t src = {n, c, h, w}, wei = {f, c, kh, kw},
                dst = {n, f, oh, ow};
    dnnl_dims_t strides = {stride[0], stride[1]};
    dnnl_dims_t padL = {pad[0], pad[2]}, padR = {pad[1], pad[3]};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    checkDnnl(dnnl_memory_desc_init_by_tag(&srcMd, 4, src, dnnl_f32,
                                           dnnl_format_tag_any),
              "conv src md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&weiMd, 4, wei, dnnl_f32,
                                           dnnl_format_tag_any),
              "conv weights md");
    checkDnnl(dnnl_memory_desc_init_by_tag(&dstMd, 4, dst, dnnl_f32,
                                           dnnl_format_tag_any),
              "conv dst md");
    dnnl_convolution_desc_t desc;
    checkDnnl(dnnl_convolution_forward_desc_init(
                  &desc, dnnl_forward_inference, dnnl_convolution_direct,
                  &srcMd, &weiMd, nullptr, &dstMd, strides, padL, padR),
              "convolution desc");
    if (!op->create(&desc, post))
      return nullptr;
    return op;
  }

  ~DnnlOp() {
    dnnl_primitive_destroy(prim);
    for (dnnl_memory_t m : mem)
      dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
  }
  void run() {
    dnnl_primitive_execute(prim, stream(), int(args.size()), args.data());
    dnnl_stream_wait(stream());
  }
  /// Bytes of the source (0), weights (1) and destination (2).
  size_t getBytes(int arg) const { return bytes[arg]; }
  /// Points the source and destination at `src` and `dst` (of at least
  /// getBytes(0) and getBytes(2) bytes): the ops of a model run in sequence
  /// then share the memory of their activations, which a model's ops pass
  /// on to each other in cache.
  void setActivations(void *src, void *dst) {
    checkDnnl(dnnl_memory_set_data_handle(mem[0], src), "src handle");
    checkDnnl(dnnl_memory_set_data_handle(mem[2], dst), "dst handle");
  }
  std::string implName;

private:
  DnnlOp() = default;
  static dnnl_engine_t engine() {
    static dnnl_engine_t e = [] {
      dnnl_engine_t created = nullptr;
      checkDnnl(dnnl_engine_create(&created, dnnl_cpu, 0), "engine");
      return created;
    }();
    return e;
  }
  static dnnl_stream_t stream() {
    static dnnl_stream_t s = [] {
      dnnl_stream_t created = nullptr;
      checkDnnl(dnnl_stream_create(&created, engine(),
                                   dnnl_stream_default_flags),
                "stream");
      return created;
    }();
    return s;
  }
  /// Memory of `md`, filled with random values (seed `seed`).
  void addMemory(const dnnl_memory_desc_t *md, int argId, int seed) {
    dnnl_memory_t m = nullptr;
    checkDnnl(dnnl_memory_create(&m, md, engine(), DNNL_MEMORY_ALLOCATE),
              "memory");
    mem.push_back(m);
    bytes.push_back(dnnl_memory_desc_get_size(md));
    void *data = nullptr;
    checkDnnl(dnnl_memory_get_data_handle(m, &data), "data handle");
    size_t count = dnnl_memory_desc_get_size(md) / sizeof(float);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t j = 0; j < count; ++j)
      static_cast<float *>(data)[j] = dist(rng);
    args.push_back({argId, m});
  }
  /// Creates the primitive with `post` as its post-ops; false when oneDNN
  /// has no implementation of the op with these post-ops.
  bool create(const void *desc, const std::vector<DnnlPostOp> &post) {
    dnnl_primitive_attr_t attr = nullptr;
    std::vector<dnnl_memory_desc_t> src1(post.size());
    // A second operand as large as the destination takes the destination's
    // layout (a blocked one for convolutions), and a residual add becomes
    // the sum post-op: as a binary add oneDNN 2.6 fell back to its
    // reference gemm convolution (0.2 GFLOP/s) in either layout.
    std::optional<dnnl_memory_desc_t> dstMd;
    std::vector<size_t> sumIndex;
    if (!post.empty()) {
      dnnl_primitive_desc_t plainPd = nullptr;
      checkDnnl(dnnl_primitive_desc_create(&plainPd, desc, nullptr, engine(),
                                           nullptr),
                "primitive desc");
      dstMd = *dnnl_primitive_desc_query_md(plainPd, dnnl_query_dst_md, 0);
      dnnl_primitive_desc_destroy(plainPd);
    }
    if (!post.empty()) {
      dnnl_post_ops_t ops = nullptr;
      checkDnnl(dnnl_post_ops_create(&ops), "post-ops");
      for (auto [i, p] : llvm::enumerate(post)) {
        if (p.binary) {
          static const dnnl_format_tag_t plain[] = {
              dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
          bool full = dstMd && dstMd->ndims == int(p.dims.size()) &&
                      std::equal(p.dims.begin(), p.dims.end(), dstMd->dims);
          if (full && p.alg == dnnl_binary_add) {
            // oneDNN's residual add: the sum post-op accumulates into the
            // destination, which holds the residual.
            checkDnnl(dnnl_post_ops_append_sum(ops, 1.0f), "sum post-op");
            sumIndex.push_back(i);
            continue;
          }
          if (full)
            src1[i] = *dstMd;
          else
            checkDnnl(dnnl_memory_desc_init_by_tag(
                          &src1[i], int(p.dims.size()), p.dims.data(),
                          dnnl_f32, plain[p.dims.size() - 1]),
                      "post-op operand md");
          checkDnnl(dnnl_post_ops_append_binary(ops, p.alg, &src1[i]),
                    "binary post-op");
        } else {
          // clip to [0, 6]; swish x * sigmoid(1 x).
          checkDnnl(dnnl_post_ops_append_eltwise(
                        ops, 1.0f, p.alg,
                        p.alg == dnnl_eltwise_swish ? 1.0f : 0.0f,
                        p.alg == dnnl_eltwise_clip ? 6.0f : 0.0f),
                    "eltwise post-op");
        }
      }
      checkDnnl(dnnl_primitive_attr_create(&attr), "attr");
      checkDnnl(dnnl_primitive_attr_set_post_ops(attr, ops), "set post-ops");
      dnnl_post_ops_destroy(ops);
    }
    dnnl_status_t status =
        dnnl_primitive_desc_create(&pd, desc, attr, engine(), nullptr);
    if (attr)
      dnnl_primitive_attr_destroy(attr);
    if (status != dnnl_success && !post.empty())
      return false;
    checkDnnl(status, "primitive desc");
    const char *impl = nullptr;
    checkDnnl(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
                                        &impl),
              "impl query");
    implName = impl ? impl : "?";
    dnnl_query_t queries[3] = {dnnl_query_src_md, dnnl_query_weights_md,
                               dnnl_query_dst_md};
    int argIds[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    for (int i = 0; i < 3; ++i)
      addMemory(dnnl_primitive_desc_query_md(pd, queries[i], 0), argIds[i],
                10 + i);
    for (auto [i, p] : llvm::enumerate(post))
      if (p.binary && !llvm::is_contained(sumIndex, i))
        addMemory(&src1[i],
                  DNNL_ARG_ATTR_MULTIPLE_POST_OP(int(i)) | DNNL_ARG_SRC_1,
                  20 + int(i));
    checkDnnl(dnnl_primitive_create(&prim, pd), "primitive");
    return true;
  }

  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t prim = nullptr;
  std::vector<dnnl_memory_t> mem;
  std::vector<size_t> bytes;
  std::vector<dnnl_exec_arg_t> args;
};

/// One distinct matmul/conv of a model: what oneDNN runs, how often the
/// model runs it, and its FLOPs (2 per multiply-add of the linalg op).
struct ModelOp {
  std::string key;
  std::string opName;
  bool isConv = false;
  int64_t b = 1, m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  int64_t cn = 0, cc = 0, ch = 0, cw = 0, cf = 0, ckh = 0, ckw = 0;
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 4> pad = {0, 0, 0, 0};
  int64_t count = 0;
  double flops = 0;
  /// The FLOPs of the taps inside the image (a conv fed by a tensor.pad:
  /// oneDNN, given the padding, skips the taps in it); `flops` otherwise.
  double usefulFlops = 0;
  /// Per dim of the linalg op's result, the dim of oneDNN's destination it
  /// is (matmul: b, m, n; conv: n, f, oh, ow).
  std::vector<int> dstDims;
  /// The op's epilogue as oneDNN post-ops (mapEpilogue) and in words.
  std::vector<DnnlPostOp> postOps;
  std::string postOpText;
};

/// The static size of loop `dim` of `op`.
int64_t loopSize(linalg::LinalgOp op, unsigned dim) {
  return op.getStaticLoopRanges()[dim];
}

/// A matmul/batch_matmul-like contraction: one m, n, k dim (and at most one
/// batch dim); the transposes from the position of k in the operand maps.
std::optional<ModelOp> matchModelMatmul(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  ModelOp result;
  result.opName = op->getName().getStringRef().str();
  result.m = loopSize(op, dims->m[0]);
  result.n = loopSize(op, dims->n[0]);
  result.k = loopSize(op, dims->k[0]);
  result.b = dims->batch.empty() ? 1 : loopSize(op, dims->batch[0]);
  // Aᵀ when k is not A's last result dim; Bᵀ when k is B's last.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto lastDim = [](AffineMap map) -> int64_t {
    auto expr = dyn_cast<AffineDimExpr>(map.getResult(map.getNumResults() - 1));
    return expr ? expr.getPosition() : -1;
  };
  result.transA = lastDim(maps[0]) != int64_t(dims->k[0]);
  result.transB = lastDim(maps[1]) == int64_t(dims->k[0]);
  for (AffineExpr expr : maps[2].getResults()) {
    unsigned d = cast<AffineDimExpr>(expr).getPosition();
    result.dstDims.push_back(d == dims->m[0] ? 1 : d == dims->n[0] ? 2 : 0);
  }
  result.flops = 2.0 * result.b * result.m * result.n * result.k;
  result.usefulFlops = result.flops;
  result.key = llvm::formatv("matmul b{0} {1}x{2}x{3}{4}{5}", result.b,
                             result.m, result.n, result.k,
                             result.transA ? " At" : "",
                             result.transB ? " Bt" : "");
  return result;
}

/// A 2-D convolution with one batch, output-channel and input-channel dim
/// and 2-D windows (conv_2d_nhwc_hwcf/fhwc, nchw_fchw or a generic of that
/// form). An input produced by a static tensor.pad is seen through: the
/// padding becomes oneDNN's (which skips the zero taps).
std::optional<ModelOp> matchModelConv(linalg::LinalgOp op) {
  if (!linalg::isaConvolutionOpInterface(op) ||
      !llvm::any_of(op.getBlock()->without_terminator(),
                    [](Operation &inner) { return isa<arith::MulFOp>(inner); }))
    return std::nullopt;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims) || dims->batch.size() != 1 ||
      dims->outputImage.size() != 2 || dims->filterLoop.size() != 2 ||
      dims->outputChannel.size() != 1 || dims->inputChannel.size() != 1 ||
      !dims->depth.empty() ||
      llvm::any_of(dims->dilations, [](int64_t d) { return d != 1; }))
    return std::nullopt;
  ModelOp result;
  result.isConv = true;
  result.opName = op->getName().getStringRef().str();
  result.cn = loopSize(op, dims->batch[0]);
  result.cf = loopSize(op, dims->outputChannel[0]);
  result.cc = loopSize(op, dims->inputChannel[0]);
  result.ckh = loopSize(op, dims->filterLoop[0]);
  result.ckw = loopSize(op, dims->filterLoop[1]);
  int64_t oh = loopSize(op, dims->outputImage[0]);
  int64_t ow = loopSize(op, dims->outputImage[1]);
  result.stride = {dims->strides[0], dims->strides[1]};
  for (AffineExpr expr :
       op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults()) {
    auto d = dyn_cast<AffineDimExpr>(expr);
    unsigned p = d ? d.getPosition() : ~0u;
    result.dstDims.push_back(p == dims->outputChannel[0]  ? 1
                             : p == dims->outputImage[0] ? 2
                             : p == dims->outputImage[1] ? 3
                                                         : 0);
  }
  result.ch = (oh - 1) * result.stride[0] + result.ckh;
  result.cw = (ow - 1) * result.stride[1] + result.ckw;
  result.flops = 2.0 * result.cn * result.cf * result.cc * result.ckh *
                 result.ckw * oh * ow;
  // The padding of a tensor.pad producing the input (which spatial dims of
  // the input are H and W: those indexed by the output image loops).
  if (auto padOp = op.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>()) {
    AffineMap inMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    SmallVector<int64_t> low = llvm::to_vector(padOp.getStaticLow());
    SmallVector<int64_t> high = llvm::to_vector(padOp.getStaticHigh());
    int found = 0;
    for (unsigned r = 0; r < inMap.getNumResults() && r < low.size(); ++r) {
      AffineExpr expr = inMap.getResult(r);
      for (unsigned i = 0; i < 2; ++i)
        if (expr.isFunctionOfDim(dims->outputImage[i]) &&
            !ShapedType::isDynamic(low[r]) && !ShapedType::isDynamic(high[r])) {
          // The padded size the op reads may be less than the padded
          // tensor (a bottom row a stride never reaches).
          int64_t padded = padOp.getResultType().getDimSize(r);
          int64_t unpadded = padded - low[r] - high[r];
          int64_t extent = (i == 0 ? result.ch : result.cw);
          int64_t before = low[r];
          int64_t after = std::max<int64_t>(extent - before - unpadded, 0);
          (i == 0 ? result.ch : result.cw) = unpadded;
          result.pad[2 * i] = before;
          result.pad[2 * i + 1] = after;
          ++found;
        }
    }
    if (found != 2) {
      result.ch = (oh - 1) * result.stride[0] + result.ckh;
      result.cw = (ow - 1) * result.stride[1] + result.ckw;
      result.pad = {0, 0, 0, 0};
    }
  }
  result.usefulFlops = 2.0 * result.cn * result.cf * result.cc *
                       countValidTaps(result.ch, result.ckh, result.stride[0],
                                      result.pad[0], result.pad[1]) *
                       countValidTaps(result.cw, result.ckw, result.stride[1],
                                      result.pad[2], result.pad[3]);
  result.key = llvm::formatv(
      "conv {0}x{1}x{2}x{3} -> {4}, {5}x{6}/{7}, pad {8},{9},{10},{11}",
      result.cn, result.cc, result.ch, result.cw, result.cf, result.ckh,
      result.ckw, result.stride[0], result.pad[0], result.pad[1],
      result.pad[2], result.pad[3]);
  return result;
}

/// The epilogue of `op` (findEpilogueChain: what tiletune-lower-cpu fuses)
/// as oneDNN post-ops doing the same work: per epilogue op, one binary
/// post-op per operand besides the chained value (its broadcast: 1 in the
/// destination dims it does not vary over; the kind from the scalar op that
/// reads it), then one eltwise post-op per nonlinearity of its body (max or
/// min: clip; a tanh with products, or a sigmoid with a cube: gelu_tanh;
/// tanh; a sigmoid with a product: swish; a sigmoid: logistic; exp); an op
/// with no operand and no nonlinearity (a scaling) is one linear post-op.
void mapEpilogue(linalg::LinalgOp op, ModelOp &m) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return;
  FailureOr<SmallVector<Operation *>> chain =
      findEpilogueChain(op, /*reason=*/nullptr);
  if (failed(chain) || chain->empty())
    return;
  std::vector<int64_t> dst;
  if (m.isConv)
    dst = {m.cn, m.cf, (m.ch + m.pad[0] + m.pad[1] - m.ckh) / m.stride[0] + 1,
           (m.cw + m.pad[2] + m.pad[3] - m.ckw) / m.stride[1] + 1};
  else
    dst = {m.b, m.m, m.n};
  Value current = op->getResult(0);
  SmallVector<std::string> words;
  for (Operation *e : *chain) {
    auto lop = cast<linalg::LinalgOp>(e);
    Block &body = *lop.getBlock();
    bool tanh = false, exp = false, clamp = false, mul = false, div = false;
    int numMul = 0;
    for (Operation &inner : body.without_terminator()) {
      tanh |= isa<math::TanhOp>(inner);
      exp |= isa<math::ExpOp>(inner);
      clamp |= isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
                   arith::MinNumFOp>(inner);
      mul |= isa<arith::MulFOp>(inner);
      numMul += isa<arith::MulFOp>(inner) ? 1 : 0;
      div |= isa<arith::DivFOp>(inner);
    }
    // A sigmoid, 1 / (1 + exp(-y)): with the cube of x, the GELU as
    // frontends write it out (x * sigmoid(c (x + a x^3)), one op once
    // mergeEpilogueDAGs has merged it), else x * sigmoid(x) (SiLU) or the
    // sigmoid alone. Its splat constants belong to the function.
    bool sigmoid = exp && div && !tanh;
    bool any = false;
    for (OpOperand *operand : lop.getDpsInputOperands()) {
      if (operand->get() == current ||
          !isa<ShapedType>(operand->get().getType()))
        continue;
      if (sigmoid && matchPattern(operand->get(), m_Constant()))
        continue;
      BlockArgument arg = body.getArgument(operand->getOperandNumber());
      DnnlPostOp post;
      post.binary = true;
      post.alg = dnnl_binary_add;
      post.name = "add";
      for (Operation *user : arg.getUsers()) {
        if (isa<arith::MulFOp>(user))
          post.alg = dnnl_binary_mul, post.name = "mul";
        else if (isa<arith::SubFOp>(user))
          post.alg = dnnl_binary_sub, post.name = "sub";
        else if (isa<arith::DivFOp>(user))
          post.alg = dnnl_binary_div, post.name = "div";
        else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(user))
          post.alg = dnnl_binary_max, post.name = "max";
        else if (isa<arith::MinimumFOp, arith::MinNumFOp>(user))
          post.alg = dnnl_binary_min, post.name = "min";
        break;
      }
      post.dims.assign(dst.size(), 1);
      AffineMap map = lop.getMatchingIndexingMap(operand);
      for (AffineExpr expr : map.getResults())
        if (auto d = dyn_cast<AffineDimExpr>(expr))
          if (d.getPosition() < m.dstDims.size())
            post.dims[m.dstDims[d.getPosition()]] =
                dst[m.dstDims[d.getPosition()]];
      std::string shape;
      for (int64_t d : post.dims)
        shape += (shape.empty() ? "" : "x") + std::to_string(d);
      words.push_back(post.name + "[" + shape + "]");
      m.postOps.push_back(std::move(post));
      any = true;
    }
    auto eltwise = [&](dnnl_alg_kind_t alg, StringRef name) {
      DnnlPostOp post;
      post.alg = alg;
      post.name = name.str();
      words.push_back(post.name);
      m.postOps.push_back(std::move(post));
    };
    if ((tanh && mul) || (sigmoid && numMul >= 3))
      eltwise(dnnl_eltwise_gelu_tanh, "gelu_tanh");
    else if (tanh)
      eltwise(dnnl_eltwise_tanh, "tanh");
    else if (sigmoid && mul)
      eltwise(dnnl_eltwise_swish, "swish");
    else if (sigmoid)
      eltwise(dnnl_eltwise_logistic, "logistic");
    if (exp && !sigmoid)
      eltwise(dnnl_eltwise_exp, "exp");
    if (clamp)
      eltwise(dnnl_eltwise_clip, "clip");
    if (!any && !tanh && !exp && !clamp)
      eltwise(dnnl_eltwise_linear, "linear");
    current = e->getResult(0);
  }
  m.postOpText = llvm::join(words, ", ");
}

/// The oneDNN primitive of `op` with post-ops `post`; null where oneDNN has
/// no implementation of it with them other than its reference one. With
/// some post-op chains (a residual add after a 1x1 conv, AVX2 only) oneDNN
/// 2.6 picks `ref:any`, a thousand times slower than the op alone: no
/// fused kernel to compare with, so the op counts without its post-ops.
std::unique_ptr<DnnlOp> createDnnlOp(const ModelOp &op,
                                     const std::vector<DnnlPostOp> &post) {
  std::unique_ptr<DnnlOp> prim =
      op.isConv ? DnnlOp::conv(op.cn, op.cc, op.ch, op.cw, op.cf, op.ckh,
                               op.ckw, op.stride, op.pad, post)
                : DnnlOp::matmul(op.b, op.m, op.n, op.k, op.transA,
                                 op.transB, post);
  if (prim && !post.empty() &&
      llvm::StringRef(prim->implName).starts_with("ref"))
    return nullptr;
  return prim;
}

/// The time of `op` (a matmul form) by OpenBLAS's sgemm, `count` calls of
/// it (a batched one: one call per batch entry, as OpenBLAS has no batched
/// sgemm here), on operands of its own stored as the linalg op reads them
/// (the transposes by sgemm's flags); prints its line.
double timeOpenBLAS(const ModelOp &op, int threads) {
  auto operand = [&](ArrayRef<int64_t> shape, uint64_t seed) {
    Buffer buffer = check(Buffer::create(ElementType::F32, shape), "alloc");
    buffer.fillRandom(seed);
    return buffer;
  };
  Buffer a = operand({op.b, op.m, op.k}, 11),
         b = operand({op.b, op.k, op.n}, 12),
         c = operand({op.b, op.m, op.n}, 13);
  float *aData = a.getData<float>(), *bData = b.getData<float>(),
        *cData = c.getData<float>();
  // Row-major: A is m x k (k x m transposed), B k x n (n x k transposed).
  int64_t lda = op.transA ? op.m : op.k, ldb = op.transB ? op.k : op.n;
  TimeStats stats = check(
      measure(
          [&] {
            for (int64_t i = 0; i < op.b; ++i)
              cblas_sgemm(CblasRowMajor, op.transA ? CblasTrans : CblasNoTrans,
                          op.transB ? CblasTrans : CblasNoTrans, op.m, op.n,
                          op.k, 1.0f, aData + i * op.m * op.k, lda,
                          bData + i * op.k * op.n, ldb, 0.0f,
                          cData + i * op.m * op.n, op.n);
          },
          timingOptions()),
      "time openblas");
  llvm::outs() << llvm::formatv(
      "  {0,-52} x{1,-3} {2,2} thr  median {3,9:f4} ms  {4,7:f1} GFLOP/s  "
      "(OpenBLAS sgemm, core {5})\n",
      "  the same by OpenBLAS", op.count, threads, stats.median * 1e3,
      computeGFlops(op.usefulFlops, stats.median), openblas_get_corename());
  return stats.median * op.count;
}

/// --model-ops: oneDNN on every distinct matmul/conv of the module, per
/// thread count; prints each op and the sum over the model (ops times the
/// number of times the model runs them).
void benchModelOps(MLIRContext &context) {
  std::string error;
  auto file = mlir::openInputFile(modelOps, &error);
  if (!file)
    die("cannot open '" + modelOps + "': " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    die("cannot parse '" + modelOps + "'");
  // The epilogues as tiletune-lower-cpu fuses them (a GELU written out is
  // one op of its chain).
  mergeEpilogueDAGs(*module);
  std::vector<ModelOp> ops;
  // The ops in the module's order (indices into `ops`).
  std::vector<size_t> sequence;
  int64_t skipped = 0;
  module->walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() && !op.hasPureBufferSemantics())
      return;
    if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
      return;
    // Only f32 ops with shaped inputs (a linalg.fill's scalar input is not
    // a matmul/conv operand).
    auto firstInput =
        op.getDpsInputs().empty()
            ? ShapedType()
            : dyn_cast<ShapedType>(op.getDpsInputs()[0].getType());
    if (!firstInput || !firstInput.getElementType().isF32())
      return;
    std::optional<ModelOp> one = matchModelMatmul(op);
    if (!one)
      one = matchModelConv(op);
    if (!one) {
      if (linalg::isaContractionOpInterface(op))
        ++skipped;
      return;
    }
    mapEpilogue(op, *one);
    if (!one->postOpText.empty())
      one->key += " + " + one->postOpText;
    auto it = llvm::find_if(ops, [&](const ModelOp &o) { return o.key == one->key; });
    if (it == ops.end()) {
      ops.push_back(*one);
      it = ops.end() - 1;
    }
    ++it->count;
    sequence.push_back(it - ops.begin());
  });
  if (ops.empty())
    die("'" + modelOps + "' has no f32 matmul or 2-D convolution with static "
        "shapes");
  double modelFlops = 0, usefulFlops = 0;
  int64_t numOps = 0;
  for (const ModelOp &op : ops) {
    modelFlops += op.flops * op.count;
    usefulFlops += op.usefulFlops * op.count;
    numOps += op.count;
  }
  llvm::outs() << llvm::formatv(
      "\n== oneDNN per-op reference for {0}: {1} matmul/conv ops ({2} "
      "distinct), {3:F3} GFLOP ==\n",
      modelOps, numOps, ops.size(), modelFlops * 1e-9);
  // A conv fed by a tensor.pad computes the padding's taps in the module;
  // oneDNN, given the padding, skips them. Its rates count the taps inside
  // the images, so that none exceeds the peak for work it did not do.
  if (usefulFlops < modelFlops)
    llvm::outs() << llvm::formatv(
        "  ({0:F3} GFLOP of taps inside the images: oneDNN skips the "
        "padding, and its GFLOP/s below count these)\n",
        usefulFlops * 1e-9);
  if (skipped)
    llvm::outs() << llvm::formatv("  ({0} contractions of other forms not "
                                  "timed)\n",
                                  skipped);
  for (int threads : threadCounts) {
    setThreads(threads);
    // Each op alone, then (where the model has an epilogue after it) with
    // the epilogue as oneDNN post-ops.
    auto timeOp = [&](const ModelOp &op,
                      const std::vector<DnnlPostOp> &post) -> std::optional<double> {
      // Built under the thread count it is timed with (see benchConv).
      std::unique_ptr<DnnlOp> prim = createDnnlOp(op, post);
      if (!prim)
        return std::nullopt;
      TimeStats stats =
          check(measure([&] { prim->run(); }, timingOptions()), "time onednn");
      llvm::outs() << llvm::formatv(
          "  {0,-52} x{1,-3} {2,2} thr  median {3,9:f4} ms  {4,7:f1} GFLOP/s  "
          "({5})\n",
          post.empty() ? op.key : "  the same with its post-ops", op.count,
          threads, stats.median * 1e3,
          computeGFlops(op.usefulFlops, stats.median), prim->implName);
      return stats.median * op.count;
    };
    double sum = 0, fusedSum = 0, bestSum = 0;
    bool anyPost = false;
    int64_t matmuls = 0, blasFaster = 0;
    for (const ModelOp &op : ops) {
      double plain = *timeOp(op, {});
      sum += plain;
      double best = plain;
      if (!op.isConv) {
        ++matmuls;
        double blas = timeOpenBLAS(op, threads);
        if (blas < best) {
          best = blas;
          ++blasFaster;
        }
      }
      bestSum += best;
      double fused = plain;
      if (!op.postOps.empty()) {
        if (std::optional<double> withPost = timeOp(op, op.postOps)) {
          fused = *withPost;
          anyPost = true;
        } else {
          llvm::outs() << "    oneDNN has no implementation of it with these "
                          "post-ops but its reference one: counted without "
                          "them\n";
        }
      }
      fusedSum += fused;
    }
    llvm::outs() << llvm::formatv(
        "oneDNN per-op sum at {0} thread(s): {1:F3} ms ({2} ops, {3:F1} "
        "GFLOP/s over the FLOPs of their taps inside the images)\n",
        threads, sum * 1e3, numOps, computeGFlops(usefulFlops, sum));
    if (anyPost)
      llvm::outs() << llvm::formatv(
          "oneDNN per-op sum with fused post-ops at {0} thread(s): {1:F3} ms "
          "(the ops with their epilogues as post-ops, the rest alone)\n",
          threads, fusedSum * 1e3);
    // OpenBLAS's kernel for this ISA beats oneDNN's on some GEMMs (oneDNN
    // 2.6's AVX2 matmul on the wide FFN GEMMs of BERT and ViT): the sum of
    // the faster library per op is the fair reference there.
    if (matmuls)
      llvm::outs() << llvm::formatv(
          "best library per-op sum at {0} thread(s): {1:F3} ms (the faster "
          "of oneDNN and OpenBLAS per op, alone; OpenBLAS for {2} of the {3} "
          "distinct matmuls)\n",
          threads, bestSum * 1e3, blasFaster, matmuls);

    // The same primitives run in the module's order, one per op of the
    // model, each with weights (and B operands) of its own: as in a run of
    // the whole model, each op's weights come from wherever the ops before
    // it left them (from L3 or memory: a whole model's data has gone
    // through the caches since), where a per-op time finds them warm from
    // its previous call.
    // The activations (sources and destinations) share two buffers, which
    // stay as warm as a model's activations passed from op to op. Post-ops
    // where oneDNN has them. The weights are in oneDNN's layout before the
    // timed region, as above.
    std::vector<std::unique_ptr<DnnlOp>> inOrder;
    double weightBytes = 0;
    for (size_t index : sequence) {
      const ModelOp &op = ops[index];
      std::unique_ptr<DnnlOp> prim;
      if (!op.postOps.empty())
        prim = createDnnlOp(op, op.postOps);
      if (!prim)
        prim = createDnnlOp(op, {});
      if (!prim)
        die("oneDNN has no implementation of " + op.key);
      weightBytes += prim->getBytes(1);
      inOrder.push_back(std::move(prim));
    }
    size_t srcBytes = 0, dstBytes = 0;
    for (const std::unique_ptr<DnnlOp> &prim : inOrder) {
      srcBytes = std::max(srcBytes, prim->getBytes(0));
      dstBytes = std::max(dstBytes, prim->getBytes(2));
    }
    std::vector<float> activations((srcBytes + dstBytes) / sizeof(float) + 16);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &value : activations)
      value = dist(rng);
    // The destinations 64-byte aligned after the sources.
    float *dst =
        activations.data() + llvm::alignTo(srcBytes, 64) / sizeof(float);
    for (std::unique_ptr<DnnlOp> &prim : inOrder)
      prim->setActivations(activations.data(), dst);
    TimeStats stats = check(measure(
                                [&] {
                                  for (std::unique_ptr<DnnlOp> &prim : inOrder)
                                    prim->run();
                                },
                                timingOptions()),
                            "time onednn in order");
    llvm::outs() << llvm::formatv(
        "oneDNN in the model's order at {0} thread(s): {1:F3} ms ({2} ops, "
        "{3:F1} MB of weights and B operands of their own, the activations "
        "shared; post-ops where it has them)\n",
        threads, stats.median * 1e3, inOrder.size(), weightBytes * 1e-6);
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
    // 1 thread and all threads (the classic figures: 1 and 2).
    threadCounts.push_back(1);
    unsigned all = suite == "models" ? getHostCPUDescription().cores : 2;
    if (all > 1)
      threadCounts.push_back(all);
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
  if (suite != "classic" && suite != "models")
    die("--suite must be 'classic' or 'models', got '" + suite + "'");
  if (suite != "models" &&
      (!jsonFile.empty() || !shapeFilter.empty() || quick || listShapes ||
       !tunedDb.empty() || !emitMlir.empty()))
    die("--json, --filter, --quick, --list, --emit-mlir and --db need "
        "--suite=models");
  if (!tunedDb.empty() && !llvm::sys::fs::exists(tunedDb))
    die("--db: no tuning database '" + tunedDb + "'");
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

  if (!modelOps.empty()) {
    benchModelOps(context);
    return 0;
  }
  if (suite == "models")
    return runModelsSuite(context, target);

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
