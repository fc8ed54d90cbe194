//===- Epilogue.cpp - The elementwise epilogue of a tunable op ------------===//
//
// findEpilogueChain and the scalar ops an epilogue body may hold (one list,
// shared by the CPU fusion, the tuning problem and the reference).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Dialect/TileConfig.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tiletune;

bool mlir::tiletune::isEpilogueBodyOp(Operation *op) {
  return llvm::StringSwitch<bool>(op->getName().getStringRef())
      .Cases({"arith.addf", "arith.subf", "arith.mulf", "arith.divf",
              "arith.negf"},
             true)
      .Cases({"arith.maximumf", "arith.minimumf", "arith.maxnumf",
              "arith.minnumf", "arith.cmpf", "arith.select",
              "arith.constant"},
             true)
      .Cases({"math.tanh", "math.exp", "math.absf", "math.sqrt", "math.fma"},
             true)
      .Default(false);
}

//===----------------------------------------------------------------------===//
// Finding the chain
//===----------------------------------------------------------------------===//

/// Why `user`, a user of `chained` (the values of an epilogue so far, all of
/// one type; the chain's last value, or the root and the ops of an
/// elementwise DAG), cannot join the epilogue (empty: it can).
static std::string whyNotElementwiseUser(ArrayRef<Value> chained,
                                         Operation *user) {
  Value value = chained.front();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
  if (!linalgOp)
    return ("its user '" + user->getName().getStringRef() +
            "' is not a linalg op")
        .str();
  if (getConfig(user))
    return "its user carries a tiletune.config of its own";
  if (!linalgOp.hasPureTensorSemantics())
    return "its user does not work on tensors";
  if (!isa<TilingInterface>(user))
    return "its user cannot be tiled";
  if (linalgOp.getNumReductionLoops() != 0)
    return "its user is a reduction";
  if (linalgOp.getNumDpsInits() != 1 || user->getNumResults() != 1)
    return "its user has several results";
  for (OpOperand &operand : user->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    if (llvm::is_contained(chained, operand.get()) && !map.isIdentity())
      return "its user reads it through a permutation (a transposed view)";
    // Frontends (TOSA) broadcast size-1 dims with a constant 0 result.
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return "its user reads an operand through a non-projection map";
  }
  auto type = cast<RankedTensorType>(value.getType());
  if (user->getResult(0).getType() != type ||
      linalgOp.getNumLoops() != static_cast<unsigned>(type.getRank()))
    return "its user's result has another shape or element type";
  if (!linalgOp.getIndexingMapMatchingResult(user->getOpResult(0)).isIdentity())
    return "its user writes its result through a permutation";
  for (Operation &op : linalgOp.getBlock()->without_terminator()) {
    if (!isEpilogueBodyOp(&op))
      return ("its user's body has '" + op.getName().getStringRef() +
              "', which epilogues do not support")
          .str();
    for (Value operand : op.getOperands())
      if (!isa<BlockArgument>(operand) &&
          operand.getParentRegion() != &user->getRegion(0) &&
          !matchPattern(operand, m_Constant()))
        return "its user's body reads a value defined outside it";
  }
  return "";
}

/// The tunable op `value` is computed from through elementwise linalg ops
/// (a few levels deep), or null.
static Operation *findTunableProducer(Value value, unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 8)
    return nullptr;
  if (succeeded(matchTunableOp(def)))
    return def;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(def);
  if (!linalgOp || linalgOp.getNumReductionLoops() != 0)
    return nullptr;
  for (Value input : linalgOp.getDpsInputs())
    if (Operation *found = findTunableProducer(input, depth + 1))
      return found;
  return nullptr;
}

/// Whether `user` (which reads `value`, the end of `op`'s chain so far)
/// also reads the epilogue of ANOTHER tunable op that comes after `op` -- the
/// residual add of two branches (ResNet's downsample blocks). Such an op
/// joins the chain of the later of the two, so that every op belongs to one
/// chain whichever of them the tiling fuses first (once the later op is
/// fused, the earlier one's chain ends at the fused loop nest anyway).
static bool belongsToALaterOp(Operation *op, ArrayRef<Value> chained,
                              Operation *user) {
  for (Value operand : user->getOperands()) {
    if (llvm::is_contained(chained, operand))
      continue;
    Operation *other = findTunableProducer(operand);
    if (!other || other == op)
      continue;
    if (other->getBlock() != op->getBlock() || op->isBeforeInBlock(other))
      return true;
  }
  return false;
}

FailureOr<SmallVector<Operation *>>
mlir::tiletune::findEpilogueChain(Operation *op, std::string *reason) {
  auto fail = [&](const Twine &why) -> FailureOr<SmallVector<Operation *>> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  // An op on buffers has no chain of values to fuse: no epilogue, silently.
  if (!linalgOp || op->getNumResults() != 1 ||
      !linalgOp.hasPureTensorSemantics())
    return fail("");
  if (!linalgOp.getIndexingMapMatchingResult(op->getOpResult(0))
           .isProjectedPermutation())
    return fail("the op writes its result through a non-projection map");
  if (!isa<RankedTensorType>(op->getResult(0).getType()))
    return fail("the op's result is not a ranked tensor");
  SmallVector<Operation *> chain;
  Value value = op->getResult(0);
  while (true) {
    if (value.use_empty())
      break;
    if (!value.hasOneUse()) {
      if (chain.empty())
        return fail("its result has several uses");
      break;
    }
    Operation *user = value.getUses().begin()->getOwner();
    if (chain.empty() && !isa<linalg::LinalgOp>(user))
      return fail(""); // No epilogue at all (e.g. a return).
    std::string why = whyNotElementwiseUser(value, user);
    if (why.empty() && belongsToALaterOp(op, value, user))
      why = "its user also reads the epilogue of a later op, whose chain "
            "it joins";
    if (!why.empty()) {
      if (chain.empty())
        return fail(why);
      break;
    }
    chain.push_back(user);
    value = user->getResult(0);
  }
  if (chain.empty())
    return fail(""); // No user.
  return chain;
}

//===----------------------------------------------------------------------===//
// Elementwise DAGs
//===----------------------------------------------------------------------===//

/// The most ops a merged DAG may take (a GELU written out is about ten).
static constexpr size_t kMaxDAGOps = 32;

/// The elementwise ops that read `root` (a value with several users, the end
/// of `tunable`'s epilogue chain or its result) when they form a DAG that
/// ends in one value: in block order, each reads `root` or values of the
/// ops before it through the identity map (its other operands through
/// projections: broadcasts, constants) and qualifies as a chain op
/// (whyNotElementwiseUser), and every value but the last one's is used by
/// these ops only. Empty when the users of `root` form no such DAG (one of
/// them is a reduction, as a layer norm's mean, or lies in another block).
static SmallVector<Operation *> findElementwiseDAG(Operation *tunable,
                                                   Value root) {
  SmallVector<Operation *> dag;
  SmallVector<Value> values = {root};
  Operation *def = root.getDefiningOp();
  if (!def)
    return {};
  llvm::SmallPtrSet<Operation *, 8> members;
  for (Operation *it = def->getNextNode(); it && dag.size() < kMaxDAGOps;
       it = it->getNextNode()) {
    if (llvm::none_of(it->getOperands(), [&](Value operand) {
          return llvm::is_contained(values, operand);
        }))
      continue;
    if (!whyNotElementwiseUser(values, it).empty() ||
        belongsToALaterOp(tunable, values, it))
      return {};
    dag.push_back(it);
    members.insert(it);
    Value result = it->getResult(0);
    values.push_back(result);
    // The sink: every other value is read by the DAG's ops only.
    bool closed = llvm::all_of(values, [&](Value value) {
      return value == result ||
             llvm::all_of(value.getUsers(),
                          [&](Operation *u) { return members.contains(u); });
    });
    if (closed) {
      // The last op's output becomes the merged op's: not one of the
      // values the merge removes.
      Operation *init = cast<linalg::LinalgOp>(it)
                            .getDpsInitOperand(0)
                            ->get()
                            .getDefiningOp();
      if (dag.size() < 2 || (init && members.contains(init)))
        return {};
      return dag;
    }
  }
  return {};
}

/// Replaces the ops of `dag` (findElementwiseDAG of `root`) by one
/// linalg.generic that reads `root` once and computes their bodies in
/// order, each scalar passed on to the ops that read it.
static Operation *mergeElementwiseDAG(RewriterBase &rewriter, Value root,
                                      ArrayRef<Operation *> dag) {
  auto sink = cast<linalg::LinalgOp>(dag.back());
  OpOperand *sinkInit = sink.getDpsInitOperand(0);
  auto type = cast<RankedTensorType>(root.getType());
  MLIRContext *ctx = rewriter.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  auto isValue = [&](Value value) {
    return value == root || llvm::any_of(dag, [&](Operation *op) {
             return op->getResult(0) == value;
           });
  };
  // The operands of the merged op: root, then every operand a body reads
  // that is no value of the DAG (biases, constants, a used init), in the
  // order the bodies are cloned below; the sink's init stays the output.
  auto isExternal = [&](linalg::LinalgOp op, OpOperand &operand) {
    return !isValue(operand.get()) && &operand != sinkInit &&
           op.payloadUsesValueFromOperand(&operand);
  };
  SmallVector<Value> inputs = {root};
  SmallVector<AffineMap> maps = {identity};
  SmallVector<Location> locs;
  for (Operation *op : dag) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    locs.push_back(op->getLoc());
    for (OpOperand &operand : op->getOpOperands())
      if (isExternal(linalgOp, operand)) {
        inputs.push_back(operand.get());
        maps.push_back(linalgOp.getMatchingIndexingMap(&operand));
      }
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  rewriter.setInsertionPoint(sink);
  auto merged = linalg::GenericOp::create(
      rewriter, FusedLoc::get(ctx, locs), TypeRange{type}, inputs,
      ValueRange{sinkInit->get()}, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        llvm::DenseMap<Value, Value> scalarOf;
        scalarOf[root] = args.front();
        size_t next = 1;
        for (Operation *op : dag) {
          auto linalgOp = cast<linalg::LinalgOp>(op);
          Block *body = linalgOp.getBlock();
          IRMapping mapping;
          for (OpOperand &operand : op->getOpOperands()) {
            BlockArgument arg = body->getArgument(operand.getOperandNumber());
            if (isValue(operand.get()))
              mapping.map(arg, scalarOf.lookup(operand.get()));
            else if (&operand == sinkInit)
              mapping.map(arg, args.back());
            else if (isExternal(linalgOp, operand))
              mapping.map(arg, args[next++]);
          }
          for (Operation &inner : body->without_terminator())
            b.clone(inner, mapping);
          scalarOf[op->getResult(0)] =
              mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
        }
        linalg::YieldOp::create(b, loc, scalarOf.lookup(sink->getResult(0)));
      });
  rewriter.replaceAllUsesWith(sink->getResult(0), merged.getResult(0));
  for (Operation *op : llvm::reverse(dag))
    rewriter.eraseOp(op);
  return merged;
}

unsigned mlir::tiletune::mergeEpilogueDAGs(Operation *root) {
  SmallVector<Operation *> tunables;
  root->walk([&](Operation *op) {
    if (succeeded(matchTunableOp(op)) && isa<linalg::LinalgOp>(op) &&
        cast<linalg::LinalgOp>(op).hasPureTensorSemantics() &&
        op->getNumResults() == 1)
      tunables.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  unsigned merged = 0;
  for (Operation *op : tunables) {
    // A chain may meet several DAGs (a GELU, then a residual's own
    // fan-out): merge them one after the other.
    for (size_t round = 0; round < kMaxDAGOps; ++round) {
      FailureOr<SmallVector<Operation *>> chain =
          findEpilogueChain(op, /*reason=*/nullptr);
      Value end =
          succeeded(chain) ? chain->back()->getResult(0) : op->getResult(0);
      if (end.use_empty() || end.hasOneUse())
        break;
      SmallVector<Operation *> dag = findElementwiseDAG(op, end);
      if (dag.empty())
        break;
      mergeElementwiseDAG(rewriter, end, dag);
      ++merged;
    }
  }
  return merged;
}

std::string mlir::tiletune::describeEpilogueChain(Operation *op,
                                                  ArrayRef<Operation *> chain) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Value chained = op->getResult(0);
  for (auto [index, chainOp] : llvm::enumerate(chain)) {
    auto linalgOp = cast<linalg::LinalgOp>(chainOp);
    if (index)
      os << "+";
    bool first = true;
    for (Operation &bodyOp : linalgOp.getBlock()->without_terminator()) {
      if (isa<arith::ConstantOp>(bodyOp))
        continue;
      os << (first ? "" : ",") << bodyOp.getName().stripDialect();
      first = false;
    }
    if (first)
      os << "copy";
    // Operands other than the chained value that the body reads: which
    // loops they vary over (a bias along the channels is not a residual).
    for (OpOperand &operand : chainOp->getOpOperands()) {
      if (operand.get() == chained ||
          !linalgOp.payloadUsesValueFromOperand(&operand))
        continue;
      AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
      os << "(" << operand.getOperandNumber() << ":";
      llvm::interleave(
          map.getResults(), os,
          [&](AffineExpr e) {
            if (auto dim = dyn_cast<AffineDimExpr>(e))
              os << "d" << dim.getPosition();
            else
              os << "0";
          },
          ",");
      os << ")";
    }
    chained = chainOp->getResult(0);
  }
  return text;
}

//===----------------------------------------------------------------------===//
// The init's producer
//===----------------------------------------------------------------------===//

Operation *mlir::tiletune::getFusableInitProducer(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1)
    return nullptr;
  Operation *producer = linalgOp.getDpsInitOperand(0)->get().getDefiningOp();
  if (!producer || !producer->hasOneUse() ||
      !isa<linalg::FillOp, linalg::BroadcastOp, linalg::GenericOp>(producer) ||
      !cast<linalg::LinalgOp>(producer).hasPureTensorSemantics())
    return nullptr;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (generic && !linalg::isaBroadcastOpInterface(generic) &&
      !linalg::isaFillOpInterface(generic))
    return nullptr;
  return producer;
}

std::optional<double> mlir::tiletune::getSplatInitValue(Operation *producer) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(producer);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1)
    return std::nullopt;
  Value input = linalgOp.getDpsInputOperand(0)->get();
  // A fill's scalar, or a broadcast's splat tensor.
  FloatAttr scalar;
  if (matchPattern(input, m_Constant(&scalar)))
    return scalar.getValueAsDouble();
  DenseFPElementsAttr splat;
  if (matchPattern(input, m_Constant(&splat)) && splat.isSplat())
    return cast<FloatAttr>(splat.getSplatValue<Attribute>()).getValueAsDouble();
  return std::nullopt;
}
