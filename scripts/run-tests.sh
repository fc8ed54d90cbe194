#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and runs
# the whole test suite (lit + FileCheck, GoogleTest, Python) via check-tiletune.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bash scripts/build.sh check-tiletune
