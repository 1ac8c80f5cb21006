/// @file
/// @brief v0: one thread per element in 32-thread blocks (the occupancy trap).
#include "common/check.hpp"
#include "common/launch.hpp"
#include "elementwise.hpp"

namespace elementwise {

/// @brief out[i] = a[i] + b[i], one thread per element.
///
/// Thread i of the grid handles element i. Consecutive threads touch consecutive floats, so a
/// warp's 32 loads of 4 bytes are one coalesced 128-byte request: the access pattern is already
/// right. The index is 64-bit: with n > 2^31 a 32-bit `blockIdx.x * blockDim.x + threadIdx.x`
/// overflows (the [large] test catches that).
// [kernel]
__global__ void add_v0_block32(const float* a, const float* b, float* out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];  // the last block may run past n: guard it
}
// [kernel]

/// @brief v0, the naive version: one element per thread, 32 threads per block.
///
/// **Idea.** The obvious mapping: one thread per element, blocks of one warp.
///
/// **What is wrong with it.** An SM holds a limited number of resident blocks: 32 on an H100
/// (sm_90) or A100, 16 on sm_75 and sm_86. With 32-thread blocks that caps an H100 SM at
/// 32 x 32 = 1024 threads, half of the 2048 it can hold (a third on sm_86). Fewer threads
/// means fewer memory requests in flight to cover DRAM latency, and the block scheduler has
/// to launch millions of tiny blocks.
///
/// **Predicted.** Well under the copy roof: roughly half of the bandwidth of v1.
///
/// **Measured (H200, n = 2^28).** 639 GB/s, 15% of the copy roof: 5.4x slower than v1, far worse
/// than the 2x that occupancy alone predicts. 8.4 million one-warp blocks also hit the rate at
/// which the hardware can launch and retire blocks. **H100 run at 0b38325 (the chapter page's
/// table):** 5.04 ms, 639 GB/s, 21.2% of the copy roof, 0.213x cudaMemcpy; v1 is 4.34x faster, so
/// the prediction (half of v1's bandwidth) missed there too.
void launch_add_v0_block32(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 32;
  add_v0_block32<<<tut::blocks_for(n, kThreads), kThreads, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
