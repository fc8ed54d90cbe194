// AutoMCL's TTMM (`pack = bt`, or `compute = ttmm`) on matmuls whose B is
// stored transposed ([b?][n][k], nn.Linear's weights, attention's K): B is
// transposed whole into [b?][k][n] before the loop nest, which then runs
// unpacked. Padded and unpadded, tensors and buffers, f32 and f64, the AᵀBᵀ
// form (A's transpose stays), 1 and 2 threads and AVX2 (haswell), each
// verified against the C++ reference.
// RUN: tiletune-run %s --entry=tt_pad --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_pad --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_pad --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_gemv_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_gemv_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_tiles --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_tiles --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_bmm --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_bmm --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=tt_bmm_ab_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-tile-cpu | FileCheck %s --check-prefix=IR
// RUN: tiletune-run %s --entry=tt_linear_relu --pipeline="tiletune-lower-cpu{fuse-epilogues=1}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=FUSED
// RUN: tiletune-opt %s --tiletune-tile-cpu="fuse-epilogues=1" | FileCheck %s --check-prefix=FUSEDIR

// CHECK: verify: PASSED
// FUSED: verify: passed against the untiled lowering

// FUSEDIR-LABEL: func.func @tt_linear_relu
// FUSEDIR: linalg.transpose
// FUSEDIR: scf.forall
// FUSEDIR: arith.maximumf
// FUSEDIR: scf.forall.in_parallel
// FUSEDIR-NOT: linalg.generic
// FUSEDIR: return

// The transpose comes first, split over the op's 2 threads, then the plain
// matmul's tiles, unpacked: no packing buffer of B panels.
// IR-LABEL: func.func @tt_pad
// IR: scf.forall (%{{.*}}) = (0) to (96) step (48)
// IR: linalg.transpose ins(%{{.*}} : tensor<67x48xf32>) outs(%{{.*}} : tensor<48x67xf32>) permutation = [1, 0]
// IR-NOT: tensor.empty() : tensor<{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}xf32>
// IR: scf.forall (%{{.*}}) = (0) to (61) step (32)
// IR-LABEL: func.func @tt_gemv_buffers
// IR: vector.transpose %{{.*}}, [1, 0] : vector<1x13xf64> to vector<13x1xf64>
// IR-LABEL: func.func @tt_bmm(
// IR: linalg.transpose ins(%{{.*}} : tensor<2x29x16xf32>) outs(%{{.*}} : tensor<2x16x29xf32>) permutation = [0, 2, 1]

func.func @tt_pad(%a: tensor<61x96xf32>, %w: tensor<67x96xf32>,
                  %c: tensor<61x67xf32>) -> tensor<61x67xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 32, n = 80}, cache = {k = 32, m = 32, n = 80},
         register = {m = 8, n = 16}, order = [n, k, m], pack = bt,
         pad = {m = 64, n = 80}, unroll = 4>}
       ins(%a, %w : tensor<61x96xf32>, tensor<67x96xf32>)
       outs(%c : tensor<61x67xf32>) -> tensor<61x67xf32>
  return %r : tensor<61x67xf32>
}

// One row against a weight stored [out, in], named by its compute.
func.func @tt_gemv_buffers(%a: memref<1x13xf64>, %w: memref<31x13xf64>,
                           %c: memref<1x31xf64>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 1, n = 16}, cache = {k = 13, m = 1, n = 16},
         register = {m = 1, n = 16}, order = [n, k, m], compute = ttmm,
         pad = {n = 32}>}
       ins(%a, %w : memref<1x13xf64>, memref<31x13xf64>)
       outs(%c : memref<1x31xf64>)
  return
}

// Several cache tiles per thread along every loop.
func.func @tt_tiles(%a: tensor<64x128xf32>, %w: tensor<256x128xf32>,
                    %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 32, n = 256}, cache = {k = 32, m = 16, n = 64},
         register = {m = 8, n = 32}, order = [m, k, n], pack = bt, unroll = 4>}
       ins(%a, %w : tensor<64x128xf32>, tensor<256x128xf32>)
       outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// Attention's Q*K^T: 4 heads, 29 tokens, head size 16.
func.func @tt_bmm(%q: tensor<4x29x16xf32>, %k: tensor<4x29x16xf32>,
                  %s: tensor<4x29x29xf32>) -> tensor<4x29x29xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 2, m = 32, n = 29}, cache = {k = 16, m = 32, n = 29},
         register = {m = 8, n = 29}, order = [n, k, m], pack = bt,
         pad = {m = 32}, unroll = 4>}
    ins(%q, %k : tensor<4x29x16xf32>, tensor<4x29x16xf32>)
    outs(%s : tensor<4x29x29xf32>) -> tensor<4x29x29xf32>
  return %0 : tensor<4x29x29xf32>
}

func.func @tt_bmm_ab_buffers(%a: memref<2x12x8xf32>, %b: memref<2x16x12xf32>,
                             %c: memref<2x8x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 1, m = 8, n = 16}, cache = {k = 12, m = 8, n = 16},
         register = {m = 8, n = 16}, order = [n, k, m], pack = bt, unroll = 4>}
    ins(%a, %b : memref<2x12x8xf32>, memref<2x16x12xf32>)
    outs(%c : memref<2x8x16xf32>)
  return
}

// nn.Linear with its bias and ReLU: the epilogue is fused into the loop
// nest of the matmul on the transposed B (no transpose after the op; the
// tiles divide the sizes: a padded op's epilogue is not fused).
#id2 = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @tt_linear_relu(%x: tensor<48x80xf32>, %w: tensor<64x80xf32>,
                          %bias: tensor<64xf32>) -> tensor<48x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 24, n = 64}, cache = {k = 40, m = 24, n = 64},
         register = {m = 8, n = 16}, order = [n, k, m], pack = bt, unroll = 4>}
       ins(%x, %w : tensor<48x80xf32>, tensor<64x80xf32>)
       outs(%f : tensor<48x64xf32>) -> tensor<48x64xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<48x64xf32>, tensor<64xf32>) outs(%e : tensor<48x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<48x64xf32>
  return %1 : tensor<48x64xf32>
}
