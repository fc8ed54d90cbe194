#!/usr/bin/env python3
"""End-to-end model benchmark: upstream's untiled lowering, TileTune's
default configs, TileTune tuned, and the sum of oneDNN's per-op times.

For each model of scripts/gen-models.py (TOSA lowered to linalg with
upstream mlir-opt), on this machine:

  untiled   tiletune-run --untiled            (upstream MLIR's lowering with
                                               no tiling: linalg to loops)
  default   tiletune-run --pipeline="tiletune-lower-cpu{default-configs=1}"
  tuned     the same on the module with the configs of a tuning database
            (--db; `tiletune apply`) or of a whole-model tuning run
            (--tune-budget; `tiletune tune --time-budget`)
  oneDNN    tiletune-bench-cpu --model-ops: oneDNN's time for every
            matmul/conv of the model, summed (the library reference; the
            model's other ops are not in it), alone and with the epilogues
            it fuses as post-ops; and the same primitives run in the
            model's order, each with weights of its own (which come from
            memory where a model's weights exceed the caches, as in our
            whole-model runs), the activations shared;
            and the best library per-op sum: per op the faster of oneDNN
            and OpenBLAS (which times the matmuls)

plus the matmul/conv coverage (how many FLOPs go through TileTune's tiling;
tiletune-run --coverage). Every timing of our code is of the whole model
(every op, lowered, JIT-compiled, run). With --verify, the default-config
run is also checked against the untiled lowering (tiletune-run
--verify-untiled). --mcpu/--mattr set the CPU target of every tool (e.g.
--mcpu=haswell: AVX2 code on an AVX-512 host, oneDNN held to AVX2).
Prints a Markdown table (docs/Models.md).

Run it under the build lock on a shared machine:
  flock /tmp/tiletune-build.lock bench/models/run_models.py --bindir build/bin
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MODELS = ["bert-s128", "bert-s384", "vit-b16", "resnet50-b1",
                  "resnet50-b8"]
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def run(cmd, log):
    log.write("$ " + " ".join(cmd) + "\n")
    log.flush()
    start = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    log.write(proc.stdout)
    log.write(f"[exit {proc.returncode}, {time.time() - start:.1f} s]\n")
    log.flush()
    if proc.returncode != 0:
        sys.exit(f"run_models.py: error: command failed ({proc.returncode}): "
                 f"{' '.join(cmd)}\n{proc.stdout[-3000:]}")
    return proc.stdout


def median_seconds(output):
    m = re.search(r"^time: .*?median ([0-9.]+) (s|ms|us|ns)", output, re.M)
    if not m:
        sys.exit("run_models.py: error: no 'time:' line in:\n" + output)
    return float(m.group(1)) * UNITS[m.group(2)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="*",
                   help="models (default: " + " ".join(DEFAULT_MODELS) + ")")
    p.add_argument("--bindir", default=None,
                   help="directory of tiletune, tiletune-run and "
                        "tiletune-bench-cpu (default: the one of tiletune-run "
                        "on PATH, else build/bin)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "models"),
                   help="where the models and logs go (default: "
                        "build/models)")
    p.add_argument("--threads", type=int, default=1,
                   help="threads for our kernels and oneDNN (default 1; the "
                        "untiled lowering is sequential)")
    p.add_argument("--repeats", type=int, default=5,
                   help="timed samples per measurement (default 5)")
    p.add_argument("--untiled-repeats", type=int, default=1,
                   help="timed samples of the untiled lowering (default 1; "
                        "it takes seconds to minutes)")
    p.add_argument("--skip-untiled", action="store_true",
                   help="do not time the untiled lowering")
    p.add_argument("--db", default=None,
                   help="tuning database: 'tuned' is the model with its "
                        "best configs (tiletune apply)")
    p.add_argument("--tune-budget", default=None,
                   help="tune each model first (tiletune tune "
                        "--time-budget=<this> --db=<--db or <out>/models.db>)")
    p.add_argument("--weights", default="model", choices=["warm", "model"],
                   help="with --tune-budget: where each variant's weights "
                        "are when it is timed (tiletune tune --weights)")
    p.add_argument("--mcpu", default="",
                   help="CPU target, LLVM's name (e.g. haswell; default: the "
                        "host), passed to every tool: our code is compiled "
                        "and tuned for it, oneDNN held to its ISA")
    p.add_argument("--mattr", default="",
                   help="CPU target features on top of the CPU's, LLVM's "
                        "names (e.g. -avx512f,-evex512), passed with --mcpu")
    p.add_argument("--verify", action="store_true",
                   help="also verify the default-config model against the "
                        "untiled lowering")
    args = p.parse_args()

    bindir = args.bindir
    if not bindir:
        found = shutil.which("tiletune-run")
        bindir = (os.path.dirname(found) if found
                  else os.path.join(ROOT, "build", "bin"))
    out = args.out
    os.makedirs(out, exist_ok=True)
    models = args.models or DEFAULT_MODELS
    log = open(os.path.join(out, "run_models.log"), "a")
    tool = lambda name: os.path.join(bindir, name)
    for t in ["tiletune-run", "tiletune", "tiletune-bench-cpu"]:
        if not os.path.exists(tool(t)):
            sys.exit(f"run_models.py: error: {tool(t)} not built")
    if args.threads < 1:
        sys.exit("run_models.py: error: --threads must be at least 1")
    db = args.db
    if args.tune_budget and not db:
        db = os.path.join(out, "models.db")

    # The target, for every tool (each checks it before it runs anything).
    target = ([f"--mcpu={args.mcpu}"] if args.mcpu else []) + \
        ([f"--mattr={args.mattr}"] if args.mattr else [])

    run([sys.executable, os.path.join(ROOT, "scripts", "gen-models.py"),
         "--out", out] + models, log)
    timing = ["--repeats", str(args.repeats), "--warmup", "1",
              "--num-threads", str(args.threads)] + target
    # Our lowering: ops without a tiletune.config get the default config for
    # the threads they run with (the pipeline's own default leaves them to
    # the untiled lowering); a tuned module keeps its configs.
    lower = ("--pipeline=tiletune-lower-cpu{default-configs=1 threads=%d}"
             % args.threads)
    rows = []
    for name in models:
        mlir = os.path.join(out, name + ".mlir")
        row = {"model": name}
        cov = run([tool("tiletune-run"), mlir, "--coverage", "--repeats=0",
                   lower] + target, log)
        m = re.search(r"matmul/conv coverage: (\d+) of (\d+) op\(s\) tiled by "
                      r"TileTune, ([0-9.]+) of ([0-9.]+) GFLOP \(([0-9.]+)%\)",
                      cov)
        row["coverage"] = (f"{m.group(1)}/{m.group(2)} ops, "
                           f"{m.group(5)}% of {float(m.group(4)):.2f} GFLOP")
        row["gflop"] = float(m.group(4))
        row["untouched"] = "; ".join(
            re.findall(r"untouched: (\d+ x [a-z_.0-9]+)", cov))
        if not args.skip_untiled:
            o = run([tool("tiletune-run"), mlir, "--untiled", "--repeats",
                     str(args.untiled_repeats), "--warmup", "0",
                     "--num-threads", "1"] + target, log)
            row["untiled"] = median_seconds(o)
        extra = ["--verify-untiled"] if args.verify else []
        o = run([tool("tiletune-run"), mlir, lower] + timing + extra, log)
        row["default"] = median_seconds(o)
        if args.verify:
            row["verified"] = "verify: passed" in o
        if args.tune_budget:
            tuned = os.path.join(out, name + ".tuned.mlir")
            run([tool("tiletune"), "tune", mlir, "--time-budget=" +
                 args.tune_budget, "--threads", str(args.threads), "--db", db,
                 "--weights", args.weights, "--no-progress", "-o", tuned] +
                target, log)
        elif db:
            tuned = os.path.join(out, name + ".tuned.mlir")
            # Results are applied at the thread count they were tuned with.
            o = run([tool("tiletune"), "apply", mlir, "--db", db,
                     "--threads", str(args.threads), "-o", tuned] + target,
                    log)
            # A module the database has nothing for is the default module:
            # timing it again as "tuned" would show two samples of the same
            # code as a difference (runs of one module here differ by 10%).
            m = re.search(r"applied (\d+) config", o)
            row["applied"] = int(m.group(1)) if m else 0
            if not row["applied"]:
                print(f"{name}: the database has no tuned config for its "
                      f"ops; no 'tuned' figure", flush=True)
                tuned = None
        else:
            tuned = None
        if tuned:
            o = run([tool("tiletune-run"), tuned, lower] + timing, log)
            row["tuned"] = median_seconds(o)
        o = run([tool("tiletune-bench-cpu"), "--model-ops", mlir,
                 "--num-threads", str(args.threads), "--repeats",
                 str(args.repeats), "--warmup", "1"] + target, log)
        m = re.search(r"oneDNN per-op sum at \d+ thread\(s\): ([0-9.]+) ms", o)
        row["onednn"] = float(m.group(1)) * 1e-3
        # The same ops with the epilogues oneDNN fuses as post-ops (bias,
        # activation, residual); the same sum when the model has none.
        m = re.search(r"oneDNN per-op sum with fused post-ops at \d+ "
                      r"thread\(s\): ([0-9.]+) ms", o)
        row["onednn_post"] = (float(m.group(1)) * 1e-3 if m
                              else row["onednn"])
        # The faster of oneDNN and OpenBLAS per op (OpenBLAS on the
        # matmuls; oneDNN's AVX2 matmul is the slower one on wide GEMMs);
        # oneDNN's sum where the model has no matmul.
        m = re.search(r"best library per-op sum at \d+ thread\(s\): "
                      r"([0-9.]+) ms", o)
        row["best_library"] = (float(m.group(1)) * 1e-3 if m
                               else row["onednn"])
        # The same primitives run in the model's order, each with weights of
        # its own (from L3 or memory, not warm in L2, as in our
        # whole-model runs), the activations shared.
        m = re.search(r"oneDNN in the model's order at \d+ thread\(s\): "
                      r"([0-9.]+) ms", o)
        if m:
            row["onednn_order"] = float(m.group(1)) * 1e-3
        rows.append(row)
        print(f"{name}: " + ", ".join(
            f"{k} {v * 1e3:.1f} ms" if isinstance(v, float) and k not in
            ("gflop",) else f"{k} {v}" for k, v in row.items()
            if k != "model"), flush=True)

    ms = lambda r, k: f"{r[k] * 1e3:.1f}" if k in r else "—"
    print()
    print(f"| model | matmul/conv tiled by TileTune | untiled (ms) | default "
          f"(ms) | tuned (ms) | oneDNN per-op sum (ms) | oneDNN with fused "
          f"post-ops (ms) | oneDNN in the model's order (ms) | default / "
          f"oneDNN | best of ours / oneDNN with post-ops | best of ours / "
          f"oneDNN in order | best library per-op sum (ms) | best of ours / "
          f"best library |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: | ---: |")
    for r in rows:
        ratio = r["default"] / r["onednn"]
        ours = min(r[k] for k in ("default", "tuned") if k in r)
        in_order = (f"{ours / r['onednn_order']:.2f}x" if "onednn_order" in r
                    else "—")
        print(f"| {r['model']} | {r['coverage']} | {ms(r, 'untiled')} | "
              f"{ms(r, 'default')} | {ms(r, 'tuned')} | {ms(r, 'onednn')} | "
              f"{ms(r, 'onednn_post')} | {ms(r, 'onednn_order')} | "
              f"{ratio:.2f}x | {ours / r['onednn_post']:.2f}x | {in_order} | "
              f"{ms(r, 'best_library')} | {ours / r['best_library']:.2f}x |")
    print(f"\ntarget: {' '.join(target) or 'the host'}")
    print(f"threads: {args.threads}; medians of {args.repeats} samples "
          f"(untiled: {args.untiled_repeats}); log: "
          f"{os.path.join(out, 'run_models.log')}")
    for r in rows:
        if r["untouched"]:
            print(f"{r['model']}: left to the untiled lowering: "
                  f"{r['untouched']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
