//===- TileTuneDialect.h - The tiletune dialect -----------------*- C++ -*-===//
//
// Declares the tiletune dialect and its `#tiletune.config` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_TILETUNEDIALECT_H
#define TILETUNE_DIALECT_TILETUNEDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "tiletune/Dialect/TileTuneDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tiletune/Dialect/TileTuneAttrs.h.inc"

#endif // TILETUNE_DIALECT_TILETUNEDIALECT_H
