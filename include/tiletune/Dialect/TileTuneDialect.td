//===- TileTuneDialect.td - The tiletune dialect ------------*- tablegen -*-===//
//
// The `tiletune` dialect holds the tiling configuration attribute that the
// tiling passes read and the tuner writes.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_TILETUNEDIALECT_TD
#define TILETUNE_DIALECT_TILETUNEDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"

def TileTune_Dialect : Dialect {
  let name = "tiletune";
  let cppNamespace = "::mlir::tiletune";
  let summary = "Parametrized multi-level tiling configurations";
  let description = [{
    The `tiletune` dialect defines `#tiletune.config`, the configuration of the
    multi-level tiling of one structured op. It is attached to an op as the
    discardable attribute `tiletune.config`; the dialect verifies it against
    the op it sits on (dimension names, divisibility of every level, legal
    option values).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

def TileTune_ConfigAttr : AttrDef<TileTune_Dialect, "TileConfig"> {
  let mnemonic = "config";
  let summary = "Multi-level tiling configuration of one op";
  let description = [{
    A target (`cpu` or `cuda`), named tiling levels that give a tile size per
    named loop dimension, and the schedule options of that target:

    ```mlir
    #tiletune.config<cpu, parallel = {m = 512, n = 1024},
                     cache = {m = 48, n = 512, k = 256},
                     register = {m = 8, n = 32}, order = [n, k, m],
                     vectorize = true, pack = none, unroll = 1>
    ```

    Dimension names per op: `linalg.matmul` (m, n, k), `linalg.batch_matmul`
    (b, m, n, k), `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw`
    (n, f, oh, ow, c, kh, kw). Which dimension appears at which level, and the
    options each target accepts, are documented in docs/TileConfig.md; the
    equivalent factor lists of the papers are derived by `getFactors`.
  }];
  let parameters = (ins
    StringRefParameter<"target">:$target,
    "::mlir::DictionaryAttr":$entries
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tile size of `dim` at level `level`, if given.
    std::optional<int64_t> getTileSize(llvm::StringRef level,
                                       llvm::StringRef dim) const;
    /// The tile sizes of one level (empty dictionary if the level is absent).
    ::mlir::DictionaryAttr getLevel(llvm::StringRef level) const;
    /// Whether `name` is a tiling level (as opposed to an option) of `target`.
    static bool isLevelName(llvm::StringRef target, llvm::StringRef name);
    /// The option `name`, or null.
    ::mlir::Attribute getOption(llvm::StringRef name) const;
    int64_t getIntOption(llvm::StringRef name, int64_t defaultValue) const;
    bool getBoolOption(llvm::StringRef name, bool defaultValue) const;
    llvm::StringRef getStringOption(llvm::StringRef name,
                                    llvm::StringRef defaultValue) const;
    /// The option `name` of the config's target, or its default from
    /// Support/TilingTemplates.def when the config does not set it.
    int64_t getIntOption(llvm::StringRef name) const;
    bool getBoolOption(llvm::StringRef name) const;
    llvm::StringRef getStringOption(llvm::StringRef name) const;
    /// The `order` option as dimension names (empty if absent).
    llvm::SmallVector<llvm::StringRef> getOrder() const;
  }];
}

#endif // TILETUNE_DIALECT_TILETUNEDIALECT_TD
