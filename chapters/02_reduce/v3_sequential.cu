/// @file
/// @brief v3: sequential addressing: no divergence and no bank conflicts.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "multi_pass.cuh"
#include "reduce.hpp"
#include "reduce_ops.cuh"

namespace reduce {

/// Threads per block (and elements per block) of v3.
constexpr int kV3Threads = 256;

/// @brief The tree folds the upper half of the active slots onto the lower half.
///
///     stride 128:  s[t] += s[t + 128]   for t in [0, 128)
///     stride  64:  s[t] += s[t + 64]    for t in [0, 64)
///     ...
///     stride   1:  s[0] += s[1]
///
/// The active threads are consecutive (no divergence while 32 or more are active) and a warp
/// reads 32 consecutive words (32 different banks: no conflict).
// [kernel]
template <class Op>
__global__ void reduce_v3_sequential(const float* x, const float* y, float* partial, std::int64_t n) {
  __shared__ float s[kV3Threads];
  const unsigned t = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kV3Threads + t;
  s[t] = i < n ? Op::element(x, y, i) : Op::identity();
  __syncthreads();
  for (unsigned stride = kV3Threads / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = Op::combine(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
// [kernel]

/// @brief v3: sequential addressing (consecutive threads, consecutive words).
///
/// **Idea.** Pair slot t with slot t + stride (halving stride) instead of 2*stride*t with
/// 2*stride*t + stride: consecutive threads then touch consecutive words.
///
/// **Changed since v2.** The loop runs the stride down from 128 instead of up from 1. The
/// pairs differ, so the last bits of a sum can differ from v1/v2's (a different tree).
///
/// **What is still wrong.** Half the threads are idle from the very first step, and every
/// thread does a single global load before the tree: the block spends most of its time in 8
/// barrier-separated steps rather than in moving bytes. The last 5 steps run with fewer than
/// 32 active threads but still pay a __syncthreads() each.
///
/// **Predicted.** Another step up from v2 (no replays), still well below the roof.
///
/// **Measured (H100 run at 0b38325, n = 2^28).** sum: 1.15 ms, 931 GB/s, 31.0% of the copy roof,
/// 0.312x CUB (max the same; dot: 1.24 ms, 57.5%, 0.571x cuBLAS): 1.28x v2, the step up predicted,
/// but only 3% over v1.
void launch_reduce_v3_sequential(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                 Workspace& ws, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  if (n == 0) return write_identity(op, out, stream);
  with_operator(op, [&](auto tag) {
    reduce_in_passes<decltype(tag)>(
        x, y, out, n, kV3Threads, ws, stream,
        [](auto level_op, const float* a, const float* b, float* dst, std::int64_t count, cudaStream_t s) {
          reduce_v3_sequential<decltype(level_op)><<<tut::blocks_for(count, kV3Threads), kV3Threads, 0, s>>>(
              a, b, dst, count);
          CUDA_CHECK_LAUNCH();
        });
  });
}

}  // namespace reduce
