//===- SanitizerDefaults.cpp - ASan defaults of the fuzz targets ----------===//
//
// libLLVM.so and libMLIR.so are not instrumented, but llvm::BumpPtrAllocator
// is a header: where our instrumented code inlines it (attribute storage
// built in TileTuneDialect.cpp) it poisons a fresh slab and unpoisons only
// its own object, and the uninstrumented library code that allocates the
// rest of the slab never unpoisons. The next intercepted memcpy over such an
// object is then reported as use-after-poison although nothing is wrong.
// Manual poisoning is turned off so that only real heap errors (which ASan
// finds without it) are reported. scripts/run-sanitizers.sh does the same
// for the test suite through ASAN_OPTIONS.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

// UBSan findings are crashes the fuzzer records (with the input), not lines
// it prints and goes past: the database target's out-of-range timestamp
// conversion was printed and missed that way.
extern "C" const char *__ubsan_default_options() {
  return "halt_on_error=1:print_stacktrace=1";
}
