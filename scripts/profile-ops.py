#!/usr/bin/env python3
"""Where a JIT-compiled module's time goes, op by op.

A model's ops are all inlined into one function, so `perf report` shows a
single symbol. This script compiles the module with line tables that point
back at the input file (upstream's ensure-debug-info-scope-on-llvm-func
pass after the lowering, so every instruction carries the location of the
op it came from), samples its calls with `perf record` (TILETUNE_PERF_JIT=1
makes the JIT write a jitdump with those line tables), and attributes each
sample of the entry function to the input line of the op it was in. Then
it prints the ops by their share of the samples, each with that share of
the measured median call time, and the shares per op kind.

  python3 scripts/profile-ops.py [--bindir build/bin] model.mlir \\
      [--pipeline="tiletune-lower-cpu{default-configs=1 threads=1}"] \\
      [--repeats 40] [--top 30] [--entry NAME] [-- extra tiletune-run args]

Needs `perf` (Debian's linux-perf) with user-space sampling allowed
(kernel.perf_event_paranoid <= 2) and llvm-dwarfdump (llvm-22-tools).
The "ms" column is the op's share of the samples times the median call
time tiletune-run measured in the same run: an estimate from sampling,
not a separate measurement of the op. The samples of the JIT-compiled
entry function are 100 %, the compile itself is left out. With --threads
above 1 (and a lowering for as many threads), the samples of every
thread count: those of the parallel regions OpenMP outlined from the
entry function, by the lines of their ops, and those of the OpenMP
runtime, as a row "(OpenMP runtime)" (threads waiting at the end of a
parallel region or for the next one), so each op's share is of the
threads' time.

Code with line 0 (instructions LLVM merged from or hoisted out of several
ops' code, or code a pass created without a location) is charged by
default to the op whose code precedes it in the function: in ResNet-50 b8
it was 8.7 % of the samples, nearly all of it inside the 3x3 convs' loops.
The "line 0" column gives the part of each share charged that way;
--line0=own lists such code as a row of its own instead.
"""

import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

UNITS = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}
# The row of the OpenMP runtime's samples at several threads.
RUNTIME = "(OpenMP runtime)"
DEBUG_INFO = "ensure-debug-info-scope-on-llvm-func{emission-kind=LineTablesOnly}"


def fail(message):
    print(f"profile-ops: error: {message}", file=sys.stderr)
    sys.exit(1)


def find_tool(name, candidates):
    for path in candidates:
        if path and os.path.exists(path):
            return path
    found = shutil.which(name)
    if not found:
        fail(f"cannot find {name}")
    return found


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"{' '.join(cmd[:3])} ... exited with {result.returncode}:\n"
             f"{result.stderr.strip()[-2000:]}")
    return result


def op_of_line(text):
    """The op a line of MLIR defines, and its types, for the table."""
    match = re.search(r"\b([a-z_]+\.[a-z_0-9.]+)\b", text)
    name = match.group(1) if match else text.strip()[:40]
    # The operand types (after `ins(`), not those of attributes.
    operands = text[text.find("ins("):] if "ins(" in text else text
    types = re.findall(r"(?:tensor|memref)<[^>]*>", operands)
    return name, types


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("input", help="the .mlir module (any tiletune-run input)")
    parser.add_argument("--bindir",
                        help="where tiletune-run is (default: build/bin, "
                             "else the one on PATH)")
    parser.add_argument("--pipeline",
                        default="tiletune-lower-cpu{default-configs=1 threads=1}",
                        help="the lowering (default: default configs, 1 thread)")
    parser.add_argument("--entry", help="function to run (tiletune-run --entry)")
    parser.add_argument("--repeats", type=int, default=40,
                        help="calls timed and sampled (default 40)")
    parser.add_argument("--threads", type=int, default=1,
                        help="tiletune-run --num-threads (default 1)")
    parser.add_argument("--top", type=int, default=30,
                        help="ops listed (default 30; 0 = all)")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep perf's files in DIR (default: a temporary one)")
    parser.add_argument("--line0", choices=["preceding", "own"],
                        default="preceding",
                        help="code with line 0: charged to the op whose code "
                        "precedes it (default), or a row of its own")
    parser.add_argument("extra", nargs="*",
                        help="further tiletune-run arguments (after --)")
    args = parser.parse_args()

    if args.repeats < 1 or args.threads < 1:
        fail("--repeats and --threads must be at least 1")
    if not os.path.isfile(args.input):
        fail(f"no such file: {args.input}")
    if args.bindir:
        runner = os.path.join(args.bindir, "tiletune-run")
        if not os.path.exists(runner):
            fail(f"no tiletune-run in {args.bindir} (--bindir)")
    else:
        runner = os.path.join("build", "bin", "tiletune-run")
        if not os.path.exists(runner):
            runner = shutil.which("tiletune-run")
        if not runner:
            fail("no tiletune-run in build/bin or on PATH (--bindir)")
    perf = find_tool("perf", [])
    dwarfdump = find_tool("llvm-dwarfdump",
                          ["/usr/lib/llvm-22/bin/llvm-dwarfdump"])
    nm = find_tool("llvm-nm", ["/usr/lib/llvm-22/bin/llvm-nm"])
    source = open(args.input).read().splitlines()

    workdir = args.keep or tempfile.mkdtemp(prefix="profile-ops.")
    os.makedirs(workdir, exist_ok=True)
    env = dict(os.environ, TILETUNE_PERF_JIT="1", JITDUMPDIR=workdir)
    data = os.path.join(workdir, "perf.data")
    cmd = [perf, "record", "-q", "-e", "cpu-clock", "-k", "mono", "-o", data,
           "--", runner, os.path.abspath(args.input),
           f"--pipeline={args.pipeline},{DEBUG_INFO}",
           f"--num-threads={args.threads}", f"--repeats={args.repeats}"]
    if args.entry:
        cmd.append(f"--entry={args.entry}")
    cmd += args.extra
    recorded = run(cmd, env=env)
    kernel = re.search(r"^kernel: @([\w$.]+)\(", recorded.stdout, re.M)
    timing = re.search(r"^time: .*median ([0-9.]+) (s|ms|us|ns)",
                       recorded.stdout, re.M)
    if not kernel or not timing:
        fail("tiletune-run printed no kernel or time line:\n" +
             recorded.stdout[-2000:])
    entry = kernel.group(1)
    median_ms = float(timing.group(1)) * UNITS[timing.group(2)]

    injected = os.path.join(workdir, "perf.jit.data")
    run([perf, "inject", "-j", "-i", data, "-o", injected], env=env)
    script = run([perf, "script", "-i", injected, "-F", "ip,sym,symoff,dso"])

    # Samples of the entry function, by offset in it, per jitted object and
    # symbol: the function itself, its C-interface wrapper where LLVM
    # inlined the function into the wrapper, and the parallel regions
    # OpenMP outlined from it (`entry..omp_par.N`, run by every thread of a
    # multi-threaded lowering). The OpenMP runtime's own samples while the
    # calls run (threads waiting at the barrier that ends each parallel
    # region, or for the next one) are counted as a row of their own: at
    # several threads they are part of every call's time.
    offsets = collections.defaultdict(collections.Counter)
    names = "|".join(re.escape(n) for n in (entry, "_mlir_ciface_" + entry))
    pattern = re.compile(r"\s(" + names + r"|" + re.escape(entry) +
                         r"\.\.omp_par(?:\.\d+)?)\+0x([0-9a-f]+)\s+\((.*)\)")
    runtime = 0
    for line in script.stdout.splitlines():
        match = pattern.search(line)
        if match:
            key = (match.group(3), match.group(1))
            offsets[key][int(match.group(2), 16)] += 1
        elif args.threads > 1 and re.search(r"\(\S*/libomp\.so[.0-9]*\)\s*$", line):
            runtime += 1
    kernel_samples = sum(sum(c.values()) for c in offsets.values())
    if kernel_samples == 0:
        fail(f"no samples of @{entry}; raise --repeats")
    total = kernel_samples + runtime

    by_line = collections.Counter()
    line0_by_line = collections.Counter()
    for (obj, symbol), counter in offsets.items():
        if not os.path.exists(obj):
            fail(f"perf inject wrote no {obj}")
        symbols = run([nm, obj]).stdout
        start = None
        for sym in symbols.splitlines():
            parts = sym.split()
            if len(parts) == 3 and parts[2] == symbol:
                start = int(parts[0], 16)
        if start is None:
            fail(f"no symbol {symbol} in {obj}")
        table = []
        for row in run([dwarfdump, "--debug-line", obj]).stdout.splitlines():
            match = re.match(r"(0x[0-9a-f]+)\s+(\d+)\s", row)
            if match:
                table.append((int(match.group(1), 16), int(match.group(2))))
        table.sort()
        addresses = [address for address, _ in table]
        for offset, count in counter.items():
            i = bisect.bisect_right(addresses, start + offset) - 1
            line = table[i][1] if i >= 0 else 0
            if line == 0:
                if args.line0 == "preceding":
                    while i > 0 and line == 0:
                        i -= 1
                        line = table[i][1]
                line0_by_line[line] += count
            by_line[line] += count

    def describe(line):
        if line < 0:
            return RUNTIME, []
        if line == 0 or line > len(source):
            return "(line 0)", []
        return op_of_line(source[line - 1])

    print(f"@{entry}: {total} samples over {args.repeats} calls, median call "
          f"{median_ms:.3f} ms ({args.pipeline}, {args.threads} thread(s))")
    print("ms = share of the samples x the median call (an estimate)")
    print()
    kinds = collections.Counter()
    line0_kinds = collections.Counter()
    for line, count in by_line.items():
        name = describe(line)[0]
        kinds[name] += count
        line0_kinds[name] += line0_by_line[line]

    def line0(count, part):
        return f"{100 * part / count:5.1f}%"

    if runtime:
        kinds[RUNTIME] += runtime
        by_line[-1] += runtime
    print(f"{'op kind':34s} {'share':>7s} {'ms':>9s} {'line 0':>7s}")
    for name, count in kinds.most_common():
        share = count / total
        print(f"{name:34s} {100 * share:6.2f}% {share * median_ms:9.3f} "
              f"{line0(count, line0_kinds[name]):>7s}")
    print()
    print(f"{'line':>6s} {'share':>7s} {'ms':>9s} {'line 0':>7s}  op")
    top = by_line.most_common(args.top or None)
    for line, count in top:
        name, types = describe(line)
        share = count / total
        where = str(line) if line > 0 else "-"
        if line < 0:
            where = "omp"
        print(f"{where:>6s} {100 * share:6.2f}% {share * median_ms:9.3f} "
              f"{line0(count, line0_by_line[line]):>7s}  "
              f"{name} {' '.join(types[:3])}")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
