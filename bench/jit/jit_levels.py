#!/usr/bin/env python3
"""Runtime of tuned kernels compiled at several JIT optimisation levels.

For every matmul or 2-D conv problem in the given tuning databases, every measured
config is written as a `#tiletune.config` kernel and run with
`tiletune-run` at each level (-O<ir> --codegen-opt-level=<cg>), levels
interleaved round by round so that the machine's drift hits all of them
alike. Prints, per kernel, the best GFLOP/s of each level relative to the
first level, and the compile time of each level (`tiletune-run` wall time
minus the timed samples is dominated by the JIT).

  python3 bench/jit/jit_levels.py --db a.db --db b.db --levels 3/3,2/2 \
      --rounds 3 --tiletune-run build/bin/tiletune-run --tiletune build/bin/tiletune
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def export(tiletune, db):
    out = subprocess.run([tiletune, "export", "--db=" + db], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def kernel(problem, config):
    """The kernel of `problem` under `config` as MLIR text (matmul and the
    2-D convs on tensors), or None for another op."""
    op = problem["op"]
    if op != "matmul" and not op.startswith("conv_2d_"):
        return None
    tiles = {"parallel": {}, "cache": {}, "register": {}}
    pad = {}
    for d in problem["dims"]:
        name, role, size = d["name"], d["role"], d["size"]
        f = config[name]
        padded = 1
        for x in f:
            padded *= x
        if padded != size:
            pad[name] = padded
        t1 = padded // f[0]
        if role == "batch":
            tiles["parallel"][name] = t1
        elif role == "reduction":
            tiles["cache"][name] = t1
        else:
            t2 = t1 // f[1]
            tiles["parallel"][name] = t1
            tiles["cache"][name] = t2
            tiles["register"][name] = t2 // f[2]
    parts = []
    if pad:
        parts.append("pad = {%s}" % ", ".join(
            "%s = %d" % kv for kv in pad.items()))
    for level in ("parallel", "cache", "register"):
        parts.append("%s = {%s}" % (level, ", ".join(
            "%s = %d" % kv for kv in tiles[level].items())))
    parts.append("order = [%s]" % ", ".join(config["order"]))
    for option in ("vectorize", "pack", "compute", "layout"):
        if option in config:
            parts.append("%s = %s" % (option, config[option]))
    if "unroll" in config:
        parts.append("unroll = %d" % config["unroll"])
    attr = "tiletune.config = #tiletune.config<cpu, %s>" % ", ".join(parts)
    a, b, c = ("x".join(str(x) for x in shape) + "xf32"
               for shape in problem["shapes"])
    if op == "matmul":
        attrs = "{%s}" % attr
    else:
        attrs = ("{dilations = dense<[%d, %d]> : tensor<2xi64>, "
                 "strides = dense<[%d, %d]> : tensor<2xi64>, %s}"
                 % (*problem["dilations"], *problem["strides"], attr))
    return f"""func.func @k(%a: tensor<{a}>, %b: tensor<{b}>,
             %c: tensor<{c}>) -> tensor<{c}> {{
  %0 = linalg.{op} {attrs}
    ins(%a, %b : tensor<{a}>, tensor<{b}>)
    outs(%c : tensor<{c}>) -> tensor<{c}>
  return %0 : tensor<{c}>
}}
"""


def run(tool, path, level, repeats):
    ir, cg = level.split("/")
    start = time.monotonic()
    res = subprocess.run([tool, path, "--pipeline=tiletune-lower-cpu{threads=1}",
                          "--num-threads=1", "--repeats=%d" % repeats,
                          "-O", ir, "--codegen-opt-level=" + cg],
                         capture_output=True, text=True)
    wall = time.monotonic() - start
    if res.returncode != 0:
        return None, None
    best = float(re.search(r"best ([0-9.]+)", res.stdout).group(1))
    samples = re.search(r"median ([0-9.]+) (us|ms|s)", res.stdout)
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0}[samples.group(2)]
    calls = re.search(r"\((\d+) samples x (\d+) calls\)", res.stdout)
    timed = float(samples.group(1)) * scale * int(calls.group(1)) * int(
        calls.group(2))
    return best, wall - timed


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db", action="append", required=True)
    ap.add_argument("--levels", default="3/3,2/2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--max-configs", type=int, default=12,
                    help="per problem: the fastest measured configs")
    ap.add_argument("--tiletune", default="build/bin/tiletune")
    ap.add_argument("--tiletune-run", default="build/bin/tiletune-run")
    args = ap.parse_args()
    levels = args.levels.split(",")
    kernels = []
    for db in args.db:
        records = [r for r in export(args.tiletune, db) if r.get("gflops")]
        records.sort(key=lambda r: -r["gflops"])
        seen = {}  # problem -> its config keys taken
        for r in records:
            taken = seen.setdefault(r["problem"], set())
            if r["config_key"] in taken or len(taken) >= args.max_configs:
                continue
            text = kernel(r["problem_description"], r["config"])
            if text is None:
                continue
            taken.add(r["config_key"])
            kernels.append((r["problem"], r["config_key"], text))
    tmp = tempfile.mkdtemp(prefix="jit-levels-")
    ratios = {lv: [] for lv in levels[1:]}
    compile_s = {lv: [] for lv in levels}
    print("kernel | " + " | ".join(levels[1:]) + " (best GFLOP/s vs "
          + levels[0] + ") | compile s " + " / ".join(levels))
    for i, (problem, key, text) in enumerate(kernels):
        path = os.path.join(tmp, "k%d.mlir" % i)
        with open(path, "w") as f:
            f.write(text)
        best = {lv: [] for lv in levels}
        comp = {lv: [] for lv in levels}
        for _ in range(args.rounds):
            for lv in levels:
                b, c = run(args.tiletune_run, path, lv, args.repeats)
                if b is None:
                    print("failed:", problem, key, lv, file=sys.stderr)
                    continue
                best[lv].append(b)
                comp[lv].append(c)
        if not all(best[lv] for lv in levels):
            continue
        base = max(best[levels[0]])
        row = []
        for lv in levels[1:]:
            r = max(best[lv]) / base
            ratios[lv].append(r)
            row.append("%.3f" % r)
        for lv in levels:
            compile_s[lv].append(statistics.median(comp[lv]))
        print("%s %s | %s | %s" % ("/".join(problem.split("/")[:3:2]), key, " | ".join(row),
              " / ".join("%.2f" % statistics.median(comp[lv]) for lv in levels)),
              flush=True)
    print()
    for lv in levels[1:]:
        if ratios[lv]:
            print("%s vs %s: median %.3f, min %.3f, max %.3f over %d kernels"
                  % (lv, levels[0], statistics.median(ratios[lv]),
                     min(ratios[lv]), max(ratios[lv]), len(ratios[lv])))
    for lv in levels:
        if compile_s[lv]:
            print("%s: compile+run overhead median %.2f s, max %.2f s"
                  % (lv, statistics.median(compile_s[lv]), max(compile_s[lv])))


if __name__ == "__main__":
    main()
