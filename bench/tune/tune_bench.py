#!/usr/bin/env python3
"""Tuning benchmark (issue 4, item 8).

Tunes the 1024^3 matmul and the BERT matmuls (512x1024x1024, 512x1024x4096,
512x4096x1024; M x N x K) with every algorithm under one equal budget, and
measures OpenBLAS (sgemm through ctypes) in the same run. Prints, per problem
and algorithm, the best GFLOP/s, the ratio to OpenBLAS, the default config's
GFLOP/s and the wall-clock time of the tuning run.

usage: tune_bench.py [--tiletune PATH] [--quick] [--trials N] [--seconds S]
                     [--threads T] [--algorithms a,b,...] [--json out.json]
       tune_bench.py --throughput [--families f,...] [--trials N]
                     [--threads T] [--algorithms a] [--variant NAME=FLAGS ...]

--quick uses small problems and a small budget (a smoke test, seconds).
Run it on an otherwise idle machine: timings on a loaded VM are noise.

--throughput (issue 13, item 2) tunes one op per family (matmul 256^3,
matmul 1024^3, a ResNet-50 1x1 conv, a small 3x3 conv) and prints the
variants measured per second with the breakdown `tiletune tune` logs
(wall per variant spent waiting for our MLIR passes, for LLVM codegen, for
measurement, and idle), the compiled variants reused, the timings stopped
early, and the chosen config with its GFLOP/s. Each --variant NAME=FLAGS
(repeatable; FLAGS are extra `tiletune tune` flags, or PATH:FLAGS to use
another tiletune binary) is run on every family back to back, e.g.
--variant "before=--early-stop=0 --compile-cache=0 --no-pin"
--variant "after=".
"""
import argparse
import ctypes
import ctypes.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FULL = [(1024, 1024, 1024), (512, 1024, 1024), (512, 1024, 4096),
        (512, 4096, 1024)]
QUICK = [(128, 128, 128), (64, 128, 256)]
ALGORITHMS = ["grid", "random", "gbfs", "opevo", "na2c", "xgb", "automcl"]


def matmul_mlir(m, n, k):
    return f"""func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>,
          %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def conv_mlir(n, h, w, c, kh, kw, f):
    oh, ow = h - kh + 1, w - kw + 1
    return f"""func.func @conv(%i: tensor<{n}x{h}x{w}x{c}xf32>,
                %k: tensor<{kh}x{kw}x{c}x{f}xf32>,
                %o: tensor<{n}x{oh}x{ow}x{f}xf32>) -> tensor<{n}x{oh}x{ow}x{f}xf32> {{
  %r = linalg.conv_2d_nhwc_hwcf
      {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%i, %k : tensor<{n}x{h}x{w}x{c}xf32>, tensor<{kh}x{kw}x{c}x{f}xf32>)
      outs(%o : tensor<{n}x{oh}x{ow}x{f}xf32>) -> tensor<{n}x{oh}x{ow}x{f}xf32>
  return %r : tensor<{n}x{oh}x{ow}x{f}xf32>
}}
"""


# The op families of the throughput benchmark: name -> MLIR.
FAMILIES = {
    "matmul-256": lambda: matmul_mlir(256, 256, 256),
    "matmul-1024": lambda: matmul_mlir(1024, 1024, 1024),
    # ResNet-50 conv2_x expansion: 1x56x56x64 -> 256 channels, 1x1.
    "resnet-1x1": lambda: conv_mlir(1, 56, 56, 64, 1, 1, 256),
    # A small 3x3 conv (examples/conv.mlir's first layer): 1x30x30x32 -> 64.
    "conv-3x3-small": lambda: conv_mlir(1, 30, 30, 32, 3, 3, 64),
}
# Not in the default list: a tiny problem for the suite's smoke test.
TINY_FAMILIES = {"matmul-32": lambda: matmul_mlir(32, 32, 32)}

THROUGHPUT_RE = re.compile(
    r"throughput: (\d+) variants in ([\d.]+) s \(([\d.]+)/s\); wall per "
    r"variant: our passes (\d+) ms, LLVM codegen (\d+) ms, measurement "
    r"(\d+) ms, idle (\d+) ms; busy per variant: passes (\d+) ms, codegen "
    r"(\d+) ms, verify (\d+) ms, timing (\d+) ms"
    r"(?:; (\d+) compiled variants? reused)?(?:; (\d+) timings? stopped "
    r"early)?")
BEST_RE = re.compile(r"best ([\d.]+) GFLOP/s \(([^)]*)\)")


def run_throughput(args, tmp, db_dir):
    families = [f for f in args.families.split(",") if f]
    variants = args.variant or ["default="]
    alg = args.algorithms.split(",")[0] if args.algorithms != ",".join(
        ALGORITHMS) else "gbfs"
    trials = args.trials if args.trials is not None else 64
    print(f"throughput: {alg}, {trials} trials, threads {args.threads}, "
          f"seed {args.seed}")
    print(f"{'family':<15} {'variant':<10} {'var/s':>6} {'wall s':>7} "
          f"{'passes':>7} {'codegen':>8} {'measure':>8} {'idle':>6} "
          f"{'reused':>6} {'early':>5} {'best GF/s':>9}  config")
    results = []
    for fam in families:
        path = os.path.join(tmp, f"{fam}.mlir")
        with open(path, "w") as f:
            f.write({**FAMILIES, **TINY_FAMILIES}[fam]())
        for spec in variants:
            name, _, flags = spec.partition("=")
            binary = args.tiletune
            first = flags.split(" ")[0]
            if ":" in first and not first.startswith("-"):
                binary, _, flags = flags.partition(":")
            db = os.path.join(db_dir, f"{fam}-{name}.db")
            cmd = [binary, "tune", path, f"--algorithm={alg}",
                   f"--trials={trials}", f"--seed={args.seed}",
                   f"--threads={args.threads}", f"--db={db}",
                   "--no-progress", "-o", os.devnull] + flags.split()
            t0 = time.time()
            out = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.time() - t0
            m = THROUGHPUT_RE.search(out.stderr)
            b = BEST_RE.search(out.stderr)
            if out.returncode != 0 or not b:
                print(f"{fam:<15} {name:<10} FAILED: "
                      f"{out.stderr.strip()[-300:]}")
                results.append({"family": fam, "variant": name,
                                "error": out.stderr[-2000:]})
                continue
            row = {"family": fam, "variant": name, "flags": flags,
                   "process_wall_seconds": wall,
                   "best_gflops": float(b.group(1)), "best": b.group(2)}
            if m:
                g = [x or "0" for x in m.groups()]
                row.update({
                    "measured": int(g[0]), "wall_seconds": float(g[1]),
                    "variants_per_second": float(g[2]),
                    "pass_wait_ms": int(g[3]), "codegen_wait_ms": int(g[4]),
                    "measure_wait_ms": int(g[5]), "idle_ms": int(g[6]),
                    "pass_busy_ms": int(g[7]), "codegen_busy_ms": int(g[8]),
                    "verify_busy_ms": int(g[9]), "timing_busy_ms": int(g[10]),
                    "reused": int(g[11]), "stopped_early": int(g[12])})
                print(f"{fam:<15} {name:<10} {row['variants_per_second']:>6.2f} "
                      f"{row['wall_seconds']:>7.1f} {row['pass_wait_ms']:>5} ms"
                      f" {row['codegen_wait_ms']:>5} ms {row['measure_wait_ms']:>5}"
                      f" ms {row['idle_ms']:>3} ms {row['reused']:>6} "
                      f"{row['stopped_early']:>5} {row['best_gflops']:>9.2f}  "
                      f"{row['best']}")
            else:
                # A tiletune without the breakdown (before issue 13 item 2):
                # variants/s from the process wall clock.
                n = int(re.search(r"(\d+) trials in", out.stderr).group(1))
                row.update({"variants_per_second": n / wall})
                print(f"{fam:<15} {name:<10} {n / wall:>6.2f} {wall:>7.1f} "
                      f"{'(no breakdown)':>40} {row['best_gflops']:>9.2f}  "
                      f"{row['best']}")
            sys.stdout.flush()
            results.append(row)
    return results


def load_openblas():
    for name in ["libopenblas.so.0", "libopenblas.so",
                 ctypes.util.find_library("openblas") or ""]:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    return None


def time_openblas(lib, m, n, k, threads, repeats=10):
    import numpy as np
    if hasattr(lib, "openblas_set_num_threads"):
        lib.openblas_set_num_threads(threads)
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.zeros((m, n), dtype=np.float32)
    f = lib.cblas_sgemm
    f.restype = None
    P = ctypes.c_void_p
    f.argtypes = [ctypes.c_int] * 6 + [ctypes.c_float, P, ctypes.c_int, P,
                                       ctypes.c_int, ctypes.c_float, P,
                                       ctypes.c_int]
    args = (101, 111, 111, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data, n,
            1.0, c.ctypes.data, n)
    for _ in range(3):
        f(*args)
    times = []
    for _ in range(repeats):
        calls = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(calls):
                f(*args)
            dt = time.perf_counter() - t0
            if dt >= 1e-3 or calls >= 1 << 16:
                break
            calls *= 4
        times.append(dt / calls)
    med = statistics.median(times)
    return 2.0 * m * n * k / med * 1e-9


def parse_outcome(stdout, algorithm):
    """Best and default GFLOP/s from `tiletune tune`'s summary table."""
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 7 and parts[1] == algorithm and "/" in parts[0]:
            return float(parts[2]), float(parts[3]), int(parts[5])
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiletune", default=shutil.which("tiletune") or
                   os.path.join(here, "..", "..", "build", "bin", "tiletune"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--trials", type=int, default=None)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--algorithms", default=",".join(ALGORITHMS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default="")
    p.add_argument("--problems", default="",
                   help="comma-separated MxNxK list (default: the full set)")
    p.add_argument("--throughput", action="store_true",
                   help="variants/s with its breakdown per op family")
    p.add_argument("--families", default=",".join(FAMILIES),
                   help="families of --throughput: " + ", ".join(FAMILIES))
    p.add_argument("--variant", action="append", default=[],
                   help="NAME=FLAGS or NAME=PATH:FLAGS (repeatable)")
    args = p.parse_args()
    if args.throughput:
        tmp = tempfile.mkdtemp(prefix="tiletune-bench-")
        results = run_throughput(args, tmp, tmp)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"threads": args.threads, "results": results}, f,
                          indent=1)
        shutil.rmtree(tmp, ignore_errors=True)
        return 0 if all("error" not in r for r in results) else 1
    problems = QUICK if args.quick else FULL
    if args.problems:
        problems = [tuple(int(v) for v in s.split("x"))
                    for s in args.problems.split(",") if s]
    trials = args.trials if args.trials is not None else (
        6 if args.quick else 64)
    algorithms = [a for a in args.algorithms.split(",") if a]
    os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")
    lib = load_openblas()
    tmp = tempfile.mkdtemp(prefix="tiletune-bench-")
    db = os.path.join(tmp, "bench.db")
    results = []
    print(f"budget: {trials} trials" +
          (f", {args.seconds} s" if args.seconds else "") +
          f" per problem and algorithm; threads {args.threads}")
    header = (f"{'problem (MxNxK)':<18} {'algorithm':<9} {'best GF/s':>10} "
              f"{'default':>9} {'OpenBLAS':>9} {'ratio':>6} {'wall s':>8}")
    print(header)
    for (m, n, k) in problems:
        path = os.path.join(tmp, f"mm_{m}x{n}x{k}.mlir")
        with open(path, "w") as f:
            f.write(matmul_mlir(m, n, k))
        blas = time_openblas(lib, m, n, k, args.threads) if lib else None
        for alg in algorithms:
            cmd = [args.tiletune, "tune", path, f"--algorithm={alg}",
                   f"--trials={trials}", f"--seconds={args.seconds}",
                   f"--seed={args.seed}", f"--threads={args.threads}",
                   f"--db={db}", "--quiet"]
            t0 = time.time()
            out = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.time() - t0
            parsed = parse_outcome(out.stdout, alg) if out.returncode == 0 \
                else None
            if parsed is None:
                print(f"{m}x{n}x{k:<10} {alg:<9} FAILED: "
                      f"{out.stderr.strip()[-300:]}")
                results.append({"problem": [m, n, k], "algorithm": alg,
                                "error": out.stderr[-2000:]})
                continue
            best, default, used = parsed
            # Re-measure OpenBLAS after each run as well: the ratio uses the
            # mean of the measurements taken around the tuning runs.
            if lib:
                blas = (blas + time_openblas(lib, m, n, k, args.threads)) / 2
            ratio = best / blas if blas else float("nan")
            name = f"{m}x{n}x{k}"
            print(f"{name:<18} {alg:<9} {best:>10.2f} {default:>9.2f} "
                  f"{(blas or 0):>9.2f} {ratio:>6.2f} {wall:>8.1f}")
            sys.stdout.flush()
            results.append({"problem": [m, n, k], "algorithm": alg,
                            "best_gflops": best, "default_gflops": default,
                            "openblas_gflops": blas, "ratio": ratio,
                            "trials": used, "wall_seconds": wall})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"trials": trials, "threads": args.threads,
                       "results": results}, f, indent=1)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
