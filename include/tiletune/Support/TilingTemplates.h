//===- TilingTemplates.h - Op kinds, levels and options ---------*- C++ -*-===//
//
// The MLIR-free view of TilingTemplates.def: the op kinds TileTune tiles and
// the roles of their loops, the targets and their tiling levels, the levels
// of each loop dimension, and the schedule options of each target with
// their legal values and defaults. The dialect verifies configs against it,
// the spaces build their parameters from it and the decoders take their
// defaults from it, so a level or an option is added in one place.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_TILINGTEMPLATES_H
#define TILETUNE_SUPPORT_TILINGTEMPLATES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tiletune {

//===----------------------------------------------------------------------===//
// Op kinds and loop roles
//===----------------------------------------------------------------------===//

/// The op families TileTune tiles.
enum class OpKind {
#define TILETUNE_OP_KIND(Enumerator, Name, OpName, IsConv) Enumerator,
#include "tiletune/Support/TilingTemplates.def"
};

/// Short stable name of an op kind ("matmul", "batch_matmul",
/// "conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw").
llvm::StringRef stringifyOpKind(OpKind kind);
/// The op kind called `name`, if any.
std::optional<OpKind> symbolizeOpKind(llvm::StringRef name);
/// Whether `kind` is a 2-D convolution (NHWC or NCHW).
bool isConv(OpKind kind);
/// The name of the op of `kind`, e.g. "linalg.matmul".
llvm::StringRef getOpName(OpKind kind);

/// The form of a matmul-like op kind (TILETUNE_MATMUL_FORM): a leading batch
/// loop, A stored [b?][k][m] (transposed), B stored [b?][n][k] (transposed).
struct MatmulForm {
  bool batched = false;
  bool transposeA = false;
  bool transposeB = false;
};
/// The form of `kind`; std::nullopt for convolutions.
std::optional<MatmulForm> getMatmulForm(OpKind kind);
/// The matmul kind of a form.
OpKind getMatmulKind(MatmulForm form);
/// Whether `kind` has a leading batch loop b (batch_matmul and its
/// transposed forms).
bool isBatchedMatmul(OpKind kind);
/// Whether `kind` is one of the transposed matmul/batch_matmul forms.
bool isTransposedMatmul(OpKind kind);

/// Role of a loop dimension in the tiling templates.
enum class DimRole {
  Batch,     ///< Independent problems (batch_matmul b, conv n).
  Parallel,  ///< Output dims tiled at every level (m, n, f, oh, ow).
  Reduction, ///< Reduction dims (k, c, kh, kw).
};

/// "batch", "parallel" or "reduction".
llvm::StringRef stringifyDimRole(DimRole role);
/// The role called `name`, if any.
std::optional<DimRole> symbolizeDimRole(llvm::StringRef name);

/// One loop of an op kind's template.
struct LoopTemplate {
  /// Name in `#tiletune.config` (m, n, k, b, oh, ow, f, kh, kw, c).
  llvm::StringRef name;
  DimRole role;
};

/// The loops of `kind` in the op's iterator order.
llvm::ArrayRef<LoopTemplate> getLoopTemplates(OpKind kind);

//===----------------------------------------------------------------------===//
// Targets and levels
//===----------------------------------------------------------------------===//

/// Targets a config can be written for.
constexpr llvm::StringLiteral kTargetCPU = "cpu";
constexpr llvm::StringLiteral kTargetCUDA = "cuda";

/// Whether `target` names a known target.
bool isKnownTarget(llvm::StringRef target);
/// "unknown target 'tpu' (expected cpu or cuda)": the one wording of this
/// error, whoever reports it.
std::string describeUnknownTarget(llvm::StringRef target);
/// Success for a known target, else describeUnknownTarget as an error.
llvm::Error checkKnownTarget(llvm::StringRef target);

/// All level names of `target`, outer to inner (empty for an unknown target).
llvm::ArrayRef<llvm::StringRef> getTargetLevels(llvm::StringRef target);

/// Tiling levels a dimension of `role` has on `target` for op `kind`, outer
/// to inner. A dimension with L levels has L+1 factors.
llvm::ArrayRef<llvm::StringRef> getDimLevels(llvm::StringRef target,
                                             OpKind kind, DimRole role);

//===----------------------------------------------------------------------===//
// Schedule options
//===----------------------------------------------------------------------===//

/// How an option's value is written.
enum class OptionKind {
  Order, ///< A permutation of the non-batch loop names.
  Bool,  ///< true or false.
  Enum,  ///< One of the legal names.
  Int,   ///< One of the legal integers.
  Sizes, ///< Loop name -> positive size.
};

/// One schedule option of a target.
struct OptionSpec {
  llvm::StringRef target;
  llvm::StringRef name;
  OptionKind kind;
  /// Legal values of Enum and Int options, "a|b|c".
  llvm::StringRef legal;
  /// The value a config without the option means ("" for Order and Sizes).
  llvm::StringRef defaultValue;
  /// Op kinds the option is meant for, "a|b" ("" for all).
  llvm::StringRef ops;

  /// The legal values of an Enum or Int option, in the written order.
  llvm::SmallVector<llvm::StringRef> getLegalValues() const;
  /// Whether `value` is one of the legal values.
  bool isLegalValue(llvm::StringRef value) const;
  /// The legal values of an Int option as integers.
  llvm::SmallVector<int64_t> getLegalInts() const;
  /// The default of an Int option.
  int64_t getDefaultInt() const;
  /// The default of a Bool option.
  bool getDefaultBool() const;
  /// Whether the option is meant for ops of `kind`.
  bool appliesTo(OpKind kind) const;
};

/// The options of `target` in the order the spaces add them (empty for an
/// unknown target).
llvm::ArrayRef<OptionSpec> getOptionSpecs(llvm::StringRef target);

/// The option `name` of `target`, or null.
const OptionSpec *lookupOptionSpec(llvm::StringRef target,
                                   llvm::StringRef name);

/// The `pack` values that apply to op kind `kind` (the legal values of the
/// cpu option `pack`, in their order): `bt` (AutoMCL's ttmm: B transposed
/// whole first) only where B is stored transposed, [b?][n][k]; `dn`
/// (dnmm332: vectors along k) only where, besides, A is stored [b?][m][k].
llvm::SmallVector<llvm::StringRef> getPackValues(OpKind kind);

/// Whether AutoMCL compute `pack` (a `pack` value) applies to ops of `kind`:
/// a matmul or batch_matmul form whose getPackValues include it.
bool isComputeApplicable(OpKind kind, llvm::StringRef pack);

/// The `pack` value that AutoMCL compute `compute` (a legal value of the cpu
/// option `compute`) stands for: tmm -> none, lpmm -> a, rpmmv -> b,
/// dpmm -> ab, ttmm -> bt, dnmm332 -> dn; nullopt for unknown names.
std::optional<llvm::StringRef> getPackOfCompute(llvm::StringRef compute);

/// The AutoMCL compute that `pack` value `pack` generates (none -> tmm,
/// a -> lpmm, b -> rpmmv, ab -> dpmm, bt -> ttmm, dn -> dnmm332); nullopt
/// for an unknown value.
std::optional<llvm::StringRef> getComputeOfPack(llvm::StringRef pack);

/// A compute of a 2-D conv (the cpu option `compute` on a conv): `direct`,
/// the conv's own loop nest, or im2col_X (paper 001's Im2colRPMMV,
/// Im2colDNMM332, ...): the conv computed as the GEMM of its im2col matrix,
/// with matmul compute X.
struct ConvCompute {
  bool im2col = false;
  /// The `pack` value of X; empty for `direct` (the config's `pack` holds).
  llvm::StringRef pack;
};
/// The conv compute called `compute`; nullopt for other names.
std::optional<ConvCompute> getConvCompute(llvm::StringRef compute);

/// The matmul form of the im2col GEMM of a conv of `kind` (option
/// `im2col`), nullopt where the conv has none (grouped convs, matmuls, an
/// NCHW conv larger than 1x1 in its native layout):
/// - HWCF: matmul (the filter is [KH*KW*C][F]); FHWC: matmul_transpose_b
///   (the filter is [F][KH*KW*C]);
/// - NCHW with `layout = nhwc` (`nhwcLayout`): windows gathered from NCHW
///   in the filter's (c, kh, kw) order, so that the FCHW filter is the
///   [F][C*KH*KW] matrix itself: matmul_transpose_b;
/// - NCHW in its native layout, 1x1 only: one matmul per image,
///   [F][C] x [C][OH*OW] (isPerImageIm2col).
std::optional<OpKind> getIm2colMatmulKind(OpKind kind, bool nhwcLayout = false,
                                          bool oneByOne = false);

/// Whether the im2col GEMM of a conv of `kind` is one matmul per image with
/// the filters as rows and the pixels as columns (a 1x1 NCHW conv in its
/// native layout: m = f, n = oh*ow, k = c), rather than one matmul of all
/// windows (m = n*oh*ow, n = f, k = kh*kw*c).
bool isPerImageIm2col(OpKind kind, bool nhwcLayout);

/// The loop of the im2col GEMM that conv loop `convLoop` becomes part of.
/// Windows form: "m" for n, oh and ow (M = N*OH*OW), "n" for f, "k" for kh,
/// kw and c (K = KH*KW*C). Per-image form (`perImage`): "m" for f, "n" for
/// oh and ow, "k" for c, kh and kw, and "" for n (the loop over images
/// around the GEMM).
llvm::StringRef getIm2colGemmLoop(llvm::StringRef convLoop,
                                  bool perImage = false);

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_TILINGTEMPLATES_H
