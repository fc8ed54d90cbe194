// The options of the tiletune-lower-cpu pipeline are checked when the
// pipeline is parsed, before any pass runs: threads is 0..1024.
// RUN: not tiletune-opt %s --tiletune-lower-cpu=threads=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tiletune-opt %s --pass-pipeline="builtin.module(tiletune-lower-cpu{threads=-1})" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: the threads option of tiletune-lower-cpu must be between 0 and 1024 (0: all cores), got -1
// RUN: not tiletune-opt %s --tiletune-lower-cpu=threads=100000 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: the threads option of tiletune-lower-cpu must be between 0 and 1024 (0: all cores), got 100000
// Options that are not numbers are still refused by the option parser.
// RUN: not tiletune-opt %s --tiletune-lower-cpu=threads=two 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: 'two' value invalid
// The threads option of tiletune-default-config is 0..1024 (0: every core
// of this process); the error is at the module's location, without the
// module printed as a note.
// RUN: not tiletune-opt %s --tiletune-default-config=threads=-1 2>&1 | FileCheck %s --check-prefix=DEFNEG
// DEFNEG: error: tiletune-default-config: threads must be between 0 (every core) and 1024, got -1
// DEFNEG-NOT: see current operation
// RUN: not tiletune-opt %s --tiletune-default-config=threads=5000 2>&1 | FileCheck %s --check-prefix=DEFMANY
// DEFMANY: error: tiletune-default-config: threads must be between 0 (every core) and 1024, got 5000
// RUN: tiletune-opt %s --tiletune-default-config=threads=0 | FileCheck %s --check-prefix=DEFZERO
// DEFZERO: linalg.matmul {tiletune.config = #tiletune.config<cpu
// fuse-epilogues is a boolean (off by default).
// RUN: not tiletune-opt %s --tiletune-lower-cpu=fuse-epilogues=sometimes 2>&1 | FileCheck %s --check-prefix=FUSEBAD
// FUSEBAD: 'sometimes' is invalid value for boolean argument
// RUN: tiletune-opt %s --tiletune-lower-cpu="fuse-epilogues=1 default-configs=1" | FileCheck %s --check-prefix=OK
// approximate-math (on by default) expands f32 exp into arithmetic; off, it
// stays the llvm.intr.exp that becomes a libm call.
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu | FileCheck %s --check-prefix=APPROX
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu=approximate-math=0 | FileCheck %s --check-prefix=LIBM
// Both are booleans.
// RUN: not tiletune-opt %s --tiletune-lower-cpu=approximate-math=fast 2>&1 | FileCheck %s --check-prefix=APPROXBAD
// APPROXBAD: 'fast' is invalid value for boolean argument
// RUN: not tiletune-opt %s --tiletune-lower-cpu=reassociate-reductions=2 2>&1 | FileCheck %s --check-prefix=REASSOCBAD
// REASSOCBAD: '2' is invalid value for boolean argument
// skip-padding-taps (on by default; test/Execution/run-conv-padding-taps.mlir)
// is a boolean too, of the pipeline and of tiletune-tile-cpu.
// RUN: not tiletune-opt %s --tiletune-lower-cpu=skip-padding-taps=maybe 2>&1 | FileCheck %s --check-prefix=SKIPBAD
// RUN: not tiletune-opt %s --tiletune-tile-cpu=skip-padding-taps=maybe 2>&1 | FileCheck %s --check-prefix=SKIPBAD
// SKIPBAD: 'maybe' is invalid value for boolean argument
// pads-in-place (on by default; test/Transforms/pads-in-place.mlir) as well.
// RUN: not tiletune-opt %s --tiletune-lower-cpu=pads-in-place=often 2>&1 | FileCheck %s --check-prefix=PADSBAD
// PADSBAD: 'often' is invalid value for boolean argument
// RUN: not tiletune-opt %s --tiletune-lower-cpu=interchange-reductions=yes 2>&1 | FileCheck %s --check-prefix=INTERBAD
// INTERBAD: 'yes' is invalid value for boolean argument
// APPROX-LABEL: llvm.func @softmax_exp
// APPROX-NOT: llvm.intr.exp
// APPROX: llvm.intr.fma
// APPROX-NOT: llvm.intr.exp
// LIBM-LABEL: llvm.func @softmax_exp
// LIBM: llvm.intr.exp
// reassociate-reductions (on by default) lets the sum of an untiled
// reduction be reordered; off, it is summed in order.
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu | FileCheck %s --check-prefix=REASSOC
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu=reassociate-reductions=0 | FileCheck %s --check-prefix=INORDER
// REASSOC-LABEL: llvm.func @row_sum
// REASSOC: llvm.fadd {{.*}}fastmath<reassoc>
// INORDER-LABEL: llvm.func @row_sum
// INORDER-NOT: reassoc
// In range, the pipeline runs.
// RUN: tiletune-opt %s --tiletune-lower-cpu=threads=2 | FileCheck %s --check-prefix=OK
// OK: llvm.func @f

func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>)
                outs(%c : memref<4x4xf32>)
  return
}

// -----

#map = affine_map<(d0) -> (d0)>
func.func @softmax_exp(%x: memref<64xf32>, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

func.func @row_sum(%x: memref<16x128xf32>, %y: memref<16xf32>) {
  linalg.reduce ins(%x : memref<16x128xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return
}
