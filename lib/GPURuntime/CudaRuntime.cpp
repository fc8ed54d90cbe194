//===- CudaRuntime.cpp - TileTune's runtime over the CUDA driver API ------===//
//
// Implements the functions declared in tiletune/GPU/CudaRuntime.h. The CUDA
// driver is opened with dlopen on first use (libcuda.so.1, or the file named
// by $TILETUNE_CUDA_DRIVER) and every entry point is resolved with dlsym, so
// this library has no link-time dependency on the driver: a program using it
// runs on a machine without a GPU and gets a clear error instead of a loader
// failure. Only cuda.h (types and enum values) is taken from the toolkit.
//
//===----------------------------------------------------------------------===//

#include "tiletune/GPU/CudaRuntime.h"

#include <cuda.h>

#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

/// Driver entry points, resolved by exact (versioned) symbol name.
struct DriverAPI {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*driverGetVersion)(int *) = nullptr;
  CUresult (*getErrorName)(CUresult, const char **) = nullptr;
  CUresult (*getErrorString)(CUresult, const char **) = nullptr;
  CUresult (*deviceGetCount)(int *) = nullptr;
  CUresult (*deviceGet)(CUdevice *, int) = nullptr;
  CUresult (*deviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute,
                                 CUdevice) = nullptr;
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
  CUresult (*ctxSynchronize)(void) = nullptr;
  CUresult (*moduleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned,
                               CUjit_option *, void **) = nullptr;
  CUresult (*moduleUnload)(CUmodule) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule,
                                const char *) = nullptr;
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute,
                               int) = nullptr;
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **) = nullptr;
  CUresult (*launchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                             void **) = nullptr;
  CUresult (*streamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*streamDestroy)(CUstream) = nullptr;
  CUresult (*streamSynchronize)(CUstream) = nullptr;
  CUresult (*streamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  CUresult (*eventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*eventDestroy)(CUevent) = nullptr;
  CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*eventSynchronize)(CUevent) = nullptr;
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*memAllocManaged)(CUdeviceptr *, size_t, unsigned) = nullptr;
  CUresult (*memFree)(CUdeviceptr) = nullptr;
  CUresult (*memcpy)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t,
                          CUstream) = nullptr;
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t,
                             CUstream) = nullptr;
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t,
                             CUstream) = nullptr;
  CUresult (*memHostRegister)(void *, size_t, unsigned) = nullptr;
  CUresult (*memHostUnregister)(void *) = nullptr;
};

/// Process-wide state of the runtime.
struct Runtime {
  std::once_flag openOnce;
  void *handle = nullptr;
  DriverAPI api;
  bool usable = false; ///< Driver opened, initialised, device present.
  int deviceCount = 0;
  int deviceIndex = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;

  std::mutex errorMutex; ///< Guards initError.
  std::string initError; ///< Why the driver is unusable (kept for good).
  bool quiet = std::getenv("TILETUNE_CUDA_QUIET") != nullptr;

  // Profiling window (see tiletuneCudaProfileBegin).
  std::mutex profileMutex;
  bool profiling = false;
  CUstream profileStream = nullptr;
  std::vector<std::pair<CUevent, CUevent>> profileEvents;
};

Runtime &rt() {
  static Runtime *runtime = new Runtime(); // Never destroyed: used by dtors.
  return *runtime;
}

/// The first error of the calling thread since it last cleared it. Errors
/// are per thread so that a thread loading modules (e.g. a compile worker of
/// the tuner) never hands its error to another thread's launch.
struct ThreadError {
  std::string first;
  bool has = false;
};
ThreadError &threadError() {
  thread_local ThreadError error;
  return error;
}

void recordError(const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  Runtime &r = rt();
  ThreadError &e = threadError();
  if (e.has)
    return;
  e.has = true;
  e.first = buf;
  if (!r.quiet)
    fprintf(stderr, "tiletune_cuda_runtime: error: %s\n", buf);
}

std::string describe(CUresult result) {
  const DriverAPI &api = rt().api;
  const char *name = nullptr, *text = nullptr;
  if (api.getErrorName)
    api.getErrorName(result, &name);
  if (api.getErrorString)
    api.getErrorString(result, &text);
  if (!name) {
    // The stub library shipped with the toolkit cannot name its own errors.
    switch (result) {
    case CUDA_ERROR_STUB_LIBRARY:
      name = "CUDA_ERROR_STUB_LIBRARY";
      text = "the toolkit's stub libcuda.so was loaded instead of a driver";
      break;
    case CUDA_ERROR_NO_DEVICE:
      name = "CUDA_ERROR_NO_DEVICE";
      text = "no CUDA-capable device is detected";
      break;
    default:
      break;
    }
  }
  std::string out = name ? name : ("CUresult " + std::to_string(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

/// Checks a driver result; records an error naming `what` on failure.
bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  recordError("%s failed: %s", what, describe(result).c_str());
  return false;
}

template <typename Fn>
bool resolve(void *handle, Fn &fn, const char *name, bool required,
             std::string &missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!fn && required) {
    if (!missing.empty())
      missing += ", ";
    missing += name;
  }
  return fn != nullptr;
}

void openDriver() {
  Runtime &r = rt();
  const char *path = std::getenv("TILETUNE_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  r.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!r.handle) {
    const char *why = dlerror();
    recordError("no CUDA driver: cannot open %s (%s); this machine has no "
                "NVIDIA driver or GPU",
                path, why ? why : "unknown reason");
    return;
  }
  DriverAPI &a = r.api;
  std::string missing;
  void *h = r.handle;
  resolve(h, a.init, "cuInit", true, missing);
  resolve(h, a.driverGetVersion, "cuDriverGetVersion", true, missing);
  resolve(h, a.getErrorName, "cuGetErrorName", true, missing);
  resolve(h, a.getErrorString, "cuGetErrorString", true, missing);
  resolve(h, a.deviceGetCount, "cuDeviceGetCount", true, missing);
  resolve(h, a.deviceGet, "cuDeviceGet", true, missing);
  resolve(h, a.deviceGetName, "cuDeviceGetName", true, missing);
  resolve(h, a.deviceGetAttribute, "cuDeviceGetAttribute", true, missing);
  resolve(h, a.primaryCtxRetain, "cuDevicePrimaryCtxRetain", true, missing);
  resolve(h, a.ctxSetCurrent, "cuCtxSetCurrent", true, missing);
  resolve(h, a.ctxSynchronize, "cuCtxSynchronize", true, missing);
  resolve(h, a.moduleLoadData, "cuModuleLoadData", true, missing);
  resolve(h, a.moduleLoadDataEx, "cuModuleLoadDataEx", true, missing);
  resolve(h, a.moduleUnload, "cuModuleUnload", true, missing);
  resolve(h, a.moduleGetFunction, "cuModuleGetFunction", true, missing);
  resolve(h, a.funcSetAttribute, "cuFuncSetAttribute", true, missing);
  resolve(h, a.launchKernel, "cuLaunchKernel", true, missing);
  resolve(h, a.launchKernelEx, "cuLaunchKernelEx", false, missing);
  resolve(h, a.streamCreate, "cuStreamCreate", true, missing);
  resolve(h, a.streamDestroy, "cuStreamDestroy_v2", true, missing);
  resolve(h, a.streamSynchronize, "cuStreamSynchronize", true, missing);
  resolve(h, a.streamWaitEvent, "cuStreamWaitEvent", true, missing);
  resolve(h, a.eventCreate, "cuEventCreate", true, missing);
  resolve(h, a.eventDestroy, "cuEventDestroy_v2", true, missing);
  resolve(h, a.eventRecord, "cuEventRecord", true, missing);
  resolve(h, a.eventSynchronize, "cuEventSynchronize", true, missing);
  // cuEventElapsedTime_v2 appeared in CUDA 12.8; older drivers have only
  // the unversioned symbol with the same signature.
  if (!resolve(h, a.eventElapsedTime, "cuEventElapsedTime_v2", false,
               missing))
    resolve(h, a.eventElapsedTime, "cuEventElapsedTime", true, missing);
  resolve(h, a.memAlloc, "cuMemAlloc_v2", true, missing);
  resolve(h, a.memAllocManaged, "cuMemAllocManaged", true, missing);
  resolve(h, a.memFree, "cuMemFree_v2", true, missing);
  resolve(h, a.memcpy, "cuMemcpy", true, missing);
  resolve(h, a.memcpyAsync, "cuMemcpyAsync", true, missing);
  resolve(h, a.memsetD32Async, "cuMemsetD32Async", true, missing);
  resolve(h, a.memsetD16Async, "cuMemsetD16Async", true, missing);
  resolve(h, a.memHostRegister, "cuMemHostRegister_v2", true, missing);
  resolve(h, a.memHostUnregister, "cuMemHostUnregister", true, missing);
  if (!missing.empty()) {
    recordError("CUDA driver %s lacks required symbols: %s", path,
                missing.c_str());
    return;
  }
  if (!check(a.init(0), "cuInit"))
    return;
  if (!check(a.deviceGetCount(&r.deviceCount), "cuDeviceGetCount"))
    return;
  if (r.deviceCount == 0) {
    recordError("no CUDA device: the driver reports 0 devices");
    return;
  }
  if (const char *env = std::getenv("TILETUNE_CUDA_DEVICE"))
    r.deviceIndex = std::atoi(env);
  if (r.deviceIndex < 0 || r.deviceIndex >= r.deviceCount) {
    recordError("CUDA device %d requested but only %d present", r.deviceIndex,
                r.deviceCount);
    return;
  }
  if (!check(a.deviceGet(&r.device, r.deviceIndex), "cuDeviceGet") ||
      !check(a.primaryCtxRetain(&r.context, r.device),
             "cuDevicePrimaryCtxRetain"))
    return;
  r.usable = true;
}

/// Opens the driver and remembers why it is unusable, if it is.
void openDriverOnce() {
  openDriver();
  Runtime &r = rt();
  if (!r.usable) {
    std::lock_guard<std::mutex> lock(r.errorMutex);
    ThreadError &e = threadError();
    r.initError = e.has ? e.first : "no usable CUDA device";
  }
}

/// Opens the driver once and makes the context current on this thread.
/// Returns false (with an error recorded) when no device can be used.
bool ready() {
  Runtime &r = rt();
  std::call_once(r.openOnce, openDriverOnce);
  if (!r.usable) {
    // Keep the reason visible even after tiletuneCudaClearError().
    recordError("%s", r.initError.c_str());
    return false;
  }
  thread_local CUcontext current = nullptr;
  if (current != r.context) {
    if (!check(r.api.ctxSetCurrent(r.context), "cuCtxSetCurrent"))
      return false;
    current = r.context;
  }
  return true;
}

CUstream asStream(void *stream) { return reinterpret_cast<CUstream>(stream); }

bool isProfileStream(void *stream) {
  Runtime &r = rt();
  return r.profiling && stream && asStream(stream) == r.profileStream;
}

/// Allows `smem` bytes of dynamic shared memory when above the 48 KiB
/// default.
bool prepareSharedMemory(CUfunction fn, int32_t smem) {
  if (smem <= 48 * 1024)
    return true;
  return check(rt().api.funcSetAttribute(
                   fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

/// Records a (start, stop) event pair around a launch inside a profiling
/// window; `launch` performs the launch and returns its result.
template <typename LaunchFn>
void launchProfiled(CUstream stream, LaunchFn launch,
                           const char *what) {
  Runtime &r = rt();
  bool profiled = false;
  CUevent start = nullptr, stop = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.profileMutex);
    profiled = r.profiling;
    if (profiled) {
      if (!check(r.api.eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate") ||
          !check(r.api.eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"))
        return;
      r.profileEvents.push_back({start, stop});
    }
  }
  if (profiled)
    check(r.api.eventRecord(start, stream), "cuEventRecord");
  check(launch(), what);
  if (profiled)
    check(r.api.eventRecord(stop, stream), "cuEventRecord");
}

/// Size in bytes and base of the buffer an unranked memref describes: the
/// ranked descriptor is {allocated, aligned, offset, sizes[rank],
/// strides[rank]}; the registered range spans the largest extent.
void memrefExtent(int64_t rank, void *descriptor, int64_t elementSize,
                         void **base, uint64_t *bytes) {
  struct Header {
    void *allocated;
    void *aligned;
    int64_t offset;
  };
  auto *header = static_cast<Header *>(descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(header + 1);
  int64_t *strides = sizes + rank;
  int64_t extent = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0) {
      extent = 0;
      break;
    }
    extent += (sizes[i] - 1) * strides[i];
  }
  *base = static_cast<char *>(header->aligned) + header->offset * elementSize;
  *bytes = static_cast<uint64_t>(extent) * elementSize;
}

} // namespace

//===----------------------------------------------------------------------===//
// mgpu* functions called by lowered host code.
//===----------------------------------------------------------------------===//

extern "C" {

void *mgpuModuleLoad(void *data, int64_t size) {
  (void)size;
  if (!data || !ready())
    return nullptr;
  CUmodule module = nullptr;
  if (!check(rt().api.moduleLoadData(&module, data), "cuModuleLoadData"))
    return nullptr;
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!data || !ready())
    return nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log))};
  CUmodule module = nullptr;
  CUresult result =
      rt().api.moduleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    recordError("cuModuleLoadDataEx (PTX JIT) failed: %s: %s",
                describe(result).c_str(), log);
    return nullptr;
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module && ready())
    check(rt().api.moduleUnload(reinterpret_cast<CUmodule>(module)),
          "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !ready())
    return nullptr;
  CUfunction function = nullptr;
  if (!check(rt().api.moduleGetFunction(
                 &function, reinterpret_cast<CUmodule>(module), name),
             "cuModuleGetFunction"))
    return nullptr;
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  if (!function) {
    recordError("kernel launch skipped: the kernel was not loaded");
    return;
  }
  if (!ready())
    return;
  CUfunction fn = reinterpret_cast<CUfunction>(function);
  if (!prepareSharedMemory(fn, smem))
    return;
  CUstream s = asStream(stream);
  launchProfiled(
      s,
      [&] {
        return rt().api.launchKernel(fn, gridX, gridY, gridZ, blockX, blockY,
                                     blockZ, smem, s, params, extra);
      },
      "cuLaunchKernel");
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra) {
  if (!function) {
    recordError("cluster kernel launch skipped: the kernel was not loaded");
    return;
  }
  if (!ready())
    return;
  if (!rt().api.launchKernelEx) {
    recordError("cluster launch needs cuLaunchKernelEx (CUDA 12 driver)");
    return;
  }
  CUfunction fn = reinterpret_cast<CUfunction>(function);
  if (!prepareSharedMemory(fn, smem))
    return;
  CUlaunchAttribute attribute;
  memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(clusterX);
  attribute.value.clusterDim.y = static_cast<unsigned>(clusterY);
  attribute.value.clusterDim.z = static_cast<unsigned>(clusterZ);
  CUlaunchConfig config;
  memset(&config, 0, sizeof(config));
  config.gridDimX = gridX;
  config.gridDimY = gridY;
  config.gridDimZ = gridZ;
  config.blockDimX = blockX;
  config.blockDimY = blockY;
  config.blockDimZ = blockZ;
  config.sharedMemBytes = smem;
  config.hStream = asStream(stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  launchProfiled(
      config.hStream,
      [&] { return rt().api.launchKernelEx(&config, fn, params, extra); },
      "cuLaunchKernelEx");
}

void *mgpuStreamCreate(void) {
  if (!ready())
    return nullptr;
  Runtime &r = rt();
  if (r.profiling)
    return r.profileStream;
  CUstream stream = nullptr;
  if (!check(r.api.streamCreate(&stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate"))
    return nullptr;
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (!stream || isProfileStream(stream) || !ready())
    return;
  check(rt().api.streamDestroy(asStream(stream)), "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  if (isProfileStream(stream) || !ready())
    return;
  check(rt().api.streamSynchronize(asStream(stream)), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (!event || !ready())
    return;
  check(rt().api.streamWaitEvent(asStream(stream),
                                 reinterpret_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  if (!ready())
    return nullptr;
  CUevent event = nullptr;
  if (!check(rt().api.eventCreate(&event, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate"))
    return nullptr;
  return event;
}

void mgpuEventDestroy(void *event) {
  if (event && ready())
    check(rt().api.eventDestroy(reinterpret_cast<CUevent>(event)),
          "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (event && ready())
    check(rt().api.eventSynchronize(reinterpret_cast<CUevent>(event)),
          "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (event && ready())
    check(rt().api.eventRecord(reinterpret_cast<CUevent>(event),
                               asStream(stream)),
          "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared) {
  (void)stream;
  if (!ready())
    return nullptr;
  CUdeviceptr ptr = 0;
  if (sizeBytes == 0)
    return nullptr;
  bool ok = isHostShared
                ? check(rt().api.memAllocManaged(&ptr, sizeBytes,
                                                 CU_MEM_ATTACH_GLOBAL),
                        "cuMemAllocManaged")
                : check(rt().api.memAlloc(&ptr, sizeBytes), "cuMemAlloc");
  return ok ? reinterpret_cast<void *>(ptr) : nullptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (ptr && ready())
    check(rt().api.memFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (!dst || !src || !ready())
    return;
  check(rt().api.memcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                             reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                             asStream(stream)),
        "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  if (dst && ready())
    check(rt().api.memsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, asStream(stream)),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  if (dst && ready())
    check(rt().api.memsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, asStream(stream)),
          "cuMemsetD16Async");
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  if (ptr && sizeBytes && ready())
    check(rt().api.memHostRegister(ptr, sizeBytes, 0), "cuMemHostRegister");
}

void mgpuMemHostUnregister(void *ptr) {
  if (ptr && ready())
    check(rt().api.memHostUnregister(ptr), "cuMemHostUnregister");
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  void *base = nullptr;
  uint64_t bytes = 0;
  memrefExtent(rank, descriptor, elementSizeBytes, &base, &bytes);
  mgpuMemHostRegister(base, bytes);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  void *base = nullptr;
  uint64_t bytes = 0;
  memrefExtent(rank, descriptor, elementSizeBytes, &base, &bytes);
  mgpuMemHostUnregister(base);
}

void mgpuSetDefaultDevice(int32_t device) {
  Runtime &r = rt();
  // Only meaningful before the first use; later calls must name the device
  // already in use.
  std::call_once(r.openOnce, [&] {
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", device);
    setenv("TILETUNE_CUDA_DEVICE", buf, 0);
    openDriverOnce();
  });
  if (r.usable && device != r.deviceIndex)
    recordError("mgpuSetDefaultDevice(%d) after device %d was initialised",
                device, r.deviceIndex);
}

//===----------------------------------------------------------------------===//
// TileTune entry points.
//===----------------------------------------------------------------------===//

int tiletuneCudaInit(void) { return ready() ? 1 : 0; }

int tiletuneCudaDeviceCount(void) {
  Runtime &r = rt();
  std::call_once(r.openOnce, openDriverOnce);
  return r.deviceCount;
}

int tiletuneCudaComputeCapability(void) {
  if (!ready())
    return 0;
  Runtime &r = rt();
  int major = 0, minor = 0;
  if (!check(r.api.deviceGetAttribute(
                 &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, r.device),
             "cuDeviceGetAttribute") ||
      !check(r.api.deviceGetAttribute(
                 &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, r.device),
             "cuDeviceGetAttribute"))
    return 0;
  return major * 10 + minor;
}

int tiletuneCudaDeviceDescription(char *buf, size_t len) {
  if (!buf || len == 0 || !ready())
    return 0;
  Runtime &r = rt();
  char name[256] = {0};
  int sms = 0, driver = 0;
  if (!check(r.api.deviceGetName(name, sizeof(name), r.device),
             "cuDeviceGetName") ||
      !check(r.api.deviceGetAttribute(
                 &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, r.device),
             "cuDeviceGetAttribute"))
    return 0;
  r.api.driverGetVersion(&driver);
  snprintf(buf, len, "%s, sm_%d, %d SMs, driver %d.%d", name,
           tiletuneCudaComputeCapability(), sms, driver / 1000,
           (driver % 1000) / 10);
  return 1;
}

const char *tiletuneCudaGetError(void) {
  ThreadError &e = threadError();
  return e.has ? e.first.c_str() : nullptr;
}

void tiletuneCudaClearError(void) {
  ThreadError &e = threadError();
  e.has = false;
  e.first.clear();
}

void tiletuneCudaSetQuiet(int quiet) { rt().quiet = quiet != 0; }

void *tiletuneCudaMalloc(size_t bytes) {
  return mgpuMemAlloc(bytes, nullptr, 0);
}

void tiletuneCudaFree(void *ptr) { mgpuMemFree(ptr, nullptr); }

int tiletuneCudaCopyToDevice(void *dst, const void *src, size_t bytes) {
  if (!ready())
    return 1;
  return check(rt().api.memcpy(reinterpret_cast<CUdeviceptr>(dst),
                               reinterpret_cast<CUdeviceptr>(src), bytes),
               "cuMemcpy (host to device)")
             ? 0
             : 1;
}

int tiletuneCudaCopyToHost(void *dst, const void *src, size_t bytes) {
  if (!ready())
    return 1;
  return check(rt().api.memcpy(reinterpret_cast<CUdeviceptr>(dst),
                               reinterpret_cast<CUdeviceptr>(src), bytes),
               "cuMemcpy (device to host)")
             ? 0
             : 1;
}

int tiletuneCudaSynchronize(void) {
  if (!ready())
    return 1;
  return check(rt().api.ctxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}

int tiletuneCudaProfileBegin(void) {
  if (!ready())
    return 1;
  Runtime &r = rt();
  std::lock_guard<std::mutex> lock(r.profileMutex);
  if (r.profiling) {
    recordError("tiletuneCudaProfileBegin: a profiling window is open");
    return 1;
  }
  if (!r.profileStream &&
      !check(r.api.streamCreate(&r.profileStream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate"))
    return 1;
  r.profileEvents.clear();
  r.profiling = true;
  return 0;
}

int tiletuneCudaProfileEnd(float *ms, int capacity) {
  Runtime &r = rt();
  std::vector<std::pair<CUevent, CUevent>> events;
  {
    std::lock_guard<std::mutex> lock(r.profileMutex);
    if (!r.profiling) {
      recordError("tiletuneCudaProfileEnd without tiletuneCudaProfileBegin");
      return -1;
    }
    r.profiling = false;
    events.swap(r.profileEvents);
  }
  bool ok = check(r.api.streamSynchronize(r.profileStream),
                  "cuStreamSynchronize (profiling stream)");
  int count = static_cast<int>(events.size());
  for (int i = 0; i < count; ++i) {
    float elapsed = 0.0f;
    if (ok && !check(r.api.eventElapsedTime(&elapsed, events[i].first,
                                            events[i].second),
                     "cuEventElapsedTime"))
      ok = false;
    if (ms && i < capacity)
      ms[i] = elapsed;
    r.api.eventDestroy(events[i].first);
    r.api.eventDestroy(events[i].second);
  }
  return ok ? count : -1;
}

} // extern "C"
