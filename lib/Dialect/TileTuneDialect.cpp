//===- TileTuneDialect.cpp - The tiletune dialect --------------------------===//
//
// Registration, assembly format and verification of `#tiletune.config`.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/TileTuneDialect.h"
#include "tiletune/Dialect/TileConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletune;

#include "tiletune/Dialect/TileTuneDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tiletune/Dialect/TileTuneAttrs.cpp.inc"

void TileTuneDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tiletune/Dialect/TileTuneAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TileConfigAttr
//===----------------------------------------------------------------------===//

bool TileConfigAttr::isLevelName(StringRef target, StringRef name) {
  return llvm::is_contained(getTargetLevels(target), name);
}

DictionaryAttr TileConfigAttr::getLevel(StringRef level) const {
  if (auto dict = llvm::dyn_cast_or_null<DictionaryAttr>(
          getEntries().get(level)))
    return dict;
  return DictionaryAttr::get(getContext());
}

std::optional<int64_t> TileConfigAttr::getTileSize(StringRef level,
                                                   StringRef dim) const {
  if (auto size = llvm::dyn_cast_or_null<IntegerAttr>(getLevel(level).get(dim)))
    return size.getInt();
  return std::nullopt;
}

Attribute TileConfigAttr::getOption(StringRef name) const {
  if (isLevelName(getTarget(), name))
    return {};
  return getEntries().get(name);
}

int64_t TileConfigAttr::getIntOption(StringRef name,
                                     int64_t defaultValue) const {
  if (auto value = llvm::dyn_cast_or_null<IntegerAttr>(getOption(name)))
    return value.getInt();
  return defaultValue;
}

bool TileConfigAttr::getBoolOption(StringRef name, bool defaultValue) const {
  if (auto value = llvm::dyn_cast_or_null<BoolAttr>(getOption(name)))
    return value.getValue();
  return defaultValue;
}

StringRef TileConfigAttr::getStringOption(StringRef name,
                                          StringRef defaultValue) const {
  if (auto value = llvm::dyn_cast_or_null<StringAttr>(getOption(name)))
    return value.getValue();
  return defaultValue;
}

/// The template of option `name` of `target`; the option must exist and be
/// of `kind`.
static const OptionSpec &getOptionTemplate(StringRef target, StringRef name,
                                           OptionKind kind) {
  const OptionSpec *spec = lookupOptionSpec(target, name);
  assert(spec && spec->kind == kind && "no such option of this kind");
  (void)kind;
  return *spec;
}

int64_t TileConfigAttr::getIntOption(StringRef name) const {
  return getIntOption(
      name,
      getOptionTemplate(getTarget(), name, OptionKind::Int).getDefaultInt());
}

bool TileConfigAttr::getBoolOption(StringRef name) const {
  return getBoolOption(
      name,
      getOptionTemplate(getTarget(), name, OptionKind::Bool).getDefaultBool());
}

StringRef TileConfigAttr::getStringOption(StringRef name) const {
  return getStringOption(
      name,
      getOptionTemplate(getTarget(), name, OptionKind::Enum).defaultValue);
}

SmallVector<StringRef> TileConfigAttr::getOrder() const {
  SmallVector<StringRef> order;
  if (auto array = llvm::dyn_cast_or_null<ArrayAttr>(getOption("order")))
    for (Attribute a : array)
      if (auto s = llvm::dyn_cast<StringAttr>(a))
        order.push_back(s.getValue());
  return order;
}

LogicalResult
TileConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef target, DictionaryAttr entries) {
  if (!isKnownTarget(target))
    return emitError() << "unknown target '" << target
                       << "' (expected 'cpu' or 'cuda')";
  if (!entries)
    return emitError() << "missing entries";
  for (NamedAttribute entry : entries) {
    StringRef name = entry.getName().getValue();
    if (isLevelName(target, name)) {
      auto level = llvm::dyn_cast<DictionaryAttr>(entry.getValue());
      if (!level)
        return emitError() << "level '" << name
                           << "' must map dimension names to tile sizes";
      for (NamedAttribute tile : level) {
        auto size = llvm::dyn_cast<IntegerAttr>(tile.getValue());
        if (!size)
          return emitError() << "tile size of '" << tile.getName().getValue()
                             << "' at level '" << name
                             << "' must be an integer";
        if (size.getInt() < 1)
          return emitError() << "tile size of '" << tile.getName().getValue()
                             << "' at level '" << name
                             << "' must be positive, got " << size.getInt();
      }
      continue;
    }
    const OptionSpec *spec = lookupOptionSpec(target, name);
    if (!spec) {
      InFlightDiagnostic diag = emitError();
      diag << "unknown level or option '" << name << "' for target '"
           << target << "' (levels: ";
      llvm::interleaveComma(getTargetLevels(target), diag);
      diag << "; options: ";
      llvm::interleaveComma(getOptionSpecs(target), diag,
                            [&](const OptionSpec &s) { diag << s.name; });
      return diag << ")";
    }
    Attribute value = entry.getValue();
    switch (spec->kind) {
    case OptionKind::Order: {
      auto array = llvm::dyn_cast<ArrayAttr>(value);
      if (!array || !llvm::all_of(array, llvm::IsaPred<StringAttr>))
        return emitError() << "'order' must be a list of dimension names";
      break;
    }
    case OptionKind::Bool:
      if (!llvm::isa<BoolAttr>(value))
        return emitError() << "'" << name << "' must be true or false";
      break;
    case OptionKind::Enum: {
      auto str = llvm::dyn_cast<StringAttr>(value);
      if (!str || !spec->isLegalValue(str.getValue()))
        return emitError() << "'" << name << "' must be one of "
                           << spec->legal;
      break;
    }
    case OptionKind::Sizes: {
      auto sizes = llvm::dyn_cast<DictionaryAttr>(value);
      if (!sizes)
        return emitError() << "'" << name
                           << "' must map dimension names to sizes";
      for (NamedAttribute size : sizes) {
        auto integer = llvm::dyn_cast<IntegerAttr>(size.getValue());
        if (!integer || integer.getInt() < 1)
          return emitError() << "'" << name << "' size of '"
                             << size.getName().getValue()
                             << "' must be a positive integer";
      }
      break;
    }
    case OptionKind::Int: {
      auto integer = llvm::dyn_cast<IntegerAttr>(value);
      if (!integer || !spec->isLegalValue(std::to_string(integer.getInt())))
        return emitError() << "'" << name << "' must be one of "
                           << spec->legal;
      break;
    }
    }
  }
  return success();
}

/// Parses `{dim = size, ...}`; the opening brace is already consumed.
static ParseResult parseLevel(AsmParser &parser,
                              SmallVectorImpl<NamedAttribute> &tiles) {
  Builder &b = parser.getBuilder();
  if (succeeded(parser.parseOptionalRBrace()))
    return success();
  do {
    std::string dim;
    int64_t size;
    if (parser.parseKeywordOrString(&dim) || parser.parseEqual() ||
        parser.parseInteger(size))
      return failure();
    tiles.push_back(b.getNamedAttr(dim, b.getI64IntegerAttr(size)));
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRBrace();
}

Attribute TileConfigAttr::parse(AsmParser &parser, Type) {
  Builder &b = parser.getBuilder();
  SMLoc loc = parser.getCurrentLocation();
  std::string target;
  if (parser.parseLess() || parser.parseKeywordOrString(&target))
    return {};
  SmallVector<NamedAttribute> entries;
  llvm::SmallSet<std::string, 8> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "duplicate entry '" << key << "'";
      return {};
    }
    Attribute value;
    if (succeeded(parser.parseOptionalLBrace())) {
      SmallVector<NamedAttribute> tiles;
      if (failed(parseLevel(parser, tiles)))
        return {};
      if (DictionaryAttr::findDuplicate(tiles, /*isSorted=*/false)) {
        parser.emitError(keyLoc) << "duplicate dimension in level '" << key
                                 << "'";
        return {};
      }
      value = b.getDictionaryAttr(tiles);
    } else if (succeeded(parser.parseOptionalLSquare())) {
      SmallVector<Attribute> names;
      if (failed(parser.parseOptionalRSquare())) {
        do {
          std::string name;
          if (parser.parseKeywordOrString(&name))
            return {};
          names.push_back(b.getStringAttr(name));
        } while (succeeded(parser.parseOptionalComma()));
        if (parser.parseRSquare())
          return {};
      }
      value = b.getArrayAttr(names);
    } else if (succeeded(parser.parseOptionalKeyword("true"))) {
      value = b.getBoolAttr(true);
    } else if (succeeded(parser.parseOptionalKeyword("false"))) {
      value = b.getBoolAttr(false);
    } else {
      int64_t integer;
      OptionalParseResult intResult = parser.parseOptionalInteger(integer);
      if (intResult.has_value()) {
        if (failed(*intResult))
          return {};
        value = b.getI64IntegerAttr(integer);
      } else {
        std::string word;
        if (parser.parseKeywordOrString(&word))
          return {};
        value = b.getStringAttr(word);
      }
    }
    entries.push_back(b.getNamedAttr(key, value));
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileConfigAttr>(loc, parser.getContext(), target,
                                           b.getDictionaryAttr(entries));
}

static void printValue(AsmPrinter &printer, Attribute value);

/// `{dim = size, ...}` in the dictionary's (sorted) order.
static void printSizes(AsmPrinter &printer, DictionaryAttr sizes) {
  printer << "{";
  llvm::interleaveComma(sizes, printer, [&](NamedAttribute size) {
    printer.printKeywordOrString(size.getName().getValue());
    printer << " = ";
    printValue(printer, size.getValue());
  });
  printer << "}";
}

static void printValue(AsmPrinter &printer, Attribute value) {
  if (auto sizes = llvm::dyn_cast<DictionaryAttr>(value)) {
    printSizes(printer, sizes);
  } else if (auto boolean = llvm::dyn_cast<BoolAttr>(value)) {
    printer << (boolean.getValue() ? "true" : "false");
  } else if (auto integer = llvm::dyn_cast<IntegerAttr>(value)) {
    printer << integer.getInt();
  } else if (auto str = llvm::dyn_cast<StringAttr>(value)) {
    printer.printKeywordOrString(str.getValue());
  } else if (auto array = llvm::dyn_cast<ArrayAttr>(value)) {
    printer << "[";
    llvm::interleaveComma(array, printer,
                          [&](Attribute a) { printValue(printer, a); });
    printer << "]";
  } else {
    printer.printAttribute(value);
  }
}

void TileConfigAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printKeywordOrString(getTarget());
  DictionaryAttr entries = getEntries();
  // Levels first, outer to inner; then options in name order.
  for (StringRef level : getTargetLevels(getTarget())) {
    auto tiles = llvm::dyn_cast_or_null<DictionaryAttr>(entries.get(level));
    if (!tiles)
      continue;
    printer << ", " << level << " = ";
    printSizes(printer, tiles);
  }
  for (NamedAttribute entry : entries) {
    if (isLevelName(getTarget(), entry.getName().getValue()))
      continue;
    printer << ", ";
    printer.printKeywordOrString(entry.getName().getValue());
    printer << " = ";
    printValue(printer, entry.getValue());
  }
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Verification of the discardable attribute on ops
//===----------------------------------------------------------------------===//

LogicalResult TileTuneDialect::verifyOperationAttribute(Operation *op,
                                                        NamedAttribute attr) {
  if (attr.getName() == kPrefetchNextAttrName) {
    auto lineBytes = llvm::dyn_cast<IntegerAttr>(attr.getValue());
    if (!lineBytes || lineBytes.getInt() <= 0)
      return op->emitError() << "'" << kPrefetchNextAttrName
                             << "' must be a positive integer (cache line "
                                "bytes)";
    return success();
  }
  if (attr.getName() == kLayoutCopyInAttrName ||
      attr.getName() == kLayoutCopyOutAttrName) {
    if (!llvm::isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "linalg.transpose")
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute on a "
                                "linalg.transpose";
    return success();
  }
  if (attr.getName() != kConfigAttrName)
    return op->emitError() << "unknown tiletune attribute '"
                           << attr.getName().getValue() << "'";
  auto config = llvm::dyn_cast<TileConfigAttr>(attr.getValue());
  if (!config)
    return op->emitError() << "'" << kConfigAttrName
                           << "' must be a #tiletune.config attribute";
  std::string reason;
  FailureOr<TunableOp> tunable = matchTunableOp(op, &reason);
  if (failed(tunable))
    return op->emitError() << "'" << kConfigAttrName
                           << "' cannot be applied: " << reason;
  return verifyConfig(config, *tunable, [&]() { return op->emitError(); });
}
