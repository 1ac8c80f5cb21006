/// @file
/// @brief v04: 2-D register blocking: a 128 x 128 block tile, an 8 x 8 tile of C per thread.
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v04's tile sizes (the exercise has the same sizes, but places a thread's 8 x 8 outputs otherwise).
// [tiles]
namespace v4 {
constexpr int BM = 128;                          ///< rows of C per block
constexpr int BN = 128;                          ///< columns of C per block
constexpr int BK = 8;                            ///< k-slice staged per step
constexpr int TM = 8;                            ///< rows of C per thread
constexpr int TN = 8;                            ///< columns of C per thread
constexpr int kThreads = (BM / TM) * (BN / TN);  ///< 256
constexpr int kALoads = BM * BK / kThreads;      ///< elements of A's tile each thread loads (4)
constexpr int kBLoads = BK * BN / kThreads;      ///< elements of B's tile each thread loads (4)
static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0, "v04: tiles must split evenly over the threads");
}  // namespace v4
// [tiles]

/// @brief C = alpha * A B + beta * C; a 128 x 128 tile per block of 256 threads, 8 x 8 outputs per thread.
///
/// Thread (tx, ty) = (t % 16, t / 16) owns rows ty*8 .. ty*8+7 and columns tx*8 .. tx*8+7 of the
/// block tile. Per k-step it loads 8 values of A and 8 of B from shared memory into registers
/// and does their 64 products (an outer product): 16 loads for 64 FFMAs.
// [kernel]
__global__ void __launch_bounds__(v4::kThreads) gemm_v04_blocktile_2d(int m, int n, int k, float alpha,
                                                                       const float* a, const float* b, float beta,
                                                                       float* c) {
  using namespace v4;
  __shared__ float As[BM][BK];  // (BM, BK): A[row0 .., k0 ..], as in global memory
  __shared__ float Bs[BK][BN];  // (BK, BN): B[k0 .., col0 ..]
  const int t = threadIdx.x;
  const int tx = t % (BN / TN), ty = t / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    // Load: element e = t + i * 256 of each tile; consecutive threads take consecutive elements
    // of a row (coalesced). Outside the matrix: zero, so the math below needs no checks.
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int e = t + i * kThreads, r = e / BK, kk = e % BK;
      As[r][kk] = (row0 + r < m && k0 + kk < k) ? a[static_cast<std::int64_t>(row0 + r) * k + k0 + kk] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int e = t + i * kThreads, kk = e / BN, cc = e % BN;
      Bs[kk][cc] = (k0 + kk < k && col0 + cc < n) ? b[static_cast<std::int64_t>(k0 + kk) * n + col0 + cc] : 0.0f;
    }
    __syncthreads();
    // Compute: per k, a column of 8 A values and a row of 8 B values -> 64 multiply-adds.
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float ra[TM], rb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = As[ty * TM + i][p];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = Bs[p][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + ty * TM + i;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int col = col0 + tx * TN + j;
      if (row < m && col < n) {
        float* out = c + static_cast<std::int64_t>(row) * n + col;
        *out = axpby(acc[i][j], alpha, beta, out);
      }
    }
  }
}
// [kernel]

/// @brief v04: 2-D register blocking (the outer-product formulation).
///
/// **Idea.** Square the thread tile. With TM x TN outputs per thread, a k-step needs TM values of
/// A and TN of B (TM + TN loads) for TM * TN FFMAs: 16 loads for 64 FFMAs at 8 x 8, four times
/// v03's reuse. The block tile grows to 128 x 128, so every element loaded from global memory
/// serves 128 FFMAs (arithmetic intensity 32 FLOP/byte of global traffic).
///
/// **Changed since v03.** 8 x 8 accumulators per thread (64 registers), 128 x 128 block tile, 256
/// threads; each thread loads 4 elements of each tile per step.
///
/// **What is still wrong.** Every shared-memory load is a 4-byte LDS: 16 LDS per 64 FFMA. Worse,
/// a warp's B reads `Bs[p][tx * 8 + j]` hit addresses 8 floats apart, so four threads share each
/// bank (a 4-way bank conflict), and its A reads are 2-way conflicted. The global loads are
/// 4-byte too. The scalar index arithmetic costs registers: about 150 per thread (the resource
/// report prints the count), so only one block of 256 threads fits on an SM; capped at 128 with
/// `__launch_bounds__(256, 2)`, this kernel spills.
///
/// **Predicted.** 2x over v03, around half of cuBLAS.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 21.56 TFLOP/s at
/// 4096^3 (1.3x over v03, not 2x), 42% of cuBLAS SGEMM; 21.97 at 8192^3 (43%). At 1024^3 it is
/// slower than v03 (9.77 against 15.79 TFLOP/s): 64 block tiles for 132 SMs (the chapter page
/// explains it).
void launch_gemm_v04_blocktile_2d(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                 const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v04_blocktile_2d<<<tile_grid(m, n, v4::BM, v4::BN), v4::kThreads, 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
