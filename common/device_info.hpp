/// @file
/// @brief What GPU we run on, and its measured copy bandwidth (the roof of memory-bound kernels).
#pragma once

#include <cstddef>
#include <string>

#include "common/timing.hpp"

namespace tut {

/// The facts about the GPU that results are reported with.
struct DeviceInfo {
  int ordinal = 0;                 ///< CUDA device number
  std::string name;                ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;                ///< compute capability, major
  int cc_minor = 0;                ///< compute capability, minor
  int sm_count = 0;                ///< streaming multiprocessors
  std::size_t l2_bytes = 0;        ///< L2 cache size
  std::size_t global_bytes = 0;    ///< total device memory
  std::size_t free_bytes = 0;      ///< free device memory when queried
  double copy_gbps = 0.0;          ///< measured device-to-device copy, GB/s counting read + write (0: not measured)
  std::size_t copy_bytes = 0;      ///< size of each buffer of that copy measurement

  /// Compute capability as one number: 9.0 -> 90.
  int cc() const { return cc_major * 10 + cc_minor; }
};

/// True if a CUDA device can be used; otherwise false and `why` says what CUDA answered, or
/// "no NVIDIA driver or GPU found" (and why) when there is no driver at all, which CUDA reports
/// as an insufficient driver. Never throws: executables use it to exit cleanly with status 3 on
/// a machine with no GPU.
bool cuda_device_available(std::string* why = nullptr);

/// Properties of device `ordinal` (copy_gbps left at 0).
DeviceInfo query_device(int ordinal = 0);

/// Measures cudaMemcpy device-to-device over two buffers of `bytes` each and returns GB/s
/// counting bytes read plus bytes written (2 x bytes per copy). The median of the repetitions.
double measure_copy_gbps(std::size_t bytes, const TimingOptions& options, L2Flusher* flusher = nullptr);

/// Number of SMs of the current device (cached after the first call).
int current_sm_count();

/// Compute capability of the current device as 10 x major + minor, e.g. 90 (cached after the
/// first call).
int current_cc();

}  // namespace tut
