// The im2col conv computes (`im2col = true` / `compute = im2col_X`, paper
// 001's Im2colRPMMV and Im2colDNMM332): the input windows copied into an
// im2col matrix and a matmul of it with the filter viewed as a matrix. Run
// with explicit configs for each conv form (HWCF, FHWC, NCHW through
// `layout = nhwc`, a 1x1 NCHW one per image in its native layout), shapes of 1, primes and non-divisible sizes, strides and
// dilations, f64 on buffers, at 1 and 2 threads and for AVX2 (haswell), and
// with the default config of each im2col compute; every one must match the
// C++ reference.

// RUN: for e in fhwc_rpmmv fhwc_dnmm332 hwcf_strided_buffers nchw_tmm primes_dpmm ones_lpmm nchw_1x1_dnmm332 nchw_1x1_per_image nchw_1x1_per_image_buffers nchw_1x1_strided_buffers nchw_3x3_dnmm332 nchw_dilated_buffers nchw_b1_1x1_in_place_buffers nchw_b1_3x3_rpmmv_buffers nchw_b2_3x3_transposed; do \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1; \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2; \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --mcpu=haswell; \
// RUN: done | FileCheck %s --check-prefix=EXPLICIT
// RUN: tiletune-opt %s --tiletune-default-config="compute=im2col_rpmmv overwrite=1" -o %t.rpmmv.mlir
// RUN: tiletune-opt %s --tiletune-default-config="compute=im2col_dnmm332 overwrite=1" -o %t.dn.mlir 2>/dev/null
// RUN: for e in primes_dpmm ones_lpmm hwcf_strided_buffers nchw_tmm nchw_1x1_strided_buffers; do \
// RUN:   tiletune-run %t.rpmmv.mlir --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2; \
// RUN: done | FileCheck %s --check-prefix=DEFAULT4
// RUN: for e in fhwc_rpmmv primes_dpmm ones_lpmm nchw_1x1_dnmm332 nchw_3x3_dnmm332; do \
// RUN:   tiletune-run %t.dn.mlir --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2; \
// RUN: done | FileCheck %s --check-prefix=DEFAULT3

// The default configs compute a batched small-map 3x3 as an im2col GEMM
// with rpmmv and a 1x1 FHWC conv of 1024 channels directly (its filter
// tiles packed in transposed vector blocks; DefaultConfig.cpp).
// RUN: for e in default_1x1 default_3x3 default_nchw_1x1 default_nchw_1x1_7x7 default_nchw_b1_1x1 default_nchw_b1_3x3 default_nchw_b1_1x1_14x14; do for t in 1 2; do \
// RUN:   tiletune-run %s --entry=$e --pipeline="tiletune-lower-cpu{default-configs=1 threads=$t}" --verify --repeats=1 --num-threads=$t; \
// RUN: done; done | FileCheck %s --check-prefix=DEFAULT8
// On AVX2 the 7x7 map's GEMM (M = 49) takes 6 x 16 register tiles, its
// rows padded to 12 (84 pixels, the last tile of one pixel; until
// 2026-12-06 7 x 8 tiles).
// RUN: for e in default_nchw_b1_3x3 default_nchw_b1_1x1_14x14; do for t in 1 2; do \
// RUN:   tiletune-run %s --entry=$e --pipeline="tiletune-lower-cpu{default-configs=1 threads=$t}" --mcpu=haswell --verify --repeats=1 --num-threads=$t; \
// RUN: done; done | FileCheck %s --check-prefix=DEFAULT4-AVX2
// RUN: tiletune-opt %s --tiletune-default-config=mcpu=haswell | FileCheck %s --check-prefix=RULE-AVX2
// RULE-AVX2-LABEL: func.func @default_nchw_b1_3x3(
// RULE-AVX2: register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// RUN: tiletune-opt %s --tiletune-default-config | FileCheck %s --check-prefix=RULE
// RUN: tiletune-opt %s --tiletune-default-config=mcpu=haswell | FileCheck %s --check-prefix=RULE
// RULE-LABEL: func.func @default_1x1
// RULE: compute = im2col_rpmmv
// RULE-LABEL: func.func @default_3x3
// RULE: compute = im2col_rpmmv
// RULE-LABEL: func.func @default_nchw_1x1(
// RULE-NOT: layout
// RULE: compute = im2col_
// RULE-NOT: layout
// RULE: return
// RULE-LABEL: func.func @default_nchw_1x1_7x7
// RULE: compute = im2col_{{.*}}layout = nhwc
// RULE-LABEL: func.func @default_nchw_b1_1x1
// RULE: compute = im2col_rpmmv{{.*}}layout = nhwc
// RULE-LABEL: func.func @default_nchw_b1_3x3
// RULE: compute = im2col_rpmmv{{.*}}layout = nhwc
// The batch-1 1x1 conv on the 14x14 map takes RPMMV through NHWC at one
// thread as on several (the direct conv's transposes of the whole filter
// left it 15-30% slower on AVX2).
// RULE-LABEL: func.func @default_nchw_b1_1x1_14x14
// RULE: compute = im2col_rpmmv{{.*}}layout = nhwc
// At 2 threads the batch-1 3x3 conv on the 7x7 map and the 1x1 conv on the
// 14x14 map take the GEMM through NHWC with RPMMV too. The cache tiles
// follow the caches, so these runs give Zen 5's (48K L1d), whatever the
// host: on a Zen 4 (32K) `c` is 128.
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 caches=48K,1M,32M" | FileCheck %s --check-prefix=RULE2
// The unstrided 1x1 convs split only their filters over the threads and
// keep whole images in the cache tile (their input is the transposed
// window matrix, read in place), on AVX-512 and AVX2; the 3x3 conv and one
// thread keep the GEMM's own tiles: all 49 rows in one cache tile, so one B
// panel per cache step (two vectors) and a k chunk that keeps it and the
// rows' A slice in half of L1; on AVX2, whose rows are padded to 12 for
// 6 x 16 register tiles, two panels of one vector and a k chunk whose A
// slice fills L1 (since 2026-12-07: 128 of 256 with 48K).
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=48K,1M,32M" | FileCheck %s --check-prefix=RULE2
// RULE2-LABEL: func.func @default_nchw_b1_1x1
// RULE2: parallel = {f = 128, n = 1, oh = {{7|12}}, ow = 7}, cache = {c = {{64|128}}, f = 64, kh = 1, kw = 1, oh = {{7|12}}, ow = 7}
// RULE2-SAME: compute = im2col_rpmmv{{.*}}layout = nhwc
// RULE2-LABEL: func.func @default_nchw_b1_3x3
// RULE2: cache = {c = {{64|128}}, f = 32,
// RULE2-SAME: compute = im2col_rpmmv{{.*}}layout = nhwc
// RULE2-LABEL: func.func @default_nchw_b1_1x1_14x14
// RULE2: parallel = {f = 128, n = 1, oh = 14, ow = 14}, cache = {c = 256, f = 64, kh = 1, kw = 1, oh = 14, ow = 14}
// RULE2-SAME: compute = im2col_rpmmv{{.*}}layout = nhwc
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,1M,32M" | FileCheck %s --check-prefix=RULE1
// RULE1-LABEL: func.func @default_nchw_b1_1x1
// RULE1: parallel = {f = 256, n = 1, oh = 7, ow = 7}, cache = {c = 64, f = 32,

// EXPLICIT-COUNT-45: verify: PASSED
// EXPLICIT-NOT: verify
// DEFAULT4-COUNT-5: verify: PASSED
// DEFAULT4-NOT: verify
// DEFAULT3-COUNT-5: verify: PASSED
// DEFAULT3-NOT: verify
// DEFAULT4-AVX2-COUNT-4: verify: PASSED
// DEFAULT4-AVX2-NOT: verify
// DEFAULT8-COUNT-14: verify: PASSED
// DEFAULT8-NOT: verify

// Im2colRPMMV on TOSA's FHWC form (the GEMM's B is [F][KH*KW*C], packed).
func.func @fhwc_rpmmv(%i: tensor<1x10x10x16xf32>, %f: tensor<32x3x3x16xf32>,
                      %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, unroll = 2,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// Im2colDNMM332: A and B both read along k = KH*KW*C = 135 (not a whole
// number of vectors).
func.func @fhwc_dnmm332(%i: tensor<1x10x9x15xf32>, %f: tensor<13x3x3x15xf32>,
                        %o: tensor<1x8x7x13xf32>) -> tensor<1x8x7x13xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 7, f = 13},
         cache = {oh = 2, ow = 7, f = 13, kh = 3, kw = 1, c = 15},
         register = {oh = 1, ow = 1, f = 13}, compute = im2col_dnmm332>}
    ins(%i, %f : tensor<1x10x9x15xf32>, tensor<13x3x3x15xf32>)
    outs(%o : tensor<1x8x7x13xf32>) -> tensor<1x8x7x13xf32>
  return %0 : tensor<1x8x7x13xf32>
}

// Batch 2, strides 2, dilations (1, 2), f64, on buffers.
func.func @hwcf_strided_buffers(%i: memref<2x11x13x3xf64>,
                                %f: memref<3x3x3x6xf64>,
                                %o: memref<2x5x5x6xf64>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>,
                            strides = dense<2> : tensor<2xi64>,
                            tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 5, f = 6},
         cache = {oh = 1, ow = 5, f = 6, kh = 3, kw = 1, c = 3},
         register = {oh = 1, ow = 5, f = 2}, im2col = true, pack = b>}
    ins(%i, %f : memref<2x11x13x3xf64>, memref<3x3x3x6xf64>)
    outs(%o : memref<2x5x5x6xf64>)
  return
}

// NCHW: computed as NHWC (layout = nhwc), then as its im2col GEMM.
func.func @nchw_tmm(%i: tensor<2x5x9x11xf32>, %f: tensor<7x5x3x3xf32>,
                    %o: tensor<2x7x7x9xf32>) -> tensor<2x7x7x9xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 9, f = 7},
         cache = {oh = 7, ow = 3, f = 7, kh = 3, kw = 3, c = 5},
         register = {oh = 1, ow = 3, f = 7}, layout = nhwc,
         compute = im2col_tmm>}
    ins(%i, %f : tensor<2x5x9x11xf32>, tensor<7x5x3x3xf32>)
    outs(%o : tensor<2x7x7x9xf32>) -> tensor<2x7x7x9xf32>
  return %0 : tensor<2x7x7x9xf32>
}

// C = 5, F = 7, OH = 7, OW = 9: primes; both operands packed.
func.func @primes_dpmm(%i: tensor<1x9x11x5xf32>, %f: tensor<7x3x3x5xf32>,
                       %o: tensor<1x7x9x7xf32>) -> tensor<1x7x9x7xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 9, f = 7},
         cache = {oh = 7, ow = 3, f = 7, kh = 1, kw = 3, c = 5},
         register = {oh = 1, ow = 3, f = 7}, compute = im2col_dpmm>}
    ins(%i, %f : tensor<1x9x11x5xf32>, tensor<7x3x3x5xf32>)
    outs(%o : tensor<1x7x9x7xf32>) -> tensor<1x7x9x7xf32>
  return %0 : tensor<1x7x9x7xf32>
}

// Every loop of size 1 but the filters.
func.func @ones_lpmm(%i: tensor<1x1x1x1xf32>, %f: tensor<3x1x1x1xf32>,
                     %o: tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 1, ow = 1, f = 3},
         cache = {oh = 1, ow = 1, f = 3, kh = 1, kw = 1, c = 1},
         register = {oh = 1, ow = 1, f = 3}, compute = im2col_lpmm>}
    ins(%i, %f : tensor<1x1x1x1xf32>, tensor<3x1x1x1xf32>)
    outs(%o : tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  return %0 : tensor<1x1x1x3xf32>
}

func.func @default_1x1(%i: tensor<1x7x7x1024xf32>, %f: tensor<256x1x1x1024xf32>,
                       %o: tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc
    ins(%i, %f : tensor<1x7x7x1024xf32>, tensor<256x1x1x1024xf32>)
    outs(%o : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %0 : tensor<1x7x7x256xf32>
}

func.func @default_3x3(%i: tensor<2x7x7x256xf32>, %f: tensor<256x3x3x256xf32>,
                       %o: tensor<2x5x5x256xf32>) -> tensor<2x5x5x256xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc
    ins(%i, %f : tensor<2x7x7x256xf32>, tensor<256x3x3x256xf32>)
    outs(%o : tensor<2x5x5x256xf32>) -> tensor<2x5x5x256xf32>
  return %0 : tensor<2x5x5x256xf32>
}

// A 1x1 NCHW conv through NHWC: the FCHW filter is the [F][C] matrix (B
// stored N x K), so Im2colDNMM332 applies; batch 2 over the threads,
// primes.
func.func @nchw_1x1_dnmm332(%i: tensor<2x13x5x7xf32>, %f: tensor<11x13x1x1xf32>,
                            %o: tensor<2x11x5x7xf32>) -> tensor<2x11x5x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 7, f = 11},
         cache = {oh = 5, ow = 7, f = 11, kh = 1, kw = 1, c = 13},
         register = {oh = 1, ow = 1, f = 11}, layout = nhwc,
         compute = im2col_dnmm332>}
    ins(%i, %f : tensor<2x13x5x7xf32>, tensor<11x13x1x1xf32>)
    outs(%o : tensor<2x11x5x7xf32>) -> tensor<2x11x5x7xf32>
  return %0 : tensor<2x11x5x7xf32>
}

// A 3x3 NCHW conv through NHWC with its filter in place: windows gathered
// in (c, kh, kw) order, the FCHW filter the [F][C*KH*KW] B of DNMM332;
// stride 2, primes.
func.func @nchw_3x3_dnmm332(%i: tensor<2x7x11x9xf32>, %f: tensor<13x7x3x3xf32>,
                            %o: tensor<2x13x5x4xf32>) -> tensor<2x13x5x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 4, f = 13},
         cache = {oh = 5, ow = 2, f = 13, kh = 3, kw = 3, c = 7},
         register = {oh = 1, ow = 2, f = 13}, layout = nhwc,
         compute = im2col_dnmm332>}
    ins(%i, %f : tensor<2x7x11x9xf32>, tensor<13x7x3x3xf32>)
    outs(%o : tensor<2x13x5x4xf32>) -> tensor<2x13x5x4xf32>
  return %0 : tensor<2x13x5x4xf32>
}

// The same through NHWC on buffers, f64, a 2x3 filter dilated by (2, 3),
// accumulating into the output.
func.func @nchw_dilated_buffers(%i: memref<1x5x9x10xf64>,
                                %f: memref<6x5x2x3xf64>,
                                %o: memref<1x6x7x4xf64>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>,
                            tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 4, f = 6},
         cache = {oh = 7, ow = 4, f = 3, kh = 2, kw = 3, c = 5},
         register = {oh = 1, ow = 4, f = 3}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : memref<1x5x9x10xf64>, memref<6x5x2x3xf64>)
    outs(%o : memref<1x6x7x4xf64>)
  return
}

// A 1x1 NCHW conv per image in its native layout: [F][C] x [C][OH*OW] for
// each of 3 images, the batch split over the threads; f and c prime.
func.func @nchw_1x1_per_image(%i: tensor<3x13x4x8xf32>, %f: tensor<11x13x1x1xf32>,
                              %o: tensor<3x11x4x8xf32>) -> tensor<3x11x4x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 11},
         cache = {oh = 2, ow = 8, f = 11, kh = 1, kw = 1, c = 13},
         register = {oh = 2, ow = 8, f = 11}, compute = im2col_rpmmv>}
    ins(%i, %f : tensor<3x13x4x8xf32>, tensor<11x13x1x1xf32>)
    outs(%o : tensor<3x11x4x8xf32>) -> tensor<3x11x4x8xf32>
  return %0 : tensor<3x11x4x8xf32>
}

// Per image on buffers: each image's input and output viewed in place as
// [C][OH*OW] and [F][OH*OW] (strided subviews of the batch).
func.func @nchw_1x1_per_image_buffers(%i: memref<3x13x4x8xf32>,
                                      %f: memref<11x13x1x1xf32>,
                                      %o: memref<3x11x4x8xf32>) {
  linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 11},
         cache = {oh = 2, ow = 8, f = 11, kh = 1, kw = 1, c = 13},
         register = {oh = 2, ow = 8, f = 11}, compute = im2col_rpmmv>}
    ins(%i, %f : memref<3x13x4x8xf32>, memref<11x13x1x1xf32>)
    outs(%o : memref<3x11x4x8xf32>)
  return
}

// Per image, stride 2 (every second row and column of the input copied
// first), f64, on buffers, both images in one thread's loop.
func.func @nchw_1x1_strided_buffers(%i: memref<2x9x9x8xf64>,
                                    %f: memref<6x9x1x1xf64>,
                                    %o: memref<2x6x5x4xf64>) {
  linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
                            tiletune.config = #tiletune.config<cpu,
         parallel = {n = 2, oh = 5, ow = 4, f = 6},
         cache = {oh = 5, ow = 4, f = 6, kh = 1, kw = 1, c = 9},
         register = {oh = 1, ow = 4, f = 3}, compute = im2col_tmm>}
    ins(%i, %f : memref<2x9x9x8xf64>, memref<6x9x1x1xf64>)
    outs(%o : memref<2x6x5x4xf64>)
  return
}

// Batch 1, unstrided 1x1, on buffers: the input [1][C][OH][OW] is the
// transposed window matrix [C][OH*OW], read in place by the GEMM (prime
// sizes, two threads' tiles of f).
func.func @nchw_b1_1x1_in_place_buffers(%i: memref<1x13x5x7xf32>,
                                        %f: memref<22x13x1x1xf32>,
                                        %o: memref<1x22x5x7xf32>) {
  linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 7, f = 11},
         cache = {oh = 5, ow = 7, f = 11, kh = 1, kw = 1, c = 13},
         register = {oh = 1, ow = 7, f = 11}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : memref<1x13x5x7xf32>, memref<22x13x1x1xf32>)
    outs(%o : memref<1x22x5x7xf32>)
  return
}

// Batch 1, 3x3, strides (2, 1), on buffers: each filter tap's pixels are
// copied into the transposed window matrix [C*KH*KW][OH*OW].
func.func @nchw_b1_3x3_rpmmv_buffers(%i: memref<1x7x11x9xf32>,
                                     %f: memref<10x7x3x3xf32>,
                                     %o: memref<1x10x5x7xf32>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>,
                            tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 7, f = 5},
         cache = {oh = 5, ow = 7, f = 5, kh = 3, kw = 3, c = 7},
         register = {oh = 1, ow = 7, f = 5}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : memref<1x7x11x9xf32>, memref<10x7x3x3xf32>)
    outs(%o : memref<1x10x5x7xf32>)
  return
}

// Batch 2 on tensors, whole images in the cache tile: the transposed
// window matrix [C*KH*KW][N*OH*OW], each image's GEMM rows on its own
// thread (parallel n = 1), 5 channels (the tap copies split by image).
func.func @nchw_b2_3x3_transposed(%i: tensor<2x5x9x8xf32>, %f: tensor<6x5x3x3xf32>,
                                  %o: tensor<2x6x7x6xf32>) -> tensor<2x6x7x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 6, f = 6},
         cache = {oh = 7, ow = 6, f = 6, kh = 3, kw = 3, c = 5},
         register = {oh = 1, ow = 6, f = 6}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<2x5x9x8xf32>, tensor<6x5x3x3xf32>)
    outs(%o : tensor<2x6x7x6xf32>) -> tensor<2x6x7x6xf32>
  return %0 : tensor<2x6x7x6xf32>
}

// The default config computes a 1x1 NCHW conv as its im2col GEMM: per
// image where its pixels fill whole vectors (64 here, on AVX2 and
// AVX-512), through NHWC otherwise (49).
func.func @default_nchw_1x1(%i: tensor<2x64x8x8xf32>, %f: tensor<96x64x1x1xf32>,
                            %o: tensor<2x96x8x8xf32>) -> tensor<2x96x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<2x64x8x8xf32>, tensor<96x64x1x1xf32>)
    outs(%o : tensor<2x96x8x8xf32>) -> tensor<2x96x8x8xf32>
  return %0 : tensor<2x96x8x8xf32>
}
func.func @default_nchw_1x1_7x7(%i: tensor<2x64x7x7xf32>, %f: tensor<96x64x1x1xf32>,
                                %o: tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<2x64x7x7xf32>, tensor<96x64x1x1xf32>)
    outs(%o : tensor<2x96x7x7xf32>) -> tensor<2x96x7x7xf32>
  return %0 : tensor<2x96x7x7xf32>
}

// Batch 1 on a 7x7 map with 256 channels in and out: a 1x1 conv and a 3x3
// one through NHWC with RPMMV (windows gathered in (c, kh, kw) order, the filter read in
// place). On a 14x14 map a 1x1 conv is direct through NHWC on one thread and
// the GEMM through NHWC with RPMMV on several.
func.func @default_nchw_b1_1x1(%i: tensor<1x256x7x7xf32>, %f: tensor<256x256x1x1xf32>,
                               %o: tensor<1x256x7x7xf32>) -> tensor<1x256x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<1x256x7x7xf32>, tensor<256x256x1x1xf32>)
    outs(%o : tensor<1x256x7x7xf32>) -> tensor<1x256x7x7xf32>
  return %0 : tensor<1x256x7x7xf32>
}
func.func @default_nchw_b1_3x3(%i: tensor<1x256x9x9xf32>, %f: tensor<256x256x3x3xf32>,
                               %o: tensor<1x256x7x7xf32>) -> tensor<1x256x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<1x256x9x9xf32>, tensor<256x256x3x3xf32>)
    outs(%o : tensor<1x256x7x7xf32>) -> tensor<1x256x7x7xf32>
  return %0 : tensor<1x256x7x7xf32>
}
func.func @default_nchw_b1_1x1_14x14(%i: tensor<1x256x14x14xf32>, %f: tensor<256x256x1x1xf32>,
                                     %o: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %0 = linalg.conv_2d_nchw_fchw
    ins(%i, %f : tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>)
    outs(%o : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}
