//===- tiletune.cpp - The TileTune auto-tuning command line ---------------===//
//
// `tiletune tune|apply|space|report|export|import`: tune the matmul/conv ops
// of an MLIR module on this machine, annotate modules from a tuning database,
// inspect search spaces, report or export tuning results, and import (merge)
// results exported elsewhere.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Database/Database.h"
#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Driver/Distributed.h"
#include "tiletune/Driver/Driver.h"
#include "tiletune/InitAll.h"
#include "tiletune/Search/Strategy.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/OptionText.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Transforms/TransformScript.h"
#include "tiletune/Tuner/TaskScheduler.h"
#include "tiletune/TuningPasses/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>

using namespace mlir;
using namespace mlir::tiletune;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line.
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("tiletune options");

/// Every default of a tuning run comes from TuneOptions.
static const TuneOptions kDefaults;

static cl::SubCommand tuneCmd(
    "tune", "Tune every matmul/batch_matmul/conv_2d op of an MLIR module on "
            "this machine's CPU; record all measurements in the database; "
            "write the module annotated with the best configs");
static cl::SubCommand applyCmd(
    "apply", "Annotate the tunable ops of a module with the best configs "
             "recorded for this machine in the database");
static cl::SubCommand spaceCmd(
    "space", "Print the search space (parameters, size, default config) of "
             "each unique tunable op of a module");
static cl::SubCommand reportCmd(
    "report", "Per problem and algorithm: best config, GFLOP/s, speed-up "
              "over the default config, trials and time used");
static cl::SubCommand exportCmd(
    "export", "Export every measurement of the database as JSON Lines, or "
              "(--format=transform) a module's tuned configs as a "
              "transform-dialect script");
static cl::SubCommand importCmd(
    "import", "Import (merge) results into the database: JSON Lines written "
              "by `tiletune export`, or other tuning databases; one "
              "transaction, duplicates skipped, targets kept");
static cl::SubCommand algorithmsCmd(
    "algorithms", "List the search algorithms and their options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .mlir file>"),
                                      cl::init("-"), cl::sub(tuneCmd),
                                      cl::sub(applyCmd), cl::sub(spaceCmd),
                                      cl::sub(exportCmd), cl::cat(category));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Write the annotated module here ('-' = stdout); tune "
                        "writes no module without it"),
               cl::value_desc("file"), cl::init(""), cl::sub(tuneCmd),
               cl::sub(applyCmd), cl::sub(exportCmd), cl::cat(category));
static cl::opt<std::string>
    dbPath("db",
           cl::desc("Tuning database (default: ~/.cache/tiletune/tuning.db)"),
           cl::value_desc("file"), cl::init(""), cl::sub(tuneCmd),
           cl::sub(applyCmd), cl::sub(reportCmd), cl::sub(exportCmd),
           cl::sub(importCmd), cl::cat(category));
static cl::opt<unsigned>
    threads("threads",
            cl::desc("Threads of the kernels; results are recorded per thread "
                     "count (default 0 = all cores)"),
            cl::init(0), cl::sub(tuneCmd), cl::sub(applyCmd),
            cl::sub(spaceCmd), cl::sub(reportCmd), cl::sub(exportCmd),
            cl::cat(category));
static cl::opt<std::string> cpuName(
    "mcpu",
    cl::desc("CPU target, LLVM's name (e.g. haswell, skylake-avx512; default: "
             "the host): default configs are sized for it, variants compiled "
             "for it, results recorded and looked up under it"),
    cl::init(""), cl::sub(tuneCmd), cl::sub(applyCmd), cl::sub(spaceCmd),
    cl::sub(reportCmd), cl::cat(category));
static cl::opt<std::string> cpuFeatures(
    "mattr",
    cl::desc("CPU target features on top of the CPU's, LLVM's names (e.g. "
             "-avx512f,-evex512)"),
    cl::init(""), cl::sub(tuneCmd), cl::sub(applyCmd), cl::sub(spaceCmd),
    cl::sub(reportCmd), cl::cat(category));

static cl::opt<std::string> algorithm(
    "algorithm",
    cl::desc(keepOptionText("Search algorithm (default " + kDefaults.algorithm +
                            "; `tiletune algorithms` lists them with "
                            "their options)")),
    cl::init(kDefaults.algorithm), cl::sub(tuneCmd), cl::sub(spaceCmd),
    cl::cat(category));
static cl::alias algorithmAlias("a", cl::desc("Alias for --algorithm"),
                                cl::aliasopt(algorithm));
static cl::opt<std::string>
    algorithmOptions("algorithm-options",
                     cl::desc("Options of the algorithm, 'name=value,...'"),
                     cl::init(""), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<bool> paperStart(
    "paper-start",
    cl::desc("Start the search from each algorithm's paper start state (e.g. "
             "G-BFS's untiled config) instead of the default config"),
    cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string> protocol(
    "protocol",
    cl::desc("Experiment protocol: 'default' (our defaults, warm start), or "
             "'paper': every algorithm runs as in its paper's experiments "
             "(G-BFS one state per batch and no restart, N-A2C T = 3, "
             "OpEvo lambda = rho = 8 and q = 0.5, AutoTVM's XGBoost "
             "settings; each from its paper's start state, no warm start); "
             "--algorithm-options still override (docs/Search.md)"),
    cl::value_desc("default|paper"), cl::init(kDefaults.protocol),
    cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string> warmStartFrom(
    "warm-start",
    cl::desc("Seed each problem's search with the best configs of similar "
             "problems (same op kind, element type and target, nearby "
             "sizes) in the database, adapted to its sizes: 'db' (default) "
             "or 'none'"),
    cl::value_desc("none|db"), cl::init(kDefaults.warmStartFrom),
    cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> warmStartProblems(
    "warm-start-problems",
    cl::desc("Seeds from at most this many similar problems, nearest first"),
    cl::init(kDefaults.warmStartProblems), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<double> warmStartDistance(
    "warm-start-distance",
    cl::desc("Similar problems are at most this far apart: the Euclidean "
             "distance of their loop sizes in log2 (1 = one loop twice as "
             "large)"),
    cl::init(kDefaults.warmStartDistance), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<std::string> fixParams(
    "fix",
    cl::desc("Pin parameters of every problem's space, in the config-key "
             "syntax of `tiletune space`: 'name=value;...'; factor lists may "
             "leave slots free with '*' (e.g. "
             "'order=[n,k,m];pack=ab;unroll=4;m=[1,*,*,*]')"),
    cl::value_desc("assignments"), cl::init(""), cl::sub(tuneCmd),
    cl::sub(spaceCmd), cl::cat(category));
static cl::opt<int64_t> trials(
    "trials",
    cl::desc(keepOptionText("Budget: measurements per problem (0 = no "
                            "limit; then --seconds is required). Default " +
                            std::to_string(kDefaults.trials))),
    cl::init(kDefaults.trials), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<double>
    seconds("seconds",
            cl::desc("Budget: wall-clock seconds per problem (0 = no limit)"),
            cl::init(kDefaults.seconds), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string> timeBudget(
    "time-budget",
    cl::desc("Whole-model budget (e.g. 90s, 10m, 1h; a plain number is "
             "seconds): rounds of trials go to the op that matters most for "
             "the model's end-to-end time and is still improving; the model "
             "is run whole before and after (--trials/--seconds then do not "
             "apply)"),
    cl::value_desc("duration"), cl::init(""), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the search and the inputs; "
                                       "the same seed reproduces a run"),
                              cl::init(0), cl::sub(tuneCmd),
                              cl::cat(category));
static cl::opt<bool>
    resume("resume",
           cl::desc("Continue the unfinished runs of the same problems, "
                    "algorithm and seed (nothing is measured twice)"),
           cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> batchSize(
    "batch",
    cl::desc(keepOptionText("Candidates per batch (default " +
                            std::to_string(kDefaults.batchSize) + ")")),
    cl::init(kDefaults.batchSize), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> repeats(
    "repeats",
    cl::desc(keepOptionText("Timed samples per variant (" +
                            std::to_string(kDefaults.timing.repeats) + ")")),
    cl::init(kDefaults.timing.repeats), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> warmup(
    "warmup",
    cl::desc(keepOptionText("Untimed warm-up calls (" +
                            std::to_string(kDefaults.timing.warmupRuns) + ")")),
    cl::init(kDefaults.timing.warmupRuns), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<double> minSampleMs(
    "min-sample-ms",
    cl::desc(keepOptionText(
        "Minimum duration of one timed sample in ms (" +
        llvm::formatv("{0}", kDefaults.timing.minSampleSeconds * 1e3).str() +
        ")")),
    cl::init(kDefaults.timing.minSampleSeconds * 1e3), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<bool> noOverlap(
    "no-overlap",
    cl::desc("Do not compile the next candidate while one is timed (by "
             "default they overlap when --threads leaves a core idle)"),
    cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<bool> unpaired(
    "unpaired",
    cl::desc("CPU: time every variant alone. By default each is timed "
             "interleaved with the problem's default config and ranked by "
             "the ratio, so that the machine's speed drifting between "
             "measurements does not reorder variants (costs about twice the "
             "timing time)"),
    cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string> weights(
    "weights",
    cl::desc(
        "CPU: where a variant's weights are when it is timed. "
        "'model' (default): where a run of the module has them, pushed "
        "out of the caches by the other ops' weights (an op whose "
        "weights are the module's only ones is timed warm). 'warm': "
        "where its previous call left them. With 'model', each op's "
        "weights (its inputs after the "
        "first that are function arguments or constants: a conv's "
        "filter, a matmul's B) are timed through copies that together take the "
        "module's weight bytes, in turn (docs/Tuning.md, \"Weights as "
        "in the model\")"),
    cl::value_desc("warm|model"), cl::init(kDefaults.weights), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<std::string> distributed(
    "distributed",
    cl::desc("Where the CPU variants are measured: none (worker processes "
             "of this process) or mpi (under `mpirun -n N`, N >= 2: rank 0 "
             "searches and writes the database, ranks 1..N-1 compile and "
             "measure; every rank must have the same CPU; see "
             "docs/Distributed.md)"),
    cl::value_desc("none|mpi"), cl::init(kDefaults.distributed),
    cl::sub(tuneCmd), cl::cat(category));
static cl::opt<double> earlyStop(
    "early-stop",
    cl::desc(keepOptionText(
        "CPU: stop timing a search candidate once it is this many times "
        "slower than the best so far, after " +
        std::to_string(kDefaults.timing.stopAfterRepeats) +
        " samples (paired timing: its smallest time ratio to the reference "
        "against the best's median ratio; --unpaired: its fastest sample "
        "against the best median); it is recorded with the samples it took. "
        "0: off (default " +
        llvm::formatv("{0}", kDefaults.earlyStopFactor).str() + ")")),
    cl::init(kDefaults.earlyStopFactor), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<double> precisionStop(
    "precision-stop",
    cl::desc(keepOptionText(
        "CPU, paired timing: end a search candidate's timing once its time "
        "ratios to the reference, after " +
        std::to_string(kDefaults.timing.precisionAfterRepeats) +
        " samples, spread by at most this fraction of their median (its "
        "rank is then known to that precision; the winner's confirmation "
        "takes every sample). 0: off (default " +
        llvm::formatv("{0}", kDefaults.precisionStop).str() + ")")),
    cl::init(kDefaults.precisionStop), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<bool> fuseEpilogues(
    "fuse-epilogues",
    cl::desc("CPU: tune each matmul/conv with its elementwise epilogue (bias "
             "add, ReLU, residual add, ...; the problem key ends in "
             "/epilogue=...), measuring the kernel with the chain fused as "
             "tiletune-lower-cpu fuses it by default. "
             "--fuse-epilogues=false: ops alone, lowered unfused "
             "(default true)"),
    cl::init(kDefaults.fuseEpilogues), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> compileCache(
    "compile-cache",
    cl::desc(
        keepOptionText("CPU: compiled variants each worker keeps by config, "
                       "reused when a config is measured again (the winner's "
                       "confirmation); 0: off (default " +
                       std::to_string(kDefaults.compileCacheSize) + ")")),
    cl::init(kDefaults.compileCacheSize), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<unsigned> jitOptLevel(
    "jit-opt-level",
    cl::desc(
        keepOptionText("CPU: LLVM optimisation level of the variants' JIT, "
                       "0-3 (default " +
                       std::to_string(kDefaults.jitOptLevel) + ")")),
    cl::init(kDefaults.jitOptLevel), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<int> jitCodegenOptLevel(
    "jit-codegen-opt-level",
    cl::desc("CPU: LLVM code generation level of the variants' JIT, 0-3 "
             "(default: --jit-opt-level)"),
    cl::init(kDefaults.jitCodegenOptLevel), cl::sub(tuneCmd),
    cl::cat(category));
static cl::opt<bool> noPin(
    "no-pin",
    cl::desc("CPU: when compilation overlaps with timing, do not pin each of "
             "the two workers (both compile, one times at a time) to its own "
             "core"),
    cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<bool> noProgress("no-progress",
                                cl::desc("Do not print the progress bar"),
                                cl::init(false), cl::sub(tuneCmd),
                                cl::cat(category));
static cl::opt<bool> quiet("quiet",
                           cl::desc("Print only errors and the report"),
                           cl::init(false), cl::sub(tuneCmd),
                           cl::cat(category));

static cl::opt<bool>
    overrideConfigs("override",
                    cl::desc("Replace configs already present on ops"),
                    cl::init(false), cl::sub(applyCmd), cl::cat(category));
static cl::opt<std::string> target(
    "target",
    cl::desc("Where the kernels run: cpu (this machine's CPU) or cuda (the "
             "NVIDIA GPU of this machine; tune fails without one unless "
             "--compile-only). Default cpu"),
    cl::init("cpu"), cl::sub(tuneCmd), cl::sub(spaceCmd), cl::sub(applyCmd),
    cl::cat(category));
static cl::opt<std::string> targetKey(
    "target-key",
    cl::desc("apply: use the results of the recorded target with this key "
             "(the [hex] of `tiletune report`), e.g. a GPU this machine "
             "does not have"),
    cl::init(""), cl::sub(applyCmd), cl::sub(exportCmd), cl::cat(category));
static cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("With --target=cuda and no GPU: rank --trials configs per "
             "problem by the ptxas legality filter and occupancy for --chip "
             "(nothing is run, timed or recorded) and annotate the ops with "
             "the best legal one"),
    cl::init(false), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string>
    chip("chip",
         cl::desc("GPU architecture of --compile-only (default sm_90; a real "
                  "tuning run uses the device's)"),
         cl::init("sm_90"), cl::sub(tuneCmd), cl::cat(category));
static cl::opt<std::string> exportFormat(
    "format",
    cl::desc("export: jsonl (every measurement of the database, the "
             "default) or transform (the CPU configs of the input module's "
             "ops as a transform-dialect script for --transform-interpreter; "
             "the ops' own configs, plus the database's best ones when --db "
             "is given or no op has a config)"),
    cl::init("jsonl"), cl::sub(exportCmd), cl::cat(category));
static cl::list<std::string>
    importInputs(cl::Positional, cl::OneOrMore,
                 cl::desc("<results.jsonl | other.db>..."), cl::sub(importCmd),
                 cl::cat(category));
static cl::opt<bool> allowOtherTarget(
    "allow-other-target",
    cl::desc("import: also import results measured on other targets (other "
             "CPUs, GPUs, toolchains); they are kept under their own target, "
             "which apply uses only when asked (--target-key)"),
    cl::init(false), cl::sub(importCmd), cl::cat(category));
static cl::opt<bool>
    hereOnly("here",
             cl::desc("Only results of this machine (with --threads)"),
             cl::init(false), cl::sub(reportCmd), cl::cat(category));

//===----------------------------------------------------------------------===//
// Helpers.
//===----------------------------------------------------------------------===//

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tiletune") << message << "\n";
  return 1;
}

static int fail(llvm::Error err) { return fail(toString(std::move(err))); }

/// Parses the input module, reporting problems as located diagnostics.
static OwningOpRef<ModuleOp> parseInput(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &error);
  if (!file) {
    fail("cannot open input '" + inputFile + "': " + error);
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &ctx);
}

static int writeModule(ModuleOp module) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(outputFile, &error);
  if (!out)
    return fail("cannot open output '" + outputFile + "': " + error);
  module.print(out->os());
  out->os() << "\n";
  out->keep();
  return 0;
}

/// Checks before any work that `path` (an output file option; "-" is stdout)
/// can be written: not a directory, in an existing directory, writable. An
/// existing file is opened without truncation and kept as it is; a file
/// created by the check is removed again.
static llvm::Error checkOutputWritable(llvm::StringRef option,
                                       llvm::StringRef path) {
  if (path.empty() || path == "-")
    return llvm::Error::success();
  auto cannot = [&](const llvm::Twine &why) {
    return llvm::createStringError("cannot write " + option + " '" + path +
                                   "': " + why);
  };
  if (llvm::sys::fs::is_directory(path))
    return cannot("it is a directory");
  bool existed = llvm::sys::fs::exists(path);
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(
          path, fd, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_Append))
    return cannot(ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  if (!existed)
    llvm::sys::fs::remove(path);
  return llvm::Error::success();
}

static std::string resolveDbPath() {
  return dbPath.empty() ? getDefaultDatabasePath() : dbPath.getValue();
}

/// Opens an existing database (apply, report, export).
static llvm::Expected<std::unique_ptr<TileTuneDatabase>> openExistingDb() {
  return openTuningDatabase(dbPath, OpenMode::ReadOnly);
}

static std::atomic<bool> stopRequested{false};
static void onInterrupt(int) { stopRequested.store(true); }

//===----------------------------------------------------------------------===//
// Subcommands.
//===----------------------------------------------------------------------===//

static int runTune(MLIRContext &ctx) {
  // Every option is checked before the input is read or anything measured.
  if (compileOnly && target != "cuda")
    return fail("--compile-only ranks GPU configs: use it with --target=cuda");
  TuneOptions options;
  options.algorithm = algorithm;
  options.target = target;
  llvm::Expected<StrategyOptions> parsedOptions =
      parseStrategyOptions(algorithmOptions);
  if (!parsedOptions)
    return fail("--algorithm-options: " + toString(parsedOptions.takeError()));
  options.strategyOptions = *parsedOptions;
  options.fixed = fixParams;
  options.warmStart = !paperStart;
  options.protocol = protocol;
  options.warmStartFrom = warmStartFrom;
  options.warmStartProblems = warmStartProblems;
  options.warmStartDistance = warmStartDistance;
  options.trials = trials;
  options.seconds = seconds;
  if (!timeBudget.empty()) {
    std::string error;
    std::optional<double> parsed = parseDuration(timeBudget, &error);
    if (!parsed)
      return fail("--time-budget: " + error);
    options.timeBudgetSeconds = *parsed;
    if (options.timeBudgetSeconds == 0)
      return fail("--time-budget: the budget must be positive");
  }
  options.seed = seed;
  options.threads = threads;
  options.mcpu = cpuName;
  options.mattr = cpuFeatures;
  options.databasePath = dbPath;
  options.resume = resume;
  options.batchSize = batchSize;
  options.timing.repeats = repeats;
  options.timing.warmupRuns = warmup;
  options.timing.minSampleSeconds = minSampleMs * 1e-3;
  options.overlapCompile = !noOverlap;
  options.pairedTiming = !unpaired;
  options.weights = weights;
  options.distributed = distributed;
  options.earlyStopFactor = earlyStop;
  options.precisionStop = precisionStop;
  options.fuseEpilogues = fuseEpilogues;
  options.compileCacheSize = compileCache;
  options.jitOptLevel = jitOptLevel;
  options.jitCodegenOptLevel = jitCodegenOptLevel;
  options.pinCores = !noPin;
  options.progress = (noProgress || quiet) ? nullptr : &llvm::errs();
  options.log = quiet ? nullptr : &llvm::errs();
  options.stopFlag = &stopRequested;
  if (llvm::Error err = validateTuneOptions(options))
    return fail(std::move(err));
  if (llvm::Error err = setDefaultTargetCPU(cpuName, cpuFeatures))
    return fail(std::move(err));
  // Fail now rather than after the whole tuning run.
  if (llvm::Error err = checkOutputWritable("-o", outputFile))
    return fail(std::move(err));
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseInput(ctx, sourceMgr);
  if (!module)
    return 1;
  if (compileOnly) {
    if (llvm::Error err =
            rankModuleCompileOnly(*module, options, chip, 20, llvm::outs()))
      return fail(std::move(err));
    return outputFile.empty() ? 0 : writeModule(*module);
  }
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  if (!quiet) {
    llvm::errs() << "database: " << resolveDbPath() << "\n";
    if (target == "cpu") {
      llvm::errs() << "target: " << getCPUTarget(threads).describe() << "\n";
      llvm::errs() << "timing: "
                   << (unpaired ? "each variant alone"
                                : "paired with the default config (the "
                                  "ratio ranks variants, the times shown are "
                                  "measured; --unpaired: alone)")
                   << (weights == "model"
                           ? "; weights as in the model (--weights=warm: "
                             "where the previous call left them)"
                           : "; weights warm (--weights=warm)")
                   << "\n";
    }
  }
  if (options.timeBudgetSeconds > 0) {
    llvm::Expected<ModelOutcome> model = tuneModel(*module, options);
    if (!model)
      return fail(model.takeError());
    printModelOutcome(*model, algorithm, llvm::outs());
    if (stopRequested)
      llvm::errs() << "interrupted: continue with --resume\n";
    if (!outputFile.empty())
      if (int rc = writeModule(*module))
        return rc;
    if (stopRequested)
      return 130;
    if (llvm::Error err = checkProblemsTuned(model->problems))
      return fail(std::move(err));
    return 0;
  }
  llvm::Expected<std::vector<ProblemOutcome>> outcomes =
      tuneModule(*module, options);
  if (!outcomes)
    return fail(outcomes.takeError());
  printOutcomes(*outcomes, algorithm, llvm::outs());
  if (stopRequested)
    llvm::errs() << "interrupted: continue with --resume\n";
  if (!outputFile.empty())
    if (int rc = writeModule(*module))
      return rc;
  if (stopRequested)
    return 130;
  // A problem of which no measurement succeeded was not tuned: its ops keep
  // what they had. Say why and exit non-zero.
  if (llvm::Error err = checkProblemsTuned(*outcomes))
    return fail(std::move(err));
  return 0;
}

static int runApply(MLIRContext &ctx) {
  if (llvm::Error err = setDefaultTargetCPU(cpuName, cpuFeatures))
    return fail(std::move(err));
  if (llvm::Error err = checkThreadCount(threads, "--threads"))
    return fail(std::move(err));
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseInput(ctx, sourceMgr);
  if (!module)
    return 1;
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db = openExistingDb();
  if (!db)
    return fail(db.takeError());
  llvm::Expected<TargetInfo> chosen =
      selectApplyTarget(**db, target, threads, targetKey);
  if (!chosen)
    return fail(chosen.takeError());
  llvm::Expected<ApplyStats> stats =
      applyDatabase(*module, **db, *chosen, overrideConfigs);
  if (!stats)
    return fail(stats.takeError());
  // Why each op without a result got none (the line below sums up).
  emitApplyRemarks(*module, *stats, *chosen, "tiletune apply",
                   /*withSummary=*/false);
  llvm::errs() << "applied " << stats->applied << " config(s); "
               << stats->kept << " op(s) kept their config; "
               << stats->missing << " op(s) have no result for "
               << chosen->describe() << "\n";
  if (outputFile.empty())
    outputFile = "-";
  return writeModule(*module);
}

static int runSpace(MLIRContext &ctx) {
  if (llvm::Error err = setDefaultTargetCPU(cpuName, cpuFeatures))
    return fail(std::move(err));
  if (llvm::Error err = checkKnownTarget(target))
    return fail(std::move(err));
  if (llvm::Error err = checkThreadCount(threads, "--threads"))
    return fail(std::move(err));
  if (llvm::Error err = validateFixedParameters(fixParams, target))
    return fail(std::move(err));
  if (llvm::Error err = validateStrategyOptions(algorithm, {}, target))
    return fail(std::move(err));
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseInput(ctx, sourceMgr);
  if (!module)
    return 1;
  if (llvm::Error err = printSpaces(*module, target, threads, llvm::outs(),
                                      fixParams, algorithm))
    return fail(std::move(err));
  return 0;
}

static int runReport() {
  if (llvm::Error err = setDefaultTargetCPU(cpuName, cpuFeatures))
    return fail(std::move(err));
  if (llvm::Error err = checkThreadCount(threads, "--threads"))
    return fail(std::move(err));
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db = openExistingDb();
  if (!db)
    return fail(db.takeError());
  TargetInfo here = getCPUTarget(threads);
  if (llvm::Error err =
          printReport(**db, hereOnly ? &here : nullptr, llvm::outs()))
    return fail(std::move(err));
  return 0;
}

/// `export --format=transform`: the module's CPU configs as a transform
/// script.
static int runExportTransform(MLIRContext &ctx) {
  if (llvm::Error err = checkThreadCount(threads, "--threads"))
    return fail(std::move(err));
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  OwningOpRef<ModuleOp> module = parseInput(ctx, sourceMgr);
  if (!module)
    return 1;
  bool anyConfig = false;
  module->walk([&](Operation *op) {
    if (getConfig(op))
      anyConfig = true;
  });
  if (!dbPath.empty() || !anyConfig) {
    llvm::Expected<std::unique_ptr<TileTuneDatabase>> db = openExistingDb();
    if (!db)
      return fail(db.takeError());
    llvm::Expected<TargetInfo> chosen =
        selectApplyTarget(**db, "cpu", threads, targetKey);
    if (!chosen)
      return fail(chosen.takeError());
    llvm::Expected<ApplyStats> stats =
        applyDatabase(*module, **db, *chosen, /*overrideConfigs=*/false);
    if (!stats)
      return fail(stats.takeError());
    emitApplyRemarks(*module, *stats, *chosen, "tiletune export",
                     /*withSummary=*/false);
  }
  CPUTransformScript script = buildCPUTransformScript(*module);
  for (const std::string &skipped : script.skipped)
    llvm::WithColor::warning(llvm::errs(), "tiletune")
        << "not in the transform script: " << skipped << "\n";
  llvm::errs() << "transform script: " << script.numOps << " op(s), "
               << script.numSchedules << " schedule(s)\n";
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(outputFile.empty() ? "-" : outputFile.getValue(), &error);
  if (!out)
    return fail("cannot open output: " + error);
  out->os() << script.text;
  out->keep();
  return 0;
}

static int runExport(MLIRContext &ctx) {
  if (exportFormat == "transform")
    return runExportTransform(ctx);
  if (exportFormat != "jsonl")
    return fail("unknown --format '" + exportFormat +
                "' (valid: jsonl, transform)");
  if (inputFile != "-")
    return fail("export --format=jsonl exports the database and takes no "
                "input file (did you mean --format=transform?)");
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db = openExistingDb();
  if (!db)
    return fail(db.takeError());
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(outputFile.empty() ? "-" : outputFile.getValue(), &error);
  if (!out)
    return fail("cannot open output: " + error);
  if (llvm::Error err = (*db)->exportJSONL(out->os()))
    return fail(std::move(err));
  out->keep();
  return 0;
}

/// The JSON Lines of one import input: the file itself, or the export of a
/// tuning database (an SQLite file).
static llvm::Expected<std::string> readImportInput(llvm::StringRef file) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError("cannot read '" + file +
                                   "': " + buffer.getError().message());
  llvm::StringRef text = (*buffer)->getBuffer();
  if (!text.starts_with(llvm::StringRef("SQLite format 3\0", 16)))
    return text.str();
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> other =
      TileTuneDatabase::open(file, OpenMode::ReadOnly);
  if (!other)
    return other.takeError();
  std::string exported;
  llvm::raw_string_ostream os(exported);
  if (llvm::Error err = (*other)->exportJSONL(os))
    return std::move(err);
  return exported;
}

static int runImport() {
  // Read every input before the database is touched.
  std::vector<std::string> texts;
  std::vector<JSONLSource> sources;
  texts.reserve(importInputs.size());
  for (const std::string &file : importInputs) {
    llvm::Expected<std::string> text = readImportInput(file);
    if (!text)
      return fail(text.takeError());
    texts.push_back(std::move(*text));
  }
  for (auto [file, text] : llvm::zip_equal(importInputs, texts))
    sources.push_back({file == "-" ? "<stdin>" : file, text});
  llvm::Expected<std::unique_ptr<TileTuneDatabase>> db =
      openTuningDatabase(dbPath, OpenMode::CreateIfMissing);
  if (!db)
    return fail(db.takeError());
  TargetInfo here = getCPUTarget(0);
  ImportOptions options;
  if (!allowOtherTarget)
    options.expectedTarget = &here;
  llvm::Expected<ImportStats> stats = (*db)->importJSONL(sources, options);
  if (!stats)
    return fail("nothing was imported into '" + (*db)->getPath() + "': " +
                llvm::toString(stats.takeError()));
  llvm::outs() << "imported " << stats->measurementsAdded
               << " measurement(s) (" << stats->runsAdded << " new run(s), "
               << stats->runsExtended << " run(s) continued) from "
               << stats->lines << " line(s); " << stats->duplicates
               << " already present\n";
  for (const std::string &targetName : stats->targets)
    llvm::outs() << "  target: " << targetName << "\n";
  return 0;
}

static int runAlgorithms() {
  for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
    llvm::outs() << info->name
                 << (info->name == kDefaults.algorithm ? " (default)" : "")
                 << ": " << info->summary << "\n";
    for (const OptionInfo &option : info->options)
      llvm::outs() << "    " << option.name << " = " << option.defaultValue
                   << ": " << option.help << "\n";
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllTileTunePasses();
  registerTileTuneTuningPasses();
  registerTileTuneVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "TileTune auto-tuner: tunes the tile sizes of linalg matmul, "
      "batch_matmul and conv_2d ops for this machine.\n\n"
      "  tiletune tune model.mlir -o tuned.mlir --trials 64\n"
      "  tiletune apply model.mlir -o tuned.mlir\n"
      "  tiletune space model.mlir\n"
      "  tiletune report\n"
      "  tiletune export -o results.jsonl\n"
      "  tiletune export --format=transform model.mlir -o schedule.mlir\n"
      "  tiletune import results.jsonl other.db --db=merged.db\n\n"
      "Run `tiletune <subcommand> --help` for its options.\n");

  // Fork-safe: the tuner forks worker processes, so the context must not
  // own a thread pool.
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  initializeContext(ctx);

  if (tuneCmd && distributed == "mpi") {
    // An MPI job (docs/Distributed.md): rank 0 tunes, the other ranks
    // measure what it sends them.
    llvm::Expected<int> rank = startDistributed(&argc, &argv);
    if (!rank)
      return fail(rank.takeError());
    if (*rank != 0) {
      llvm::Error err = runDistributedWorker(ctx);
      int rc = err ? fail(std::move(err)) : 0;
      endDistributed(rc);
      return rc;
    }
    int rc = runTune(ctx);
    endDistributed(rc, /*abort=*/stopRequested.load());
    return rc;
  }
  if (tuneCmd)
    return runTune(ctx);
  if (applyCmd)
    return runApply(ctx);
  if (spaceCmd)
    return runSpace(ctx);
  if (reportCmd)
    return runReport();
  if (exportCmd)
    return runExport(ctx);
  if (importCmd)
    return runImport();
  if (algorithmsCmd)
    return runAlgorithms();
  return fail("no subcommand given (tune, apply, space, report, export, "
              "import, algorithms); see `tiletune --help`");
}
