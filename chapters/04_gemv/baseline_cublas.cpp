// The vendor baseline: cublasSgemv for y = A x and y = A^T x, on this thread's cuBLAS handle
// (common/cublas_handle.hpp).
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/cublas_check.hpp"
#include "common/cublas_handle.hpp"
#include "gemv.hpp"

namespace gemv {

namespace {

int as_int(std::int64_t v, const char* what) {
  if (v > INT_MAX) throw std::invalid_argument(std::string("cublasSgemv: ") + what + " does not fit in an int");
  return static_cast<int>(v);
}

// [cublas_call]
/// cublasSgemv on cuBLAS's K x M (column-major, lda = K) view of our A. Matrices of more than
/// 2^31 elements go through the 64-bit API (cuBLAS 12+), so no index inside cuBLAS can wrap.
void gemv_call(cublasHandle_t h, cublasOperation_t op, std::int64_t M, std::int64_t K, const float* alpha,
               const float* A, const float* x, const float* beta, float* y) {
  if (M * K <= INT_MAX) {
    CUBLAS_CHECK(cublasSgemv(h, op, as_int(K, "K"), as_int(M, "M"), alpha, A, as_int(K, "K"), x, 1, beta, y, 1));
    return;
  }
#if CUBLAS_VER_MAJOR >= 12
  CUBLAS_CHECK(cublasSgemv_64(h, op, K, M, alpha, A, K, x, 1, beta, y, 1));
#else
  throw std::invalid_argument("cublasSgemv: more than 2^31 elements needs cuBLAS 12's 64-bit API");
#endif
}
// [cublas_call]

}  // namespace

cublasHandle_t cublas_handle() { return tut::cublas_handle_on(nullptr); }

// cuBLAS is column-major. Our A is row-major M x K with row stride K: read column-major with
// leading dimension K, the same bytes are a K x M matrix, namely A^T. So:
//   y = A x   = (A^T)^T x  ->  cublasSgemv(CUBLAS_OP_T, m = K, n = M, lda = K)   (x: K, y: M)
//   y = A^T x              ->  cublasSgemv(CUBLAS_OP_N, m = K, n = M, lda = K)   (x: M, y: K)
// beta = 0: y is only written (BLAS does not read y when beta is zero, so its NaN poison is fine).

// [cublas]
void launch_cublas_gemv_ax(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                           cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  gemv_call(tut::cublas_handle_on(stream), CUBLAS_OP_T, M, K, &alpha, A, x, &beta, y);
}

void launch_cublas_gemv_atx(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                            cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  gemv_call(tut::cublas_handle_on(stream), CUBLAS_OP_N, M, K, &alpha, A, x, &beta, y);
}
// [cublas]

}  // namespace gemv
