// Errors about the module as a whole are short and located: the file and
// the module's position, no note that prints the whole module (an error
// emitted on the module op attaches it as "see current operation").
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tiletune-opt --tiletune-autotune="algorithm=nope db=%t/a.db" %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AUTOTUNE --implicit-check-not="see current operation" --implicit-check-not=func.func
// RUN: not tiletune-opt --tiletune-apply-db="db=%t/missing.db" %s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=APPLY --implicit-check-not="see current operation" --implicit-check-not=func.func
// RUN: not tiletune tune %S/../tools/Inputs/no-tunable.mlir --db=%t/b.db --quiet 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTUNABLE --implicit-check-not="see current operation" --implicit-check-not=arith.addf
// RUN: not tiletune-opt --tiletune-autotune="db=%t/c.db" %S/../tools/Inputs/no-tunable.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTUNABLE --implicit-check-not="see current operation" --implicit-check-not=arith.addf

// AUTOTUNE: module-errors.mlir:0:0: error: unknown algorithm 'nope'
// APPLY: module-errors.mlir:0:0: error: {{.*}}missing.db
// NOTUNABLE: no-tunable.mlir:0:0: error: no tunable op found (supported:
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
