#include "common/device_info.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>

#include "common/check.hpp"
#include "common/device_buffer.hpp"

namespace tut {
namespace {

bool path_exists(const char* path) {
  struct stat st {};
  return stat(path, &st) == 0;
}

/// A CUDA version number as text: 12020 -> "12.2".
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// Why cudaGetDeviceCount() failed with `status`, in words that send the user the right way.
/// CUDA answers cudaErrorInsufficientDriver ("CUDA driver version is insufficient") both when
/// the driver is too old and when there is no driver at all: tell the two apart, so that a
/// machine without a GPU does not send anyone to upgrade a driver.
std::string device_error_text(cudaError_t status) {
  const std::string cuda = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  if (status == cudaErrorStubLibrary) {
    return "no NVIDIA driver or GPU found: the libcuda.so.1 found is the CUDA toolkit's stub "
           "(lib64/stubs/libcuda.so), not a driver";
  }
  if (status != cudaErrorInsufficientDriver && status != cudaErrorNoDevice) return cuda;

  // The driver is its user-space library (libcuda.so.1) plus a loaded kernel module, which
  // creates /proc/driver/nvidia (WSL has /dev/dxg instead).
  void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda != nullptr) dlclose(libcuda);
  const bool module_loaded = path_exists("/proc/driver/nvidia/version") || path_exists("/dev/dxg");
  if (libcuda == nullptr) {
    return "no NVIDIA driver or GPU found: the driver's library libcuda.so.1 is not installed";
  }
  if (!module_loaded) {
    return "no NVIDIA driver or GPU found: libcuda.so.1 is installed but the NVIDIA kernel driver is not "
           "loaded: no /proc/driver/nvidia/version";
  }
  if (status == cudaErrorNoDevice) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return "no NVIDIA GPU found: the driver is loaded but reports no device" +
           (visible != nullptr ? std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')" : std::string()) +
           "; " + cuda;
  }
  // A driver is there and too old for this toolkit's runtime.
  int driver = 0, runtime = 0;
  std::string versions;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 && cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    versions = ": it supports CUDA " + cuda_version_text(driver) + ", this program was built with CUDA " +
               cuda_version_text(runtime);
  }
  return cuda + "; the NVIDIA driver is older than this CUDA toolkit needs" + versions + "; install a newer driver";
}

}  // namespace

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why != nullptr) *why = device_error_text(status);
    cudaGetLastError();  // clear the error so later calls do not report it
    return false;
  }
  if (count == 0) {
    if (why != nullptr) *why = "the CUDA runtime found no devices";
    return false;
  }
  return true;
}

DeviceInfo query_device(int ordinal) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  CUDA_CHECK(cudaSetDevice(ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_bytes = prop.totalGlobalMem;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  info.free_bytes = free_bytes;
  return info;
}

double measure_copy_gbps(std::size_t bytes, const TimingOptions& options, L2Flusher* flusher) {
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  cudaStream_t stream = nullptr;
  const TimingStats t = time_on_stream(
      [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
      },
      options, stream, flusher);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
}

int current_sm_count() {
  static int cached_device = -1;
  static int cached_count = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != cached_device) {
    CUDA_CHECK(cudaDeviceGetAttribute(&cached_count, cudaDevAttrMultiProcessorCount, device));
    cached_device = device;
  }
  return cached_count;
}

int current_cc() {
  static int cached_device = -1;
  static int cached_cc = 0;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != cached_device) {
    int major = 0, minor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    cached_cc = 10 * major + minor;
    cached_device = device;
  }
  return cached_cc;
}

}  // namespace tut
