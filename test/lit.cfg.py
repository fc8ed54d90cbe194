# -*- Python -*-
# lit configuration of the TileTune regression tests (lit + FileCheck).
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILETUNE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tiletune_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tiletune_src", config.tiletune_src_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%llvm_version", config.llvm_version))
config.substitutions.append(("%mlir_include_dir", config.mlir_include_dir))
config.substitutions.append(
    ("%llvm_major", config.llvm_version.split(".")[0]))
# The mlir-opt plugin (tools/TileTunePlugin), for test/Plugin.
config.substitutions.append(
    ("%tiletune_plugin",
     os.path.join(config.tiletune_lib_dir, "TileTunePlugin.so")))
config.substitutions.append(
    ("%tiletune_fuzz_dir", os.path.join(config.tiletune_obj_root, "fuzz")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tiletune_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("tiletune-opt", unresolved="ignore"),
    ToolSubst("tiletune", unresolved="ignore"),
    ToolSubst("tiletune-run", unresolved="ignore"),
    ToolSubst("tiletune-search-bench", unresolved="ignore"),
    "mlir-opt",
    "mlir-runner",
    "mlir-tblgen",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.tiletune_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Features.
# Built with -DTILETUNE_SANITIZERS=... (scripts/run-sanitizers.sh): "asan",
# "ubsan" and the like, for tests that cannot hold under a sanitizer.
for sanitizer in config.tiletune_sanitizers.replace(";", ",").split(","):
    if sanitizer.strip():
        config.available_features.add(
            {"address": "asan", "undefined": "ubsan"}.get(
                sanitizer.strip(), sanitizer.strip()))
if config.tiletune_build_benchmarks:
    config.available_features.add("benchmarks")
if os.path.exists(os.path.join(config.tiletune_tools_dir, "tiletune-bench-cpu")):
    config.available_features.add("bench-cpu")
# Upstream mlir-opt (dynamically linked to libMLIR.so like the plugin), for
# the plugin tests.
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-opt")):
    config.available_features.add("upstream-mlir-opt")
# Distributed measurement (TILETUNE_ENABLE_MPI): %mpirun runs Open MPI's
# launcher as root where needed, oversubscribed (the suite's machine has few
# cores) and under a time limit, so that no test can hang on it.
if config.tiletune_enable_mpi and os.path.exists(config.tiletune_mpirun or ""):
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun",
         "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "timeout --kill-after=5 90 " + config.tiletune_mpirun +
         " --oversubscribe"))
    config.substitutions.append(("%mpi_launcher", config.tiletune_mpirun))
if config.cuda_toolkit_found:
    config.available_features.add("cuda-toolkit")
    ptxas = os.path.join(config.cuda_bin_dir, "ptxas")
    if os.path.exists(ptxas):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))
if os.path.exists("/dev/nvidia0") or shutil.which("nvidia-smi"):
    try:
        subprocess.run(["nvidia-smi", "-L"], check=True, capture_output=True,
                       timeout=20)
        config.available_features.add("cuda-gpu")
    except Exception:
        pass
# perf with user-space sampling allowed (kernel.perf_event_paranoid <= 2),
# for scripts/profile-ops.py.
perf = shutil.which("perf")
if perf:
    try:
        subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-o",
                        os.devnull, "--", "true"], check=True,
                       capture_output=True, timeout=30)
        config.available_features.add("perf")
    except Exception:
        pass
# A CPU target feature this host lacks, for the tests of the clear error
# (test/Execution/target-missing.mlir): AVX-512 where there is none, else AMX.
cpuinfo = ""
try:
    with open("/proc/cpuinfo") as f:
        cpuinfo = f.read()
except OSError:
    pass
if " avx512f " in cpuinfo:
    config.available_features.add("avx512")
    config.substitutions.append(("%missing_cpu", "sapphirerapids"))
    config.substitutions.append(("%missing_feature", "amx-tile"))
else:
    config.substitutions.append(("%missing_cpu", "skylake-avx512"))
    config.substitutions.append(("%missing_feature", "avx512f"))
if " amx_tile " in cpuinfo:
    config.available_features.add("amx")
