// A vectorized kernel rounds differently from the reference (fused
// multiply-adds): it passes with the default tolerance, which grows with the
// reduction length, and fails with a zero tolerance, reporting the first
// mismatching element and exiting with an error.

// RUN: tiletune-run %s --repeats=0 --verify \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%S/Inputs/vectorize-to-fma.mlir},transform-interpreter,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-vector-to-scf,expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts" \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: not tiletune-run %s --repeats=0 --verify --tolerance-factor=0 \
// RUN:   --pipeline="transform-preload-library{transform-library-paths=%S/Inputs/vectorize-to-fma.mlir},transform-interpreter,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},convert-vector-to-scf,expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts" \
// RUN:   2>&1 | FileCheck %s --check-prefix=FAIL

// PASS: verify: PASSED: max abs error {{[1-9]}}
// FAIL: verify: FAILED: max abs error {{.*}} mismatching element{{s?}}, first at [{{[0-9]+}}, {{[0-9]+}}]: got {{.*}}, expected
// FAIL: error: verification failed

func.func @mm(%A: tensor<8x64xf32>, %B: tensor<64x16xf32>,
              %C: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<8x64xf32>, tensor<64x16xf32>)
                     outs(%C : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
