/// @file
/// @brief v02: 32 x 32 tiles of A and B staged in shared memory, one output per thread.
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// Side of v02's square tiles (of C, of A's row panel, of B's column panel).
constexpr int kV2Tile = 32;

/// @brief C = alpha * A B + beta * C with 32 x 32 shared-memory tiles; thread (x, y) computes C[row0 + y, col0 + x].
///
/// Each step of the k-loop, the block copies a 32 x 32 tile of A and one of B into shared memory
/// (one element of each per thread, coalesced), waits, and every thread does 32 multiply-adds
/// from shared memory. Out-of-range elements of an edge tile are stored as zeros, so the inner
/// loop never needs a bounds check; only the final store is guarded.
// [kernel]
__global__ void __launch_bounds__(1024) gemm_v02_smem_tiles(int m, int n, int k, float alpha, const float* a,
                                                            const float* b, float beta, float* c) {
  __shared__ float As[kV2Tile][kV2Tile];  // (rows of C, k)   A[row0.., k0..]
  __shared__ float Bs[kV2Tile][kV2Tile];  // (k, cols of C)   B[k0.., col0..]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kV2Tile + ty;
  const int col = blockIdx.x * kV2Tile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kV2Tile) {
    // Every thread stays in the loop (even outside C): all of them must reach __syncthreads().
    As[ty][tx] = (row < m && k0 + tx < k) ? a[static_cast<std::int64_t>(row) * k + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < k && col < n) ? b[static_cast<std::int64_t>(k0 + ty) * n + col] : 0.0f;
    __syncthreads();  // the tiles are complete
#pragma unroll
    for (int p = 0; p < kV2Tile; ++p) acc += As[ty][p] * Bs[p][tx];  // As: broadcast, Bs: 32 banks
    __syncthreads();  // everyone is done with the tiles before they are overwritten
  }
  if (row < m && col < n) {
    float* out = c + static_cast<std::int64_t>(row) * n + col;
    *out = axpby(acc, alpha, beta, out);
  }
}
// [kernel]

/// @brief v02: shared-memory tiling.
///
/// **Idea.** A block computes a 32 x 32 tile of C. The 32 rows of A and 32 columns of B it needs
/// are read from global memory once per block, into shared memory, and then used 32 times each.
/// Global traffic falls 32-fold compared with v01.
///
/// **Changed since v01.** The k-loop runs over 32-wide slices; each slice is staged in shared
/// memory by the whole block, with two barriers per slice.
///
/// **What is still wrong.** Each multiply-add now needs two shared-memory loads (one a
/// broadcast): the kernel is bound by shared-memory instructions, not by arithmetic. There is
/// one FFMA per two LDS, and the barriers stall the block twice per 32 FFMAs.
///
/// **Predicted.** 2-3x over v01, still under 15% of cuBLAS.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 8.45 TFLOP/s at
/// 1024^3, 9.13 at 2048^3, 8.73 at 4096^3 (1.4-1.5x over v01, not 2-3x): 25%, 18% and 17% of
/// cuBLAS SGEMM.
void launch_gemm_v02_smem_tiles(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                               const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v02_smem_tiles<<<tile_grid(m, n, kV2Tile, kV2Tile), dim3(kV2Tile, kV2Tile), 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
