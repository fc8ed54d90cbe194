# RUN: env PYTHONPATH=%{pythonpath} %python %s | FileCheck %s
"""Python bindings: spaces, strategies, resume, errors."""

import tiletune

# The paper's space sizes (G-BFS/N-A2C, M in 4, K in 2, N in 4 factors).
# CHECK: paper 512: 484000
print("paper 512:", tiletune.paper_matmul_space(512, 512, 512).size())
# CHECK: paper 1024: 899756
print("paper 1024:", tiletune.paper_matmul_space(1024, 1024, 1024).size())

space = tiletune.build_space("matmul", [12, 10, 8])
params = [p["name"] for p in space.parameters()]
# CHECK: params: ['m', 'n', 'k', 'order', 'vectorize', 'pack', 'unroll']
print("params:", params)

key = space.sample(seed=3)
ok, reason = space.is_valid(key)
# CHECK: sample valid: True
print("sample valid:", ok)
# Neighbourhoods are symmetric.
sym = all(key in space.neighbors(n) for n in space.neighbors(key))
# CHECK: symmetric: True
print("symmetric:", sym)
point = space.to_point(key)
prod = 1
for f in point["factors"]["m"]:
    prod *= f
# CHECK: m product: 12
print("m product:", prod)

# A synthetic objective with a known optimum: the distance of each factor
# list to a target; grid search over a small space must find cost 0.
small = tiletune.paper_matmul_space(8, 4, 8)
target = small.to_point(small.sample(seed=11))["factors"]


def cost(key):
    f = small.to_point(key)["factors"]
    return float(sum(abs(a - b) for d in f for a, b in zip(f[d], target[d])))


grid = tiletune.Strategy("grid", small, seed=1)
hist = tiletune.run_search(grid, cost, budget=small.size())
keys = [k for k, _ in hist]
# CHECK: grid visited all once: True
print("grid visited all once:", len(keys) == len(set(keys)) == small.size())
# CHECK: grid best: 0.0
print("grid best:", grid.best()[1])

# Resume: a strategy restored from its saved state proposes what the
# original would have.
names = {s["name"] for s in tiletune.strategies()}
for name in sorted(names & {"random", "gbfs", "opevo"}):
    a = tiletune.Strategy(name, small, seed=5)
    tiletune.run_search(a, cost, budget=20)
    state = a.save_state()
    b = tiletune.Strategy(name, small, seed=5)
    b.load_state(state)
    tiletune.run_search(a, cost, budget=10)
    tiletune.run_search(b, cost, budget=10)
    same = a.save_state() == b.save_state()
    print(name, "resume identical:", same)
# CHECK-DAG: gbfs resume identical: True
# CHECK-DAG: opevo resume identical: True
# CHECK-DAG: random resume identical: True

# Errors become ValueError with the library's message.
for bad in (lambda: tiletune.build_space("softmax", [4]),
            lambda: tiletune.build_space("matmul", [4, 4]),
            lambda: tiletune.Strategy("nosuch", small),
            lambda: tiletune.Strategy("random", small, {"bogus": "1"}),
            lambda: small.neighbors("m=[1,2]")):
    try:
        bad()
        print("no error")
    except ValueError as e:
        print("error:", str(e).splitlines()[0][:40])
# CHECK-COUNT-5: error:
# CHECK-NOT: no error

# Pinning (tiletune tune --fix): fewer configs, keys of the full space.
pinned = space.pinned("order=[n,k,m];vectorize=true;pack=ab;unroll=1;m=[1,*,*,*]")
# m = 12 in 3 free slots (18) x n (16) x k (4); the options have one value.
# CHECK: pinned: 1152 of 491520
print("pinned:", pinned.size(), "of", space.size())
pk = pinned.sample(seed=5)
# CHECK: pinned key in full space: True
print("pinned key in full space:", space.is_valid(pk)[0] and pk.startswith("m=[1,"))
try:
    space.pinned("tile=3")
except ValueError as e:
    # CHECK: pin error: cannot fix unknown parameter 'tile'
    print("pin error:", str(e).split(" of ")[0])
