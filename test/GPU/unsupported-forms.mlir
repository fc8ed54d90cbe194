// The forms only the cpu target tiles (transposed matmuls, conv_2d_nhwc_fhwc,
// the grouped convs, linalg.generic matmuls/convolutions) are refused by the GPU passes with a
// clear error, never a crash.
// RUN: tiletune-opt %s --split-input-file --verify-diagnostics --tiletune-default-gpu-config

func.func @fhwc(%i: memref<1x6x6x8xf32>, %f: memref<16x3x3x8xf32>, %o: memref<1x4x4x16xf32>) {
  // expected-error @+1 {{tiletune-default-gpu-config: the cuda target does not support conv_2d_nhwc_fhwc yet (supported: matmul, batch_matmul, conv_2d_nhwc_hwcf, conv_2d_nchw_fchw); tile it for the cpu target}}
  linalg.conv_2d_nhwc_fhwc ins(%i, %f : memref<1x6x6x8xf32>, memref<16x3x3x8xf32>) outs(%o : memref<1x4x4x16xf32>)
  return
}

// -----

func.func @ngchw(%i: memref<1x2x4x6x6xf32>, %f: memref<8x2x4x3x3xf32>, %o: memref<1x2x8x4x4xf32>) {
  // expected-error @+1 {{tiletune-default-gpu-config: the cuda target does not support conv_2d_ngchw_fgchw yet}}
  linalg.conv_2d_ngchw_fgchw ins(%i, %f : memref<1x2x4x6x6xf32>, memref<8x2x4x3x3xf32>) outs(%o : memref<1x2x8x4x4xf32>)
  return
}

// -----

func.func @nhwgc(%i: memref<1x6x6x2x4xf32>, %f: memref<2x8x3x3x4xf32>, %o: memref<1x4x4x2x8xf32>) {
  // expected-error @+1 {{tiletune-default-gpu-config: the cuda target does not support conv_2d_nhwgc_gfhwc yet}}
  linalg.conv_2d_nhwgc_gfhwc ins(%i, %f : memref<1x6x6x2x4xf32>, memref<2x8x3x3x4xf32>) outs(%o : memref<1x4x4x2x8xf32>)
  return
}

// -----

func.func @matmul_tb(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{the cuda target does not support matmul_transpose_b yet}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @generic(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{the cuda target tiles named ops only, not a linalg.generic}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
