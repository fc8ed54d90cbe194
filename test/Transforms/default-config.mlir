// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="threads=2 mcpu=znver5 caches=48K,1M" | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="threads=2 mcpu=znver5 caches=48K,1M" --tiletune-tile-cpu | FileCheck %s --check-prefix=TILED

// CHECK-LABEL: func.func @matmul_1024
//       CHECK:   linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 512, n = 1024}, cache = {k = 256, m = 64, n = 512}, register = {m = 8, n = 32}, order = [n, k, m], pack = ab, unroll = 4, vectorize = true>}
// TILED-LABEL: func.func @matmul_1024
//       TILED:   scf.forall
//       TILED:     vector.contract {{.*}} into vector<8x32xf32>
func.func @matmul_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Primes and 1: m and n have no useful divisors and are padded (97 -> 104,
// a multiple of 8 rows; 89 -> 96, a multiple of the 16 lanes), then tiled
// like a regular matmul; k = 1 stays. 13 register rows have no multiple of 8
// near 64 rows, so the cache tile takes all 104 rows. Neither operand's rows
// are a multiple of 4 KiB apart: both are read in place (see @bert_*).

// CHECK-LABEL: func.func @matmul_primes
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {m = 104, n = 96}, cache = {k = 1, m = 104, n = 96}, register = {m = 8, n = 32}, order = [n, k, m], pack = none, pad = {m = 104, n = 96}
// TILED-LABEL: func.func @matmul_primes
//   TILED-NOT:   linalg.matmul
func.func @matmul_primes(%a: tensor<97x1xf32>, %b: tensor<1x89xf32>, %c: tensor<97x89xf32>) -> tensor<97x89xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<97x1xf32>, tensor<1x89xf32>) outs(%c : tensor<97x89xf32>) -> tensor<97x89xf32>
  return %0 : tensor<97x89xf32>
}

// -----

// Small odd dims are taken whole as the vector dim.

// CHECK-LABEL: func.func @matmul_small_prime
//       CHECK:   register = {m = 5, n = 13}
// TILED-LABEL: func.func @matmul_small_prime
func.func @matmul_small_prime(%a: tensor<5x7xf32>, %b: tensor<7x13xf32>, %c: tensor<5x13xf32>) -> tensor<5x13xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x13xf32>) outs(%c : tensor<5x13xf32>) -> tensor<5x13xf32>
  return %0 : tensor<5x13xf32>
}

// -----

// At most 512 rows per thread, a plain matmul packs only the operands
// whose rows are a multiple of 4 KiB apart (the others are read in place):
// none of BERT's attention output (768 columns: 3 KiB), B of its FFN up
// (3072 columns: 12 KiB), A of its FFN down (K = 3072). 1024^3 at 2 threads
// (512 rows each, both strides 4 KiB) keeps ab (@matmul_1024 above).

// CHECK-LABEL: func.func @bert_attn_out
//       CHECK:   parallel = {m = 128, n = 384}{{.*}}, pack = none,
func.func @bert_attn_out(%a: tensor<128x768xf32>, %b: tensor<768x768xf32>, %c: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x768xf32>) outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// CHECK-LABEL: func.func @bert_ffn_up
//       CHECK:   parallel = {m = 128, n = 1536}{{.*}}, pack = b,
func.func @bert_ffn_up(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>, %c: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %0 : tensor<128x3072xf32>
}

// -----

// CHECK-LABEL: func.func @bert_ffn_down
//       CHECK:   parallel = {m = 128, n = 384}{{.*}}, pack = a,
func.func @bert_ffn_down(%a: tensor<128x3072xf32>, %b: tensor<3072x768xf32>, %c: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%c : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %0 : tensor<128x768xf32>
}

// -----

// Batch matmul: threads split the batch. Each batch's operands are read in
// place by the same rule (rows 1 KiB apart).

// CHECK-LABEL: func.func @bmm
//       CHECK:   parallel = {b = 8, m = 256, n = 256}{{.*}}, pack = none,
func.func @bmm(%a: tensor<16x256x256xf32>, %b: tensor<16x256x256xf32>, %c: tensor<16x256x256xf32>) -> tensor<16x256x256xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<16x256x256xf32>, tensor<16x256x256xf32>) outs(%c : tensor<16x256x256xf32>) -> tensor<16x256x256xf32>
  return %0 : tensor<16x256x256xf32>
}

// -----

// ResNet-50 3x3 layer: filters on the lanes, 8 output columns, one row.

// CHECK-LABEL: func.func @conv_resnet
//       CHECK:   register = {f = 32, oh = 1, ow = 8}, order = [f, oh, ow, kh, kw, c]
func.func @conv_resnet(%i: tensor<1x58x58x64xf32>, %f: tensor<3x3x64x64xf32>, %o: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%o : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}

// -----

// ResNet-50's deep layers at batch 1 (an 8x7 map here, 2 threads): the
// FHWC filter (TOSA's form, 9.4 MB) is read one tap at a time, the threads
// splitting the filters: each cache step packs a 32 x 1 x 1 x 64 piece of
// it (transposed into HWCF order), the pieces of a filter tile's steps
// follow each other in memory, and the whole map's register tiles reuse
// each one. The filter is never transposed whole.

// CHECK-LABEL: func.func @conv_deep_fhwc
//       CHECK:   parallel = {f = 256, n = 1, oh = 8, ow = 7}, cache = {c = 64, f = 32, kh = 1, kw = 1, oh = 8, ow = 7}, register = {f = 32, oh = 1, ow = 7}, order = [f, kh, kw, c, oh, ow], pack = b
// TILED-LABEL: func.func @conv_deep_fhwc
//   TILED-NOT:   linalg.transpose ins(%{{.*}} : tensor<512x3x3x512xf32>)
//       TILED:   linalg.transpose ins(%{{.*}} : tensor<32x1x1x64xf32>) outs(%{{.*}} : tensor<1x1x64x32xf32>)
func.func @conv_deep_fhwc(%i: tensor<1x10x9x512xf32>, %f: tensor<512x3x3x512xf32>, %o: tensor<1x8x7x512xf32>) -> tensor<1x8x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%i, %f : tensor<1x10x9x512xf32>, tensor<512x3x3x512xf32>) outs(%o : tensor<1x8x7x512xf32>) -> tensor<1x8x7x512xf32>
  return %0 : tensor<1x8x7x512xf32>
}

// -----

// A packed filter tile whose rows take several oh steps holds all channels
// where they fit half of L2 (9 x 128 x 64 floats: 288 KiB), so it is
// transposed once per filter tile, outside the oh cache loop (batch 2: at
// batch 1 the 28x28 map reads its filter tap by tap, as above).
// CHECK-LABEL: func.func @conv_28_fhwc
//       CHECK:   cache = {c = 128, f = 64, kh = 3, kw = 3, oh = 4, ow = 28}, register = {f = 32, oh = 1, ow = 7}, order = [f, oh, ow, kh, kw, c], pack = b
// TILED-LABEL: func.func @conv_28_fhwc
//       TILED:   scf.for %{{.*}} = %c0 to %c128 step %c64
//  TILED-NEXT:     tensor.extract_slice
//  TILED-NEXT:     tensor.empty() : tensor<3x3x128x64xf32>
//  TILED-NEXT:     linalg.transpose ins(%{{.*}} : tensor<64x3x3x128xf32>)
//  TILED-NEXT:     scf.for %{{.*}} = %c0 to %c28 step %c4
func.func @conv_28_fhwc(%i: tensor<2x30x30x128xf32>, %f: tensor<128x3x3x128xf32>, %o: tensor<2x28x28x128xf32>) -> tensor<2x28x28x128xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%i, %f : tensor<2x30x30x128xf32>, tensor<128x3x3x128xf32>) outs(%o : tensor<2x28x28x128xf32>) -> tensor<2x28x28x128xf32>
  return %0 : tensor<2x28x28x128xf32>
}

// -----

// The second row only where the two rows' input pixels do not crowd one L1
// set (lines 4 KiB apart share a set; 12 ways in 48K): 1024 channels put
// all 14 pixels 4 KiB apart, so one row of 7; 256 channels spread them
// over four sets, so two rows.

// CHECK-LABEL: func.func @conv_14x14_1024
//       CHECK:   register = {f = 32, oh = 1, ow = 7}
func.func @conv_14x14_1024(%i: tensor<2x14x14x1024xf32>, %f: tensor<1x1x1024x256xf32>, %o: tensor<2x14x14x256xf32>) -> tensor<2x14x14x256xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<2x14x14x1024xf32>, tensor<1x1x1024x256xf32>) outs(%o : tensor<2x14x14x256xf32>) -> tensor<2x14x14x256xf32>
  return %0 : tensor<2x14x14x256xf32>
}

// -----

// CHECK-LABEL: func.func @conv_14x14_256
//       CHECK:   register = {f = 32, oh = 2, ow = 7}
func.func @conv_14x14_256(%i: tensor<2x14x14x256xf32>, %f: tensor<1x1x256x1024xf32>, %o: tensor<2x14x14x1024xf32>) -> tensor<2x14x14x1024xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<2x14x14x256xf32>, tensor<1x1x256x1024xf32>) outs(%o : tensor<2x14x14x1024xf32>) -> tensor<2x14x14x1024xf32>
  return %0 : tensor<2x14x14x1024xf32>
}

// -----

// An HWCF filter on a small map with a window larger than 1x1 or a stride
// is packed (pack = b: each filter chunk serves few register tiles); on a
// 14x14 map, and where the odd rows of an unstrided conv are padded for
// two-row register tiles (pad = {oh = 8}), it is read in place.

// CHECK-LABEL: func.func @conv_7x7_3x3s2_hwcf
//       CHECK:   register = {f = 32, oh = 1, ow = 7}
//  CHECK-SAME:   pack = b
func.func @conv_7x7_3x3s2_hwcf(%i: tensor<1x15x15x512xf32>, %f: tensor<3x3x512x512xf32>, %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %f : tensor<1x15x15x512xf32>, tensor<3x3x512x512xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}

// -----

// CHECK-LABEL: func.func @conv_7x7_3x3_hwcf
//       CHECK:   parallel = {f = 256, n = 1, oh = 8, ow = 7}
//  CHECK-SAME:   register = {f = 32, oh = 2, ow = 7}
//  CHECK-SAME:   pack = none, pad = {oh = 8}
func.func @conv_7x7_3x3_hwcf(%i: tensor<1x9x9x512xf32>, %f: tensor<3x3x512x512xf32>, %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}

// -----

// CHECK-LABEL: func.func @conv_7x7_1x1_hwcf
//       CHECK:   register = {f = 32, oh = 2, ow = 7}
//  CHECK-SAME:   pack = none, pad = {oh = 8}
func.func @conv_7x7_1x1_hwcf(%i: tensor<1x7x7x512xf32>, %f: tensor<1x1x512x2048xf32>, %o: tensor<1x7x7x2048xf32>) -> tensor<1x7x7x2048xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x7x7x512xf32>, tensor<1x1x512x2048xf32>) outs(%o : tensor<1x7x7x2048xf32>) -> tensor<1x7x7x2048xf32>
  return %0 : tensor<1x7x7x2048xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nchw
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {f = 8, n = 1, oh = 3, ow = 3}
func.func @conv_nchw(%i: tensor<2x3x7x7xf32>, %f: tensor<8x3x5x5xf32>, %o: tensor<2x8x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%i, %f : tensor<2x3x7x7xf32>, tensor<8x3x5x5xf32>) outs(%o : tensor<2x8x3x3xf32>) -> tensor<2x8x3x3xf32>
  return %0 : tensor<2x8x3x3xf32>
}

// -----

// A 1x1 FHWC conv on a 7x7 map: the im2col GEMM (RPMMV) over all images'
// pixels, whose packed panels serve every image. With one image all 49 rows
// are one cache tile: one B panel (32 filters) per cache step and a k chunk
// that keeps it and the rows' A slice in half of L1. A 3x3 one of one image
// on 2 threads and the HWCF form stay direct.
// CHECK-LABEL: func.func @conv_1x1_fhwc_b8
//       CHECK:   compute = im2col_rpmmv
// CHECK-LABEL: func.func @conv_1x1_fhwc_b1
//       CHECK:   cache = {c = 64, f = 32, kh = 1, kw = 1, oh = 7, ow = 7}, register = {f = 32, oh = 1, ow = 7}, compute = im2col_rpmmv
// CHECK-LABEL: func.func @conv_3x3_fhwc_b1
//   CHECK-NOT:   compute
//       CHECK:   pack = b
// CHECK-LABEL: func.func @conv_1x1_hwcf_b8
//   CHECK-NOT:   compute
//       CHECK:   return
func.func @conv_1x1_fhwc_b8(%i: tensor<8x7x7x2048xf32>, %f: tensor<512x1x1x2048xf32>, %o: tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%i, %f : tensor<8x7x7x2048xf32>, tensor<512x1x1x2048xf32>) outs(%o : tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32>
  return %0 : tensor<8x7x7x512xf32>
}
func.func @conv_1x1_fhwc_b1(%i: tensor<1x7x7x2048xf32>, %f: tensor<512x1x1x2048xf32>, %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%i, %f : tensor<1x7x7x2048xf32>, tensor<512x1x1x2048xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
func.func @conv_3x3_fhwc_b1(%i: tensor<1x9x9x512xf32>, %f: tensor<512x3x3x512xf32>, %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%i, %f : tensor<1x9x9x512xf32>, tensor<512x3x3x512xf32>) outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
func.func @conv_1x1_hwcf_b8(%i: tensor<8x7x7x2048xf32>, %f: tensor<1x1x2048x512xf32>, %o: tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<8x7x7x2048xf32>, tensor<1x1x2048x512xf32>) outs(%o : tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32>
  return %0 : tensor<8x7x7x512xf32>
}

// -----

// A batch-1 NCHW conv of 256 channels on a 14x14 map at 2 threads: the
// im2col GEMM through NHWC (the filter read in place); on a 28x28 map the
// direct conv through NHWC.
// CHECK-LABEL: func.func @conv_nchw_b1_14x14
//       CHECK:   compute = im2col_rpmmv, layout = nhwc
func.func @conv_nchw_b1_14x14(%i: tensor<1x256x16x16xf32>, %f: tensor<256x256x3x3xf32>, %o: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%i, %f : tensor<1x256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%o : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nchw_b1_28x28
//   CHECK-NOT:   compute
//       CHECK:   layout = nhwc
func.func @conv_nchw_b1_28x28(%i: tensor<1x256x30x30xf32>, %f: tensor<256x256x3x3xf32>, %o: tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%i, %f : tensor<1x256x30x30xf32>, tensor<256x256x3x3xf32>) outs(%o : tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32>
  return %0 : tensor<1x256x28x28xf32>
}

// -----

// Grouped convs: the threads split the groups first. ResNeXt's 32 groups of
// 4 filters: the NCHW form keeps its native layout (the output width on the
// lanes, 4 filter rows); with 32 filters per group it is computed as NHWC.
// CHECK-LABEL: func.func @resnext_ngchw
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {f = 4, g = 16, n = 1, oh = 56, ow = 56}, {{.*}} register = {f = 4, oh = 1, ow = 14}, order
//   CHECK-NOT:   layout
func.func @resnext_ngchw(%i: tensor<1x32x4x58x58xf32>, %f: tensor<4x32x4x3x3xf32>, %o: tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw ins(%i, %f : tensor<1x32x4x58x58xf32>, tensor<4x32x4x3x3xf32>) outs(%o : tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32>
  return %0 : tensor<1x32x4x56x56xf32>
}

// -----

// CHECK-LABEL: func.func @wide_ngchw
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {f = 32, g = 1, n = 1, oh = 8, ow = 8}, {{.*}} register = {f = 32, oh = 1, ow = 8}, layout = nhwc
func.func @wide_ngchw(%i: tensor<1x2x16x10x10xf32>, %f: tensor<32x2x16x3x3xf32>, %o: tensor<1x2x32x8x8xf32>) -> tensor<1x2x32x8x8xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw ins(%i, %f : tensor<1x2x16x10x10xf32>, tensor<32x2x16x3x3xf32>) outs(%o : tensor<1x2x32x8x8xf32>) -> tensor<1x2x32x8x8xf32>
  return %0 : tensor<1x2x32x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @resnext_nhwgc
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {f = 4, g = 16, n = 1, oh = 56, ow = 56}, {{.*}} register = {f = 4, oh = 1, ow = 8}
func.func @resnext_nhwgc(%i: tensor<1x58x58x32x4xf32>, %f: tensor<32x4x3x3x4xf32>, %o: tensor<1x56x56x32x4xf32>) -> tensor<1x56x56x32x4xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc ins(%i, %f : tensor<1x58x58x32x4xf32>, tensor<32x4x3x3x4xf32>) outs(%o : tensor<1x56x56x32x4xf32>) -> tensor<1x56x56x32x4xf32>
  return %0 : tensor<1x56x56x32x4xf32>
}

// -----

// An explicit config is kept.

// CHECK-LABEL: func.func @explicit
//       CHECK:   tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {k = 8, m = 8, n = 8}, register = {m = 2, n = 8}>
func.func @explicit(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 2, n = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Dynamic shapes and other ops get no config.

// CHECK-LABEL: func.func @dynamic
//   CHECK-NOT:   tiletune.config
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
