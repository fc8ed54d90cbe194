//===- TileConfig.h - Tunable ops and their tiling configs ------*- C++ -*-===//
//
// The bridge between structured ops and `#tiletune.config`: which ops are
// tunable and their named loop dimensions, the papers' factor-list view of a
// config, verification of a config against an op, and the get/set/erase
// helpers of the `tiletune.config` attribute. Everything that knows the
// attribute's name or layout lives here; the op kinds, levels and options
// themselves are in Support/TilingTemplates.def.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_TILECONFIG_H
#define TILETUNE_DIALECT_TILECONFIG_H

#include "tiletune/Dialect/TileTuneDialect.h"
#include "tiletune/Support/ProblemSpec.h"
#include "tiletune/Support/TilingTemplates.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <map>
#include <optional>
#include <string>

namespace mlir::tiletune {

/// Name of the discardable attribute that carries a config on an op.
constexpr llvm::StringLiteral kConfigAttrName = "tiletune.config";

/// The attribute tiletune-tile-cpu puts on the packing copies it creates, for
/// tiletune-optimize-cpu-buffers, which tiles them after bufferization: each
/// piece prefetches the next cache step's tile (docs/CPUSchedule.md,
/// "Prefetching the next pack"). Its value is the target's cache line in
/// bytes, a positive integer.
constexpr llvm::StringLiteral kPrefetchNextAttrName = "tiletune.prefetch_next";

/// The attributes tiletune-tile-cpu puts on the two transposes around the
/// output of an NCHW conv it computes as NHWC (`layout = nhwc`): the one
/// that copies the NCHW output's initial values into the NHWC buffer
/// (kLayoutCopyInAttrName) and the one that copies the result back
/// (kLayoutCopyOutAttrName). tiletune-optimize-cpu-buffers folds the pair
/// into the conv's own reads and writes of its output where it can
/// (foldLayoutTransposesIntoAccesses): the conv then accumulates in the
/// NCHW buffer, each register tile read and written transposed.
constexpr llvm::StringLiteral kLayoutCopyInAttrName = "tiletune.layout_copy_in";
constexpr llvm::StringLiteral kLayoutCopyOutAttrName =
    "tiletune.layout_copy_out";

/// Largest CPU register tile (product of the register-level sizes of the
/// parallel dimensions): bounds the size of the vectorized micro-kernel.
constexpr int64_t kMaxRegisterTileElements = 1024;

/// Padding a loop may add beyond doubling it: a loop of size S may be
/// padded (`pad`) up to getMaxPaddedSize(S) = S + max(S, kMaxPadIncrease).
/// Enough for every padding that makes tiles divide (one register tile,
/// or up to twice the loop); it bounds the tiled sizes (and, on buffers,
/// the zero-padded operands) to at most 4x the op's own (2x per dimension)
/// and keeps sizes far from overflow.
constexpr int64_t kMaxPadIncrease = 1024;

/// The largest size a loop of `size` may be padded to (saturates at
/// INT64_MAX).
int64_t getMaxPaddedSize(int64_t size);

/// One named loop dimension of a tunable op.
struct LoopDim {
  std::string name;
  int64_t size = 0;
  DimRole role = DimRole::Parallel;
  /// Position of this dimension among the op's loops (iterator order).
  unsigned loopIndex = 0;
};

/// The tunable view of one op: its kind, element type, named loops (in the
/// op's iterator order) and convolution strides and dilations.
struct TunableOp {
  OpKind kind;
  Type elementType;
  bool onTensors = true;
  llvm::SmallVector<LoopDim> dims;
  /// Convolution strides and dilations ({h, w}); {1, 1} for matmuls.
  std::array<int64_t, 2> strides = {1, 1};
  std::array<int64_t, 2> dilations = {1, 1};
  /// A linalg.generic recognised as this kind (its maps and iterators are
  /// the named op's, its body is out + lhs * rhs); the CPU tiling rewrites
  /// it into the named op first (specializeGenericToConfig).
  bool isGeneric = false;
  /// A conv on tensors whose input is a zero `tensor.pad` (matchZeroPad)
  /// that pads its rows: the CPU tiling skips the taps of a register tile's
  /// rows that fall on the padding (skip-padding-taps), so a tile of one
  /// output row skips them at the image's top and bottom rows.
  bool zeroPaddedRows = false;

  const LoopDim *lookup(llvm::StringRef name) const;
  /// FLOPs of one execution (countFlops of the loop sizes).
  double flops() const;
};

/// The strides and dilations ({h, w}) of a 2-D convolution op; {1, 1} for
/// other ops and for absent attributes. The one reader of these attributes
/// (matchTunableOp fills TunableOp's from it).
void getConvStridesAndDilations(Operation *op, std::array<int64_t, 2> &strides,
                                std::array<int64_t, 2> &dilations);

/// Recognises a tunable op. On failure `reason` (if given) says why: an
/// unsupported op, a dynamic shape, an unsupported element type, or a loop
/// of size 0 (an op that computes nothing has nothing to tune; it is left
/// to the untiled lowering, see getEmptyOpReason).
FailureOr<TunableOp> matchTunableOp(Operation *op,
                                    std::string *reason = nullptr);

/// The indexing maps of a matmul form over loops (b?, m, n, k): A, B, C, as
/// `linalg.matmul` / `linalg.batch_matmul` write them in `indexing_maps`.
llvm::SmallVector<AffineMap> getMatmulFormMaps(MLIRContext *ctx,
                                               MatmulForm form);

/// The matmul kind of a linalg.matmul or linalg.batch_matmul from its
/// indexing maps (plain, or with A and/or B transposed); std::nullopt with
/// `reason` (starting with a verb: "has ...") for any other maps or op.
std::optional<OpKind> matchMatmulOpKind(Operation *op,
                                        std::string *reason = nullptr);

/// The kind of a linalg.generic that is a matmul, batch_matmul (plain or
/// transposed) or 2-D convolution: upstream's contraction / convolution
/// inference (isaContractionOpInterface, inferConvolutionDims) must accept
/// it, its loops and indexing maps must be exactly those of the named op of
/// the kind, and its body exactly out + lhs * rhs. Fills the convolution's
/// strides and dilations. std::nullopt with `reason` ("is ...", "does ...")
/// otherwise.
std::optional<OpKind> matchGenericOpKind(Operation *op,
                                         std::array<int64_t, 2> &strides,
                                         std::array<int64_t, 2> &dilations,
                                         std::string *reason = nullptr);

/// Whether `op` is a linalg op of the matmul or convolution families in the
/// wide sense (a contraction or convolution by upstream's interfaces and
/// inference, pooling excluded): the ops whose FLOPs a model's tuning is
/// about. Those of them matchTunableOp refuses are reported as left
/// untouched (with its reason) by the tiling pass and the tuner.
bool isMatmulOrConvLike(Operation *op);

/// The pads of a `tensor.pad` that pads with the constant +0.0 by static
/// amounts around a statically shaped source (a frontend's padded conv
/// input), per dim.
struct ZeroPad {
  SmallVector<int64_t, 4> low, high;
};
/// `op`'s pads if it is such a `tensor.pad`, otherwise nothing.
std::optional<ZeroPad> matchZeroPad(Operation *op);

/// For an op that matchTunableOp refuses only because one of its loops has
/// size 0 (e.g. a matmul of `tensor<0x64xf32>`, a batch or filter count of
/// 0): why it is not tuned. std::nullopt for every other op.
std::optional<std::string> getEmptyOpReason(Operation *op);

/// Why `op` computes nothing (its first loop of size 0), or std::nullopt
/// when every loop has a positive size.
std::optional<std::string> describeEmptyLoops(const TunableOp &op);

/// The size `dim` is tiled at: its entry in the config's `pad` option (CPU
/// matmul and batch_matmul: the op is tiled as if it had that size, its
/// last tile partial, see docs/TileConfig.md), else its size.
int64_t getPaddedSize(TileConfigAttr config, const LoopDim &dim);

/// The papers' view of a config: for each dimension (by name), the ordered
/// factor list whose product is the (padded) dimension size, outer to inner.
using FactorMap = std::map<std::string, llvm::SmallVector<int64_t>>;

/// Factor lists of a verified config.
FactorMap getFactors(TileConfigAttr config, const TunableOp &op);

/// Builds a config from factor lists (each must multiply to its dimension
/// size) plus options (name -> attribute). Returns null on a mismatch. On
/// the CPU, factors of a matmul or batch_matmul loop other than the batch
/// may multiply to more than its size: the config then pads the loop to
/// that product (the `pad` option).
TileConfigAttr buildConfig(MLIRContext *ctx, llvm::StringRef target,
                           const TunableOp &op, const FactorMap &factors,
                           llvm::ArrayRef<NamedAttribute> options = {});

/// Verifies `config` against `op`: known levels and dimensions, every
/// dimension at exactly its levels, each level's tile dividing the enclosing
/// one, legal option values. Reports the first problem through `emitError`.
LogicalResult verifyConfig(TileConfigAttr config, const TunableOp &op,
                           llvm::function_ref<InFlightDiagnostic()> emitError);

/// The `pack` value a CPU config computes with: the one its `compute` names
/// (tmm -> none, ..., ttmm -> bt, dnmm332 -> dn; getPackOfCompute; on a
/// conv im2col_X -> the pack of X) when it names one, else its `pack`
/// (default none). verifyConfig checks that the two agree when both are
/// given.
llvm::StringRef getCPUPack(TileConfigAttr config);

/// Whether a CPU config computes its conv as an im2col GEMM: `im2col =
/// true` or `compute = im2col_X` (verifyConfig checks that they agree).
bool usesIm2col(TileConfigAttr config);

/// The config attached to `op`, or null.
TileConfigAttr getConfig(Operation *op);
void setConfig(Operation *op, TileConfigAttr config);
void eraseConfig(Operation *op);

/// Calls `fn` for every tunable op under `root` (walk order) that has no
/// config, or for all of them with `overwrite` (the default-config passes).
/// Ops that would be tunable but for a loop of size 0 (getEmptyOpReason) get
/// a remark "<passName>: left without a config: <why>" instead.
void forEachOpToConfigure(
    Operation *root, bool overwrite, llvm::StringRef passName,
    llvm::function_ref<void(Operation *, const TunableOp &)> fn);

} // namespace mlir::tiletune

#endif // TILETUNE_DIALECT_TILECONFIG_H
