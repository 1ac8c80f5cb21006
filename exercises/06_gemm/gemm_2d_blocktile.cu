/// @file
/// @brief Exercise (chapter 06): the 2-D register-blocked shared-memory GEMM.
///
/// Your task: fill in the two TODO(student) blocks of blocktile_2d_kernel so that
/// C = alpha * A B + beta * C for ANY m, n, k (1 x 1 x 1, 17 x 33 x 9, 129 x 129 x 129, ...).
///
///  - Read chapters/06_gemm/README.md, sections "v3" and "v4", first.
///  - Run the tests:   ctest --preset exercise -R gemm
///    (or build/bin/test_gemm_exercise). They fail until you are done, then pass.
///  - Compare speeds:  build/bin/gemm --version exercise --version solution --version v4_blocktile_2d
///
/// The layout (everything outside the two TODOs is given and correct):
///  - a block of 256 threads computes a 128 x 128 tile of C, starting at (row0, col0);
///  - the k dimension is walked in slices of BK = 8: per slice the block copies A[row0 .. +127,
///    k0 .. +7] into As and B[k0 .. +7, col0 .. +127] into Bs, waits, computes, waits;
///  - thread (tx, ty) = (t % 16, t / 16) accumulates the 8 x 8 outputs
///    C[row0 + ty*8 + i, col0 + tx*8 + j] in acc[i][j].
///
/// Budget per slice and thread: 4 global loads of A and 4 of B (1024 elements per tile over 256
/// threads), then per k of the slice 8 + 8 shared loads and 64 multiply-adds, all in registers.
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
  [[maybe_unused]] __shared__ float As[BM][BK];  // A[row0 + r, k0 + kk] at As[r][kk]
  [[maybe_unused]] __shared__ float Bs[BK][BN];  // B[k0 + kk, col0 + cc] at Bs[kk][cc]
  const int t = threadIdx.x;
  const int tx = t % (BN / TN), ty = t / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    // TODO(student) 1/2 -- load the tiles (about 8 lines):
    //   for i in [0, kALoads): element e = t + i * kThreads of the A tile is (r, kk) = (e / BK, e % BK);
    //     As[r][kk] = A[row0 + r, k0 + kk] if row0 + r < m and k0 + kk < k, else 0.0f.
    //   for i in [0, kBLoads): element e = t + i * kThreads of the B tile is (kk, cc) = (e / BN, e % BN);
    //     Bs[kk][cc] = B[k0 + kk, col0 + cc] if k0 + kk < k and col0 + cc < n, else 0.0f.
    //   A is row-major m x k: A[r, c] is a[static_cast<std::int64_t>(r) * k + c] (64-bit: m * k may
    //   exceed 2^31); B is row-major k x n. Zeros outside the matrix keep the math below check-free.
    [[maybe_unused]] const int loads_per_thread = kALoads + kBLoads;
    __syncthreads();

    // TODO(student) 2/2 -- the outer products (about 10 lines):
    //   for p in [0, BK): copy this thread's column of A, ra[i] = As[ty * TM + i][p] (i < TM), and
    //   its row of B, rb[j] = Bs[p][tx * TN + j] (j < TN), into registers; then
    //   acc[i][j] += ra[i] * rb[j] for all i, j. Add #pragma unroll to every loop: with constant
    //   trip counts the arrays stay in registers.
    __syncthreads();
  }

  // Given: the guarded epilogue.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + ty * TM + i, col = col0 + tx * TN + j;
      if (row < m && col < n) {
        float* out = c + static_cast<std::int64_t>(row) * n + col;
        *out = axpby(acc[i][j], alpha, beta, out);
      }
    }
  }
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
