# TILETUNE_SANITIZERS: a comma- or semicolon-separated list of clang/gcc
# sanitizers (address, undefined, ...) every TileTune target is compiled and
# linked with. Empty (the default) builds without. scripts/run-sanitizers.sh
# builds the suite with "address,undefined" into build-asan.
#
# LLVM and MLIR themselves (libLLVM.so, libMLIR.so) and the code the JIT emits
# stay uninstrumented: ASan checks our code and the heap everyone shares
# (malloc/free are intercepted process-wide), UBSan checks our code only.
set(TILETUNE_SANITIZERS "" CACHE STRING
  "Sanitizers to build TileTune with, e.g. address,undefined (empty: none)")

string(REPLACE "," ";" _tiletune_sanitizers "${TILETUNE_SANITIZERS}")
list(REMOVE_ITEM _tiletune_sanitizers "")
if(_tiletune_sanitizers)
  list(JOIN _tiletune_sanitizers "," _tiletune_sanitize_list)
  message(STATUS "Building with sanitizers: ${_tiletune_sanitize_list}")
  set(_tiletune_sanitize_flags -fsanitize=${_tiletune_sanitize_list}
    -fno-omit-frame-pointer -fno-optimize-sibling-calls)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # Line tables for readable stacks at a fraction of -g's size.
    list(APPEND _tiletune_sanitize_flags -gline-tables-only)
  else()
    list(APPEND _tiletune_sanitize_flags -g1)
  endif()
  if("undefined" IN_LIST _tiletune_sanitizers AND
     CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # -fsanitize=function checks a type signature stored in front of the
    # callee of every indirect call; the kernels the ExecutionEngine emits and
    # the functions of libMLIR.so have none, so the check reads whatever lies
    # in front of them. The rest of -fsanitize=undefined stays on (vptr
    # included: LLVM 22 is built with RTTI).
    list(APPEND _tiletune_sanitize_flags -fno-sanitize=function)
  endif()
  add_compile_options(${_tiletune_sanitize_flags})
  add_link_options(${_tiletune_sanitize_flags})
  # No LTO: pybind11 adds -flto to the Python module unless this is defined,
  # and GNU ld then drops ASan's module constructors from the LTO object
  # ("defined in discarded section `.text.asan.module_ctor'").
  set(CMAKE_INTERPROCEDURAL_OPTIMIZATION OFF)
  # Shared objects (the Python module, the CUDA runtime library) take the
  # sanitizer runtime from the executable that loads them, so their
  # undefined __asan_*/__ubsan_* symbols must be allowed at link time.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
    "${CMAKE_SHARED_LINKER_FLAGS}")
  string(REPLACE "-Wl,-z,defs" "" CMAKE_MODULE_LINKER_FLAGS
    "${CMAKE_MODULE_LINKER_FLAGS}")
  # The shared ASan runtime, for uninstrumented programs that load an
  # instrumented library (Debian's python3 and the Python module: see
  # test/python/lit.local.cfg).
  set(TILETUNE_ASAN_RUNTIME "")
  if("address" IN_LIST _tiletune_sanitizers AND
     CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    execute_process(
      COMMAND ${CMAKE_CXX_COMPILER}
        -print-file-name=libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so
      OUTPUT_VARIABLE TILETUNE_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${TILETUNE_ASAN_RUNTIME}" OR
       NOT EXISTS "${TILETUNE_ASAN_RUNTIME}")
      message(STATUS "Shared ASan runtime not found: the Python tests will "
        "not run under ASan")
      set(TILETUNE_ASAN_RUNTIME "")
    endif()
  endif()
  set(TILETUNE_SANITIZED ON)
else()
  set(TILETUNE_SANITIZED OFF)
endif()
