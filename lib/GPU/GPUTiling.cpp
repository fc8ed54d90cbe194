//===- GPUTiling.cpp - Tile tunable ops onto GPU blocks and threads -------===//
//
// Implements tileForGPU: the rewrite of one op into a gpu.launch. The rewrite
// is expressed with upstream transform-dialect ops (tile_using_forall /
// tile_using_for, promote, map_forall_to_blocks, map_nested_forall_to_threads,
// vectorize, hoisting, vector lowerings): the scripts of GPUTilingScript.cpp
// are parsed and applied to the op's function by the transform interpreter,
// with small rewrites of our own in between (shared buffers become workgroup
// attributions of the launch; barriers around the cooperative copies;
// unrolling of the marked loops) and a cleanup of the stage markers at the
// end. The plan comes from GPUKernelPlan.cpp.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/GPUTiling.h"

#include "GPUTilingScript.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tiletune-tile-gpu"

using namespace mlir;
using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;

/// Parses `script` and applies its entry point to `payload`.
static LogicalResult applyScript(Operation *payload, StringRef script,
                                 Operation *diagnosticsAnchor) {
  MLIRContext *ctx = payload->getContext();
  OwningOpRef<ModuleOp> transformModule =
      parseSourceString<ModuleOp>(script, ParserConfig(ctx), "tiletune-gpu");
  if (!transformModule) {
    diagnosticsAnchor->emitError("internal error: generated GPU tiling "
                                 "script does not parse");
    return failure();
  }
  auto entry = transformModule->lookupSymbol<transform::NamedSequenceOp>(
      "__transform_main");
  if (!entry)
    return diagnosticsAnchor->emitError("internal error: no entry point");
  transform::TransformOptions transformOptions;
  return transform::applyTransforms(
      payload, cast<transform::TransformOpInterface>(entry.getOperation()),
      /*extraMapping=*/{}, transformOptions,
      /*enforceToplevelTransformOp=*/false);
}

static bool isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Turns the workgroup-memory allocations inside `launch` into workgroup
/// attributions of the launch (lowered to static shared memory).
static void allocsToAttributions(gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.getBody().walk([&](memref::AllocOp alloc) {
    if (isWorkgroupMemRef(alloc.getType()))
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    BlockArgument buffer =
        launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(buffer);
    alloc->erase();
  }
}

/// Whether `op` (or anything nested in it) writes to workgroup memory.
static bool writesWorkgroupMemory(Operation *op) {
  bool writes = false;
  op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &instance : instances)
      if (isa<MemoryEffects::Write>(instance.getEffect()) &&
          instance.getValue() &&
          isWorkgroupMemRef(instance.getValue().getType()))
        writes = true;
  });
  return writes;
}

/// In each innermost shared-level loop: a barrier after the last op that
/// fills shared memory (the copies are complete before anyone reads) and one
/// at the end of the body (nobody overwrites a tile still being read).
static void insertBarriers(gpu::LaunchOp launch) {
  SmallVector<scf::ForOp> loops;
  launch.getBody().walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kSharedLoopMarker))
      return;
    bool hasInner = false;
    loop.getBody()->walk([&](scf::ForOp inner) {
      hasInner |= inner->hasAttr(kSharedLoopMarker);
    });
    if (!hasInner)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    Operation *lastWrite = nullptr;
    for (Operation &op : loop.getBody()->without_terminator())
      if (writesWorkgroupMemory(&op))
        lastWrite = &op;
    OpBuilder b(loop.getContext());
    if (lastWrite) {
      b.setInsertionPointAfter(lastWrite);
      gpu::BarrierOp::create(b, lastWrite->getLoc());
    }
    b.setInsertionPoint(loop.getBody()->getTerminator());
    gpu::BarrierOp::create(b, loop.getLoc());
  }
}

/// Fully unrolls the loops marked `marker` under `root` whose trip count is
/// at most `maxTrips` (innermost first).
static void unrollMarkedLoops(Operation *root, StringRef marker,
                              int64_t maxTrips) {
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop->hasAttr(marker))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    std::optional<int64_t> trips =
        loop.getStaticTripCount()
            ? std::optional<int64_t>(loop.getStaticTripCount()->getSExtValue())
            : std::nullopt;
    if (trips && *trips <= maxTrips)
      (void)loopUnrollFull(loop);
  }
}

/// Allows the contraction of a*b+c into FMAs in the scalar code of a kernel.
static void allowContraction(Operation *root) {
  root->walk([](Operation *op) {
    if (isa<arith::MulFOp, arith::AddFOp>(op))
      if (auto fm = dyn_cast<arith::ArithFastMathInterface>(op))
        op->setAttr(fm.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        op->getContext(),
                        fm.getFastMathFlagsAttr().getValue() |
                            arith::FastMathFlags::contract));
  });
}

/// Removes the stage markers under `root` and the configs copied onto the
/// tiles of the rewritten op (they describe the whole op, not a tile).
static void clearMarkers(Operation *root) {
  root->walk([](Operation *op) {
    if (op->hasAttr(kTargetMarker))
      eraseConfig(op);
    for (StringRef name : {kTargetMarker, kKernelMarker, kSharedLoopMarker,
                           kVThreadLoopMarker, kRegisterLoopMarker})
      op->removeAttr(name);
  });
}

FailureOr<gpu::LaunchOp>
mlir::tiletune::tileForGPU(Operation *op, const GPUTilingOptions &options) {
  std::string reason;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &reason);
  if (failed(tunable))
    return op->emitError(reason);
  if (std::optional<std::string> why = getGPUUnsupportedReason(*tunable))
    return op->emitError(*why);
  if (tunable->onTensors)
    return op->emitError("GPU tiling needs buffers: bufferize the function "
                         "first (tiletune-lower-gpu does)");
  TileConfigAttr config = getConfig(op);
  if (!config)
    return op->emitError("no tiletune.config on the op");
  if (failed(verifyConfig(config, *tunable, [&] { return op->emitError(); })))
    return failure();
  FailureOr<GPUKernelPlan> plan = planGPUKernel(op, &reason);
  if (failed(plan))
    return op->emitError("invalid cuda config: ") << reason;
  if (failed(checkGPULimits(*plan, GPULimits(), &reason)))
    return op->emitError("cuda config exceeds the GPU's limits: ") << reason;

  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return op->emitError("the op is not inside a function");
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (auto type = dyn_cast<MemRefType>(operand.getType()))
      if (!type.getLayout().isIdentity() && !type.isLastDimUnitStride())
        return op->emitError("operand #")
               << i << " must have a unit-stride innermost dimension";

  LLVM_DEBUG(llvm::dbgs() << "plan: " << plan->summary() << "\n");
  std::string script = buildGPUTilingScript(*plan, options);
  LLVM_DEBUG(llvm::dbgs() << "script:\n" << script << "\n");
  op->setAttr(kTargetMarker, UnitAttr::get(op->getContext()));
  if (failed(applyScript(func, script, op))) {
    clearMarkers(func);
    return failure();
  }

  gpu::LaunchOp launch;
  func->walk([&](gpu::LaunchOp candidate) {
    if (candidate->hasAttr(kKernelMarker))
      launch = candidate;
  });
  if (options.mapToGPU) {
    if (!launch) {
      clearMarkers(func);
      return func->emitError("internal error: GPU mapping produced no launch");
    }
    allocsToAttributions(launch);
    insertBarriers(launch);
    if (plan->explicitUnroll)
      unrollMarkedLoops(launch, kVThreadLoopMarker, plan->maxUnroll);
  }
  if (options.vectorize &&
      failed(applyScript(func, buildVectorizationScript(), func))) {
    clearMarkers(func);
    return failure();
  }
  Operation *kernelRoot = launch ? launch.getOperation() : func.getOperation();
  if (plan->maxUnroll > 0)
    unrollMarkedLoops(kernelRoot, kRegisterLoopMarker, plan->maxUnroll);
  if (launch) {
    // Per-thread tiles that were not vectorized (convolutions) become
    // scalar loops here, so that their multiply-adds can be fused.
    SmallVector<linalg::LinalgOp> scalarOps;
    launch.walk(
        [&](linalg::LinalgOp linalgOp) { scalarOps.push_back(linalgOp); });
    IRRewriter rewriter(launch.getContext());
    for (linalg::LinalgOp linalgOp : scalarOps) {
      rewriter.setInsertionPoint(linalgOp);
      if (succeeded(linalg::linalgOpToLoops(rewriter, linalgOp)))
        rewriter.eraseOp(linalgOp);
    }
    allowContraction(launch);
  }
  clearMarkers(func);
  if (failed(verify(func)))
    return func->emitError("internal error: GPU tiling produced invalid IR");
  return launch;
}
