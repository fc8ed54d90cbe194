/*===- CudaRuntime.h - TileTune's runtime over the CUDA driver API -*- C -*-===*\
|*                                                                            *|
|* C interface of libtiletune_cuda_runtime.so: the `mgpu*` functions that     *|
|* host code lowered by MLIR's gpu-to-llvm conversion calls, plus TileTune's  *|
|* own entry points for device queries, error reporting, buffers and kernel   *|
|* timing. The library opens the CUDA driver (libcuda.so.1) with dlopen on    *|
|* first use, so programs linked against it start and run on machines        *|
|* without a driver or a GPU; every call then fails softly and the first      *|
|* error is kept for tiletuneCudaGetError().                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TILETUNE_GPU_CUDARUNTIME_H
#define TILETUNE_GPU_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===--------------------------------------------------------------------===*/
/* Functions called by host code lowered with `gpu-to-llvm`.                */
/* Signatures follow the LLVM IR that mlir-translate emits for them (MLIR   */
/* 22); `void *` stands for CUmodule / CUfunction / CUstream / CUevent.     */
/*===--------------------------------------------------------------------===*/

/// Loads a cubin or fatbin image (`size` bytes; 0 when unknown).
void *mgpuModuleLoad(void *data, int64_t size);
/// Loads a NUL-terminated PTX image, JIT-compiling it at `optLevel` (0-4).
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
/// Allocates `sizeBytes` of device memory (managed memory if `isHostShared`).
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
/// Sets `count` 32-bit words at `dst` to `value`.
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
/// Sets `count` 16-bit words at `dst` to `value`.
void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream);
void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
void mgpuMemHostUnregister(void *ptr);
/// Registers the buffer of an unranked memref (rank, descriptor) with CUDA.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);
void mgpuSetDefaultDevice(int32_t device);

/*===--------------------------------------------------------------------===*/
/* TileTune entry points.                                                   */
/*===--------------------------------------------------------------------===*/

/// Opens the driver, initialises it and makes the primary context of the
/// default device current. Returns 1 when a usable device exists, 0
/// otherwise (the reason is then in tiletuneCudaGetError()). Idempotent.
int tiletuneCudaInit(void);
/// Number of CUDA devices (0 without a driver or a GPU).
int tiletuneCudaDeviceCount(void);
/// Writes a one-line description of the default device ("NVIDIA H100 80GB
/// HBM3, sm_90, 132 SMs") into `buf`. Returns 0 on failure.
int tiletuneCudaDeviceDescription(char *buf, size_t len);
/// Compute capability of the default device as major*10+minor, 0 if none.
int tiletuneCudaComputeCapability(void);

/// The calling thread's first error since it last called
/// tiletuneCudaClearError(), or NULL (errors are kept per thread).
const char *tiletuneCudaGetError(void);
void tiletuneCudaClearError(void);
/// When `quiet` is non-zero, errors are only recorded, not printed to
/// stderr (the default prints the first error of each kind once).
void tiletuneCudaSetQuiet(int quiet);

/// Device buffers for measurement harnesses (NULL / non-zero on failure).
void *tiletuneCudaMalloc(size_t bytes);
void tiletuneCudaFree(void *ptr);
int tiletuneCudaCopyToDevice(void *dst, const void *src, size_t bytes);
int tiletuneCudaCopyToHost(void *dst, const void *src, size_t bytes);
/// Blocks until all work on the device finished; 0 on success.
int tiletuneCudaSynchronize(void);

/// Starts a profiling window: every mgpuLaunchKernel is bracketed by two
/// CUDA events, mgpuStreamCreate hands out one shared stream, and stream
/// synchronisation is deferred to tiletuneCudaProfileEnd, so kernels run
/// back to back. Only valid for host code that does not read device
/// results on the host inside the window. Returns 0 on success.
int tiletuneCudaProfileBegin(void);
/// Ends the window: synchronises, writes the duration in milliseconds of
/// each kernel launched inside it (in launch order, at most `capacity`) to
/// `ms` and returns how many launches there were, or -1 on error.
int tiletuneCudaProfileEnd(float *ms, int capacity);

#ifdef __cplusplus
} // extern "C"
#endif

#endif /* TILETUNE_GPU_CUDARUNTIME_H */
