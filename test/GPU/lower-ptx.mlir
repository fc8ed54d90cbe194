// Lowering to NVVM and PTX without a GPU (format isa keeps the PTX text in
// the gpu.binary), for sm_90 and sm_80.
// RUN: tiletune-opt %s --tiletune-lower-gpu="chip=sm_90 format=isa" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tiletune-opt %s --tiletune-lower-gpu="chip=sm_80 format=isa" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tiletune-opt %s --tiletune-lower-gpu="chip=sm_90 format=isa" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// Host side: the function takes the three buffers and launches the kernel.
// CHECK-LABEL: llvm.func @matmul
// CHECK:       gpu.launch_func @matmul_kernel::@matmul_kernel blocks in ({{.*}}) threads in ({{.*}}) : i64 args(
// Device side: PTX for the requested chip with static shared memory for the
// two staged tiles, barriers, vectorized global loads and FMAs.
// CHECK:       gpu.binary @matmul_kernel
// SM90-SAME:   chip = "sm_90", features = "+ptx80"
// SM80-SAME:   chip = "sm_80", features = "+ptx80"
// SM90-SAME:   .target sm_90
// SM80-SAME:   .target sm_80
// CHECK-SAME:  .shared .align {{[0-9]+}} .b8 __wg_matmul_kernel_0[4096]
// CHECK-SAME:  .shared .align {{[0-9]+}} .b8 __wg_matmul_kernel_1[4096]
// CHECK-SAME:  bar.sync
// CHECK-SAME:  fma.rn.f32
// At translation the launch becomes calls of the mgpu* functions that
// libtiletune_cuda_runtime provides (PTX is JIT-loaded by a constructor).
// LLVM: @llvm.global_ctors = {{.*}} @matmul_kernel_load
// LLVM: call ptr @mgpuModuleGetFunction(
// LLVM: call ptr @mgpuStreamCreate()
// LLVM: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 16, i64 8, i64 1, i64 16, i64 16, i64 1, i32 0, ptr %{{.*}}, ptr %{{.*}}, ptr null, i64 21)
// LLVM: call void @mgpuStreamSynchronize(
// LLVM: call void @mgpuStreamDestroy(
// LLVM: call ptr @mgpuModuleLoadJIT(ptr @matmul_kernel_binary, i32 3)
// LLVM: declare ptr @mgpuModuleLoadJIT(ptr, i32)
func.func @matmul(%A: tensor<512x1024xf32>, %B: tensor<1024x1024xf32>, %C: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : tensor<512x1024xf32>, tensor<1024x1024xf32>) outs(%C : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}
