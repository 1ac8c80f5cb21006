/// @file
/// @brief t0 (y = A^T x): one thread per column, which is already coalesced.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"

namespace gemv {

/// @brief y[j] = sum_i A[i][j] x[i], one thread per column, i walked in order.
///
/// The mirror image of v0, with the opposite outcome: at one loop step the threads of a warp
/// read A[i][j], A[i][j+1], ... A[i][j+31], 128 consecutive bytes of row i. Coalesced without
/// any effort, because neighbouring outputs of A^T x use neighbouring elements of each row.
/// x[i] is the same address for the whole warp: one broadcast load.
// [kernel]
__global__ void gemvt_t0_thread_per_column(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K) {
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= K) return;
  float sum = 0.0f;
  for (std::int64_t i = 0; i < M; ++i) sum = fmaf(A[i * K + col], x[i], sum);
  y[col] = sum;
}
// [kernel]

/// @brief t0: one thread per output column of A^T x.
///
/// **Idea.** Output j is column j of A dotted with x; give it to thread j.
///
/// **What is wrong with it.** Not the access pattern: it is coalesced. The problem is the
/// amount of parallelism. There are only K threads: 16384 columns make 512 warps, 4 per SM of
/// an H100 that holds 64; 65536 x 1024 has 32 warps in the whole GPU. Each thread then walks
/// all M rows, one dependent FMA per row.
///
/// **Predicted.** Far below the roof on every listed shape, worst on 65536 x 1024 (a few % of
/// the copy bandwidth); best on 1024 x 65536 (2048 warps).
///
/// **Measured (H100 run at 0b38325).** 65536 x 1024: 7.27 ms, 37.0 GB/s, 1.23% of the copy roof,
/// 0.0150x cublasSgemv; 16384^2: 1.90 ms, 18.8%, 0.207x; 1024 x 65536: 0.152 ms, 58.8%, 0.680x;
/// 2097152 x 32 (32 threads in all): 213 ms. As predicted: far below the roof, worst on 65536 x
/// 1024 of the listed shapes and best on 1024 x 65536.
void launch_gemvt_t0_thread_per_column(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                       cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  constexpr int kThreads = 256;
  gemvt_t0_thread_per_column<<<tut::blocks_for(K, kThreads), kThreads, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
