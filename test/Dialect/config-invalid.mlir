// RUN: tiletune-opt %s --split-input-file --verify-diagnostics

func.func @not_divisible(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // expected-error @+1 {{tile size 48 of dimension 'm' at level 'cache' does not divide parallel (512)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 512, n = 1024}, cache = {m = 48, n = 512, k = 256}, register = {m = 8, n = 32}>}
    ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

func.func @not_dividing_size(%a: tensor<13x7xf32>, %b: tensor<7x5xf32>, %c: tensor<13x5xf32>) -> tensor<13x5xf32> {
  // expected-error @+1 {{tile size 4 of dimension 'm' at level 'parallel' does not divide the dimension size (13)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 4, n = 5}, cache = {m = 4, n = 5, k = 7}, register = {m = 1, n = 5}>}
    ins(%a, %b : tensor<13x7xf32>, tensor<7x5xf32>) outs(%c : tensor<13x5xf32>) -> tensor<13x5xf32>
  return %0 : tensor<13x5xf32>
}

// -----

func.func @unknown_dim(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{unknown dimension 'q' at level 'parallel' for matmul (dimensions: m, n, k)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8, q = 2}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @missing_level(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{missing tile size of dimension 'm' at level 'register'}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @reduction_at_register(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{dimension 'k' cannot be tiled at level 'register' on target 'cpu'}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8, k = 2}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @bad_order(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'order' must be a permutation of [m, n, k]}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, order = [m, m, k]>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @bad_unroll(%a: tensor<8x6xf32>, %b: tensor<6x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'unroll' (4) must divide the cache tile of 'k' (6)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 6}, register = {m = 8, n = 8}, unroll = 4>}
    ins(%a, %b : tensor<8x6xf32>, tensor<6x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @register_too_big(%a: tensor<64x8xf32>, %b: tensor<8x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{register tile has 4096 elements, more than the limit of 1024}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 64}, cache = {m = 64, n = 64, k = 8}, register = {m = 64, n = 64}>}
    ins(%a, %b : tensor<64x8xf32>, tensor<8x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @bad_option_value(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pack' must be one of none|a|b|ab}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, pack = c>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @unknown_option(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{unknown level or option 'block' for target 'cpu' (levels: parallel, cache, register; options: order, vectorize, pack, unroll, compute, pad, layout, im2col)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, block = {m = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @unknown_target(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{unknown target 'tpu' (expected 'cpu' or 'cuda')}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<tpu>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @unsupported_op(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tiletune.config' cannot be applied: 'linalg.add' is not a tunable op}}
  %0 = linalg.add {tiletune.config = #tiletune.config<cpu>} ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%b : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'tiletune.config' cannot be applied: operand #0 has a dynamic shape}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @integer_type(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>, %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  // expected-error @+1 {{'tiletune.config' cannot be applied: unsupported element type (supported: f32, f64)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu>}
    ins(%a, %b : tensor<8x8xi32>, tensor<8x8xi32>) outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// -----

func.func @cuda_conv_reduction_register(%in: tensor<1x6x6x4xf32>, %flt: tensor<3x3x4x8xf32>, %out: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{dimension 'c' cannot be tiled at level 'register' on target 'cuda'}}
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cuda, block = {n = 1, oh = 4, ow = 4, f = 8}, vthread = {oh = 4, ow = 4, f = 8}, thread = {oh = 1, ow = 1, f = 1}, shared = {c = 4, kh = 3, kw = 3}, register = {c = 1}>}
    ins(%in, %flt : tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) outs(%out : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

func.func @not_an_attr(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tiletune.config' must be a #tiletune.config attribute}}
  %0 = linalg.matmul {tiletune.config = 3 : i64}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// expected-error @+1 {{duplicate entry 'cache'}}
#bad = #tiletune.config<cpu, cache = {m = 8}, cache = {m = 8}>

// -----

func.func @pad_below_size(%a: tensor<13x7xf32>, %b: tensor<7x5xf32>, %c: tensor<13x5xf32>) -> tensor<13x5xf32> {
  // expected-error @+1 {{'pad' size 12 of dimension 'm' is smaller than its size (13)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 12}, parallel = {m = 12, n = 5}, cache = {m = 12, n = 5, k = 7}, register = {m = 4, n = 5}>}
    ins(%a, %b : tensor<13x7xf32>, tensor<7x5xf32>) outs(%c : tensor<13x5xf32>) -> tensor<13x5xf32>
  return %0 : tensor<13x5xf32>
}

// -----

func.func @pad_tiles_must_divide_the_padded_size(%a: tensor<13x7xf32>, %b: tensor<7x5xf32>, %c: tensor<13x5xf32>) -> tensor<13x5xf32> {
  // expected-error @+1 {{tile size 13 of dimension 'm' at level 'parallel' does not divide the padded size (16)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 16}, parallel = {m = 13, n = 5}, cache = {m = 13, n = 5, k = 7}, register = {m = 1, n = 5}>}
    ins(%a, %b : tensor<13x7xf32>, tensor<7x5xf32>) outs(%c : tensor<13x5xf32>) -> tensor<13x5xf32>
  return %0 : tensor<13x5xf32>
}

// -----

func.func @pad_batch(%a: tensor<3x8x8xf32>, %b: tensor<3x8x8xf32>, %c: tensor<3x8x8xf32>) -> tensor<3x8x8xf32> {
  // expected-error @+1 {{'pad' cannot pad dimension 'b' of batch_matmul (only the m, n and k loops of cpu matmul and batch_matmul configs, and the oh loop of cpu conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc and conv_2d_nchw_fchw ones)}}
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, pad = {b = 4}, parallel = {b = 1, m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<3x8x8xf32>, tensor<3x8x8xf32>) outs(%c : tensor<3x8x8xf32>) -> tensor<3x8x8xf32>
  return %0 : tensor<3x8x8xf32>
}

// -----

func.func @pad_not_sizes(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pad' size of 'm' must be a positive integer}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 0}, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @pad_on_cuda(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{unknown level or option 'pad' for target 'cuda'}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, pad = {m = 16}, block = {m = 8, n = 8}, vthread = {m = 8, n = 8}, thread = {m = 1, n = 1}, shared = {k = 8}, register = {k = 1}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @layout_on_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'layout = nhwc' only applies to conv_2d_nchw_fchw and conv_2d_ngchw_fgchw, not matmul}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, layout = nhwc>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @layout_unknown(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'layout' must be one of native|nhwc}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, layout = nchw>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// The packing mark of tiletune-tile-cpu carries the cache line in bytes.
func.func @prefetch_mark_not_positive(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'tiletune.prefetch_next' must be a positive integer (cache line bytes)}}
  %0 = linalg.copy {tiletune.prefetch_next = 0 : i64} ins(%a : tensor<8x8xf32>) outs(%b : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// The layout marks of tiletune-tile-cpu go on linalg.transpose ops only.
func.func @layout_mark_not_on_transpose(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tiletune.layout_copy_in' must be a unit attribute on a linalg.transpose}}
  memref.copy %a, %b {tiletune.layout_copy_in} : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @unknown_attribute(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{unknown tiletune attribute 'tiletune.prefetch'}}
  %0 = linalg.copy {tiletune.prefetch = 64 : i64} ins(%a : tensor<8x8xf32>) outs(%b : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A conv pads only its output rows.
func.func @pad_conv_channels(%i: tensor<1x9x9x6xf32>, %f: tensor<3x3x6x8xf32>, %o: tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32> {
  // expected-error @+1 {{'pad' cannot pad dimension 'c' of conv_2d_nhwc_hwcf}}
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {c = 8}, parallel = {n = 1, oh = 7, ow = 7, f = 8}, cache = {oh = 7, ow = 7, f = 8, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 7, f = 8}>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x9x9x6xf32>, tensor<3x3x6x8xf32>) outs(%o : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %0 : tensor<1x7x7x8xf32>
}

// -----

// The im2col GEMM pads its pixel loop for padded rows only at batch 1.
func.func @pad_conv_rows_im2col(%i: tensor<2x9x9x6xf32>, %f: tensor<3x3x6x8xf32>, %o: tensor<2x7x7x8xf32>) -> tensor<2x7x7x8xf32> {
  // expected-error @+1 {{'pad' (of a conv's output rows) with 'im2col' needs a batch of 1}}
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {oh = 8}, parallel = {n = 2, oh = 8, ow = 7, f = 8}, cache = {oh = 8, ow = 7, f = 8, kh = 3, kw = 3, c = 6}, register = {oh = 2, ow = 7, f = 8}, im2col = true>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<2x9x9x6xf32>, tensor<3x3x6x8xf32>) outs(%o : tensor<2x7x7x8xf32>) -> tensor<2x7x7x8xf32>
  return %0 : tensor<2x7x7x8xf32>
}

// -----

func.func @pad_conv_rows_split(%i: tensor<1x13x13x8xf32>, %f: tensor<1x1x8x16xf32>, %o: tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32> {
  // expected-error @+1 {{'pad' of the conv's rows needs them whole at the 'parallel' level (oh = 14): the threads may split other loops}}
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {oh = 14}, parallel = {n = 1, oh = 2, ow = 13, f = 16}, cache = {oh = 2, ow = 13, f = 16, kh = 1, kw = 1, c = 8}, register = {oh = 2, ow = 13, f = 16}>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x13x13x8xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x13x13x16xf32>) -> tensor<1x13x13x16xf32>
  return %0 : tensor<1x13x13x16xf32>
}
