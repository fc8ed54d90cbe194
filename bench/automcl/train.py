#!/usr/bin/env python3
"""Trains AutoMCL's compute model from collect.py's measurements.

AutoMCL's learned choice of compute (paper 001, Sec. 3 "Learning to choose
schedules", Fig. 3): an XGBoost classifier with the matrix size as input
predicts the fastest compute of a matmul of one form (collect.py --form:
plain, or tb, B stored N x K, with ttmm and dnmm332 besides). This script splits the sizes into
a training set and a held-out set (random, seeded), trains the classifier
(multi:softprob over the computes), reports the held-out accuracy and what
the prediction costs and saves compared with searching the compute, and
writes the versioned model file that the automcl strategy reads
(`--algorithm-options=compute_model=FILE`).

  python3 bench/automcl/train.py data.jsonl --model compute-model.json

Needs the Python bindings of XGBoost and numpy (Debian: python3-xgboost).
The features must stay those of ComputeModel::getFeatures (C++): m, n, k,
log2(m n k); the file format version that of ComputeModel::kVersion.
"""

import argparse
import json
import math
import random
import sys

# The computes, op kind and packs of each form, as collect.py measures them.
from collect import COMPUTE_OF_PACK, OP_OF_FORM, computes_of

FORMAT = "tiletune-automcl-compute-model"
VERSION = 1
FEATURES = ["m", "n", "k", "log2_mnk"]


def features(r):
    return [float(r["m"]), float(r["n"]), float(r["k"]),
            math.log2(max(1.0, float(r["m"]) * r["n"] * r["k"]))]


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("data", help="collect.py output (JSON lines)")
    ap.add_argument("--model", required=True, help="model file to write")
    ap.add_argument("--held-out", type=float, default=0.2,
                    help="fraction of the sizes held out (default 0.2)")
    ap.add_argument("--seed", type=int, default=1, help="split/training seed")
    ap.add_argument("--rounds", type=int, default=50, help="boosting rounds")
    ap.add_argument("--report", help="also write the report (JSON) here")
    args = ap.parse_args()
    try:
        import numpy as np
        import xgboost as xgb
    except ImportError as e:
        sys.exit(f"train.py: {e} (install python3-xgboost)")
    rows = [json.loads(line) for line in open(args.data) if line.strip()]
    if len(rows) < 10:
        sys.exit(f"train.py: {len(rows)} sizes in {args.data}; need >= 10")
    targets = {json.dumps(r["target"], sort_keys=True) for r in rows}
    threads = {r["threads"] for r in rows}
    if len(targets) != 1 or len(threads) != 1:
        sys.exit("train.py: the data mixes targets or thread counts")
    forms = {r.get("form", "plain") for r in rows}
    if len(forms) != 1:
        sys.exit("train.py: the data mixes forms (collect.py --form); a "
                 "model chooses among the computes of one form")
    form = forms.pop()
    computes = computes_of(form)
    for r in rows:
        if sorted(r["gflops"]) != sorted(computes):
            sys.exit(f"train.py: {r['m']}x{r['n']}x{r['k']} was measured "
                     f"with computes {sorted(r['gflops'])}, not those of "
                     f"form {form} ({computes}); collect it again")
    if not 0 < args.held_out < 1:
        sys.exit("train.py: --held-out must be in (0, 1)")
    for r in rows:
        r["best"] = max(computes, key=lambda c: r["gflops"][c])
    rng = random.Random(args.seed)
    order = list(range(len(rows)))
    rng.shuffle(order)
    n_test = max(1, round(len(rows) * args.held_out))
    test = [rows[i] for i in order[:n_test]]
    train = [rows[i] for i in order[n_test:]]

    dtrain = xgb.DMatrix(np.array([features(r) for r in train], np.float32),
                         label=[computes.index(r["best"]) for r in train],
                         feature_names=FEATURES)
    params = {"objective": "multi:softprob", "num_class": len(computes),
              "max_depth": 3, "eta": 0.3, "seed": args.seed, "nthread": 1}
    booster = xgb.train(params, dtrain, num_boost_round=args.rounds)

    def predict(rs):
        d = xgb.DMatrix(np.array([features(r) for r in rs], np.float32),
                        feature_names=FEATURES)
        return [computes[int(i)] for i in np.argmax(booster.predict(d), 1)]

    def evaluate(rs, chosen):
        # Performance of a choice relative to the best compute (1 = best).
        ratios = [r["gflops"][c] / r["gflops"][r["best"]]
                  for r, c in zip(rs, chosen)]
        within = sum(x >= 0.98 for x in ratios) / len(ratios)
        return geomean(ratios), within

    auto = predict(test)
    accuracy = sum(c == r["best"] for c, r in zip(auto, test)) / len(test)
    wins = {c: sum(r["best"] == c for r in rows) for c in computes}
    static = max(computes, key=lambda c: wins[c])  # one compute for all
    majority = sum(r["best"] == static for r in test) / len(test)

    # 5-fold cross-validation over all sizes (the one held-out split of a
    # small dataset is noisy): accuracy and GFLOP/s of the predicted compute.
    folds = 5
    cv_hits, cv_ratios = 0, []
    for f in range(folds):
        fold_test = [rows[i] for i in order[f::folds]]
        fold_train = [rows[i] for j, i in enumerate(order) if j % folds != f]
        d = xgb.DMatrix(np.array([features(r) for r in fold_train], np.float32),
                        label=[computes.index(r["best"]) for r in fold_train],
                        feature_names=FEATURES)
        b = xgb.train(params, d, num_boost_round=args.rounds)
        dt = xgb.DMatrix(np.array([features(r) for r in fold_test], np.float32),
                         feature_names=FEATURES)
        chosen = [computes[int(i)] for i in np.argmax(b.predict(dt), 1)]
        cv_hits += sum(c == r["best"] for c, r in zip(chosen, fold_test))
        cv_ratios += [r["gflops"][c] / r["gflops"][r["best"]]
                      for r, c in zip(fold_test, chosen)]
    default = [COMPUTE_OF_PACK[r["default_pack"]] for r in test]
    report = {
        "sizes": len(rows), "train": len(train), "held_out": len(test),
        "wins": wins,
        "held_out_accuracy": accuracy,
        "held_out_majority_accuracy": majority,
        "cv5_accuracy": cv_hits / len(rows),
        "cv5_geomean_vs_best": geomean(cv_ratios),
        "auto_schedule": dict(zip(("geomean_vs_best", "within_2pct"),
                                  evaluate(test, auto))),
        "static_" + static: dict(zip(("geomean_vs_best", "within_2pct"),
                                     evaluate(test, [static] * len(test)))),
        "compiler_default": dict(zip(
            ("geomean_vs_best", "within_2pct"),
            evaluate(test, default))),
        # Searching the compute measures every compute of a size; the model
        # measures one: trials and measured seconds per size.
        "search_trials_per_size": len(computes), "model_trials_per_size": 1,
        "search_seconds": sum(sum(r["seconds"].values()) for r in test),
        "model_seconds": sum(r["seconds"][c] for r, c in zip(test, auto)),
    }
    model = {
        "format": FORMAT, "version": VERSION,
        "target": rows[0]["target"], "threads": rows[0]["threads"],
        "op": OP_OF_FORM[form],
        "features": FEATURES, "computes": computes,
        "training": {"data": args.data, "seed": args.seed,
                     "rounds": args.rounds, "params": params,
                     "report": report},
        # XGBoost's own JSON, as text (ComputeModel hands it to XGBoost).
        "booster": booster.save_raw("json").decode(),
    }
    with open(args.model, "w") as f:
        json.dump(model, f)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{OP_OF_FORM[form]}: sizes {len(rows)} (train {len(train)}, "
          f"held out {len(test)}); "
          f"best-compute counts {wins}")
    print(f"held-out accuracy: {accuracy:.2f} (always {static}: "
          f"{majority:.2f}); 5-fold cross-validated accuracy "
          f"{report['cv5_accuracy']:.2f}, predicted compute at "
          f"{report['cv5_geomean_vs_best']:.3f} of the best's GFLOP/s")
    for name in ("auto_schedule", "static_" + static, "compiler_default"):
        g, w = report[name]["geomean_vs_best"], report[name]["within_2pct"]
        print(f"{name:>20}: {g:.3f} of the best compute's GFLOP/s "
              f"(geomean), best within 2% on {w:.0%} of the held-out sizes")
    print(f"measuring: searching the compute {report['search_seconds']:.1f} s "
          f"({len(computes)} trials/size), the model "
          f"{report['model_seconds']:.1f} s (1 trial/size)")
    print(f"wrote {args.model}")


if __name__ == "__main__":
    main()
