// The default config is sized by the CPU target description
// (Support/CPUDescription.h), named with LLVM's mcpu/mattr so that the
// output is the same on any machine (caches pinned too; threads given).

// AVX2 (haswell): 8 f32 lanes, 16 registers, 12 of them accumulators.
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=haswell caches=32K,1M print-target" 2>&1 | FileCheck %s --check-prefixes=DESC-AVX2,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=haswell caches=32K,1M threads=2" | FileCheck %s --check-prefix=AVX2-T2

// The same ISA reached from an AVX-512 CPU by turning AVX-512 off.
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 mattr=-avx512f,-evex512 caches=32K,1M print-target" 2>&1 | FileCheck %s --check-prefixes=DESC-AVX2,AVX2

// AVX-512 (znver4): 16 lanes, 32 registers.
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=32K,1M print-target" 2>&1 | FileCheck %s --check-prefixes=DESC-AVX512,AVX512
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=2" | FileCheck %s --check-prefix=AVX512-T2

// AVX-512 on a CPU where LLVM prefers 256-bit vectors (skylake-avx512): 8
// lanes in use, but 32 registers (AVX-512VL).
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=skylake-avx512 caches=32K,1M print-target" 2>&1 | FileCheck %s --check-prefixes=DESC-SKX,SKX

// The lowering pipeline passes the target to its default configs.
// RUN: tiletune-opt %s --pass-pipeline="builtin.module(tiletune-lower-cpu{default-configs=1 mcpu=haswell caches=32K,1M threads=1 tile=1})" --mlir-print-ir-after=tiletune-tile-cpu 2>&1 | FileCheck %s --check-prefix=LOWER-AVX2

// Names LLVM does not know, and bad cache sizes, are errors. The target need
// not run here (only compiled).
// RUN: not tiletune-opt %s --tiletune-default-config="mcpu=bogus" 2>&1 | FileCheck %s --check-prefix=BAD-CPU
// RUN: not tiletune-opt %s --tiletune-default-config="mattr=+bogus" 2>&1 | FileCheck %s --check-prefix=BAD-ATTR
// RUN: not tiletune-opt %s --tiletune-default-config="caches=48K" 2>&1 | FileCheck %s --check-prefix=BAD-CACHES
// RUN: not tiletune-opt %s --pass-pipeline="builtin.module(tiletune-lower-cpu{mcpu=bogus})" 2>&1 | FileCheck %s --check-prefix=BAD-LOWER
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=sapphirerapids" | FileCheck %s --check-prefix=COMPILE-ONLY

// DESC-AVX2: remark: tiletune-default-config: target
// DESC-AVX2: isa: avx2
// DESC-AVX2: register width: 256 bits
// DESC-AVX2: vector width: 256 bits (8 x f32)
// DESC-AVX2: vector registers: 16
// DESC-AVX2: register tile budget: 96 f32 accumulators
// DESC-AVX2: fma: yes
// DESC-AVX2: flops per cycle and core (f32): 32
// DESC-AVX2: caches: L1d 32 KiB, L2 1024 KiB, {{.*}}(given)

// DESC-AVX512: cpu: znver4
// DESC-AVX512: isa: avx512
// DESC-AVX512: preferred vector width: none
// DESC-AVX512: vector width: 512 bits (16 x f32)
// DESC-AVX512: vector registers: 32
// DESC-AVX512: register tile budget: 384 f32 accumulators

// DESC-SKX: cpu: skylake-avx512
// DESC-SKX: isa: avx512
// DESC-SKX: register width: 512 bits
// DESC-SKX: preferred vector width: 256 bits
// DESC-SKX: vector width: 256 bits (8 x f32)
// DESC-SKX: vector registers: 32
// DESC-SKX: register tile budget: 192 f32 accumulators

// 1024^3 matmul: AVX2 gets a 6x16 register tile (12 accumulators; m padded
// to 1056, as 6 rows do not divide 1024 and 4 give only 8 accumulators),
// AVX-512 8x32 (16 accumulators), skylake-avx512 8x16.
// AVX2-LABEL: func.func @matmul_1024
//       AVX2: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1056, n = 1024}, cache = {k = 256, m = 48, n = 512}, register = {m = 6, n = 16}, order = [n, k, m], pack = ab, pad = {m = 1056}, unroll = 4, vectorize = true>}
// AVX2-T2-LABEL: func.func @matmul_1024
//       AVX2-T2: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 528, n = 1024}, cache = {k = 256, m = 48, n = 512}, register = {m = 6, n = 16}, order = [n, k, m], pack = ab, pad = {m = 1056}, unroll = 4, vectorize = true>}
// AVX512-LABEL: func.func @matmul_1024
//       AVX512: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1024, n = 1024}, cache = {k = 128, m = 64, n = 512}, register = {m = 8, n = 32}, order = [n, k, m], pack = ab, unroll = 4, vectorize = true>}
// With a 48 KiB L1 the K tile doubles.
// AVX512-T2-LABEL: func.func @matmul_1024
//       AVX512-T2: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 512, n = 1024}, cache = {k = 256, m = 64, n = 512}, register = {m = 8, n = 32}, order = [n, k, m], pack = ab, unroll = 4, vectorize = true>}
// SKX-LABEL: func.func @matmul_1024
//       SKX: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1024, n = 1024}, cache = {k = 256, m = 64, n = 512}, register = {m = 8, n = 16}, order = [n, k, m], pack = ab, unroll = 4, vectorize = true>}
// LOWER-AVX2-LABEL: func.func @matmul_1024
//       LOWER-AVX2: vector.contract {{.*}} into vector<4x16xf32>
// COMPILE-ONLY: register = {m = 8, n = 16}

// BAD-CPU: error: tiletune-default-config: unknown CPU 'bogus' for {{.*}}-mcpu=help` lists them)
// BAD-ATTR: error: tiletune-default-config: unknown CPU feature 'bogus' for {{.*}}-mattr=help` lists them)
// BAD-CACHES: error: tiletune-default-config: cache sizes must be 'L1,L2' or 'L1,L2,L3' (e.g. '48K,1M,32M'), got '48K'
// BAD-LOWER: error: tiletune-lower-cpu: unknown CPU 'bogus'
func.func @matmul_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}


// AVX2-LABEL: func.func @bmm_attention
//            AVX2: tiletune.config = #tiletune.config<cpu, parallel = {b = 12, m = 144, n = 128}, cache = {k = 64, m = 48, n = 128}, register = {m = 6, n = 16}, order = [n, k, m], pack = none, pad = {m = 144}, unroll = 4, vectorize = true>
// AVX2-T2-LABEL: func.func @bmm_attention
//               AVX2-T2: tiletune.config = #tiletune.config<cpu, parallel = {b = 6, m = 132, n = 128}, cache = {k = 64, m = 132, n = 128}, register = {m = 6, n = 16}, order = [n, k, m], pack = none, pad = {m = 132}, unroll = 4, vectorize = true>
// AVX512-LABEL: func.func @bmm_attention
//              AVX512: tiletune.config = #tiletune.config<cpu, parallel = {b = 12, m = 128, n = 128}, cache = {k = 64, m = 64, n = 128}, register = {m = 8, n = 32}, order = [n, k, m], pack = none, unroll = 4, vectorize = true>
// AVX512-T2-LABEL: func.func @bmm_attention
//                 AVX512-T2: tiletune.config = #tiletune.config<cpu, parallel = {b = 6, m = 128, n = 128}, cache = {k = 64, m = 64, n = 128}, register = {m = 8, n = 32}, order = [n, k, m], pack = none, unroll = 4, vectorize = true>
// AVX2-LABEL: func.func @bert_ffn
//            AVX2: tiletune.config = #tiletune.config<cpu, parallel = {m = 384, n = 3072}, cache = {k = 256, m = 48, n = 512}, register = {m = 6, n = 16}, order = [n, k, m], pack = b, unroll = 4, vectorize = true>
// AVX2-T2-LABEL: func.func @bert_ffn
//               AVX2-T2: tiletune.config = #tiletune.config<cpu, parallel = {m = 384, n = 1536}, cache = {k = 256, m = 48, n = 512}, register = {m = 6, n = 16}, order = [n, k, m], pack = b, unroll = 4, vectorize = true>
// AVX512-LABEL: func.func @bert_ffn
//              AVX512: tiletune.config = #tiletune.config<cpu, parallel = {m = 384, n = 3072}, cache = {k = 128, m = 48, n = 512}, register = {m = 12, n = 32}, order = [n, k, m], pack = b, unroll = 4, vectorize = true>
// AVX512-T2-LABEL: func.func @bert_ffn
//                 AVX512-T2: tiletune.config = #tiletune.config<cpu, parallel = {m = 384, n = 1536}, cache = {k = 256, m = 48, n = 512}, register = {m = 12, n = 32}, order = [n, k, m], pack = b, unroll = 4, vectorize = true>
// AVX2's 16 filters x 4 pixels read a 36 KiB filter slice per register
// tile, more than L1: the filter is packed (AVX-512's 8 pixels: in place).
// AVX2-LABEL: func.func @conv_nhwc_resnet
//            AVX2: tiletune.config = #tiletune.config<cpu, parallel = {f = 64, n = 1, oh = 56, ow = 56}, cache = {c = 64, f = 64, kh = 3, kw = 3, oh = 4, ow = 56}, register = {f = 16, oh = 1, ow = 4}, order = [f, oh, ow, kh, kw, c], pack = b, unroll = 1, vectorize = true>
// AVX2-T2-LABEL: func.func @conv_nhwc_resnet
//               AVX2-T2: tiletune.config = #tiletune.config<cpu, parallel = {f = 64, n = 1, oh = 28, ow = 56}, cache = {c = 64, f = 64, kh = 3, kw = 3, oh = 4, ow = 56}, register = {f = 16, oh = 1, ow = 4}, order = [f, oh, ow, kh, kw, c], pack = b, unroll = 1, vectorize = true>
// AVX512-LABEL: func.func @conv_nhwc_resnet
//              AVX512: tiletune.config = #tiletune.config<cpu, parallel = {f = 64, n = 1, oh = 56, ow = 56}, cache = {c = 64, f = 64, kh = 3, kw = 3, oh = 4, ow = 56}, register = {f = 32, oh = 1, ow = 8}, order = [f, oh, ow, kh, kw, c], pack = none, unroll = 1, vectorize = true>
// AVX512-T2-LABEL: func.func @conv_nhwc_resnet
//                 AVX512-T2: tiletune.config = #tiletune.config<cpu, parallel = {f = 64, n = 1, oh = 28, ow = 56}, cache = {c = 64, f = 64, kh = 3, kw = 3, oh = 4, ow = 56}, register = {f = 32, oh = 1, ow = 8}, order = [f, oh, ow, kh, kw, c], pack = none, unroll = 1, vectorize = true>
// AVX2-LABEL: func.func @conv_nchw_b8
//            AVX2: tiletune.config = #tiletune.config<cpu, parallel = {f = 1024, n = 8, oh = 14, ow = 14}, cache = {c = 256, f = 512, kh = 1, kw = 1, oh = 2, ow = 14}, register = {f = 16, oh = 2, ow = 2}, compute = im2col_dpmm, layout = nhwc, order = [f, c, kh, kw, oh, ow], unroll = 4, vectorize = true>
// AVX2-T2-LABEL: func.func @conv_nchw_b8
//               AVX2-T2: tiletune.config = #tiletune.config<cpu, parallel = {f = 1024, n = 4, oh = 14, ow = 14}, cache = {c = 256, f = 512, kh = 1, kw = 1, oh = 2, ow = 14}, register = {f = 16, oh = 2, ow = 2}, compute = im2col_dpmm, layout = nhwc, order = [f, c, kh, kw, oh, ow], unroll = 4, vectorize = true>
// AVX512-LABEL: func.func @conv_nchw_b8
//              AVX512: tiletune.config = #tiletune.config<cpu, parallel = {f = 1024, n = 8, oh = 14, ow = 14}, cache = {c = 128, f = 512, kh = 1, kw = 1, oh = 2, ow = 14}, register = {f = 32, oh = 1, ow = 7}, compute = im2col_dpmm, layout = nhwc, order = [f, c, kh, kw, oh, ow], unroll = 4, vectorize = true>
// AVX512-T2-LABEL: func.func @conv_nchw_b8
//                 AVX512-T2: tiletune.config = #tiletune.config<cpu, parallel = {f = 1024, n = 4, oh = 14, ow = 14}, cache = {c = 256, f = 512, kh = 1, kw = 1, oh = 2, ow = 14}, register = {f = 32, oh = 1, ow = 7}, compute = im2col_dpmm, layout = nhwc, order = [f, c, kh, kw, oh, ow], unroll = 4, vectorize = true>
// AVX2-LABEL: func.func @matmul_m49
//            AVX2: register = {m = 6, n = 16}
// AVX512-LABEL: func.func @matmul_m49
//              AVX512: register = {m = 7, n = 32}

// Every op kind, sized by the register file: a register tile of r rows x v
// vectors needs r*v accumulators + v + 1 operand registers (6 x 2 vectors
// on the 16 registers of haswell, up to 12 x 2 on the 32 of znver4), and with 2 threads
// the parallel level splits batch_matmul's batch and conv's batch, output
// rows or filters.
func.func @bmm_attention(%a: tensor<12x128x64xf32>, %b: tensor<12x64x128xf32>, %c: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%c : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  return %0 : tensor<12x128x128xf32>
}
func.func @bert_ffn(%a: tensor<384x768xf32>, %b: tensor<768x3072xf32>, %c: tensor<384x3072xf32>) -> tensor<384x3072xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<384x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<384x3072xf32>) -> tensor<384x3072xf32>
  return %0 : tensor<384x3072xf32>
}
func.func @conv_nhwc_resnet(%i: tensor<1x58x58x64xf32>, %f: tensor<3x3x64x64xf32>, %o: tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %f : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%o : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}
func.func @conv_nchw_b8(%i: tensor<8x256x14x14xf32>, %f: tensor<1024x256x1x1xf32>, %o: tensor<8x1024x14x14xf32>) -> tensor<8x1024x14x14xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %f : tensor<8x256x14x14xf32>, tensor<1024x256x1x1xf32>) outs(%o : tensor<8x1024x14x14xf32>) -> tensor<8x1024x14x14xf32>
  return %0 : tensor<8x1024x14x14xf32>
}
// M = 49 (a 7x7 map's im2col GEMM) has no divisor from 2 to 6: on AVX2 one
// vector per row gives 7 rows (7 accumulators) where two vectors would give
// one row (two accumulators against the FMA latency).
func.func @matmul_m49(%a: tensor<49x512xf32>, %b: tensor<512x512xf32>, %c: tensor<49x512xf32>) -> tensor<49x512xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<49x512xf32>, tensor<512x512xf32>) outs(%c : tensor<49x512xf32>) -> tensor<49x512xf32>
  return %0 : tensor<49x512xf32>
}
