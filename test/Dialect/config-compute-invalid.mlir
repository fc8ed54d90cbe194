// The `compute` option (AutoMCL computes, docs/TileConfig.md): an unknown
// compute, a compute that does not apply to the op, and a compute that
// contradicts `pack` are verifier errors.
// RUN: tiletune-opt %s --split-input-file --verify-diagnostics

func.func @unknown_compute(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'compute' must be one of tmm|ttmm|dnmm332|lpmm|rpmmv|dpmm}}
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
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b); this matmul is not: use 'pack = none' (tmm) or 'b' (rpmmv)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, compute = dnmm332>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A stored [k][m] is not read along k.
func.func @dn_on_transposed_a(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack = dn' (compute dnmm332: vectors along k) applies to a matmul whose A is stored [b?][m][k] and B [b?][n][k] (both contiguous along k: matmul_transpose_b, batch_matmul_transpose_b); this matmul_transpose_ab is not}}
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
  // expected-error @+1 {{'compute = tmm' only applies to matmul and batch_matmul, not conv_2d_nhwc_hwcf}}
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, compute = tmm>}
    ins(%i, %f : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
