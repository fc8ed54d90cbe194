// RUN: tiletune-opt %s --split-input-file --tiletune-approximate-math | FileCheck %s

// f32 exp, scalar and vector, becomes arithmetic (a floor for the range
// reduction, FMAs for the polynomial): no math.exp is left to become a libm
// call per element.
// CHECK-LABEL: func.func @exp_f32
//   CHECK-NOT:   math.exp
//       CHECK:   math.floor
//       CHECK:   math.fma
//   CHECK-NOT:   math.exp
//       CHECK:   return
func.func @exp_f32(%x: f32, %v: vector<16xf32>) -> (f32, vector<16xf32>) {
  %e = math.exp %x : f32
  %w = math.exp %v : vector<16xf32>
  return %e, %w : f32, vector<16xf32>
}

// -----

// The other functions of softmax, GELU and log-softmax.
// CHECK-LABEL: func.func @others
//   CHECK-NOT:   math.tanh
//   CHECK-NOT:   math.erf
//   CHECK-NOT:   math.log
//   CHECK-NOT:   math.expm1
//       CHECK:   return
func.func @others(%x: f32) -> (f32, f32, f32, f32, f32, f32) {
  %a = math.tanh %x : f32
  %b = math.erf %x : f32
  %c = math.log %x : f32
  %d = math.log1p %x : f32
  %e = math.log2 %x : f32
  %f = math.expm1 %x : f32
  return %a, %b, %c, %d, %e, %f : f32, f32, f32, f32, f32, f32
}

// -----

// f64 and the functions LLVM lowers to instructions (sqrt, rsqrt) are kept.
// CHECK-LABEL: func.func @kept
//       CHECK:   math.exp %{{.*}} : f64
//       CHECK:   math.sqrt
//       CHECK:   math.rsqrt
func.func @kept(%x: f64, %y: f32) -> (f64, f32, f32) {
  %a = math.exp %x : f64
  %b = math.sqrt %y : f32
  %c = math.rsqrt %y : f32
  return %a, %b, %c : f64, f32, f32
}
