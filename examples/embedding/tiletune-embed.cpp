//===- tiletune-embed.cpp - An MLIR tool that embeds TileTune -------------===//
//
// A tool of its own, built out of tree against the installed TileTune
// package (find_package(TileTune)): it registers TileTune's dialect and
// passes in its own context and pass registry, compiles a linalg module
// with its own PassManager (tiletune-default-config, tiletune-lower-cpu),
// tunes the module's ops from C++ and compiles the tuned module the same
// way.
//
//   tiletune-embed matmul.mlir --db=tuning.db [--trials=N] [-o tuned.mlir]
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"
#include "tiletune/Tuning.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input.mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string> dbPath("db", llvm::cl::Required,
                                         llvm::cl::desc("Tuning database"));
static llvm::cl::opt<int64_t> trials("trials", llvm::cl::init(6),
                                     llvm::cl::desc("Measurements per op"));
static llvm::cl::opt<std::string> outputFile("o", llvm::cl::init(""),
                                             llvm::cl::desc("Tuned module"));

/// Our compile: TileTune's passes, looked up by name in the registry, in a
/// pass manager of our own. Ops that carry a config keep it.
static LogicalResult compile(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline("tiletune-default-config,tiletune-lower-cpu",
                               pm, llvm::errs())))
    return failure();
  return pm.run(module);
}

/// The tuning call, kept in one place (the public API, tiletune/Tuning.h):
/// every tunable op of `module` gets the best of `trials` measured configs;
/// the measurements go to `db`. The callback sees each measured variant.
static llvm::Expected<tiletune::TuningResult>
tune(ModuleOp module, llvm::StringRef db, int64_t trials) {
  tiletune::TuningOptions options;
  options.trials = trials;
  options.threads = 1;
  options.databasePath = db.str();
  options.timing.repeats = 2;
  options.timing.minSampleSeconds = 1e-4;
  unsigned measured = 0;
  options.callback = [&](const tiletune::TuningEvent &) {
    ++measured;
    return tiletune::TuningAction::Continue;
  };
  llvm::Expected<tiletune::TuningResult> result =
      tiletune::tune(module, options);
  if (result)
    llvm::outs() << "callback saw " << measured << " variants\n";
  return result;
}

/// "N llvm.func, M linalg ops": what a compile left behind.
static std::string summarize(ModuleOp module) {
  unsigned funcs = 0, linalgOps = 0;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "llvm.func")
      ++funcs;
    if (op->getName().getDialectNamespace() == "linalg")
      ++linalgOps;
  });
  return std::to_string(funcs) + " llvm.func, " + std::to_string(linalgOps) +
         " linalg ops";
}

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tiletune-embed") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "TileTune embedding example\n");

  // 1. Registration: TileTune's dialect (with the upstream dialects and the
  //    external models its passes need) and its passes and pipelines.
  DialectRegistry registry;
  tiletune::registerAllTileTuneDialects(registry);
  tiletune::registerAllTileTunePasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");

  // 2. Compile a copy with the default configs.
  OwningOpRef<ModuleOp> byDefault = module->clone();
  if (failed(compile(*byDefault)))
    return fail("compiling with the default configs failed");
  llvm::outs() << "default configs compiled: " << summarize(*byDefault)
               << "\n";

  // 3. Tune: the best configs are set on the ops of `module`.
  llvm::Expected<tiletune::TuningResult> result =
      tune(*module, dbPath, trials);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (!result->failures.empty())
    return fail(result->failures);
  for (const tiletune::ProblemTuningResult &problem : result->problems)
    llvm::outs() << "tuned " << problem.problemKey << " (" << problem.numOps
                 << " op, " << problem.trials
                 << " trials): " << problem.bestConfigText << "\n";
  if (!outputFile.empty()) {
    std::string error;
    auto output = openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    module->print(output->os());
    output->keep();
  }

  // 4. Compile the tuned module: the same passes, now reading the tuned
  //    configs.
  if (failed(compile(*module)))
    return fail("compiling the tuned module failed");
  llvm::outs() << "tuned configs compiled: " << summarize(*module) << "\n";
  return 0;
}
