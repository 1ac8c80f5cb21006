/// @file
/// @brief Exercise (chapter 06): 2-D register blocking, on a strided thread tile.
///
/// Your task: fill in the two TODO(student) blocks of blocktile_2d_kernel so that
/// C = alpha * A B + beta * C for ANY m, n, k (1 x 1 x 1, 17 x 33 x 9, 129 x 129 x 129, ...),
/// any alpha and beta, and A, B, C starting at any float address.
///
///  - The idea is on the chapter page (chapters/06_gemm/README.md), sections "v04: 2-D register
///    blocking" and "Exercise: 2-D register blocking on a strided thread tile".
///  - Check and time it, in one command (it rebuilds what you changed):
///        python3 tools/exercise.py gemm
///    It fails until you are done, then passes and compares your speed with the solution's.
///
/// The layout (everything outside the two TODOs is given and correct):
///  - a block of 256 threads computes a 128 x 128 tile of C, starting at (row0, col0);
///  - the k dimension is walked in slices of BK = 8: per slice the block copies A[row0 .. +127,
///    k0 .. +7] into As, TRANSPOSED (As[kk][r] holds A[row0 + r, k0 + kk]), and B[k0 .. +7,
///    col0 .. +127] into Bs as it is; waits; computes; waits;
///  - thread (tx, ty) = (t % 16, t / 16) accumulates 8 x 8 outputs that are NOT side by side:
///    acc[i][j] is C[row0 + ty + 16 i, col0 + tx + 16 j] (i, j < 8), a lattice with stride 16
///    (see the epilogue at the bottom).
///
/// Budget per slice and thread: 4 global loads of A and 4 of B (1024 elements per tile over 256
/// threads), then per k of the slice 8 + 8 shared loads and 64 multiply-adds, all in registers.
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
  [[maybe_unused]] __shared__ float As[BK][kAStride];  // A's tile transposed: A[row0 + r, k0 + kk] at As[kk][r]
  [[maybe_unused]] __shared__ float Bs[BK][BN];        // B's tile as it is:   B[k0 + kk, col0 + cc] at Bs[kk][cc]
  const int t = threadIdx.x;
  const int tx = t % kThreadsN, ty = t / kThreadsN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  float acc[TM][TN] = {};  // acc[i][j] is C[row0 + ty + 16 i, col0 + tx + 16 j]
  for (int k0 = 0; k0 < k; k0 += BK) {
    // TODO(student) 1/2 -- load the tiles (about 8 lines):
    //   for i in [0, kALoads): element e = t + i * kThreads of the A tile is (r, kk) = (e / BK, e % BK);
    //     As[kk][r] = A[row0 + r, k0 + kk] if row0 + r < m and k0 + kk < k, else 0.0f (note: transposed).
    //   for i in [0, kBLoads): element e = t + i * kThreads of the B tile is (kk, cc) = (e / BN, e % BN);
    //     Bs[kk][cc] = B[k0 + kk, col0 + cc] if k0 + kk < k and col0 + cc < n, else 0.0f.
    //   A is row-major m x k: A[r, c] is a[static_cast<std::int64_t>(r) * k + c] (64-bit: m * k may
    //   exceed 2^31); B is row-major k x n. Zeros outside the matrices keep the math below check-free.
    __syncthreads();

    // TODO(student) 2/2 -- the outer products (about 10 lines):
    //   for p in [0, BK): copy into registers the 8 values of A this thread needs at step p, one per
    //   row of its lattice (ra[i], i < TM), and the 8 values of B, one per column (rb[j], j < TN);
    //   then acc[i][j] += ra[i] * rb[j] for all i, j. The epilogue below says which rows and
    //   columns are this thread's. Add #pragma unroll to every loop: with constant trip counts the
    //   arrays stay in registers.
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
        *out = axpby(acc[i][j], alpha, beta, out);
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
