// `compute=NAME` sizes the matmul configs for one AutoMCL compute instead of
// the one the heuristic picks (bench/automcl/collect.py measures each
// compute at its own default this way). Target and caches pinned.

// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefix=DEFAULT
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=haswell caches=32K,1M" | FileCheck %s --check-prefixes=DEFAULT,AVX2
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefix=AVX512
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=dnmm332" 2>/dev/null | FileCheck %s --check-prefix=DN
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="compute=dnmm332" 2>&1 >/dev/null | FileCheck %s --check-prefix=DN-WARN
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=ttmm" 2>/dev/null | FileCheck %s --check-prefix=TT
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="compute=ttmm" 2>&1 >/dev/null | FileCheck %s --check-prefix=TT-WARN
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=tmm" 2>/dev/null | FileCheck %s --check-prefix=TMM
// RUN: not tiletune-opt %s --split-input-file --tiletune-default-config="compute=dnmm" 2>&1 | FileCheck %s --check-prefix=BAD

// The dnmm332 config of a 128-row nn.Linear verifies and runs correctly
// (its default is rpmmv: dnmm332 is the default for M <= 16 only).
// RUN: tiletune-opt %s --tiletune-default-config="compute=dnmm332" -o %t.mlir 2>/dev/null
// RUN: tiletune-run %t.mlir --entry=linear --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=EXEC

// nn.Linear, 128 x 96 x 80 (B stored N x K).
func.func @linear(%a: tensor<128x80xf32>, %b: tensor<96x80xf32>,
                  %c: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<128x80xf32>, tensor<96x80xf32>)
         outs(%c : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}
// DEFAULT-LABEL: func.func @linear
// DEFAULT: pack = ab
// One row of A against up to 8 rows of B, vectors along k.
// DN-LABEL: func.func @linear
// DN: register = {m = 1, n = 8}
// DN-SAME: pack = dn
// TT-LABEL: func.func @linear
// TT: pack = bt
// TMM-LABEL: func.func @linear
// TMM: pack = none

// -----

// A plain matmul: dnmm332 and ttmm need a B stored N x K.
func.func @plain(%a: tensor<64x48xf32>, %b: tensor<48x32xf32>,
                 %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x32xf32>)
                     outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
// DN-WARN: default-config-compute.mlir:[[@LINE-4]]:8: warning: tiletune-default-config: compute 'dnmm332' does not apply to this op (its computes: tmm, lpmm, rpmmv, dpmm); it gets its default config
// DN-LABEL: func.func @plain
// DN-NOT: pack = dn
// TT-WARN: warning: tiletune-default-config: compute 'ttmm' does not apply
// TMM-LABEL: func.func @plain
// TMM: pack = none

// -----

// The heuristic's own choice on the nn.Linear form (bench/automcl,
// tb dataset): dnmm332 needs a long k against a short M or N; a short M
// otherwise reads B in place (tmm).
#tb = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
       affine_map<(m, n, k) -> (m, n)>]
func.func @heuristic(%a1: tensor<1x768xf32>, %b1: tensor<768x768xf32>,
                     %c1: tensor<1x768xf32>, %a2: tensor<8x8xf32>,
                     %b2: tensor<256x8xf32>, %c2: tensor<8x256xf32>,
                     %a3: tensor<256x256xf32>, %b3: tensor<1x256xf32>,
                     %c3: tensor<256x1xf32>)
    -> (tensor<1x768xf32>, tensor<8x256xf32>, tensor<256x1xf32>) {
  %r1 = linalg.matmul indexing_maps = #tb
          ins(%a1, %b1 : tensor<1x768xf32>, tensor<768x768xf32>)
          outs(%c1 : tensor<1x768xf32>) -> tensor<1x768xf32>
  %r2 = linalg.matmul indexing_maps = #tb
          ins(%a2, %b2 : tensor<8x8xf32>, tensor<256x8xf32>)
          outs(%c2 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %r3 = linalg.matmul indexing_maps = #tb
          ins(%a3, %b3 : tensor<256x256xf32>, tensor<1x256xf32>)
          outs(%c3 : tensor<256x1xf32>) -> tensor<256x1xf32>
  return %r1, %r2, %r3 : tensor<1x768xf32>, tensor<8x256xf32>, tensor<256x1xf32>
}
// DEFAULT-LABEL: func.func @heuristic
// DN-LABEL: func.func @heuristic
// DEFAULT: pack = dn
// DEFAULT: pack = none
// DEFAULT: pack = dn

// -----

// dnmm332's rule counts k in vectors: 64 is 8 AVX2 vectors, enough for
// the 8 rows of A, but 4 AVX-512 vectors, not enough (tmm then).
func.func @vectors(%a: tensor<8x64xf32>, %b: tensor<256x64xf32>,
                   %c: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<8x64xf32>, tensor<256x64xf32>)
         outs(%c : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}
// AVX2-LABEL: func.func @vectors
// AVX2: pack = dn
// AVX512-LABEL: func.func @vectors
// AVX512: pack = none

// BAD: error: tiletune-default-config: unknown compute 'dnmm' (expected one of tmm|ttmm|dnmm332|lpmm|rpmmv|dpmm|direct|im2col_tmm|im2col_lpmm|im2col_rpmmv|im2col_dpmm|im2col_dnmm332)

// EXEC: verify: PASSED

// -----

// Convs: `direct` is the heuristic's own conv config; im2col_X is the
// default config of the im2col GEMM (49 x 512 x 4608 here) for compute X,
// written as conv tiles (m from ow and oh, k from c, kw, kh). dnmm332 needs
// the FHWC filter (B stored N x K); on an HWCF one it warns.
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=im2col_rpmmv threads=1" 2>/dev/null | FileCheck %s --check-prefix=IM2COL
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=im2col_dnmm332 threads=1" 2>&1 | FileCheck %s --check-prefix=IM2COL-DN
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config="mcpu=znver4 caches=48K,1M compute=direct threads=1" 2>/dev/null | FileCheck %s --check-prefix=DIRECT
func.func @conv_fhwc(%i: tensor<1x9x9x512xf32>, %f: tensor<512x3x3x512xf32>,
                     %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc
    ins(%i, %f : tensor<1x9x9x512xf32>, tensor<512x3x3x512xf32>)
    outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
func.func @conv_hwcf(%i: tensor<1x9x9x512xf32>, %f: tensor<3x3x512x512xf32>,
                     %o: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf
    ins(%i, %f : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>)
    outs(%o : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %0 : tensor<1x7x7x512xf32>
}
// IM2COL-LABEL: func.func @conv_fhwc
// IM2COL: cache = {c = 64, f = 32, kh = 1, kw = 1, oh = 7, ow = 7}, register = {f = 32, oh = 1, ow = 7}, compute = im2col_rpmmv
// IM2COL-LABEL: func.func @conv_hwcf
// IM2COL: compute = im2col_rpmmv
// IM2COL-DN: warning: tiletune-default-config: compute 'im2col_dnmm332' does not apply to this op (its computes: direct, im2col_tmm, im2col_lpmm, im2col_rpmmv, im2col_dpmm); it gets its default config
// IM2COL-DN-LABEL: func.func @conv_fhwc
// IM2COL-DN: register = {f = 8, oh = 1, ow = 1}, compute = im2col_dnmm332
// IM2COL-DN-LABEL: func.func @conv_hwcf
// IM2COL-DN-NOT: compute
// IM2COL-DN: order = [ow, kh, c, kw, f, oh], pack = b, pad = {oh = 8}
// DIRECT-LABEL: func.func @conv_fhwc
// DIRECT-NOT: compute
// DIRECT: pack = b
