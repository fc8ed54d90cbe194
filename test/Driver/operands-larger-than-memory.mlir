// Operands larger than the memory available are refused before anything is
// allocated, by the kernel runner and by the tuner (which would otherwise
// record every candidate as failed, or be killed out of memory), with an
// error that says how much they need. 16 TiB of operands exceed any machine.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tiletune-run %s --pipeline=tiletune-lower-cpu --verify --repeats=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RUNNER
// RUN: not tiletune tune %s --db=%t/t.db --trials=2 --threads=1 --no-overlap --quiet 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUNE
// RUN: not tiletune tune %s --db=%t/t.db --trials=2 --threads=1 --no-overlap --unpaired --quiet 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNPAIRED

// RUNNER: error: the kernel's operands (memref<1048576x1048576xf32>, memref<1048576x1048576xf32>, memref<1048576x1048576xf32>) and the reference output need 16.0 TiB, more than the {{[0-9.]+ [KMGT]?i?B}} of memory available
// RUNNER-SAME: nothing was allocated
// TUNE: error: cannot measure matmul m=1048576,n=1048576,k=1048576 f32: its operands (1048576x1048576xf32, 1048576x1048576xf32, 1048576x1048576xf32) and 3 more copies of the output need 24.0 TiB, more than the {{.*}} of memory available
// UNPAIRED: and 2 more copies of the output need 20.0 TiB
func.func @huge(%a: memref<1048576x1048576xf32>, %b: memref<1048576x1048576xf32>,
                %c: memref<1048576x1048576xf32>) {
  linalg.matmul ins(%a, %b : memref<1048576x1048576xf32>, memref<1048576x1048576xf32>)
                outs(%c : memref<1048576x1048576xf32>)
  return
}
