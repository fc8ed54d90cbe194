// `tiletune export --format=transform`: the CPU configs of a module's ops as
// a transform script. Upstream --transform-interpreter with the script gives
// the loop nests and vector contractions that tiletune-tile-cpu gives
// (checked with the same CHECK lines; only the form of the scf.forall
// differs: the script's is normalized), and the result runs correctly.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune export --format=transform %s -o %t/script.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t/script.mlir --check-prefix=SCRIPT
// RUN: tiletune-opt %s --transform-preload-library=transform-library-paths=%t/script.mlir --transform-interpreter \
// RUN:   | FileCheck %s --check-prefixes=CHECK,VIA-SCRIPT
// RUN: tiletune-opt %s --tiletune-tile-cpu | FileCheck %s --check-prefixes=CHECK,VIA-PASS
// Upstream mlir-opt, which knows nothing of TileTune, applies the script to
// the module without the configs and gets the same loops.
// RUN: sed -e 's/ {tiletune.config = #tiletune.config<[^>]*>}//' \
// RUN:   -e 's/, tiletune.config = #tiletune.config<[^>]*>}/}/' %s | grep -v '^//' > %t/plain.mlir
// RUN: not grep -q tiletune %t/plain.mlir
// RUN: mlir-opt %t/plain.mlir --transform-preload-library=transform-library-paths=%t/script.mlir \
// RUN:   --transform-interpreter | FileCheck %s --check-prefixes=CHECK,VIA-SCRIPT
// RUN: tiletune-run %s --entry=matmul --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --entry=matmul_padded --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --entry=bmm --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --entry=conv --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --entry=matmul_buffers --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --entry=conv_nchw --num-threads=1 --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%t/script.mlir},transform-interpreter,tiletune-lower-cpu" | FileCheck %s --check-prefix=VERIFY
// RUN: not tiletune export --format=yaml %s 2>&1 | FileCheck %s --check-prefix=FORMAT

// VERIFY-NOT: FAILED
// VERIFY: verify: PASSED

// SUMMARY: warning: not in the transform script: {{.*}}: linalg.conv_2d_nhwc_hwcf: it is a convolution on buffers; upstream transform.structured.decompose (2-D to 1-D convolutions) works on tensors only
// SUMMARY: warning: not in the transform script: {{.*}}: linalg.conv_2d_nchw_fchw: its config converts the layout (layout = nhwc), which no upstream transform op does
// SUMMARY: transform script: 7 op(s), 6 schedule(s)
// FORMAT: error: unknown --format 'yaml' (valid: jsonl, transform)

// SCRIPT: // Not scheduled: {{.*}}linalg.conv_2d_nhwc_hwcf: it is a convolution on buffers
// SCRIPT: module attributes {transform.with_named_sequence}
// SCRIPT: transform.named_sequence @tiletune_match_0
// SCRIPT:   transform.match.operation_name %op ["linalg.matmul"]
// SCRIPT: Not included: pack = b
// SCRIPT: transform.named_sequence @__transform_main
// SCRIPT:   transform.foreach_match in %root
// SCRIPT-NEXT: @tiletune_match_0 -> @tiletune_apply_0,

// Matmul on tensors: forall over m, cache loops in order [n, k, m],
// register loops, the 8x32 accumulator carried by the k loop.
// CHECK-LABEL: func.func @matmul(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (128) step (64)
//       CHECK:     scf.for %{{.*}} = %c0 to %c256 step %c128
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c8
//       CHECK:             scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:               scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
//       CHECK:                 vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//   CHECK-NOT:   linalg.matmul
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 256}, cache = {m = 32, n = 128, k = 32}, register = {m = 8, n = 32}, order = [n, k, m]>}
    ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// The same op and config again: one schedule serves both.
// CHECK-LABEL: func.func @matmul_again(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (128) step (64)
//       CHECK:                 vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @matmul_again(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 256}, cache = {m = 32, n = 128, k = 32}, register = {m = 8, n = 32}, order = [n, k, m]>}
    ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// A shape no tile divides (127): the script pads the whole op to 128
// (transform.structured.pad), then tiles; the pass peels the m loop into
// its two 64-row tiles (full, and 63 rows) and the register loops of both
// (n: 3 tiles of 32 and one of 31; k: 31 steps of 4 and one of 3), on the
// op's own operands, so only the m register loop and the contraction are
// the same. unroll = 4 steps k by 4.
// CHECK-LABEL: func.func @matmul_padded(
//  VIA-SCRIPT:   tensor.pad %{{.*}} low[0, 0] high[1, 1]
//  VIA-SCRIPT:   tensor.pad %{{.*}} low[0, 0] high[1, 1]
//  VIA-SCRIPT:   tensor.pad %{{.*}} low[0, 0] high[1, 1]
//   CHECK-NOT:   scf.forall
//  VIA-SCRIPT:   scf.for %{{.*}} = %c0 to %c128 step %c64
//       CHECK:     scf.for %{{.*}} = %c0 to %c64 step %c8
//  VIA-SCRIPT:       scf.for %{{.*}} = %c0 to %c128 step %c32
//    VIA-PASS:       scf.for %{{.*}} = %c0 to %c96 step %c32
//  VIA-SCRIPT:         scf.for %{{.*}} = %c0 to %c128 step %c4 iter_args(%{{.*}}) -> (vector<8x32xf32>)
//    VIA-PASS:         scf.for %{{.*}} = %c0 to %c124 step %c4 iter_args(%{{.*}}) -> (vector<8x32xf32>)
//       CHECK:           vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
//  VIA-SCRIPT:   tensor.extract_slice %{{.*}}[0, 0] [127, 127] [1, 1] : tensor<128x128xf32> to tensor<127x127xf32>
//   VIA-PASS-NOT:   tensor.pad
func.func @matmul_padded(%a: tensor<127x127xf32>, %b: tensor<127x127xf32>, %c: tensor<127x127xf32>) -> tensor<127x127xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 128, n = 128, k = 128}, parallel = {m = 128, n = 128}, cache = {m = 64, n = 128, k = 128}, register = {m = 8, n = 32}, order = [n, k, m], unroll = 4>}
    ins(%a, %b : tensor<127x127xf32>, tensor<127x127xf32>) outs(%c : tensor<127x127xf32>) -> tensor<127x127xf32>
  return %0 : tensor<127x127xf32>
}

// Batch matmul: the batch split across the forall and stepped by 1 at cache
// level; pack = b is not in the script (the pass's panel copies come
// between the loops checked here).
// CHECK-LABEL: func.func @bmm(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:     scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:       scf.for %{{.*}} = %c0 to %c16 step %c8
//       CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c2 iter_args(%{{.*}}) -> (vector<1x4x16xf32>)
//       CHECK:               vector.contract {{.*}} : vector<1x4x2xf32>, vector<1x2x16xf32> into vector<1x4x16xf32>
func.func @bmm(%a: tensor<4x16x8xf32>, %b: tensor<4x8x32xf32>, %c: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 2, m = 16, n = 32}, cache = {m = 8, n = 32, k = 8}, register = {m = 4, n = 16}, order = [n, k, m], pack = b, unroll = 2>}
    ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x32xf32>) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
}

// Conv: a 2x5x16 register tile becomes two 1-D convolution rows (unrolled),
// each vectorized, the accumulators carried through the kh, kw, c loops.
// CHECK-LABEL: func.func @conv(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (8) step (4)
//       CHECK:     scf.for %{{.*}} = %c0 to %c4 step %c2
//       CHECK:       scf.for %{{.*}} = %c0 to %c10 step %c5
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}}, %{{.*}}) -> (vector<1x5x16xf32>, vector<1x5x16xf32>)
//       CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args
//       CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c2 iter_args
//       CHECK:               vector.contract {{.*}} : vector<1x5x2xf32>, vector<2x16xf32> into vector<1x5x16xf32>
//       CHECK:               vector.contract {{.*}} : vector<1x5x2xf32>, vector<2x16xf32> into vector<1x5x16xf32>
//   CHECK-NOT:   linalg.conv
func.func @conv(%i: tensor<1x10x12x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 10, f = 16}, cache = {oh = 4, ow = 10, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 5, f = 16}, order = [oh, ow, f, kh, kw, c], unroll = 2>}
    ins(%i, %f : tensor<1x10x12x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32>
  return %0 : tensor<1x8x10x16xf32>
}

// NCHW conv: the same split into rows (1-D NCW convolutions, unrolled).
// CHECK-LABEL: func.func @conv_nchw(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:     scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:       scf.for %{{.*}} = %c0 to %c8 step %c2 iter_args
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args
//       CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args
//       CHECK:             vector.contract {{.*}} : vector<1x2x4xf32>, vector<2x16xf32> into vector<1x16x4xf32>
//       CHECK:             vector.contract {{.*}} : vector<1x2x4xf32>, vector<2x16xf32> into vector<1x16x4xf32>
//   CHECK-NOT:   linalg.conv
func.func @conv_nchw(%i: tensor<1x8x6x10xf32>, %f: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 16, oh = 2, ow = 8}, cache = {f = 16, oh = 2, ow = 8, c = 8, kh = 3, kw = 3}, register = {f = 16, oh = 2, ow = 4}, order = [oh, ow, f, c, kh, kw], unroll = 2>}
    ins(%i, %f : tensor<1x8x6x10xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// Matmul on buffers: the accumulator leaves the k loop after alias folding
// and LICM (hoist_redundant_vector_transfers).
// CHECK-LABEL: func.func @matmul_buffers(
//  VIA-SCRIPT:   scf.forall (%{{.*}}) in (2)
//    VIA-PASS:   scf.forall (%{{.*}}) = (0) to (64) step (32)
//       CHECK:     scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:         scf.for %{{.*}} = %c0 to %c16 step %c4
//       CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:             scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}}) -> (vector<4x16xf32>)
//       CHECK:               vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @matmul_buffers(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 64}, cache = {m = 16, n = 64, k = 16}, register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// A convolution on buffers is not in the script (a warning says so); the
// interpreter leaves it alone.
// CHECK-LABEL: func.func @conv_buffers(
//  VIA-SCRIPT:   linalg.conv_2d_nhwc_hwcf
//    VIA-PASS:   vector.contract
func.func @conv_buffers(%i: memref<1x6x6x4xf32>, %f: memref<3x3x4x8xf32>, %o: memref<1x4x4x8xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 8}, cache = {oh = 4, ow = 4, f = 8, kh = 3, kw = 3, c = 4}, register = {oh = 1, ow = 4, f = 8}, order = [oh, ow, f, kh, kw, c]>}
    ins(%i, %f : memref<1x6x6x4xf32>, memref<3x3x4x8xf32>) outs(%o : memref<1x4x4x8xf32>)
  return
}

// An NCHW convolution whose config converts it to NHWC (layout = nhwc) is
// not in the script either: no upstream transform op does that conversion.
// CHECK-LABEL: func.func @conv_nchw_as_nhwc(
//  VIA-SCRIPT:   linalg.conv_2d_nchw_fchw
//    VIA-PASS:   linalg.transpose
func.func @conv_nchw_as_nhwc(%i: tensor<1x8x6x6xf32>, %f: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 16, oh = 4, ow = 4}, cache = {f = 16, oh = 4, ow = 4, c = 8, kh = 3, kw = 3}, register = {f = 16, oh = 1, ow = 4}, layout = nhwc>}
    ins(%i, %f : tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}
