#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, compiles
# and runs a tiled 1024^3 matmul (printing its GFLOP/s), then tunes the
# example model (an MLP with several matmul shapes, and a conv layer) on this
# CPU with the default algorithm and prints the tuning report.
# usage: scripts/run-main.sh [trials per problem, default 32]
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-32}
bash scripts/setup.sh
bash scripts/build.sh
echo "== tiled 1024^3 matmul (examples/matmul-1024.mlir, hand-picked config)"
build/bin/tiletune-run examples/matmul-1024.mlir --pipeline=tiletune-lower-cpu \
  --verify --repeats=10
echo "== tuning the example model (examples/mlp.mlir, examples/conv.mlir)"
bash examples/tune_example.sh build "$TRIALS"
