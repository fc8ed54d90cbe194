#!/usr/bin/env python3
"""Warm-start benchmark (issue 13, item 4).

Tunes a set of source shapes into a database, then tunes nearby new shapes
twice per algorithm and seed, each time in its own copy of that database:
with the warm start from the database (`--warm-start=db`: the best configs
of the similar source shapes, adapted, are measured first) and without it
(`--warm-start=none`). For every (new shape, algorithm, seed) the reference
is the best GFLOP/s either of the two runs measured; the script prints how
many trials each run needed to reach 95% of it (the default config, measured
first, is trial 1; "-" = not reached within the budget), and per algorithm
the median over shapes and seeds.

usage: warm_start.py [--tiletune PATH] [--quick] [--trials N]
                     [--source-trials N] [--seeds N] [--threads T]
                     [--algorithms a,b,...] [--json out.json]

--quick: two small shape pairs, a small budget (a smoke test).
Times are measured on this machine: run it on an otherwise idle one.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

# (source shape, new shape), M x N x K.
FULL = [((64, 64, 64), (60, 64, 64)),
        ((128, 128, 128), (120, 136, 128)),
        ((256, 64, 128), (240, 72, 128))]
QUICK = [((64, 64, 64), (60, 64, 64)),
         ((128, 128, 128), (120, 136, 128))]
ALGORITHMS = ["random", "gbfs", "opevo", "xgb"]


def matmul_mlir(m, n, k):
    return f"""func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>,
          %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def tune(tool, path, db, algorithm, trials, seed, threads, warm, timing):
    cmd = [tool, "tune", path, f"--db={db}", f"--algorithm={algorithm}",
           f"--trials={trials}", f"--seed={seed}", f"--threads={threads}",
           f"--warm-start={warm}", "--no-progress"] + timing
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{run.stderr}")
    return run.stderr


def curve(tool, db, problem_prefix):
    """GFLOP/s of the last run of the problem, by trial (failures: 0)."""
    out = subprocess.run([tool, "export", f"--db={db}"], capture_output=True,
                         text=True, check=True).stdout
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    lines = [l for l in lines if l["problem"].startswith(problem_prefix)
             and l["role"] in ("default", "search")]
    last = max(l["run"] for l in lines)
    lines = sorted((l for l in lines if l["run"] == last),
                   key=lambda l: l["trial"])
    return [l["gflops"] if l["status"] == "ok" and l["gflops"] else 0.0
            for l in lines]


def trials_to(curve_, target):
    best = 0.0
    for i, g in enumerate(curve_):
        best = max(best, g)
        if best >= target:
            return i + 1
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiletune", default=shutil.which("tiletune") or
                    os.path.join(os.path.dirname(__file__), "..", "..",
                                 "build", "bin", "tiletune"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--trials", type=int)
    ap.add_argument("--source-trials", type=int)
    ap.add_argument("--seeds", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--json")
    args = ap.parse_args()
    pairs = QUICK if args.quick else FULL
    trials = args.trials or (16 if args.quick else 24)
    source_trials = args.source_trials or (24 if args.quick else 48)
    seeds = args.seeds or (2 if args.quick else 3)
    algorithms = args.algorithms.split(",")
    # Unpaired: every variant's own measured time, so that the runs compared
    # (with and without the warm start) share one scale.
    timing = ["--repeats=3", "--min-sample-ms=1", "--unpaired"]
    tool = args.tiletune

    work = tempfile.mkdtemp(prefix="tiletune-warm-")
    try:
        source_db = os.path.join(work, "source.db")
        for (src, _) in pairs:
            path = os.path.join(work, "src-%dx%dx%d.mlir" % src)
            with open(path, "w") as f:
                f.write(matmul_mlir(*src))
            # The sources: tuned by G-BFS without a warm start.
            tune(tool, path, source_db, "gbfs", source_trials, 0,
                 args.threads, "none", timing)
        rows = []
        for (_, new) in pairs:
            path = os.path.join(work, "new-%dx%dx%d.mlir" % new)
            with open(path, "w") as f:
                f.write(matmul_mlir(*new))
            prefix = "matmul/f32/m=%d,n=%d,k=%d" % new
            for algorithm in algorithms:
                for seed in range(seeds):
                    curves = {}
                    for warm in ("db", "none"):
                        db = os.path.join(work, f"{warm}-{algorithm}-{seed}.db")
                        shutil.copy(source_db, db)
                        log = tune(tool, path, db, algorithm, trials, seed,
                                   args.threads, warm, timing)
                        seeded = sum(1 for l in log.splitlines()
                                     if " -> " in l)
                        curves[warm] = (curve(tool, db, prefix), seeded)
                        os.remove(db)
                    reference = max(max(c) for c, _ in curves.values())
                    row = {"shape": "%dx%dx%d" % new, "algorithm": algorithm,
                           "seed": seed, "best_gflops": reference,
                           "seeds": curves["db"][1]}
                    for warm, (c, _) in curves.items():
                        row[f"trials_{warm}"] = trials_to(c, 0.95 * reference)
                        row[f"best_{warm}"] = max(c)
                    rows.append(row)
                    fmt = lambda v: "-" if v is None else str(v)
                    print(f"{row['shape']:>12} {algorithm:>7} seed {seed}: "
                          f"best {reference:7.2f} GFLOP/s; trials to 95%: "
                          f"warm {fmt(row['trials_db']):>3} "
                          f"({row['seeds']} seeds), "
                          f"cold {fmt(row['trials_none']):>3}", flush=True)
        print(f"\ntrials to reach 95% of the best (median over shapes and "
              f"seeds; not reached counts as {trials + 1}), budget {trials}:")
        print(f"{'algorithm':>10} {'warm':>6} {'cold':>6} "
              f"{'warm reached':>13} {'cold reached':>13}")
        for algorithm in algorithms:
            mine = [r for r in rows if r["algorithm"] == algorithm]
            med = lambda k: statistics.median(
                r[k] if r[k] is not None else trials + 1 for r in mine)
            reached = lambda k: sum(r[k] is not None for r in mine)
            print(f"{algorithm:>10} {med('trials_db'):>6} "
                  f"{med('trials_none'):>6} "
                  f"{reached('trials_db'):>7}/{len(mine):<5} "
                  f"{reached('trials_none'):>7}/{len(mine):<5}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
