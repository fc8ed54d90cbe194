//===- Passes.td - TileTune transformation passes ----------*- tablegen -*-===//
//
// Declares the CPU passes of TileTune: tiling + vectorization driven by
// `tiletune.config`, default configs for untuned ops, and the steps of the
// CPU lowering pipeline that upstream MLIR has no pass for.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TRANSFORMS_PASSES_TD
#define TILETUNE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileTuneTileCPU : Pass<"tiletune-tile-cpu", "func::FuncOp"> {
  let summary = "Tile, pack and vectorize tunable ops by their CPU config";
  let description = [{
    For every tunable op (`linalg.matmul`, `linalg.batch_matmul`,
    `linalg.conv_2d_nhwc_hwcf`, `linalg.conv_2d_nchw_fchw`, static shapes,
    f32/f64/integer elements) that carries a `#tiletune.config<cpu, ...>`:

    1. the `parallel` level (batch and parallel dims) becomes one `scf.forall`
       whose iterations run on all cores after `tiletune-lower-cpu`;
    2. the `cache` level becomes `scf.for` loops in the config's `order`
       (batch dims first, stepping by 1);
    3. `pack` copies the cache tile of the LHS (`a`: A / conv input) and/or
       RHS (`b`: B / conv filter) into a contiguous buffer, placed in the
       innermost cache loop the operand depends on. The B tile of matmul and
       batch_matmul is stored as column panels `[Nc/rn][Kc][rn]`; every other
       packed tile keeps its layout;
    4. the `register` level becomes `scf.for` loops: parallel dims step by
       their register tile, `k`/`c` by `unroll`, `kh`/`kw` by 1; conv tiles
       are split into 1-D convolutions (one per output row, fully unrolled).
       With `skip-padding-taps` (on by default), a conv reading a zero `tensor.pad` (on
       tensors) runs its `kh`/`kw` loops only over the taps where some
       row/column of the register tile reads inside the unpadded image (the
       others multiply zeros); where the taps are cache-level loops, the
       register tiles of rows/columns reading only padding for the tap are
       skipped (under an `scf.if`, the loop's bounds kept);
    5. with `vectorize = true` the register tile becomes vector code
       (`vector.contract` / 1-D conv vectors) and the output tile's transfers
       are hoisted out of the reduction loops (FMA accumulators live in
       registers).

    Example (`order = [n, k, m]`, register tile 8x32):

    ```mlir
    // before
    %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
        parallel = {m = 512, n = 1024}, cache = {m = 64, n = 512, k = 256},
        register = {m = 8, n = 32}>} ins(%A, %B : ...) outs(%C : ...)
    // after (abridged)
    scf.forall (%i) in (2) shared_outs(%c = %C) {
      scf.for %n = 0 to 1024 step 512 {        // cache loops, order n, k, m
        scf.for %k = 0 to 1024 step 256 {
          scf.for %m = 0 to 512 step 64 {
            scf.for %rm = 0 to 64 step 8 {     // register loops
              scf.for %rn = 0 to 512 step 32 {
                %acc = vector.transfer_read ... vector<8x32xf32>
                %r = scf.for %rk = 0 to 256 step 1 iter_args(%a = %acc) {
                  %x = vector.transfer_read ... vector<8x1xf32>
                  %y = vector.transfer_read ... vector<1x32xf32>
                  %z = vector.contract ... %x, %y, %a
                  scf.yield %z
                }
                vector.transfer_write %r, ...
    ```

    With `fuse-epilogues` (on by default; the tuner measures each op with
    its epilogue), the chain of elementwise ops after a tiled op on
    tensors (bias add, ReLU, clamp, residual add, scaling, ...) is fused
    into its `scf.forall` and into the cache loops that come before the
    first reduction loop, then vectorized in rows of the register tile
    (docs/CPUSchedule.md, "Fused epilogues"); a consumer that cannot be
    fused (several uses, a transposed read, a reduction, a layout rewrite)
    stays a separate op, with a remark saying why under `emit-remarks`.

    Ops without a config, or with a config of another target, are left
    untouched. A tunable op without a config always gets a remark (it will
    be lowered to naive loops); with `require-config` it is an error. So
    does a matmul or convolution TileTune cannot tile (dynamic sizes, mixed
    element types, depthwise convolutions, other indexing maps): a remark
    naming the reason. With `emit-remarks`, each function also gets a remark
    counting the ops tiled and left untouched. Unsupported ops carrying a
    config get an error at the op; nothing is mutated before every
    precondition holds. Transposed matmuls (`indexing_maps`),
    `conv_2d_nhwc_fhwc` and `linalg.generic` matmuls/convolutions are tiled
    like the plain ops; the grouped `conv_2d_ngchw_fgchw` and
    `conv_2d_nhwgc_gfhwc` become a loop over groups around the plain conv
    of one group, tiled by the same config (docs/TileConfig.md).

    Every packing copy (`pack`) gets `tiletune.prefetch_next = <cache line
    bytes>`: when it is copied on buffers (here for ops on buffers, after
    bufferization by `tiletune-optimize-cpu-buffers` for ops on tensors),
    each piece first prefetches into L2 the lines the next step of the
    loop that moves the pack will copy (docs/CPUSchedule.md, "Prefetching
    the next pack").
  }];
  let options = [
    Option<"requireConfig", "require-config", "bool", /*default=*/"false",
           "Report an error for a tunable op that has no CPU config">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Fuse the chain of elementwise ops after a tuned op on tensors "
           "(bias add, ReLU, clamp, residual add, scaling, ...) into its "
           "tiled loop nest and vectorize it (docs/CPUSchedule.md; the "
           "tuner measures ops with their epilogues); a consumer that "
           "cannot be fused gets a remark">,
    Option<"skipPaddingTaps", "skip-padding-taps", "bool",
           /*default=*/"true",
           "Bound the register-level kh/kw loops of a conv that reads a "
           "zero tensor.pad to the taps inside the unpadded image, or skip "
           "the register tiles that read only padding for a cache-level tap "
           "(docs/CPUSchedule.md, \"Padding taps\"; the tuner's kernel of "
           "such a conv holds the pad too)">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit a remark for every op that is left untouched and why (a "
           "tunable op without a config and a matmul/conv TileTune cannot "
           "tile get one regardless), and per function the number of ops "
           "tiled and left untouched">,
    Option<"mcpu", "mcpu", "std::string", /*default=*/"",
           "Target CPU, LLVM's name (default: the host): the vector width "
           "of configs with 'pack = dn' (compute dnmm332), whose vectors "
           "run along k, and the cache line of the packs' prefetches">,
    Option<"mattr", "mattr", "std::string", /*default=*/"",
           "Target features on top of the CPU's, LLVM's names">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect", "::mlir::bufferization::BufferizationDialect"
  ];
}

def TileTuneDefaultConfig : Pass<"tiletune-default-config"> {
  let summary = "Give tunable ops without a config a sensible CPU config";
  let description = [{
    Attaches a `#tiletune.config<cpu, ...>` to every tunable op that has no
    `tiletune.config` yet; explicit configs (from a user or the tuner) are
    kept. The heuristic sizes everything for the CPU target
    (`Support/CPUDescription.h`: the host, or `mcpu`/`mattr` in LLVM's
    names): a register tile of up to two vectors of the vector width in use
    by as many rows (at most 12) as fit the vector registers together with
    their operands (rows x vectors accumulators + vectors + 1; AVX-512:
    12 x 32 f32, AVX2: 6 x 16; largest divisors otherwise), cache tiles that
    keep the packed operand tiles inside the target's L1 and L2, loop order
    `n, k, m` for matmuls, and splits the parallel level across `threads`
    (matmuls: the batch, then the longer of M and N; conv: batch, output rows,
    filters, output columns); `threads=0` sizes it for every core of the
    process, which is what `tiletune-lower-cpu` asks for when it runs with
    OpenMP's default thread count. The result always verifies,
    for any static shape (primes and 1 included). The target need not be
    able to run here (only compiled); an unknown CPU or feature name is an
    error. `compute=NAME` sizes the matmul configs for one AutoMCL compute
    instead (e.g. `dnmm332`, whose register tile runs along k), so that
    each compute can be measured at its own default
    (`bench/automcl/collect.py`); on convs `direct` or `im2col_X` (the conv
    as the GEMM of its im2col matrix, with the default tiles of that GEMM
    for compute X).

    ```mlir
    // before
    %0 = linalg.matmul ins(%A, %B : tensor<64x64xf32>, tensor<64x64xf32>) ...
    // after
    %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
        parallel = {m = 64, n = 64}, cache = {k = 64, m = 64, n = 64},
        register = {m = 8, n = 32}, order = [n, k, m], pack = b, ...>} ...
    ```
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "Number of threads the parallel level is split across (0: every "
           "core this process may run on, what an OpenMP run uses by "
           "default)">,
    Option<"overwrite", "overwrite", "bool", /*default=*/"false",
           "Replace existing configs too (default: keep them)">,
    Option<"mcpu", "mcpu", "std::string", /*default=*/"",
           "Target CPU, LLVM's name (e.g. haswell, skylake-avx512; "
           "default: the host)">,
    Option<"mattr", "mattr", "std::string", /*default=*/"",
           "Target features on top of the CPU's, LLVM's names "
           "(e.g. -avx512f,-evex512)">,
    Option<"caches", "caches", "std::string", /*default=*/"",
           "Cache sizes 'L1,L2[,L3]' (e.g. 48K,1M) instead of the host's "
           "(sysfs), so that configs do not depend on the machine">,
    Option<"printTarget", "print-target", "bool", /*default=*/"false",
           "Emit a remark on the module with the target description "
           "(vector width, registers, caches) the configs are sized for">,
    Option<"compute", "compute", "std::string", /*default=*/"",
           "Size the configs for this AutoMCL compute (matmuls: tmm, lpmm, "
           "rpmmv, dpmm, ttmm, dnmm332; convs: direct, im2col_tmm, "
           "im2col_lpmm, im2col_rpmmv, im2col_dpmm, im2col_dnmm332) instead "
           "of the one the heuristic picks; ops it does not apply to keep "
           "their default, with a warning">,
  ];
  let dependentDialects = ["::mlir::tiletune::TileTuneDialect"];
}

def TileTuneOptimizeCPUBuffers : Pass<"tiletune-optimize-cpu-buffers",
                                      "func::FuncOp"> {
  let summary = "Post-bufferization cleanup of tiled CPU code";
  let description = [{
    Runs after bufferization: first folds the layout transposes around the
    output of an NCHW conv computed as NHWC (`tiletune.layout_copy_in`,
    `tiletune.layout_copy_out`) into the conv's own vector transfers, which
    then read and write the NCHW output with permuted maps, where the NHWC
    buffer has no other users (docs/TileConfig.md, "NCHW convolutions as
    NHWC"); then vectorizes the packing, padding and layout
    copies (rows, or 16x16 blocks for transposes) and the fills of strided
    views (the borders `tiletune-pads-in-place` fills, a vector per row); a
    pack that
    `tiletune-tile-cpu` marked with `tiletune.prefetch_next` (the cache line
    in bytes) first prefetches into L2, piece by piece, the lines the next
    iteration of its innermost moving loop will copy (docs/CPUSchedule.md,
    "Prefetching the next pack"). Then it folds memref alias ops into
    vector transfers, hoists loop-invariant code and redundant vector
    transfers (so output tiles stay in registers across reduction loops),
    and moves the static packing buffers (`memref.alloc`/`memref.dealloc`
    pairs) out of `scf.for` loops, up to the enclosing
    `scf.forall`/`scf.parallel` body or function, so each thread allocates
    its packing buffers once.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileTunePadsInPlace : Pass<"tiletune-pads-in-place", "func::FuncOp"> {
  let summary = "Let the producer of a padded tensor write into the padded "
                "buffer";
  let description = [{
    A static `tensor.pad` with a constant padding value copies its source
    into a larger tensor: a whole pass over memory before every padded conv
    and pool (ResNet-50 b8: 8 MB before each 3x3 conv of the 56x56 stage, 26
    MB before the max pool). Where that source is computed into a
    `tensor.empty` (through linalg ops, `scf.for`/`scf.forall` results and
    `tensor.insert_slice`s, each init used once: the tiled loop nests of
    `tiletune-tile-cpu`, fused epilogues included), this pass makes the empty
    the interior of the padded tensor: the producer writes there, only the
    border is filled, and the pad becomes an `tensor.insert_slice` of the
    source into the same place, which bufferizes to no copy. Pads of
    function arguments and of values computed elsewhere are left as they
    are. Runs after `tiletune-tile-cpu` (which reads the pads to skip
    padding taps) and before bufferization; part of `tiletune-lower-cpu`
    (its `pads-in-place` option).

    ```mlir
    // before
    %e = tensor.empty() : tensor<2x16x16x32xf32>
    %r = scf.for ... iter_args(%acc = %e) -> (tensor<2x16x16x32xf32>) {...}
    %p = tensor.pad %r low[0, 0, 0, 0] high[0, 1, 1, 0] {...}
        : tensor<2x16x16x32xf32> to tensor<2x17x17x32xf32>
    // after
    %big = tensor.empty() : tensor<2x17x17x32xf32>
    ... the border filled (rows 16, then columns 16 of rows 0-15) ...
    %e = tensor.extract_slice %filled[0, 0, 0, 0] [2, 16, 16, 32] [1, 1, 1, 1]
    %r = scf.for ... iter_args(%acc = %e) -> (tensor<2x16x16x32xf32>) {...}
    %p = tensor.insert_slice %r into %filled[0, 0, 0, 0] [2, 16, 16, 32] [1, 1, 1, 1]
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TileTuneApproximateMath : Pass<"tiletune-approximate-math",
                                   "func::FuncOp"> {
  let summary = "Expand f32 transcendental math ops into polynomials";
  let description = [{
    Rewrites f32 `math.exp`, `math.expm1`, `math.tanh`, `math.erf`,
    `math.log`, `math.log1p` and `math.log2` (scalar or vector) into the
    range reduction and polynomial arithmetic of upstream MLIR's
    `populateMathPolynomialApproximationPatterns`. Lowered as they are,
    these ops become calls to libm's scalar functions: a loop around one
    is never vectorized by LLVM, and a vector op is split into one call per
    lane. As arithmetic they vectorize (softmax, GELU, sigmoid). Part of
    `tiletune-lower-cpu` (its `approximate-math` option); the results
    differ from libm's by a few units in the last place.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileTuneReassociateReductions
    : Pass<"tiletune-reassociate-reductions", "func::FuncOp"> {
  let summary = "Let LLVM vectorize the floating-point reductions of "
                "untiled linalg ops";
  let description = [{
    On every linalg op with a reduction loop (`linalg.reduce`, or a
    `linalg.generic` left untiled: softmax sums, layer-norm means and
    variances), marks the op that accumulates into each output (an
    `arith.addf` or `arith.mulf` of the output's block argument and one
    other value, whose result is yielded) with the `reassoc` fast-math
    flag. Lowered to loops, such a reduction is a chain of dependent adds
    that LLVM's loop vectorizer may not reorder; with the flag it sums in
    vector lanes. Only the accumulation is reassociated, as the tiled
    matmuls and convolutions already reorder their sums; no other
    arithmetic of the body changes. Part of `tiletune-lower-cpu` (its
    `reassociate-reductions` option).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileTuneInterchangeReductions
    : Pass<"tiletune-interchange-reductions", "func::FuncOp"> {
  let summary = "Move the contiguous loop of untiled reductions innermost "
                "(pools), so that LLVM vectorizes it";
  let description = [{
    On every linalg op on buffers with reduction loops (an op left untiled:
    `linalg.pooling_*`, reductions written as `linalg.generic`) whose one
    output's innermost dim is walked by a parallel loop that has a reduction
    loop inside it, and along which every operand is contiguous (the loop
    indexes only their last dim) or broadcast: generalizes the op and makes
    that loop the innermost one, the others keeping their order. Lowered to
    loops, a max pool then takes the max of each window tap over a row of
    channels, which LLVM's loop vectorizer turns into vector code, instead
    of a scalar chain over the window per channel. Each output still
    reduces its taps in the same order, so the results do not change.
    Reductions along the innermost dim of their input (a softmax's row sums)
    are left alone. Part of `tiletune-lower-cpu` (its
    `interchange-reductions` option).

    ```mlir
    // before: loops (n, oh, ow, c, kh, kw)
    linalg.pooling_nhwc_max {strides = dense<2> : vector<2xi64>, ...}
        ins(%in, %window : memref<8x113x113x64xf32>, memref<3x3xf32>)
        outs(%out : memref<8x56x56x64xf32>)
    // after: a linalg.generic with loops (n, oh, ow, kh, kw, c)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TileTuneMarkUserDeallocations
    : Pass<"tiletune-mark-user-deallocations", "ModuleOp"> {
  let summary = "Leave the buffers a module frees itself to the module";
  let description = [{
    The ownership-based buffer deallocation of `tiletune-lower-cpu` refuses
    ops that free a memref ("memory free side-effect on MemRef value not
    supported!"). This pass marks every such op (`memref.dealloc`,
    `memref.realloc`) and every allocation whose buffer it may free with
    `bufferization.manual_deallocation`: the deallocation pass then keeps
    the module's own frees and frees only the buffers nobody frees
    (bufferization's and packing's). Freed buffers are traced through views,
    casts, `scf.for`, `scf.if`, `arith.select` and, for function arguments,
    the calls in the module; a freed buffer of unknown origin (e.g. a call
    result) is an error.

    ```mlir
    // before
    %t = memref.alloc() : memref<16xf32>
    ...
    memref.dealloc %t : memref<16xf32>
    // after
    %t = memref.alloc() {bufferization.manual_deallocation} : memref<16xf32>
    ...
    memref.dealloc %t {bufferization.manual_deallocation} : memref<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def TileTuneLowerCPUVectors : Pass<"tiletune-lower-cpu-vectors",
                                   "func::FuncOp"> {
  let summary = "Lower vector contractions and transfers to FMA-friendly ops";
  let description = [{
    Lowers `vector.contract` to outer products and then `vector.fma`,
    unrolls n-D transfers to 1-D loads/stores, and lowers transposes,
    broadcasts, shape casts and multi-reductions, so `convert-vector-to-llvm`
    sees only 1-D vector arithmetic. The elements of a short 1-D load that
    are only splatted (a register tile's A row unrolled over k) are then
    loaded one by one, which x86 splats from memory. Deliberately runs no
    canonicalization
    (folding the rebuilt accumulator rows into `vector.from_elements` costs
    4x on matmul).

    ```mlir
    // before
    %r = vector.contract {...} %a, %b, %c
        : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    // after: per row i
    %ai = vector.extract %a[i, 0] : f32 from vector<8x1xf32>
    %bi = vector.broadcast %ai : f32 to vector<32xf32>
    %ri = vector.fma %bi, %b0, %ci : vector<32xf32>
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TileTuneDropReturnedArguments : Pass<"tiletune-drop-returned-arguments",
                                        "ModuleOp"> {
  let summary = "Drop kernel results that return an argument buffer";
  let description = [{
    After function-boundary bufferization a tensor kernel returns the memref
    of its `outs` argument. For public functions without callers in the
    module (kernels called from C or a JIT), this pass removes such results:
    the caller already owns the buffer, and the deallocation pipeline would
    otherwise clone it on every call.

    ```mlir
    // before
    func.func @k(%a: memref<4xf32>, %c: memref<4xf32>) -> memref<4xf32> {
      ...
      return %c : memref<4xf32>
    }
    // after
    func.func @k(%a: memref<4xf32>, %c: memref<4xf32>) {
      ...
      return
    }
    ```
  }];
}

#endif // TILETUNE_TRANSFORMS_PASSES_TD
