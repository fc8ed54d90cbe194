// ResNeXt-50's stage-1 grouped 3x3 conv (N = 1, 56x56 output, C = F = 128,
// G = 32: 4 channels and 4 filters per group; input pre-padded to 58x58) in
// both grouped layouts, against ungrouped NHWC convs: one with the same
// FLOPs (16 -> 32 channels) and the ungrouped 128 -> 128 conv (32x the
// FLOPs). Run each entry with the default configs (docs/Benchmarks.md):
//   tiletune-run bench/cpu/grouped-conv-resnext.mlir --entry=<name> \
//     --pipeline="tiletune-lower-cpu{default-configs=1 threads=T}" \
//     --num-threads=T --verify --repeats=20

func.func @nhwgc(%i: tensor<1x58x58x32x4xf32>, %f: tensor<32x4x3x3x4xf32>,
                 %o: tensor<1x56x56x32x4xf32>) -> tensor<1x56x56x32x4xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc
    ins(%i, %f : tensor<1x58x58x32x4xf32>, tensor<32x4x3x3x4xf32>)
    outs(%o : tensor<1x56x56x32x4xf32>) -> tensor<1x56x56x32x4xf32>
  return %0 : tensor<1x56x56x32x4xf32>
}

func.func @ngchw(%i: tensor<1x32x4x58x58xf32>, %f: tensor<4x32x4x3x3xf32>,
                 %o: tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw
    ins(%i, %f : tensor<1x32x4x58x58xf32>, tensor<4x32x4x3x3xf32>)
    outs(%o : tensor<1x32x4x56x56xf32>) -> tensor<1x32x4x56x56xf32>
  return %0 : tensor<1x32x4x56x56xf32>
}

// The same FLOPs ungrouped: 16 channels x 32 filters = 32 groups x 4 x 4.
func.func @same_flops(%i: tensor<1x58x58x16xf32>, %f: tensor<3x3x16x32xf32>,
                      %o: tensor<1x56x56x32xf32>) -> tensor<1x56x56x32xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf
    ins(%i, %f : tensor<1x58x58x16xf32>, tensor<3x3x16x32xf32>)
    outs(%o : tensor<1x56x56x32xf32>) -> tensor<1x56x56x32xf32>
  return %0 : tensor<1x56x56x32xf32>
}

func.func @ungrouped(%i: tensor<1x58x58x128xf32>, %f: tensor<3x3x128x128xf32>,
                     %o: tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf
    ins(%i, %f : tensor<1x58x58x128xf32>, tensor<3x3x128x128xf32>)
    outs(%o : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  return %0 : tensor<1x56x56x128xf32>
}
