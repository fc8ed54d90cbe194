// An input already lowered to the LLVM dialect runs without a pipeline when
// its function records the pre-lowering signature; without the record the
// runner cannot size the buffers and says so.

// RUN: mlir-opt %s --pass-pipeline="builtin.module(convert-linalg-to-loops,convert-scf-to-cf,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)" \
// RUN:   | tiletune-run - --repeats=1 | FileCheck %s
// CHECK: kernel: @add(memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NOT: op:
// CHECK: time:

// RUN: mlir-opt %s --pass-pipeline="builtin.module(convert-linalg-to-loops,convert-scf-to-cf,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)" \
// RUN:   | not tiletune-run - --entry=unrecorded 2>&1 | FileCheck %s --check-prefix=NOSIG
// NOSIG: error: no kernel @unrecorded in the compiled module

// RUN: mlir-opt %s --pass-pipeline="builtin.module(convert-linalg-to-loops,convert-scf-to-cf,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)" \
// RUN:   | not tiletune-run - --entry=add --verify 2>&1 | FileCheck %s --check-prefix=NOVERIFY
// NOVERIFY: error: --verify needs the module before lowering: give the linalg module and a --pipeline

func.func @add(%A: memref<64xf32>, %B: memref<64xf32>)
    attributes {llvm.emit_c_interface,
                tiletune_exec.signature = (memref<64xf32>, memref<64xf32>) -> ()} {
  linalg.add ins(%A, %B : memref<64xf32>, memref<64xf32>)
             outs(%B : memref<64xf32>)
  return
}

func.func @unrecorded(%A: memref<64xf32>) attributes {llvm.emit_c_interface} {
  return
}
