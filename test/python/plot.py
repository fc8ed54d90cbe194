# Two problems tuned with two algorithms each, exported as JSONL: the plot
# helper draws one best-so-far curve per (problem, algorithm), never pooling
# problems. The data of the drawn lines is checked, not the pixels.
# RUN: rm -rf %t && mkdir -p %t
# RUN: split-file %s %t
# RUN: tiletune tune %t/two.mlir --db %t/t.db --trials 3 -a random --threads 1 -o /dev/null 2>/dev/null
# RUN: tiletune tune %t/two.mlir --db %t/t.db --trials 3 -a gbfs --threads 1 -o /dev/null 2>/dev/null
# RUN: tiletune export --db %t/t.db -o %t/export.jsonl
# RUN: env PYTHONPATH=%{pythonpath} %python %t/check.py %t | FileCheck %s

# A real export: 2 problems x 2 algorithms.
# CHECK: export curves: 4
# CHECK-NEXT: matmul/f32/m=16,n=16,k=32 / gbfs: {{[1-9][0-9]*}} trials, matches the records
# CHECK-NEXT: matmul/f32/m=16,n=16,k=32 / random: {{[1-9][0-9]*}} trials, matches the records
# CHECK-NEXT: matmul/f32/m=32,n=64,k=48 / gbfs: {{[1-9][0-9]*}} trials, matches the records
# CHECK-NEXT: matmul/f32/m=32,n=64,k=48 / random: {{[1-9][0-9]*}} trials, matches the records
# CHECK-NEXT: png written: True

# Exact values of a hand-written export: problems are not pooled (p2's
# 500 GFLOP/s never reaches p1's curve), failed trials keep the best so far,
# trials are ordered by "trial", a second run of (p1, gbfs) is its own curve;
# grouped by algorithm alone, runs of different problems still stay apart.
# CHECK: p1 / gbfs / run 1: x [1, 2, 3] y [10.0, 10.0, 30.0]
# CHECK-NEXT: p1 / gbfs / run 4: x [1, 2] y [7.0, 8.0]
# CHECK-NEXT: p1 / random: x [1, 2] y [20.0, 20.0]
# CHECK-NEXT: p2 / gbfs: x [1, 2] y [nan, 500.0]
# CHECK-NEXT: same colour for one algorithm: True
# CHECK-NEXT: different style per problem: True
# CHECK-NEXT: by algorithm only: ['gbfs / run 1', 'gbfs / run 3', 'random']
# CHECK-NEXT: ValueError: {{.*}}bad.jsonl:2: not JSON

#--- two.mlir
func.func @mm1(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<32x48xf32>, tensor<48x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}
func.func @mm2(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

#--- small.jsonl
{"run": 1, "problem": "p1", "algorithm": "gbfs", "trial": 0, "status": "ok", "gflops": 10.0}
{"run": 1, "problem": "p1", "algorithm": "gbfs", "trial": 2, "status": "ok", "gflops": 30.0}
{"run": 1, "problem": "p1", "algorithm": "gbfs", "trial": 1, "status": "timeout", "gflops": null}
{"run": 2, "problem": "p1", "algorithm": "random", "trial": 0, "status": "ok", "gflops": 20.0}
{"run": 2, "problem": "p1", "algorithm": "random", "trial": 1, "status": "ok", "gflops": 5.0}
{"run": 3, "problem": "p2", "algorithm": "gbfs", "trial": 0, "status": "wrong_result", "gflops": 900.0}
{"run": 3, "problem": "p2", "algorithm": "gbfs", "trial": 1, "status": "ok", "gflops": 500.0}
{"run": 4, "problem": "p1", "algorithm": "gbfs", "trial": 0, "status": "ok", "gflops": 7.0}

{"run": 4, "problem": "p1", "algorithm": "gbfs", "trial": 1, "status": "ok", "gflops": 8.0}

#--- bad.jsonl
{"run": 1, "problem": "p1", "algorithm": "gbfs", "trial": 0, "status": "ok", "gflops": 10.0}
{"run": 1, "problem": "p1",

#--- check.py
import math
import os
import sys

from tiletune import plot

out = sys.argv[1]


def drawn(fig):
    """label -> (xs, ys, colour, style) of the lines in the figure."""
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()),
                               line.get_color(), line.get_linestyle())
            for line in fig.axes[0].get_lines()}


def fmt(ys):
    return "[%s]" % ", ".join("nan" if math.isnan(y) else repr(float(y))
                              for y in ys)


# A real export.
records = plot.load_jsonl(os.path.join(out, "export.jsonl"))
png = os.path.join(out, "export.png")
curves = plot.plot_export(os.path.join(out, "export.jsonl"), png)
lines = drawn(plot.plot_curves(curves, png))
print("export curves:", len(lines))
for (problem, algorithm), values in sorted(curves.items()):
    label = "%s / %s" % (problem, algorithm)
    mine = sorted((r["trial"], r["gflops"] if r["status"] == "ok" else None)
                  for r in records
                  if r["problem"] == problem and r["algorithm"] == algorithm)
    expected = plot.best_so_far([v for _, v in mine])
    xs, ys = lines[label][:2]
    same = (xs == list(range(1, len(mine) + 1)) and
            all((e is None and math.isnan(y)) or e == y
                for e, y in zip(expected, ys)) and len(ys) == len(expected))
    print("%s: %d trials, %s" % (label, len(ys),
                                 "matches the records" if same else
                                 "DIFFERS: %s vs %s" % (fmt(ys), expected)))
print("png written:", os.path.getsize(png) > 1000)

# A hand-written one with known values.
small = plot.load_jsonl(os.path.join(out, "small.jsonl"))
fig = plot.plot_curves(plot.curves_from_records(small),
                       os.path.join(out, "small.png"), title="small")
lines = drawn(fig)
for label in sorted(lines):
    xs, ys = lines[label][:2]
    print("%s: x %s y %s" % (label, [int(x) for x in xs], fmt(ys)))
print("same colour for one algorithm:",
      lines["p1 / gbfs / run 1"][2] == lines["p2 / gbfs"][2] !=
      lines["p1 / random"][2])
print("different style per problem:",
      lines["p1 / random"][3] == lines["p1 / gbfs / run 1"][3] !=
      lines["p2 / gbfs"][3])
print("by algorithm only:",
      sorted(plot.curves_from_records(
          [r for r in small if r["run"] != 4], group="algorithm")))
try:
    plot.load_jsonl(os.path.join(out, "bad.jsonl"))
except ValueError as e:
    print("ValueError:", e)
