//===- tiletune-opt.cpp - mlir-opt with the TileTune passes ---------------===//
//
// An mlir-opt-style driver: all upstream dialects and passes plus the
// tiletune dialect and its tiling and lowering passes, and (unless built
// with -DTILETUNE_OPT_TUNING_PASSES=OFF) the tuning passes.
//
//===----------------------------------------------------------------------===//

#include "tiletune/InitAll.h"
#include "tiletune/Support/Target.h"
#ifdef TILETUNE_OPT_TUNING_PASSES
#include "tiletune/TuningPasses/Passes.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::tiletune::registerTileTuneVersionPrinter();
  mlir::tiletune::registerAllTileTunePasses();
#ifdef TILETUNE_OPT_TUNING_PASSES
  mlir::tiletune::registerTileTuneTuningPasses();
#endif
  mlir::DialectRegistry registry;
  mlir::tiletune::registerAllTileTuneDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "TileTune optimizer driver\n", registry));
}
