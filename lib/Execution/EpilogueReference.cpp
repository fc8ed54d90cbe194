//===- EpilogueReference.cpp - Reference of a fused epilogue --------------===//
//
// Builds the step list of an epilogue chain from its linalg ops and
// evaluates it on buffers, element by element.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/EpilogueReference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tiletune;

using Code = EpilogueReference::Instruction::Code;

static std::optional<Code> getCode(StringRef name) {
  return llvm::StringSwitch<std::optional<Code>>(name)
      .Case("arith.constant", Code::Constant)
      .Case("arith.addf", Code::Add)
      .Case("arith.subf", Code::Sub)
      .Case("arith.mulf", Code::Mul)
      .Case("arith.divf", Code::Div)
      .Case("arith.negf", Code::Neg)
      .Case("arith.maximumf", Code::Maximum)
      .Case("arith.minimumf", Code::Minimum)
      .Case("arith.maxnumf", Code::MaxNum)
      .Case("arith.minnumf", Code::MinNum)
      .Case("arith.cmpf", Code::CmpF)
      .Case("arith.select", Code::Select)
      .Case("math.tanh", Code::Tanh)
      .Case("math.exp", Code::Exp)
      .Case("math.absf", Code::Abs)
      .Case("math.sqrt", Code::Sqrt)
      .Case("math.fma", Code::Fma)
      .Default(std::nullopt);
}

/// The scalar value of a constant attribute (float, integer or bool).
static std::optional<double> getScalar(Attribute attr) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return double(i.getValue().getSExtValue());
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue() ? 1.0 : 0.0;
  return std::nullopt;
}

llvm::Expected<EpilogueReference> EpilogueReference::build(
    Operation *op, ArrayRef<Operation *> chain,
    llvm::function_ref<std::optional<unsigned>(Value)> argIndex) {
  auto fail = [](const Twine &why) {
    return llvm::createStringError("cannot compute the reference of the "
                                   "epilogue: " +
                                   why);
  };
  EpilogueReference ref;
  Value chained = op->getResult(0);
  for (Operation *chainOp : chain) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(chainOp);
    if (!linalgOp || chainOp->getNumResults() != 1)
      return fail("'" + chainOp->getName().getStringRef() +
                  "' is not a linalg op with one result");
    Step step;
    for (OpOperand &operand : chainOp->getOpOperands()) {
      Operand entry;
      AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
      for (AffineExpr expr : map.getResults()) {
        // A constant 0 indexes a size-1 dim (a broadcast).
        if (auto zero = dyn_cast<AffineConstantExpr>(expr);
            zero && zero.getValue() == 0) {
          entry.loops.push_back(Operand::kZero);
          continue;
        }
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          return fail("an operand of '" + chainOp->getName().getStringRef() +
                      "' is not indexed by plain loops");
        entry.loops.push_back(dim.getPosition());
      }
      Value value = operand.get();
      auto shaped = cast<ShapedType>(value.getType());
      entry.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
      DenseElementsAttr dense;
      if (value == chained) {
        if (!map.isIdentity())
          return fail("the chained value is read through a permutation");
        entry.kind = Operand::Kind::Chained;
      } else if (matchPattern(value, m_Constant(&dense))) {
        entry.kind = Operand::Kind::Constant;
        if (dense.isSplat()) {
          std::optional<double> v =
              getScalar(dense.getSplatValue<Attribute>());
          if (!v)
            return fail("a constant operand is not a number");
          entry.values.push_back(*v);
        } else {
          for (Attribute element : dense.getValues<Attribute>()) {
            std::optional<double> v = getScalar(element);
            if (!v)
              return fail("a constant operand is not a number");
            entry.values.push_back(*v);
          }
        }
      } else if (value.getDefiningOp() &&
                 value.getDefiningOp()->getName().getStringRef() ==
                     "tensor.empty") {
        entry.kind = Operand::Kind::Undefined;
      } else if (std::optional<unsigned> arg = argIndex(value)) {
        entry.kind = Operand::Kind::Argument;
        entry.argument = *arg;
        if (!llvm::is_contained(ref.arguments, *arg))
          ref.arguments.push_back(*arg);
      } else {
        return fail("an operand of '" + chainOp->getName().getStringRef() +
                    "' is neither the chained value, a constant nor a "
                    "kernel argument");
      }
      step.operands.push_back(std::move(entry));
    }
    // The body: block arguments are slots 0..n-1, then one slot per op.
    Block *block = linalgOp.getBlock();
    llvm::DenseMap<Value, unsigned> slotOf;
    for (BlockArgument arg : block->getArguments())
      slotOf[arg] = arg.getArgNumber();
    unsigned next = block->getNumArguments();
    auto slotFor = [&](Value v) -> std::optional<unsigned> {
      auto it = slotOf.find(v);
      if (it != slotOf.end())
        return it->second;
      // A constant captured from outside the body.
      Attribute attr;
      if (matchPattern(v, m_Constant(&attr)))
        if (std::optional<double> c = getScalar(attr)) {
          Instruction constant;
          constant.constant = *c;
          step.body.push_back(constant);
          slotOf[v] = next;
          return next++;
        }
      return std::nullopt;
    };
    for (Operation &bodyOp : block->without_terminator()) {
      std::optional<Code> code = getCode(bodyOp.getName().getStringRef());
      if (!code || bodyOp.getNumResults() != 1)
        return fail("its body has '" + bodyOp.getName().getStringRef() + "'");
      Instruction instruction;
      instruction.code = *code;
      if (*code == Code::Constant) {
        std::optional<double> c =
            getScalar(cast<arith::ConstantOp>(bodyOp).getValue());
        if (!c)
          return fail("a constant of its body is not a number");
        instruction.constant = *c;
      }
      if (auto cmp = dyn_cast<arith::CmpFOp>(bodyOp))
        instruction.predicate = static_cast<int>(cmp.getPredicate());
      for (Value operand : bodyOp.getOperands()) {
        std::optional<unsigned> slot = slotFor(operand);
        if (!slot)
          return fail("its body reads a value defined outside it");
        instruction.operands.push_back(*slot);
      }
      step.body.push_back(instruction);
      slotOf[bodyOp.getResult(0)] = next++;
    }
    Operation *terminator = block->getTerminator();
    if (terminator->getNumOperands() != 1)
      return fail("its body does not yield one value");
    std::optional<unsigned> yielded = slotFor(terminator->getOperand(0));
    if (!yielded)
      return fail("its body yields a value defined outside it");
    step.yield = *yielded;
    ref.steps.push_back(std::move(step));
    chained = chainOp->getResult(0);
  }
  return std::move(ref);
}

static double compare(int predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  bool result = false;
  switch (static_cast<arith::CmpFPredicate>(predicate)) {
  case arith::CmpFPredicate::AlwaysFalse:
    result = false;
    break;
  case arith::CmpFPredicate::OEQ:
    result = !unordered && a == b;
    break;
  case arith::CmpFPredicate::OGT:
    result = !unordered && a > b;
    break;
  case arith::CmpFPredicate::OGE:
    result = !unordered && a >= b;
    break;
  case arith::CmpFPredicate::OLT:
    result = !unordered && a < b;
    break;
  case arith::CmpFPredicate::OLE:
    result = !unordered && a <= b;
    break;
  case arith::CmpFPredicate::ONE:
    result = !unordered && a != b;
    break;
  case arith::CmpFPredicate::ORD:
    result = !unordered;
    break;
  case arith::CmpFPredicate::UEQ:
    result = unordered || a == b;
    break;
  case arith::CmpFPredicate::UGT:
    result = unordered || a > b;
    break;
  case arith::CmpFPredicate::UGE:
    result = unordered || a >= b;
    break;
  case arith::CmpFPredicate::ULT:
    result = unordered || a < b;
    break;
  case arith::CmpFPredicate::ULE:
    result = unordered || a <= b;
    break;
  case arith::CmpFPredicate::UNE:
    result = unordered || a != b;
    break;
  case arith::CmpFPredicate::UNO:
    result = unordered;
    break;
  case arith::CmpFPredicate::AlwaysTrue:
    result = true;
    break;
  }
  return result ? 1.0 : 0.0;
}

static double evaluate(const EpilogueReference::Instruction &in,
                       llvm::ArrayRef<double> slots) {
  auto x = [&](unsigned i) { return slots[in.operands[i]]; };
  switch (in.code) {
  case Code::Constant:
    return in.constant;
  case Code::Add:
    return x(0) + x(1);
  case Code::Sub:
    return x(0) - x(1);
  case Code::Mul:
    return x(0) * x(1);
  case Code::Div:
    return x(0) / x(1);
  case Code::Neg:
    return -x(0);
  case Code::Maximum:
    return (std::isnan(x(0)) || std::isnan(x(1))) ? NAN
                                                  : std::max(x(0), x(1));
  case Code::Minimum:
    return (std::isnan(x(0)) || std::isnan(x(1))) ? NAN
                                                  : std::min(x(0), x(1));
  case Code::MaxNum:
    return std::fmax(x(0), x(1));
  case Code::MinNum:
    return std::fmin(x(0), x(1));
  case Code::CmpF:
    return compare(in.predicate, x(0), x(1));
  case Code::Select:
    return x(0) != 0.0 ? x(1) : x(2);
  case Code::Tanh:
    return std::tanh(x(0));
  case Code::Exp:
    return std::exp(x(0));
  case Code::Abs:
    return std::fabs(x(0));
  case Code::Sqrt:
    return std::sqrt(x(0));
  case Code::Fma:
    return x(0) * x(1) + x(2);
  }
  return NAN;
}

llvm::Error EpilogueReference::apply(Buffer &value,
                                     llvm::ArrayRef<Buffer> args) const {
  ArrayRef<int64_t> shape = value.getShape();
  size_t rank = shape.size();
  for (const Step &step : steps) {
    // Per operand: row-major strides over its own shape, checked against
    // the kernel argument it reads.
    SmallVector<SmallVector<int64_t>> strides;
    for (const Operand &operand : step.operands) {
      if (operand.kind == Operand::Kind::Argument) {
        if (operand.argument >= args.size() ||
            args[operand.argument].getShape() != ArrayRef(operand.shape))
          return llvm::createStringError(
              "the epilogue's argument #" + llvm::Twine(operand.argument) +
              " does not have the shape the kernel reads");
      }
      if (operand.kind == Operand::Kind::Constant &&
          operand.values.size() != 1) {
        int64_t count = 1;
        for (int64_t s : operand.shape)
          count *= s;
        if (int64_t(operand.values.size()) != count)
          return llvm::createStringError(
              "an epilogue constant has the wrong number of values");
      }
      SmallVector<int64_t> s(operand.shape.size(), 1);
      for (int i = int(s.size()) - 2; i >= 0; --i)
        s[i] = s[i + 1] * operand.shape[i + 1];
      strides.push_back(std::move(s));
      for (unsigned loop : operand.loops)
        if (loop != Operand::kZero && loop >= rank)
          return llvm::createStringError(
              "an epilogue operand is indexed by a loop the output lacks");
    }
    SmallVector<double> slots(step.operands.size() + step.body.size(), 0.0);
    SmallVector<int64_t> index(rank, 0);
    int64_t count = value.getNumElements();
    for (int64_t linear = 0; linear < count; ++linear) {
      for (auto [i, operand] : llvm::enumerate(step.operands)) {
        auto offset = [&, i = i, &operand = operand]() {
          int64_t o = 0;
          for (auto [j, loop] : llvm::enumerate(operand.loops))
            if (loop != Operand::kZero)
              o += index[loop] * strides[i][j];
          return o;
        };
        switch (operand.kind) {
        case Operand::Kind::Chained:
          slots[i] = value.getAsDouble(linear);
          break;
        case Operand::Kind::Argument:
          slots[i] = args[operand.argument].getAsDouble(offset());
          break;
        case Operand::Kind::Constant:
          slots[i] = operand.values.size() == 1 ? operand.values[0]
                                                : operand.values[offset()];
          break;
        case Operand::Kind::Undefined:
          slots[i] = 0.0;
          break;
        }
      }
      unsigned slot = step.operands.size();
      for (const Instruction &in : step.body)
        slots[slot++] = evaluate(in, slots);
      value.setFromDouble(linear, slots[step.yield]);
      for (int d = int(rank) - 1; d >= 0; --d) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
  }
  return llvm::Error::success();
}
