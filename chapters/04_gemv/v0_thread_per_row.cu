/// @file
/// @brief v0: one thread per row (the uncoalesced mapping).
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"

namespace gemv {

/// @brief y[i] = sum_k A[i][k] x[k], one thread per row, k walked in order.
///
/// Thread i reads row i from start to end. At one loop step the 32 threads of a warp read
/// A[i][k], A[i+1][k], ... A[i+31][k]: 32 addresses K floats apart, so one warp-wide load
/// touches 32 different 32-byte sectors and uses 4 bytes of each. The L1 cache may keep the
/// rest of those sectors for the next steps, but with thousands of rows in flight it cannot
/// keep all of them.
// [kernel]
__global__ void gemv_v0_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const float* a = A + row * K;  // 64-bit: row * K passes 2^31 on large matrices
  float sum = 0.0f;
  for (std::int64_t k = 0; k < K; ++k) sum = fmaf(a[k], x[k], sum);
  y[row] = sum;
}
// [kernel]

/// @brief v0, the naive version: one thread computes one output, reading its row alone.
///
/// **Idea.** The mapping from the formula: output i is a dot product, give it to thread i.
///
/// **What is wrong with it.** Coalescing is across threads, not along a thread's loop: the warp
/// reads a column of 32 rows at every step, 32 sectors per request instead of 4. Also only M
/// threads exist: 1024 rows give 32 warps for a GPU that holds thousands.
///
/// **Predicted.** A small fraction of the copy bandwidth (~10-25% at 16384^2, where L1 rescues
/// part of each sector), and far less on 1024 x 65536 (32 warps in the whole GPU).
///
/// **Measured (H100 run at 0b38325).** 16384^2: 2.27 ms, 473 GB/s, 15.7% of the copy roof, 0.164x
/// cublasSgemv; 1024 x 65536: 9.09 ms, 29.6 GB/s, 0.984%, 0.0134x; 4096^2: 3.90%. As predicted:
/// inside the 10-25% at 16384^2, and far less with 32 warps on 1024 x 65536.
void launch_gemv_v0_thread_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                   cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  constexpr int kThreads = 256;
  gemv_v0_thread_per_row<<<tut::blocks_for(M, kThreads), kThreads, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
