// tiletune-autotune: tunes the ops of the module in the pipeline, records
// the results and annotates the ops; a later tiletune-apply-db finds them.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune-opt --tiletune-autotune="algorithm=random trials=3 threads=1 db=%t/a.db" %s | FileCheck %s
// RUN: tiletune report --db=%t/a.db | FileCheck %s --check-prefix=REPORT
// RUN: not tiletune-opt --tiletune-autotune="algorithm=nope db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=BAD
// Paired timing by default (the export has the ratios), paired=false times alone.
// RUN: tiletune export --db=%t/a.db | FileCheck %s --check-prefix=PAIRED
// RUN: tiletune-opt --tiletune-autotune="algorithm=random trials=2 threads=1 paired=false db=%t/b.db" %s > /dev/null
// RUN: tiletune export --db=%t/b.db | FileCheck %s --check-prefix=ALONE
// PAIRED: "paired":{"relative"
// ALONE-NOT: "paired"
// RUN: not tiletune-opt --tiletune-autotune="paired=maybe db=%t/c.db" %s 2>&1 | FileCheck %s --check-prefix=BADPAIRED
// BADPAIRED: 'maybe' is invalid value for boolean argument
// weights=model (the default) times the weights as a run of the module has
// them; this module's only weight is timed warm, and recorded so, as with
// weights=warm. A bad value is an error.
// RUN: tiletune-opt --tiletune-autotune="algorithm=random trials=2 threads=1 weights=warm db=%t/d.db" %s > /dev/null
// RUN: tiletune export --db=%t/d.db | FileCheck %s --check-prefix=WEIGHTS
// RUN: tiletune export --db=%t/a.db | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: "measurement":"paired","patience"
// RUN: not tiletune-opt --tiletune-autotune="weights=cold db=%t/e.db" %s 2>&1 | FileCheck %s --check-prefix=BADWEIGHTS
// BADWEIGHTS: error: unknown weights mode 'cold' (known: warm, model)

// CHECK-LABEL: func.func @f
// CHECK: linalg.matmul {tiletune.config = #tiletune.config<cpu,
// REPORT: matmul/f32/m=8,n=8,k=8 random 
// BAD: error: unknown algorithm 'nope'
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
