// Bad targets and configs the GPU cannot run are clear errors, never an
// abort inside LLVM.
// RUN: not tiletune-opt %s --tiletune-lower-gpu="chip=sm_90 features=+ptx60" 2>&1 | FileCheck %s --check-prefix=OLDPTX
// RUN: not tiletune-opt %s --tiletune-lower-gpu="chip=sm_91" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tiletune-opt %s --tiletune-lower-gpu="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: tiletune-opt %s --split-input-file --verify-diagnostics --tiletune-gpu-check

// OLDPTX: error: invalid GPU target: PTX ISA 6.0 does not support sm_90 (needs +ptx78 or later)
// CHIP: error: invalid GPU target: unsupported GPU chip 'sm_91'
// FORMAT: error: invalid GPU target: unknown binary format 'elf'

func.func @ok(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

// -----

func.func @too_many_threads(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  // expected-error @+1 {{illegal cuda config: 4096 threads per block exceed 1024}}
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 64, n = 64}, thread = {m = 1, n = 1}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>) outs(%C : memref<256x256xf32>)
  return
}

// -----

func.func @too_much_shared(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  // expected-error @+1 {{illegal cuda config: 65536 bytes of shared memory exceed 49152}}
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 128, n = 128}, vthread = {m = 64, n = 64}, thread = {m = 4, n = 4}, shared = {k = 64}, register = {k = 4}>}
    ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>) outs(%C : memref<256x256xf32>)
  return
}
