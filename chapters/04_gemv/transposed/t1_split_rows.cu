/// @file
/// @brief t1 (y = A^T x): split the rows among the warps of a block and among blocks.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"

namespace gemv {

/// Columns per block (one per lane of a warp).
constexpr int kT1Cols = 32;
/// Warps per block: each takes every kT1Warps-th row of the block's row chunk.
constexpr int kT1Warps = 8;
/// Smallest row chunk a block takes.
constexpr std::int64_t kT1MinRows = 64;

/// @brief Partial y over a 2-D tile of A: block (bx, s) takes columns 32 bx .. 32 bx + 31 and
/// rows [s * rows, min(M, (s + 1) * rows)); warp w of the block takes rows w, w + 8, ... of
/// that range. The 8 warps' sums meet in shared memory; one per column then goes to y (atomicAdd
/// if the rows are split among several blocks, a store otherwise).
///
/// Thread (tx, ty) = (lane, warp). A warp reads 32 consecutive floats of one row: coalesced,
/// as in t0, but now 8 warps per 32 columns and many blocks per column strip.
// [kernel]
__global__ void gemvt_t1_split_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                    std::int64_t M, std::int64_t K, std::int64_t rows, bool accumulate) {
  __shared__ float partial[kT1Warps][kT1Cols];  // (warp, column)
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * kT1Cols + threadIdx.x;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * rows;
  const std::int64_t i1 = M - i0 < rows ? M : i0 + rows;
  float sum = 0.0f;
  if (col < K) {
    for (std::int64_t i = i0 + threadIdx.y; i < i1; i += kT1Warps) sum = fmaf(A[i * K + col], x[i], sum);
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && col < K) {
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kT1Warps; ++w) total += partial[w][threadIdx.x];
    if (accumulate) {
      atomicAdd(y + col, total);
    } else {
      y[col] = total;
    }
  }
}
// [kernel]

/// @brief t1: 8 warps per 32-column strip, and the rows cut into chunks across blocks.
///
/// **Idea.** t0 is coalesced but has only K threads. The sum over rows can be split like any
/// sum: give each 32-column strip 8 warps (rows interleaved), and cut the rows into S chunks
/// handled by different blocks, so that K / 32 x S blocks fill the GPU whatever the shape.
/// The partial sums meet in shared memory (within a block) and in y by atomicAdd (across
/// blocks; y is cleared first, inside the run).
///
/// **Changed since t0.** A 2-D grid (column strips x row chunks, S from plan_split()); a
/// shared-memory sum of the 8 warps; atomics when S > 1.
///
/// **What is still wrong.** Each lane loads 4 bytes per instruction: a warp moves 128 B per
/// load, a quarter of what a float4 load moves.
///
/// **Predicted.** Within reach of the roof on every shape: the parallelism problem is gone.
///
/// **Measured (H100 run at 0b38325).** 16384^2: 0.372 ms, 2890 GB/s, 96.1% of the copy roof, 1.05x
/// cublasSgemv; 8192^2: 80.9%, 0.957x; 65536 x 1024: 85.1%, 1.03x; 1024 x 65536: 85.5%, 0.989x;
/// 2097152 x 32: 83.2%, 1.05x; 4096^2: 0.0417 ms, 53.6%, 0.751x. As predicted, within reach of the
/// roof on every shape but 4096^2 (cuBLAS there: 71.4%), the shape t2-t5 work on.
void launch_gemvt_t1_split_rows(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  constexpr int kThreads = kT1Cols * kT1Warps;
  const std::int64_t strips = (K + kT1Cols - 1) / kT1Cols;
  const std::int64_t target = 2 * static_cast<std::int64_t>(tut::full_wave_blocks(gemvt_t1_split_rows, kThreads));
  const SplitPlan plan = plan_split(M, strips, target, kT1MinRows, 1);
  const bool accumulate = plan.splits > 1;
  if (accumulate) CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(K) * sizeof(float), stream));
  const dim3 grid(tut::blocks_for(K, kT1Cols), static_cast<unsigned>(plan.splits));
  gemvt_t1_split_rows<<<grid, dim3(kT1Cols, kT1Warps), 0, stream>>>(A, x, y, M, K, plan.chunk, accumulate);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
