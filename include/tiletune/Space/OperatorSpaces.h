//===- OperatorSpaces.h - Tiling spaces of matmul/conv ops ------*- C++ -*-===//
//
// The search spaces of the papers for the tunable ops, described by a
// ProblemSpec (Support/ProblemSpec.h: op kind, target, named dims with sizes
// and roles) so that the MLIR side can build one without this library
// knowing MLIR:
// - the G-BFS/N-A2C matmul space (M in 4, K in 2, N in 4 factors);
// - the OpEvo GPU spaces (target "cuda", appendix B templates);
// - the CPU spaces of `#tiletune.config<cpu, ...>`;
// - AutoMCL's pfactor thread-grid restriction and ideal-cache-model filter
//   as space transformations;
// and the conversion between a space point and per-dim factor lists +
// option values (what the driver turns into the attribute).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SPACE_OPERATORSPACES_H
#define TILETUNE_SPACE_OPERATORSPACES_H

#include "tiletune/Space/Space.h"
#include "tiletune/Support/CPUDescription.h"
#include "tiletune/Support/ProblemSpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mlir::tiletune {

/// Number of factors of a dim of `role` (= tiling levels + 1, from
/// Support/TilingTemplates.def) on `target` for `opKind`, as in
/// `#tiletune.config` (see docs/Search.md).
unsigned getNumFactors(llvm::StringRef target, OpKind opKind, DimRole role);

/// The CPU dim the `unroll` option steps (the innermost reduction: k for
/// matmuls, c for convolutions).
llvm::StringRef getUnrollDim(OpKind opKind);

/// The CPU dim the register tile is vectorized along: the innermost parallel
/// dim in memory of the output (n for matmuls, f for NHWC, ow for NCHW).
llvm::StringRef getVectorDim(OpKind opKind);

/// Knobs of the operator spaces.
struct SpaceOptions {
  /// CPU: most elements of the register tile (product of the register
  /// sizes of the parallel dims); 0 disables the constraint.
  int64_t maxRegisterTile = 1024;
  /// CPU: the register file a vectorized register tile must fit without
  /// spilling (constraint "register-file", 0 registers disables it):
  /// rows x vectors accumulators plus vectors + 1 operand registers
  /// (CPUDescription::getRegisterTileRegisters), where vectors =
  /// ceil(register tile of the vectorized dim / lanes) and rows is the
  /// product of the other parallel register tiles. Defaults: the process's
  /// CPU target (getDefaultTargetCPU(): the host unless --mcpu/--mattr chose
  /// another).
  int64_t vectorRegisters = getDefaultTargetCPU().vectorRegisters;
  int64_t vectorBytes = getDefaultTargetCPU().vectorBits / 8;
  /// CPU: bytes the operand and result tiles of one cache tile may occupy
  /// (constraint "cache-fit", 0 disables it): the target's L2 of one core.
  int64_t cacheBytes = getDefaultTargetCPU().caches.l2Bytes;
  /// CUDA: most threads per block (product of the thread factors of the
  /// parallel dims); 0 disables the constraint.
  int64_t maxThreadsPerBlock = 1024;
  /// CUDA: whether to add OpEvo's "explicit_unroll" categorical and
  /// "max_unroll" discrete parameters. Default (unset): only for
  /// convolutions, as in OpEvo's appendix B.
  std::optional<bool> cudaUnrollOptions;
};

/// Builds the space of `problem` on its target. Parameters: one
/// factorization per dim (named like the dim), then the options
/// (cpu: order, vectorize, pack, unroll; cuda conv: explicit_unroll,
/// max_unroll). CPU constraints: "unroll-divides-cache-tile",
/// "register-tile-limit", "register-file" (vectorized register tiles that
/// would spill) and "cache-fit" (cache tiles larger than the L2); CUDA:
/// "threads-per-block".
llvm::Expected<Space> buildSpace(const ProblemSpec &problem,
                                 const SpaceOptions &options = {});

/// The G-BFS/N-A2C matmul space: factorizations m (4 factors), k (2) and
/// n (4) of an M x K times K x N product, no options and no constraints.
/// Its default config is the paper's start state [[m,1,1,1],[k,1],[n,1,1,1]].
Space buildPaperMatmulSpace(int64_t m, int64_t k, int64_t n);

//===----------------------------------------------------------------------===//
// AutoMCL transformations (CPU spaces)
//===----------------------------------------------------------------------===//

/// AutoMCL's pfactor initial space: keeps configs whose thread grid (the
/// product of the outermost factors of the batch and parallel dims) uses
/// exactly `numThreads` threads, or, when no split of the dims gives that
/// many, the largest achievable count below it. The inner tiles then range
/// over factors of size / threads as in AutoMCL Algorithm 1. Adds the
/// constraint "pfactor-threads".
llvm::Expected<Space> restrictToThreadGrid(const Space &space,
                                           const ProblemSpec &problem,
                                           int64_t numThreads);

/// The thread count restrictToThreadGrid() requires for `numThreads`.
int64_t getPFactorThreads(const ProblemSpec &problem, int64_t numThreads);

/// Parameters of the ideal cache model, applied at two levels. Defaults: the
/// L1 data cache and the L2 of one core, the line size and the vector width
/// in use of the process's CPU target (getDefaultTargetCPU(): the host
/// unless --mcpu/--mattr chose another).
struct CacheModel {
  /// Size Z in bytes of the cache the innermost tile (register tile of the
  /// parallel dims over the cache tile of the reductions) must fit; 0 skips
  /// the check.
  int64_t innerCacheBytes = getDefaultTargetCPU().caches.l1Bytes;
  /// Size Z in bytes of the cache the cache-level tile must fit.
  int64_t cacheBytes = getDefaultTargetCPU().caches.l2Bytes;
  /// Cache line size C_l in bytes.
  int64_t lineBytes = getDefaultTargetCPU().caches.lineBytes;
  /// Vector length V_l in bytes (64 for AVX-512, 32 for AVX2).
  int64_t vectorBytes = getDefaultTargetCPU().vectorBits / 8;
};

/// Matmul schedule rows of AutoMCL Table 2 that our `pack` option maps to.
enum class MatmulSchedule {
  TMM,  ///< no packing (pack = none)
  LPMM, ///< LHS packed (pack = a)
  RPMM, ///< RHS packed (pack = b)
  DPMM, ///< both packed (pack = ab)
  TTMM, ///< B transposed whole first, then TMM (pack = bt)
  DNMM, ///< vectors along k, partial sums in registers (pack = dn, dnmm332)
};

/// T_m(M_t, K_t, N_t) of AutoMCL Table 2: cache lines touched by one cache
/// tile, with line size `cw` in elements. For TMM and LPMM the term of the
/// unpacked RHS is written for our row-major K x N RHS layout
/// (K_t (ceil(N_t/C_w) + 1) instead of N_t (ceil(K_t/C_w) + 1)).
int64_t getMatmulCacheLines(MatmulSchedule schedule, int64_t mt, int64_t kt,
                            int64_t nt, int64_t cw);

/// T_c(OW_t, IC_t, OC_t) of AutoMCL Table 3 (CONVOpt row) with kernel tile
/// kh x kw, stride `s2` and dilation `d2` along W, line size `cw` elements.
int64_t getConvCacheLines(int64_t owt, int64_t ict, int64_t oct, int64_t kh,
                          int64_t kw, int64_t s2, int64_t d2, int64_t cw);

/// T_c(OW_t, IC_t, OC_t) of AutoMCL Table 3, Im2col-CONV row (a conv with
/// `im2col = true`): the window rows copied into the im2col matrix, the
/// filter panel, the output tile, and T_m of the im2col GEMM's `schedule`
/// on M_t = OW_t, K_t = KH * KW * IC_t, N_t = OC_t.
int64_t getIm2colConvCacheLines(MatmulSchedule schedule, int64_t owt,
                                int64_t ict, int64_t oct, int64_t kh,
                                int64_t kw, int64_t s2, int64_t d2, int64_t cw);

/// AutoMCL's tiling-size filter: keeps configs whose innermost tile fits the
/// inner ideal cache and whose cache tile fits the outer one (T < Z_w / C_w,
/// T from Table 2 or 3; the innermost tile is the register tile of the
/// parallel dims with the cache tile of the reductions, the loops a register
/// tile's accumulation runs over), and whose vectorized register tile is at
/// least min(dim size, V_w) when vectorize is on. Adds the constraints
/// "innermost-tile-fit" (when model.innerCacheBytes > 0), "ideal-cache-fit"
/// and "vector-width".
llvm::Expected<Space> filterByIdealCacheModel(const Space &space,
                                              const ProblemSpec &problem,
                                              const CacheModel &model = {});

//===----------------------------------------------------------------------===//
// Conversion to and from the attribute's view
//===----------------------------------------------------------------------===//

/// An option value of a config, typed as the attribute needs it.
struct OptionValue {
  enum class Kind { Bool, Int, String, NameList };
  /// Which member is meaningful.
  Kind kind = Kind::Int;
  bool boolValue = false;
  int64_t intValue = 0;
  std::string stringValue;
  llvm::SmallVector<std::string> names;

  bool operator==(const OptionValue &o) const {
    return kind == o.kind && boolValue == o.boolValue &&
           intValue == o.intValue && stringValue == o.stringValue &&
           names == o.names;
  }
};

/// The attribute's view of a config: per-dim factor lists (outer to inner,
/// product = dim size) and option values by name.
struct SpacePoint {
  /// Factor lists by dim name.
  std::map<std::string, llvm::SmallVector<int64_t>> factors;
  /// Options by name (order: NameList; vectorize/explicit_unroll: Bool;
  /// pack: String; unroll/max_unroll: Int).
  std::map<std::string, OptionValue> options;
};

/// Splits a config into factor lists (factorization parameters) and option
/// values (the other parameters; categorical "true"/"false" become Bool).
SpacePoint toSpacePoint(const Space &space, const Config &config);

/// Inverse of toSpacePoint: every factorization must be given; options not
/// given take their defaults. Errors name the offending parameter; the
/// result is checked against the space's constraints.
llvm::Expected<Config> fromSpacePoint(const Space &space,
                                      const SpacePoint &point);

} // namespace mlir::tiletune

#endif // TILETUNE_SPACE_OPERATORSPACES_H
