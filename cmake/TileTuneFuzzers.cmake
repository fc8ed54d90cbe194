# TILETUNE_BUILD_FUZZERS: build the libFuzzer targets of fuzz/ and run them
# briefly in check-tiletune. Defaults to ON when the C++ compiler is clang and
# can link -fsanitize=fuzzer (Debian: libfuzzer-22-dev); otherwise the
# fuzzers are skipped with a status message.
include(CheckCXXSourceCompiles)
set(_tiletune_fuzz_default OFF)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer")
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) {
      return 0;
    }]] TILETUNE_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(TILETUNE_HAVE_LIBFUZZER)
    set(_tiletune_fuzz_default ON)
  else()
    set(_tiletune_fuzz_why "clang cannot link -fsanitize=fuzzer (install libfuzzer-22-dev)")
  endif()
else()
  set(_tiletune_fuzz_why "the compiler is not clang")
endif()
# The fuzzers are run by the suite: without tests they are off unless asked.
set(_tiletune_fuzz_option_default ${_tiletune_fuzz_default})
if(NOT TILETUNE_BUILD_TESTS)
  set(_tiletune_fuzz_option_default OFF)
endif()
option(TILETUNE_BUILD_FUZZERS "Build the libFuzzer targets (fuzz/)"
  ${_tiletune_fuzz_option_default})
if(TILETUNE_BUILD_FUZZERS AND NOT _tiletune_fuzz_default)
  message(FATAL_ERROR "TILETUNE_BUILD_FUZZERS is ON but ${_tiletune_fuzz_why}")
endif()
if(NOT TILETUNE_BUILD_FUZZERS)
  if(_tiletune_fuzz_why)
    message(STATUS "libFuzzer targets are not built: ${_tiletune_fuzz_why}")
  else()
    message(STATUS "libFuzzer targets are not built (TILETUNE_BUILD_FUZZERS=OFF)")
  endif()
endif()
