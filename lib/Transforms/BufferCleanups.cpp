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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
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
#include "llvm/ADT/MapVector.h"
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
// Layout transposes around an output
//===----------------------------------------------------------------------===//

/// The buffer `view` is a view of, through memref.subview ops.
static Value getSubviewRoot(Value view) {
  while (auto subview = view.getDefiningOp<memref::SubViewOp>())
    view = subview.getSource();
  return view;
}

/// The op that goes with piece `piece` of a marked layout transpose: the
/// transpose, or the scf.forall that splits it over threads when that
/// forall's body holds nothing but subviews and pieces marked `mark`.
/// Null when neither.
static Operation *getPieceRoot(linalg::TransposeOp piece, StringRef mark) {
  auto forall = dyn_cast<scf::ForallOp>(piece->getParentOp());
  if (!forall)
    return piece;
  for (Operation &op : forall.getBody()->without_terminator())
    if (!isa<memref::SubViewOp>(op) &&
        !(isa<linalg::TransposeOp>(op) && op.hasAttr(mark)))
      return nullptr;
  return forall;
}

namespace {
/// One NHWC output buffer of a conv computed as NHWC, with the pieces of
/// the marked transposes that copy the NCHW buffer into it
/// (kLayoutCopyInAttrName) and copy it back (kLayoutCopyOutAttrName).
struct LayoutPair {
  SmallVector<linalg::TransposeOp> copiesIn, copiesOut;
};
} // namespace

/// Folds one pair (see foldLayoutTransposesIntoAccesses) around `buffer`.
static LogicalResult foldLayoutPair(Value buffer, LayoutPair &pair) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || pair.copiesOut.empty())
    return failure();
  Block *block = alloc->getBlock();
  Value nchw = getSubviewRoot(pair.copiesOut.front().getInit());
  auto nchwType = dyn_cast<MemRefType>(nchw.getType());
  int64_t rank = alloc.getType().getRank();
  if (!nchwType || nchwType.getRank() != rank)
    return failure();
  // Buffer dim d is dim toNchw[d] of the NCHW buffer: the result's
  // permutation says result dim i = buffer dim perm[i].
  ArrayRef<int64_t> perm = pair.copiesOut.front().getPermutation();
  SmallVector<int64_t> toNchw(rank);
  for (auto [i, p] : llvm::enumerate(perm))
    toNchw[p] = i;
  // Every piece: the same buffers and permutation, at the top of `block`.
  SmallVector<Operation *> inRoots, outRoots;
  for (auto [pieces, mark, roots] :
       {std::make_tuple(&pair.copiesIn, kLayoutCopyInAttrName, &inRoots),
        std::make_tuple(&pair.copiesOut, kLayoutCopyOutAttrName, &outRoots)}) {
    bool isIn = pieces == &pair.copiesIn;
    for (linalg::TransposeOp piece : *pieces) {
      Value from = getSubviewRoot(piece.getInput()),
            to = getSubviewRoot(piece.getInit());
      if ((isIn ? to != buffer || from != nchw : from != buffer || to != nchw))
        return failure();
      ArrayRef<int64_t> p = piece.getPermutation();
      for (int64_t i = 0; i < rank; ++i)
        // Copies in: buffer dim i = NCHW dim p[i].
        if (isIn ? p[i] != toNchw[i] : p[i] != perm[i])
          return failure();
      Operation *root = getPieceRoot(piece, mark);
      if (!root || root->getBlock() != block)
        return failure();
      roots->push_back(root);
    }
  }
  // The buffer's other users: vector transfers through subviews, and fills
  // of the whole buffer.
  llvm::SmallPtrSet<Operation *, 8> pieceOps;
  for (const auto *pieces : {&pair.copiesIn, &pair.copiesOut})
    for (linalg::TransposeOp piece : *pieces)
      pieceOps.insert(piece);
  SmallVector<Operation *> accesses;
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value view = worklist.pop_back_val();
    for (Operation *user : view.getUsers()) {
      if (pieceOps.contains(user))
        continue;
      if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
        worklist.push_back(subview.getResult());
        continue;
      }
      auto read = dyn_cast<vector::TransferReadOp>(user);
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      auto fill = dyn_cast<linalg::FillOp>(user);
      if ((read && read.getBase() == view && !read.getMask()) ||
          (write && write.getBase() == view && !write.getMask()) ||
          (fill && view == buffer))
        accesses.push_back(user);
      else
        return failure();
    }
  }
  if (accesses.empty())
    return failure();
  // Every access after every copy in and before every copy back.
  auto before = [&](Operation *a, Operation *b) {
    return a != b && a->isBeforeInBlock(b);
  };
  Operation *first = nullptr;
  for (Operation *access : accesses) {
    Operation *top = block->findAncestorOpInBlock(*access);
    if (!top)
      return failure();
    for (Operation *root : inRoots)
      if (!before(root, top))
        return failure();
    for (Operation *root : outRoots)
      if (!before(top, root))
        return failure();
    if (!first || before(top, first))
      first = top;
  }
  // The NCHW buffer untouched from the copies in (or the first access) to
  // the copies back, which are all after every access: a read there would
  // see the conv's partial sums after the fold, and a write would survive
  // it instead of being overwritten.
  llvm::SmallPtrSet<Operation *, 8> roots(inRoots.begin(), inRoots.end());
  roots.insert(outRoots.begin(), outRoots.end());
  Operation *start = first;
  for (Operation *root : inRoots)
    if (before(start, root))
      start = root;
  Operation *end = outRoots.front();
  for (Operation *root : outRoots)
    if (before(root, end))
      end = root;
  for (Operation *op = start; op != end; op = op->getNextNode()) {
    if (roots.contains(op))
      continue;
    WalkResult touched = op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (auto memref = dyn_cast<TypedValue<MemRefType>>(operand);
            memref && memref::skipViewLikeOps(memref) == nchw)
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (touched.wasInterrupted())
      return failure();
  }

  // Subviews folded into the transfers (indices into the buffer itself).
  MLIRContext *ctx = buffer.getContext();
  SmallVector<Operation *> transfers;
  for (Operation *access : accesses)
    if (!isa<linalg::FillOp>(access))
      transfers.push_back(access);
  {
    RewritePatternSet patterns(ctx);
    memref::populateFoldMemRefAliasOpPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(transfers, std::move(patterns), config);
  }
  SmallVector<Operation *> direct;
  for (Operation *user : buffer.getUsers()) {
    if (pieceOps.contains(user) || isa<memref::SubViewOp>(user))
      continue;
    auto transfer = dyn_cast<VectorTransferOpInterface>(user);
    if (transfer && transfer.getBase() != buffer)
      return failure();
    direct.push_back(user);
  }
  // The same accesses on the NCHW buffer: buffer index d goes to NCHW
  // index toNchw[d], and a map's buffer dim d becomes NCHW dim toNchw[d].
  AffineMap toNchwMap = AffineMap::getPermutationMap(toNchw, ctx);
  IRRewriter rewriter(ctx);
  for (Operation *user : direct) {
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      rewriter.modifyOpInPlace(
          fill, [&] { fill.getOutputsMutable()[0].assign(nchw); });
      continue;
    }
    auto transfer = cast<VectorTransferOpInterface>(user);
    SmallVector<Value> indices(rank);
    for (auto [d, index] : llvm::enumerate(transfer.getIndices()))
      indices[toNchw[d]] = index;
    AffineMap map = transfer.getPermutationMap().compose(toNchwMap);
    rewriter.modifyOpInPlace(user, [&] {
      if (auto read = dyn_cast<vector::TransferReadOp>(user)) {
        read.getBaseMutable().assign(nchw);
        read.getIndicesMutable().assign(indices);
        read.setPermutationMap(map);
      } else {
        auto write = cast<vector::TransferWriteOp>(user);
        write.getBaseMutable().assign(nchw);
        write.getIndicesMutable().assign(indices);
        write.setPermutationMap(map);
      }
    });
  }
  for (Operation *root : llvm::concat<Operation *>(inRoots, outRoots))
    rewriter.eraseOp(root);
  // The subviews left (the folded transfers' and the pieces'), innermost
  // first, then the buffer.
  SmallVector<Operation *> subviews;
  SmallVector<Value> views = {buffer};
  while (!views.empty()) {
    Value view = views.pop_back_val();
    for (Operation *user : view.getUsers())
      if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
        subviews.push_back(subview);
        views.push_back(subview.getResult());
      }
  }
  for (Operation *subview : llvm::reverse(subviews))
    if (subview->use_empty())
      rewriter.eraseOp(subview);
  if (alloc->use_empty())
    rewriter.eraseOp(alloc);
  return success();
}

unsigned tiletune::foldLayoutTransposesIntoAccesses(Operation *root) {
  llvm::MapVector<Value, LayoutPair> pairs;
  root->walk([&](linalg::TransposeOp t) {
    if (!t.hasPureBufferSemantics())
      return;
    if (t->hasAttr(kLayoutCopyInAttrName))
      pairs[getSubviewRoot(t.getInit())].copiesIn.push_back(t);
    if (t->hasAttr(kLayoutCopyOutAttrName))
      pairs[getSubviewRoot(t.getInput())].copiesOut.push_back(t);
  });
  unsigned folded = 0;
  for (auto &[buffer, pair] : pairs)
    if (succeeded(foldLayoutPair(buffer, pair)))
      ++folded;
  return folded;
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
