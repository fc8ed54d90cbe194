// A 1x1 conv on a map wider than 14 columns takes all its input channels in
// one cache tile where that filter chunk (c x f_cache) fits an eighth of L2,
// so that each register tile accumulates over the whole reduction and the
// epilogue is fused by the register tile (docs/CPUSchedule.md, "Fused
// epilogues"). Pinned for an AVX-512 and an AVX2 target, with a 2 MiB L2
// (both chunks fit: 32 and 64 KiB) and a 256 KiB one (only the first).

// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=skylake-avx512 caches=49152,2097152" | FileCheck %s --check-prefix=BIG
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32768,2097152" | FileCheck %s --check-prefix=BIG
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=skylake-avx512 caches=49152,262144" | FileCheck %s --check-prefix=SMALL
// RUN: tiletune-run %s --entry=expand --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=reduce --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 mcpu=haswell}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC

// EXEC: verify: passed against the untiled lowering

// BIG-LABEL: func.func @expand
//       BIG:   cache = {c = 128, f = {{[0-9]+}},
// BIG-LABEL: func.func @reduce
//       BIG:   cache = {c = 256, f = {{[0-9]+}},

// SMALL-LABEL: func.func @expand
//       SMALL:   cache = {c = 128, f = 64,
// SMALL-LABEL: func.func @reduce
//       SMALL:   cache = {c = 64, f = 64,

#bias = affine_map<(n, h, w, f) -> (f)>
#id = affine_map<(n, h, w, f) -> (n, h, w, f)>

// ResNet-50's 28x28 1x1 128-512 (a 17x28 map here), from its bias broadcast,
// with a ReLU.
func.func @expand(%x: tensor<1x17x28x128xf32>, %w: tensor<512x1x1x128xf32>, %b: tensor<512xf32>) -> tensor<1x17x28x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x17x28x512xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<512xf32>) outs(%e : tensor<1x17x28x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x17x28x512xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x17x28x128xf32>, tensor<512x1x1x128xf32>) outs(%init : tensor<1x17x28x512xf32>) -> tensor<1x17x28x512xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x17x28x512xf32>) outs(%e : tensor<1x17x28x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x17x28x512xf32>
  return %1 : tensor<1x17x28x512xf32>
}

// ResNet-50's 56x56 1x1 256-64 (a 9x56 map here), with a scale.
func.func @reduce(%x: tensor<1x9x56x256xf32>, %w: tensor<64x1x1x256xf32>) -> tensor<1x9x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %s = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<1x9x56x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x9x56x64xf32>) -> tensor<1x9x56x64xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x9x56x256xf32>, tensor<64x1x1x256xf32>) outs(%init : tensor<1x9x56x64xf32>) -> tensor<1x9x56x64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x9x56x64xf32>) outs(%e : tensor<1x9x56x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x9x56x64xf32>
  return %1 : tensor<1x9x56x64xf32>
}
