/// @file
/// @brief The cuBLAS baselines: SGEMM (fp32 FFMA), TF32 tensor cores, and BF16 tensor cores.
///
/// cuBLAS is column-major; our matrices are row-major. A row-major M x N matrix is the same
/// memory as a column-major N x M matrix, its transpose. So C = A B (row-major) is
/// C^T = B^T A^T (column-major): we ask cuBLAS for an N x M result with B as the first operand
/// (an N x K column-major matrix with leading dimension N) and A as the second (K x M, leading
/// dimension K). No data is moved; only the roles are swapped.
///
/// One handle per thread serves every call (common/cublas_handle.hpp). It is created on first use
/// (that is the untimed check run before timing); each call only binds it to the stream.
#include <cublas_v2.h>

#include <algorithm>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/cublas_handle.hpp"
#include "gemm.hpp"

namespace gemm {

namespace {

/// This thread's handle, bound to `stream` (common/cublas_handle.hpp). Default math mode: SGEMM
/// stays in true fp32 (TF32 only when asked for, below, by its compute type).
cublasHandle_t handle_on(cudaStream_t stream) { return tut::cublas_handle_on(stream, CUBLAS_DEFAULT_MATH); }

/// cuBLAS takes int dimensions.
void check_cublas_dims(std::int64_t m, std::int64_t n, std::int64_t k) { check_dims(m, n, k); }

}  // namespace

/// cuBLAS SGEMM, default math mode: fp32 inputs, fp32 FFMA on the CUDA cores.
void launch_cublas_sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                         const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_cublas_dims(m, n, k);
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
// [sgemm]
  // Column-major C^T (N x M) = B^T (N x K, ld N) * A^T (K x M, ld K).
  CUBLAS_CHECK(cublasSgemm(handle_on(stream), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, std::max(K, 1),
                           &beta, c, N));
// [sgemm]
}

/// cuBLAS with TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32): fp32 storage, TF32 multiplies,
/// fp32 accumulation. Given TF32-rounded inputs, as our v10 gets.
void launch_cublas_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                        const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_cublas_dims(m, n, k);
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  CUBLAS_CHECK(cublasGemmEx(handle_on(stream), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, CUDA_R_32F, N, a,
                            CUDA_R_32F, std::max(K, 1), &beta, c, CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32,
                            CUBLAS_GEMM_DEFAULT));
}

/// cuBLAS with BF16 inputs, fp32 accumulation and fp32 output (cublasGemmEx, CUDA_R_16BF).
void launch_cublas_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                        const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_cublas_dims(m, n, k);
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  CUBLAS_CHECK(cublasGemmEx(handle_on(stream), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, CUDA_R_16BF, N, a,
                            CUDA_R_16BF, std::max(K, 1), &beta, c, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

}  // namespace gemm
