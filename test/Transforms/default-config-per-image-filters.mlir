// A 1x1 NCHW conv computed per image (its pixels fill whole vectors) on a
// 28x28 map: 784 pixels are 49 AVX-512 vectors, so the GEMM's register
// tile is one vector (4x4 pixels) wide, and the filters make up the
// accumulators of a two-vector tile (16 x 1 vector rather than 8 x 1).
// On AVX2 the pixels already take two vectors and the tile stays 4 x 2.
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=1" | FileCheck %s --check-prefix=AVX512
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=2" | FileCheck %s --check-prefix=AVX512
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=haswell caches=48K,1M threads=1" | FileCheck %s --check-prefix=AVX2
// The configs run and match the reference on the host, at 1 and 2 threads.
// RUN: for t in 1 2; do \
// RUN:   tiletune-run %s --pipeline="tiletune-lower-cpu{default-configs=1 threads=$t}" --num-threads=$t --verify --repeats=1; \
// RUN: done | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --mcpu=haswell --num-threads=1 --verify --repeats=1 | FileCheck %s --check-prefix=VERIFY1

// AVX512: register = {f = 16, oh = 4, ow = 4}, compute = im2col_dpmm, order
// AVX2: register = {f = 4, oh = 4, ow = 4}, compute = im2col_dpmm, order
// VERIFY-COUNT-2: verify: PASSED
// VERIFY1: verify: PASSED
func.func @conv(%x: tensor<1x512x28x28xf32>, %w: tensor<256x512x1x1xf32>,
                %o: tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw
    ins(%x, %w : tensor<1x512x28x28xf32>, tensor<256x512x1x1xf32>)
    outs(%o : tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32>
  return %r : tensor<1x256x28x28xf32>
}
