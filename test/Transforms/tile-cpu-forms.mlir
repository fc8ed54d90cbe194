// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu --verify-diagnostics | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="emit-remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY

// The layout and transpose forms frontends emit: a B^T matmul packs B into
// the same [Nc/rn][Kc][rn] panels as a plain matmul (the packing copy reads
// through the transpose) and its register tile reads the panel like a plain
// one (the pack is marked to prefetch its next cache step's tile once it is
// copied on buffers); a conv_2d_nhwc_fhwc becomes a conv_2d_nhwc_hwcf on its filter
// transposed once; matmul/conv ops TileTune cannot tile are left untouched
// with a remark that says why.

// CHECK-LABEL: func.func @matmul_tb
//   CHECK-NOT:   linalg.transpose ins(%arg1
//       CHECK:   scf.forall
//       CHECK:     tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 16, 8] : tensor<32x8xf32> into tensor<2x16x8xf32>
//       CHECK:     tensor.empty() : tensor<2x8x16xf32>
//       CHECK:     linalg.transpose {{.*}} permutation = [0, 2, 1] {tiletune.prefetch_next = {{[1-9][0-9]*}} : i64}
//       CHECK:     vector.transfer_read {{.*}} : tensor<2x8x16xf32>, vector<2x16xf32>
//       CHECK:     vector.contract {{.*}} : vector<4x2xf32>, vector<2x16xf32> into vector<4x16xf32>
// SUMMARY: remark: tiletune-tile-cpu: tiled 1 op of @matmul_tb, left 0 matmul/conv ops untouched
func.func @matmul_tb(%a: tensor<32x24xf32>, %b: tensor<32x24xf32>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 16, n = 32}, cache = {m = 8, n = 32, k = 8},
         register = {m = 4, n = 16}, order = [n, k, m], pack = b, unroll = 2>}
    ins(%a, %b : tensor<32x24xf32>, tensor<32x24xf32>)
    outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// Batched, on buffers: panels [b][Nc/rn][Kc][rn].
// CHECK-LABEL: func.func @bmm_tb_memref
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<1x2x8x8xf32>
//       CHECK:   memref.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 8, 8]
//       CHECK:   vector.contract
func.func @bmm_tb_memref(%a: memref<2x8x8xf32>, %b: memref<2x16x8xf32>, %c: memref<2x8x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 1, m = 8, n = 16}, cache = {m = 8, n = 16, k = 8},
         register = {m = 4, n = 8}, pack = b>}
    ins(%a, %b : memref<2x8x8xf32>, memref<2x16x8xf32>) outs(%c : memref<2x8x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_fhwc
//       CHECK:   linalg.transpose ins(%arg1 : tensor<32x3x3x16xf32>) outs(%{{.*}} : tensor<3x3x16x32xf32>) permutation = [1, 2, 3, 0]
//   CHECK-NOT:   linalg.conv_2d_nhwc_fhwc
//       CHECK:   vector.contract
//   CHECK-NOT:   tiletune.config
func.func @conv_fhwc(%i: tensor<1x10x10x16xf32>, %f: tensor<32x3x3x16xf32>, %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// -----

// Forms TileTune does not tile are left as they are, with the reason.
// CHECK-LABEL: func.func @untileable
//       CHECK:   linalg.matmul ins(%{{.*}} : tensor<?x8xf32>, tensor<8x8xf32>)
//       CHECK:   linalg.matmul ins(%{{.*}} : tensor<8x8xf16>, tensor<8x8xf16>)
//       CHECK:   linalg.depthwise_conv_2d_nhwc_hwc
//       CHECK:   linalg.matmul indexing_maps
// SUMMARY: remark: tiletune-tile-cpu: tiled 0 ops of @untileable, left 4 matmul/conv ops untouched
func.func @untileable(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>,
                      %h: tensor<8x8xf16>, %o: tensor<8x8xf32>,
                      %di: tensor<1x6x6x3xf32>, %df: tensor<3x3x3xf32>,
                      %do: tensor<1x4x4x3xf32>, %v: tensor<8xf32>)
    -> (tensor<?x8xf32>, tensor<8x8xf32>, tensor<1x4x4x3xf32>, tensor<8x8xf32>) {
  // expected-remark @+1 {{left untouched: operand #0 has a dynamic shape; it is lowered untiled (naive loops)}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  // expected-remark @+1 {{left untouched: operands have different element types}}
  %1 = linalg.matmul ins(%h, %h : tensor<8x8xf16>, tensor<8x8xf16>) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{left untouched: 'linalg.depthwise_conv_2d_nhwc_hwc' is not a tunable op}}
  %2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%di, %df : tensor<1x6x6x3xf32>, tensor<3x3x3xf32>) outs(%do : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  // expected-remark @+1 {{left untouched: 'linalg.matmul' has a B indexing map TileTune does not tile}}
  %3 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
    ins(%b, %v : tensor<8x8xf32>, tensor<8xf32>) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %2, %3 : tensor<?x8xf32>, tensor<8x8xf32>, tensor<1x4x4x3xf32>, tensor<8x8xf32>
}
