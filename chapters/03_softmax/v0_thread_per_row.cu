/// @file
/// @brief v0: one thread per row, three passes over the row (max, sum, write).
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "online_softmax.cuh"
#include "softmax.hpp"

namespace softmax {

/// @brief Thread r computes row r alone: the textbook three-pass softmax.
///
///     pass 1:  m = max_c x[c]
///     pass 2:  d = sum_c exp(x[c] - m)
///     pass 3:  y[c] = exp(x[c] - m) / d
///
/// softmax_shift() and softmax_scale() make an all -inf row give zeros (not NaN).
// [kernel]
__global__ void softmax_v0_thread_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + r * cols;  // 64-bit offsets: R x C may exceed 2^31
  float* yr = y + r * cols;

  float m = -INFINITY;
  for (std::int64_t c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
  const float shift = softmax_shift(m);
  float d = 0.0f;
  for (std::int64_t c = 0; c < cols; ++c) d += expf(xr[c] - shift);
  const float scale = softmax_scale(d);
  for (std::int64_t c = 0; c < cols; ++c) yr[c] = expf(xr[c] - shift) * scale;
}
// [kernel]

/// @brief v0, the naive version: one thread per row.
///
/// **Idea.** A row is independent work: give each one to a thread and write the three passes
/// as three loops, exactly as on a CPU. Subtracting the max before exp() makes it stable: every
/// exponent is <= 0, so nothing overflows even for entries of 1e30.
///
/// **What is wrong with it.** At every step the 32 threads of a warp read 32 *different rows*,
/// C floats apart: each load instruction touches 32 separate 32-byte sectors to use 4 bytes of
/// each (uncoalesced), and the caches have to keep the rest of those sectors until the next
/// steps use them. The row is read three times. And there are only R threads: 4096 rows are
/// 128 warps, one per SM on an H100 -- far too few to hide memory latency.
///
/// **Predicted.** Single-digit percentages of the copy roof on large C; better, but still far
/// off, where R is large and C small (65536 x 128).
///
/// **Measured (H100 run at 0b38325).** 4096 x 4096: 1.46 ms, 91.8 GB/s, 3.06% of the copy roof,
/// 0.0360x cuDNN; 1024 x 32768: 11.9 ms, 0.749%; 8192 x 8192: 5.97%; 16384 x 1024: 9.2%; 65536 x
/// 128: 0.256 ms, 8.73%. As predicted: single digits on every shape, worst on the longest rows;
/// many short rows help, though 16384 x 1024 edges out 65536 x 128.
void launch_softmax_v0_thread_per_row(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                      cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  constexpr int kThreads = 128;
  softmax_v0_thread_per_row<<<tut::blocks_for(rows, kThreads), kThreads, 0, stream>>>(x, y, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
