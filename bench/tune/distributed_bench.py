#!/usr/bin/env python3
"""Distributed measurement benchmark (issue 13, item 5).

Tunes one matmul (default 256^3) with the same algorithm, seed and trial
budget twice, each into a fresh database: locally, and under
`mpirun -n N ... --distributed=mpi` (rank 0 searches, N-1 ranks measure).
Prints, for each, the wall-clock time, variants measured per second and the
best GFLOP/s the run reported (its own measured median).

usage: distributed_bench.py [--tiletune PATH] [--mpirun PATH] [--ranks N]
                            [--size S] [--trials T] [--threads T]
                            [--algorithm A] [--extra "mpirun args"]

Ranks on one machine share its cores (expect little gain from 2 ranks on
2 cores: rank 0 mostly sleeps, the one worker measures as a local run
does). On a cluster, give mpirun a hostfile with --extra.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

p = argparse.ArgumentParser()
p.add_argument("--tiletune", default="build/bin/tiletune")
p.add_argument("--mpirun", default="mpirun")
p.add_argument("--ranks", type=int, default=2)
p.add_argument("--size", type=int, default=256)
p.add_argument("--trials", type=int, default=60)
p.add_argument("--threads", type=int, default=1)
p.add_argument("--algorithm", default="random")
p.add_argument("--extra", default="--oversubscribe")
a = p.parse_args()

tmp = tempfile.mkdtemp(prefix="tiletune-dist-")
s = a.size
mlir = os.path.join(tmp, "matmul.mlir")
with open(mlir, "w") as f:
    f.write(f"""func.func @mm(%a: tensor<{s}x{s}xf32>, %b: tensor<{s}x{s}xf32>,
              %c: tensor<{s}x{s}xf32>) -> tensor<{s}x{s}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{s}x{s}xf32>, tensor<{s}x{s}xf32>)
                     outs(%c : tensor<{s}x{s}xf32>) -> tensor<{s}x{s}xf32>
  return %r : tensor<{s}x{s}xf32>
}}
""")
tool = os.path.abspath(a.tiletune)
common = ["tune", mlir, "--algorithm=" + a.algorithm, "--seed=1",
          "--trials=%d" % a.trials, "--threads=%d" % a.threads, "--quiet"]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(name, prefix, extra):
    db = os.path.join(tmp, name + ".db")
    start = time.time()
    subprocess.run(prefix + [tool] + common + ["--db=" + db] + extra,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.time() - start
    out = subprocess.run([tool, "export", "--db=" + db], capture_output=True,
                         text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line]
    measured = [r for r in rows if r["role"] in ("default", "search")]
    best = max((r["gflops"] or 0) for r in measured)
    print("%-22s %6.1f s  %3d variants  %5.2f variants/s  best %6.1f GFLOP/s"
          % (name, wall, len(measured), len(measured) / wall, best))


print("%d^3 f32 matmul, %s, %d trials, %d thread(s)/variant" %
      (s, a.algorithm, a.trials, a.threads))
run("local", [], [])
run("mpirun -n %d" % a.ranks,
    [a.mpirun] + shlex.split(a.extra) + ["-n", str(a.ranks)],
    ["--distributed=mpi"])
