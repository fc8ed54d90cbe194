# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t/tune.db | FileCheck %s
"""The CPU target in Python: mcpu/mattr (LLVM's names) size the default
config, choose what is compiled and key the recorded results."""

import sys

import tiletune

db = sys.argv[1]
module = """
func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
             %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""


def register_tile(text):
    start = text.index("register = ")
    return text[start:text.index("}", start) + 1]


# AVX2: two 8-lane vectors (6 rows, m padded from 64 to 96); AVX-512: two
# 16-lane vectors.
# CHECK: haswell: register = {m = 6, n = 16}
print("haswell:", register_tile(
    tiletune.default_config(module, threads=1, mcpu="haswell")))
# CHECK: znver4: register = {m = 8, n = 32}
print("znver4:", register_tile(
    tiletune.default_config(module, threads=1, mcpu="znver4")))
# CHECK: no-avx512: register = {m = 6, n = 16}
print("no-avx512:", register_tile(tiletune.default_config(
    module, threads=1, mcpu="znver4", mattr="-avx512f,-evex512")))

# Unknown names are ValueErrors, as is a target the host cannot run.
for kwargs in ({"mcpu": "bogus"}, {"mattr": "+bogus"}):
    try:
        tiletune.default_config(module, **kwargs)
        print("no error")
    except ValueError as e:
        # CHECK: ValueError: unknown CPU 'bogus'
        # CHECK: ValueError: unknown CPU feature 'bogus'
        print("ValueError:", str(e).split(" for ")[0])
try:
    tiletune.tune(module, trials=1, threads=1, db=db, mattr="+fma4,+xop")
    print("no error")
except ValueError as e:
    # CHECK: ValueError: this host's CPU ({{.*}}) lacks fma4{{.*}}illegal instruction
    print("ValueError:", e)

# Results tuned for AVX2 are recorded under the AVX2 target: applying them
# for that target finds them, for the host (another ISA key) does not.
annotated, results = tiletune.tune(module, algorithm="random", trials=2,
                                   threads=1, seed=1, db=db, mcpu="haswell")
best = results[0]["best_config"]
# CHECK: tuned: True
print("tuned:", results[0]["best_gflops"] > 0)
# CHECK: applied for haswell: True
print("applied for haswell:",
      best in tiletune.apply(module, db=db, threads=1, mcpu="haswell"))
# CHECK: applied for another ISA: False
print("applied for another ISA:",
      "tiletune.config" in tiletune.apply(module, db=db, threads=1,
                                          mcpu="haswell", mattr="-fma"))
