// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu="default-configs=true mcpu=znver4 caches=48K,2M" \
// RUN:   --mlir-print-ir-after=tiletune-optimize-cpu-buffers -o /dev/null 2>&1 | FileCheck %s

// Padding copies of many short rows (issue 16, item 6): one vector operation
// moves at most 16 rows, so the IR LLVM compiles stays linear in the size of
// the copy. Each of these cases used to become one vector operation over the
// whole copy (vector<1x64x17x3xf32>, vector<1x256x4x4xf32>,
// vector<1152x3xf32>-like, vector<8x254x2xf32>) and took 23 to 104 s to
// compile; the CHECK-NOTs refuse any vector with a non-innermost dim above 16
// after tiletune-optimize-cpu-buffers.

// A function holding only a tensor.pad: rows of 3 go one per transfer.
// CHECK-LABEL: func.func @pad_only
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.transfer_read {{.*}} vector<1x1x1x3xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<1x1x1x3xf32>, memref<1x64x19x5xf32>
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   return
func.func @pad_only(%x: tensor<1x64x17x3xf32>) -> tensor<1x64x19x5xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x64x17x3xf32> to tensor<1x64x19x5xf32>
  return %p : tensor<1x64x19x5xf32>
}

// -----

// A frontend-style NCHW conv behind a tensor.pad, default config.
// CHECK-LABEL: func.func @conv_nchw_behind_pad
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   vector.transfer_write {{.*}} vector<1x1x1x4xf32>, memref<1x256x6x6xf32>
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   return
func.func @conv_nchw_behind_pad(%x: tensor<1x256x4x4xf32>, %f: tensor<256x256x3x3xf32>, %o: tensor<1x256x4x4xf32>) -> tensor<1x256x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x256x4x4xf32> to tensor<1x256x6x6xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %f : tensor<1x256x6x6xf32>, tensor<256x256x3x3xf32>) outs(%o : tensor<1x256x4x4xf32>) -> tensor<1x256x4x4xf32>
  return %r : tensor<1x256x4x4xf32>
}

// -----

// A 1152x3x1 matmul padded to n = 16: no copy (the partial tiles run in
// place); each 8-row tile of the output is read and written as 8x4 lanes
// (masked: 3 columns), B's one row once.
// CHECK-LABEL: func.func @matmul_pad_n
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   vector.transfer_read %arg1{{.*}} {in_bounds = [true, false]} : memref<1x3xf32>, vector<1x4xf32>
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read {{.*}} {in_bounds = [true, false]} : memref<8x3xf32, {{.*}}>, vector<8x4xf32>
//       CHECK:     vector.transfer_write {{.*}} {in_bounds = [true, false]} : vector<8x4xf32>, memref<8x3xf32
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   return
func.func @matmul_pad_n(%a: tensor<1152x1xf32>, %b: tensor<1x3xf32>, %c: tensor<1152x3xf32>) -> tensor<1152x3xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1152, n = 16}, cache = {m = 8, n = 16, k = 1}, register = {m = 8, n = 16}, pad = {n = 16}>}
    ins(%a, %b : tensor<1152x1xf32>, tensor<1x3xf32>) outs(%c : tensor<1152x3xf32>) -> tensor<1152x3xf32>
  return %r : tensor<1152x3xf32>
}

// -----

// A tiny batch_matmul with its default config (padded m): no copy, the
// last 6 of the 254 rows are a register tile of their own.
// CHECK-LABEL: func.func @batch_matmul_default
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   scf.forall
//   CHECK-NOT:   memref.alloc
//       CHECK:   vector.transfer_read %arg0{{.*}} : memref<8x254x2xf32>, vector<1x8x2xf32>
//       CHECK:   vector.transfer_read %arg0{{.*}} : memref<8x254x2xf32>, vector<1x6x2xf32>
//   CHECK-NOT:   vector<{{([0-9]+x)*(1[7-9]|[2-9][0-9]|[1-9][0-9][0-9]+)x[0-9]}}
//       CHECK:   return
func.func @batch_matmul_default(%a: tensor<8x254x2xf32>, %b: tensor<8x2x2xf32>, %c: tensor<8x254x2xf32>) -> tensor<8x254x2xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<8x254x2xf32>, tensor<8x2x2xf32>) outs(%c : tensor<8x254x2xf32>) -> tensor<8x254x2xf32>
  return %r : tensor<8x254x2xf32>
}
