/// @file
/// @brief One cuBLAS handle per thread, bound to the caller's stream: what every cuBLAS baseline
/// of the chapters calls (gemv, transpose, gemm and attention).
///
/// **Why one per thread.** A cuBLAS handle holds state that every call reads: the stream it is
/// bound to (cublasSetStream), its math mode, its workspace. Two threads sharing one handle would
/// rebind each other's stream between a cublasSetStream and the GEMM it was meant for. cuBLAS's
/// own advice is one handle per thread (and per device); a `thread_local` gives exactly that,
/// created on the thread's first call and destroyed when the thread ends (for the main thread: at
/// exit, before the CUDA runtime shuts down, since it is created after the runtime is).
///
/// **Why the math mode is set on every call.** The math mode decides whether cuBLAS may use
/// reduced precision behind the caller's back: with CUBLAS_DEFAULT_MATH an fp32 SGEMM stays true
/// fp32 on the CUDA cores, while CUBLAS_TF32_TENSOR_OP_MATH lets it round to TF32 on the tensor
/// cores. A baseline that claims "fp32" must not silently become TF32, so each caller states the
/// mode it is measured in, and one caller's choice never leaks into another's.
///
/// Creation costs milliseconds: the chapters make their first call in the untimed check that
/// precedes every timing, so no timed repetition pays for it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "common/cublas_check.hpp"

namespace tut {

/// Owns one cuBLAS handle (created in the constructor, destroyed in the destructor).
class CublasHandle {
 public:
  /// Creates the handle (cublasCreate).
  CublasHandle() { CUBLAS_CHECK(cublasCreate(&handle_)); }
  /// Destroys it (errors at teardown are ignored: nothing could be done about them).
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  CublasHandle(const CublasHandle&) = delete;             ///< one owner
  CublasHandle& operator=(const CublasHandle&) = delete;  ///< one owner
  /// The handle.
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// This thread's cuBLAS handle, bound to `stream` and set to `math` (see the file comment for
/// why both are set on every call); created on the thread's first call.
inline cublasHandle_t cublas_handle_on(cudaStream_t stream, cublasMath_t math = CUBLAS_DEFAULT_MATH) {
  thread_local CublasHandle handle;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasSetMathMode(handle.get(), math));
  return handle.get();
}

}  // namespace tut
