#!/usr/bin/env python3
"""Reproduces the papers' tuning experiments on this CPU with real measurements.

One command (issue 15, item 4; docs/Reproduction.md):

  /usr/bin/python3 bench/papers/reproduce.py --tiletune build/bin/tiletune --out DIR

1. writes the operators of OpEvo's Appendix B (MM1-3, BMM1-3, C1-2) and the
   1024^3 matmul of the G-BFS/N-A2C paper's Fig. 8b as MLIR modules
   (DIR/ops/*.mlir); batch dimensions are scaled down to fit a small machine
   (--batch-scale, the scaling is printed and written with the results);
2. runs `tiletune tune --protocol=paper` once per operator x algorithm x seed
   at a trial budget with --threads=1, every run of an operator into one
   SQLite database (DIR/db/<op>.db); a finished run is skipped and an
   unfinished one is continued with --resume, so a killed or chunked
   reproduction (--max-minutes) resumes where it stopped;
3. reads the measurements back with `tiletune export` (JSONL; the GFLOP/s are
   the measured ones, nothing is recomputed) and writes DIR/results.json,
   DIR/results.md (best GFLOP/s mean +- std per operator x algorithm, as
   OpEvo's Tables 1-3), the best-vs-trials curves (DIR/curves-<op>.png) and
   the Fig. 8b-style box plot (DIR/boxplot-1024.png).

--quick runs a tiny matmul with every algorithm for a few trials (the lit
test test/tools/papers-reproduce.test), so the script cannot rot.
Plots need matplotlib (Debian's python3-matplotlib: run with /usr/bin/python3).
Run it under the build lock on a shared machine (timings).
"""

import argparse
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

ALGORITHMS = ["gbfs", "na2c", "xgb", "opevo", "automcl", "random"]
ALGORITHM_NAMES = {
    "gbfs": "G-BFS", "na2c": "N-A2C", "xgb": "AutoTVM (XGB)",
    "opevo": "OpEvo", "automcl": "AutoMCL", "random": "random"}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPUTE_MODEL = os.path.join(
    REPO, "bench", "automcl", "results", "compute-model-znver5-1thread.json")


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------

def matmul_module(m, k, n):
    return f"""func.func @op(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>,
              %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def batch_matmul_module(b, m, k, n, transpose=None):
    """C[b][m][n] += A * B; transpose 'a': A stored [b][k][m], 'b': B stored [b][n][k]."""
    a_shape = f"{b}x{k}x{m}" if transpose == "a" else f"{b}x{m}x{k}"
    b_shape = f"{b}x{n}x{k}" if transpose == "b" else f"{b}x{k}x{n}"
    maps = ""
    if transpose:
        a_map = "(b, k, m)" if transpose == "a" else "(b, m, k)"
        b_map = "(b, n, k)" if transpose == "b" else "(b, k, n)"
        maps = (f" indexing_maps = [affine_map<(b, m, n, k) -> {a_map}>, "
                f"affine_map<(b, m, n, k) -> {b_map}>, "
                "affine_map<(b, m, n, k) -> (b, m, n)>]")
    c_shape = f"{b}x{m}x{n}"
    return f"""func.func @op(%a: tensor<{a_shape}xf32>, %b: tensor<{b_shape}xf32>,
              %c: tensor<{c_shape}xf32>) -> tensor<{c_shape}xf32> {{
  %r = linalg.batch_matmul{maps}
         ins(%a, %b : tensor<{a_shape}xf32>, tensor<{b_shape}xf32>)
         outs(%c : tensor<{c_shape}xf32>) -> tensor<{c_shape}xf32>
  return %r : tensor<{c_shape}xf32>
}}
"""


def conv_module(n, c, h, w, f, kh, kw, stride, pad):
    """NCHW direct convolution; padding is applied to the input tensor (the
    module takes the zero-padded image, linalg convs have no padding)."""
    hp, wp = h + 2 * pad, w + 2 * pad
    ho, wo = (hp - kh) // stride + 1, (wp - kw) // stride + 1
    i_shape, f_shape, o_shape = (f"{n}x{c}x{hp}x{wp}", f"{f}x{c}x{kh}x{kw}",
                                 f"{n}x{f}x{ho}x{wo}")
    return f"""func.func @op(%i: tensor<{i_shape}xf32>, %f: tensor<{f_shape}xf32>,
              %o: tensor<{o_shape}xf32>) -> tensor<{o_shape}xf32> {{
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<{stride}> : tensor<2xi64>}}
         ins(%i, %f : tensor<{i_shape}xf32>, tensor<{f_shape}xf32>)
         outs(%o : tensor<{o_shape}xf32>) -> tensor<{o_shape}xf32>
  return %r : tensor<{o_shape}xf32>
}}
"""


def operators(bmm_batch, conv_batch, quick):
    """name -> dict(module, flops, paper, ours): the paper's shape and ours."""
    ops = {}

    def mm(name, m, k, n, paper=None):
        ops[name] = dict(module=matmul_module(m, k, n), flops=2 * m * n * k,
                         paper=paper or f"{m}x{k} * {k}x{n}",
                         ours=f"{m}x{k} * {k}x{n}")

    def bmm(name, b, m, k, n, transpose, paper):
        kind = "batch_matmul" + (f"_transpose_{transpose}" if transpose else "")
        ops[name] = dict(module=batch_matmul_module(b, m, k, n, transpose),
                         flops=2 * b * m * n * k, paper=paper,
                         ours=f"{kind} {b}x({m}x{k} * {k}x{n})")

    def conv(name, n, c, h, w, f, kh, kw, s, p, paper):
        ho, wo = (h + 2 * p - kh) // s + 1, (w + 2 * p - kw) // s + 1
        ops[name] = dict(module=conv_module(n, c, h, w, f, kh, kw, s, p),
                         flops=2 * n * f * ho * wo * c * kh * kw, paper=paper,
                         ours=(f"conv_2d_nchw_fchw {n}x{c}x{h}x{w} * {f}x{c}x{kh}x{kw}, "
                               f"stride {s}, pad {p} (pre-padded input)"))

    if quick:
        mm("MMq", 16, 32, 24)
        mm("MM1024", 32, 32, 32, paper="1024x1024 * 1024x1024 (quick: 32^3)")
        return ops
    mm("MM1", 512, 1024, 1024)
    mm("MM2", 512, 1024, 4096)
    mm("MM3", 512, 4096, 1024)
    bmm("BMM1", bmm_batch, 128, 128, 64, None, "960x(128x128 * 128x64)")
    bmm("BMM2", bmm_batch, 128, 128, 64, "a", "960x((128x128)^T * 128x64)")
    # BMM3: "(128, 64) transposed first, then right-multiplies (128, 64)":
    # Y X^T, BERT's Q K^T: a 128x64 times a transposed 128x64 (K = 64).
    bmm("BMM3", bmm_batch, 128, 64, 128, "b", "960x(128x64 * (128x64)^T)")
    conv("C1", conv_batch, 3, 227, 227, 64, 11, 11, 4, 0,
         "512x3x227x227 * 64x3x11x11, stride 4, pad 0")
    conv("C2", conv_batch, 64, 27, 27, 192, 5, 5, 1, 2,
         "512x64x27x27 * 192x64x5x5, stride 1, pad 2")
    mm("MM1024", 1024, 1024, 1024)
    return ops


# ---------------------------------------------------------------------------
# Running and reading back
# ---------------------------------------------------------------------------

def export_records(tiletune, db):
    if not os.path.exists(db):
        return []
    out = subprocess.run([tiletune, "export", f"--db={db}"], capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"error: tiletune export --db={db} failed:\n{out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def runs_of(records):
    """(algorithm, seed) -> list of runs, each {id, status, records}."""
    runs = {}
    for r in records:
        run = runs.setdefault(r["run"], dict(id=r["run"], algorithm=r["algorithm"],
                                             seed=r["seed"], status=r["run_status"],
                                             records=[]))
        run["records"].append(r)
    by_key = {}
    for run in sorted(runs.values(), key=lambda x: x["id"]):
        run["records"].sort(key=lambda r: r["trial"])
        by_key.setdefault((run["algorithm"], run["seed"]), []).append(run)
    return by_key


def option_overrides(args, algorithm):
    """Strategy options set on top of --protocol=paper."""
    if algorithm == "gbfs":
        # The paper's Algorithm 1 stops when its queue is empty. On a CPU the
        # untiled start state times out (more than 10x slower than the default
        # config, the tuner's limit) and is not enqueued, so strict G-BFS ends
        # after one trial; restart=true continues from a random unvisited
        # config instead (--strict-gbfs: the paper's restart=false).
        return {"restart": "false" if args.strict_gbfs else "true"}
    if algorithm == "xgb" and args.plan_size:
        # AutoTVM refits every plan_size = 64 results; at budgets below 64 it
        # would never fit and be random search. Scaled with the budget.
        return {"plan_size": str(args.plan_size)}
    if algorithm == "automcl" and args.plan_size:
        # AutoMCL's first batch n (64; the paper gives no value): the same.
        return {"batch": str(args.plan_size)}
    return {}


def matches(run, args, algorithm):
    """Whether a recorded run was made with the settings asked for now."""
    opts = run["records"][0].get("run_options", {}).get("trajectory", {})
    strategy = opts.get("strategy_options", {})
    if any(strategy.get(k) != v for k, v in option_overrides(args, algorithm).items()):
        return False
    # An unpaired run records no measurement method.
    return opts.get("measurement", "unpaired") == ("paired" if args.paired else "unpaired")


def tune_command(args, mlir, db, algorithm, seed, trials, resume):
    # --trials counts the default config's measurement (the pairing reference,
    # not a search trial): the search gets exactly `trials`.
    cmd = [args.tiletune, "tune", mlir, f"--algorithm={algorithm}", f"--seed={seed}",
           f"--trials={trials + 1}", "--threads=1", "--protocol=paper", f"--db={db}",
           "--no-progress", f"--repeats={args.repeats}",
           f"--warmup={args.warmup}"]
    if not args.paired:
        cmd.append("--unpaired")
    if resume:
        # Only when an unfinished run with these settings exists: --resume
        # continues the most recent unfinished run and refuses one made with
        # other settings (e.g. another plan_size).
        cmd.append("--resume")
    options = option_overrides(args, algorithm)
    if algorithm == "automcl" and os.path.exists(args.compute_model):
        options["compute_model"] = args.compute_model
    if options:
        cmd.append("--algorithm-options=" +
                   ",".join(f"{k}={v}" for k, v in options.items()))
    return cmd


class Deadline:
    def __init__(self, minutes):
        self.end = time.time() + minutes * 60 if minutes > 0 else None

    def left(self):
        return None if self.end is None else self.end - time.time()

    def passed(self):
        return self.end is not None and time.time() >= self.end


def run_tune(cmd, log_path, deadline):
    """Runs one tuning; at the deadline it is interrupted (SIGINT: the run is
    marked interrupted and resumes next time). Returns the exit code, or None
    when interrupted."""
    with open(log_path, "a") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            left = deadline.left()
            proc.wait(timeout=None if left is None else max(left, 0.1))
            return proc.returncode
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return None


def throughput_line(log_path):
    last = ""
    with open(log_path) as log:
        for line in log:
            if line.strip().startswith("throughput:"):
                last = line.strip()
    return last


def plan(args, ops):
    """The runs to do, seed-major so that partial results stay balanced."""
    jobs = []
    table_ops = [o for o in args.operators if o in ops]
    for seed in range(1, max(args.seeds, args.boxplot_seeds) + 1):
        for op in table_ops:
            if seed <= args.seeds:
                for algorithm in args.algorithms:
                    jobs.append((op, algorithm, seed, args.trials))
        if args.boxplot_seeds >= seed and "MM1024" in ops:
            for algorithm in args.boxplot_algorithms:
                jobs.append(("MM1024", algorithm, seed, args.boxplot_trials))
    return jobs


def measure(args, ops, out):
    deadline = Deadline(args.max_minutes)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    done_runs = {}
    jobs = plan(args, ops)
    todo = []
    for op, algorithm, seed, trials in jobs:
        db = os.path.join(out, "db", f"{op}.db")
        if op not in done_runs:
            done_runs[op] = runs_of(export_records(args.tiletune, db))
        runs = [r for r in done_runs[op].get((algorithm, seed), [])
                if matches(r, args, algorithm)]
        if any(r["status"] == "finished" for r in runs):
            continue
        todo.append((op, algorithm, seed, trials, bool(runs)))
    print(f"{len(jobs)} runs planned, {len(jobs) - len(todo)} already finished, "
          f"{len(todo)} to do", flush=True)
    failures = 0
    for i, (op, algorithm, seed, trials, resuming) in enumerate(todo):
        if deadline.passed():
            print(f"time limit reached: {len(todo) - i} runs left; run the same "
                  "command again to continue", flush=True)
            return failures, False
        db = os.path.join(out, "db", f"{op}.db")
        mlir = os.path.join(out, "ops", f"{op}.mlir")
        log_path = os.path.join(out, "logs", f"{op}-{algorithm}-s{seed}.log")
        cmd = tune_command(args, mlir, db, algorithm, seed, trials, resuming)
        what = "resume" if resuming else "run"
        print(f"[{i + 1}/{len(todo)}] {what} {op} {algorithm} seed {seed}, "
              f"{trials} search trials", flush=True)
        start = time.time()
        rc = run_tune(cmd, log_path, deadline)
        if rc is None:
            print(f"  interrupted at the time limit after {time.time() - start:.0f} s "
                  "(resumable); run the same command again to continue", flush=True)
            return failures, False
        if rc != 0:
            failures += 1
            print(f"  error: tiletune tune exited with {rc}; see {log_path}", flush=True)
            continue
        print(f"  {time.time() - start:.1f} s; {throughput_line(log_path)}", flush=True)
    return failures, True


def summarise_run(run, flops):
    """The measured search trials of one run: best GFLOP/s and the
    best-so-far curve (GFLOP/s after each search trial; failures count as a
    trial and keep the best)."""
    best, curve, ok, failed = 0.0, [], 0, 0
    default = None
    for r in run["records"]:
        if r["role"] == "default":
            if r["status"] == "ok" and r.get("gflops"):
                default = max(default or 0.0, r["gflops"])
            continue
        if r["role"] != "search":
            continue
        if r["status"] == "ok" and r.get("gflops"):
            ok += 1
            if r["gflops"] > best:
                best = r["gflops"]
        else:
            failed += 1
        curve.append(best)
    best_ms = flops / best / 1e9 * 1e3 if best > 0 else None
    return dict(run=run["id"], status=run["status"], trials=len(curve), ok=ok,
                failed=failed, best_gflops=best, best_ms=best_ms, curve=curve,
                default_gflops=default)


def mean_std(values):
    if not values:
        return None, None
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std


def collect(args, ops, out):
    results = dict(machine=args.machine, threads=1, protocol="paper",
                   repeats=args.repeats, warmup=args.warmup,
                   timing="paired" if args.paired else "unpaired",
                   gbfs_restart=not args.strict_gbfs, plan_size=args.plan_size, trials=args.trials,
                   boxplot_trials=args.boxplot_trials, quick=args.quick,
                   bmm_batch=args.bmm_batch, conv_batch=args.conv_batch,
                   operators={})
    for op, info in ops.items():
        table_op = op in args.operators
        if not table_op and op != "MM1024":
            continue
        algorithms = args.algorithms if table_op else args.boxplot_algorithms
        seeds = args.seeds if table_op else args.boxplot_seeds
        budget = args.trials if table_op else args.boxplot_trials
        runs = runs_of(export_records(args.tiletune, os.path.join(out, "db", f"{op}.db")))
        entry = dict(paper_shape=info["paper"], our_shape=info["ours"],
                     gflop=info["flops"] / 1e9, budget=budget, algorithms={})
        for algorithm in algorithms:
            per_seed = []
            for seed in range(1, seeds + 1):
                finished = [r for r in runs.get((algorithm, seed), [])
                            if r["status"] == "finished" and matches(r, args, algorithm)]
                if finished:
                    s = summarise_run(finished[-1], info["flops"])
                    s["seed"] = seed
                    per_seed.append(s)
            bests = [s["best_gflops"] for s in per_seed]
            mean, std = mean_std(bests)
            entry["algorithms"][algorithm] = dict(
                seeds=len(per_seed), best_gflops_mean=mean, best_gflops_std=std,
                runs=per_seed)
        defaults = [s["default_gflops"] for a in entry["algorithms"].values()
                    for s in a["runs"] if s["default_gflops"]]
        entry["default_gflops_median"] = statistics.median(defaults) if defaults else None
        results["operators"][op] = entry
    return results


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def markdown(results):
    lines = []
    algorithms = []
    for entry in results["operators"].values():
        for a in entry["algorithms"]:
            if a not in algorithms:
                algorithms.append(a)
    table_ops = {k: v for k, v in results["operators"].items() if k != "MM1024"}
    lines.append(f"Best GFLOP/s found (mean ± std over seeds; n = finished runs), "
                 f"{results['trials']} search trials per run, `--protocol=paper`, "
                 f"`--threads=1`, `--repeats={results['repeats']}`, "
                 f"`--warmup={results['warmup']}`, {results['timing']} timing"
                 + (", G-BFS with `restart=true`" if results["gbfs_restart"] else "")
                 + (f", xgb `plan_size={results['plan_size']}` and automcl "
                    f"`batch={results['plan_size']}`" if results["plan_size"] else "")
                 + f"; {results['machine']}.")
    lines.append("")
    header = "| operator | ours (paper) | " + " | ".join(
        ALGORITHM_NAMES.get(a, a) for a in algorithms) + " | default config (median) |"
    lines.append(header)
    lines.append("|" + " --- |" * (len(algorithms) + 3))
    for op, entry in table_ops.items():
        cells = []
        means = {a: entry["algorithms"].get(a, {}).get("best_gflops_mean")
                 for a in algorithms}
        top = max((m for m in means.values() if m is not None), default=None)
        for a in algorithms:
            alg = entry["algorithms"].get(a)
            if not alg or alg["best_gflops_mean"] is None:
                cells.append("—")
                continue
            cell = (f"{fmt(alg['best_gflops_mean'])} ± {fmt(alg['best_gflops_std'])} "
                    f"(n={alg['seeds']})")
            if alg["best_gflops_mean"] == top:
                cell = f"**{cell}**"
            cells.append(cell)
        lines.append(f"| {op} | {entry['our_shape']} ({entry['paper_shape']}) | "
                     + " | ".join(cells) + f" | {fmt(entry['default_gflops_median'])} |")
    box = results["operators"].get("MM1024")
    if box:
        lines.append("")
        lines.append("Fig. 8b-style: best time (ms; the op's FLOPs over the best measured "
                     f"GFLOP/s) of {box['our_shape']} after "
                     f"{box['budget']} trials, per seed:")
        lines.append("")
        lines.append("| algorithm | min | median | mean | max | seeds | best GFLOP/s mean ± std |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- |")
        for a, alg in box["algorithms"].items():
            times = [s["best_ms"] for s in alg["runs"] if s["best_ms"]]
            if not times:
                lines.append(f"| {ALGORITHM_NAMES.get(a, a)} | — | — | — | — | 0 | — |")
                continue
            lines.append(
                f"| {ALGORITHM_NAMES.get(a, a)} | {min(times):.3g} | "
                f"{statistics.median(times):.3g} | {statistics.fmean(times):.3g} | "
                f"{max(times):.3g} | {len(times)} | {fmt(alg['best_gflops_mean'])} ± "
                f"{fmt(alg['best_gflops_std'])} |")
    return "\n".join(lines) + "\n"


def plots(results, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("warning: matplotlib is not available (run with /usr/bin/python3, "
              "Debian's python3-matplotlib): no plots written", file=sys.stderr)
        return []
    written = []
    for op, entry in results["operators"].items():
        fig, ax = plt.subplots(figsize=(6, 4))
        for a, alg in entry["algorithms"].items():
            curves = [s["curve"] for s in alg["runs"] if s["curve"]]
            if not curves:
                continue
            n = max(len(c) for c in curves)
            padded = [c + [c[-1]] * (n - len(c)) for c in curves]
            xs = list(range(1, n + 1))
            mean = [statistics.fmean(col) for col in zip(*padded)]
            std = [statistics.pstdev(col) for col in zip(*padded)]
            line, = ax.plot(xs, mean, label=f"{ALGORITHM_NAMES.get(a, a)} (n={len(curves)})")
            ax.fill_between(xs, [m - s for m, s in zip(mean, std)],
                            [m + s for m, s in zip(mean, std)],
                            color=line.get_color(), alpha=0.15)
        if entry.get("default_gflops_median"):
            ax.axhline(entry["default_gflops_median"], color="gray", linestyle="--",
                       linewidth=1, label="default config (not searched)")
        ax.set_xlabel("trials")
        ax.set_ylabel("best GFLOP/s so far")
        ax.set_title(f"{op}: {entry['our_shape']}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out, f"curves-{op}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    box = results["operators"].get("MM1024")
    if box:
        labels, data = [], []
        for a, alg in box["algorithms"].items():
            times = [s["best_ms"] for s in alg["runs"] if s["best_ms"]]
            if times:
                labels.append(f"{ALGORITHM_NAMES.get(a, a)}\n(n={len(times)})")
                data.append(times)
        if data:
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.boxplot(data, showmeans=True, whis=(0, 100))
            ax.set_xticks(range(1, len(labels) + 1))
            ax.set_xticklabels(labels, fontsize=8)
            if box.get("default_gflops_median"):
                ax.axhline(box["gflop"] / box["default_gflops_median"] * 1e3, color="gray",
                           linestyle="--", linewidth=1, label="default config")
                ax.legend(fontsize=7)
            ax.set_ylabel("best time found (ms)")
            ax.set_title(f"{box['our_shape']}, {box['budget']} trials "
                         "(whiskers min/max, triangle mean)", fontsize=9)
            ax.grid(alpha=0.3, axis="y")
            fig.tight_layout()
            path = os.path.join(out, "boxplot-1024.png")
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written


def print_target(tiletune):
    """The CPU as `tiletune-run --print-target` names it, with its model name."""
    path = shutil.which(tiletune) or tiletune
    run_tool = os.path.join(os.path.dirname(os.path.abspath(path)), "tiletune-run")
    fields = {}
    try:
        out = subprocess.run([run_tool, "--print-target"], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    parts = [x for x in (model, fields.get("cpu"), fields.get("isa")) if x]
    return ", ".join(parts) if parts else "unknown CPU"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="results directory (databases, logs, tables, plots)")
    p.add_argument("--tiletune", default="tiletune", help="the tiletune binary")
    p.add_argument("--quick", action="store_true",
                   help="a tiny matmul, every algorithm, a few trials (for the test)")
    p.add_argument("--operators", default="all",
                   help="table operators, from MM1,MM2,MM3,BMM1,BMM2,BMM3,C1,C2, or 'all' "
                        "(all eight: about an hour of measurement on 1 core at 32 trials)")
    p.add_argument("--algorithms", default=",".join(ALGORITHMS))
    p.add_argument("--seeds", type=int, default=3, help="seeds 1..N per table cell")
    p.add_argument("--trials", type=int, default=32,
                   help="search trials of a table run (the default config is measured too)")
    p.add_argument("--boxplot-algorithms", default="gbfs,na2c,xgb")
    p.add_argument("--boxplot-seeds", type=int, default=5,
                   help="seeds of the 1024^3 box plot (0: no box plot)")
    p.add_argument("--boxplot-trials", type=int, default=24)
    p.add_argument("--bmm-batch", type=int, default=16,
                   help="batch of BMM1-3 (the paper's is 960)")
    p.add_argument("--conv-batch", type=int, default=1,
                   help="batch of C1-C2 (the paper's is 512)")
    p.add_argument("--repeats", type=int, default=3, help="timed samples per variant")
    p.add_argument("--warmup", type=int, default=1, help="untimed calls per variant")
    p.add_argument("--paired", action="store_true",
                   help="time each variant paired with the default config (the tuner's "
                        "default; twice the timing time). Default: --unpaired, as the papers")
    p.add_argument("--plan-size", type=int, default=8,
                   help="xgb's plan_size and automcl's batch (AutoTVM's 64 is more than a "
                        "small budget: the model would never be fitted); 0: the papers' 64")
    p.add_argument("--strict-gbfs", action="store_true",
                   help="G-BFS exactly as the paper (restart=false): it stops when the "
                        "untiled start fails")
    p.add_argument("--compute-model", default=COMPUTE_MODEL,
                   help="AutoMCL's compute model (bench/automcl); absent: compute searched")
    p.add_argument("--max-minutes", type=float, default=0,
                   help="stop (resumably) after this many minutes; 0 = no limit")
    p.add_argument("--report-only", action="store_true",
                   help="measure nothing; tables and plots from the databases")
    args = p.parse_args()

    if args.plan_size < 0:
        p.error("--plan-size must not be negative")
    if args.warmup < 0:
        p.error("--warmup must not be negative")
    for name in ("trials", "boxplot_trials", "bmm_batch", "conv_batch", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.seeds < 0 or args.boxplot_seeds < 0:
        p.error("--seeds and --boxplot-seeds must not be negative")
    if args.quick:
        args.operators = "MMq"
        args.seeds = 1
        args.trials = min(args.trials, 3)
        args.boxplot_seeds = min(args.boxplot_seeds, 2)
        args.boxplot_algorithms = "gbfs,random"
        args.boxplot_trials = min(args.boxplot_trials, 3)
        args.repeats = min(args.repeats, 2)
        args.warmup = min(args.warmup, 1)
        if args.plan_size:
            args.plan_size = 2  # the cost models are fitted within 3 trials
    ops = operators(args.bmm_batch, args.conv_batch, args.quick)
    names = [o for o in ops if o != "MM1024"]
    args.operators = names if args.operators == "all" else args.operators.split(",")
    args.algorithms = args.algorithms.split(",")
    args.boxplot_algorithms = [a for a in args.boxplot_algorithms.split(",") if a]
    for o in args.operators:
        if o not in ops or o == "MM1024":
            p.error(f"unknown operator '{o}' (known: {', '.join(names)})")
    for a in args.algorithms + args.boxplot_algorithms:
        if a not in ALGORITHMS:
            p.error(f"unknown algorithm '{a}' (known: {', '.join(ALGORITHMS)})")
    if args.boxplot_seeds == 0:
        ops.pop("MM1024")

    out = args.out
    os.makedirs(os.path.join(out, "ops"), exist_ok=True)
    os.makedirs(os.path.join(out, "db"), exist_ok=True)
    for op, info in ops.items():
        with open(os.path.join(out, "ops", f"{op}.mlir"), "w") as f:
            f.write(f"// {op}: {info['ours']} (paper: {info['paper']})\n" + info["module"])
    args.machine = print_target(args.tiletune)
    print(f"machine: {args.machine}; 1 thread; scaling: BMM batch 960 -> "
          f"{args.bmm_batch}, conv batch 512 -> {args.conv_batch}", flush=True)

    failures, complete = 0, True
    if not args.report_only:
        failures, complete = measure(args, ops, out)
    results = collect(args, ops, out)
    results["complete"] = complete and failures == 0
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    md = markdown(results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md)
    print(md, end="")
    for path in plots(results, out):
        print(f"wrote {path}")
    if failures:
        print(f"error: {failures} tuning run(s) failed (see {out}/logs)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
