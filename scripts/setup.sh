#!/usr/bin/env bash
# Installs every Debian package TileTune needs to build, test and benchmark.
# Idempotent: packages already present are skipped; apt-get update runs only
# when something is missing.
set -euo pipefail

PACKAGES=(
  # Toolchain and build.
  cmake ninja-build g++ pkg-config
  # LLVM/MLIR 22 (linked through libMLIR.so / libLLVM.so).
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 libomp-22-dev
  # Sanitizer runtimes and libFuzzer (scripts/run-sanitizers.sh, fuzz/).
  libclang-rt-22-dev libfuzzer-22-dev
  # Libraries of the tuner.
  libgtest-dev libgmock-dev libsqlite3-dev sqlite3 libeigen3-dev libxgboost-dev
  # Distributed measurement (tiletune tune --distributed=mpi).
  openmpi-bin libopenmpi-dev
  # Python bindings and plotting (for Debian's /usr/bin/python3).
  python3 python3-dev pybind11-dev python3-numpy python3-matplotlib
  # AutoMCL's compute model (bench/automcl/train.py, test/tools/automcl-train.test).
  python3-xgboost
  # Reference libraries for the benchmarks.
  libdnnl-dev libopenblas-openmp-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
