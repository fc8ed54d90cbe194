//===- PassDetail.h - Helpers shared by the GPU passes ----------*- C++ -*-===//
//
// Private to lib/GPU: what more than one of the GPU passes needs and no
// caller outside the passes does.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_GPU_PASSDETAIL_H
#define TILETUNE_LIB_GPU_PASSDETAIL_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tiletune::detail {

/// The ops with a cuda config under `root`, in program order. Ops whose
/// config targets something else are skipped; each skip is reported under
/// `-debug-only=<debugType>` (pass the calling pass's DEBUG_TYPE).
SmallVector<Operation *> collectCudaOps(Operation *root, const char *debugType);

} // namespace mlir::tiletune::detail

#endif // TILETUNE_LIB_GPU_PASSDETAIL_H
