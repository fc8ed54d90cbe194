#!/usr/bin/env python3
"""How stable are tuning measurements on this machine: paired vs. unpaired.

Measures the same configs several times with `tiletune tune` (algorithm
`random`, fixed seed: the proposals do not depend on the measured times, so
every run measures the same configs in the same order), alternating runs with
paired timing (the default: every variant timed interleaved with the
problem's default config) and with `--unpaired` (every variant timed alone).

A config's score in a run is its time relative to the default config of that
run: with paired timing the recorded ratio (`paired.relative`), unpaired its
median divided by the default's median. The score decides what tuning is
about (is a config faster than the default, which config is fastest), so
its reproducibility across runs is what matters. Reported per mode:

* spread: the geometric mean over configs of max/min of its score across
  runs (1.00 = identical in every run);
* rank agreement: the mean Spearman correlation of the scores between every
  two runs;
* decisions: the fraction of configs whose "faster than the default" verdict
  is the same in every run;
* best agreement: the fraction of runs whose best config is the most frequent
  best config;
* raw spread: the same spread of the measured median times (seconds) without
  any normalization, for comparison.

usage: timing_stability.py [--tiletune PATH] [--problem MxNxK] [--trials N]
                           [--runs R] [--seed S] [--threads T] [--json FILE]
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tune_bench import matmul_mlir  # noqa: E402


def run_once(tiletune, mlir, db, args, paired):
    cmd = [tiletune, "tune", mlir, f"--db={db}", "--algorithm=random",
           f"--seed={args.seed}", f"--trials={args.trials}",
           f"--threads={args.threads}", "--no-progress", "--quiet",
           "-o", os.devnull]
    if not paired:
        cmd.append("--unpaired")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tiletune, "export", f"--db={db}"], check=True,
                         capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    # The newest run only (each run gets its own database anyway).
    last = max(line["run"] for line in lines)
    lines = [l for l in lines if l["run"] == last and l["status"] == "ok"
             and l["role"] != "final"]
    default = next(l for l in lines if l["role"] == "default")
    scores, raw = {}, {}
    for l in lines:
        key = l["config_key"]
        if key in scores:
            continue
        if paired:
            scores[key] = l["paired"]["relative"]
            raw[key] = l["time"]["median"]
        else:
            scores[key] = l["time"]["median"] / default["time"]["median"]
            raw[key] = l["time"]["median"]
    return scores, raw


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    for position, i in enumerate(order):
        r[i] = float(position)
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va > 0 and vb > 0 else 1.0


def summarize(runs):
    """runs: list of (scores, raw) dicts; keys measured Ok in every run."""
    keys = sorted(set.intersection(*(set(s) for s, _ in runs)))
    def spread(which):
        logs = []
        for k in keys:
            values = [r[which][k] for r in runs]
            logs.append(math.log(max(values) / min(values)))
        return math.exp(sum(logs) / len(logs))
    pairs = list(itertools.combinations(range(len(runs)), 2))
    rho = sum(spearman([runs[i][0][k] for k in keys],
                       [runs[j][0][k] for k in keys])
              for i, j in pairs) / len(pairs)
    same = sum(1 for k in keys
               if len({runs[i][0][k] < 1.0 for i in range(len(runs))}) == 1)
    bests = [min(keys, key=lambda k: r[0][k]) for r in runs]
    top = max(set(bests), key=bests.count)
    return {"configs": len(keys), "spread": spread(0),
            "rank_agreement": rho, "decisions": same / len(keys),
            "best_agreement": bests.count(top) / len(runs),
            "raw_spread": spread(1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiletune", default="build/bin/tiletune")
    parser.add_argument("--problem", default="512x512x512",
                        help="MxNxK of the f32 matmul")
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--runs", type=int, default=3,
                        help="runs per mode (alternating paired/unpaired)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="write the summary here")
    args = parser.parse_args()
    m, n, k = (int(x) for x in args.problem.split("x"))
    results = {"paired": [], "unpaired": []}
    with tempfile.TemporaryDirectory() as tmp:
        mlir = os.path.join(tmp, "mm.mlir")
        with open(mlir, "w") as f:
            f.write(matmul_mlir(m, n, k))
        for rep in range(args.runs):
            for mode in ("paired", "unpaired"):
                db = os.path.join(tmp, f"{mode}-{rep}.db")
                print(f"run {rep + 1}/{args.runs} {mode} ...",
                      file=sys.stderr, flush=True)
                results[mode].append(
                    run_once(args.tiletune, mlir, db, args, mode == "paired"))
    summary = {mode: summarize(runs) for mode, runs in results.items()}
    print(f"matmul {args.problem} f32, {args.threads} thread(s), "
          f"{args.trials} trials of 'random' seed {args.seed}, "
          f"{args.runs} runs per mode")
    print(f"{'mode':10} {'configs':>7} {'spread':>7} {'ranks':>6} "
          f"{'decisions':>9} {'best':>5} {'raw spread':>10}")
    for mode, s in summary.items():
        print(f"{mode:10} {s['configs']:7d} {s['spread']:7.3f} "
              f"{s['rank_agreement']:6.3f} {s['decisions']:9.2f} "
              f"{s['best_agreement']:5.2f} {s['raw_spread']:10.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
