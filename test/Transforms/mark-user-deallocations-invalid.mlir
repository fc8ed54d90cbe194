// RUN: tiletune-opt %s --split-input-file --tiletune-mark-user-deallocations -verify-diagnostics
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu -verify-diagnostics

// A buffer returned by a call: where it was allocated is not known. The
// lowering pipeline gives the same error (not the deallocation pass's).

func.func private @make() -> memref<4xf32>
func.func @call_result() {
  // expected-note @below {{the buffer may come from here}}
  %m = func.call @make() : () -> memref<4xf32>
  // expected-error @below {{cannot free this buffer explicitly}}
  memref.dealloc %m : memref<4xf32>
  return
}

// -----

// A function whose symbol is used other than by a call: its callers are
// not known.

func.func @release(%m: memref<4xf32>) {
  // expected-error @below {{cannot free this buffer explicitly}}
  memref.dealloc %m : memref<4xf32>
  return
}
func.func @take_address() -> ((memref<4xf32>) -> ()) {
  // expected-note @below {{the buffer may come from here}}
  %f = func.constant @release : (memref<4xf32>) -> ()
  return %f : (memref<4xf32>) -> ()
}
