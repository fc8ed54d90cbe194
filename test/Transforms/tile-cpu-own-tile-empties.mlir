// A fused fill or broadcast leaves an op's tiles starting from slices of a
// whole-size tensor.empty. tiletune-tile-cpu gives such tiles tensor.empty
// ops of their own shape: left as slices, CSE merges the identical
// whole-size empties of the two convs below before bufferization, and the
// first conv's tile buffer became a view of a whole 1x8x8x32 output buffer
// (on ResNet-50's 56x56x256 convs, 3.2 MB instead of 57 KB, its fill and
// accumulation going to memory). Both convs now get tile-sized buffers.
// Their c runs in two cache steps, so that the epilogues are fused by the
// cache tile: with the whole c in one, they would be fused by the register
// tile and the tiles would need no buffer at all.

// RUN: tiletune-opt %s --tiletune-tile-cpu="fuse-epilogues=1" | FileCheck %s --check-prefix=TILED
// RUN: tiletune-opt %s --tiletune-lower-cpu="fuse-epilogues=1" --mlir-print-ir-after=tiletune-optimize-cpu-buffers -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC

// TILED-LABEL: func.func @two_bias_convs
// TILED-NOT: tensor.extract_slice %{{.*}} : tensor<1x8x8x32xf32> to tensor<1x2x8x16xf32>
// TILED: tensor.empty() : tensor<1x2x8x16xf32>
// TILED: tensor.empty() : tensor<1x2x8x16xf32>

// BUFFERS-LABEL: func.func @two_bias_convs
// BUFFERS-COUNT-2: memref.alloc() {alignment = 64 : i64} : memref<1x2x8x16xf32>
// BUFFERS-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x2x8x16xf32>
// BUFFERS: return

// EXEC-NOT: FAILED
// EXEC: verify: passed against the untiled lowering

#bias = affine_map<(n, h, w, f) -> (f)>
#id = affine_map<(n, h, w, f) -> (n, h, w, f)>
#cfg = #tiletune.config<cpu, parallel = {n = 1, oh = 8, ow = 8, f = 32}, cache = {oh = 2, ow = 8, f = 16, kh = 1, kw = 1, c = 8}, register = {oh = 1, ow = 8, f = 16}, order = [f, oh, ow, kh, kw, c], pack = b, unroll = 1, vectorize = true>
func.func @two_bias_convs(%x: tensor<1x8x8x16xf32>, %wa: tensor<32x1x1x16xf32>, %wb: tensor<32x1x1x16xf32>) -> tensor<1x8x8x32xf32> {
  %bias = arith.constant dense<0.5> : tensor<32xf32>
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<1x8x8x32xf32>
  %inita = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%ea : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x32xf32>
  %a = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #cfg} ins(%x, %wa : tensor<1x8x8x16xf32>, tensor<32x1x1x16xf32>) outs(%inita : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %ea2 = tensor.empty() : tensor<1x8x8x32xf32>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x8x8x32xf32>) outs(%ea2 : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x32xf32>
  %eb = tensor.empty() : tensor<1x8x8x32xf32>
  %initb = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%eb : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x32xf32>
  %b = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #cfg} ins(%x, %wb : tensor<1x8x8x16xf32>, tensor<32x1x1x16xf32>) outs(%initb : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %eb2 = tensor.empty() : tensor<1x8x8x32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b, %ra : tensor<1x8x8x32xf32>, tensor<1x8x8x32xf32>) outs(%eb2 : tensor<1x8x8x32xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %s = arith.addf %in, %r : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x32xf32>
  return %sum : tensor<1x8x8x32xf32>
}
