// RUN: tiletune-opt %s --split-input-file --tiletune-tile-gpu | FileCheck %s

// OpEvo's matmul template: m, n in 4 factors, k in 3. Block tile 64x64 ->
// grid 16x8; vthread 32 / thread 2 -> 16x16 threads, 2x2 vthreads of a 2x2
// register tile; k: shared 16, register 4.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG:  %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:  %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:  %[[C1:.*]] = arith.constant 1 : index
// CHECK:      gpu.launch blocks({{[^)]*}}) in ({{[^)]*}} = %[[C16]], {{[^)]*}} = %[[C8]], {{[^)]*}} = %[[C1]]) threads({{[^)]*}}) in ({{[^)]*}} = %[[C16]], {{[^)]*}} = %[[C16]], {{[^)]*}} = %[[C1]])
// CHECK-SAME:   workgroup({{.*}} : memref<4096xi8, #gpu.address_space<workgroup>>, {{.*}} : memref<4096xi8, #gpu.address_space<workgroup>>)
// CHECK:        memref.view {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK:        memref.view {{.*}} to memref<16x64xf32, #gpu.address_space<workgroup>>
// Shared level: k0 loop with the cooperative copies (one vector<4> per
// thread and operand), then a barrier.
// CHECK:        scf.for {{.*}} step %[[C16]]
// CHECK:          vector.load {{.*}} : memref<512x1024xf32>, vector<4xf32>
// CHECK:          vector.store {{.*}} : memref<64x16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:          vector.load {{.*}} : memref<1024x1024xf32>, vector<4xf32>
// CHECK:          vector.store {{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT:     gpu.barrier
// Two virtual-thread loops of 2 trips each.
// CHECK:          scf.for {{.*}} to %{{.*}} step %[[C32:.*]] {
// CHECK:            scf.for {{.*}} to %{{.*}} step %[[C32]] {
// The register tile: 2x2 accumulators read once per vthread, updated with
// FMAs from shared memory (the register-level k loop is unrolled).
// CHECK:              vector.load {{.*}} : memref<512x1024xf32>, vector<2xf32>
// CHECK:              vector.load {{.*}} #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK:              vector.fma {{.*}} : vector<2xf32>
// CHECK:              vector.store {{.*}} : memref<512x1024xf32>, vector<2xf32>
// CHECK:          gpu.barrier
// CHECK-NEXT:     }
// CHECK-NOT:  tiletune.config
// CHECK-NOT:  linalg.matmul
func.func @matmul(%A: memref<512x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<512x1024xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<512x1024xf32>, memref<1024x1024xf32>) outs(%C : memref<512x1024xf32>)
  return
}

// -----

// The same matmul with explicit_unroll: the virtual-thread loops are
// unrolled, so the four 2x2 accumulators (one per vthread) are read from
// global memory once before the shared-memory k loop, carried through it as
// iter_args and stored once after it (no global accumulator traffic per
// k step).
// CHECK-LABEL: func.func @matmul_explicit_unroll
// CHECK:        vector.load {{.*}} : memref<512x1024xf32>, vector<2xf32>
// CHECK:        %[[ACC:.*]]:4 = scf.for {{.*}} step %c16 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-NOT:      vector.store {{.*}} : memref<512x1024xf32>
// CHECK:          gpu.barrier
// CHECK:          vector.fma
// CHECK-NOT:      vector.store {{.*}} : memref<512x1024xf32>
// CHECK:          gpu.barrier
// CHECK:          scf.yield
// CHECK:        }
// CHECK:        vector.store {{.*}} : memref<512x1024xf32>, vector<2xf32>
func.func @matmul_explicit_unroll(%A: memref<512x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<512x1024xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}, explicit_unroll = true>}
    ins(%A, %B : memref<512x1024xf32>, memref<1024x1024xf32>) outs(%C : memref<512x1024xf32>)
  return
}

// -----

// Batch at block level only: b = 8 in blocks of 2 and m = 128 in blocks of
// 32 -> grid 4x4 (n = 64 is one block and not mapped); threads 8x8; each
// thread loops over the 2 batch entries of its block.
// CHECK-LABEL: func.func @batch_matmul
// CHECK:      gpu.launch blocks({{[^)]*}}) in ({{[^)]*}} = %c4, {{[^)]*}} = %c4, {{[^)]*}} = %c1)
// CHECK-SAME:   threads({{[^)]*}}) in ({{[^)]*}} = %c8, {{[^)]*}} = %c8, {{[^)]*}} = %c1)
// CHECK-SAME:   workgroup({{.*}} : memref<16384xi8, #gpu.address_space<workgroup>>, {{.*}} : memref<32768xi8, #gpu.address_space<workgroup>>)
// CHECK:        memref.view {{.*}} to memref<2x32x64xf32, #gpu.address_space<workgroup>>
// CHECK:        memref.view {{.*}} to memref<2x64x64xf32, #gpu.address_space<workgroup>>
// CHECK:        gpu.barrier
// CHECK:        vector.fma
// CHECK:        gpu.barrier
func.func @batch_matmul(%A: memref<8x128x128xf32>, %B: memref<8x128x64xf32>, %C: memref<8x128x64xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cuda, block = {b = 2, m = 32, n = 64}, vthread = {m = 16, n = 32}, thread = {m = 2, n = 4}, shared = {k = 64}, register = {k = 8}>}
    ins(%A, %B : memref<8x128x128xf32>, memref<8x128x64xf32>) outs(%C : memref<8x128x64xf32>)
  return
}

// -----

// conv_2d_nhwc_hwcf: oh, ow, f at block/vthread/thread; kh, kw, c at the
// shared level (three loops around the copies of the input window and the
// filter tile). Output 2x16x8x32 in blocks of 1x4x8x32 -> grid 4x2 over
// (oh, n); threads 4x2x4 over (f, ow, oh); the input window of a block is
// 1x6x8x8 (oh 4 + kh 3 - 1 rows).
// CHECK-LABEL: func.func @conv_nhwc
// CHECK:      gpu.launch blocks({{[^)]*}}) in ({{[^)]*}} = %c4, {{[^)]*}} = %c2, {{[^)]*}} = %c1)
// CHECK-SAME:   threads({{[^)]*}}) in ({{[^)]*}} = %c4, {{[^)]*}} = %c2, {{[^)]*}} = %c4)
// CHECK-SAME:   workgroup({{.*}} : memref<1536xi8, #gpu.address_space<workgroup>>, {{.*}} : memref<3072xi8, #gpu.address_space<workgroup>>)
// CHECK:        memref.view {{.*}} to memref<1x6x8x8xf32, #gpu.address_space<workgroup>>
// CHECK:        memref.view {{.*}} to memref<3x1x8x32xf32, #gpu.address_space<workgroup>>
// CHECK:        scf.for
// CHECK:          scf.for
// CHECK:            gpu.barrier
// CHECK:            arith.mulf {{.*}} fastmath<contract>
// CHECK:            gpu.barrier
func.func @conv_nhwc(%I: memref<2x18x10x16xf32>, %F: memref<3x3x16x32xf32>, %O: memref<2x16x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cuda, block = {n = 1, oh = 4, ow = 8, f = 32}, vthread = {oh = 4, ow = 4, f = 16}, thread = {oh = 1, ow = 2, f = 4}, shared = {kh = 3, kw = 1, c = 8}>}
    ins(%I, %F : memref<2x18x10x16xf32>, memref<3x3x16x32xf32>) outs(%O : memref<2x16x8x32xf32>)
  return
}

// -----

// Ops without a config, or with a cpu config, are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:  gpu.launch
// CHECK:      linalg.matmul ins
// CHECK:      linalg.matmul {tiletune.config = #tiletune.config<cpu
func.func @untouched(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 64}, cache = {m = 32, n = 32, k = 32}, register = {m = 4, n = 16}>}
    ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  return
}
