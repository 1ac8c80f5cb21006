/// @file
/// @brief v00: one thread per element of C, consecutive threads on consecutive ROWS (uncoalesced).
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// @brief C = alpha * A B + beta * C, one thread per element of C, threadIdx.x walking down a column.
///
/// A block of 32 x 32 threads covers a 32 x 32 tile of C; thread (x, y) computes element
/// (row0 + x, col0 + y) as a K-long dot product of row `row` of A with column `col` of B, straight
/// from global memory. Any M, N, K: threads outside C return before touching memory.
// [kernel]
__global__ void __launch_bounds__(1024) gemm_v00_naive(int m, int n, int k, float alpha, const float* a,
                                                       const float* b, float beta, float* c) {
  const int row = blockIdx.y * 32 + threadIdx.x;  // consecutive threads of a warp: consecutive ROWS of C
  const int col = blockIdx.x * 32 + threadIdx.y;
  if (row >= m || col >= n) return;
  const float* a_row = a + static_cast<std::int64_t>(row) * k;  // A[row, 0..k)   (64-bit: m * k may exceed 2^31)
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc += a_row[p] * b[static_cast<std::int64_t>(p) * n + col];
  float* out = c + static_cast<std::int64_t>(row) * n + col;
  *out = axpby(acc, alpha, beta, out);
}
// [kernel]

/// @brief v00, the naive version: one thread per output, with the thread-to-element mapping backwards.
///
/// **Idea.** The definition of matrix multiplication, one thread per element of C.
///
/// **What is wrong with it.** The 32 threads of a warp have consecutive `threadIdx.x`, hence
/// consecutive *rows*: at each step p they read A[row, p] from 32 different rows (32 separate
/// 32-byte sectors for 128 useful bytes) and write C 32 rows apart. The B load is a broadcast
/// (one address for the warp). Each A sector is fetched for one float, and every thread re-reads
/// from memory (or L1, with luck) what its neighbours read: about 2 K loads per 2 K FLOPs, an
/// arithmetic intensity of ~0.25 FLOP/byte instead of the hundreds GEMM allows.
///
/// **Predicted.** Below 1% of cuBLAS SGEMM (well under 1 TFLOP/s on an H100): the load units and
/// L1 are saturated by scattered requests.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 0.49 TFLOP/s at
/// 1024^3 and 2048^3 (4.42 and 35.3 ms): 1.4% and 1.0% of cuBLAS SGEMM. Above 2048^3 the table
/// skips it (too slow).
void launch_gemm_v00_naive(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                          const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v00_naive<<<tile_grid(m, n, 32, 32), dim3(32, 32), 0, stream>>>(static_cast<int>(m), static_cast<int>(n),
                                                                        static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
