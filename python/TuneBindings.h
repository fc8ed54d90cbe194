//===- TuneBindings.h - Python bindings of the tuning flows -----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_PYTHON_TUNEBINDINGS_H
#define TILETUNE_PYTHON_TUNEBINDINGS_H

#include <pybind11/pybind11.h>

#include <string>

namespace mlir::tiletune::python {

/// Returns `value`, or raises ValueError naming the argument `name` when it
/// holds a NUL character: C and SQLite would cut such a string at the NUL
/// (a `db` path would name another file), so no string argument may hold
/// one.
const std::string &checkNoNul(const char *name, const std::string &value);

/// Adds tune, apply, default_config and problems to the extension module.
void addTuneBindings(pybind11::module_ &m);

} // namespace mlir::tiletune::python

#endif // TILETUNE_PYTHON_TUNEBINDINGS_H
