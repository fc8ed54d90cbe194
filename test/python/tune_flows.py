# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t/tune.db | FileCheck %s
"""Python bindings of the tuning flows: the same results as the CLI."""

import sys

import tiletune

db = sys.argv[1]
module = """
func.func @f(%a: tensor<127x64xf32>, %b: tensor<64x48xf32>,
             %c: tensor<127x48xf32>) -> tensor<127x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<127x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<127x48xf32>) -> tensor<127x48xf32>
  return %r : tensor<127x48xf32>
}
"""

# CHECK: problems: [{'gflop': {{.*}}, 'key': 'matmul/f32/m=127,n=48,k=64', 'ops': 1}]
print("problems:", [dict(sorted(p.items())) for p in tiletune.problems(module)])

# With an elementwise consumer, the key includes it (as tune() records it),
# unless epilogues=False.
relu = """
func.func @g(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
             %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e = tensor.empty() : tensor<16x24xf32>
  %y = linalg.max ins(%r, %c : tensor<16x24xf32>, tensor<16x24xf32>)
                  outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %y : tensor<16x24xf32>
}
"""
# CHECK: epilogue keys: ['matmul/f32/m=16,n=24,k=32/epilogue=maximumf(1:d0,d1)'] ['matmul/f32/m=16,n=24,k=32']
print("epilogue keys:", [p["key"] for p in tiletune.problems(relu)],
      [p["key"] for p in tiletune.problems(relu, epilogues=False)])

# An output that starts from a fill of zero (the tiling fuses it with the
# epilogue): the key says so.
filled = relu.replace(
    "outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>\n  %e",
    "outs(%f : tensor<16x24xf32>) -> tensor<16x24xf32>\n  %e").replace(
    "  %r = linalg.matmul",
    "  %e0 = tensor.empty() : tensor<16x24xf32>\n"
    "  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16x24xf32>)"
    " -> tensor<16x24xf32>\n  %r = linalg.matmul")
# CHECK: init keys: ['matmul/f32/m=16,n=24,k=32/init=0/epilogue=maximumf(1:d0,d1)'] ['matmul/f32/m=16,n=24,k=32']
print("init keys:", [p["key"] for p in tiletune.problems(filled)],
      [p["key"] for p in tiletune.problems(filled, epilogues=False)])

# The default config pads m = 127 to 128 on AVX-512 (8 x 32 register tiles;
# on AVX2 to 144, for 6-row tiles).
# CHECK: default: pad = {m = 128}
text = tiletune.default_config(module, threads=1, mcpu="skylake-avx512")
print("default:", text[text.index("pad = "):text.index("}", text.index("pad = ")) + 1])

# A real tuning run: 5 measured trials, recorded in the database.
annotated, results = tiletune.tune(module, algorithm="random", trials=5,
                                   threads=1, seed=3, db=db)
r = results[0]
# CHECK: tuned: matmul/f32/m=127,n=48,k=64 finished budget trials=5 gflops>0=True
print("tuned:", r["problem"], r["status"], r["stop_reason"],
      "trials=%d" % r["trials"], "gflops>0=%s" % (r["best_gflops"] > 0))
# CHECK: annotated: True
print("annotated:", r["best_config"] in annotated)

# Applying the database gives the same config back.
applied = tiletune.apply(module, db=db, threads=1)
# CHECK: applied: True
print("applied:", r["best_config"] in applied)

# Bad inputs are ValueErrors with the reason.
for call, kwargs in [
        (tiletune.tune, dict(mlir="func.func @f(", trials=1, db=db)),
        (tiletune.tune, dict(mlir=module, algorithm="nope", trials=1, db=db)),
        (tiletune.tune, dict(mlir=module, fix="order=[q]", trials=1, db=db)),
        (tiletune.apply, dict(mlir=module, db=db + ".missing")),
        (tiletune.default_config, dict(mlir=module, target="tpu")),
]:
    try:
        call(**kwargs)
        print("no error")
    except ValueError as e:
        print("error:", str(e).splitlines()[0])
# CHECK: error: cannot parse the module
# CHECK: error: unknown algorithm 'nope'
# CHECK: error: {{.*}}order
# CHECK: error: {{.*}}missing
# CHECK: error: unknown target 'tpu' (expected cpu or cuda)
# CHECK-NOT: no error
