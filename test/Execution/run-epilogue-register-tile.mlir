// Epilogues fused by the register tile: where an op's cache tile covers its
// whole reduction, the chain after it (and the fill or broadcast that sets
// its init) is tiled by the op's register tile, so that each register tile
// starts from the init's vector, accumulates over the whole reduction and
// goes through the chain before its only store. Each form the register
// level rewrites is here: B packed into panels (plain and transposed), an
// FHWC filter packed into HWCF, A copied, a batch dim, NCHW, a zero-padded
// input whose taps are bounded per register tile, and a residual chain
// across two convs (ResNet-50's bottleneck end); 1 and 2 threads, AVX-512
// and AVX2 targets, each result compared with upstream's untiled lowering.

// RUN: tiletune-opt %s --tiletune-tile-cpu="fuse-epilogues=1 emit-remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tiletune-run %s --entry=mm_panels_bias_relu --pipeline="tiletune-lower-cpu" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_panels_bias_relu --mcpu=haswell --pipeline="tiletune-lower-cpu{mcpu=haswell}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_bt_bias_gelu --pipeline="tiletune-lower-cpu" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_scale --pipeline="tiletune-lower-cpu" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bottleneck_end --pipeline="tiletune-lower-cpu" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bottleneck_end --mcpu=haswell --pipeline="tiletune-lower-cpu{mcpu=haswell}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=padded_taps_bias --pipeline="tiletune-lower-cpu" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=padded_taps_bias --pipeline="tiletune-lower-cpu{skip-padding-taps=0}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=nchw_bias_relu --pipeline="tiletune-lower-cpu" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-lower-cpu --mlir-print-ir-after=tiletune-optimize-cpu-buffers -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// CHECK-NOT: FAILED
// CHECK: verify: passed against the untiled lowering

// REMARK: :57:8: remark: fused 1 elementwise op at 2 loop levels, the last by the register tile, vectorized
// REMARK: :79:8: remark: fused 2 elementwise ops at 2 loop levels, the last by the register tile, vectorized
// REMARK: :110:8: remark: fused 1 elementwise op at 3 loop levels, the last by the register tile, vectorized
// REMARK: :134:8: remark: fused 2 elementwise ops at 2 loop levels, the last by the register tile, vectorized
// REMARK: :150:8: remark: fused 4 elementwise ops at 2 loop levels, the last by the register tile, vectorized
// REMARK: :186:8: remark: fused 1 elementwise op at 1 loop level, the last by the register tile, vectorized
// REMARK: :202:8: remark: fused 1 elementwise op at 3 loop levels, the last by the register tile, vectorized

// No output tile goes through a buffer of its own: the accumulators start
// from the init's vector and the chain's result is stored into the output.
// BUFFERS-LABEL: func.func @bottleneck_end
//   BUFFERS-NOT:   memref.alloc() {{.*}} : memref<1x2x6x32xf32>
//       BUFFERS:   return

#row = affine_map<(m, n) -> (n)>
#id2 = affine_map<(m, n) -> (m, n)>
#bt_a = affine_map<(m, n, k) -> (m, k)>
#bt_b = affine_map<(m, n, k) -> (n, k)>
#bt_c = affine_map<(m, n, k) -> (m, n)>
#bias4 = affine_map<(n, h, w, f) -> (f)>
#chan4 = affine_map<(n, h, w, f) -> (0, 0, 0, f)>
#id4 = affine_map<(n, h, w, f) -> (n, h, w, f)>
#nchw_bias = affine_map<(n, f, h, w) -> (f)>
#id3 = affine_map<(b, m, n) -> (b, m, n)>

// B packed into panels of the register tile's 16 columns.
func.func @mm_panels_bias_relu(%a: tensor<24x40xf32>, %b: tensor<40x48xf32>, %bias: tensor<48xf32>) -> tensor<24x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<24x48xf32>) -> tensor<24x48xf32>
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 12, n = 48}, cache = {m = 12, n = 48, k = 40}, register = {m = 4, n = 16}, order = [m, n, k], pack = b>}
    ins(%a, %b : tensor<24x40xf32>, tensor<40x48xf32>) outs(%c : tensor<24x48xf32>) -> tensor<24x48xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<24x48xf32>, tensor<48xf32>) outs(%e : tensor<24x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x48xf32>
  return %1 : tensor<24x48xf32>
}

// nn.Linear's form (weights [out][in], B transposed) packed into panels,
// with a bias add and a tanh GELU as two ops.
func.func @mm_bt_bias_gelu(%a: tensor<16x24xf32>, %w: tensor<32x24xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k0 = arith.constant 0.7978845608 : f32
  %k1 = arith.constant 0.044715 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %0 = linalg.matmul indexing_maps = [#bt_a, #bt_b, #bt_c] {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 32}, cache = {m = 8, n = 32, k = 24}, register = {m = 4, n = 16}, order = [m, n, k], pack = b>}
    ins(%a, %w : tensor<16x24xf32>, tensor<32x24xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %x3 = arith.mulf %x, %x : f32
    %x3b = arith.mulf %x3, %x : f32
    %t0 = arith.mulf %x3b, %k1 : f32
    %t1 = arith.addf %x, %t0 : f32
    %t2 = arith.mulf %t1, %k0 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %x, %half : f32
    %g = arith.mulf %t5, %t4 : f32
    linalg.yield %g : f32
  } -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// A batch dim; A copied (pack = a).
func.func @bmm_scale(%a: tensor<2x16x24xf32>, %b: tensor<2x24x32xf32>) -> tensor<2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<2x16x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 1, m = 16, n = 32}, cache = {m = 8, n = 32, k = 24}, register = {m = 4, n = 16}, pack = a>}
    ins(%a, %b : tensor<2x16x24xf32>, tensor<2x24x32xf32>) outs(%c : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%0 : tensor<2x16x32xf32>) outs(%e : tensor<2x16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %scale : f32
    linalg.yield %s : f32
  } -> tensor<2x16x32xf32>
  return %1 : tensor<2x16x32xf32>
}

// The end of a ResNet-50 bottleneck as TOSA lowers it: two 1x1 FHWC convs
// (filters packed into HWCF) starting from their bias broadcasts, each
// scaled and shifted (a folded batch norm), the residual add and the ReLU
// clamp; the second conv's chain reads the first's.
#cfg1x1 = #tiletune.config<cpu, parallel = {n = 1, oh = 6, ow = 6, f = 32}, cache = {oh = 2, ow = 6, f = 32, kh = 1, kw = 1, c = 16}, register = {oh = 1, ow = 6, f = 16}, order = [oh, ow, f, kh, kw, c], pack = b>
func.func @bottleneck_end(%x: tensor<1x6x6x16xf32>, %y: tensor<1x6x6x16xf32>, %wa: tensor<32x1x1x16xf32>, %wb: tensor<32x1x1x16xf32>, %bias: tensor<32xf32>, %scale: tensor<1x1x1x32xf32>, %shift: tensor<1x1x1x32xf32>) -> tensor<1x6x6x32xf32> {
  %zero = arith.constant 0.0 : f32
  %max = arith.constant 3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x6x6x32xf32>
  %ia = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x6x6x32xf32>
  %a = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #cfg1x1}
    ins(%x, %wa : tensor<1x6x6x16xf32>, tensor<32x1x1x16xf32>) outs(%ia : tensor<1x6x6x32xf32>) -> tensor<1x6x6x32xf32>
  %sa = linalg.generic {indexing_maps = [#id4, #chan4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %scale : tensor<1x6x6x32xf32>, tensor<1x1x1x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x32xf32>
  %ba = linalg.generic {indexing_maps = [#id4, #chan4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sa, %shift : tensor<1x6x6x32xf32>, tensor<1x1x1x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.addf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x32xf32>
  %ib = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x6x6x32xf32>
  %b = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #cfg1x1}
    ins(%y, %wb : tensor<1x6x6x16xf32>, tensor<32x1x1x16xf32>) outs(%ib : tensor<1x6x6x32xf32>) -> tensor<1x6x6x32xf32>
  %sb = linalg.generic {indexing_maps = [#id4, #chan4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b, %scale : tensor<1x6x6x32xf32>, tensor<1x1x1x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x32xf32>
  %bb = linalg.generic {indexing_maps = [#id4, #chan4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sb, %shift : tensor<1x6x6x32xf32>, tensor<1x1x1x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.addf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x32xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ba, %bb : tensor<1x6x6x32xf32>, tensor<1x6x6x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %s = arith.addf %in, %r : f32
    linalg.yield %s : f32
  } -> tensor<1x6x6x32xf32>
  %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x6x6x32xf32>) outs(%e : tensor<1x6x6x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %lo = arith.minimumf %in, %max : f32
    %hi = arith.maximumf %lo, %zero : f32
    linalg.yield %hi : f32
  } -> tensor<1x6x6x32xf32>
  return %relu : tensor<1x6x6x32xf32>
}

// A 3x3 conv on a zero-padded input: the kh/kw loops of each register tile
// (inside the chain's loops) are bounded to the taps inside the image.
func.func @padded_taps_bias(%x: tensor<1x7x8x8xf32>, %w: tensor<3x3x8x16xf32>, %bias: tensor<16xf32>) -> tensor<1x7x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x7x8x8xf32> to tensor<1x9x10x8xf32>
  %e = tensor.empty() : tensor<1x7x8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x8x16xf32>) -> tensor<1x7x8x16xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 7, ow = 8, f = 16}, cache = {oh = 7, ow = 8, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, order = [oh, ow, f, kh, kw, c], pack = a>}
    ins(%p, %w : tensor<1x9x10x8xf32>, tensor<3x3x8x16xf32>) outs(%c : tensor<1x7x8x16xf32>) -> tensor<1x7x8x16xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<1x7x8x16xf32>, tensor<16xf32>) outs(%e : tensor<1x7x8x16xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x7x8x16xf32>
  return %1 : tensor<1x7x8x16xf32>
}

// NCHW: the output's dims are (n, f, oh, ow), vectors along ow.
func.func @nchw_bias_relu(%x: tensor<2x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<2x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 16, oh = 8, ow = 8}, cache = {f = 16, oh = 2, ow = 8, kh = 3, kw = 3, c = 8}, register = {f = 4, oh = 1, ow = 8}, order = [f, oh, ow, c, kh, kw]>}
    ins(%x, %w : tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%c : tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #nchw_bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x16x8x8xf32>, tensor<16xf32>) outs(%e : tensor<2x16x8x8xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8x8xf32>
  return %1 : tensor<2x16x8x8xf32>
}
