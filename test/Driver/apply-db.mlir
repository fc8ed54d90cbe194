// tiletune-apply-db: ops with a result in the database get the tuned config,
// ops without one and ops with an explicit config are left alone (unless
// override=true); the annotated module compiles with tiletune-lower-cpu.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune tune %S/../tools/Inputs/small-matmul.mlir --algorithm=random \
// RUN:   --trials=3 --threads=1 --repeats=2 --min-sample-ms=0.1 --quiet --db=%t/t.db
// RUN: tiletune-opt --split-input-file --tiletune-apply-db="db=%t/t.db threads=1" %s | FileCheck %s
// RUN: tiletune-opt --split-input-file --tiletune-apply-db="db=%t/t.db threads=1 override=true" %s | FileCheck %s --check-prefix=OVERRIDE
// RUN: tiletune-opt --tiletune-apply-db="db=%t/t.db threads=1" --tiletune-lower-cpu %S/../tools/Inputs/small-matmul.mlir | FileCheck %s --check-prefix=LOWERED
// RUN: not tiletune-opt --tiletune-apply-db="db=%t/missing.db" %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tiletune-opt --tiletune-apply-db="db=%t/t.db threads=7" %S/../tools/Inputs/small-matmul.mlir | FileCheck %s --check-prefix=OTHERTHREADS

// CHECK-LABEL: func.func @tuned
// CHECK: linalg.matmul {tiletune.config = #tiletune.config<cpu,
// OVERRIDE-LABEL: func.func @tuned
// OVERRIDE: linalg.matmul {tiletune.config = #tiletune.config<cpu,
func.func @tuned(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
                 %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

// -----

// No result for this shape: untouched.
// CHECK-LABEL: func.func @untuned
// CHECK: linalg.matmul ins(
func.func @untuned(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>,
                   %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>)
                     outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// An explicit config wins unless override=true.
// CHECK-LABEL: func.func @explicit
// CHECK: register = {m = 1, n = 1}
// OVERRIDE-LABEL: func.func @explicit
// OVERRIDE-NOT: register = {m = 1, n = 1}
func.func @explicit(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
                    %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 16, n = 24}, cache = {m = 16, n = 24, k = 32},
         register = {m = 1, n = 1}>}
       ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
       outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

// LOWERED: llvm.func @small
// MISSING: error: tuning database '{{.*}}missing.db' does not exist
// Results tuned with one thread do not apply to seven.
// OTHERTHREADS: linalg.matmul ins(
