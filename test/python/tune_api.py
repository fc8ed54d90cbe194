# RUN: rm -rf %t && mkdir -p %t
# RUN: tiletune --version > %t/version.txt
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t | FileCheck %s
"""tiletune.tune's algorithm options, progress callback, cancellation and
result objects, and tiletune.__version__."""

import os
import sys

import tiletune

tmp = sys.argv[1]
module = """
func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
func.func @g(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>,
             %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""
quick = dict(algorithm="random", threads=1, seed=5, paired=False)

# The version is the tools' (`tiletune --version`).
# CHECK: version: True True
first_line = open(os.path.join(tmp, "version.txt")).readline()
print("version:", first_line.startswith("TileTune %s (git %s)" % (
    tiletune.__version__, tiletune.__git_revision__)),
    tiletune.__version__.count(".") == 2)

# The callback sees every measured variant of both problems, as objects.
events = []
text, results = tiletune.tune(module, trials=3, db=os.path.join(tmp, "a.db"),
                              algorithm_options={"max_attempts": 100},
                              callback=events.append, **quick)
# CHECK: problems: 2 events per problem: True
print("problems:", len(results), "events per problem:",
      all(sum(e.problem_index == i for e in events) >= 3 for i in range(2)))
e = events[0]
# CHECK: first: default 0 2 ok True 1 3
print("first:", e.role, e.problem_index, e.num_problems, e.status,
      e.gflops > 0, e.trials, e.max_trials)
# CHECK: best so far never slower: True
best = {}
ok = True
for e in events:
    if e.role != "final" and e.best_seconds is not None:
        ok &= e.best_seconds <= best.get(e.problem_index, e.best_seconds)
        best[e.problem_index] = e.best_seconds
print("best so far never slower:", ok)
# CHECK: event dict: ['best_config', 'best_gflops'
print("event dict:", sorted(e.to_dict())[:2])

# Results are objects with attributes, readable as dicts too.
r = results[0]
# CHECK: result: matmul/f32/m=8,n=8,k=16 finished budget 3 True True True
print("result:", r.problem, r.status, r.stop_reason, r.trials, r.tuned,
      r.best_gflops == r["best_gflops"], r.best_config in text)
# CHECK: as dict: True ['best_config', 'best_gflops', 'best_is_default'
print("as dict:", r.to_dict()["problem"] == r.problem, sorted(r.to_dict())[:3])

# Returning False stops the run after that variant; what was measured stays
# in the database and a resume continues from it.
seen = []
db = os.path.join(tmp, "b.db")
text, results = tiletune.tune(module, trials=10, db=db,
                              callback=lambda p: seen.append(p) or len(seen) < 2,
                              **quick)
# CHECK: stopped: 2 1 interrupted stopped 2
print("stopped:", len(seen), len(results), results[0].status,
      results[0].stop_reason, results[0].trials)
text, results = tiletune.tune(module, trials=10, db=db, resume=True, **quick)
# CHECK: resumed: 2 2 10
print("resumed:", len(results), results[0].replayed, results[0].trials)

# Options as a string; None from the callback continues.
text, results = tiletune.tune(module, trials=2, db=os.path.join(tmp, "c.db"),
                              algorithm_options="max_attempts=50",
                              callback=lambda p: None, **quick)
# CHECK: string options: 2 2
print("string options:", len(results), results[1].trials)

# An exception in the callback stops the run and propagates.
class Stop(Exception):
    pass


def boom(p):
    raise Stop("from the callback")


try:
    tiletune.tune(module, trials=5, db=os.path.join(tmp, "d.db"),
                  callback=boom, **quick)
    print("no error")
except Stop as error:
    # CHECK: raised: from the callback
    print("raised:", error)

# Bad options: errors naming the valid values, before anything runs.
for kwargs in [dict(algorithm_options={"bogus": 1}),
               dict(algorithm_options="rho=x", algorithm="gbfs"),
               dict(algorithm_options="rho"),
               dict(algorithm_options=42),
               dict(fix="tile=4"),
               dict(callback=3)]:
    args = dict(quick)
    args.update(kwargs)
    try:
        tiletune.tune(module, trials=2, db=os.path.join(tmp, "e.db"), **args)
        print("no error")
    except (ValueError, TypeError) as error:
        print(type(error).__name__ + ":", str(error).splitlines()[0])
# CHECK: ValueError: --algorithm-options: unknown option 'bogus' of random (valid: max_trials, start_config, seed_configs, max_attempts, enumerate_limit)
# CHECK: ValueError: --algorithm-options: option 'rho': 'x' is not an integer
# CHECK: ValueError: algorithm_options: malformed option 'rho' (expected name=value)
# CHECK: TypeError: algorithm_options must be a dict or a 'name=value,...' string
# CHECK: ValueError: --fix: unknown parameter 'tile'
# CHECK: TypeError: callback must be callable
# CHECK-NOT: no error
# CHECK: database: False
print("database:", os.path.exists(os.path.join(tmp, "e.db")))
