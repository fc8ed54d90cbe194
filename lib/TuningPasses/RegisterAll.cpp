//===- RegisterAll.cpp - Every TileTune dialect and pass at once ----------===//
//
// registerAllTileTune() (declared in tiletune/InitAll.h): lives with the
// tuning passes because it registers them, so that TileTuneInit itself
// never links the tuner.
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"
#include "tiletune/TuningPasses/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::tiletune::registerAllTileTune(DialectRegistry &registry) {
  registerAllTileTuneDialects(registry);
  registerAllTileTunePasses();
  registerTileTuneTuningPasses();
}
