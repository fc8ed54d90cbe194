// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="fuse-epilogues=1" | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="fuse-epilogues=1 emit-remarks=1" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="fuse-epilogues=0" | FileCheck %s --check-prefix=OFF
// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s
// RUN: not tiletune-opt %s --split-input-file --tiletune-tile-cpu="fuse-epilogues=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: for the --fuse-epilogues option: {{.*}}maybe

// fuse-epilogues: the elementwise chain after the matmul (bias, ReLU) is
// fused into the forall and into the cache loop before the k loop (order
// [n, k, m]): it runs on each 64x128 output tile right after its k loop,
// in vector rows of the register tile (1x32), and no pass over the whole
// output remains. The fill of the matmul's init is fused too.

// CHECK-LABEL: func.func @matmul_bias_relu
//       CHECK:   scf.forall (%{{.*}}) = (0) to (128) step (64)
//       CHECK:     scf.for %[[N:.*]] = %c0 to %c256 step %c128
//       CHECK:       linalg.fill {{.*}} -> tensor<64x128xf32>
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:         vector.contract
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c1
//       CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:           vector.transfer_read {{.*}} : tensor<64x128xf32>, vector<1x32xf32>
//       CHECK:           vector.transfer_read {{.*}} : tensor<256xf32>, vector<32xf32>
//       CHECK:           arith.addf {{.*}} : vector<1x32xf32>
//       CHECK:           arith.maximumf {{.*}} : vector<1x32xf32>
//       CHECK:           vector.transfer_write {{.*}} : vector<1x32xf32>, tensor<64x128xf32>
//       CHECK:       tensor.insert_slice {{.*}} : tensor<64x128xf32> into tensor<64x256xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return

// Without the option the chain stays after the tiled matmul.
// OFF-LABEL: func.func @matmul_bias_relu
//       OFF:   scf.forall
//       OFF:   linalg.generic
//       OFF:   linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 256}, cache = {m = 32, n = 128, k = 32}, register = {m = 8, n = 32}, order = [n, k, m]>}
    ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<128x256xf32>, tensor<256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// -----

// Order [k, n, m]: no cache loop lies outside the k loop, so the epilogue
// (a residual add, a named elementwise op) is fused at the thread level
// only: inside the forall, after the k loop.

// CHECK-LABEL: func.func @matmul_k_outer_residual
//       CHECK:   scf.forall (%{{.*}}) = (0) to (64) step (32)
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:       vector.contract
//       CHECK:     scf.for %{{.*}} = %c0 to %c32 step %c1
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:         arith.addf {{.*}} : vector<1x16xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.add
func.func @matmul_k_outer_residual(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %res: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 64}, cache = {m = 16, n = 32, k = 32}, register = {m = 4, n = 16}, order = [k, n, m]>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.add ins(%0, %res : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// -----

// One thread and the whole output in one cache tile along the loops before
// k: no loop outside the reduction, so the chain runs after the matmul,
// vectorized (remark with emit-remarks: 0 loop levels).

// REMARK: remark: fused 2 elementwise ops at 2 loop levels, vectorized
// REMARK: remark: fused 1 elementwise op at 1 loop level, vectorized
// REMARK: remark: fused 1 elementwise op at 0 loop levels, vectorized
// REMARK: remark: fused 1 elementwise op at 2 loop levels, the last by the register tile, vectorized
// REMARK: remark: fused 1 elementwise op at 3 loop levels, the last by the register tile, vectorized
// REMARK: remark: fused 1 elementwise op at 2 loop levels, vectorized

// CHECK-LABEL: func.func @matmul_no_outer_loop
//   CHECK-NOT:   scf.forall
//       CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:     vector.contract
//       CHECK:   scf.for %{{.*}} = %c0 to %c32 step %c1
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:       arith.mulf {{.*}} : vector<1x16xf32>
//   CHECK-NOT:   linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_no_outer_loop(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %scale = arith.constant 0.5 : f32
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 64}, cache = {m = 16, n = 64, k = 32}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<32x64xf32>, tensor<64x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %scale : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %1 : tensor<32x64xf32>
}

// -----

// A k whose cache tile is all of K makes no loop (a K = 64 GEMM, ResNet-50's
// first 1x1 convs): the m cache loop after it in the order [n, k, m] is
// outside every reduction loop, so the chain and the fill are fused into it
// (before, the chain ran after the whole matmul: 0 loop levels). The op's
// tile then covers all of K, so the chain and the fill are fused by the
// register tile as well: each 4x16 register tile starts from the fill's
// vector, runs its k loop on the accumulators and goes through the bias add
// and ReLU before its only store; no 16x64 tile is filled or read back.

// CHECK-LABEL: func.func @matmul_whole_k
//   CHECK-NOT:   scf.forall
//       CHECK:   %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
//       CHECK:   scf.for %{{.*}} = %c0 to %c48 step %c16
//   CHECK-NOT:     linalg.fill
//       CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c4
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:         %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (vector<4x16xf32>)
//       CHECK:           vector.contract
//       CHECK:         %[[BIAS:.*]] = arith.addf %[[ACC]], %{{.*}} : vector<4x16xf32>
//       CHECK:         %[[RELU:.*]] = arith.maximumf %[[BIAS]], %{{.*}} : vector<4x16xf32>
//       CHECK:         vector.transfer_write %[[RELU]]
//       CHECK:     tensor.insert_slice {{.*}} into tensor<48x64xf32>
//   CHECK-NOT:   vector.transfer_write
//   CHECK-NOT:   linalg.generic
#idk = affine_map<(d0, d1) -> (d0, d1)>
#rowk = affine_map<(d0, d1) -> (d1)>
func.func @matmul_whole_k(%a: tensor<48x32xf32>, %b: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<48x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 48, n = 64}, cache = {m = 16, n = 64, k = 32}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<48x32xf32>, tensor<32x64xf32>) outs(%c : tensor<48x64xf32>) -> tensor<48x64xf32>
  %e2 = tensor.empty() : tensor<48x64xf32>
  %1 = linalg.generic {indexing_maps = [#idk, #rowk, #idk], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<48x64xf32>, tensor<64xf32>) outs(%e2 : tensor<48x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<48x64xf32>
  return %1 : tensor<48x64xf32>
}

// -----

// Conv (order [n, oh, ow, f, kh, kw, c]): bias + ReLU fused inside the oh
// cache loop, whose 1x2x8x32 tiles cover the whole kh, kw and c, and then by
// the register tile (1x1x4x16): the kh/kw/c loops run on the accumulators
// and the epilogue finishes each register tile before its store.

// CHECK-LABEL: func.func @conv_bias_relu
//       CHECK:   scf.forall
//       CHECK:     scf.for %{{.*}} = %c0 to %c8 step %c2
//   CHECK-NOT:       linalg.fill
//       CHECK:       scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:             %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c3 step %c1 {{.*}} -> (vector<1x4x16xf32>)
//       CHECK:               vector.contract
//       CHECK:             vector.shape_cast %[[ACC]] : vector<1x4x16xf32> to vector<1x1x4x16xf32>
//       CHECK:             arith.maximumf {{.*}} : vector<1x1x4x16xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_bias_relu(%in: tensor<2x10x10x8xf32>, %w: tensor<3x3x8x32xf32>, %bias: tensor<32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 8, ow = 8, f = 32}, cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, order = [oh, ow, f, kh, kw, c]>}
      ins(%in, %w : tensor<2x10x10x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x8x8x32xf32>, tensor<32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x32xf32>
  return %1 : tensor<2x8x8x32xf32>
}

// -----

// TOSA's conv: an FHWC filter packed tile by tile, and an init that
// broadcasts the bias over the output (no fill). The broadcast is fused
// like a fill, into the oh cache loop, and written in vector rows of the
// register tile's f = 16 before the conv reads the tile; no pass over the
// whole output and no whole-filter transpose remain.

// CHECK-LABEL: func.func @conv_tosa_bias_relu
//   CHECK-NOT:   linalg.transpose ins(%{{.*}} : tensor<32x3x3x8xf32>)
//       CHECK:   scf.forall
//       CHECK:     scf.for %{{.*}} = %c0 to %c8 step %c2
//       CHECK:       scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:             vector.transfer_read %{{.*}} : tensor<32xf32>, vector<16xf32>
//       CHECK:       scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:         linalg.transpose ins(%{{.*}} : tensor<32x3x3x4xf32>) outs(%{{.*}} : tensor<3x3x4x32xf32>)
//       CHECK:         vector.contract
//       CHECK:             arith.maximumf {{.*}} : vector<1x1x1x16xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
func.func @conv_tosa_bias_relu(%in: tensor<2x10x10x8xf32>, %w: tensor<32x3x3x8xf32>, %bias: tensor<32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x8x8x32xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 8, ow = 8, f = 32}, cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 4}, register = {oh = 1, ow = 4, f = 16}, order = [oh, ow, f, c, kh, kw], pack = b>}
      ins(%in, %w : tensor<2x10x10x8xf32>, tensor<32x3x3x8xf32>) outs(%b : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<2x8x8x32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x32xf32>
  return %1 : tensor<2x8x8x32xf32>
}

// -----

// Consumers that cannot be fused are left alone, with a remark: a result
// with two uses, a transposed read, a reduction.

// REMARK: remark: epilogue not fused: its result has several uses
// REMARK: remark: epilogue not fused: its user reads it through a permutation (a transposed view)
// REMARK: remark: epilogue not fused: its user is a reduction
// CHECK-LABEL: func.func @not_fusable
//       CHECK:   scf.forall
//       CHECK:   linalg.generic
//       CHECK:   linalg.generic
//       CHECK:   scf.forall
//       CHECK:   linalg.generic
//       CHECK:   scf.forall
//       CHECK:   linalg.generic {{.*}}"reduction"
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @not_fusable(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x32xf32>, %r: tensor<32xf32>)
    -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>) {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 32}, cache = {m = 16, n = 16, k = 32}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = tensor.empty() : tensor<32x32xf32>
  %u1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %u2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %1 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 32}, cache = {m = 16, n = 16, k = 32}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %t = linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<32x32xf32>
  %2 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 32}, cache = {m = 16, n = 16, k = 32}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%2 : tensor<32x32xf32>) outs(%r : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<32xf32>
  return %u1, %u2, %t, %s : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>
}

// -----

// No config: nothing is tiled or fused.

// CHECK-LABEL: func.func @no_config
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_config(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// A padded config (`pad`): 37 rows over two threads (20 + 17) and 85
// columns in cache tiles of 32 (64 + 21). The chain is fused into every
// version of the thread tile and into every peeled cache tile: the full
// ones in vector rows of the register tile (1x16), the 21-column tile in
// rows of 21. No op is left after the tiled nest.

// REMARK: remark: fused 2 elementwise ops at 2 loop levels, vectorized

// CHECK-LABEL: func.func @padded_bias_relu
//       CHECK:   scf.forall (%{{.*}}) = (0) to (37) step (20)
//       CHECK:     scf.if
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args({{.*}}) -> (tensor<20x85xf32>)
//       CHECK:         linalg.fill {{.*}} -> tensor<20x32xf32>
//       CHECK:         vector.contract
//       CHECK:         arith.addf {{.*}} : vector<1x16xf32>
//       CHECK:         arith.maximumf {{.*}} : vector<1x16xf32>
//       CHECK:       linalg.fill {{.*}} -> tensor<20x21xf32>
//       CHECK:       vector.contract
//       CHECK:       arith.addf {{.*}} : vector<1x21xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<1x21xf32>
//       CHECK:       tensor.insert_slice {{.*}} [20, 21] [1, 1] : tensor<20x21xf32> into tensor<20x85xf32>
//       CHECK:     } else {
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args({{.*}}) -> (tensor<17x85xf32>)
//       CHECK:         linalg.fill {{.*}} -> tensor<17x32xf32>
//       CHECK:         arith.maximumf {{.*}} : vector<1x16xf32>
//       CHECK:       linalg.fill {{.*}} -> tensor<17x21xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<1x21xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @padded_bias_relu(%a: tensor<37x64xf32>, %b: tensor<64x85xf32>, %bias: tensor<85xf32>) -> tensor<37x85xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x85xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x85xf32>) -> tensor<37x85xf32>
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 20, n = 96}, cache = {m = 20, n = 32, k = 64}, register = {m = 4, n = 16}, order = [n, k, m], pad = {m = 40, n = 96}>}
    ins(%a, %b : tensor<37x64xf32>, tensor<64x85xf32>) outs(%f : tensor<37x85xf32>) -> tensor<37x85xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<37x85xf32>, tensor<85xf32>) outs(%e : tensor<37x85xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<37x85xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<37x85xf32>) outs(%e : tensor<37x85xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<37x85xf32>
  return %2 : tensor<37x85xf32>
}
