# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONPATH=%{pythonpath} %python %s %t | FileCheck %s
"""Bad arguments to the bindings raise TypeError or ValueError with a clear
message, never crash the interpreter, and never act on a string cut at a NUL
character (a `db` path with a NUL would name another file)."""

import os
import sys

import tiletune

tmp = sys.argv[1]
module = """
func.func @f(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
             %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}
"""
space = tiletune.build_space("matmul", [12, 10, 8])


def attempt(label, call):
    try:
        call()
        print(label, "-> no error")
    except (TypeError, ValueError) as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


# No space: a TypeError, not a segfault.
# CHECK: strategy without space -> TypeError: __init__(): incompatible constructor arguments
attempt("strategy without space", lambda: tiletune.Strategy("gbfs", None))
# CHECK: strategy space=None -> TypeError: __init__(): incompatible constructor arguments
attempt("strategy space=None", lambda: tiletune.Strategy("gbfs", space=None))

# NUL characters in strings are refused up front, naming the argument.
cut = os.path.join(tmp, "cut.db")
# CHECK: tune db with NUL -> ValueError: argument 'db' contains a NUL character
attempt("tune db with NUL",
        lambda: tiletune.tune(module, trials=1, threads=1, db=cut + "\0.x"))
# CHECK: cut.db written: False
print("cut.db written:", os.path.exists(cut))
# CHECK: apply db with NUL -> ValueError: argument 'db' contains a NUL character
attempt("apply db with NUL", lambda: tiletune.apply(module, db=cut + "\0.x"))
# CHECK: tune algorithm with NUL -> ValueError: argument 'algorithm' contains a NUL character
attempt("tune algorithm with NUL",
        lambda: tiletune.tune(module, algorithm="gbfs\0x", db=cut))
# CHECK: tune fix with NUL -> ValueError: argument 'fix' contains a NUL character
attempt("tune fix with NUL", lambda: tiletune.tune(module, fix="\0", db=cut))
# CHECK: apply target_key with NUL -> ValueError: argument 'target_key' contains a NUL character
attempt("apply target_key with NUL",
        lambda: tiletune.apply(module, target_key="\0", db=cut))
# CHECK: default_config target with NUL -> ValueError: argument 'target' contains a NUL character
attempt("default_config target with NUL",
        lambda: tiletune.default_config(module, target="cpu\0"))
# CHECK: problems target with NUL -> ValueError: argument 'target' contains a NUL character
attempt("problems target with NUL",
        lambda: tiletune.problems(module, target="cpu\0"))
# CHECK: strategy name with NUL -> ValueError: argument 'name' contains a NUL character
attempt("strategy name with NUL", lambda: tiletune.Strategy("gbfs\0", space))
# CHECK: strategy option with NUL -> ValueError: argument 'options' contains a NUL character
attempt("strategy option with NUL",
        lambda: tiletune.Strategy("random", space, {"x\0": "1"}))
# CHECK: build_space op with NUL -> ValueError: argument 'op_kind' contains a NUL character
attempt("build_space op with NUL",
        lambda: tiletune.build_space("matmul\0", [12, 10, 8]))
# CHECK: key with NUL -> ValueError: argument 'key' contains a NUL character
attempt("key with NUL", lambda: space.neighbors(space.default() + "\0"))
# CHECK: is_valid with NUL -> ValueError: argument 'key' contains a NUL character
attempt("is_valid with NUL", lambda: space.is_valid(space.default() + "\0"))
# CHECK: pinned with NUL -> ValueError: argument 'assignments' contains a NUL character
attempt("pinned with NUL", lambda: space.pinned("order=[m,n,k]\0"))

strategy = tiletune.Strategy("random", space, seed=1)
(trial, key), = strategy.propose(1)
# CHECK: observe with NUL -> ValueError: argument 'message' contains a NUL character
attempt("observe with NUL",
        lambda: strategy.observe(trial, key, 1.0, "ok", "x\0y"))
# A cost that is not a number: TypeError (was a RuntimeError from a cast).
# CHECK: observe str cost -> TypeError: the cost must be a number (seconds), got str
attempt("observe str cost", lambda: strategy.observe(trial, key, "fast"))
# CHECK: observe list cost -> TypeError: the cost must be a number (seconds), got list
attempt("observe list cost", lambda: strategy.observe(trial, key, [1.0]))
# An int is a number.
strategy.observe(trial, key, 2)
# CHECK: best: 2.0
print("best:", strategy.best()[1])

# Numbers out of range: ValueError with the range, before any work.
# CHECK: paper space of 0 -> ValueError: paper_matmul_space: m, k and n must be >= 1, got m=0, k=4, n=4
attempt("paper space of 0", lambda: tiletune.paper_matmul_space(0, 4, 4))
# CHECK: negative register limit -> ValueError: max_register_tile must be >= 0 (0: no limit), got -5
attempt("negative register limit",
        lambda: tiletune.build_space("matmul", [12, 10, 8],
                                     max_register_tile=-5))
db = os.path.join(tmp, "never.db")
# CHECK: tune seconds=nan -> ValueError: the time budget must be between 0 and 31622400 seconds (0: no limit), got nan
attempt("tune seconds=nan",
        lambda: tiletune.tune(module, seconds=float("nan"), db=db))
# CHECK: tune seconds=inf -> ValueError: the time budget must be between 0 and 31622400 seconds (0: no limit), got INF
attempt("tune seconds=inf",
        lambda: tiletune.tune(module, trials=0, seconds=float("inf"), db=db))
# CHECK: tune trials=-1 -> ValueError: the trial budget must be between 0 and 10000000 (0: no limit), got -1
attempt("tune trials=-1", lambda: tiletune.tune(module, trials=-1, db=db))
# CHECK: tune threads=100000 -> ValueError: the thread count must be between 0 and 1024 (0: all cores), got 100000
attempt("tune threads=100000",
        lambda: tiletune.tune(module, threads=100000, db=db))
# CHECK: tune threads=-1 -> TypeError: tune(): incompatible function arguments
attempt("tune threads=-1", lambda: tiletune.tune(module, threads=-1, db=db))
# CHECK: tune warm_start=bogus -> ValueError: unknown warm start 'bogus' (known: none, db)
attempt("tune warm_start=bogus",
        lambda: tiletune.tune(module, warm_start="bogus", db=db))
# CHECK: tune protocol=bogus -> ValueError: unknown protocol 'bogus' (known: default, paper)
attempt("tune protocol=bogus",
        lambda: tiletune.tune(module, protocol="bogus", db=db))
# CHECK: tune weights=cold -> ValueError: unknown weights mode 'cold' (known: warm, model)
attempt("tune weights=cold",
        lambda: tiletune.tune(module, weights="cold", db=db))
# CHECK: default_config threads=2**31 -> ValueError: threads must be between 0 and 1024 (0: all cores), got 2147483648
attempt("default_config threads=2**31",
        lambda: tiletune.default_config(module, threads=2**31))
# CHECK: apply threads=5000 -> ValueError: threads must be between 0 and 1024 (0: all cores), got 5000
attempt("apply threads=5000", lambda: tiletune.apply(module, threads=5000, db=db))
# CHECK: never.db written: False
print("never.db written:", os.path.exists(db))
