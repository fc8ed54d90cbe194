# RUN: env PYTHONPATH=%{pythonpath} %python %s | FileCheck %s
"""Ops with a loop of size 0: default_config leaves them alone (it used to
kill the interpreter with SIGFPE), problems() says why there is nothing to
tune."""

import tiletune

empty = """
func.func @f(%a: tensor<0x64xf32>, %b: tensor<64x32xf32>,
             %c: tensor<0x32xf32>) -> tensor<0x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<0x64xf32>, tensor<64x32xf32>)
                     outs(%c : tensor<0x32xf32>) -> tensor<0x32xf32>
  return %r : tensor<0x32xf32>
}
"""

batch0 = """
func.func @g(%a: tensor<0x16x8xf32>, %b: tensor<0x8x32xf32>,
             %c: tensor<0x16x32xf32>, %a2: tensor<16x8xf32>,
             %b2: tensor<8x32xf32>, %c2: tensor<16x32xf32>)
    -> (tensor<0x16x32xf32>, tensor<16x32xf32>) {
  %r = linalg.batch_matmul
         ins(%a, %b : tensor<0x16x8xf32>, tensor<0x8x32xf32>)
         outs(%c : tensor<0x16x32xf32>) -> tensor<0x16x32xf32>
  %s = linalg.matmul ins(%a2, %b2 : tensor<16x8xf32>, tensor<8x32xf32>)
                     outs(%c2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r, %s : tensor<0x16x32xf32>, tensor<16x32xf32>
}
"""

# CHECK: empty: configs 0
for threads in (1, 2):
    text = tiletune.default_config(empty, threads=threads)
print("empty: configs", text.count("tiletune.config ="))

# Only the non-empty op of a module gets a config.
# CHECK: batch0: configs 1, batch_matmul untouched True
text = tiletune.default_config(batch0, threads=2)
print("batch0: configs", text.count("tiletune.config ="), end=", ")
print("batch_matmul untouched", "linalg.batch_matmul ins(" in text)

# CHECK: problems: ['matmul/f32/m=16,n=32,k=8']
print("problems:", [p["key"] for p in tiletune.problems(batch0)])

# CHECK: no problem: ValueError {{.*}}loop 'm' has size 0
try:
    tiletune.problems(empty)
except ValueError as e:
    print("no problem: ValueError", " ".join(str(e).split()))
