// The CPU target of the `tiletune` CLI (--mcpu/--mattr, LLVM's names): the
// space's default config is sized for it, results are recorded under it and
// applied only for it (AVX2 and AVX-512 results never mix).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune space %s --threads=1 --mcpu=haswell | FileCheck %s --check-prefix=AVX2
// RUN: tiletune space %s --threads=1 --mcpu=znver4 | FileCheck %s --check-prefix=AVX512
// AVX2: default config: m=[1,2,8,6];n=[1,1,4,16];k=[1,64]
// AVX512: default config: m=[1,1,8,8];n=[1,1,2,32];k=[1,64]

// RUN: tiletune tune %s --threads=1 --trials=2 --repeats=2 --min-sample-ms=0.1 --mcpu=haswell --db=%t/t.db 2>&1 | FileCheck %s --check-prefix=TUNE
// TUNE: target: cpu {{.*}} as haswell), 1 thread
// RUN: tiletune apply %s --threads=1 --mcpu=haswell --db=%t/t.db 2>&1 >/dev/null | FileCheck %s --check-prefix=SAME
// SAME: applied 1 config(s)
// RUN: tiletune apply %s --threads=1 --mcpu=haswell --mattr=-fma --db=%t/t.db 2>&1 >/dev/null | FileCheck %s --check-prefix=OTHER
// OTHER: applied 0 config(s); 0 op(s) kept their config; 1 op(s) have no result for cpu {{.*}} as haswell -fma)
// RUN: tiletune report --here --threads=1 --mcpu=haswell --db=%t/t.db | FileCheck %s --check-prefix=REPORT
// REPORT: matmul/f32/m=64,n=64,k=64

// Errors before any work: unknown names, and (tune) a target this host
// cannot run.
// RUN: not tiletune space %s --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: unknown CPU 'bogus'
// RUN: not tiletune tune %s --trials=1 --mattr=+fma4,+xop --db=%t/u.db 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: this host's CPU ('{{.*}}') lacks fma4, {{.*}}illegal instruction
func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
