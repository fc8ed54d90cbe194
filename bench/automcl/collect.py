#!/usr/bin/env python3
"""Measures each AutoMCL compute of a matmul over a set of sizes.

The dataset of AutoMCL's learned compute choice (paper 001, Sec. 3
"Learning to choose schedules", Sec. 4 "Evaluation of automatic schedule
chosen"): for every size, the default config of the compiler
is computed once per compute (tmm, lpmm, rpmmv, dpmm: the pass's `compute`
option, which sizes the tiles for that compute), verified against the C++
reference and timed with tiletune-run. One JSON line per size; a size already
in the output file is skipped, so an interrupted run resumes.

  python3 bench/automcl/collect.py --bin build/bin --out data.jsonl --sizes 80

--form=tb measures matmuls whose B is stored transposed, N x K (the
nn.Linear form), where two more computes apply: ttmm (B transposed whole
first, `pack = bt`) and dnmm332 (vectors along k, `pack = dn`, whose default
register tile is one row of A against rows of B).

Sizes (the paper's rule scaled to this machine): each dimension from small
{1, 8, 16}, medium {64, 256} and large {512} (6^3 = 216 combinations, a
random subset), plus sizes with every dimension uniform in 1..512. Run it
under the build lock on a shared machine (docs/Search.md).
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

COMPUTES = ["tmm", "lpmm", "rpmmv", "dpmm"]
SCALES = [1, 8, 16, 64, 256, 512]
# The op kind (ComputeModel's "op") each form measures, and the compute each
# `pack` value is (the default config records its pack); train.py uses both.
OP_OF_FORM = {"plain": "matmul", "tb": "matmul_transpose_b"}
COMPUTE_OF_PACK = {"none": "tmm", "a": "lpmm", "b": "rpmmv", "ab": "dpmm",
                   "bt": "ttmm", "dn": "dnmm332"}


def computes_of(form):
    """The computes measured on a form: ttmm and dnmm332 need a B stored
    N x K."""
    return COMPUTES + (["ttmm", "dnmm332"] if form == "tb" else [])


def kernel(m, n, k, form="plain"):
    if form == "tb":
        return f"""func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{n}x{k}xf32>,
              %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>)
         outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""
    return f"""func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>,
              %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def pick_sizes(count, seed):
    rng = random.Random(seed)
    grid = [(m, n, k) for m in SCALES for n in SCALES for k in SCALES]
    rng.shuffle(grid)
    n_grid = (count * 3) // 4
    sizes = grid[:n_grid]
    while len(sizes) < count:
        size = tuple(rng.randint(1, 512) for _ in range(3))
        if size not in sizes:
            sizes.append(size)
    return sizes


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def target_of(tiletune_run, mcpu=""):
    """The CPU target as the compute model records it."""
    cmd = [tiletune_run, "--print-target"] + ([f"--mcpu={mcpu}"] if mcpu else [])
    out = run(cmd).stdout
    cpu = re.search(r"^cpu: (\S+)", out, re.M).group(1)
    isa = re.search(r"^isa: (\S+)", out, re.M).group(1)
    bits = int(re.search(r"^vector width: (\d+) bits", out, re.M).group(1))
    caches = re.search(r"^caches: (.*)$", out, re.M).group(1)
    return {"cpu": cpu, "isa": isa, "vector_bits": bits, "caches": caches}


def measure(args, m, n, k):
    """GFLOP/s (median) and wall seconds of each compute of one size."""
    opt = os.path.join(args.bin, "tiletune-opt")
    runner = os.path.join(args.bin, "tiletune-run")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "mm.mlir")
        with open(src, "w") as f:
            f.write(kernel(m, n, k, args.form))
        def configure(compute=""):
            option = f"threads={args.threads}"
            if args.mcpu:
                option += f" mcpu={args.mcpu}"
            if compute:
                option += f" compute={compute}"
            res = run([opt, src, f"--tiletune-default-config={option}"])
            if res.returncode != 0 or "warning" in res.stderr:
                raise RuntimeError(f"default config ({option}) of "
                                   f"{m}x{n}x{k}: {res.stderr}")
            if not re.search(r"pack = \w+", res.stdout):
                raise RuntimeError(f"no pack in the default config "
                                   f"({option}) of {m}x{n}x{k}")
            return res.stdout

        default_pack = re.search(r"pack = (\w+)", configure()).group(1)
        result = {"m": m, "n": n, "k": k, "form": args.form,
                  "default_pack": default_pack,
                  "gflops": {}, "seconds": {}, "config": {}}
        for compute in computes_of(args.form):
            text = configure(compute)
            path = os.path.join(tmp, f"{compute}.mlir")
            with open(path, "w") as f:
                f.write(text)
            start = time.time()
            res = run([runner, path, "--pipeline=tiletune-lower-cpu",
                       "--verify", f"--repeats={args.repeats}",
                       f"--num-threads={args.threads}"]
                      + ([f"--mcpu={args.mcpu}"] if args.mcpu else []))
            wall = time.time() - start
            if res.returncode != 0 or "verify: PASSED" not in res.stdout:
                raise RuntimeError(f"{compute} on {m}x{n}x{k} failed:\n"
                                   f"{res.stdout}{res.stderr}")
            g = re.search(r"gflops: mean [0-9.]+, median ([0-9.]+)", res.stdout)
            result["gflops"][compute] = float(g.group(1))
            result["seconds"][compute] = round(wall, 3)
            result["config"][compute] = re.search(
                r"#tiletune\.config<[^>]*>", text).group(0)
        return result


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bin", default="build/bin",
                    help="directory of tiletune-opt and tiletune-run")
    ap.add_argument("--out", required=True, help="output JSON lines")
    ap.add_argument("--form", choices=["plain", "tb"], default="plain",
                    help="plain: B stored K x N; tb: B stored N x K "
                         "(nn.Linear), where ttmm and dnmm332 apply too")
    ap.add_argument("--mcpu", default="",
                    help="target CPU in LLVM's names (e.g. haswell for AVX2 "
                         "on an AVX-512 host; default: the host); the data "
                         "and the model are then that target's")
    ap.add_argument("--sizes", type=int, default=80, help="number of sizes")
    ap.add_argument("--shapes", default="",
                    help="measure these sizes instead, MxNxK,MxNxK,...")
    ap.add_argument("--seed", type=int, default=1, help="seed of the sizes")
    ap.add_argument("--threads", type=int, default=1, help="kernel threads")
    ap.add_argument("--repeats", type=int, default=5, help="timed samples")
    args = ap.parse_args()
    if args.sizes < 1 or args.threads < 1 or args.repeats < 1:
        sys.exit("collect.py: --sizes, --threads and --repeats must be >= 1")
    runner = os.path.join(args.bin, "tiletune-run")
    if not os.path.exists(runner):
        sys.exit(f"collect.py: no {runner} (build first, or pass --bin)")
    target = target_of(runner, args.mcpu)
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                r = json.loads(line)
                if (r["target"] != target or r["threads"] != args.threads
                        or r.get("form", "plain") != args.form):
                    sys.exit(f"collect.py: {args.out} holds measurements of "
                             "another target, thread count or form")
                done.add((r["m"], r["n"], r["k"]))
    if args.shapes:
        try:
            sizes = [tuple(int(x) for x in s.split("x"))
                     for s in args.shapes.split(",")]
        except ValueError:
            sizes = []
        if not sizes or any(len(t) != 3 or min(t) < 1 for t in sizes):
            sys.exit(f"collect.py: --shapes wants MxNxK,... with sizes >= 1, "
                     f"not '{args.shapes}'")
    else:
        sizes = pick_sizes(args.sizes, args.seed)
    with open(args.out, "a") as out:
        for i, (m, n, k) in enumerate(sizes):
            if (m, n, k) in done:
                continue
            r = measure(args, m, n, k)
            r["target"] = target
            r["threads"] = args.threads
            out.write(json.dumps(r, sort_keys=True) + "\n")
            out.flush()
            best = max(r["gflops"], key=r["gflops"].get)
            print(f"[{i + 1}/{len(sizes)}] {m}x{n}x{k}: best {best} "
                  + " ".join(f"{c}={g:.1f}" for c, g in r["gflops"].items()),
                  flush=True)


if __name__ == "__main__":
    main()
