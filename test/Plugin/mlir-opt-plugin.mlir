// Upstream mlir-opt with TileTunePlugin.so runs the TileTune passes and
// pipelines and gives the same IR as tiletune-opt on the same input: a matmul
// without a config (tiletune-default-config gives it one) and a conv with an
// explicit #tiletune.config (parsed through the dialect plugin).
// The plugin is an uninstrumented host's library: an instrumented build of it
// cannot load into Debian's mlir-opt.
// REQUIRES: upstream-mlir-opt
// UNSUPPORTED: asan, ubsan

// RUN: mlir-opt %s --load-dialect-plugin=%tiletune_plugin --pass-pipeline='builtin.module(tiletune-default-config,tiletune-lower-cpu)' -o %t.upstream
// RUN: tiletune-opt %s --pass-pipeline='builtin.module(tiletune-default-config,tiletune-lower-cpu)' -o %t.tiletune
// RUN: diff %t.upstream %t.tiletune
// RUN: FileCheck %s < %t.upstream

// Both plugin options together register each pass once.
// RUN: mlir-opt %s --load-dialect-plugin=%tiletune_plugin --load-pass-plugin=%tiletune_plugin --pass-pipeline='builtin.module(tiletune-default-config,tiletune-lower-cpu)' | diff - %t.tiletune

// The first pass alone: the default config, printed by the dialect plugin's
// attribute printer, is the one tiletune-opt chooses. mlir-opt knows a
// plugin's passes in --pass-pipeline only, not as options of their own
// (--tiletune-default-config): it loads plugins while parsing its options.
// RUN: mlir-opt %s --load-dialect-plugin=%tiletune_plugin --pass-pipeline='builtin.module(tiletune-default-config)' -o %t.upstream-config
// RUN: tiletune-opt %s --tiletune-default-config -o %t.tiletune-config
// RUN: diff %t.upstream-config %t.tiletune-config
// RUN: FileCheck %s --check-prefix=CONFIG < %t.upstream-config

// CONFIG-LABEL: func.func @matmul(
//       CONFIG:   linalg.matmul {tiletune.config = #tiletune.config<cpu,
// CONFIG-LABEL: func.func @conv(
//       CONFIG:   linalg.conv_2d_nhwc_hwcf {{.*}}tiletune.config = #tiletune.config<cpu, parallel = {f = 16, n = 1, oh = 4, ow = 10}

// CHECK-LABEL: llvm.func @matmul(
//       CHECK:   llvm.intr.fmuladd{{.*}}vector<
//       CHECK: llvm.func @_mlir_ciface_matmul
// CHECK-LABEL: llvm.func @conv(
//       CHECK:   llvm.intr.fmuladd{{.*}}vector<
//   CHECK-NOT:   linalg.
//       CHECK: llvm.func @_mlir_ciface_conv

func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x64xf32>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %0 : tensor<128x64xf32>
}

func.func @conv(%i: tensor<1x10x12x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 10, f = 16}, cache = {oh = 4, ow = 10, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 5, f = 16}, order = [oh, ow, f, kh, kw, c], unroll = 2>}
    ins(%i, %f : tensor<1x10x12x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32>
  return %0 : tensor<1x8x10x16xf32>
}
