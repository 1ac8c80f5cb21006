#include "common/device_info.hpp"

#include "common/check.hpp"
#include "common/device_buffer.hpp"

namespace tut {

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why != nullptr) *why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
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
