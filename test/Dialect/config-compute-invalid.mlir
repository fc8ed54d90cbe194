// The `compute` option (AutoMCL computes, docs/TileConfig.md): an unknown
// compute, a compute that does not apply to the op, and a compute that
// contradicts `pack` or `im2col` are verifier errors; so is `im2col` where
// the conv has no im2col form.
// RUN: tiletune-opt %s --split-input-file --verify-diagnostics

func.func @unknown_compute(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute' must be one of tmm|ttmm|dnmm332|lpmm|rpmmv|dpmm|direct|im2col_tmm|im2col_lpmm|im2col_rpmmv|im2col_dpmm|im2col_dnmm332}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = rpmm>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @ttmm_on_kxn_b(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack = bt' (compute ttmm: transpose B whole, then multiply) applies to a matmul whose B operand is stored transposed ([b?][n][k]); the B of this matmul is not: use 'pack = none' (tmm) or 'b' (rpmmv)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = ttmm>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @dnmm332_on_kxn_b(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b, an FHWC conv with 'im2col', a 1x1 NCHW one with 'im2col' and 'layout = nhwc'); this matmul is not: use 'pack = none' (tmm) or 'b' (rpmmv)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = dnmm332>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A stored [k][m] is not read along k.
func.func @dn_on_transposed_a(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b, an FHWC conv with 'im2col', a 1x1 NCHW one with 'im2col' and 'layout = nhwc'); this matmul_transpose_ab is not}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 2, n = 2}, pack = dn>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @dnmm332_contradicts_pack(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute = dnmm332' means 'pack = dn', but the config says 'pack = b'}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 2, n = 2}, compute = dnmm332, pack = b>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @compute_contradicts_pack(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute = lpmm' means 'pack = a', but the config says 'pack = b'}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = lpmm, pack = b>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// `pack = bt` on a B stored [k][n] (here A is the transposed operand).
func.func @bt_on_transposed_a(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack = bt' (compute ttmm: transpose B whole, then multiply) applies to a matmul whose B operand is stored transposed ([b?][n][k]); the B of this matmul_transpose_a is not}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, pack = bt>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// ttmm means pack = bt.
func.func @ttmm_contradicts_pack(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute = ttmm' means 'pack = bt', but the config says 'pack = b'}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = ttmm, pack = b>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @compute_on_conv(%i: tensor<1x6x6x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'compute = tmm' is a matmul compute; a conv_2d_nhwc_hwcf takes 'direct' or im2col_X (im2col_tmm, im2col_lpmm, im2col_rpmmv, im2col_dpmm, im2col_dnmm332)}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = tmm>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @matmul_compute_on_conv(%i: tensor<1x6x6x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'compute = rpmmv' is a matmul compute}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = rpmmv>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @im2col_contradicts(%i: tensor<1x6x6x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'compute = im2col_rpmmv' means 'im2col = true', but the config says 'im2col = false'}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = im2col_rpmmv, im2col = false>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @direct_contradicts(%i: tensor<1x6x6x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'compute = direct' means 'im2col = false', but the config says 'im2col = true'}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = direct, im2col = true>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @im2col_pack_contradicts(%i: tensor<1x6x6x8xf32>, %f: tensor<16x3x3x8xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'compute = im2col_dnmm332' means 'pack = dn', but the config says 'pack = b'}}
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = im2col_dnmm332, pack = b>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<16x3x3x8xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @im2col_dn_on_hwcf(%i: tensor<1x6x6x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b, an FHWC conv with 'im2col', a 1x1 NCHW one with 'im2col' and 'layout = nhwc'); this matmul is not}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = im2col_dnmm332>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @dn_on_direct_fhwc(%i: tensor<1x6x6x8xf32>, %f: tensor<16x3x3x8xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b, an FHWC conv with 'im2col', a 1x1 NCHW one with 'im2col' and 'layout = nhwc'); this conv_2d_nhwc_fhwc is not}}
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, pack = dn>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<16x3x3x8xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @im2col_nchw_native(%i: tensor<1x8x6x6xf32>, %f: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{'im2col' on a conv_2d_nchw_fchw with a filter larger than 1x1 needs 'layout = nhwc' (its im2col GEMM reads NHWC windows)}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, im2col = true>}
    ins(%i, %f : tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// A 1x1 NCHW conv in its native layout is one matmul per image,
// [F][C] x [C][OH*OW]: its B (the pixels) is not stored N x K, so no
// dnmm332 (through `layout = nhwc` the FCHW filter is B, and it applies).
func.func @im2col_nchw_dn_native(%i: tensor<1x8x4x4xf32>, %f: tensor<16x8x1x1xf32>, %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k]}}
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 1, kw = 1, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = im2col_dnmm332>}
    ins(%i, %f : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

func.func @im2col_on_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'im2col' applies to conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc and conv_2d_nchw_fchw, not matmul}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, im2col = true>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @conv_compute_on_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute = im2col_rpmmv' is a conv compute; a matmul takes tmm, lpmm, rpmmv, dpmm, ttmm or dnmm332}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = im2col_rpmmv>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @im2col_bt(%i: tensor<1x6x6x8xf32>, %f: tensor<16x3x3x8xf32>, %o: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'pack = bt' (transpose B whole) does not apply with 'im2col': the GEMM reads the filter as the matrix it is}}
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, im2col = true, pack = bt>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<16x3x3x8xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
