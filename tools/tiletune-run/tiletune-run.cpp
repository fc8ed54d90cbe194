//===- tiletune-run.cpp - JIT-compile, run, time and verify a kernel ------===//
//
// An mlir-runner-like driver for TileTune kernels: reads a module, lowers it
// with an optional pass pipeline, JIT-compiles it for the host, runs the
// entry function on seeded random inputs, optionally verifies the output
// against the C++ reference of its single linalg op, or any module (a whole
// model) against the same module lowered by the untiled upstream pipeline,
// and prints the time per call and the GFLOP/s.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Coverage.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/Lowering.h"
#include "tiletune/InitAll.h"
#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/OptionText.h"
#include "tiletune/Support/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::tiletune;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory runCategory("tiletune-run options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .mlir file, or - for stdin>"),
                                   cl::init("-"), cl::cat(runCategory));
cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only function with a "
                       "body / a recorded signature)"),
              cl::value_desc("name"), cl::cat(runCategory));
cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Pass pipeline lowering the input to the LLVM dialect, e.g. "
             "'tiletune-lower-cpu' or 'one-shot-bufferize,...' (empty: the "
             "input is already lowered)"),
    cl::value_desc("passes"), cl::init(""), cl::cat(runCategory));
cl::opt<bool> untiled(
    "untiled",
    cl::desc("Lower with the upstream pipeline without tiling (instead of "
             "--pipeline)"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> verifyOutput(
    "verify",
    cl::desc("Compare the output with the C++ reference (the entry function "
             "must hold exactly one linalg.matmul, batch_matmul, "
             "conv_2d_nhwc_hwcf or conv_2d_nchw_fchw)"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> verifyUntiled(
    "verify-untiled",
    cl::desc("Compare every output with the same module lowered by the "
             "upstream pipeline without tiling (any module, e.g. a whole "
             "model; within factor * longest matmul/conv reduction * "
             "epsilon, relative and relative to the output's largest "
             "magnitude)"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> printCoverage(
    "coverage",
    cl::desc("Print how many matmul/conv ops and FLOPs of the entry "
             "function TileTune tiles and which it leaves to the untiled "
             "lowering, with the reason"),
    cl::init(false), cl::cat(runCategory));
cl::opt<double> toleranceFactor(
    "tolerance-factor",
    cl::desc("Verification tolerance: factor * reduction length * epsilon, "
             "relative and absolute"),
    cl::init(4.0), cl::cat(runCategory));
cl::opt<unsigned> repeats("repeats", cl::desc("Timed samples (0: no timing)"),
                          cl::init(10), cl::cat(runCategory));
cl::opt<unsigned> warmup("warmup", cl::desc("Untimed warm-up calls"),
                         cl::init(2), cl::cat(runCategory));
cl::opt<double> minSampleMs(
    "min-sample-ms",
    cl::desc("Minimum duration of one timed sample; fast kernels are called "
             "several times per sample"),
    cl::init(1.0), cl::cat(runCategory));
cl::list<unsigned> coldArgs(
    "cold-args",
    cl::desc("Arguments (0-based, comma-separated) to evict from the caches "
             "before every timed call, outside the timed region, so that the "
             "time counts their trip from memory: a model's weights, which "
             "the model's other ops push out of the caches (one call per "
             "sample; e.g. 1 for a conv's filter or a matmul's B)"),
    cl::CommaSeparated, cl::cat(runCategory));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                       cl::init(1), cl::cat(runCategory));
cl::opt<int> threads("num-threads",
                     cl::desc("OpenMP threads for the kernel (0: runtime "
                              "default, i.e. OMP_NUM_THREADS or all cores)"),
                     cl::init(0), cl::cat(runCategory));
cl::opt<unsigned> optLevel(
    "O",
    cl::desc(keepOptionText("LLVM optimisation level (0-3; default " +
                            std::to_string(kDefaultJITOptLevel) +
                            ", the level of every TileTune JIT, the tuner's "
                            "included)")),
    cl::init(kDefaultJITOptLevel), cl::Prefix, cl::cat(runCategory));
cl::opt<int> codegenOptLevel(
    "codegen-opt-level",
    cl::desc("LLVM code generation level, 0-3, when it differs from -O "
             "(instruction selection, scheduling, register allocation; the "
             "tuner's --jit-codegen-opt-level)"),
    cl::init(-1), cl::cat(runCategory));
cl::opt<std::string> cpuName(
    "mcpu",
    cl::desc("Target CPU, LLVM's name, e.g. haswell (default: the host CPU); "
             "the JIT and the default configs of the pipeline use it"),
    cl::init(""), cl::cat(runCategory));
cl::opt<std::string>
    cpuFeatures("mattr",
                cl::desc("Target features on top of the CPU's, LLVM's names, "
                         "e.g. -avx512f,-evex512 (default: the host's "
                         "features)"),
                cl::init(""), cl::cat(runCategory));
cl::opt<bool> printTarget(
    "print-target",
    cl::desc("Print the CPU target description (vector width, registers, "
             "FMA rate, caches, cores, clock, peak GFLOP/s) and exit; no "
             "input is read"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> printLowered("print-lowered",
                           cl::desc("Print the lowered module to stdout"),
                           cl::init(false), cl::cat(runCategory));

/// Exit codes.
constexpr int kExitError = 1;
constexpr int kExitVerifyFailed = 2;

int fail(const llvm::Twine &message) {
  llvm::outs().flush(); // Keep the report and the error in order.
  llvm::WithColor::error(llvm::errs(), "tiletune-run") << message << "\n";
  return kExitError;
}

int fail(llvm::Error error) { return fail(llvm::toString(std::move(error))); }

/// The largest --tolerance-factor: beyond it verification checks nothing.
constexpr double kMaxToleranceFactor = 1e6;

/// The timing options of the command line.
TimingOptions getTimingOptions() {
  TimingOptions timing;
  timing.warmupRuns = warmup;
  timing.repeats = repeats;
  timing.minSampleSeconds = minSampleMs * 1e-3;
  return timing;
}

/// The JIT options of the command line.
JITOptions getJITOptions() {
  JITOptions jitOptions;
  jitOptions.optLevel = optLevel;
  jitOptions.codegenOptLevel = codegenOptLevel;
  jitOptions.cpu = cpuName;
  jitOptions.features = cpuFeatures;
  return jitOptions;
}

/// Checks every option against its range before anything is read, compiled
/// or run; the error names the valid range.
llvm::Error validateOptions() {
  // Written so that NaN fails too.
  if (!(toleranceFactor >= 0 && toleranceFactor <= kMaxToleranceFactor))
    return llvm::createStringError(llvm::formatv(
        "--tolerance-factor must be between 0 and {0:e0}, got {1}",
        kMaxToleranceFactor, toleranceFactor.getValue()));
  if (llvm::Error err = checkThreadCount(threads, "--num-threads"))
    return err;
  // --repeats=0 means no timing; otherwise the timing options' ranges.
  TimingOptions timing = getTimingOptions();
  if (repeats == 0)
    timing.repeats = 1;
  if (llvm::Error err = validateTimingOptions(timing))
    return err;
  // -O, --mcpu and --mattr: a clear error here, not an LLVM abort or an
  // illegal instruction later. --print-target only describes the target.
  if (verifyOutput && verifyUntiled)
    return llvm::createStringError(
        "--verify and --verify-untiled are mutually exclusive (--verify "
        "compares one op with its C++ reference, --verify-untiled the whole "
        "module with its untiled lowering)");
  if (verifyUntiled && untiled)
    return llvm::createStringError(
        "--verify-untiled compares with the untiled lowering: give the "
        "lowering to check with --pipeline, not --untiled");
  if (printTarget)
    return describeCPU(cpuName, cpuFeatures).takeError();
  if (llvm::Error err = checkJITOptions(getJITOptions()))
    return err;
  // The pipeline's default configs are sized for the same target.
  return setDefaultTargetCPU(cpuName, cpuFeatures);
}

/// Picks the entry function: --entry, or the only candidate.
llvm::Expected<std::string> chooseEntry(ModuleOp module) {
  if (!entryName.empty())
    return entryName.getValue();
  SmallVector<std::string> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic())
      candidates.push_back(func.getSymName().str());
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (!func.isExternal() && func->hasAttr(kSignatureAttrName) &&
        !func.getSymName().starts_with("_mlir_ciface_"))
      candidates.push_back(func.getSymName().str());
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    return llvm::createStringError(
        "the module has no function to run (a public func.func with a body, "
        "or an llvm.func carrying 'tiletune_exec.signature')");
  return llvm::createStringError(llvm::formatv(
      "the module has {0} candidate functions (@{1}); choose one with --entry",
      candidates.size(), llvm::join(candidates, ", @")));
}

/// For each result of `func` (a tensor function), the argument it is the
/// destination chain of, if any: the returned value traced through the tied
/// init operands of destination-style ops (a linalg op's `outs`, an
/// insert_slice's dest) to a block argument. One-shot bufferization writes
/// such a result into that argument's buffer, and our pipeline then drops
/// the result (tiletune-drop-returned-arguments), where the untiled one
/// keeps it.
SmallVector<std::optional<unsigned>>
getResultsTiedToArguments(func::FuncOp func) {
  SmallVector<std::optional<unsigned>> tied(func.getNumResults());
  auto returns = llvm::to_vector(func.getOps<func::ReturnOp>());
  if (returns.size() != 1)
    return tied;
  for (auto [i, value] : llvm::enumerate(returns.front().getOperands())) {
    Value current = value;
    while (auto result = dyn_cast<OpResult>(current)) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner());
      if (!dps || !dps.hasPureTensorSemantics())
        break;
      current = dps.getTiedOpOperand(result)->get();
    }
    if (auto arg = dyn_cast<BlockArgument>(current);
        arg && arg.getOwner() == &func.getBody().front())
      tied[i] = arg.getArgNumber();
  }
  return tied;
}

int runMain() {
  MLIRContext context;
  initializeContext(context);
  // Upstream passes plus TileTune's (tiletune-lower-cpu among them).
  registerAllTileTunePasses();

  // Parse the input, collecting diagnostics for a clear error.
  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file)
    return fail(llvm::Twine("cannot open '") + inputFilename +
                "': " + errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context, llvm::errs());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse the input '" + inputFilename + "'");

  auto entry = chooseEntry(*module);
  if (!entry)
    return fail(entry.takeError());

  // What the input says before lowering: the signature and, for --verify,
  // the single op that has a reference.
  Operation *symbol = module->lookupSymbol(*entry);
  if (!symbol)
    return fail("no function named @" + *entry + " in the input");
  auto func = dyn_cast<func::FuncOp>(symbol);
  std::optional<ReferenceProblem> problem;
  // Lowering erases `func`; remember its arity (out-parameters come after).
  unsigned numOriginalArgs = func ? func.getNumArguments() : 0;
  // Tensor arguments are values the function cannot change: a lowering may
  // reuse their buffers (one-shot bufferization writes a conv's init in
  // place, say), so what they hold afterwards is not compared.
  SmallVector<bool> isTensorArg;
  SmallVector<std::optional<unsigned>> resultTiedArg;
  // Results our lowering dropped (written into an argument's buffer) that
  // the untiled one returns: resultTiedArg's entries, or none.
  size_t numDroppedResults = 0;
  if (func) {
    for (Type type : func.getArgumentTypes())
      isTensorArg.push_back(isa<TensorType>(type));
    resultTiedArg = getResultsTiedToArguments(func);
  }
  if (func) {
    if (func.isExternal())
      return fail("@" + *entry + " is only a declaration");
    if (auto sig = getKernelSignature(func); !sig)
      return fail("unsupported signature: " + llvm::toString(sig.takeError()));
    auto analysis = analyzeSingleOpKernel(func);
    if (analysis)
      problem = *analysis;
    else if (verifyOutput)
      return fail("--verify: " + llvm::toString(analysis.takeError()));
    else
      llvm::consumeError(analysis.takeError());
  } else if (!isa<LLVM::LLVMFuncOp>(symbol)) {
    return fail("@" + *entry + " is not a function");
  } else if (verifyOutput || verifyUntiled || printCoverage) {
    return fail(llvm::Twine(verifyOutput     ? "--verify"
                            : verifyUntiled ? "--verify-untiled"
                                            : "--coverage") +
                " needs the module before lowering: give the linalg module "
                "and a --pipeline");
  }
  MatmulConvCoverage coverage;
  if (func)
    coverage = analyzeMatmulConvCoverage(func);
  if (printCoverage)
    coverage.print(llvm::outs());
  // The reference of --verify-untiled: the module as read, lowered without
  // tiling.
  OwningOpRef<ModuleOp> referenceModule;
  if (verifyUntiled)
    referenceModule = module->clone();

  // Lower.
  std::string passes = pipeline;
  if (untiled) {
    if (!passes.empty())
      return fail("--untiled and --pipeline are mutually exclusive");
    passes = getUntiledLoweringPipeline().str();
  }
  if (llvm::Error err = prepareForExecution(*module))
    return fail(std::move(err));
  if (llvm::Error err = runPassPipeline(*module, passes))
    return fail(std::move(err));
  if (printLowered)
    module->print(llvm::outs());

  // Compile.
  auto compiled = ExecutionModule::create(*module, getJITOptions());
  if (!compiled)
    return fail(compiled.takeError());
  auto kernel = (*compiled)->getKernel(*entry);
  if (!kernel)
    return fail(kernel.takeError());
  const KernelSignature &sig = kernel->getSignature();
  std::unique_ptr<ExecutionModule> referenceCompiled;
  std::optional<Kernel> referenceKernel;
  if (verifyUntiled) {
    if (llvm::Error err = prepareForExecution(*referenceModule))
      return fail(std::move(err));
    if (llvm::Error err = runPassPipeline(*referenceModule,
                                          getUntiledLoweringPipeline()))
      return fail("lowering the reference: " + llvm::toString(std::move(err)));
    auto created = ExecutionModule::create(*referenceModule, getJITOptions());
    if (!created)
      return fail("compiling the reference: " +
                  llvm::toString(created.takeError()));
    referenceCompiled = std::move(*created);
    auto refKernel = referenceCompiled->getKernel(*entry);
    if (!refKernel)
      return fail("the reference: " + llvm::toString(refKernel.takeError()));
    // Our pipeline drops the results that are written into an argument's
    // buffer; the untiled one returns them. Those results of the reference
    // are compared with the argument's buffer of ours.
    const KernelSignature &refSig = refKernel->getSignature();
    size_t numTied = llvm::count_if(
        resultTiedArg, [](std::optional<unsigned> arg) { return arg; });
    bool sameSignature = refSig.str() == sig.str();
    bool droppedTied = refSig.args.size() == sig.args.size() &&
                       refSig.results.size() == resultTiedArg.size() &&
                       sig.results.size() + numTied == refSig.results.size();
    if (!sameSignature && !droppedTied)
      return fail("the lowered module and its untiled lowering have different "
                  "signatures: " +
                  sig.str() + " vs " + refSig.str());
    if (sameSignature)
      resultTiedArg.assign(resultTiedArg.size(), std::nullopt);
    else
      numDroppedResults = numTied;
    referenceKernel = std::move(*refKernel);
  }
  llvm::outs() << "kernel: " << sig.str() << "\n";
  llvm::outs() << "target: " << (*compiled)->getTarget().cpu << " ("
               << (*compiled)->getTarget().triple << ")\n";
  if (threads > 0) {
    if (llvm::Error err = setOpenMPNumThreads(threads))
      return fail(std::move(err));
    llvm::outs() << "threads: " << threads << "\n";
  }

  // Inputs: argument i gets seed + i (the KernelHarness scheme every
  // measurer uses), with the reference output when the op is known.
  std::optional<KernelHarness> harness;
  SmallVector<Buffer> unknownOpArgs;
  llvm::MutableArrayRef<Buffer> args;
  if (problem && !verifyUntiled) {
    llvm::Expected<KernelHarness> created =
        KernelHarness::create(*problem, sig.args, seed, verifyOutput);
    if (!created)
      return fail(created.takeError());
    harness = std::move(*created);
    args = harness->getArguments();
  } else {
    llvm::Expected<SmallVector<Buffer>> allocated =
        KernelHarness::seedArguments(sig.args, seed);
    if (!allocated)
      return fail(allocated.takeError());
    unknownOpArgs = std::move(*allocated);
    args = unknownOpArgs;
  }
  SmallVector<Buffer *> argPtrs;
  for (Buffer &buffer : args)
    argPtrs.push_back(&buffer);

  int exitCode = 0;
  if (problem && !verifyUntiled)
    llvm::outs() << "op: " << problem->getOpName() << ", "
                 << llvm::formatv("{0:e3}", problem->flops) << " FLOP\n";
  if (verifyOutput) {
    SmallVector<Buffer> results;
    if (llvm::Error err = kernel->run(argPtrs, &results))
      return fail(std::move(err));
    // Where the output is: the returned memref (tensor function), a
    // trailing out-parameter, or the output argument itself.
    const Buffer *actual = &args[problem->outArg];
    if (problem->outputIsResult) {
      if (!results.empty())
        actual = &results.front();
      else if (sig.args.size() > numOriginalArgs)
        actual = &args[numOriginalArgs];
    }
    auto cmp = harness->verify(*actual, toleranceFactor.getValue());
    if (!cmp)
      return fail(cmp.takeError());
    llvm::outs() << "verify: " << cmp->summary() << "\n";
    if (!cmp->passed)
      exitCode = kExitVerifyFailed;
  }
  if (verifyUntiled) {
    // Both lowerings on the same seeded inputs (a copy each: outputs may be
    // written in place); every output buffer and every result compared.
    SmallVector<Buffer> refArgs;
    for (Buffer &buffer : args)
      refArgs.push_back(buffer.clone());
    SmallVector<Buffer *> refArgPtrs;
    for (Buffer &buffer : refArgs)
      refArgPtrs.push_back(&buffer);
    SmallVector<Buffer> results, refResults;
    if (llvm::Error err = kernel->run(argPtrs, &results))
      return fail(std::move(err));
    if (llvm::Error err = referenceKernel->run(refArgPtrs, &refResults))
      return fail("running the reference: " + llvm::toString(std::move(err)));
    if (results.size() + numDroppedResults != refResults.size())
      return fail("the two lowerings return different numbers of results");
    int64_t length = std::max<int64_t>(coverage.maxReductionLength, 1);
    // Each compared buffer: its name, ours, the reference's, and whether
    // it is reported when it passes (results and out-parameters are; other
    // arguments, inputs or outputs written in place, only when they differ).
    struct Compared {
      std::string what;
      Buffer *actual, *expected;
      bool reportPassed;
    };
    SmallVector<Compared> outputs;
    unsigned ours = 0;
    for (auto [i, expected] : llvm::enumerate(refResults)) {
      // A result ours wrote into an argument's buffer (and dropped).
      std::optional<unsigned> tied =
          i < resultTiedArg.size() ? resultTiedArg[i] : std::nullopt;
      Buffer *actual = tied ? &args[*tied] : &results[ours++];
      outputs.push_back({llvm::formatv("result {0}", i).str(), actual,
                         &expected, /*reportPassed=*/true});
    }
    // In-place outputs (memref arguments and out-parameters); inputs
    // compare equal. Tensor arguments are neither.
    for (unsigned i = 0; i < args.size(); ++i)
      if (i >= isTensorArg.size() || !isTensorArg[i])
        outputs.push_back({llvm::formatv("argument {0}", i).str(), &args[i],
                           &refArgs[i],
                           /*reportPassed=*/i >= numOriginalArgs});
    bool allPassed = true;
    for (const Compared &output : outputs) {
      const std::string &what = output.what;
      Buffer &actual = *output.actual;
      Buffer &expected = *output.expected;
      // The scale of the output: an element's error is bounded relative
      // to itself or to the largest magnitude (values that cancel to
      // almost zero carry the error of the large terms they came from).
      double scale = 0;
      bool finite = true;
      for (int64_t j = 0; j < expected.getNumElements(); ++j) {
        double v = expected.getElementType() == ElementType::F32
                       ? double(expected.getData<float>()[j])
                       : expected.getData<double>()[j];
        finite &= std::isfinite(v);
        scale = std::max(scale, std::fabs(v));
      }
      if (!finite)
        return fail("--verify-untiled: the untiled lowering's " + what +
                    " holds NaN or infinity; the comparison would be "
                    "meaningless");
      Tolerance tolerance = Tolerance::forReduction(
          expected.getElementType(), length, toleranceFactor.getValue());
      tolerance.absTol *= std::max(scale, 1e-30);
      auto cmp = compareBuffers(actual, expected, tolerance);
      if (!cmp)
        return fail(cmp.takeError());
      if (output.reportPassed || !cmp->passed)
        llvm::outs() << "verify: " << what
                     << " against the untiled lowering: " << cmp->summary()
                     << "\n";
      allPassed &= cmp->passed;
    }
    llvm::outs() << llvm::formatv(
        "verify: {0} against the untiled lowering ({1} buffers compared, "
        "tolerance for reductions of {2})\n",
        allPassed ? "passed" : "FAILED", outputs.size(), length);
    if (!allPassed)
      exitCode = kExitVerifyFailed;
  }

  if (repeats > 0) {
    SmallVector<unsigned> cold(coldArgs.begin(), coldArgs.end());
    auto stats = kernel->time(argPtrs, getTimingOptions(), cold);
    if (!stats)
      return fail(stats.takeError());
    llvm::outs() << "time: " << stats->summary() << "\n";
    if (!cold.empty())
      llvm::outs() << "cold: argument(s) "
                   << llvm::join(llvm::map_range(cold,
                                                 [](unsigned i) {
                                                   return std::to_string(i);
                                                 }),
                                 ", ")
                   << " evicted from the caches before every call\n";
    if (problem)
      llvm::outs() << llvm::formatv(
          "gflops: mean {0:f2}, median {1:f2}, best {2:f2}\n",
          computeGFlops(problem->flops, stats->mean),
          computeGFlops(problem->flops, stats->median),
          computeGFlops(problem->flops, stats->min));
    if (problem && problem->flops > 0) {
      // The element type's peak on the target (at most as many threads as
      // the process may use; 0: the OpenMP default, all of them).
      CPUDescription cpu = getDefaultTargetCPU();
      int64_t elementBytes =
          sig.args[problem->outArg].elementType == ElementType::F64 ? 8 : 4;
      double peak = cpu.getPeakGFlops(threads, elementBytes);
      llvm::outs() << llvm::formatv(
          "peak: {0:f1} GFLOP/s ({1} thread(s)); best is {2:f0}% of it\n",
          peak, threads > 0 ? std::min<unsigned>(threads, cpu.cores)
                            : cpu.cores,
          100 * computeGFlops(problem->flops, stats->min) / peak);
    }
  }
  if (exitCode == kExitVerifyFailed)
    return fail("verification failed"), kExitVerifyFailed;
  return exitCode;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  mlir::tiletune::registerTileTuneVersionPrinter();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tiletune-run: JIT-compile a kernel for the host CPU, run it on seeded "
      "random inputs, time it and optionally verify it\n\n"
      "The entry function takes statically shaped f32/f64 memrefs "
      "(destination-passing style) or tensors. Exit status: 0 success, 1 "
      "error, 2 verification failure.\n\n"
      "Example:\n"
      "  tiletune-run kernel.mlir --pipeline=tiletune-lower-cpu --verify\n");
  if (llvm::Error err = validateOptions())
    return fail(std::move(err));
  if (printTarget) {
    llvm::Expected<CPUDescription> cpu = describeCPU(cpuName, cpuFeatures);
    if (!cpu)
      return fail(cpu.takeError());
    cpu->print(llvm::outs());
    if (llvm::Error err = checkRunsOnHost(*cpu))
      llvm::outs() << "runs here: no (" << llvm::toString(std::move(err))
                   << ")\n";
    else
      llvm::outs() << "runs here: yes\n";
    return 0;
  }
  return runMain();
}
