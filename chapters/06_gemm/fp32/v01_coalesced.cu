/// @file
/// @brief v01: one thread per element of C, consecutive threads on consecutive COLUMNS (coalesced).
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// @brief C = alpha * A B + beta * C, one thread per element, threadIdx.x walking along a row of C.
///
/// The same dot product as v00; only the roles of threadIdx.x and threadIdx.y are swapped.
// [kernel]
__global__ void __launch_bounds__(1024) gemm_v01_coalesced(int m, int n, int k, float alpha, const float* a,
                                                           const float* b, float beta, float* c) {
  const int row = blockIdx.y * 32 + threadIdx.y;
  const int col = blockIdx.x * 32 + threadIdx.x;  // consecutive threads of a warp: consecutive COLUMNS of C
  if (row >= m || col >= n) return;
  const float* a_row = a + static_cast<std::int64_t>(row) * k;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc += a_row[p] * b[static_cast<std::int64_t>(p) * n + col];
  float* out = c + static_cast<std::int64_t>(row) * n + col;
  *out = axpby(acc, alpha, beta, out);
}
// [kernel]

/// @brief v01: coalesced thread mapping.
///
/// **Idea.** Give consecutive threads consecutive columns. At step p a warp now reads
/// B[p, col..col+31]: 128 contiguous bytes, one coalesced request. A[row, p] is the same address
/// for the whole warp: a broadcast. The stores to C are contiguous too.
///
/// **Changed since v00.** `threadIdx.x` indexes columns, `threadIdx.y` rows. Nothing else.
///
/// **What is still wrong.** Every thread still loads 2 K floats for 2 K FLOPs. Each element of A
/// is read by all N threads of its row, each element of B by all M threads of its column: the
/// data is reused only through the caches, and the kernel is bound by L1/L2 bandwidth.
///
/// **Predicted.** Several times faster than v00 (a few % of cuBLAS).
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 6.15 TFLOP/s at
/// 1024^3 (12.5x v00's 0.49), 6.53 at 2048^3, 5.87 at 4096^3: 18%, 13% and 11% of cuBLAS SGEMM.
void launch_gemm_v01_coalesced(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v01_coalesced<<<tile_grid(m, n, 32, 32), dim3(32, 32), 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
