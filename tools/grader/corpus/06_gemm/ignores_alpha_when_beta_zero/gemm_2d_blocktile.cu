// Known-wrong submission (grader corpus): issue 23's coverage door for gemm. The solution with one
// change: its own epilogue, whose beta == 0 branch stores the accumulator without alpha (written
// while thinking of C = A B). The old cases paired beta = 0 only with alpha = 1, where this is
// right. Caught by any case with beta == 0 and alpha != 1: the checker's cases vary alpha and
// beta independently (the parameters alpha and beta).
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "exercise.hpp"
#include "gemm_device.cuh"

namespace gemm {

namespace {

constexpr int BM = 128, BN = 128, BK = 8;        // block tile of C; k-slice staged in shared memory
constexpr int TM = 8, TN = 8;                    // outputs per thread: TM rows x TN columns of C
constexpr int kThreadsM = BM / TM;               // 16 thread rows ...
constexpr int kThreadsN = BN / TN;               // ... of 16 threads
constexpr int kThreads = kThreadsM * kThreadsN;  // 256
constexpr int kALoads = BM * BK / kThreads;      // 4 elements of the A tile per thread and slice
constexpr int kBLoads = BK * BN / kThreads;      // 4 elements of the B tile per thread and slice
constexpr int kAStride = BM + 4;                 // row length of the transposed A tile
static_assert(kALoads * kThreads == BM * BK && kBLoads * kThreads == BK * BN,
              "the tiles must split evenly over the threads");

/// C = alpha * A B + beta * C; thread (tx, ty) computes C[row0 + ty + 16 i, col0 + tx + 16 j], i, j < 8.
__global__ void __launch_bounds__(kThreads) blocktile_2d_kernel(int m, int n, int k, float alpha, const float* a,
                                                                const float* b, float beta, float* c) {
  __shared__ float As[BK][kAStride];  // (BK, BM + 4): A's tile transposed, A[row0 + r, k0 + kk] at As[kk][r]
  __shared__ float Bs[BK][BN];        // (BK, BN):     B's tile as it is,  B[k0 + kk, col0 + cc] at Bs[kk][cc]
  const int t = threadIdx.x;
  const int tx = t % kThreadsN, ty = t / kThreadsN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};  // acc[i][j] is C[row0 + ty + 16 i, col0 + tx + 16 j]
  for (int k0 = 0; k0 < k; k0 += BK) {
    // 1/2: load the tiles, zero outside the matrices; A lands transposed.
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int e = t + i * kThreads, r = e / BK, kk = e % BK;
      As[kk][r] = (row0 + r < m && k0 + kk < k) ? a[static_cast<std::int64_t>(row0 + r) * k + k0 + kk] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int e = t + i * kThreads, kk = e / BN, cc = e % BN;
      Bs[kk][cc] = (k0 + kk < k && col0 + cc < n) ? b[static_cast<std::int64_t>(k0 + kk) * n + col0 + cc] : 0.0f;
    }
    __syncthreads();

    // 2/2: per k of the slice, one outer product of 8 A values and 8 B values, 16 apart.
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float ra[TM], rb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = As[p][ty + i * kThreadsM];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = Bs[p][tx + j * kThreadsN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }

  // Given: the guarded epilogue. For fixed (i, j) a warp's 32 threads store two rows of 16
  // consecutive floats (coalesced).
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + ty + i * kThreadsM, col = col0 + tx + j * kThreadsN;
      if (row < m && col < n) {
        float* out = c + static_cast<std::int64_t>(row) * n + col;
        // BUG (on purpose): alpha is lost when beta == 0
        *out = beta == 0.0f ? acc[i][j] : fmaf(alpha, acc[i][j], beta * *out);
      }
    }
  }
}

}  // namespace

void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream) {
  if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX || (m + BM - 1) / BM > 65535) {
    throw std::invalid_argument("exercise_gemm_2d_blocktile: needs 0 <= m, n, k < 2^31 and m <= 65535 * 128");
  }
  if (m == 0 || n == 0) return;  // an empty C: nothing to compute
  const dim3 grid(static_cast<unsigned>((n + BN - 1) / BN), static_cast<unsigned>((m + BM - 1) / BM));
  blocktile_2d_kernel<<<grid, kThreads, 0, stream>>>(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                                                     alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
