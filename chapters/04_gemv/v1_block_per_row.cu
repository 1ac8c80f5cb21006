/// @file
/// @brief v1: one block per row, partial sums combined by a shared-memory tree.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"

namespace gemv {

/// Threads per block (one block per row). A power of two, for the tree.
constexpr int kV1Threads = 256;
static_assert((kV1Threads & (kV1Threads - 1)) == 0, "the tree reduction needs a power-of-two block");

/// @brief y[i] = A[i][:] . x, one block per row: thread t sums k = t, t + 256, ..., then the
/// block adds its 256 partial sums in a tree in shared memory.
///
/// At every loop step the 256 threads read 256 consecutive floats of one row: coalesced.
/// The tree halves the active threads each step (128, 64, ..., 1), with a __syncthreads()
/// between steps so that a step reads only sums the previous step has finished writing.
// [kernel]
__global__ void gemv_v1_block_per_row(const float* A, const float* x, float* y, std::int64_t K) {
  __shared__ float partial[kV1Threads];
  const std::int64_t row = blockIdx.x;
  const float* a = A + row * K;
  float sum = 0.0f;
  for (std::int64_t k = threadIdx.x; k < K; k += kV1Threads) sum = fmaf(a[k], x[k], sum);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int active = kV1Threads / 2; active > 0; active /= 2) {  // 8 steps for 256 threads
    if (threadIdx.x < active) partial[threadIdx.x] += partial[threadIdx.x + active];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[row] = partial[0];
}
// [kernel]

/// @brief v1: one block of 256 threads per row, shared-memory tree reduction.
///
/// **Idea.** Make the threads of a warp read *neighbouring* elements: spread one row over a
/// block, so every load instruction of a warp covers 128 consecutive bytes.
///
/// **Changed since v0.** A block per row instead of a thread per row; a reduction combines the
/// block's 256 partial sums.
///
/// **What is still wrong.** The tree costs 8 __syncthreads() and 8 shared-memory round trips
/// per row, with most threads idle in the late steps. On short rows (K = 1024: 4 elements per
/// thread) that overhead is as large as the loads; a block per row also needs M blocks of 256
/// threads even when each has little to do.
///
/// **Predicted.** Coalesced, so several times v0 on square matrices; weakest on 65536 x 1024.
///
/// **Measured (H100 run at 0b38325).** 16384^2: 0.359 ms, 2990 GB/s, 99.6% of the copy roof, 1.04x
/// cublasSgemv, 6.33x v0; 4096^2: 1.18x; 8192^2: 1.24x; 1024 x 65536: 83.2%, 1.13x; 65536 x 1024:
/// 0.112 ms, 80.0%, 0.922x. As predicted: several times v0, and weakest on 65536 x 1024, its only
/// listed shape below cuBLAS (on 2097152 x 32, not a target shape: 4.06%).
void launch_gemv_v1_block_per_row(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                                  cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_v1_block_per_row<<<tut::blocks_for(M, 1), kV1Threads, 0, stream>>>(A, x, y, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
