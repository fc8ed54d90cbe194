// AutoMCL's DNMM332 (`pack = dn`, or `compute = dnmm332`) on matmuls whose A
// is stored [b?][m][k] and B [b?][n][k] (nn.Linear, attention's Q·Kᵀ): both
// read along k in vectors of per-lane partial sums, reduced after each k
// chunk. Divisible and odd sizes (k not a multiple of the vector, a k cache
// tile that is not whole vectors, padded m and n), tensors and buffers, f32
// and f64, batched, one row (nn.Linear at batch 1), 1 and 2 threads and
// AVX2 (haswell), each verified against the C++ reference.
// RUN: tiletune-run %s --entry=dn_even --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_even --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_even --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_pad --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_pad --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_pad --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_overpad --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_gemv_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_gemv_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_pad_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_bmm --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_bmm --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_kchunk --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_kchunk --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_scalar --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dn_linear_relu --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=UNTILED
// RUN: tiletune-opt %s --tiletune-tile-cpu="mcpu=znver4" | FileCheck %s --check-prefix=IR
// RUN: tiletune-opt %s --tiletune-tile-cpu="mcpu=haswell" | FileCheck %s --check-prefix=AVX2
// RUN: tiletune-opt %s --tiletune-tile-cpu="emit-remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not tiletune-opt %s --tiletune-tile-cpu="mcpu=notacpu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCPU
// BADCPU: error: tiletune-tile-cpu: unknown CPU 'notacpu'

// CHECK: verify: PASSED
// UNTILED: verify: passed against the untiled lowering

// The register tile: rm x rn FMAs of k vectors, then a reassociated
// horizontal sum per output, added to the output tile.
// IR-LABEL: func.func @dn_even
// IR: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (64, 96) step (32, 48)
// IR: vector.transfer_read {{.*}} : tensor<64x256xf32>, vector<16xf32>
// IR-COUNT-8: vector.fma {{.*}} : vector<16xf32>
// IR: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// IR: vector.transfer_write {{.*}} : vector<2x4xf32>, tensor<32x48xf32>
// The last thread tile of a loop padded past a whole tile is empty:
// max(0, min(tile, size - offset)).
// IR-LABEL: func.func @dn_overpad
// IR: scf.forall (%[[T:.*]]) = (0) to (8) step (2)
// IR: %[[LEFT:.*]] = arith.subi %c5{{[_0-9]*}}, %[[T]] : index
// IR: %[[MIN:.*]] = arith.minsi %[[LEFT]], %c2{{[_0-9]*}} : index
// IR: arith.maxsi %[[MIN]], %c0{{[_0-9]*}} : index
// AVX2-LABEL: func.func @dn_even
// AVX2: vector.transfer_read {{.*}} : tensor<64x256xf32>, vector<8xf32>
// AVX2: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
// REMARK: remark: epilogue not fused: compute dnmm332 (pack = dn) adds to the output tile after each k chunk: the epilogue runs after the op

func.func @dn_even(%a: tensor<64x256xf32>, %w: tensor<96x256xf32>,
                   %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 32, n = 48}, cache = {k = 128, m = 16, n = 48},
         register = {m = 2, n = 4}, order = [m, n, k], pack = dn>}
       ins(%a, %w : tensor<64x256xf32>, tensor<96x256xf32>)
       outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// Primes: k = 67 (a partial vector at the end), m and n padded (61 -> 64,
// 37 -> 40).
func.func @dn_pad(%a: tensor<61x67xf32>, %w: tensor<37x67xf32>,
                  %c: tensor<61x37xf32>) -> tensor<61x37xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 32, n = 40}, cache = {k = 67, m = 16, n = 20},
         register = {m = 4, n = 5}, order = [n, k, m], compute = dnmm332,
         pad = {m = 64, n = 40}>}
       ins(%a, %w : tensor<61x67xf32>, tensor<37x67xf32>)
       outs(%c : tensor<61x37xf32>) -> tensor<61x37xf32>
  return %r : tensor<61x37xf32>
}

// A k cache tile of 20, rounded up to whole vectors (32 for 16 lanes, 24 for
// 8): k = 60 ends in a partial vector inside the last chunk.
func.func @dn_kchunk(%a: tensor<61x60xf32>, %w: tensor<37x60xf32>,
                     %c: tensor<61x37xf32>) -> tensor<61x37xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 32, n = 40}, cache = {k = 20, m = 16, n = 20},
         register = {m = 4, n = 5}, order = [k, n, m], pack = dn,
         pad = {m = 64, n = 40}>}
       ins(%a, %w : tensor<61x60xf32>, tensor<37x60xf32>)
       outs(%c : tensor<61x37xf32>) -> tensor<61x37xf32>
  return %r : tensor<61x37xf32>
}

// m = 5 padded to 8 in thread tiles of 2: the last thread tile starts past
// the end (an empty output slice).
func.func @dn_overpad(%a: tensor<5x9xf32>, %w: tensor<6x9xf32>,
                      %c: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 2, n = 6}, cache = {k = 9, m = 2, n = 6},
         register = {m = 1, n = 3}, order = [m, n, k], pack = dn,
         pad = {m = 8}>}
       ins(%a, %w : tensor<5x9xf32>, tensor<6x9xf32>)
       outs(%c : tensor<5x6xf32>) -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}

// nn.Linear at batch 1, on buffers, f64: one row against a weight [out, in].
func.func @dn_gemv_buffers(%a: memref<1x77xf64>, %w: memref<30x77xf64>,
                           %c: memref<1x30xf64>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 1, n = 15}, cache = {k = 77, m = 1, n = 15},
         register = {m = 1, n = 5}, order = [n, k, m], pack = dn>}
       ins(%a, %w : memref<1x77xf64>, memref<30x77xf64>)
       outs(%c : memref<1x30xf64>)
  return
}

// Padded on buffers (padToConfig pads the operands first).
func.func @dn_pad_buffers(%a: memref<13x19xf32>, %w: memref<11x19xf32>,
                          %c: memref<13x11xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 8, n = 12}, cache = {k = 19, m = 8, n = 12},
         register = {m = 2, n = 3}, order = [m, n, k], pack = dn,
         pad = {m = 16, n = 12}>}
       ins(%a, %w : memref<13x19xf32>, memref<11x19xf32>)
       outs(%c : memref<13x11xf32>)
  return
}

// Attention's Q·Kᵀ: batch_matmul with B stored [b][n][k].
func.func @dn_bmm(%q: tensor<4x24x40xf32>, %k: tensor<4x18x40xf32>,
                  %c: tensor<4x24x18xf32>) -> tensor<4x24x18xf32> {
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 2, m = 24, n = 18}, cache = {k = 40, m = 12, n = 18},
         register = {m = 3, n = 3}, order = [m, n, k], pack = dn>}
       ins(%q, %k : tensor<4x24x40xf32>, tensor<4x18x40xf32>)
       outs(%c : tensor<4x24x18xf32>) -> tensor<4x24x18xf32>
  return %r : tensor<4x24x18xf32>
}

// vectorize = false: the same nest with one lane.
func.func @dn_scalar(%a: tensor<7x9xf32>, %w: tensor<5x9xf32>,
                     %c: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 7, n = 5}, cache = {k = 9, m = 7, n = 5},
         register = {m = 1, n = 5}, order = [m, n, k], pack = dn,
         vectorize = false>}
       ins(%a, %w : tensor<7x9xf32>, tensor<5x9xf32>)
       outs(%c : tensor<7x5xf32>) -> tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}

// nn.Linear + bias + ReLU: the epilogue runs after the op (a remark says so).
func.func @dn_linear_relu(%x: tensor<8x48xf32>, %w: tensor<24x48xf32>,
                          %bias: tensor<24xf32>) -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x24xf32>) -> tensor<8x24xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
          parallel = {m = 4, n = 24}, cache = {k = 48, m = 4, n = 24},
          register = {m = 2, n = 4}, order = [m, n, k], pack = dn>}
        ins(%x, %w : tensor<8x48xf32>, tensor<24x48xf32>)
        outs(%init : tensor<8x24xf32>) -> tensor<8x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%mm, %bias : tensor<8x24xf32>, tensor<24xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}
