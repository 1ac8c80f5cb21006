/// @file
/// @brief v1: one block per row, shared-memory tree reductions, three passes.
#include <cstdint>

#include "common/check.hpp"
#include "online_softmax.cuh"
#include "reductions.cuh"
#include "softmax.hpp"

namespace softmax {

/// Threads per block (one block per row) of v1.
constexpr int kV1Threads = 256;

/// @brief Reduces `v` over the block with a shared-memory tree (chapter 02's v3, sequential
/// addressing); every thread gets the result.
template <class Op>
__device__ float tree_allreduce(float v, float* s) {
  const unsigned t = threadIdx.x;
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kV1Threads / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = Op::combine(s[t], s[t + stride]);
    __syncthreads();
  }
  const float result = s[0];
  __syncthreads();  // everybody has read s[0] before s is reused
  return result;
}

/// @brief Block b handles rows b, b + gridDim.x, ...; its threads stride over the row's columns
/// (thread t takes columns t, t + 256, ...: coalesced) and combine with tree_allreduce().
// [kernel]
__global__ void __launch_bounds__(kV1Threads)
    softmax_v1_block_tree(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  __shared__ float s[kV1Threads];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (std::int64_t c = threadIdx.x; c < cols; c += kV1Threads) m = fmaxf(m, xr[c]);  // pass 1
    const float shift = softmax_shift(tree_allreduce<MaxOp>(m, s));
    float d = 0.0f;
    for (std::int64_t c = threadIdx.x; c < cols; c += kV1Threads) d += expf(xr[c] - shift);  // pass 2
    const float scale = softmax_scale(tree_allreduce<SumOp>(d, s));
    for (std::int64_t c = threadIdx.x; c < cols; c += kV1Threads) yr[c] = expf(xr[c] - shift) * scale;  // pass 3
  }
}
// [kernel]

/// @brief v1: one block per row; shared-memory trees for the max and the sum.
///
/// **Idea.** Give a row to a whole block. Its 256 threads stride over the columns together, so
/// every load is coalesced (consecutive threads, consecutive floats) and there are R blocks of
/// parallelism instead of R threads. The per-thread max and sum are combined with chapter 02's
/// shared-memory tree.
///
/// **Changed since v0.** Thread-per-row loops became block-strided loops plus two tree
/// reductions (one for m, one for d).
///
/// **What is still wrong.** Each tree takes 8 steps with a __syncthreads() each, and the row is
/// still read three times: 16 bytes of traffic per element where 8 are necessary. (Rows small
/// enough to stay in L1/L2 between passes hide some of that.) For C = 128 most of the 256
/// threads have no column at all.
///
/// **Predicted.** A large step from v0 on every shape; at most about 8/16 = 50% of the roof on
/// large rows that do not stay in cache, more where they do.
///
/// **Measured (H100 run at 0b38325).** 4096 x 4096: 0.0587 ms, 2290 GB/s, 76.1% of the copy roof,
/// 0.896x cuDNN, 24.9x v0; 8192 x 8192: 68.1%; 16384 x 1024: 71.2% (1.41x cuDNN); 1024 x 32768:
/// 42.4%; 65536 x 128: 15.7%. The large step, as predicted; under the 50% ceiling only on 1024 x
/// 32768, whose 128 KiB rows are the least likely to stay in cache between the passes (the shorter
/// rows exceed it, as predicted for rows that do), and on 65536 x 128, where most of the 256
/// threads have no column.
void launch_softmax_v1_block_tree(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  softmax_v1_block_tree<<<row_blocks(rows), kV1Threads, 0, stream>>>(x, y, rows, cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
