// `tiletune tune` tunes the ops it can tile and lists the matmul/conv ops it
// leaves untouched (a dynamic matmul, a depthwise convolution, mixed element
// types) with the reason and their share of the module's FLOPs; each gets a
// remark on the op. A transposed matmul is a problem of its own kind.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune tune %s --algorithm=random --trials=2 --threads=1 --repeats=1 --min-sample-ms=0.1 --db=%t/t.db -o %t/tuned.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=TUNED < %t/tuned.mlir

// CHECK-DAG: remark: not tuned, left untouched: operand #0 has a dynamic shape
// CHECK-DAG: remark: not tuned, left untouched: 'linalg.depthwise_conv_2d_nhwc_hwc' is not a tunable op
// CHECK-DAG: remark: not tuned, left untouched: operands have different element types
// CHECK: module: 2 ops to tile (2 distinct problems), 3 computing ops left untouched
// CHECK-DAG: module: not tuned: 1 linalg.matmul op (operand #0 has a dynamic shape), FLOPs not countable (dynamic sizes)
// CHECK-DAG: module: not tuned: 1 linalg.depthwise_conv_2d_nhwc_hwc op ('linalg.depthwise_conv_2d_nhwc_hwc' is not a tunable op {{.*}}), {{[0-9]+\.[0-9]+}}% of the module's FLOPs
// CHECK-DAG: module: not tuned: 1 linalg.matmul op (operands have different element types), {{[0-9]+\.[0-9]+}}% of the module's FLOPs
// CHECK: matmul_transpose_b

// TUNED-COUNT-2: tiletune.config = #tiletune.config<cpu

func.func @model(%a: tensor<16x32xf32>, %b: tensor<32x32xf32>, %c: tensor<16x32xf32>,
                 %w: tensor<24x32xf32>, %c2: tensor<16x24xf32>,
                 %d: tensor<?x32xf32>, %dc: tensor<?x32xf32>,
                 %h: tensor<8x8xf16>, %o: tensor<8x8xf32>,
                 %di: tensor<1x6x6x3xf32>, %df: tensor<3x3x3xf32>,
                 %do: tensor<1x4x4x3xf32>)
    -> (tensor<16x32xf32>, tensor<16x24xf32>, tensor<?x32xf32>, tensor<8x8xf32>, tensor<1x4x4x3xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : tensor<16x32xf32>, tensor<24x32xf32>) outs(%c2 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %2 = linalg.matmul ins(%d, %b : tensor<?x32xf32>, tensor<32x32xf32>) outs(%dc : tensor<?x32xf32>) -> tensor<?x32xf32>
  %3 = linalg.matmul ins(%h, %h : tensor<8x8xf16>, tensor<8x8xf16>) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
  %4 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%di, %df : tensor<1x6x6x3xf32>, tensor<3x3x3xf32>) outs(%do : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %0, %1, %2, %3, %4 : tensor<16x32xf32>, tensor<16x24xf32>, tensor<?x32xf32>, tensor<8x8xf32>, tensor<1x4x4x3xf32>
}
