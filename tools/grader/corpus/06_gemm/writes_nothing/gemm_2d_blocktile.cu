// Known-wrong submission (grader corpus): the tile loads and the outer products are right, but the epilogue that writes
// alpha * acc + beta * C to C is missing, so nothing reaches C: with beta = 0 the tests' NaN
// poison stays, with beta != 0 the old C.
#include <cstdint>

#include "common/check.hpp"
#include "exercise.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

namespace {

constexpr int BM = 128, BN = 128, BK = 8;  // block tile of C, k-slice staged in shared memory
constexpr int TM = 8, TN = 8;              // register tile of C per thread
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kALoads = BM * BK / kThreads;      // 4 elements of the A tile per thread
constexpr int kBLoads = BK * BN / kThreads;      // 4 elements of the B tile per thread

/// C = alpha * A B + beta * C; thread (tx, ty) computes C[row0 + ty*8 + i, col0 + tx*8 + j], i, j < 8.
__global__ void __launch_bounds__(kThreads) blocktile_2d_kernel(int m, int n, int k, float alpha, const float* a,
                                                                const float* b, float beta, float* c) {
  __shared__ float As[BM][BK];  // A[row0 + r, k0 + kk] at As[r][kk]
  __shared__ float Bs[BK][BN];  // B[k0 + kk, col0 + cc] at Bs[kk][cc]
  const int t = threadIdx.x;
  const int tx = t % (BN / TN), ty = t / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    // 1/2: load the tiles, zero outside the matrices.
    for (int i = 0; i < kALoads; ++i) {
      const int e = t + i * kThreads, r = e / BK, kk = e % BK;
      As[r][kk] = (row0 + r < m && k0 + kk < k) ? a[static_cast<std::int64_t>(row0 + r) * k + k0 + kk] : 0.0f;
    }
    for (int i = 0; i < kBLoads; ++i) {
      const int e = t + i * kThreads, kk = e / BN, cc = e % BN;
      Bs[kk][cc] = (k0 + kk < k && col0 + cc < n) ? b[static_cast<std::int64_t>(k0 + kk) * n + col0 + cc] : 0.0f;
    }
    __syncthreads();

    // 2/2: the outer products, one per k of the slice.
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

  // BUG: the epilogue (storing alpha * acc + beta * C to C) is missing.
  (void)acc;
  (void)alpha;
  (void)beta;
  (void)c;
}

}  // namespace

void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  blocktile_2d_kernel<<<tile_grid(m, n, BM, BN), kThreads, 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
