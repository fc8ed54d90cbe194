# What the build includes (docs/Embedding.md, "CMake package and the
# example"). Each optional part defaults to ON where its dependencies are
# found; asking for a part whose dependencies are missing is a configure
# error naming them.
#
#   TILETUNE_BUILD_TESTS       unit tests (GoogleTest), the lit suite and
#                              check-tiletune; GoogleTest is needed only here
#   TILETUNE_BUILD_BENCHMARKS  bench/ (tiletune-search-bench, the CPU and GPU
#                              benchmarks where their libraries are found)
#   TILETUNE_BUILD_PYTHON      the pybind11 module (python/); needs pybind11
#                              and Debian's python3 development files
#   TILETUNE_ENABLE_GPU        the CUDA parts: the GPU runtime library, running
#                              and timing on a GPU, ptxas checks; needs the
#                              CUDA toolkit. PTX generation (TileTuneGPU's
#                              passes) needs only MLIR and is always built.
option(TILETUNE_BUILD_TESTS
  "Build the unit tests and the lit suite (check-tiletune; needs GoogleTest)" ON)
option(TILETUNE_BUILD_BENCHMARKS "Build the benchmarks of bench/" ON)

# Python: found here so that the option's default can follow it.
if(NOT DEFINED TILETUNE_BUILD_PYTHON OR TILETUNE_BUILD_PYTHON)
  set(PYBIND11_FINDPYTHON ON)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH
    "Python for the bindings")
  find_package(Python COMPONENTS Interpreter Development.Module QUIET)
  find_package(pybind11 CONFIG QUIET)
  if(Python_FOUND AND pybind11_FOUND)
    set(_tiletune_python_found ON)
  else()
    set(_tiletune_python_found OFF)
  endif()
  option(TILETUNE_BUILD_PYTHON "Build the Python module (needs pybind11)"
    ${_tiletune_python_found})
  if(TILETUNE_BUILD_PYTHON AND NOT _tiletune_python_found)
    message(FATAL_ERROR "TILETUNE_BUILD_PYTHON is ON but pybind11 or the "
      "Python development files for ${Python_EXECUTABLE} were not found "
      "(Debian: pybind11-dev python3-dev), or configure with "
      "-DTILETUNE_BUILD_PYTHON=OFF")
  endif()
endif()
if(NOT TILETUNE_BUILD_PYTHON)
  message(STATUS "Python bindings are not built (TILETUNE_BUILD_PYTHON=OFF)")
endif()

# CUDA toolkit: the GPU runtime library and the ptxas checks need it.
if(NOT DEFINED TILETUNE_ENABLE_GPU OR TILETUNE_ENABLE_GPU)
  find_package(CUDAToolkit QUIET)
  option(TILETUNE_ENABLE_GPU
    "Build the CUDA parts (GPU runtime, GPU measurement, ptxas checks)"
    ${CUDAToolkit_FOUND})
  if(TILETUNE_ENABLE_GPU AND NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR "TILETUNE_ENABLE_GPU is ON but no CUDA toolkit was "
      "found (set CUDAToolkit_ROOT), or configure with "
      "-DTILETUNE_ENABLE_GPU=OFF")
  endif()
endif()
if(TILETUNE_ENABLE_GPU)
  message(STATUS "CUDA toolkit found: ${CUDAToolkit_VERSION} (GPU runtime is built)")
else()
  # Everything below tests CUDAToolkit_FOUND.
  set(CUDAToolkit_FOUND OFF)
  message(STATUS "GPU runtime and measurement are not built "
                 "(TILETUNE_ENABLE_GPU=OFF)")
endif()

# MPI: distributed measurement (`mpirun -n N tiletune tune ...
# --distributed=mpi`, docs/Distributed.md); needs an MPI with C bindings
# (Debian: openmpi-bin libopenmpi-dev).
if(NOT DEFINED TILETUNE_ENABLE_MPI OR TILETUNE_ENABLE_MPI)
  find_package(MPI COMPONENTS C QUIET)
  option(TILETUNE_ENABLE_MPI
    "Build distributed measurement on MPI (tiletune tune --distributed=mpi)"
    ${MPI_C_FOUND})
  if(TILETUNE_ENABLE_MPI AND NOT MPI_C_FOUND)
    message(FATAL_ERROR "TILETUNE_ENABLE_MPI is ON but no MPI with C bindings "
      "was found (Debian: openmpi-bin libopenmpi-dev), or configure with "
      "-DTILETUNE_ENABLE_MPI=OFF")
  endif()
endif()
if(TILETUNE_ENABLE_MPI)
  find_program(TILETUNE_MPIRUN NAMES mpirun mpiexec
    HINTS ${MPIEXEC_EXECUTABLE})
  message(STATUS "MPI found: ${MPI_C_VERSION} (distributed measurement is built)")
else()
  set(TILETUNE_MPIRUN "")
  message(STATUS "Distributed measurement is not built (TILETUNE_ENABLE_MPI=OFF)")
endif()
