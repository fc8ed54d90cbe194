#!/usr/bin/env bash
# Tunes the example MLP (three matmul shapes) and the conv layer on this
# machine's CPU with the default algorithm, then prints the report.
# usage: examples/tune_example.sh [build-dir] [trials]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TRIALS=${2:-32}
DB=${TILETUNE_DB:-$(mktemp -d)/example.db}
"$BUILD/bin/tiletune" tune examples/mlp.mlir --trials "$TRIALS" --db "$DB" \
  -o "${DB%.db}-mlp-tuned.mlir"
"$BUILD/bin/tiletune" tune examples/conv.mlir --trials "$TRIALS" --db "$DB" \
  -o "${DB%.db}-conv-tuned.mlir"
"$BUILD/bin/tiletune" report --db "$DB"
echo "tuned modules: ${DB%.db}-mlp-tuned.mlir ${DB%.db}-conv-tuned.mlir"
