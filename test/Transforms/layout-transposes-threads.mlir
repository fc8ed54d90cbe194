// An NCHW conv computed as NHWC (layout = nhwc) on two threads: the layout
// transposes are split over the same two threads (an scf.forall over their
// outermost dim that 2 divides), so they do not run on one core while the
// other waits. On one thread they stay whole. The output's pair then
// folds into the conv's accesses after bufferization.
// RUN: tiletune-opt %s --tiletune-tile-cpu | FileCheck %s
// RUN: sed 's/parallel = {f = 64, n = 1, oh = 28, ow = 56}/parallel = {f = 64, n = 1, oh = 56, ow = 56}/' %s \
// RUN:   | tiletune-opt --tiletune-tile-cpu | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @nchw
// The input (1x64x58x58 -> 1x58x58x64), split at H = 58 / 2.
// CHECK: scf.forall (%{{.*}}) = (0) to (58) step (29)
// CHECK:   linalg.transpose ins(%{{.*}} : tensor<1x64x29x58xf32>) outs(%{{.*}} : tensor<1x29x58x64xf32>)
// The filter (64x64x3x3 -> 3x3x64x64): its outermost dim 3 is not divided
// by 2, the next (3) neither, then C = 64.
// CHECK: scf.forall
// CHECK:   linalg.transpose ins(%{{.*}} : tensor<64x32x3x3xf32>) outs(%{{.*}} : tensor<3x3x32x64xf32>)
// The output before the conv, the conv's own forall, the output after it.
// CHECK: scf.forall
// CHECK:   linalg.transpose ins(%{{.*}} : tensor<1x64x28x56xf32>) outs(%{{.*}} : tensor<1x28x56x64xf32>)
// CHECK: scf.forall
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall
// CHECK:   linalg.transpose ins(%{{.*}} : tensor<1x56x56x32xf32>) outs(%{{.*}} : tensor<1x32x56x56xf32>)

// RUN: tiletune-opt %s --pass-pipeline="builtin.module(func.func(tiletune-tile-cpu),canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,func.func(tiletune-optimize-cpu-buffers))" \
// RUN:   | FileCheck %s --check-prefix=FOLDED

// After bufferization the two output transposes fold into the conv's
// register tiles (foldLayoutTransposesIntoAccesses): the tiles read and
// write the NCHW output %arg2 with a permuted map, and there is no NHWC
// output buffer. The input and filter are still transposed.
// FOLDED-LABEL: func.func @nchw
//   FOLDED-NOT:   memref<1x56x56x64xf32>
//       FOLDED:   memref.alloc() {{.*}} : memref<1x58x58x64xf32>
//   FOLDED-NOT:   memref<1x56x56x64xf32>
//       FOLDED:   memref.alloc() {{.*}} : memref<3x3x64x64xf32>
//   FOLDED-NOT:   memref<1x56x56x64xf32>
//       FOLDED:   vector.transfer_read %arg2[{{.*}}permutation_map = {{.*}} : memref<1x64x56x56xf32>, vector<1x8x32xf32>
//       FOLDED:   vector.transfer_write %{{.*}}, %arg2[{{.*}}permutation_map = {{.*}} : vector<1x8x32xf32>, memref<1x64x56x56xf32>
//   FOLDED-NOT:   memref<1x56x56x64xf32>
//       FOLDED:   return

// ONE-LABEL: func.func @nchw
// ONE-NOT: scf.forall
// ONE: linalg.transpose ins(%{{.*}} : tensor<1x64x58x58xf32>)
// ONE-NOT: scf.forall
func.func @nchw(%i: tensor<1x64x58x58xf32>, %f: tensor<64x64x3x3xf32>,
                %o: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {
         dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu, parallel = {f = 64, n = 1, oh = 28, ow = 56}, cache = {c = 64, f = 64, kh = 3, kw = 3, oh = 4, ow = 56}, register = {f = 32, oh = 1, ow = 8}, layout = nhwc, order = [f, oh, ow, kh, kw, c], pack = none, unroll = 1, vectorize = true>}
    ins(%i, %f : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>)
    outs(%o : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}
