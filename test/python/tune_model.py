# UNSUPPORTED: asan
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t %S/../tools/Inputs/small-model.mlir | FileCheck %s
"""tiletune.tune_model: the whole-model budget from Python (seconds or a
duration string), the model's end-to-end times, the skipped ops; bad
budgets raise ValueError before anything runs."""

import os
import sys

import tiletune

tmp, path = sys.argv[1], sys.argv[2]
text = open(path).read()
db = os.path.join(tmp, "m.db")

for bad in ("10x", 0, -3, "0.2s"):
    try:
        tiletune.tune_model(text, bad, threads=1, db=db)
        print("no error for", bad)
    except ValueError as e:
        print("ValueError:", str(e).splitlines()[0][:60])
# CHECK: ValueError: time_budget: '10x' is not a duration
# CHECK: ValueError: time_budget: the budget must be positive
# CHECK: ValueError: time_budget: the budget must be positive
# CHECK: ValueError: the model time budget of 0.20 s is too small for one
print("db written:", os.path.exists(db))
# CHECK: db written: False

tuned, results, model = tiletune.tune_model(text, "3s", threads=1, db=db)
# Problems measured, and those the budget did not reach: all of the model's.
print("problems:", sorted([r.problem for r in results] + model["untuned"]))
# CHECK: problems: ['matmul/f32/m=16,n=24,k=32', 'matmul/f32/m=16,n=8,k=24']
print("before > 0:", model["seconds_before"] > 0,
      "after > 0:", model["seconds_after"] > 0)
# CHECK: before > 0: True after > 0: True
# The two were measured in alternation: the median ratio of the tuned
# samples to the untuned ones around them decides whether the tuned configs
# stay. Kept or not, it is a bool, and a kept module ran slower (ratio > 1).
print("ratio > 0:", model["ratio"] > 0)
# CHECK: ratio > 0: True
print("kept_previous:", type(model["kept_previous"]).__name__,
      not model["kept_previous"] or model["ratio"] > 1)
# CHECK: kept_previous: bool True
print("skipped:", model["skipped"])
# CHECK: skipped: ["1 x linalg.matvec (not a tunable op family), 1.23% of the model's FLOPs"]
print("tuned problems have their config:",
      tuned.count("linalg.matmul {tiletune.config") >= len(results) >= 1)
# CHECK: tuned problems have their config: True
# Without a budget, tune keeps its two-element answer.
print("plain tune:", len(tiletune.tune(text,
                                        trials=2, threads=1, db=db)))
# CHECK: plain tune: 2
# The weights as in the model: the same run timed through weight copies.
_, weighted = tiletune.tune(text, trials=2, threads=1, weights="model",
                            db=os.path.join(tmp, "w.db"))
print("weights=model:", sorted((r.problem, r.best_gflops > 0)
                               for r in weighted))
# CHECK: weights=model: [('matmul/f32/m=16,n=24,k=32', True), ('matmul/f32/m=16,n=8,k=24', True)]
