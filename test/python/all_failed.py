# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t | FileCheck %s
# An AddressSanitizer build cannot start under the address-space limit used
# here (its shadow memory is reserved at start-up).
# UNSUPPORTED: asan
"""tiletune.tune warns when every measurement of a problem failed."""

import os
import sys

tmp = sys.argv[1]
module = """
func.func @f(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
             %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}
"""

# A run in which every measurement fails warns (RuntimeWarning) instead of
# returning silently: the kernels' 1024 OpenMP threads with 64 MiB stacks
# cannot start in an 8 GB address space, so every worker dies. Run in a child
# interpreter with that limit.
import resource
import subprocess
child = """
import sys, warnings, tiletune
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    text, results = tiletune.tune(sys.argv[1], trials=2, threads=1024,
                                  db=sys.argv[2])
print("best:", results[0]["best_config"] or None)
for w in caught:
    print(w.category.__name__ + ":", str(w.message).splitlines()[0])
"""
proc = subprocess.run(
    [sys.executable, "-c", child, module, os.path.join(tmp, "failing.db")],
    env=dict(os.environ, OMP_STACKSIZE="64M"), capture_output=True, text=True,
    preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS,
                                          (8 << 30, 8 << 30)))
# CHECK: all failed: best: None
# CHECK-NEXT: RuntimeWarning: every measurement of matmul/f32/m=16,n=24,k=32 failed (2 trial(s); the default config:
print("all failed:", proc.stdout.strip() or proc.stderr)
