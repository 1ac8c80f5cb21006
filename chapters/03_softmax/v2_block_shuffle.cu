/// @file
/// @brief v2: one block per row with warp-shuffle block reductions; still three passes.
#include <cstdint>

#include "common/check.hpp"
#include "online_softmax.cuh"
#include "reductions.cuh"
#include "softmax.hpp"

namespace softmax {

/// Threads per block (one block per row) of v2.
constexpr int kV2Threads = 256;

/// @brief v1 with block_allreduce() (warp shuffles) instead of the shared-memory tree.
// [kernel]
__global__ void __launch_bounds__(kV2Threads)
    softmax_v2_block_shuffle(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  __shared__ float scratch[32];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (std::int64_t c = threadIdx.x; c < cols; c += kV2Threads) m = fmaxf(m, xr[c]);
    const float shift = softmax_shift(block_allreduce<MaxOp>(m, scratch));
    float d = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kV2Threads) d += expf(xr[c] - shift);
    const float scale = softmax_scale(block_allreduce<SumOp>(d, scratch));
    for (std::int64_t c = threadIdx.x; c < cols; c += kV2Threads) yr[c] = expf(xr[c] - shift) * scale;
  }
}
// [kernel]

/// @brief v2: warp-shuffle block reductions.
///
/// **Idea.** Chapter 02's lesson: reduce inside each warp with `__shfl_xor_sync` (registers, no
/// barrier), park one value per warp in shared memory, and reduce those. Two barriers per
/// reduction instead of nine, and with the butterfly every thread gets the result directly.
///
/// **Changed since v1.** tree_allreduce -> block_allreduce (reductions.cuh).
///
/// **What is still wrong.** The reductions were never the main cost: the row is still read
/// three times from memory (or cache).
///
/// **Predicted.** A few percent over v1; the same byte count.
///
/// **Measured (H100 run at 0b38325).** 4096 x 4096: 0.0582 ms, 2310 GB/s, 76.7% of the copy roof,
/// 0.903x cuDNN; 8192 x 8192: 68.5%; 1024 x 32768: 42.4%; 16384 x 1024: 71.5%; 65536 x 128:
/// 0.115 ms, 19.4% (v1: 0.142 ms). Within 1% of v1 on the four shapes with long rows, less than the
/// few percent predicted, and 1.23x v1 on 65536 x 128, where a 128-column row is mostly reduction.
void launch_softmax_v2_block_shuffle(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                     cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  softmax_v2_block_shuffle<<<row_blocks(rows), kV2Threads, 0, stream>>>(x, y, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
