// `--fix` is checked against the space, not against its default: with m's
// register slot and unroll pinned, neither the heuristic's config projected
// onto the pins (a 2304-element register tile for the pinned AVX2 target,
// whose m is padded to 144 for 6-row tiles) nor the pinned space's own
// default (unroll 8 does not divide its cache tile) is valid, yet 360
// configs are (the unvectorized ones: a vectorized 144-row register tile
// needs more than the 16 vector registers of the AVX2 target,
// "register-file"). The run starts from the nearest valid config instead of
// failing with "config ... is not valid".
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune space %s --threads=1 --mcpu=haswell --fix='unroll=8;m=[1,1,1,*];n=[1,1,*,*]' | FileCheck %s --check-prefix=SPACE
// RUN: tiletune tune %s --algorithm=random --trials=2 --threads=1 --mcpu=haswell --repeats=2 \
// RUN:   --min-sample-ms=0.1 --db=%t/t.db --fix='unroll=8;m=[1,1,1,*];n=[1,1,*,*]' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUNE
// SPACE: valid configs: 360
// SPACE: default config: m=[1,1,1,144];n=[1,1,{{[0-9]+}},{{[0-9]+}}];k=[{{[0-9,]+}}];order=[{{.*}};unroll=8
// TUNE: breaks a constraint of the tuning space (register-tile-limit: register tile has 2304 elements, more than 1024); starting from the nearest valid config m=[1,1,1,144];{{.*}};vectorize=false
// TUNE: matmul/f32/m=128,n=128,k=128 random
func.func @mm(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>,
              %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>)
                     outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
