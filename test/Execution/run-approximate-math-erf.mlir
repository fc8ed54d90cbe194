// math.erf has no lowering to LLVM upstream (the untiled reference cannot
// compile it, nor can tiletune-lower-cpu with approximate-math=0); expanded,
// it compiles and runs. Its values: erf(0) = 0, erf(0.5) = 0.5205, erf(3) =
// 0.99998, odd.
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{threads=1}" --repeats=1 --warmup=0 | FileCheck %s --check-prefix=ERF
// ERF: {{^}}0{{$}}
// ERF-NEXT: {{^}}0.520{{[45][0-9]*$}}
// ERF-NEXT: {{^}}-0.520{{[45][0-9]*$}}
// ERF-NEXT: {{^}}0.9999{{[0-9]*$}}
// RUN: not tiletune-run %s --pipeline="tiletune-lower-cpu{threads=1 approximate-math=0}" --repeats=1 2>&1 | FileCheck %s --check-prefix=NOERF
// NOERF: math.erf

func.func @erf_points(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[0.0, 0.5, -0.5, 3.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // c + 0 * x: not folded to a constant (0 * x is NaN for an infinite x),
  // so erf is computed at run time, not by the folder.
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %z = arith.mulf %b, %zero : f32
    %y = arith.addf %a, %z : f32
    %v = math.erf %y : f32
    vector.print %v : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
