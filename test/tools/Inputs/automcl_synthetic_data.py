#!/usr/bin/env python3
"""Writes a synthetic dataset in bench/automcl/collect.py's format, with a
known best compute per size, for testing train.py and the model it writes.

  automcl_synthetic_data.py TILETUNE_RUN OUT.jsonl

Form tb (B stored N x K): the best compute is dnmm332 when M <= 16 and
rpmmv otherwise, by a factor of two over the others; the target is this
machine's (`tiletune-run --print-target`), so the model loads here.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "bench", "automcl"))
import collect  # noqa: E402

COMPUTES = collect.computes_of("tb")


def main():
    runner, out = sys.argv[1], sys.argv[2]
    target = collect.target_of(runner)
    with open(out, "w") as f:
        for m in (1, 2, 4, 8, 12, 16, 24, 32, 64, 128, 256, 512):
            for n in (16, 64, 256):
                for k in (64, 256):
                    best = "dnmm332" if m <= 16 else "rpmmv"
                    gflops = {c: 100.0 if c == best else 50.0
                              for c in COMPUTES}
                    f.write(json.dumps({
                        "m": m, "n": n, "k": k, "form": "tb",
                        "default_pack": "b", "gflops": gflops,
                        "seconds": {c: 0.5 for c in COMPUTES},
                        "config": {}, "target": target, "threads": 1},
                        sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
