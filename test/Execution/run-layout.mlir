// NCHW convolutions computed as NHWC (`layout = nhwc`): transposes of the
// input, filter and output around a conv_2d_nhwc_hwcf, and of the result
// back. On tensors and on buffers, with strides and dilations, batch 2, an
// image whose dims 2 threads do not divide, and
// the default config (which chooses nhwc); all against the C++ reference.

// RUN: tiletune-run %s --entry=tensors --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tensors --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=rgb --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=untuned --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-default-config | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @untuned
// DEFAULT: layout = nhwc
// RUN: tiletune-opt %s --tiletune-tile-cpu | FileCheck %s --check-prefix=TILED
// The config runs on 2 threads (batch 2 split in two): so do the layout
// transposes (their outermost dim that 2 divides).
// TILED-LABEL: func.func @tensors
// TILED: scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<2x18x18x16xf32>)
// TILED: linalg.transpose ins(%{{.*}} : tensor<1x16x18x18xf32>) outs(%{{.*}} : tensor<1x18x18x16xf32>) permutation = [0, 2, 3, 1]
// TILED: linalg.transpose ins(%{{.*}} : tensor<32x8x3x3xf32>) outs(%{{.*}} : tensor<3x3x8x32xf32>) permutation = [2, 3, 1, 0]
// TILED: linalg.transpose ins(%{{.*}} : tensor<1x32x16x16xf32>) outs(%{{.*}} : tensor<1x16x16x32xf32>) permutation = [0, 2, 3, 1]
// TILED-NOT: linalg.conv_2d_nchw_fchw
// TILED: vector.contract
// TILED: linalg.transpose ins(%{{.*}} : tensor<1x16x16x32xf32>) outs(%{{.*}} : tensor<1x32x16x16xf32>) permutation = [0, 3, 1, 2]
// An image of 3 channels and 17 rows on 2 threads: 2 divides no dim of its
// NHWC form, so its first 16 rows are split over the threads and the last
// row is a transpose of its own.
// TILED-LABEL: func.func @rgb
// TILED: scf.forall (%{{.*}}) = (0) to (16) step (8) {{.*}} -> (tensor<1x16x17x3xf32>)
// TILED: linalg.transpose ins(%{{.*}} : tensor<1x3x8x17xf32>) outs(%{{.*}} : tensor<1x8x17x3xf32>) permutation = [0, 2, 3, 1]
// TILED: linalg.transpose ins(%{{.*}} : tensor<1x3x1x17xf32>) outs(%{{.*}} : tensor<1x1x17x3xf32>) permutation = [0, 2, 3, 1]
// TILED: tensor.insert_slice %{{.*}} into %{{.*}}[0, 16, 0, 0] [1, 1, 17, 3] [1, 1, 1, 1]
// TILED-NOT: tiletune.config

// CHECK: verify: PASSED

func.func @tensors(%i: tensor<2x16x18x18xf32>, %f: tensor<32x16x3x3xf32>,
                   %o: tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
           parallel = {n = 1, f = 32, oh = 16, ow = 16},
           cache = {f = 32, oh = 2, ow = 16, c = 16, kh = 3, kw = 3},
           register = {f = 16, oh = 1, ow = 8}, order = [f, oh, ow, kh, kw, c],
           unroll = 4, layout = nhwc>}
    ins(%i, %f : tensor<2x16x18x18xf32>, tensor<32x16x3x3xf32>)
    outs(%o : tensor<2x32x16x16xf32>) -> tensor<2x32x16x16xf32>
  return %0 : tensor<2x32x16x16xf32>
}

func.func @buffers(%i: memref<1x8x10x10xf32>, %f: memref<16x8x3x3xf32>,
                   %o: memref<1x16x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
           parallel = {n = 1, f = 16, oh = 8, ow = 8},
           cache = {f = 16, oh = 1, ow = 8, c = 8, kh = 3, kw = 3},
           register = {f = 16, oh = 1, ow = 4}, unroll = 2, layout = nhwc>}
    ins(%i, %f : memref<1x8x10x10xf32>, memref<16x8x3x3xf32>)
    outs(%o : memref<1x16x8x8xf32>)
  return
}

func.func @strided(%i: tensor<1x4x17x17xf32>, %f: tensor<8x4x3x3xf32>,
                   %o: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
           parallel = {n = 1, f = 8, oh = 6, ow = 6},
           cache = {f = 8, oh = 3, ow = 6, c = 4, kh = 3, kw = 3},
           register = {f = 8, oh = 1, ow = 3}, layout = nhwc>}
    ins(%i, %f : tensor<1x4x17x17xf32>, tensor<8x4x3x3xf32>)
    outs(%o : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

func.func @rgb(%i: tensor<1x3x17x17xf32>, %f: tensor<8x3x3x3xf32>,
               %o: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
           parallel = {n = 1, f = 4, oh = 8, ow = 8},
           cache = {f = 4, oh = 4, ow = 8, c = 3, kh = 3, kw = 3},
           register = {f = 4, oh = 1, ow = 4}, layout = nhwc>}
    ins(%i, %f : tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>)
    outs(%o : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

func.func @untuned(%i: tensor<1x16x12x12xf32>, %f: tensor<32x16x3x3xf32>,
                   %o: tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x16x12x12xf32>, tensor<32x16x3x3xf32>)
    outs(%o : tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  return %0 : tensor<1x32x10x10xf32>
}
