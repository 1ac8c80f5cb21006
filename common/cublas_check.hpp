/// @file
/// @brief Error checking for cuBLAS calls (include only where cuBLAS is linked).
#pragma once

#include <cublas_v2.h>

#include <string>

#include "common/check.hpp"

namespace tut {

/// Throws CudaError naming the call and cuBLAS's status string when status is not success.
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaError(format_call_error(file, line, call, std::string("cuBLAS: ") + cublasGetStatusString(status)));
  }
}

}  // namespace tut

/// Checks a cuBLAS call: `CUBLAS_CHECK(cublasSgemm(...));`
#define CUBLAS_CHECK(call) ::tut::check_cublas((call), #call, __FILE__, __LINE__)
