//===- TuneBindings.cpp - Python bindings of the tuning flows -------------===//
//
// `tiletune.tune`, `tiletune.apply`, `tiletune.default_config` and
// `tiletune.problems`: the flows of the `tiletune` CLI on MLIR text, for
// frameworks that hold their IR as text in Python. Each call parses the text
// in its own MLIRContext, runs the same C++ code as the CLI (tuneModule,
// applyDatabase, the default-config pass) and returns the annotated module as
// text. MLIR diagnostics and llvm::Errors become ValueError.
//
//===----------------------------------------------------------------------===//

#include "TuneBindings.h"

#include "tiletune/Database/Database.h"
#include "tiletune/Driver/Driver.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/InitAll.h"
#include "tiletune/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::tiletune;

const std::string &
mlir::tiletune::python::checkNoNul(const char *name, const std::string &value) {
  if (value.find('\0') != std::string::npos)
    throw py::value_error(std::string("argument '") + name +
                          "' contains a NUL character");
  return value;
}

using mlir::tiletune::python::checkNoNul;

namespace {

/// Raises ValueError unless `threads` is in the range every front-end
/// accepts.
void checkThreads(unsigned threads) {
  if (llvm::Error err = checkThreadCount(threads, "threads"))
    throw py::value_error(llvm::toString(std::move(err)));
}

/// A context with TileTune's dialects and passes, collecting diagnostics.
struct Session {
  Session()
      : context(MLIRContext::Threading::DISABLED),
        handler(&context, [this](Diagnostic &diag) {
          if (!diagnostics.empty())
            diagnostics += "\n";
          diagnostics += diag.str();
          return success();
        }) {
    initializeContext(context);
  }

  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    if (!diagnostics.empty())
      message += ":\n" + diagnostics;
    throw py::value_error(message);
  }

  ModuleOp parse(const std::string &text) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      fail("cannot parse the module");
    return *module;
  }

  std::string print() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  MLIRContext context;
  std::string diagnostics;
  ScopedDiagnosticHandler handler;
  OwningOpRef<ModuleOp> module;
};

template <typename T> T unwrapOr(Session &session, llvm::Expected<T> value) {
  if (!value)
    session.fail(llvm::toString(value.takeError()));
  return std::move(*value);
}

py::dict describeOutcome(const ProblemOutcome &outcome) {
  const TuneResult &r = outcome.result;
  py::dict d;
  d["problem"] = outcome.problem.getKey();
  d["ops"] = outcome.numOps;
  d["run"] = r.runId;
  d["status"] = stringifyRunStatus(r.status).str();
  d["stop_reason"] = r.stopReason;
  d["trials"] = r.trials;
  d["best_key"] = r.bestKey;
  d["best_config"] = outcome.bestAttr;
  d["best_seconds"] = r.bestResult.ok() ? py::cast(r.bestResult.time.median)
                                        : py::none();
  d["best_gflops"] = r.bestResult.ok() ? py::cast(r.bestResult.gflops)
                                       : py::none();
  d["default_gflops"] = r.defaultResult.ok()
                            ? py::cast(r.defaultResult.gflops)
                            : py::none();
  d["best_is_default"] = r.bestIsDefault;
  d["seconds"] = r.elapsedSeconds;
  return d;
}

py::tuple tune(const std::string &text, const std::string &algorithm,
               int64_t trials, double seconds, unsigned threads, uint64_t seed,
               const std::string &db, const std::string &fix, bool paired,
               bool resume, const std::string &target, bool progress,
               const std::string &warmStart) {
  TuneOptions options;
  options.algorithm = checkNoNul("algorithm", algorithm);
  options.target = checkNoNul("target", target);
  options.trials = trials;
  options.seconds = seconds;
  options.threads = threads;
  options.seed = seed;
  options.databasePath = checkNoNul("db", db);
  options.fixed = checkNoNul("fix", fix);
  options.pairedTiming = paired;
  options.resume = resume;
  options.warmStartFrom = checkNoNul("warm_start", warmStart);
  options.progress = progress ? &llvm::errs() : nullptr;
  options.log = progress ? &llvm::errs() : nullptr;
  // Bad options are errors before the module is even parsed.
  if (llvm::Error err = validateTuneOptions(options))
    throw py::value_error(llvm::toString(std::move(err)));
  Session session;
  ModuleOp module = session.parse(text);
  std::vector<ProblemOutcome> outcomes;
  {
    // Measuring takes long and runs in worker processes: let other Python
    // threads run meanwhile.
    py::gil_scoped_release release;
    llvm::Expected<std::vector<ProblemOutcome>> result =
        tuneModule(module, options);
    if (result)
      outcomes = std::move(*result);
    else {
      py::gil_scoped_acquire acquire;
      session.fail(llvm::toString(result.takeError()));
    }
  }
  // Every measurement of a problem failed: not a silent success. A
  // RuntimeWarning keeps the results (and the module) available; with
  // warnings turned into errors it raises.
  if (llvm::Error err = checkProblemsTuned(outcomes)) {
    std::string message = llvm::toString(std::move(err));
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0)
      throw py::error_already_set();
  }
  py::list results;
  for (const ProblemOutcome &outcome : outcomes)
    results.append(describeOutcome(outcome));
  return py::make_tuple(session.print(), results);
}

std::string apply(const std::string &text, const std::string &dbPath,
                  unsigned threads, const std::string &target,
                  const std::string &targetKey, bool overrideConfigs) {
  checkNoNul("db", dbPath);
  checkNoNul("target", target);
  checkNoNul("target_key", targetKey);
  checkThreads(threads);
  Session session;
  ModuleOp module = session.parse(text);
  std::unique_ptr<TileTuneDatabase> db =
      unwrapOr(session, openTuningDatabase(dbPath, OpenMode::ReadOnly));
  TargetInfo chosen =
      unwrapOr(session, selectApplyTarget(*db, target, threads, targetKey));
  unwrapOr(session, applyDatabase(module, *db, chosen, overrideConfigs));
  return session.print();
}

std::string defaultConfig(const std::string &text, const std::string &target,
                          unsigned threads, bool overwrite) {
  checkNoNul("target", target);
  checkThreads(threads);
  Session session;
  ModuleOp module = session.parse(text);
  PassManager pm(&session.context);
  if (target == "cpu") {
    TileTuneDefaultConfigOptions options;
    options.threads = resolveThreads(threads);
    options.overwrite = overwrite;
    pm.addPass(createTileTuneDefaultConfig(options));
  } else if (target == "cuda") {
    if (failed(parsePassPipeline(
            overwrite ? "tiletune-default-gpu-config{overwrite=true}"
                      : "tiletune-default-gpu-config",
            pm)))
      session.fail("cannot build the default-gpu-config pass");
  } else {
    session.fail(describeUnknownTarget(target));
  }
  if (failed(pm.run(module)))
    session.fail("the default-config pass failed");
  return session.print();
}

py::list problems(const std::string &text, const std::string &target) {
  checkNoNul("target", target);
  Session session;
  ModuleOp module = session.parse(text);
  FailureOr<ProblemSet> set = collectProblems(module, target);
  if (failed(set))
    session.fail("the module cannot be tuned");
  py::list out;
  for (auto [index, problem] : llvm::enumerate(set->problems)) {
    py::dict d;
    d["key"] = problem.getKey();
    d["ops"] = set->ops[index].size();
    d["gflop"] = problem.getFlops() * 1e-9;
    out.append(d);
  }
  return out;
}

} // namespace

void mlir::tiletune::python::addTuneBindings(py::module_ &m) {
  // The JIT compiles for the host.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  // Every default comes from TuneOptions, as in the CLI and the pass.
  const TuneOptions defaults;
  m.def("tune", &tune, py::arg("mlir"),
        py::arg("algorithm") = defaults.algorithm,
        py::arg("trials") = defaults.trials,
        py::arg("seconds") = defaults.seconds,
        py::arg("threads") = defaults.threads, py::arg("seed") = defaults.seed,
        py::arg("db") = defaults.databasePath, py::arg("fix") = defaults.fixed,
        py::arg("paired") = defaults.pairedTiming,
        py::arg("resume") = defaults.resume,
        py::arg("target") = defaults.target, py::arg("progress") = false,
        py::arg("warm_start") = defaults.warmStartFrom,
        "Tunes every tunable op of the module (MLIR text) by measuring real "
        "variants, exactly as `tiletune tune` does, records the results in "
        "the database `db` (default: the user's tuning database) and returns "
        "(annotated module text, list of per-problem result dicts). "
        "warm_start='db' seeds each search with the best configs of similar "
        "problems in the database, 'none' does not.");
  m.def("apply", &apply, py::arg("mlir"), py::arg("db") = "",
        py::arg("threads") = 0, py::arg("target") = "cpu",
        py::arg("target_key") = "", py::arg("override") = false,
        "Sets the best recorded config of this machine (or of the cuda "
        "target) on every tunable op and returns the module text.");
  m.def("default_config", &defaultConfig, py::arg("mlir"),
        py::arg("target") = "cpu", py::arg("threads") = 0,
        py::arg("overwrite") = false,
        "Sets the default-config heuristic's config on tunable ops without "
        "one and returns the module text.");
  m.def("problems", &problems, py::arg("mlir"), py::arg("target") = "cpu",
        "The distinct tunable problems of the module: key, op count, GFLOP.");
}
