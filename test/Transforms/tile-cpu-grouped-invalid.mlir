// RUN: tiletune-opt %s --split-input-file --verify-diagnostics --tiletune-tile-cpu

// Illegal configs of grouped convs: the verifier names the problem.

func.func @layout_nhwgc(%i: tensor<1x6x6x2x4xf32>, %f: tensor<2x8x3x3x4xf32>,
                        %o: tensor<1x4x4x2x8xf32>) -> tensor<1x4x4x2x8xf32> {
  // expected-error @+1 {{'layout = nhwc' only applies to conv_2d_nchw_fchw and conv_2d_ngchw_fgchw, not conv_2d_nhwgc_gfhwc}}
  %0 = linalg.conv_2d_nhwgc_gfhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 1, oh = 4, ow = 4, f = 8},
         cache = {oh = 1, ow = 4, f = 8, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 4, f = 8}, layout = nhwc>}
    ins(%i, %f : tensor<1x6x6x2x4xf32>, tensor<2x8x3x3x4xf32>)
    outs(%o : tensor<1x4x4x2x8xf32>) -> tensor<1x4x4x2x8xf32>
  return %0 : tensor<1x4x4x2x8xf32>
}

// -----

func.func @group_tile(%i: tensor<1x6x6x3x4xf32>, %f: tensor<3x8x3x3x4xf32>,
                      %o: tensor<1x4x4x3x8xf32>) -> tensor<1x4x4x3x8xf32> {
  // expected-error @+1 {{does not divide}}
  %0 = linalg.conv_2d_nhwgc_gfhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 2, oh = 4, ow = 4, f = 8},
         cache = {oh = 1, ow = 4, f = 8, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 4, f = 8}>}
    ins(%i, %f : tensor<1x6x6x3x4xf32>, tensor<3x8x3x3x4xf32>)
    outs(%o : tensor<1x4x4x3x8xf32>) -> tensor<1x4x4x3x8xf32>
  return %0 : tensor<1x4x4x3x8xf32>
}

// -----

func.func @missing_g(%i: tensor<1x2x4x6x6xf32>, %f: tensor<8x2x4x3x3xf32>,
                     %o: tensor<1x2x8x4x4xf32>) -> tensor<1x2x8x4x4xf32> {
  // expected-error @+1 {{'g'}}
  %0 = linalg.conv_2d_ngchw_fgchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, f = 8, oh = 4, ow = 4},
         cache = {f = 8, oh = 1, ow = 4, c = 4, kh = 3, kw = 3},
         register = {f = 8, oh = 1, ow = 4}>}
    ins(%i, %f : tensor<1x2x4x6x6xf32>, tensor<8x2x4x3x3xf32>)
    outs(%o : tensor<1x2x8x4x4xf32>) -> tensor<1x2x8x4x4xf32>
  return %0 : tensor<1x2x8x4x4xf32>
}
