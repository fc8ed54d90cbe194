#!/usr/bin/env bash
# Ablations of the learned strategies on the replayed table of real
# measurements (bench/search/tables, docs/Benchmarks.md) and the synthetic
# landscapes of the G-BFS paper space (docs/Search.md):
#   1. xgb: loop-nest ("itervar") features vs knob features;
#   2. na2c: the learned policy (tau = 0.5, 0.8, 1) vs pure exploration
#      (tau = 0), plus variants of its training (EXTRA_NA2C, e.g.
#      "normalize_advantage=true").
# usage: bench/search/ablation.sh [build-dir] [seeds] [budgets]
# Prints the tiletune-search-bench tables, one per setting (best cost /
# optimum, mean and std over the seeds, and how many seeds found the
# optimum). Replays are deterministic: no timing is involved.
set -euo pipefail
build=${1:-build}
seeds=${2:-10}
budgets=${3:-"100 200"}
bench="$build/bin/tiletune-search-bench"
table=bench/search/tables/matmul64-cpu-1thread.jsonl
fix='order=[n,k,m];pack=ab;vectorize=true;unroll=1;m=[1,*,*,*];n=[1,*,*,*]'
replay=(--space=cpu:matmul:64,64,64 "--fix=$fix" "--table=$table")

run() {
  echo "== $*"
  "$bench" "$@" --seeds="$seeds" | sed -n '/^Landscape/,$p'
}

for budget in $budgets; do
  for features in itervar knob; do
    run "${replay[@]}" --strategies=xgb --options="xgb:features=$features" \
      --budget="$budget"
  done
done

for tau in 0 0.5 0.8 1; do
  for budget in $budgets; do
    run "${replay[@]}" --strategies=na2c \
      --options="na2c:tau=$tau${EXTRA_NA2C:+,$EXTRA_NA2C}" --budget="$budget"
  done
  run --space=paper:64,64,64 --landscapes=smooth,noisy,multimodal \
    --strategies=na2c --options="na2c:tau=$tau${EXTRA_NA2C:+,$EXTRA_NA2C}" \
    --budget=200
done
