/// @file
/// @brief Error checking for cuDNN calls (include only where cuDNN is found: TUT_HAVE_CUDNN, see
/// cmake/Cudnn.cmake).
#pragma once

#include <cudnn.h>

#include <string>

#include "common/check.hpp"

namespace tut {

/// Throws CudaError naming the call and cuDNN's message when status is not success.
inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) {
    throw CudaError(format_call_error(file, line, call, std::string("cuDNN: ") + cudnnGetErrorString(status)));
  }
}

}  // namespace tut

/// Checks a cuDNN call: `CUDNN_CHECK(cudnnCreate(&handle));`
#define CUDNN_CHECK(call) ::tut::check_cudnn((call), #call, __FILE__, __LINE__)
