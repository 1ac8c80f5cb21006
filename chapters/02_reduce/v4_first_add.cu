/// @file
/// @brief v4: the first add during the load (two elements per thread, half the blocks).
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "multi_pass.cuh"
#include "reduce.hpp"
#include "reduce_ops.cuh"

namespace reduce {

/// Threads per block of v4; each block reduces kV4Tile = 2 * kV4Threads elements.
constexpr int kV4Threads = 256;
/// Elements per block of v4.
constexpr int kV4Tile = 2 * kV4Threads;

/// @brief v3's tree, but each thread first combines two elements, kV4Threads apart, while loading.
///
///     block b covers [b * 512, b * 512 + 512):  thread t loads elements t and t + 256
///
/// Both loads are coalesced (consecutive threads, consecutive addresses) and independent, so
/// they are in flight together.
// [kernel]
template <class Op>
__global__ void reduce_v4_first_add(const float* x, const float* y, float* partial, std::int64_t n) {
  __shared__ float s[kV4Threads];
  const unsigned t = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * kV4Threads) + t;
  float v = i < n ? Op::element(x, y, i) : Op::identity();
  if (i + kV4Threads < n) v = Op::combine(v, Op::element(x, y, i + kV4Threads));
  s[t] = v;
  __syncthreads();
  for (unsigned stride = kV4Threads / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = Op::combine(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
// [kernel]

/// @brief v4: two loads and one add per thread before the tree.
///
/// **Idea.** In v3 half the threads idle from the first step of the tree. Let every thread do
/// that first step itself, from global memory, as it loads: the block covers twice the
/// elements, and the grid has half the blocks.
///
/// **Changed since v3.** Tile of 512 elements per 256-thread block; two loads per thread.
///
/// **What is still wrong.** Per element the block still pays a share of 8 tree steps with a
/// __syncthreads() each; the last 5 of them keep a whole block waiting for less than one warp
/// of work.
///
/// **Predicted.** Close to 2x over v3 (Harris measured 1.8x): half the blocks, the same tree
/// per block.
///
/// **Measured (H100 run at 0b38325, n = 2^28).** sum: 0.622 ms, 1730 GB/s, 57.5% of the copy roof,
/// 0.579x CUB (max the same; dot: 0.740 ms, 96.6%, 0.959x cuBLAS): 1.85x v3, the "close to 2x"
/// predicted (Harris: 1.8x).
void launch_reduce_v4_first_add(Operation op, const float* x, const float* y, float* out, std::int64_t n,
                                Workspace& ws, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("reduce: n must be >= 0");
  if (n == 0) return write_identity(op, out, stream);
  with_operator(op, [&](auto tag) {
    reduce_in_passes<decltype(tag)>(
        x, y, out, n, kV4Tile, ws, stream,
        [](auto level_op, const float* a, const float* b, float* dst, std::int64_t count, cudaStream_t s) {
          reduce_v4_first_add<decltype(level_op)><<<tut::blocks_for(count, kV4Tile), kV4Threads, 0, s>>>(a, b, dst,
                                                                                                       count);
          CUDA_CHECK_LAUNCH();
        });
  });
}

}  // namespace reduce
