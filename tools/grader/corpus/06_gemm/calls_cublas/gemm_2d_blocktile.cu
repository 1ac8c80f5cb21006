// Known-wrong submission (grader corpus): door 3 of issue 23. It calls cublasSgemm instead of
// writing the kernel (row-major C = alpha A B + beta C is column-major C^T = alpha B^T A^T +
// beta C^T, so the operands swap). It compiles (cublas_v2.h is in the CUDA Toolkit), but the
// runner links the harness and this file only, not cuBLAS: the link fails with undefined
// references to cublasCreate_v2, cublasSetStream_v2 and cublasSgemm_v2, and the grader reports a
// compile error that names them. (The old grader linked cuBLAS into the exercise's program.)
#include <cublas_v2.h>

#include <cstdint>
#include <stdexcept>

#include "exercise.hpp"

namespace gemm {

void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    return h;
  }();
  cublasSetStream(handle, stream);
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta, c, N) !=
      CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error("cublasSgemm failed");
  }
}

}  // namespace gemm
