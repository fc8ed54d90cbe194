//===- TilingTemplates.cpp - Op kinds, targets, levels and options --------===//
//
// Tables expanded from TilingTemplates.def and the lookups over them.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/TilingTemplates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>

using namespace llvm;
using namespace mlir::tiletune;

//===----------------------------------------------------------------------===//
// Op kinds and loop roles
//===----------------------------------------------------------------------===//

namespace {
struct OpKindEntry {
  OpKind kind;
  StringRef name;
  StringRef opName;
  bool isConv;
};
} // namespace

static const OpKindEntry kOpKinds[] = {
#define TILETUNE_OP_KIND(Enumerator, Name, OpName, IsConv)                     \
  {OpKind::Enumerator, Name, OpName, IsConv},
#include "tiletune/Support/TilingTemplates.def"
};

static const OpKindEntry &getEntry(OpKind kind) {
  for (const OpKindEntry &entry : kOpKinds)
    if (entry.kind == kind)
      return entry;
  llvm_unreachable("unknown op kind");
}

StringRef mlir::tiletune::stringifyOpKind(OpKind kind) {
  return getEntry(kind).name;
}

std::optional<OpKind> mlir::tiletune::symbolizeOpKind(StringRef name) {
  for (const OpKindEntry &entry : kOpKinds)
    if (entry.name == name)
      return entry.kind;
  return std::nullopt;
}

bool mlir::tiletune::isConv(OpKind kind) { return getEntry(kind).isConv; }

StringRef mlir::tiletune::getOpName(OpKind kind) {
  return getEntry(kind).opName;
}

namespace {
struct MatmulFormEntry {
  OpKind kind;
  MatmulForm form;
};
} // namespace

static const MatmulFormEntry kMatmulForms[] = {
#define TILETUNE_MATMUL_FORM(Kind, Batched, TransposeA, TransposeB)            \
  {OpKind::Kind, {Batched, TransposeA, TransposeB}},
#include "tiletune/Support/TilingTemplates.def"
};

std::optional<MatmulForm> mlir::tiletune::getMatmulForm(OpKind kind) {
  for (const MatmulFormEntry &entry : kMatmulForms)
    if (entry.kind == kind)
      return entry.form;
  return std::nullopt;
}

OpKind mlir::tiletune::getMatmulKind(MatmulForm form) {
  for (const MatmulFormEntry &entry : kMatmulForms)
    if (entry.form.batched == form.batched &&
        entry.form.transposeA == form.transposeA &&
        entry.form.transposeB == form.transposeB)
      return entry.kind;
  llvm_unreachable("every matmul form has a kind");
}

bool mlir::tiletune::isBatchedMatmul(OpKind kind) {
  std::optional<MatmulForm> form = getMatmulForm(kind);
  return form && form->batched;
}

bool mlir::tiletune::isTransposedMatmul(OpKind kind) {
  std::optional<MatmulForm> form = getMatmulForm(kind);
  return form && (form->transposeA || form->transposeB);
}

StringRef mlir::tiletune::stringifyDimRole(DimRole role) {
  switch (role) {
  case DimRole::Batch:
    return "batch";
  case DimRole::Parallel:
    return "parallel";
  case DimRole::Reduction:
    return "reduction";
  }
  llvm_unreachable("unknown dim role");
}

std::optional<DimRole> mlir::tiletune::symbolizeDimRole(StringRef name) {
  for (DimRole role : {DimRole::Batch, DimRole::Parallel, DimRole::Reduction})
    if (stringifyDimRole(role) == name)
      return role;
  return std::nullopt;
}

namespace {
struct LoopEntry {
  OpKind kind;
  LoopTemplate loop;
};
} // namespace

static const LoopEntry kLoops[] = {
#define TILETUNE_LOOP(Kind, Name, Role) {OpKind::Kind, {Name, DimRole::Role}},
#include "tiletune/Support/TilingTemplates.def"
};

ArrayRef<LoopTemplate> mlir::tiletune::getLoopTemplates(OpKind kind) {
  // The loops of one op kind are consecutive in the table; copy them once.
  static const auto perKind = [] {
    std::array<SmallVector<LoopTemplate, 8>, std::size(kOpKinds)> result;
    for (const LoopEntry &entry : kLoops)
      result[static_cast<unsigned>(entry.kind)].push_back(entry.loop);
    return result;
  }();
  return perKind[static_cast<unsigned>(kind)];
}

//===----------------------------------------------------------------------===//
// Targets and levels
//===----------------------------------------------------------------------===//

namespace {
/// Most levels of one target.
constexpr unsigned kMaxLevels = 8;

/// A fixed-capacity list of level names (unused slots are empty).
struct LevelList {
  StringRef names[kMaxLevels];

  ArrayRef<StringRef> get() const {
    unsigned count = 0;
    while (count < kMaxLevels && !names[count].empty())
      ++count;
    return ArrayRef<StringRef>(names, count);
  }
};

struct TargetEntry {
  StringRef name;
  LevelList levels;
};

/// Op kinds a TILETUNE_DIM_LEVELS line applies to.
enum class OpFamily { Any, Matmuls, Convs };

struct DimLevelsEntry {
  StringRef target;
  OpFamily ops;
  DimRole role;
  LevelList levels;
};
} // namespace

static const TargetEntry kTargets[] = {
#define TILETUNE_TARGET(Name, ...) {Name, {{__VA_ARGS__}}},
#include "tiletune/Support/TilingTemplates.def"
};

static const DimLevelsEntry kDimLevels[] = {
#define TILETUNE_DIM_LEVELS(Target, Ops, Role, ...)                            \
  {Target, OpFamily::Ops, DimRole::Role, {{__VA_ARGS__}}},
#include "tiletune/Support/TilingTemplates.def"
};

bool mlir::tiletune::isKnownTarget(StringRef target) {
  return llvm::any_of(
      kTargets, [&](const TargetEntry &entry) { return entry.name == target; });
}

std::string mlir::tiletune::describeUnknownTarget(StringRef target) {
  std::string known;
  for (const TargetEntry &entry : kTargets)
    known += (known.empty() ? "" : " or ") + entry.name.str();
  return ("unknown target '" + target + "' (expected " + known + ")").str();
}

llvm::Error mlir::tiletune::checkKnownTarget(StringRef target) {
  if (isKnownTarget(target))
    return llvm::Error::success();
  return llvm::createStringError(describeUnknownTarget(target));
}

ArrayRef<StringRef> mlir::tiletune::getTargetLevels(StringRef target) {
  for (const TargetEntry &entry : kTargets)
    if (entry.name == target)
      return entry.levels.get();
  return {};
}

static bool isInFamily(OpKind kind, OpFamily family) {
  switch (family) {
  case OpFamily::Any:
    return true;
  case OpFamily::Matmuls:
    return !isConv(kind);
  case OpFamily::Convs:
    return isConv(kind);
  }
  llvm_unreachable("unknown op family");
}

ArrayRef<StringRef> mlir::tiletune::getDimLevels(StringRef target, OpKind kind,
                                                 DimRole role) {
  for (const DimLevelsEntry &entry : kDimLevels)
    if (entry.target == target && entry.role == role &&
        isInFamily(kind, entry.ops))
      return entry.levels.get();
  return {};
}

//===----------------------------------------------------------------------===//
// Schedule options
//===----------------------------------------------------------------------===//

static const OptionSpec kOptions[] = {
#define TILETUNE_OPTION(Target, Name, Kind, Legal, Default, Ops)               \
  {Target, Name, OptionKind::Kind, Legal, Default, Ops},
#include "tiletune/Support/TilingTemplates.def"
};

SmallVector<StringRef> OptionSpec::getLegalValues() const {
  SmallVector<StringRef> values;
  if (!legal.empty())
    legal.split(values, '|');
  return values;
}

bool OptionSpec::isLegalValue(StringRef value) const {
  return llvm::is_contained(getLegalValues(), value);
}

SmallVector<int64_t> OptionSpec::getLegalInts() const {
  SmallVector<int64_t> values;
  for (StringRef value : getLegalValues()) {
    int64_t integer = 0;
    bool invalid = value.getAsInteger(10, integer);
    assert(!invalid && "Int option with a non-integer legal value");
    (void)invalid;
    values.push_back(integer);
  }
  return values;
}

int64_t OptionSpec::getDefaultInt() const {
  assert(kind == OptionKind::Int && "not an Int option");
  int64_t value = 0;
  bool invalid = defaultValue.getAsInteger(10, value);
  assert(!invalid && "Int option with a non-integer default");
  (void)invalid;
  return value;
}

bool OptionSpec::getDefaultBool() const {
  assert(kind == OptionKind::Bool && "not a Bool option");
  return defaultValue == "true";
}

bool OptionSpec::appliesTo(OpKind kind) const {
  if (ops.empty())
    return true;
  SmallVector<StringRef> names;
  ops.split(names, '|');
  return llvm::is_contained(names, stringifyOpKind(kind));
}

ArrayRef<OptionSpec> mlir::tiletune::getOptionSpecs(StringRef target) {
  const OptionSpec *begin = llvm::find_if(
      kOptions, [&](const OptionSpec &spec) { return spec.target == target; });
  const OptionSpec *end =
      std::find_if(begin, std::end(kOptions), [&](const OptionSpec &spec) {
        return spec.target != target;
      });
  return ArrayRef<OptionSpec>(begin, end);
}

const OptionSpec *mlir::tiletune::lookupOptionSpec(StringRef target,
                                                   StringRef name) {
  for (const OptionSpec &spec : getOptionSpecs(target))
    if (spec.name == name)
      return &spec;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// AutoMCL computes
//===----------------------------------------------------------------------===//

namespace {
struct ComputePack {
  StringRef compute;
  StringRef pack;
};
} // namespace

/// The computes of paper 001 (Table 1) that the CPU passes generate, by the
/// operand packing that generates them.
static const ComputePack kComputePacks[] = {
    {"tmm", "none"}, {"lpmm", "a"}, {"rpmmv", "b"}, {"dpmm", "ab"},
    {"ttmm", "bt"}, {"dnmm332", "dn"}};

SmallVector<StringRef> mlir::tiletune::getPackValues(OpKind kind) {
  std::optional<MatmulForm> form = getMatmulForm(kind);
  SmallVector<StringRef> values;
  for (StringRef value : lookupOptionSpec("cpu", "pack")->getLegalValues())
    if ((value != "bt" || (form && form->transposeB)) &&
        (value != "dn" || (form && form->transposeB && !form->transposeA)))
      values.push_back(value);
  return values;
}

bool mlir::tiletune::isComputeApplicable(OpKind kind, StringRef pack) {
  return !isConv(kind) && llvm::is_contained(getPackValues(kind), pack);
}

std::optional<StringRef> mlir::tiletune::getPackOfCompute(StringRef compute) {
  for (const ComputePack &entry : kComputePacks)
    if (entry.compute == compute)
      return entry.pack;
  return std::nullopt;
}

std::optional<StringRef> mlir::tiletune::getComputeOfPack(StringRef pack) {
  for (const ComputePack &entry : kComputePacks)
    if (entry.pack == pack)
      return entry.compute;
  return std::nullopt;
}

std::optional<ConvCompute> mlir::tiletune::getConvCompute(StringRef compute) {
  if (compute == "direct")
    return ConvCompute{};
  if (!compute.consume_front("im2col_"))
    return std::nullopt;
  std::optional<StringRef> pack = getPackOfCompute(compute);
  if (!pack)
    return std::nullopt;
  return ConvCompute{/*im2col=*/true, *pack};
}

std::optional<OpKind> mlir::tiletune::getIm2colMatmulKind(OpKind kind,
                                                          bool nhwcLayout,
                                                          bool oneByOne) {
  switch (kind) {
  case OpKind::ConvNhwcHwcf:
    return OpKind::Matmul;
  case OpKind::ConvNchwFchw:
    if (nhwcLayout)
      return OpKind::MatmulTransposeB;
    if (oneByOne)
      return OpKind::Matmul;
    return std::nullopt;
  case OpKind::ConvNhwcFhwc:
    return OpKind::MatmulTransposeB;
  default:
    return std::nullopt;
  }
}

bool mlir::tiletune::isPerImageIm2col(OpKind kind, bool nhwcLayout) {
  return kind == OpKind::ConvNchwFchw && !nhwcLayout;
}

StringRef mlir::tiletune::getIm2colGemmLoop(StringRef convLoop, bool perImage) {
  if (perImage) {
    if (convLoop == "n")
      return "";
    if (convLoop == "f")
      return "m";
    if (convLoop == "oh" || convLoop == "ow")
      return "n";
    return "k";
  }
  if (convLoop == "n" || convLoop == "oh" || convLoop == "ow")
    return "m";
  if (convLoop == "f")
    return "n";
  return "k";
}
