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
#include "tiletune/Tuner/TaskScheduler.h"
#include "tiletune/Tuning.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

#include <optional>

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

py::object noneUnlessPositive(double value) {
  return value > 0 ? py::object(py::float_(value)) : py::object(py::none());
}

py::dict describeResult(const ProblemTuningResult &r) {
  py::dict d;
  d["problem"] = r.problemKey;
  d["ops"] = r.numOps;
  d["run"] = r.runId;
  d["status"] = stringifyRunStatus(r.stopReason == "stopped"
                                       ? RunStatus::Interrupted
                                       : RunStatus::Finished)
                    .str();
  d["stop_reason"] = r.stopReason;
  d["trials"] = r.trials;
  d["replayed"] = r.replayed;
  d["best_key"] = r.bestKey;
  d["best_config"] = r.bestConfigText;
  d["best_seconds"] = noneUnlessPositive(r.bestSeconds);
  d["best_gflops"] = noneUnlessPositive(r.bestGflops);
  d["default_seconds"] = noneUnlessPositive(r.defaultSeconds);
  d["default_gflops"] = noneUnlessPositive(r.defaultGflops);
  d["best_is_default"] = r.bestIsDefault;
  d["seconds"] = r.elapsedSeconds;
  return d;
}

py::dict describeEvent(const TuningEvent &e) {
  py::dict d;
  d["problem"] = e.problemKey;
  d["problem_index"] = e.problemIndex;
  d["num_problems"] = e.numProblems;
  d["config"] = e.configKey;
  d["role"] = e.role;
  d["status"] = e.status;
  d["message"] = e.message;
  d["seconds"] = noneUnlessPositive(e.seconds);
  d["gflops"] = noneUnlessPositive(e.gflops);
  d["replayed"] = e.replayed;
  d["trials"] = e.trialsDone;
  d["max_trials"] = e.maxTrials;
  d["best_config"] = e.bestKey;
  d["best_seconds"] = noneUnlessPositive(e.bestSeconds);
  d["best_gflops"] = noneUnlessPositive(e.bestGflops);
  d["elapsed"] = e.elapsedSeconds;
  return d;
}

/// Strategy options from Python: None, "name=value,..." or a dict (values
/// converted with str(); booleans as "true"/"false").
StrategyOptions toStrategyOptions(const py::object &value) {
  if (value.is_none())
    return {};
  if (py::isinstance<py::str>(value)) {
    std::string text =
        checkNoNul("algorithm_options", value.cast<std::string>());
    llvm::Expected<StrategyOptions> parsed = parseStrategyOptions(text);
    if (!parsed)
      throw py::value_error("algorithm_options: " +
                            llvm::toString(parsed.takeError()));
    return *parsed;
  }
  if (!py::isinstance<py::dict>(value))
    throw py::type_error("algorithm_options must be a dict or a "
                         "'name=value,...' string, not " +
                         std::string(py::str(value.get_type())));
  StrategyOptions options;
  for (auto [key, item] : value.cast<py::dict>()) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error("algorithm_options: option names must be str");
    std::string name = checkNoNul("algorithm_options", key.cast<std::string>());
    std::string text;
    if (py::isinstance<py::bool_>(item))
      text = item.cast<bool>() ? "true" : "false";
    else
      text = py::str(item).cast<std::string>();
    options[name] = checkNoNul("algorithm_options", text);
  }
  return options;
}

py::tuple tuneText(const std::string &text, const std::string &algorithm,
                   int64_t trials, double seconds, unsigned threads,
                   uint64_t seed, const std::string &db, const std::string &fix,
                   bool paired, bool resume, const std::string &target,
                   bool progress, const py::object &algorithmOptions,
                   const py::object &callback, const std::string &mcpu,
                   const std::string &mattr, const std::string &warmStart,
                   const py::object &timeBudget, const std::string &protocol,
                   const std::string &weights) {
  TuningOptions options;
  options.mcpu = checkNoNul("mcpu", mcpu);
  options.mattr = checkNoNul("mattr", mattr);
  // The model budget: seconds, or a duration string ("10m") as on the CLI.
  if (!timeBudget.is_none()) {
    if (py::isinstance<py::str>(timeBudget)) {
      std::string error;
      std::optional<double> parsed = parseDuration(
          checkNoNul("time_budget", timeBudget.cast<std::string>()), &error);
      if (!parsed)
        throw py::value_error("time_budget: " + error);
      options.timeBudgetSeconds = *parsed;
    } else {
      options.timeBudgetSeconds = timeBudget.cast<double>();
    }
    if (!(options.timeBudgetSeconds > 0))
      throw py::value_error("time_budget: the budget must be positive");
  }
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
  options.strategyOptions = toStrategyOptions(algorithmOptions);
  options.warmStartFrom = checkNoNul("warm_start", warmStart);
  options.protocol = checkNoNul("protocol", protocol);
  options.weights = checkNoNul("weights", weights);
  options.progress = progress ? &llvm::errs() : nullptr;
  options.log = progress ? &llvm::errs() : nullptr;
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    throw py::type_error("callback must be callable");
  // Bad options are errors before the module is even parsed.
  if (llvm::Error err = validateTuneOptions(options))
    throw py::value_error(llvm::toString(std::move(err)));

  // The callback runs with the GIL taken back; an exception in it (or a
  // pending KeyboardInterrupt) stops the run and is raised once tuning has
  // returned. Returning False stops the run too.
  std::optional<py::error_already_set> callbackError;
  options.callback = [&](const TuningEvent &event) {
    py::gil_scoped_acquire acquire;
    try {
      if (PyErr_CheckSignals() != 0)
        throw py::error_already_set();
      if (callback.is_none())
        return TuningAction::Continue;
      py::object answer = callback(describeEvent(event));
      if (answer.is_none())
        return TuningAction::Continue;
      int truth = PyObject_IsTrue(answer.ptr());
      if (truth < 0)
        throw py::error_already_set();
      return truth ? TuningAction::Continue : TuningAction::Stop;
    } catch (py::error_already_set &error) {
      callbackError.emplace(std::move(error));
      return TuningAction::Stop;
    } catch (const std::exception &error) {
      // No C++ exception may cross the tuner (built without exceptions).
      PyErr_SetString(PyExc_RuntimeError, error.what());
      callbackError.emplace();
      return TuningAction::Stop;
    }
  };

  Session session;
  ModuleOp module = session.parse(text);
  std::optional<TuningResult> result;
  {
    // Measuring takes long and runs in worker processes: let other Python
    // threads run meanwhile.
    py::gil_scoped_release release;
    llvm::Expected<TuningResult> tuned = mlir::tiletune::tune(module, options);
    if (tuned)
      result = std::move(*tuned);
    else {
      py::gil_scoped_acquire acquire;
      session.fail(llvm::toString(tuned.takeError()));
    }
  }
  if (callbackError)
    throw std::move(*callbackError);
  // Every measurement of a problem failed: not a silent success. A
  // RuntimeWarning keeps the results (and the module) available; with
  // warnings turned into errors it raises.
  if (!result->failures.empty() &&
      PyErr_WarnEx(PyExc_RuntimeWarning, result->failures.c_str(), 1) != 0)
    throw py::error_already_set();
  py::list results;
  for (const ProblemTuningResult &problem : result->problems)
    results.append(describeResult(problem));
  py::object model = py::none();
  if (options.timeBudgetSeconds > 0) {
    py::dict d;
    d["seconds_before"] = noneUnlessPositive(result->modelSecondsBefore);
    d["seconds_after"] = noneUnlessPositive(result->modelSecondsAfter);
    d["ratio"] = noneUnlessPositive(result->modelRatio);
    d["kept_previous"] = result->modelKeptPrevious;
    d["error"] = result->modelError;
    py::list untuned, skipped;
    for (const std::string &key : result->untunedProblems)
      untuned.append(key);
    for (const std::string &line : result->skippedOps)
      skipped.append(line);
    d["untuned"] = untuned;
    d["skipped"] = skipped;
    model = d;
  }
  return py::make_tuple(session.print(), results, model);
}

/// Makes (mcpu, mattr) the process's default CPU target while `scope`
/// lives; ValueError for names LLVM does not know.
void useCPUTarget(DefaultTargetCPUScope &scope, const std::string &mcpu,
                  const std::string &mattr) {
  checkNoNul("mcpu", mcpu);
  checkNoNul("mattr", mattr);
  if (llvm::Error err = scope.use(mcpu, mattr))
    throw py::value_error(llvm::toString(std::move(err)));
}

std::string apply(const std::string &text, const std::string &dbPath,
                  unsigned threads, const std::string &target,
                  const std::string &targetKey, bool overrideConfigs,
                  const std::string &mcpu, const std::string &mattr) {
  DefaultTargetCPUScope targetScope;
  useCPUTarget(targetScope, mcpu, mattr);
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
                          unsigned threads, bool overwrite,
                          const std::string &mcpu, const std::string &mattr) {
  DefaultTargetCPUScope targetScope;
  useCPUTarget(targetScope, mcpu, mattr);
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

py::list problems(const std::string &text, const std::string &target,
                  bool epilogues) {
  checkNoNul("target", target);
  Session session;
  ModuleOp module = session.parse(text);
  // The keys tune() records: CPU ops with their epilogues by default
  // (TuneOptions::fuseEpilogues).
  FailureOr<ProblemSet> set =
      collectProblems(module, target, /*allowEmpty=*/false,
                      /*withEpilogue=*/epilogues && target == kTargetCPU);
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
  m.def("tune", &tuneText, py::arg("mlir"),
        py::arg("algorithm") = defaults.algorithm,
        py::arg("trials") = defaults.trials,
        py::arg("seconds") = defaults.seconds,
        py::arg("threads") = defaults.threads, py::arg("seed") = defaults.seed,
        py::arg("db") = defaults.databasePath, py::arg("fix") = defaults.fixed,
        py::arg("paired") = defaults.pairedTiming,
        py::arg("resume") = defaults.resume,
        py::arg("target") = defaults.target, py::arg("progress") = false,
        py::arg("algorithm_options") = py::none(),
        py::arg("callback") = py::none(), py::arg("mcpu") = defaults.mcpu,
        py::arg("mattr") = defaults.mattr,
        py::arg("warm_start") = defaults.warmStartFrom,
        py::arg("time_budget") = py::none(),
        py::arg("protocol") = defaults.protocol,
        py::arg("weights") = defaults.weights,
        "Tunes every tunable op of the module (MLIR text) by measuring real "
        "variants, exactly as `tiletune tune` does (the C++ API's tune()), "
        "records the results in the database `db` (default: the user's "
        "tuning database) and returns (annotated module text, list of "
        "per-problem result dicts). `algorithm_options`: a dict or a "
        "'name=value,...' string; `callback(event_dict)` is called after "
        "every measured variant and stops the run by returning False. `mcpu` "
        "and `mattr` (LLVM's names) choose the CPU target instead of the "
        "host; the host must be able to run it. warm_start='db' seeds each "
        "search with the adapted best configs of similar problems in the "
        "database, 'none' does not. `time_budget` (seconds or a duration such "
        "as '10m') tunes the whole model under that budget and returns a "
        "third element: the model's end-to-end times before and after (else "
        "None). protocol='paper' runs every algorithm as its paper's "
        "experiments did (docs/Search.md), 'default' with our defaults. "
        "weights='model' (default) times each op's weights where a run of "
        "the module has them, out of the caches (docs/Tuning.md), 'warm' "
        "where the previous call left them.");
  m.attr("__version__") = getTileTuneVersion().str();
  m.attr("__git_revision__") = getTileTuneGitRevision().str();
  m.def("apply", &apply, py::arg("mlir"), py::arg("db") = "",
        py::arg("threads") = 0, py::arg("target") = "cpu",
        py::arg("target_key") = "", py::arg("override") = false,
        py::arg("mcpu") = "", py::arg("mattr") = "",
        "Sets the best recorded config of this machine (or of the cuda "
        "target; `mcpu`/`mattr`: of that CPU target) on every tunable op and "
        "returns the module text.");
  m.def("default_config", &defaultConfig, py::arg("mlir"),
        py::arg("target") = "cpu", py::arg("threads") = 0,
        py::arg("overwrite") = false, py::arg("mcpu") = "",
        py::arg("mattr") = "",
        "Sets the default-config heuristic's config on tunable ops without "
        "one and returns the module text (sized for the host, or for the "
        "CPU target `mcpu`/`mattr` in LLVM's names).");
  m.def("problems", &problems, py::arg("mlir"), py::arg("target") = "cpu",
        py::arg("epilogues") = true,
        "The distinct tunable problems of the module: key, op count, GFLOP. "
        "On CPU with `epilogues` (default, as tune() records them), an op's "
        "key includes its elementwise epilogue (`/epilogue=...`), preceded "
        "by `/init=<value>` when its output starts from a constant.");
}
