//===- Measurer.cpp - The interface of every measurer ---------------------===//
//
// Out-of-line members of the Measurer interface (its vtable lives here).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/Measurer.h"

using namespace mlir::tiletune;

Measurer::~Measurer() = default;

void Measurer::replayed(const MeasureResult &) {}
