# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t/curve.png | FileCheck %s
"""Tuning curves are drawn from exported records."""

import os
import sys

from tiletune import plot

records = [
    {"algorithm": "gbfs", "status": "ok", "gflops": 10.0},
    {"algorithm": "gbfs", "status": "timeout"},
    {"algorithm": "gbfs", "status": "ok", "gflops": 30.0},
    {"algorithm": "random", "status": "ok", "gflops": 20.0},
    {"algorithm": "random", "status": "ok", "gflops": 5.0},
]
curves = plot.curves_from_records(records)
# CHECK: gbfs [10.0, 10.0, 30.0]
print("gbfs", plot.best_so_far(curves["gbfs"]))
# CHECK: random [20.0, 20.0]
print("random", plot.best_so_far(curves["random"]))
plot.plot_curves(curves, sys.argv[1], title="test")
# CHECK: png written: True
print("png written:", os.path.getsize(sys.argv[1]) > 1000)
