// Runs the GPU tiling on the CPU: with map-to-gpu=false the kernel stays as
// nested scf.forall loops (block and thread mapping attributes) with the
// operand tiles staged through buffers, which execute sequentially on the
// host. The tiled op and an untiled copy of it run on the same integer-valued
// inputs; every product and sum is exact, so the results must be identical.
// RUN: tiletune-opt %s --tiletune-tile-gpu=map-to-gpu=false \
// RUN: | mlir-opt --scf-forall-to-for --convert-linalg-to-loops \
// RUN:     --convert-vector-to-scf --expand-strided-metadata --lower-affine \
// RUN:     --finalize-memref-to-llvm --convert-scf-to-cf --convert-vector-to-llvm \
// RUN:     --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm \
// RUN:     --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
// CHECK: max-abs-diff 0

func.func @fill_a(%m: memref<?x?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %c7 = arith.constant 7 : index
    %s0 = arith.constant 0 : index
    %i0 = linalg.index 0 : index
    %k0 = arith.constant 1 : index
    %p0 = arith.muli %i0, %k0 : index
    %s1 = arith.addi %s0, %p0 : index
    %i1 = linalg.index 1 : index
    %k1 = arith.constant 3 : index
    %p1 = arith.muli %i1, %k1 : index
    %s2 = arith.addi %s1, %p1 : index
    %i2 = linalg.index 2 : index
    %k2 = arith.constant 5 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %i3 = linalg.index 3 : index
    %k3 = arith.constant 2 : index
    %p3 = arith.muli %i3, %k3 : index
    %s4 = arith.addi %s3, %p3 : index
    %r = arith.remui %s4, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @fill_b(%m: memref<?x?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %c7 = arith.constant 7 : index
    %s0 = arith.constant 0 : index
    %i0 = linalg.index 0 : index
    %k0 = arith.constant 2 : index
    %p0 = arith.muli %i0, %k0 : index
    %s1 = arith.addi %s0, %p0 : index
    %i1 = linalg.index 1 : index
    %k1 = arith.constant 1 : index
    %p1 = arith.muli %i1, %k1 : index
    %s2 = arith.addi %s1, %p1 : index
    %i2 = linalg.index 2 : index
    %k2 = arith.constant 3 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %i3 = linalg.index 3 : index
    %k3 = arith.constant 1 : index
    %p3 = arith.muli %i3, %k3 : index
    %s4 = arith.addi %s3, %p3 : index
    %r = arith.remui %s4, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @fill_c(%m: memref<?x?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?x?xf32>) {
  ^bb0(%o: f32):
    %c7 = arith.constant 7 : index
    %s0 = arith.constant 0 : index
    %i0 = linalg.index 0 : index
    %k0 = arith.constant 1 : index
    %p0 = arith.muli %i0, %k0 : index
    %s1 = arith.addi %s0, %p0 : index
    %i1 = linalg.index 1 : index
    %k1 = arith.constant 1 : index
    %p1 = arith.muli %i1, %k1 : index
    %s2 = arith.addi %s1, %p1 : index
    %i2 = linalg.index 2 : index
    %k2 = arith.constant 2 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %i3 = linalg.index 3 : index
    %k3 = arith.constant 3 : index
    %p3 = arith.muli %i3, %k3 : index
    %s4 = arith.addi %s3, %p3 : index
    %r = arith.remui %s4, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @tiled(%A: memref<2x8x10x12xf32>, %B: memref<16x8x3x3xf32>, %C: memref<2x16x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cuda, block = {n = 2, f = 8, oh = 4, ow = 8}, vthread = {f = 4, oh = 2, ow = 8}, thread = {f = 1, oh = 1, ow = 2}, shared = {c = 4, kh = 3, kw = 1}>}
    ins(%A, %B : memref<2x8x10x12xf32>, memref<16x8x3x3xf32>) outs(%C : memref<2x16x8x8xf32>)
  return
}

func.func @main() {
  %A = memref.alloc() : memref<2x8x10x12xf32>
  %B = memref.alloc() : memref<16x8x3x3xf32>
  %C = memref.alloc() : memref<2x16x8x8xf32>
  %R = memref.alloc() : memref<2x16x8x8xf32>
  %Ad = memref.cast %A : memref<2x8x10x12xf32> to memref<?x?x?x?xf32>
  %Bd = memref.cast %B : memref<16x8x3x3xf32> to memref<?x?x?x?xf32>
  %Cd = memref.cast %C : memref<2x16x8x8xf32> to memref<?x?x?x?xf32>
  call @fill_a(%Ad) : (memref<?x?x?x?xf32>) -> ()
  call @fill_b(%Bd) : (memref<?x?x?x?xf32>) -> ()
  call @fill_c(%Cd) : (memref<?x?x?x?xf32>) -> ()
  memref.copy %C, %R : memref<2x16x8x8xf32> to memref<2x16x8x8xf32>
  call @tiled(%A, %B, %C) : (memref<2x8x10x12xf32>, memref<16x8x3x3xf32>, memref<2x16x8x8xf32>) -> ()
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%A, %B : memref<2x8x10x12xf32>, memref<16x8x3x3xf32>) outs(%R : memref<2x16x8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%C : memref<2x16x8x8xf32>) outs(%R : memref<2x16x8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    linalg.yield %a : f32
  }
  %acc = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %acc[] : memref<f32>
  linalg.reduce ins(%R : memref<2x16x8x8xf32>) outs(%acc : memref<f32>) dimensions = [0, 1, 2, 3]
    (%x: f32, %mx: f32) {
      %r = arith.maximumf %x, %mx : f32
      linalg.yield %r : f32
    }
  %v = memref.load %acc[] : memref<f32>
  vector.print str "max-abs-diff "
  vector.print %v : f32
  return
}
