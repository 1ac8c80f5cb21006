// The vendor baselines: cudaMemcpy device-to-device (the same bytes, no transposition: the
// bandwidth roof) and cublasSgeam with transposition.
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/cublas_handle.hpp"
#include "transpose.hpp"

namespace transpose {

/// @brief B = A (R x C floats) with cudaMemcpyAsync device-to-device: the driver's copy moves
/// the same 2 x 4 R C bytes as a transpose, the roof of the table.
void launch_copy_memcpy(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  CUDA_CHECK(cudaMemcpyAsync(B, A, static_cast<std::size_t>(R) * static_cast<std::size_t>(C) * sizeof(float),
                             cudaMemcpyDeviceToDevice, stream));
}

/// @brief B = A^T with cublasSgeam, cuBLAS's C = alpha op(A) + beta op(B).
///
/// cuBLAS is column-major. Our A (row-major R x C) is, read column-major with leading dimension
/// C, a C x R matrix: A^T. Our B (row-major C x R) is, read column-major with leading dimension
/// R, an R x C matrix. So B_colmajor = (A_colmajor)^T: transa = CUBLAS_OP_T, m = R, n = C,
/// lda = C, ldc = R. geam also adds beta op(B'): we pass beta = 0 and, as B', the input A
/// itself with the same transposition (a valid, finite matrix of the right shape; a null
/// pointer is not allowed, and passing the NaN-poisoned output would be read as 0 * NaN if
/// cuBLAS did not skip the term).
// [geam]
void launch_cublas_geam(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  cublasHandle_t h = tut::cublas_handle_on(stream);  // this thread's, created on the untimed first run
  if (R * C <= INT_MAX) {
    CUBLAS_CHECK(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_T, static_cast<int>(R), static_cast<int>(C), &alpha, A,
                             static_cast<int>(C), &beta, A, static_cast<int>(C), B, static_cast<int>(R)));
  } else {
#if CUBLAS_VER_MAJOR >= 12
    CUBLAS_CHECK(cublasSgeam_64(h, CUBLAS_OP_T, CUBLAS_OP_T, R, C, &alpha, A, C, &beta, A, C, B, R));  // > 2^31 elements
#else
    throw std::invalid_argument("cublasSgeam: more than 2^31 elements needs cuBLAS 12's 64-bit API");
#endif
  }
}
// [geam]

}  // namespace transpose
