//===- TuneBindings.h - Python bindings of the tuning flows -----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_PYTHON_TUNEBINDINGS_H
#define TILETUNE_PYTHON_TUNEBINDINGS_H

#include <pybind11/pybind11.h>

namespace mlir::tiletune::python {

/// Adds tune, apply, default_config and problems to the extension module.
void addTuneBindings(pybind11::module_ &m);

} // namespace mlir::tiletune::python

#endif // TILETUNE_PYTHON_TUNEBINDINGS_H
