/// @file
/// @brief Error checking for CUDA runtime calls and kernel launches.
///
/// Every CUDA call in the tutorial goes through CUDA_CHECK, and every launch is followed by
/// CUDA_CHECK_LAUNCH, so a failure names the file, the line, the call and CUDA's own message.
/// Failures throw tut::CudaError: executables turn it into exit status 4, tests into a failure.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tut {

/// Thrown when a CUDA (or CUDA library) call fails. what() reads "file:line: call: message".
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Builds the "file:line: call failed: message" text used by every checker.
std::string format_call_error(const char* file, int line, const char* call, const std::string& message);

/// Throws CudaError for a failed CUDA runtime call; does nothing on cudaSuccess.
inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(format_call_error(file, line, call,
                                      std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status)));
  }
}

}  // namespace tut

/// Checks a CUDA runtime call: `CUDA_CHECK(cudaMalloc(&p, bytes));`
#define CUDA_CHECK(call) ::tut::check_cuda((call), #call, __FILE__, __LINE__)

/// Checks the launch that precedes it (bad configuration, missing kernel image, ...).
/// Asynchronous faults inside the kernel show up at the next synchronizing call.
#define CUDA_CHECK_LAUNCH() ::tut::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
