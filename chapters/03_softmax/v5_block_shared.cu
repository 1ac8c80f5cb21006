/// @file
/// @brief v5: one block per row with the row kept in shared memory (large C): one read, one write.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "online_softmax.cuh"
#include "reductions.cuh"
#include "softmax.hpp"

namespace softmax {

/// Columns per thread v5 aims for when it sizes its block.
constexpr int kV5ColsPerThread = 16;

/// @brief The row is loaded once into shared memory (dynamic, C floats); the max, the
/// exponentials, the sum and the outputs all come from there.
///
/// Thread t owns columns t, t + blockDim.x, ...: it writes and re-reads only its own slots of
/// row[], so the passes need no barrier between them beyond the ones inside block_allreduce().
/// Shared memory here is per-thread storage that can be indexed at run time (registers cannot).
// [kernel]
__global__ void softmax_v5_block_shared(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  extern __shared__ float row[];  // cols floats
  __shared__ float scratch[32];
  const int threads = blockDim.x;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (std::int64_t c = threadIdx.x; c < cols; c += threads) {  // the only read of x
      const float v = xr[c];
      row[c] = v;
      m = fmaxf(m, v);
    }
    const float shift = softmax_shift(block_allreduce<MaxOp>(m, scratch));
    float d = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += threads) {  // on chip: exponentials in place
      row[c] = expf(row[c] - shift);
      d += row[c];
    }
    const float scale = softmax_scale(block_allreduce<SumOp>(d, scratch));
    for (std::int64_t c = threadIdx.x; c < cols; c += threads) yr[c] = row[c] * scale;  // the only write of y
  }
}
// [kernel]

/// @brief v5: one block per row, the row in shared memory, for rows too long for a warp.
///
/// **Idea.** v4's "read once" for large C. A block's registers cannot hold a row whose length
/// is known only at run time, but shared memory can: up to 227 KiB per block on an H100, i.e.
/// rows of 58,000 floats. Load the row once, and let every later pass run on chip.
///
/// **Changed since v4.** A block instead of a warp per row; the row in dynamic shared memory;
/// block_allreduce() instead of warp_allreduce(). The block has 128 to 1024 threads, about
/// kV5ColsPerThread columns each.
///
/// **What is still wrong.** Shared memory per block limits both C (longer rows are refused,
/// v5_unsupported()) and the rows in flight per SM: a 32768-float row takes 128 KiB, so an
/// H100 SM holds one such block, which must finish its reductions before the next row's loads
/// start. 4-byte accesses.
///
/// **Predicted.** Close to the roof on 4096 x 4096 and 8192 x 8192 (several rows per SM);
/// somewhat lower on 1024 x 32768.
///
/// **Measured (H100 run at 0b38325).** 4096 x 4096: 0.0540 ms, 2480 GB/s, 82.7% of the copy roof,
/// 0.973x cuDNN; 8192 x 8192: 0.202 ms, 88.6%, 0.923x; 1024 x 32768: 0.132 ms, 67.5%, 0.877x (and
/// 16384 x 1024: 85.1%; 65536 x 128: 28.0%). As predicted: close to the roof on the two square
/// shapes (cudaMemcpy of the same bytes: 89.9% and 98.0%), lower on 1024 x 32768, where an SM holds
/// one block.
void launch_softmax_v5_block_shared(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                    cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  const std::string why = v5_unsupported(rows, cols);
  if (!why.empty()) throw std::invalid_argument("softmax v5_block_shared: " + why);
  const std::size_t smem = static_cast<std::size_t>(cols) * sizeof(float);
  CUDA_CHECK(cudaFuncSetAttribute(softmax_v5_block_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(smem)));
  const int threads = block_threads_for(cols, kV5ColsPerThread);
  softmax_v5_block_shared<<<row_blocks(rows), threads, smem, stream>>>(x, y, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
