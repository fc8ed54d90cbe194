//===- StrategyRegistration.h - Built-in strategy registration --*- C++ -*-===//
//
// Declares one `register<Name>Strategy(StrategyRegistry &)` function per
// built-in strategy listed in Strategies.def (private to lib/Search).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_SEARCH_STRATEGYREGISTRATION_H
#define TILETUNE_LIB_SEARCH_STRATEGYREGISTRATION_H

#include "tiletune/Search/Strategy.h"

namespace mlir::tiletune {
#define TILETUNE_STRATEGY(NAME) void register##NAME##Strategy(StrategyRegistry &);
#include "Strategies.def"
} // namespace mlir::tiletune

#endif // TILETUNE_LIB_SEARCH_STRATEGYREGISTRATION_H
