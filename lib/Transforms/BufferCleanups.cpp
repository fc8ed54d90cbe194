//===- BufferCleanups.cpp - Hoisting on buffers after tiling --------------===//
//
// Cleanups of tiled code on memrefs: loop-invariant code motion, vector
// transfer hoisting (the accumulator of a register tile stays in registers)
// and moving static allocations out of sequential loops. Run by
// tiletune-tile-cpu on buffer inputs and by tiletune-optimize-cpu-buffers
// after bufferization.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Transforms/CPUTiling.h"

#include "TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Copies onto themselves
//===----------------------------------------------------------------------===//

namespace {
/// Where a view starts in its buffer: the buffer, the offsets and strides.
struct ViewOrigin {
  Value buffer;
  SmallVector<OpFoldResult> offsets, strides;

  bool operator==(const ViewOrigin &other) const {
    return buffer == other.buffer && offsets == other.offsets &&
           strides == other.strides;
  }
};
} // namespace

/// The origin of `view`: a `memref.subview` of a buffer that is not itself a
/// view, seen through `memref.cast`s and through `scf.if`s whose branches
/// all yield views of the same origin.
static std::optional<ViewOrigin> getViewOrigin(Value view) {
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return getViewOrigin(cast.getSource());
  if (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    Value source = subview.getSource();
    if (source.getDefiningOp<ViewLikeOpInterface>() ||
        source.getDefiningOp<memref::CastOp>())
      return std::nullopt;
    return ViewOrigin{source, subview.getMixedOffsets(),
                      subview.getMixedStrides()};
  }
  auto ifOp = view.getDefiningOp<scf::IfOp>();
  if (!ifOp || ifOp.getElseRegion().empty())
    return std::nullopt;
  unsigned index = cast<OpResult>(view).getResultNumber();
  std::optional<ViewOrigin> thenOrigin =
      getViewOrigin(ifOp.thenYield().getOperand(index));
  std::optional<ViewOrigin> elseOrigin =
      getViewOrigin(ifOp.elseYield().getOperand(index));
  if (!thenOrigin || !elseOrigin || !(*thenOrigin == *elseOrigin))
    return std::nullopt;
  return thenOrigin;
}

unsigned tiletune::eraseCopiesOntoThemselves(Operation *root) {
  SmallVector<memref::CopyOp> copies;
  root->walk([&](memref::CopyOp copy) {
    if (copy.getSource() == copy.getTarget()) {
      copies.push_back(copy);
      return;
    }
    std::optional<ViewOrigin> source = getViewOrigin(copy.getSource());
    std::optional<ViewOrigin> target = getViewOrigin(copy.getTarget());
    if (source && target && *source == *target)
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies)
    copy->erase();
  return copies.size();
}

//===----------------------------------------------------------------------===//
// Vector transfer hoisting
//===----------------------------------------------------------------------===//

void tiletune::hoistInvariantCode(Operation *root) {
  root->walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
}

void tiletune::hoistVectorTransfersOnBuffers(Operation *root) {
  MLIRContext *ctx = root->getContext();
  {
    RewritePatternSet patterns(ctx);
    memref::populateFoldMemRefAliasOpPatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    (void)applyPatternsGreedily(root, std::move(patterns));
  }
  IRRewriter rewriter(ctx);
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
  hoistInvariantCode(root);
  linalg::hoistRedundantVectorTransfers(root);
}

//===----------------------------------------------------------------------===//
// Post-bufferization allocation hoisting
//===----------------------------------------------------------------------===//

/// Whether `alloc`'s buffer (and its views) stays inside one iteration of
/// `loop`: every user is inside the loop body and none yields or returns it.
static bool staysInsideIteration(Value buffer, Operation *loop) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isProperAncestor(user))
        return false;
      if (user->hasTrait<OpTrait::IsTerminator>())
        return false;
      if (isa<ViewLikeOpInterface>(user) ||
          isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::ReinterpretCastOp, memref::TransposeOp>(user)) {
        for (Value r : user->getResults())
          worklist.push_back(r);
      } else if (isa<memref::StoreOp, vector::TransferWriteOp>(user) &&
                 use.getOperandNumber() == 0) {
        return false; // The buffer itself is stored somewhere.
      }
    }
  }
  return true;
}

unsigned tiletune::hoistStaticAllocsOutOfLoops(Operation *root) {
  SmallVector<memref::AllocOp> allocs;
  root->walk([&](memref::AllocOp alloc) {
    if (alloc.getType().hasStaticShape() && alloc.getDynamicSizes().empty() &&
        alloc.getSymbolOperands().empty())
      allocs.push_back(alloc);
  });
  unsigned moved = 0;
  for (memref::AllocOp alloc : allocs) {
    // Find the outermost scf.for (not crossing forall/parallel/functions)
    // such that the buffer stays inside one of its iterations.
    Operation *target = nullptr;
    for (Operation *parent = alloc->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (!isa<scf::ForOp>(parent))
        break;
      if (!staysInsideIteration(alloc.getResult(), parent))
        break;
      target = parent;
    }
    if (!target)
      continue;
    // Deallocations of the buffer inside the loop move along.
    SmallVector<Operation *> deallocs;
    for (Operation *user : alloc->getUsers())
      if (isa<memref::DeallocOp>(user))
        deallocs.push_back(user);
    alloc->moveBefore(target);
    for (Operation *dealloc : deallocs)
      dealloc->moveAfter(target);
    ++moved;
  }
  return moved;
}

//===----------------------------------------------------------------------===//
// Buffers the input frees itself
//===----------------------------------------------------------------------===//

namespace {
/// Finds the allocations a freed buffer may come from.
class FreedBufferTracer {
public:
  explicit FreedBufferTracer(Operation *symbolTableOp)
      : users(symbolTables, symbolTableOp) {}

  /// Adds the allocations `freed` may come from to `allocations`. Returns
  /// the location of an origin of `freed` whose allocation is not known (a
  /// value, or a use of a function other than a call), if any.
  std::optional<Location> trace(Value freed,
                                SetVector<Operation *> &allocations);

private:
  SymbolTableCollection symbolTables;
  SymbolUserMap users;
};
} // namespace

/// The allocating op of `value` when it is a heap allocation (not an
/// automatic one such as `memref.alloca`).
static Operation *getHeapAllocation(Value value) {
  auto effects = value.getDefiningOp<MemoryEffectOpInterface>();
  if (!effects)
    return nullptr;
  std::optional<MemoryEffects::EffectInstance> alloc =
      effects.getEffectOnValue<MemoryEffects::Allocate>(value);
  if (!alloc ||
      isa<SideEffects::AutomaticAllocationScopeResource>(alloc->getResource()))
    return nullptr;
  return effects;
}

std::optional<Location>
FreedBufferTracer::trace(Value freed, SetVector<Operation *> &allocations) {
  SmallVector<Value> worklist{freed};
  DenseSet<Value> visited;
  std::optional<Location> unknown;
  auto giveUp = [&](Location loc) {
    unknown = loc;
    return false;
  };
  auto step = [&](Value v) -> bool {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *block = arg.getOwner();
      Operation *parent = block->getParentOp();
      if (auto func = dyn_cast<FunctionOpInterface>(parent)) {
        if (!block->isEntryBlock())
          return giveUp(v.getLoc());
        // A buffer passed in: the allocations the calls in the module pass.
        // (Callers outside the module manage their own buffers.)
        for (Operation *user : users.getUsers(func)) {
          auto call = dyn_cast<CallOpInterface>(user);
          if (!call || arg.getArgNumber() >= call.getArgOperands().size())
            return giveUp(user->getLoc());
          worklist.push_back(call.getArgOperands()[arg.getArgNumber()]);
        }
        return true;
      }
      if (auto loop = dyn_cast<scf::ForOp>(parent)) {
        if (arg == loop.getInductionVar())
          return giveUp(v.getLoc());
        worklist.push_back(loop.getTiedLoopInit(arg)->get());
        worklist.push_back(loop.getTiedLoopYieldedValue(arg)->get());
        return true;
      }
      return giveUp(v.getLoc());
    }
    auto result = cast<OpResult>(v);
    Operation *def = result.getOwner();
    unsigned index = result.getResultNumber();
    if (Operation *alloc = getHeapAllocation(v)) {
      allocations.insert(alloc);
      return true;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      worklist.push_back(view.getViewSource());
      return true;
    }
    if (isa<CastOpInterface>(def) && def->getNumOperands() == 1) {
      worklist.push_back(def->getOperand(0));
      return true;
    }
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      worklist.push_back(loop.getInitArgs()[index]);
      worklist.push_back(loop.getYieldedValues()[index]);
      return true;
    }
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      if (branch.getElseRegion().empty())
        return giveUp(v.getLoc());
      worklist.push_back(branch.thenYield().getOperand(index));
      worklist.push_back(branch.elseYield().getOperand(index));
      return true;
    }
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      worklist.push_back(select.getTrueValue());
      worklist.push_back(select.getFalseValue());
      return true;
    }
    return giveUp(v.getLoc());
  };
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!visited.insert(v).second)
      continue;
    if (!step(v))
      return unknown;
  }
  return std::nullopt;
}

FailureOr<unsigned> tiletune::markUserDeallocations(Operation *root) {
  // Every op that frees a memref operand, with the freed operands.
  SmallVector<std::pair<Operation *, Value>> frees;
  root->walk([&](MemoryEffectOpInterface op) {
    for (Value operand : op->getOperands())
      if (isa<BaseMemRefType>(operand.getType()) &&
          op.getEffectOnValue<MemoryEffects::Free>(operand))
        frees.emplace_back(op, operand);
  });
  if (frees.empty())
    return 0u;

  FreedBufferTracer tracer(root);
  SetVector<Operation *> marked;
  bool ok = true;
  for (auto [op, freed] : frees) {
    std::optional<Location> unknown = tracer.trace(freed, marked);
    if (!unknown) {
      marked.insert(op);
      continue;
    }
    ok = false;
    InFlightDiagnostic diag =
        op->emitError("cannot free this buffer explicitly: it may come from "
                      "a value whose allocation is not known (supported: "
                      "buffers allocated in the module, through views, "
                      "casts, scf.for, scf.if and arith.select, and function "
                      "arguments)");
    diag.attachNote(*unknown) << "the buffer may come from here";
  }
  if (!ok)
    return failure();
  MLIRContext *ctx = root->getContext();
  ctx->getOrLoadDialect<bufferization::BufferizationDialect>();
  for (Operation *op : marked)
    op->setAttr(bufferization::BufferizationDialect::kManualDeallocation,
                UnitAttr::get(ctx));
  return static_cast<unsigned>(marked.size());
}
