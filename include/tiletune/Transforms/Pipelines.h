//===- Pipelines.h - TileTune lowering pipelines ----------------*- C++ -*-===//
//
// The CPU lowering pipeline: config-driven tiling and vectorization,
// bufferization, vector lowering, scf.forall -> OpenMP, and conversion to
// the LLVM dialect. The tuner, the benchmarks and `tiletune-opt` all build
// it through buildCPULoweringPipeline, so what is measured is what users get.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_PIPELINES_H
#define TILETUNE_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <string>

namespace mlir::tiletune {

/// Options of the CPU lowering pipeline.
struct CPULoweringOptions {
  /// Threads of the OpenMP parallel regions made from `scf.forall`
  /// (0: leave it to the OpenMP runtime, i.e. OMP_NUM_THREADS).
  int64_t threads = 0;
  /// Run `tiletune-tile-cpu` first (ops without a config are lowered
  /// untiled either way).
  bool tile = true;
  /// Give tunable ops without a config a default config first.
  bool defaultConfigs = false;
  /// The CPU target the default configs are sized for (LLVM's names; both
  /// empty: the process's default target, see describeTargetCPU).
  std::string mcpu;
  std::string mattr;
  /// Cache sizes "L1,L2[,L3]" instead of the host's (overrideCacheSizes).
  std::string caches;
  /// Add `llvm.emit_c_interface` to every public function so that a JIT can
  /// call the `_mlir_ciface_<name>` wrappers with memref descriptors.
  bool emitCInterface = true;
  /// Fuse elementwise epilogues into the tiled ops (tiletune-tile-cpu's
  /// `fuse-epilogues`; on by default, like the tuner, which measures each op
  /// with its epilogue).
  bool fuseEpilogues = true;
  /// tiletune-tile-cpu's `skip-padding-taps` (on by default, like the
  /// tuner, whose kernel of a padded conv holds the pad).
  bool skipPaddingTaps = true;
  /// Let the producers of padded tensors write into the padded buffers
  /// (`tiletune-pads-in-place`) instead of copying them there.
  bool padsInPlace = true;
  /// Expand f32 exp/tanh/erf/log... into polynomials so that they
  /// vectorize (`tiletune-approximate-math`); off: libm's scalar calls.
  bool approximateMath = true;
  /// Let LLVM vectorize the floating-point sums and products of untiled
  /// reductions (`tiletune-reassociate-reductions`).
  bool reassociateReductions = true;
  /// Move the loop along the operands' contiguous dim of untiled reductions
  /// innermost (`tiletune-interchange-reductions`: pools).
  bool interchangeReductions = true;
};

/// Appends the CPU lowering pipeline to `pm`, a pass manager on
/// `builtin.module`. The input may hold tensors or memrefs at function
/// boundaries; tensor arguments become identity-layout memrefs (results are
/// returned as memrefs).
void buildCPULoweringPipeline(OpPassManager &pm,
                              const CPULoweringOptions &options);

/// Textual options of the `tiletune-lower-cpu` pipeline.
struct CPULoweringPipelineOptions
    : public PassPipelineOptions<CPULoweringPipelineOptions> {
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("OpenMP threads (0: runtime default)"),
                          llvm::cl::init(0)};
  Option<bool> tile{*this, "tile",
                    llvm::cl::desc("Run tiletune-tile-cpu first"),
                    llvm::cl::init(true)};
  Option<bool> defaultConfigs{
      *this, "default-configs",
      llvm::cl::desc("Give ops without a config a default config"),
      llvm::cl::init(false)};
  Option<std::string> mcpu{
      *this, "mcpu",
      llvm::cl::desc("Target CPU the default configs are sized for (LLVM's "
                     "name, e.g. haswell; default: the host)"),
      llvm::cl::init("")};
  Option<std::string> mattr{
      *this, "mattr",
      llvm::cl::desc("Target features on top of the CPU's (LLVM's names, "
                     "e.g. -avx512f)"),
      llvm::cl::init("")};
  Option<std::string> caches{
      *this, "caches",
      llvm::cl::desc("Cache sizes 'L1,L2[,L3]' the default configs are sized "
                     "for (default: the host's)"),
      llvm::cl::init("")};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Fuse the elementwise ops after each tiled op (bias, "
                     "ReLU, residual add, ...) into its loop nest (the tuner "
                     "measures ops with their epilogues)"),
      llvm::cl::init(true)};
  Option<bool> skipPaddingTaps{
      *this, "skip-padding-taps",
      llvm::cl::desc("Skip the filter taps of convs that fall on a zero "
                     "tensor.pad (tiletune-tile-cpu's skip-padding-taps)"),
      llvm::cl::init(true)};
  Option<bool> padsInPlace{
      *this, "pads-in-place",
      llvm::cl::desc("Let the producer of a padded tensor write into the "
                     "padded buffer instead of copying it there "
                     "(tiletune-pads-in-place)"),
      llvm::cl::init(true)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Expand f32 exp, tanh, erf, log, ... into polynomial "
                     "arithmetic that vectorizes (tiletune-approximate-math; "
                     "off: libm's scalar functions, one call per element)"),
      llvm::cl::init(true)};
  Option<bool> reassociateReductions{
      *this, "reassociate-reductions",
      llvm::cl::desc("Let LLVM vectorize the sums and products of untiled "
                     "reductions (softmax, layer norm) by marking their "
                     "accumulation reassoc (tiletune-reassociate-reductions; "
                     "off: summed in order, one element at a time)"),
      llvm::cl::init(true)};
  Option<bool> interchangeReductions{
      *this, "interchange-reductions",
      llvm::cl::desc("Let LLVM vectorize untiled reductions along their "
                     "operands' contiguous dim (pools) by moving that loop "
                     "innermost (tiletune-interchange-reductions; off: the "
                     "window innermost, one channel at a time)"),
      llvm::cl::init(true)};
  Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Add llvm.emit_c_interface to public functions"),
      llvm::cl::init(true)};

  /// The equivalent C++ options.
  CPULoweringOptions toOptions() const;
};

/// Registers the `tiletune-lower-cpu` pass pipeline.
void registerCPULoweringPipeline();

} // namespace mlir::tiletune

#endif // TILETUNE_TRANSFORMS_PIPELINES_H
