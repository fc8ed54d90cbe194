//===- TileTuneModule.cpp - Python bindings of the search core -----------===//
//
// The `tiletune._tiletune` extension: operator spaces, search strategies
// (ask/tell) and their resumable state; the tuning flows are in
// TuneBindings.cpp. llvm::Error values become Python
// exceptions (ValueError) at this boundary; nothing else enables exceptions.
//
//===----------------------------------------------------------------------===//

#include "TuneBindings.h"

#include "tiletune/Search/Strategy.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Space/Space.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;
using namespace mlir::tiletune;
using mlir::tiletune::python::checkNoNul;

namespace {

[[noreturn]] void raise(llvm::Error error) {
  throw py::value_error(llvm::toString(std::move(error)));
}

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    raise(value.takeError());
  return std::move(*value);
}

void check(llvm::Error error) {
  if (error)
    raise(std::move(error));
}

/// A space plus the key conversions Python works with (configs are keys).
struct PySpace {
  Space space;

  Config parse(const std::string &key) const {
    return unwrap(space.parseKey(checkNoNul("key", key)));
  }

  py::list parameters() const {
    py::list result;
    for (unsigned i = 0, e = space.getNumParameters(); i < e; ++i) {
      const Parameter &p = space.getParameter(i);
      py::dict d;
      d["name"] = p.getName().str();
      d["kind"] = stringifyParamKind(p.getKind()).str();
      d["count"] = p.count();
      result.append(d);
    }
    return result;
  }

  py::list neighbors(const std::string &key) const {
    llvm::SmallVector<Config> out;
    space.getNeighbors(parse(key), out);
    py::list result;
    for (const Config &c : out)
      result.append(space.getKey(c));
    return result;
  }

  py::tuple isValid(const std::string &key) const {
    std::string reason;
    llvm::Expected<Config> config = space.parseKey(checkNoNul("key", key));
    if (!config)
      return py::make_tuple(false, llvm::toString(config.takeError()));
    bool ok = space.isValid(*config, &reason);
    return py::make_tuple(ok, reason);
  }

  std::string sample(uint64_t seed) const {
    std::mt19937_64 rng(seed);
    std::optional<Config> config = space.sampleValid(rng);
    if (!config)
      throw py::value_error("no valid config found by rejection sampling");
    return space.getKey(*config);
  }

  std::vector<double> features(const std::string &key) const {
    llvm::SmallVector<double> out;
    space.encode(parse(key), out);
    return {out.begin(), out.end()};
  }

  py::dict toPoint(const std::string &key) const {
    SpacePoint point = toSpacePoint(space, parse(key));
    py::dict factors, options;
    for (auto &[name, list] : point.factors)
      factors[py::str(name)] = std::vector<int64_t>(list.begin(), list.end());
    for (auto &[name, value] : point.options) {
      switch (value.kind) {
      case OptionValue::Kind::Bool:
        options[py::str(name)] = value.boolValue;
        break;
      case OptionValue::Kind::Int:
        options[py::str(name)] = value.intValue;
        break;
      case OptionValue::Kind::String:
        options[py::str(name)] = value.stringValue;
        break;
      case OptionValue::Kind::NameList:
        options[py::str(name)] =
            std::vector<std::string>(value.names.begin(), value.names.end());
        break;
      }
    }
    py::dict result;
    result["factors"] = factors;
    result["options"] = options;
    return result;
  }
};

/// A strategy bound to its space (kept alive with it).
struct PyStrategy {
  std::shared_ptr<PySpace> space;
  std::unique_ptr<Strategy> strategy;

  py::list propose(unsigned count) {
    py::list result;
    for (const Trial &trial : strategy->propose(count))
      result.append(py::make_tuple(trial.id, space->space.getKey(trial.cfg)));
    return result;
  }

  void observe(uint64_t id, const std::string &key, py::object cost,
               const std::string &status, const std::string &message) {
    TrialResult result;
    result.id = id;
    result.cfg = space->parse(key);
    std::optional<TrialStatus> parsed =
        parseMeasureStatus(checkNoNul("status", status));
    if (!parsed)
      throw py::value_error("unknown trial status '" + status + "'");
    result.status = *parsed;
    if (result.status == TrialStatus::Ok) {
      if (cost.is_none())
        throw py::value_error("a successful trial needs a cost");
      // A float or anything with __float__ (int, numpy scalars); the
      // strategy rejects costs that are not finite.
      if (!PyFloat_Check(cost.ptr()) && !PyLong_Check(cost.ptr()) &&
          !PyObject_HasAttrString(cost.ptr(), "__float__"))
        throw py::type_error(
            std::string("the cost must be a number (seconds), got ") +
            std::string(py::str(py::type::of(cost).attr("__name__"))));
      result.cost = py::float_(cost).cast<double>();
    }
    result.message = checkNoNul("message", message);
    check(strategy->observe(result));
  }

  py::object best() const {
    std::optional<TrialResult> best = strategy->getBest();
    if (!best)
      return py::none();
    return py::make_tuple(space->space.getKey(best->cfg), best->cost);
  }

  std::string saveState() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << strategy->saveState();
    return text;
  }

  void loadState(const std::string &text) {
    check(strategy->loadState(unwrap(llvm::json::parse(text))));
  }
};

std::shared_ptr<PySpace> buildSpaceFor(const std::string &opKind,
                                       const std::vector<int64_t> &sizes,
                                       const std::string &target,
                                       int64_t maxRegisterTile) {
  if (maxRegisterTile < 0)
    throw py::value_error("max_register_tile must be >= 0 (0: no limit), got " +
                          std::to_string(maxRegisterTile));
  ProblemSpec problem = unwrap(makeProblemSpec(
      checkNoNul("op_kind", opKind), checkNoNul("target", target), sizes));
  SpaceOptions options;
  options.maxRegisterTile = maxRegisterTile;
  return std::make_shared<PySpace>(PySpace{unwrap(buildSpace(problem, options))});
}

} // namespace

PYBIND11_MODULE(_tiletune, m) {
  m.doc() = "TileTune: operator spaces, search strategies and the tuning "
            "flows (tune, apply, default_config, problems) on MLIR text";
  mlir::tiletune::python::addTuneBindings(m);

  py::class_<PySpace, std::shared_ptr<PySpace>>(m, "Space")
      .def_property_readonly(
          "name", [](const PySpace &s) { return s.space.getName().str(); })
      .def("size", [](const PySpace &s) { return s.space.countProduct(); },
           "Exact size of the unconstrained product space.")
      .def(
          "count_valid",
          [](const PySpace &s, uint64_t limit) {
            return unwrap(s.space.countValid(limit));
          },
          py::arg("limit") = 50000000,
          "Number of configs satisfying the constraints (enumerates).")
      .def("parameters", &PySpace::parameters)
      .def("default",
           [](const PySpace &s) { return s.space.getKey(s.space.getDefault()); })
      .def("sample", &PySpace::sample, py::arg("seed") = 0)
      .def("neighbors", &PySpace::neighbors)
      .def("is_valid", &PySpace::isValid,
           "(valid, reason) of a config key.")
      .def("features", &PySpace::features)
      .def("to_point", &PySpace::toPoint,
           "Factor lists and option values of a config key.")
      .def(
          "pinned",
          [](const PySpace &s, const std::string &assignments) {
            return std::make_shared<PySpace>(PySpace{unwrap(
                s.space.withPinned(checkNoNul("assignments", assignments)))});
          },
          py::arg("assignments"),
          "A copy with parameters pinned, e.g. 'order=[n,k,m];m=[1,*,*,*]' "
          "(as tiletune tune --fix).");

  m.def("build_space", &buildSpaceFor, py::arg("op_kind"), py::arg("sizes"),
        py::arg("target") = "cpu", py::arg("max_register_tile") = 1024,
        "The tiling space of an op (sizes in the op's iterator order).");
  m.def(
      "paper_matmul_space",
      [](int64_t mm, int64_t k, int64_t n) {
        if (mm < 1 || k < 1 || n < 1)
          throw py::value_error(
              "paper_matmul_space: m, k and n must be >= 1, got m=" +
              std::to_string(mm) + ", k=" + std::to_string(k) +
              ", n=" + std::to_string(n));
        return std::make_shared<PySpace>(
            PySpace{buildPaperMatmulSpace(mm, k, n)});
      },
      py::arg("m"), py::arg("k"), py::arg("n"),
      "The G-BFS/N-A2C matmul space (M in 4, K in 2, N in 4 factors).");

  m.def("strategies", []() {
    py::list result;
    for (const StrategyInfo *info : StrategyRegistry::get().getAll()) {
      py::dict d;
      d["name"] = info->name;
      d["summary"] = info->summary;
      py::list options;
      for (const OptionInfo &o : info->options)
        options.append(py::make_tuple(o.name, o.defaultValue, o.help));
      d["options"] = options;
      result.append(d);
    }
    return result;
  });

  py::class_<PyStrategy>(m, "Strategy")
      .def(py::init([](const std::string &name, std::shared_ptr<PySpace> space,
                       const std::map<std::string, std::string> &options,
                       uint64_t seed) {
             // `space` cannot be None (none(false) below): pybind11 raises
             // TypeError before this runs.
             StrategyOptions opts;
             for (const auto &[key, value] : options)
               opts[checkNoNul("options", key)] = checkNoNul("options", value);
             auto strategy = unwrap(createStrategy(checkNoNul("name", name),
                                                   space->space, opts, seed));
             return PyStrategy{space, std::move(strategy)};
           }),
           py::arg("name"), py::arg("space").none(false),
           py::arg("options") = std::map<std::string, std::string>(),
           py::arg("seed") = 0)
      .def_property_readonly(
          "name", [](const PyStrategy &s) { return s.strategy->getName().str(); })
      .def("propose", &PyStrategy::propose, py::arg("count") = 1,
           "Up to `count` never-proposed configs as (id, key) pairs.")
      .def("observe", &PyStrategy::observe, py::arg("id"), py::arg("key"),
           py::arg("cost") = py::none(), py::arg("status") = "ok",
           py::arg("message") = "")
      .def("best", &PyStrategy::best, "(key, cost) of the best result or None.")
      .def_property_readonly(
          "done", [](const PyStrategy &s) { return s.strategy->isDone(); })
      .def_property_readonly(
          "num_proposed",
          [](const PyStrategy &s) { return s.strategy->getNumProposed(); })
      .def("save_state", &PyStrategy::saveState)
      .def("load_state", &PyStrategy::loadState);
}
