// A conv reading a zero tensor.pad (as frontends pad) is a problem of its
// own: its key names the pads, and its standalone kernel holds the pad on an
// argument of the unpadded shape, so the tuner measures the code the module
// runs (tiletune-tile-cpu skips the taps on the padding) and checks each
// variant against the C++ reference of the padded conv. The same conv on an
// input that is an argument is another problem. A pad of ones is not a
// zero pad: that conv's input is an argument of its kernel.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tiletune tune %s --threads=1 --trials=3 --repeats=2 --min-sample-ms=0.1 --db=%t/t.db --no-progress -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=TUNE
// TUNE: module: 3 ops to tile (3 distinct problems)
// RUN: tiletune report --here --threads=1 --db=%t/t.db | FileCheck %s --check-prefix=REPORT
// REPORT-DAG: conv_2d_nhwc_fhwc/f32/n=1,oh=7,ow=7,f=32,kh=3,kw=3,c=16/s=1x1/d=1x1/pad=0,1,1,0-0,1,1,0
// REPORT-DAG: conv_2d_nhwc_fhwc/f32/n=1,oh=7,ow=7,f=32,kh=3,kw=3,c=16/s=1x1/d=1x1 {{ *}}gbfs
// REPORT-DAG: conv_2d_nhwc_fhwc/f32/n=1,oh=4,ow=4,f=32,kh=3,kw=3,c=16/s=2x2/d=1x1 {{ *}}gbfs
// RUN: tiletune-run %t/out.mlir --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: FileCheck %s --check-prefix=APPLIED < %t/out.mlir
// RUN: tiletune-opt %t/out.mlir --tiletune-tile-cpu | FileCheck %s --check-prefix=IR
// EXEC: verify: passed against the untiled lowering
// APPLIED-COUNT-3: tiletune.config = #tiletune.config<cpu
// The padded conv of the tuned module skips its padding taps.
// IR: affine.max
func.func @convs(%x: tensor<1x7x7x16xf32>, %f: tensor<32x3x3x16xf32>,
                 %y: tensor<1x9x9x16xf32>) -> (tensor<1x7x7x32xf32>, tensor<1x7x7x32xf32>, tensor<1x4x4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_fhwc ins(%p, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %1 = linalg.conv_2d_nhwc_fhwc ins(%y, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %q = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e2 = tensor.empty() : tensor<1x4x4x32xf32>
  %o2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  %2 = linalg.conv_2d_nhwc_fhwc {strides = dense<2> : tensor<2xi64>} ins(%q, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o2 : tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  return %0, %1, %2 : tensor<1x7x7x32xf32>, tensor<1x7x7x32xf32>, tensor<1x4x4x32xf32>
}
