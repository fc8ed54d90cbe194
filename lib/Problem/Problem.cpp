//===- Problem.cpp - Tuning problems extracted from a module --------------===//
//
// Problem extraction, keys, JSON descriptions, de-duplication and the
// standalone kernel of a problem.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Problem/Problem.h"
#include "tiletune/Dialect/Epilogue.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>

using namespace mlir;
using namespace mlir::tiletune;

/// The shortest text that reads back as `value` ("0", "-1.5", "1e-30").
static std::string formatInitValue(double value) {
  char text[32];
  std::to_chars_result end = std::to_chars(text, text + sizeof(text), value);
  return std::string(text, end.ptr);
}

std::string Problem::getKey() const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << stringifyOpKind(opKind) << "/" << elementType << "/";
  llvm::interleave(
      dims, os, [&](const ProblemDim &d) { os << d.name << "=" << d.size; },
      ",");
  if (isConv(opKind))
    os << "/s=" << strides[0] << "x" << strides[1] << "/d=" << dilations[0]
       << "x" << dilations[1];
  if (!inputPadLow.empty()) {
    os << "/pad=";
    llvm::interleave(inputPadLow, os, ",");
    os << "-";
    llvm::interleave(inputPadHigh, os, ",");
  }
  if (initValue)
    os << "/init=" << formatInitValue(*initValue);
  if (!epilogue.empty())
    os << "/epilogue=" << epilogue;
  return key;
}

double Problem::getFlops() const {
  if (inputPadLow.empty() || operandShapes.empty())
    return ProblemSpec::getFlops();
  return countConvFlopsInImage(
      opKind, ProblemSpec::getFlops(),
      [&](llvm::StringRef name) { return getDimSize(name); }, strides,
      dilations, operandShapes[0], inputPadLow, inputPadHigh);
}

int64_t Problem::getDimSize(llvm::StringRef name) const {
  const ProblemDim *dim = lookup(name);
  return dim ? dim->size : 0;
}

std::string Problem::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << stringifyOpKind(opKind) << " ";
  llvm::interleave(
      dims, os, [&](const ProblemDim &d) { os << d.name << "=" << d.size; },
      ",");
  if (isConv(opKind) && (strides != std::array<int64_t, 2>{1, 1} ||
                       dilations != std::array<int64_t, 2>{1, 1}))
    os << " stride " << strides[0] << "x" << strides[1] << " dilation "
       << dilations[0] << "x" << dilations[1];
  if (!inputPadLow.empty()) {
    os << " padded ";
    llvm::interleave(inputPadLow, os, ",");
    os << "/";
    llvm::interleave(inputPadHigh, os, ",");
  }
  os << " " << elementType;
  if (initValue)
    os << " from " << formatInitValue(*initValue);
  if (!epilogue.empty())
    os << " + " << epilogue;
  return text;
}

llvm::json::Value Problem::toJSON() const {
  llvm::json::Array dimArray;
  for (auto [index, d] : llvm::enumerate(dims))
    dimArray.push_back(llvm::json::Object{{"name", d.name},
                                          {"size", d.size},
                                          {"role", stringifyDimRole(d.role)},
                                          {"loop", int64_t(index)}});
  llvm::json::Array shapes;
  for (const auto &shape : operandShapes) {
    llvm::json::Array s;
    for (int64_t v : shape)
      s.push_back(v);
    shapes.push_back(std::move(s));
  }
  llvm::json::Object object{
      {"op", stringifyOpKind(opKind)},
      {"element_type", elementType},
      {"dims", std::move(dimArray)},
      {"shapes", std::move(shapes)},
      {"strides", llvm::json::Array{strides[0], strides[1]}},
      {"dilations", llvm::json::Array{dilations[0], dilations[1]}},
      {"tensors", onTensors},
      {"target", target},
      {"flops", getFlops()},
  };
  if (!epilogue.empty())
    object["epilogue"] = epilogue;
  if (initValue)
    object["init"] = *initValue;
  if (!inputPadLow.empty())
    object["input_pad"] =
        llvm::json::Object{{"low", llvm::json::Array(inputPadLow)},
                           {"high", llvm::json::Array(inputPadHigh)}};
  return object;
}

llvm::Expected<Problem> Problem::fromJSON(const llvm::json::Value &value) {
  auto bad = [](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bad problem description: " + what);
  };
  const llvm::json::Object *obj = value.getAsObject();
  if (!obj)
    return bad("not an object");
  Problem p;
  std::optional<llvm::StringRef> op = obj->getString("op");
  std::optional<OpKind> kind = op ? symbolizeOpKind(*op) : std::nullopt;
  if (!kind)
    return bad("'op'");
  p.opKind = *kind;
  std::optional<llvm::StringRef> et = obj->getString("element_type");
  if (!et || (*et != "f32" && *et != "f64"))
    return bad("'element_type'");
  p.elementType = et->str();
  p.elementBytes = *et == "f64" ? 8 : 4;
  const llvm::json::Array *dims = obj->getArray("dims");
  if (!dims || dims->empty())
    return bad("'dims'");
  for (const llvm::json::Value &d : *dims) {
    const llvm::json::Object *dObj = d.getAsObject();
    if (!dObj)
      return bad("'dims' entry");
    ProblemDim dim;
    std::optional<llvm::StringRef> name = dObj->getString("name");
    std::optional<int64_t> size = dObj->getInteger("size");
    std::optional<llvm::StringRef> role = dObj->getString("role");
    std::optional<int64_t> loop = dObj->getInteger("loop");
    std::optional<DimRole> r = role ? symbolizeDimRole(*role) : std::nullopt;
    // Dims are listed in loop order; "loop" repeats the position.
    if (!name || !size || *size < 1 || !r || !loop ||
        *loop != int64_t(p.dims.size()))
      return bad("'dims' entry");
    dim.name = name->str();
    dim.size = *size;
    dim.role = *r;
    p.dims.push_back(dim);
  }
  const llvm::json::Array *shapes = obj->getArray("shapes");
  if (!shapes || shapes->size() != 3)
    return bad("'shapes'");
  for (const llvm::json::Value &s : *shapes) {
    const llvm::json::Array *arr = s.getAsArray();
    if (!arr)
      return bad("'shapes' entry");
    llvm::SmallVector<int64_t> shape;
    for (const llvm::json::Value &v : *arr) {
      std::optional<int64_t> i = v.getAsInteger();
      if (!i || *i < 1)
        return bad("'shapes' entry");
      shape.push_back(*i);
    }
    p.operandShapes.push_back(shape);
  }
  auto readPair = [&](llvm::StringRef name,
                      std::array<int64_t, 2> &out) -> bool {
    const llvm::json::Array *arr = obj->getArray(name);
    if (!arr || arr->size() != 2)
      return false;
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<int64_t> v = (*arr)[i].getAsInteger();
      if (!v || *v < 1)
        return false;
      out[i] = *v;
    }
    return true;
  };
  if (!readPair("strides", p.strides))
    return bad("'strides'");
  if (!readPair("dilations", p.dilations))
    return bad("'dilations'");
  std::optional<bool> tensors = obj->getBoolean("tensors");
  if (!tensors)
    return bad("'tensors'");
  p.onTensors = *tensors;
  std::optional<llvm::StringRef> target = obj->getString("target");
  if (!target || !isKnownTarget(*target))
    return bad("'target'");
  p.target = target->str();
  if (const llvm::json::Value *epilogue = obj->get("epilogue")) {
    std::optional<llvm::StringRef> text = epilogue->getAsString();
    if (!text || text->empty())
      return bad("'epilogue'");
    p.epilogue = text->str();
  }
  if (const llvm::json::Value *init = obj->get("init")) {
    // Only a problem with an epilogue has one (extractProblem).
    std::optional<double> value = init->getAsNumber();
    if (!value || !std::isfinite(*value) || p.epilogue.empty())
      return bad("'init'");
    p.initValue = *value;
  }
  if (const llvm::json::Object *pad = obj->getObject("input_pad")) {
    const llvm::json::Array *low = pad->getArray("low");
    const llvm::json::Array *high = pad->getArray("high");
    size_t rank = p.operandShapes[0].size();
    if (!isConv(p.opKind) || !p.onTensors || !low || !high ||
        low->size() != rank || high->size() != rank)
      return bad("'input_pad'");
    for (auto [side, values] :
         {std::pair{low, &p.inputPadLow}, std::pair{high, &p.inputPadHigh}})
      for (const llvm::json::Value &v : *side) {
        std::optional<int64_t> i = v.getAsInteger();
        if (!i || *i < 0)
          return bad("'input_pad'");
        values->push_back(*i);
      }
    for (auto [size, l, h] :
         llvm::zip(p.operandShapes[0], p.inputPadLow, p.inputPadHigh))
      if (size - l - h < 1)
        return bad("'input_pad'");
  }
  return p;
}

FailureOr<Problem> mlir::tiletune::extractProblem(Operation *op,
                                                  StringRef target,
                                                  std::string *reason,
                                                  bool withEpilogue) {
  FailureOr<TunableOp> tunable = matchTunableOp(op, reason);
  if (failed(tunable))
    return failure();
  if (!isKnownTarget(target)) {
    if (reason)
      *reason = describeUnknownTarget(target);
    return failure();
  }
  Problem p;
  p.opKind = tunable->kind;
  p.elementType = tunable->elementType.isF64() ? "f64" : "f32";
  p.elementBytes = tunable->elementType.isF64() ? 8 : 4;
  for (const LoopDim &d : tunable->dims)
    p.dims.push_back(ProblemDim{d.name, d.size, d.role});
  p.onTensors = tunable->onTensors;
  p.target = target.str();
  for (Value operand : op->getOperands()) {
    auto shaped = cast<ShapedType>(operand.getType());
    p.operandShapes.emplace_back(shaped.getShape().begin(),
                                 shaped.getShape().end());
  }
  if (p.operandShapes.size() != 3) {
    if (reason)
      *reason = "expected two inputs and one output";
    return failure();
  }
  p.strides = tunable->strides;
  p.dilations = tunable->dilations;
  if (isConv(p.opKind) && p.onTensors && target == kTargetCPU)
    if (std::optional<ZeroPad> pad =
            matchZeroPad(op->getOperand(0).getDefiningOp())) {
      p.inputPadLow = pad->low;
      p.inputPadHigh = pad->high;
    }
  if (withEpilogue)
    if (FailureOr<SmallVector<Operation *>> chain =
            findEpilogueChain(op, /*reason=*/nullptr);
        succeeded(chain)) {
      p.epilogue = describeEpilogueChain(op, *chain);
      // The init's producer is fused with the op and its epilogue; an
      // output that starts from a constant is part of the problem.
      p.initValue = getSplatInitValue(getFusableInitProducer(op));
    }
  return p;
}

int ProblemSet::find(StringRef key) const {
  for (auto [index, p] : llvm::enumerate(problems))
    if (p.getKey() == key)
      return int(index);
  return -1;
}

/// Whether `op` is one of the op families TileTune tunes (regardless of
/// whether this instance can be tuned).
static bool looksTunable(Operation *op) {
  std::array<int64_t, 2> strides, dilations;
  return isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
             linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp,
             linalg::Conv2DNgchwFgchwOp, linalg::Conv2DNhwgcGfhwcOp>(op) ||
         (isa<linalg::GenericOp>(op) &&
          matchGenericOpKind(op, strides, dilations));
}

FailureOr<ProblemSet> mlir::tiletune::collectProblems(ModuleOp module,
                                                      StringRef target,
                                                      bool allowEmpty,
                                                      bool withEpilogue) {
  if (!isKnownTarget(target)) {
    emitError(module.getLoc()) << describeUnknownTarget(target);
    return failure();
  }
  // The epilogues the lowering fuses: elementwise DAGs after the ops
  // merged as tiletune-tile-cpu merges them, so that keys and kernels match.
  if (withEpilogue && target == kTargetCPU)
    mergeEpilogueDAGs(module);
  ProblemSet set;
  module.walk([&](Operation *op) {
    if (!looksTunable(op) && !isMatmulOrConvLike(op))
      return;
    // An op with an empty loop computes nothing: nothing to tune, and
    // nothing to hold up the other ops for.
    if (std::optional<std::string> why = getEmptyOpReason(op)) {
      op->emitRemark() << "not tuned: " << *why;
      return;
    }
    std::string reason;
    FailureOr<Problem> problem =
        extractProblem(op, target, &reason, withEpilogue);
    if (failed(problem)) {
      // Left as it is (the untiled lowering computes it): said on the op and
      // listed, never silent.
      op->emitRemark() << "not tuned, left untouched: " << reason;
      set.skipped.emplace_back(op, reason);
      return;
    }
    std::string key = problem->getKey();
    int index = set.find(key);
    if (index < 0) {
      set.problems.push_back(*problem);
      set.ops.emplace_back();
      index = int(set.problems.size()) - 1;
    }
    set.ops[index].push_back(op);
  });
  if (set.problems.empty() && !allowEmpty) {
    // At the module's location, not on the module op (whose diagnostic
    // would attach the whole module as a note).
    emitError(module.getLoc())
        << "no tunable op found (supported: linalg.matmul, "
           "linalg.batch_matmul (A and/or B may be transposed by their "
           "indexing_maps), linalg.conv_2d_nhwc_hwcf, "
           "linalg.conv_2d_nhwc_fhwc, linalg.conv_2d_nchw_fchw, "
           "linalg.conv_2d_ngchw_fgchw, linalg.conv_2d_nhwgc_gfhwc with "
           "static shapes)";
    return failure();
  }
  return FailureOr<ProblemSet>(std::move(set));
}

/// "memref<4x8xf32>" / "tensor<4x8xf32>".
static std::string shapedType(StringRef kind, ArrayRef<int64_t> shape,
                              StringRef elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kind << "<";
  for (int64_t s : shape)
    os << s << "x";
  os << elementType << ">";
  return text;
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tiletune::buildKernelModule(MLIRContext *ctx, const Problem &problem) {
  if (problem.operandShapes.size() != 3 || !problem.epilogue.empty())
    return failure();
  std::string m[3], t[3];
  for (unsigned i = 0; i < 3; ++i) {
    m[i] = shapedType("memref", problem.operandShapes[i], problem.elementType);
    t[i] = shapedType("tensor", problem.operandShapes[i], problem.elementType);
  }
  // A padded conv's input: the argument has the unpadded shape, the kernel
  // pads it with zeros (as the model does) and the conv reads the pad.
  bool padded = !problem.inputPadLow.empty();
  if (padded && !problem.onTensors)
    return failure();
  std::string paddedTensor = t[0];
  if (padded) {
    SmallVector<int64_t> source;
    for (auto [size, low, high] :
         llvm::zip(problem.operandShapes[0], problem.inputPadLow,
                   problem.inputPadHigh))
      source.push_back(size - low - high);
    m[0] = shapedType("memref", source, problem.elementType);
    t[0] = shapedType("tensor", source, problem.elementType);
  }
  std::string attrs;
  if (isConv(problem.opKind))
    attrs = llvm::formatv(" {{dilations = dense<[{0}, {1}]> : tensor<2xi64>, "
                          "strides = dense<[{2}, {3}]> : tensor<2xi64>}",
                          problem.dilations[0], problem.dilations[1],
                          problem.strides[0], problem.strides[1])
                .str();
  if (std::optional<MatmulForm> form = getMatmulForm(problem.opKind);
      form && (form->transposeA || form->transposeB)) {
    // (b?, m, n, k): A [b?][m][k] or [b?][k][m], B [b?][k][n] or [b?][n][k].
    std::string dims = form->batched ? "d0, d1, d2, d3" : "d0, d1, d2";
    std::string b = form->batched ? "d0, " : "";
    std::string m = form->batched ? "d1" : "d0", n = form->batched ? "d2" : "d1",
                k = form->batched ? "d3" : "d2";
    auto map = [&](StringRef x, StringRef y) {
      return "affine_map<(" + dims + ") -> (" + b + x.str() + ", " + y.str() +
             ")>";
    };
    attrs = " indexing_maps = [" +
            (form->transposeA ? map(k, m) : map(m, k)) + ", " +
            (form->transposeB ? map(n, k) : map(k, n)) + ", " + map(m, n) +
            "]";
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @" << kKernelFunctionName << "(%lhs: " << m[0]
     << ", %rhs: " << m[1] << ", %out: " << m[2] << ") {\n";
  StringRef opName = getOpName(problem.opKind);
  if (problem.onTensors) {
    os << "  %a" << (padded ? "0" : "")
       << " = bufferization.to_tensor %lhs restrict : " << m[0] << " to "
       << t[0] << "\n";
    if (padded) {
      auto list = [](ArrayRef<int64_t> values) {
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::interleaveComma(values, os);
        return text;
      };
      std::string bbArgs;
      for (size_t i = 0; i < problem.inputPadLow.size(); ++i)
        bbArgs += (i ? ", %i" : "%i") + std::to_string(i) + ": index";
      os << "  %zero = arith.constant 0.0 : " << problem.elementType << "\n";
      os << "  %a = tensor.pad %a0 low[" << list(problem.inputPadLow)
         << "] high[" << list(problem.inputPadHigh) << "] {\n  ^bb0(" << bbArgs
         << "):\n    tensor.yield %zero : " << problem.elementType
         << "\n  } : " << t[0] << " to " << paddedTensor << "\n";
    }
    os << "  %b = bufferization.to_tensor %rhs restrict : " << m[1] << " to "
       << t[1] << "\n";
    os << "  %c = bufferization.to_tensor %out restrict writable : " << m[2]
       << " to " << t[2] << "\n";
    os << "  %r = " << opName << attrs << " ins(%a, %b : " << paddedTensor
       << ", " << t[1] << ") outs(%c : " << t[2] << ") -> " << t[2] << "\n";
    os << "  bufferization.materialize_in_destination %r in restrict "
          "writable %out : ("
       << t[2] << ", " << m[2] << ") -> ()\n";
  } else {
    os << "  " << opName << attrs << " ins(%lhs, %rhs : " << m[0] << ", "
       << m[1] << ") outs(%out : " << m[2] << ")\n";
  }
  os << "  return\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, ctx);
  if (!module)
    return failure();
  if (failed(module->verify()))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::tiletune::buildKernelModule(Operation *op, bool withEpilogue) {
  if (failed(matchTunableOp(op)) || op->getNumOperands() != 3 ||
      op->getNumRegions() != 1 || op->getNumResults() > 1)
    return failure();
  SmallVector<Operation *> chain;
  if (withEpilogue)
    if (FailureOr<SmallVector<Operation *>> found =
            findEpilogueChain(op, /*reason=*/nullptr);
        succeeded(found))
      chain = std::move(*found);
  // The values the chain reads from outside it and the op: constants and
  // tensor.empty are cloned, every other one becomes an argument.
  SmallVector<Value> chainInputs;
  SmallVector<Operation *> chainClones;
  for (Operation *chainOp : chain)
    for (Value operand : chainOp->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def == op || llvm::is_contained(chain, def) ||
          llvm::is_contained(chainInputs, operand) ||
          (def && llvm::is_contained(chainClones, def)))
        continue;
      if (def && def->getNumOperands() == 0 &&
          (def->hasTrait<OpTrait::ConstantLike>() ||
           def->getName().getStringRef() == "tensor.empty")) {
        chainClones.push_back(def);
        continue;
      }
      auto shaped = dyn_cast<RankedTensorType>(operand.getType());
      if (!shaped || !shaped.hasStaticShape())
        return failure();
      chainInputs.push_back(operand);
    }
  // Constants the chain's bodies capture from outside them.
  for (Operation *chainOp : chain)
    chainOp->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && !chainOp->isAncestor(def) &&
            def->hasTrait<OpTrait::ConstantLike>() &&
            !llvm::is_contained(chainClones, def))
          chainClones.push_back(def);
      }
    });
  // An output that starts from a constant (extractProblem records it): the
  // kernel sets it with a clone of the producer, on an empty tensor.
  Operation *initProducer = nullptr;
  if (!chain.empty())
    if (Operation *producer = getFusableInitProducer(op);
        getSplatInitValue(producer))
      initProducer = producer;
  // A conv's zero-padded input (extractProblem records the pad): the
  // kernel pads its argument the same way.
  tensor::PadOp pad;
  if (isConv(matchTunableOp(op)->kind) &&
      matchZeroPad(op->getOperand(0).getDefiningOp()) &&
      linalg::LinalgOp(op).hasPureTensorSemantics())
    pad = op->getOperand(0).getDefiningOp<tensor::PadOp>();
  // Arguments: identity-layout memrefs of the operands' shapes (the pad's
  // source for a padded input).
  SmallVector<Type> argTypes;
  for (Value operand : op->getOperands()) {
    if (pad && operand == pad.getResult())
      operand = pad.getSource();
    auto shaped = dyn_cast<ShapedType>(operand.getType());
    if (!shaped || !shaped.hasStaticShape())
      return failure();
    argTypes.push_back(
        MemRefType::get(shaped.getShape(), shaped.getElementType()));
  }
  for (Value input : chainInputs) {
    auto shaped = cast<ShapedType>(input.getType());
    argTypes.push_back(
        MemRefType::get(shaped.getShape(), shaped.getElementType()));
  }
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, kKernelFunctionName,
                                   b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  // Operands: tensors enter through bufferization.to_tensor (the output
  // writable), memrefs of another layout through memref.cast when an
  // identity-layout buffer can be cast to it; a layout no such buffer has
  // (static strides of a larger buffer) is measured on the contiguous one.
  IRMapping mapping;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    Value arg = entry->getArgument(i);
    Value value = arg;
    if (initProducer && i == 2) {
      // Its only input is a constant (getSplatInitValue).
      auto init = cast<linalg::LinalgOp>(initProducer);
      Value input = init.getDpsInputOperand(0)->get();
      IRMapping initMapping;
      initMapping.map(input, b.clone(*input.getDefiningOp())->getResult(0));
      auto type = cast<RankedTensorType>(operand.getType());
      initMapping.map(init.getDpsInitOperand(0)->get(),
                      tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType()));
      value = b.clone(*initProducer, initMapping)->getResult(0);
    } else if (pad && operand == pad.getResult()) {
      Value source = bufferization::ToTensorOp::create(
          b, loc, pad.getSourceType(), arg, /*restrict=*/true,
          /*writable=*/false);
      IRMapping padMapping;
      padMapping.map(pad.getSource(), source);
      Value zero = pad.getConstantPaddingValue();
      padMapping.map(zero, b.clone(*zero.getDefiningOp())->getResult(0));
      value = b.clone(*pad, padMapping)->getResult(0);
    } else if (isa<RankedTensorType>(operand.getType())) {
      value = bufferization::ToTensorOp::create(
          b, loc, operand.getType(), arg, /*restrict=*/true,
          /*writable=*/i == 2);
    } else if (operand.getType() != arg.getType() &&
               memref::CastOp::areCastCompatible(arg.getType(),
                                                 operand.getType())) {
      value = memref::CastOp::create(b, loc, operand.getType(), arg);
    }
    mapping.map(operand, value);
  }
  for (auto [i, input] : llvm::enumerate(chainInputs))
    mapping.map(input, bufferization::ToTensorOp::create(
                           b, loc, input.getType(), entry->getArgument(3 + i),
                           /*restrict=*/true, /*writable=*/false));
  for (Operation *def : chainClones)
    b.clone(*def, mapping);
  Operation *clone = b.clone(*op, mapping);
  eraseConfig(clone);
  Operation *last = clone;
  for (Operation *chainOp : chain)
    last = b.clone(*chainOp, mapping);
  if (last->getNumResults() == 1)
    bufferization::MaterializeInDestinationOp::create(
        b, loc, TypeRange(), last->getResult(0), entry->getArgument(2),
        /*restrict=*/true, /*writable=*/true);
  func::ReturnOp::create(b, loc);
  if (failed(module->verify()))
    return failure();
  return module;
}

std::string mlir::tiletune::printKernelModule(ModuleOp kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel->print(os);
  return text;
}

Operation *mlir::tiletune::getKernelOp(ModuleOp kernel) {
  Operation *found = nullptr;
  kernel.walk([&](Operation *op) {
    if (!found && looksTunable(op))
      found = op;
  });
  return found;
}
