//===- ProblemSpace.cpp - Spaces of problems and config conversion --------===//
//
// Problem -> space, space point <-> #tiletune.config, database config JSON.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/Padding.h"
#include "tiletune/Support/ProblemSpec.h"
#include "tiletune/Support/TilingTemplates.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tiletune;

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

ProblemSpec mlir::tiletune::toProblemSpec(const Problem &problem,
                                          unsigned threads) {
  ProblemSpec spec = problem;
  if (problem.target != kTargetCPU ||
      !isCPUPaddableOpKind(stringifyOpKind(problem.opKind)))
    return spec;
  // Padded to the lanes of the CPU target, as the default-config heuristic
  // pads (a hand-made problem may say 0 bytes: buildSpace then refuses it).
  const CPUDescription &cpu = getDefaultTargetCPU();
  int64_t elementBytes = std::max<int64_t>(1, spec.elementBytes);
  int64_t lanes = cpu.getLanes(elementBytes);
  int64_t rows = cpu.getRegisterRows(/*vectors=*/2, elementBytes);
  if (isConv(problem.opKind)) {
    ProblemDim *oh = nullptr;
    const ProblemDim *ow = problem.lookup("ow");
    const ProblemDim *n = problem.lookup("n");
    for (ProblemDim &dim : spec.dims)
      if (dim.name == "oh")
        oh = &dim;
    if (oh && ow && n) {
      // Rows padded for the direct conv's two-row tiles, else for the
      // register tiles of the im2col GEMM (the default config's rules).
      int64_t padded =
          getCPUPaddedConvRows(problem.opKind, n->size, oh->size, ow->size,
                               problem.strides, rows, problem.onTensors);
      const ProblemDim *kh = problem.lookup("kh"), *kw = problem.lookup("kw");
      bool pointwise = kh && kw && kh->size == 1 && kw->size == 1 &&
                       problem.strides == std::array<int64_t, 2>{1, 1};
      if (padded == oh->size)
        padded =
            getCPUPaddedIm2colRows(problem.opKind, n->size, oh->size, ow->size,
                                   rows, problem.onTensors, pointwise);
      spec.paddedRows = padded != oh->size;
      oh->size = padded;
    }
    return spec;
  }
  for (ProblemDim &dim : spec.dims)
    if (dim.role != DimRole::Batch)
      dim.size = getCPUPaddedSize(dim.name, dim.size, lanes, rows,
                                  std::max(1u, threads));
  return spec;
}

TunableOp mlir::tiletune::toTunableOp(MLIRContext *ctx,
                                      const Problem &problem) {
  TunableOp op;
  op.kind = problem.opKind;
  op.elementType = problem.elementType == "f64"
                       ? Type(Float64Type::get(ctx))
                       : Type(Float32Type::get(ctx));
  op.onTensors = problem.onTensors;
  for (auto [index, d] : llvm::enumerate(problem.dims))
    op.dims.push_back(LoopDim{d.name, d.size, d.role, unsigned(index)});
  op.strides = problem.strides;
  op.dilations = problem.dilations;
  op.zeroPaddedRows = padsConvInputRows(problem.opKind, problem.inputPadLow,
                                        problem.inputPadHigh);
  return op;
}

llvm::Expected<Space>
mlir::tiletune::buildProblemSpace(const Problem &problem, unsigned threads,
                                  const SpaceOptions &options) {
  llvm::Expected<Space> space =
      buildSpace(toProblemSpec(problem, threads), options);
  if (!space)
    return space.takeError();
  space->setName(problem.target + " " + problem.describe());
  return space;
}

llvm::Expected<TileConfigAttr>
mlir::tiletune::configToAttr(MLIRContext *ctx, const Problem &problem,
                             const Space &space, const Config &config) {
  std::string reason;
  if (!space.isValid(config, &reason))
    return makeError("config " + space.getKey(config) +
                     " is not valid: " + reason);
  return buildConfigAttr(ctx, problem, space, config);
}

llvm::Expected<TileConfigAttr>
mlir::tiletune::buildConfigAttr(MLIRContext *ctx, const Problem &problem,
                                const Space &space, const Config &config) {
  SpacePoint point = toSpacePoint(space, config);
  FactorMap factors;
  for (auto &[name, list] : point.factors)
    factors[name] = list;
  Builder b(ctx);
  SmallVector<NamedAttribute> options;
  for (auto &[name, value] : point.options) {
    Attribute attr;
    switch (value.kind) {
    case OptionValue::Kind::Bool:
      attr = b.getBoolAttr(value.boolValue);
      break;
    case OptionValue::Kind::Int:
      attr = b.getI64IntegerAttr(value.intValue);
      break;
    case OptionValue::Kind::String:
      attr = b.getStringAttr(value.stringValue);
      break;
    case OptionValue::Kind::NameList: {
      SmallVector<Attribute> names;
      for (const std::string &n : value.names)
        names.push_back(b.getStringAttr(n));
      attr = b.getArrayAttr(names);
      break;
    }
    }
    options.push_back(b.getNamedAttr(name, attr));
  }
  TunableOp op = toTunableOp(ctx, problem);
  // buildConfig reports through the context's diagnostic engine; capture the
  // message instead of printing it.
  std::string diagText;
  TileConfigAttr attr;
  {
    ThreadScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      diagText = diag.str();
      return success();
    });
    attr = buildConfig(ctx, problem.target, op, factors, options);
    if (attr) {
      auto emit = [&]() { return emitError(UnknownLoc::get(ctx)); };
      if (failed(verifyConfig(attr, op, emit)))
        attr = {};
    }
  }
  if (!attr)
    return makeError("config " + space.getKey(config) +
                     " is rejected by the dialect" +
                     (diagText.empty() ? "" : ": " + diagText));
  return attr;
}

llvm::Expected<Config> mlir::tiletune::attrToConfig(const Problem &problem,
                                                    const Space &space,
                                                    TileConfigAttr attr) {
  if (!attr)
    return makeError("no config");
  if (attr.getTarget() != problem.target)
    return makeError("config for target '" + attr.getTarget() +
                     "' on a problem for '" + problem.target + "'");
  MLIRContext *ctx = attr.getContext();
  TunableOp op = toTunableOp(ctx, problem);
  std::string diagText;
  {
    ThreadScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      diagText = diag.str();
      return success();
    });
    auto emit = [&]() { return emitError(UnknownLoc::get(ctx)); };
    if (failed(verifyConfig(attr, op, emit)))
      return makeError("config does not fit " + problem.describe() + ": " +
                       diagText);
  }
  SpacePoint point;
  FactorMap factors = getFactors(attr, op);
  for (auto &[name, list] : factors)
    point.factors[name] = list;
  for (NamedAttribute entry : attr.getEntries()) {
    StringRef name = entry.getName().getValue();
    if (TileConfigAttr::isLevelName(problem.target, name))
      continue;
    if (!space.lookup(name))
      continue;
    OptionValue value;
    Attribute a = entry.getValue();
    if (auto b = dyn_cast<BoolAttr>(a)) {
      value.kind = OptionValue::Kind::Bool;
      value.boolValue = b.getValue();
    } else if (auto i = dyn_cast<IntegerAttr>(a)) {
      value.kind = OptionValue::Kind::Int;
      value.intValue = i.getInt();
    } else if (auto s = dyn_cast<StringAttr>(a)) {
      value.kind = OptionValue::Kind::String;
      value.stringValue = s.getValue().str();
    } else if (auto arr = dyn_cast<ArrayAttr>(a)) {
      value.kind = OptionValue::Kind::NameList;
      for (Attribute e : arr)
        if (auto s = dyn_cast<StringAttr>(e))
          value.names.push_back(s.getValue().str());
    } else {
      return makeError("option '" + name + "' has an unsupported value");
    }
    point.options[name.str()] = value;
  }
  // A named AutoMCL compute is the packing the space searches; a conv
  // compute (direct, im2col_X) is also its `im2col`.
  auto setOption = [&](StringRef name, OptionValue value) {
    if (space.lookup(name) && !point.options.count(name.str()))
      point.options[name.str()] = std::move(value);
  };
  auto stringValue = [](StringRef text) {
    OptionValue value;
    value.kind = OptionValue::Kind::String;
    value.stringValue = text.str();
    return value;
  };
  if (auto compute = dyn_cast_or_null<StringAttr>(attr.getOption("compute"))) {
    if (std::optional<StringRef> pack = getPackOfCompute(compute.getValue()))
      setOption("pack", stringValue(*pack));
    if (std::optional<ConvCompute> conv = getConvCompute(compute.getValue())) {
      OptionValue im2col;
      im2col.kind = OptionValue::Kind::Bool;
      im2col.boolValue = conv->im2col;
      setOption("im2col", im2col);
      if (conv->im2col)
        setOption("pack", stringValue(conv->pack));
    }
  }
  return fromSpacePoint(space, point);
}

std::string mlir::tiletune::printAttr(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}
