/// @file
/// @brief v03: 1-D register blocking: each thread computes a column of 8 outputs.
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v03's tile sizes: a 64 x 64 block tile of C, k-slices of 8, 8 outputs per thread (a column).
namespace v3 {
constexpr int BM = 64;                       ///< rows of C per block
constexpr int BN = 64;                       ///< columns of C per block
constexpr int BK = 8;                        ///< k-slice staged per step
constexpr int TM = 8;                        ///< outputs per thread (consecutive rows, one column)
constexpr int kThreads = BM * BN / TM;       ///< 512
static_assert(kThreads == BM * BK && kThreads == BK * BN, "v03: each thread loads one element of each tile");
}  // namespace v3

/// @brief C = alpha * A B + beta * C; a 64 x 64 tile per block, a 8 x 1 column of C per thread.
///
/// Thread t owns column `t % 64` and rows `(t / 64) * 8 .. + 7` of the block's tile. Per k-step
/// it reads one B value from shared memory and reuses it for its 8 rows, held in registers.
// [kernel]
__global__ void __launch_bounds__(v3::kThreads) gemm_v03_blocktile_1d(int m, int n, int k, float alpha,
                                                                       const float* a, const float* b, float beta,
                                                                       float* c) {
  using namespace v3;
  __shared__ float As[BM][BK];  // (BM, BK): A[row0 .. row0+63, k0 .. k0+7]
  __shared__ float Bs[BK][BN];  // (BK, BN): B[k0 .. k0+7, col0 .. col0+63]
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tc = t % BN;        // this thread's column in the tile
  const int tr = (t / BN) * TM; // its first row in the tile (a warp shares it: As reads are broadcasts)
  const int ar = t / BK, ak = t % BK;  // the element of A's tile it loads: (ar, ak)
  const int bk = t / BN, bc = t % BN;  // the element of B's tile it loads: (bk, bc)

  float acc[TM] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    As[ar][ak] = (row0 + ar < m && k0 + ak < k) ? a[static_cast<std::int64_t>(row0 + ar) * k + k0 + ak] : 0.0f;
    Bs[bk][bc] = (k0 + bk < k && col0 + bc < n) ? b[static_cast<std::int64_t>(k0 + bk) * n + col0 + bc] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const float bv = Bs[p][tc];  // one shared load ...
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] += As[tr + i][p] * bv;  // ... serves TM multiply-adds
    }
    __syncthreads();
  }
  const int col = col0 + tc;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + tr + i;
    if (row < m && col < n) {
      float* out = c + static_cast<std::int64_t>(row) * n + col;
      *out = axpby(acc[i], alpha, beta, out);
    }
  }
}
// [kernel]

/// @brief v03: 1-D register blocking (several outputs per thread).
///
/// **Idea.** Make each thread compute TM = 8 outputs of one column instead of one. The B value
/// it loads from shared memory at step p serves 8 multiply-adds; the 8 partial sums live in
/// registers. Per thread and k-step: 1 + 8 shared loads (the 8 A loads are warp-wide
/// broadcasts) for 8 FFMAs, instead of 2 loads per FFMA.
///
/// **Changed since v02.** Block tile 64 x 64 with 512 threads, k-slices of 8; each thread loads
/// one element of each tile and keeps an 8-entry accumulator array (fully unrolled, so it is
/// registers, not local memory: the resource test checks there is no spill).
///
/// **What is still wrong.** The 8 A reads per step are still one LDS each; only B is reused.
/// A thread tile that is square reuses both operands: that is v04.
///
/// **Predicted.** About 2-3x over v02 (a quarter of cuBLAS or so).
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 16.26 TFLOP/s at
/// 4096^3 (1.9x over v02's 8.73), 31% of cuBLAS SGEMM; 16.07 at 8192^3, 15.79 at 1024^3 (47%: its
/// 256 blocks of 64 x 64 fill the 132 SMs where later, larger tiles do not).
void launch_gemm_v03_blocktile_1d(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                 const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v03_blocktile_1d<<<tile_grid(m, n, v3::BM, v3::BN), v3::kThreads, 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
