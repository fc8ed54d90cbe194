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

func.func @fill_a(%m: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?xf32>) {
  ^bb0(%o: f32):
    %c7 = arith.constant 7 : index
    %s0 = arith.constant 0 : index
    %i0 = linalg.index 0 : index
    %k0 = arith.constant 2 : index
    %p0 = arith.muli %i0, %k0 : index
    %s1 = arith.addi %s0, %p0 : index
    %i1 = linalg.index 1 : index
    %k1 = arith.constant 3 : index
    %p1 = arith.muli %i1, %k1 : index
    %s2 = arith.addi %s1, %p1 : index
    %i2 = linalg.index 2 : index
    %k2 = arith.constant 1 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %r = arith.remui %s3, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @fill_b(%m: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?xf32>) {
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
    %k2 = arith.constant 5 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %r = arith.remui %s3, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @fill_c(%m: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%m : memref<?x?x?xf32>) {
  ^bb0(%o: f32):
    %c7 = arith.constant 7 : index
    %s0 = arith.constant 0 : index
    %i0 = linalg.index 0 : index
    %k0 = arith.constant 3 : index
    %p0 = arith.muli %i0, %k0 : index
    %s1 = arith.addi %s0, %p0 : index
    %i1 = linalg.index 1 : index
    %k1 = arith.constant 5 : index
    %p1 = arith.muli %i1, %k1 : index
    %s2 = arith.addi %s1, %p1 : index
    %i2 = linalg.index 2 : index
    %k2 = arith.constant 3 : index
    %p2 = arith.muli %i2, %k2 : index
    %s3 = arith.addi %s2, %p2 : index
    %r = arith.remui %s3, %c7 : index
    %r32 = arith.index_cast %r : index to i32
    %f = arith.sitofp %r32 : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  }
  return
}

func.func @tiled(%A: memref<4x32x48xf32>, %B: memref<4x48x64xf32>, %C: memref<4x32x64xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cuda, block = {b = 2, m = 16, n = 32}, vthread = {m = 8, n = 16}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<4x32x48xf32>, memref<4x48x64xf32>) outs(%C : memref<4x32x64xf32>)
  return
}

func.func @main() {
  %A = memref.alloc() : memref<4x32x48xf32>
  %B = memref.alloc() : memref<4x48x64xf32>
  %C = memref.alloc() : memref<4x32x64xf32>
  %R = memref.alloc() : memref<4x32x64xf32>
  %Ad = memref.cast %A : memref<4x32x48xf32> to memref<?x?x?xf32>
  %Bd = memref.cast %B : memref<4x48x64xf32> to memref<?x?x?xf32>
  %Cd = memref.cast %C : memref<4x32x64xf32> to memref<?x?x?xf32>
  call @fill_a(%Ad) : (memref<?x?x?xf32>) -> ()
  call @fill_b(%Bd) : (memref<?x?x?xf32>) -> ()
  call @fill_c(%Cd) : (memref<?x?x?xf32>) -> ()
  memref.copy %C, %R : memref<4x32x64xf32> to memref<4x32x64xf32>
  call @tiled(%A, %B, %C) : (memref<4x32x48xf32>, memref<4x48x64xf32>, memref<4x32x64xf32>) -> ()
  linalg.batch_matmul ins(%A, %B : memref<4x32x48xf32>, memref<4x48x64xf32>) outs(%R : memref<4x32x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%C : memref<4x32x64xf32>) outs(%R : memref<4x32x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    linalg.yield %a : f32
  }
  %acc = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %acc[] : memref<f32>
  linalg.reduce ins(%R : memref<4x32x64xf32>) outs(%acc : memref<f32>) dimensions = [0, 1, 2]
    (%x: f32, %mx: f32) {
      %r = arith.maximumf %x, %mx : f32
      linalg.yield %r : f32
    }
  %v = memref.load %acc[] : memref<f32>
  vector.print str "max-abs-diff "
  vector.print %v : f32
  return
}
