//===- tiletune-opt.cpp - mlir-opt with the TileTune passes ---------------===//
//
// An mlir-opt-style driver: all upstream dialects and passes plus the
// tiletune dialect and its tiling, lowering and tuning passes.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Driver/Passes.h"
#include "tiletune/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::tiletune::registerAllTileTunePasses();
  mlir::tiletune::registerTileTuneDriverPasses();
  mlir::DialectRegistry registry;
  mlir::tiletune::registerAllTileTuneDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "TileTune optimizer driver\n", registry));
}
