//===- KernelInfo.cpp - Kernel signatures and reference problems ----------===//
//
// Reading, recording and recovering kernel signatures, and recognising
// single-op kernels that have a C++ reference.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Dialect/Epilogue.h"
#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Execution/EpilogueReference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Signatures.
//===----------------------------------------------------------------------===//

llvm::Expected<Buffer> MemRefInfo::allocate(size_t pageOffset) const {
  return Buffer::create(elementType, shape, pageOffset);
}

bool MemRefInfo::matches(const Buffer &buffer) const {
  return buffer.getElementType() == elementType &&
         buffer.getShape() == llvm::ArrayRef<int64_t>(shape);
}

std::string MemRefInfo::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "memref<";
  for (int64_t d : shape)
    os << d << 'x';
  os << stringifyElementType(elementType) << '>';
  return s;
}

std::string KernelSignature::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '@' << name << '(';
  llvm::interleaveComma(args, os, [&](const MemRefInfo &m) { os << m.str(); });
  os << ") -> (";
  llvm::interleaveComma(results, os,
                        [&](const MemRefInfo &m) { os << m.str(); });
  os << ')';
  return s;
}

llvm::Expected<llvm::SmallVector<Buffer>>
KernelSignature::allocateArguments() const {
  llvm::SmallVector<Buffer> buffers;
  for (auto [i, arg] : llvm::enumerate(args)) {
    auto buffer = arg.allocate(getStaggeredPageOffset(i));
    if (!buffer)
      return buffer.takeError();
    buffers.push_back(std::move(*buffer));
  }
  return std::move(buffers);
}

/// Converts one argument or result type; `what` names it in errors.
static llvm::Expected<MemRefInfo> convertType(Type type,
                                              const std::string &what) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !(isa<MemRefType>(type) || isa<RankedTensorType>(type))) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << what << " has type " << type
       << "; only ranked memrefs and tensors are supported";
    return llvm::createStringError(s);
  }
  auto typeError = [&](llvm::StringRef why) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << what << " of type " << type << ": " << why;
    return llvm::createStringError(s);
  };
  if (!shaped.hasStaticShape())
    return typeError("dynamic shapes are not supported");
  if (shaped.getRank() > kMaxBufferRank)
    return typeError("rank above 7 is not supported");
  MemRefInfo info;
  Type elt = shaped.getElementType();
  if (elt.isF32())
    info.elementType = ElementType::F32;
  else if (elt.isF64())
    info.elementType = ElementType::F64;
  else
    return typeError("only f32 and f64 elements are supported");
  info.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (memref.getMemorySpace())
      return typeError("non-default memory spaces are not supported");
    if (!memref.getLayout().isIdentity()) {
      // Accept strided layouts whose static parts agree with a contiguous
      // row-major buffer at offset 0 (dynamic parts are taken from the
      // descriptor at run time).
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(memref.getStridesAndOffset(strides, offset)))
        return typeError("non-strided layouts are not supported");
      int64_t expected = 1;
      for (int d = memref.getRank() - 1; d >= 0; --d) {
        if (!ShapedType::isDynamic(strides[d]) && strides[d] != expected &&
            info.shape[d] != 1)
          return typeError("layout is not row-major contiguous");
        expected *= info.shape[d];
      }
      if (!ShapedType::isDynamic(offset) && offset != 0)
        return typeError("layout has a non-zero static offset");
    }
  }
  return info;
}

static llvm::Expected<KernelSignature>
signatureFromTypes(llvm::StringRef name, TypeRange inputs, TypeRange results) {
  KernelSignature sig;
  sig.name = name.str();
  for (auto [i, type] : llvm::enumerate(inputs)) {
    auto info = convertType(
        type, llvm::formatv("argument #{0} of @{1}", i, name).str());
    if (!info)
      return info.takeError();
    sig.args.push_back(std::move(*info));
  }
  for (auto [i, type] : llvm::enumerate(results)) {
    auto info = convertType(
        type, llvm::formatv("result #{0} of @{1}", i, name).str());
    if (!info)
      return info.takeError();
    sig.results.push_back(std::move(*info));
  }
  return sig;
}

llvm::Expected<KernelSignature>
mlir::tiletune::getKernelSignature(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  return signatureFromTypes(func.getSymName(), type.getInputs(),
                            type.getResults());
}

llvm::Expected<KernelSignature>
mlir::tiletune::getKernelSignature(ModuleOp module, llvm::StringRef name) {
  Operation *symbol = module.lookupSymbol(name);
  if (!symbol)
    return llvm::createStringError(
        llvm::formatv("no function named @{0} in the module", name));
  if (auto func = dyn_cast<func::FuncOp>(symbol)) {
    if (func.isExternal())
      return llvm::createStringError(
          llvm::formatv("@{0} is only a declaration", name));
    return getKernelSignature(func);
  }
  if (auto llvmFunc = dyn_cast<LLVM::LLVMFuncOp>(symbol)) {
    auto attr = llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName);
    auto fnType = attr ? dyn_cast<FunctionType>(attr.getValue()) : nullptr;
    if (!fnType)
      return llvm::createStringError(llvm::formatv(
          "llvm.func @{0} has no '{1}' attribute: lower it from a func.func "
          "prepared with prepareForExecution (tiletune-run does this when "
          "given --pipeline), or add the attribute by hand, e.g. {1} = "
          "(memref<4x4xf32>) -> ()",
          name, kSignatureAttrName));
    return signatureFromTypes(name, fnType.getInputs(), fnType.getResults());
  }
  return llvm::createStringError(llvm::formatv(
      "symbol @{0} is a '{1}', not a function", name,
      symbol->getName().getStringRef()));
}

llvm::Error mlir::tiletune::prepareForExecution(ModuleOp module, bool strict) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    auto sig = getKernelSignature(func);
    if (!sig) {
      if (strict)
        return sig.takeError();
      llvm::consumeError(sig.takeError());
      continue;
    }
    func->setAttr(kEmitCInterfaceAttrName, UnitAttr::get(func.getContext()));
    func->setAttr(kSignatureAttrName, TypeAttr::get(func.getFunctionType()));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reference problems.
//===----------------------------------------------------------------------===//

llvm::StringRef ReferenceProblem::getOpName() const {
  return tiletune::getOpName(kind);
}

llvm::Error ReferenceProblem::compute(const Buffer &lhs, const Buffer &rhs,
                                      Buffer &out) const {
  if (std::optional<MatmulForm> form = getMatmulForm(kind))
    return referenceMatmulForm(lhs, rhs, out, form->batched, form->transposeA,
                               form->transposeB);
  switch (kind) {
  case OpKind::ConvNhwcFhwc:
    return referenceConv2DNhwcFhwc(lhs, rhs, out, conv);
  case OpKind::ConvNhwcHwcf:
    return referenceConv2DNhwcHwcf(lhs, rhs, out, conv);
  case OpKind::ConvNchwFchw:
    return referenceConv2DNchwFchw(lhs, rhs, out, conv);
  case OpKind::ConvNgchwFgchw:
    return referenceConv2DNgchwFgchw(lhs, rhs, out, conv);
  case OpKind::ConvNhwgcGfhwc:
    return referenceConv2DNhwgcGfhwc(lhs, rhs, out, conv);
  default:
    break;
  }
  return llvm::createStringError("unknown reference problem");
}

llvm::Error ReferenceProblem::compute(llvm::ArrayRef<Buffer> args,
                                      Buffer &out) const {
  unsigned numArgs = args.size();
  if (lhsArg >= numArgs || rhsArg >= numArgs)
    return llvm::createStringError(
        "the kernel's arguments do not match its op's operands");
  if (!lhsPadLow.empty()) {
    // The zero-padded input, then the op on it.
    const Buffer &source = args[lhsArg];
    if (lhsPadLow.size() != source.getRank() ||
        lhsPadHigh.size() != source.getRank())
      return llvm::createStringError("the input's pads do not match its rank");
    SmallVector<int64_t> shape;
    for (auto [size, low, high] :
         llvm::zip(source.getShape(), lhsPadLow, lhsPadHigh))
      shape.push_back(size + low + high);
    llvm::Expected<Buffer> padded =
        Buffer::create(source.getElementType(), shape);
    if (!padded)
      return padded.takeError();
    padded->fillConstant(0.0);
    for (int64_t i = 0, e = source.getNumElements(); i < e; ++i) {
      SmallVector<int64_t> index = source.delinearize(i);
      int64_t linear = 0;
      for (auto [d, pos] : llvm::enumerate(index))
        linear += (pos + lhsPadLow[d]) * padded->getStrides()[d];
      padded->setFromDouble(linear, source.getAsDouble(i));
    }
    if (initValue)
      out.fillConstant(*initValue);
    if (llvm::Error err = compute(*padded, args[rhsArg], out))
      return err;
  } else {
    if (initValue)
      out.fillConstant(*initValue);
    if (llvm::Error err = compute(args[lhsArg], args[rhsArg], out))
      return err;
  }
  if (epilogue)
    return epilogue->apply(out, args);
  return llvm::Error::success();
}

llvm::Expected<ReferenceProblem>
mlir::tiletune::analyzeSingleOpKernel(func::FuncOp func) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        ("@" + func.getSymName() + " is not a single-op kernel: " + why)
            .str());
  };
  if (func.isExternal())
    return fail("it has no body");
  if (!func.getBody().hasOneBlock())
    return fail("its body has more than one block");
  Block &entry = func.getBody().front();
  linalg::LinalgOp target;
  // A kernel on tensors (tiletune's standalone kernels of tensor ops) reads
  // its arguments through bufferization.to_tensor and writes the result
  // with bufferization.materialize_in_destination.
  auto isTensorBoundary = [](Operation &op) {
    StringRef name = op.getName().getStringRef();
    return name == "bufferization.to_tensor" ||
           name == "bufferization.materialize_in_destination";
  };
  // The tunable op is the first linalg op; the linalg ops after it must be
  // its epilogue chain (Dialect/Epilogue.h), whose reference
  // EpilogueReference computes.
  SmallVector<Operation *> chain;
  // The producer that sets the op's init to a constant (checked with the
  // op's operands below).
  Operation *initProducer = nullptr;
  for (Operation &op : entry) {
    if (isa<func::ReturnOp, arith::ConstantOp>(op) || isTensorBoundary(op) ||
        op.getName().getStringRef() == "tensor.empty")
      continue;
    // A conv's zero-padded input (checked with the op's operands below).
    if (isa<tensor::PadOp>(op) && !target)
      continue;
    if (!target && !initProducer && getSplatInitValue(&op)) {
      initProducer = &op;
      continue;
    }
    if (llvm::is_contained(chain, &op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    std::array<int64_t, 2> unusedStrides, unusedDilations;
    if (target && linalgOp && chain.empty()) {
      FailureOr<SmallVector<Operation *>> found =
          findEpilogueChain(target, /*reason=*/nullptr);
      if (succeeded(found))
        chain = std::move(*found);
      if (llvm::is_contained(chain, &op))
        continue;
    }
    if (!linalgOp ||
        !(isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNgchwFgchwOp, linalg::Conv2DNhwgcGfhwcOp>(op) ||
          matchGenericOpKind(&op, unusedStrides, unusedDilations)))
      return fail("it contains '" + op.getName().getStringRef() +
                  "'; supported: one linalg.matmul, batch_matmul (A and/or "
                  "B may be transposed), conv_2d_nhwc_hwcf, "
                  "conv_2d_nhwc_fhwc, conv_2d_nchw_fchw, conv_2d_ngchw_fgchw "
                  "or conv_2d_nhwgc_gfhwc, or a linalg.generic "
                  "that is one of them");
    if (target)
      return fail("it contains more than one linalg op");
    target = linalgOp;
  }
  if (!target)
    return fail("it contains no linalg op");

  ReferenceProblem problem;
  Operation *op = target.getOperation();
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    // The form (which operands are transposed), from the indexing maps.
    std::string why;
    std::optional<OpKind> kind = matchMatmulOpKind(op, &why);
    if (!kind)
      return fail(op->getName().getStringRef() + " " + why);
    problem.kind = *kind;
  } else if (isa<linalg::GenericOp>(op)) {
    problem.kind = *matchGenericOpKind(op, problem.conv.strides,
                                       problem.conv.dilations);
  } else {
    problem.kind =
        isa<linalg::Conv2DNhwcHwcfOp>(op)     ? OpKind::ConvNhwcHwcf
        : isa<linalg::Conv2DNhwcFhwcOp>(op)   ? OpKind::ConvNhwcFhwc
        : isa<linalg::Conv2DNgchwFgchwOp>(op) ? OpKind::ConvNgchwFgchw
        : isa<linalg::Conv2DNhwgcGfhwcOp>(op) ? OpKind::ConvNhwgcGfhwc
                                              : OpKind::ConvNchwFchw;
    getConvStridesAndDilations(op, problem.conv.strides,
                               problem.conv.dilations);
  }

  if (target.getNumDpsInputs() != 2 || target.getNumDpsInits() != 1)
    return fail("the op must have two inputs and one output");
  auto argIndex = [&](Value v) -> std::optional<unsigned> {
    if (Operation *def = v.getDefiningOp();
        def && def->getName().getStringRef() == "bufferization.to_tensor")
      v = def->getOperand(0);
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &entry)
      return std::nullopt;
    return arg.getArgNumber();
  };
  Value lhsValue = target.getDpsInputOperand(0)->get();
  if (auto pad = lhsValue.getDefiningOp<tensor::PadOp>()) {
    std::optional<ZeroPad> zeroPad = matchZeroPad(pad.getOperation());
    if (!zeroPad || !isConv(problem.kind))
      return fail("a tensor.pad may only be a conv's input, padding with "
                  "+0.0 by static amounts");
    problem.lhsPadLow = zeroPad->low;
    problem.lhsPadHigh = zeroPad->high;
    lhsValue = pad.getSource();
  }
  for (Operation &other : entry)
    if (auto pad = dyn_cast<tensor::PadOp>(other);
        pad && pad.getResult() != target.getDpsInputOperand(0)->get())
      return fail("its tensor.pad is not the conv's input");
  Value initValue = target.getDpsInitOperand(0)->get();
  // With an init set to a constant, the output argument is where the
  // kernel's result is materialized.
  Value result = chain.empty() ? op->getResult(0) : chain.back()->getResult(0);
  std::optional<unsigned> out;
  if (initProducer) {
    if (initValue.getDefiningOp() != initProducer ||
        getFusableInitProducer(op) != initProducer)
      return fail("it contains '" + initProducer->getName().getStringRef() +
                  "' that is not the only user of the op's init");
    problem.initValue = getSplatInitValue(initProducer);
    for (Operation *user : result.getUsers())
      if (user->getName().getStringRef() ==
              "bufferization.materialize_in_destination" &&
          user->getNumOperands() == 2)
        out = argIndex(user->getOperand(1));
    if (!out)
      return fail("a kernel whose init is set to a constant must "
                  "materialize its result into an argument");
  } else {
    out = argIndex(initValue);
  }
  auto lhs = argIndex(lhsValue);
  auto rhs = argIndex(target.getDpsInputOperand(1)->get());
  if (!lhs || !rhs || !out)
    return fail("the op's operands must be function arguments");
  problem.lhsArg = *lhs;
  problem.rhsArg = *rhs;
  problem.outArg = *out;
  if (*out == *lhs || *out == *rhs)
    return fail("the output aliases an input");

  // Element types must all agree (the reference does no conversions).
  Type elt = getElementTypeOrSelf(target.getDpsInitOperand(0)->get());
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v) != elt)
      return fail("operands have different element types");

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  // The op's result written into the output argument (destination-passing
  // kernel on tensors): the kernel returns nothing, the output is the arg.
  // With an epilogue, the kernel's result is the chain's.
  auto materializedIntoOut = [&]() {
    for (Operation *user : result.getUsers())
      if (user->getName().getStringRef() ==
              "bufferization.materialize_in_destination" &&
          user->getNumOperands() == 2 && argIndex(user->getOperand(1)) == *out)
        return true;
    return false;
  };
  if (target.hasPureTensorSemantics() && ret.getNumOperands() == 0 &&
      materializedIntoOut()) {
    // outputIsResult stays false: the result is in the output argument.
  } else if (target.hasPureTensorSemantics()) {
    if (ret.getNumOperands() != 1 || ret.getOperand(0) != result)
      return fail("a tensor kernel must return the op's result (only), or "
                  "materialize it into its output argument");
    problem.outputIsResult = true;
  } else if (target.hasPureBufferSemantics()) {
    if (ret.getNumOperands() != 0)
      return fail("a memref kernel must not return values");
  } else {
    return fail("the op mixes tensors and memrefs");
  }

  // Loop ranges give the FLOPs and the reduction length.
  SmallVector<int64_t> ranges = target.getStaticLoopRanges();
  int64_t reduction = 1;
  for (auto [range, iter] :
       llvm::zip(ranges, target.getIteratorTypesArray())) {
    if (ShapedType::isDynamic(range))
      return fail("dynamic shapes are not supported");
    if (iter == utils::IteratorType::reduction)
      reduction *= range;
  }
  problem.flops = countFlops(ranges);
  if (!problem.lhsPadLow.empty())
    if (FailureOr<TunableOp> tunable = matchTunableOp(op); succeeded(tunable))
      // The taps that read the padding are not counted (Problem::getFlops).
      problem.flops = countConvFlopsInImage(
          problem.kind, problem.flops,
          [&](StringRef name) {
            const LoopDim *dim = tunable->lookup(name);
            return dim ? dim->size : int64_t(0);
          },
          problem.conv.strides, problem.conv.dilations,
          cast<ShapedType>(target.getDpsInputOperand(0)->get().getType())
              .getShape(),
          problem.lhsPadLow, problem.lhsPadHigh);
  problem.reductionLength = reduction;
  if (!chain.empty()) {
    llvm::Expected<EpilogueReference> epilogue =
        EpilogueReference::build(op, chain, argIndex);
    if (!epilogue)
      return fail(llvm::toString(epilogue.takeError()));
    for (unsigned arg : epilogue->getArguments())
      if (arg == problem.outArg)
        return fail("the epilogue reads the output argument");
    problem.epilogue =
        std::make_shared<const EpilogueReference>(std::move(*epilogue));
  }
  return problem;
}
