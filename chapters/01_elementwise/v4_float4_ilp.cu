/// @file
/// @brief v4: several independent float4 loads in flight per thread (instruction-level parallelism).
#include <algorithm>
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "elementwise.hpp"

namespace elementwise {

/// float4s each thread loads before it stores any (per input).
constexpr int kAddUnroll = 4;

/// @brief out = a + b; each thread issues kAddUnroll float4 loads per input before using any.
///
/// Per loop trip a block covers kAddUnroll x blockDim.x consecutive float4s: thread t takes
/// `base + t`, `base + t + blockDim.x`, ... so each of the kAddUnroll loads is still coalesced
/// across the warp. Head and tail as in v3.
// [kernel]
__global__ void add_v4_float4_ilp(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n, std::int64_t head) {
  const std::int64_t n_vec = (n - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* out4 = reinterpret_cast<float4*>(out + head);
  const std::int64_t block_span = static_cast<std::int64_t>(blockDim.x) * kAddUnroll;  // float4s per block trip
  const std::int64_t grid_span = block_span * gridDim.x;

  // [unrolled]
  for (std::int64_t base = blockIdx.x * block_span + threadIdx.x; base < n_vec; base += grid_span) {
    float4 x[kAddUnroll], y[kAddUnroll];
#pragma unroll
    for (int u = 0; u < kAddUnroll; ++u) {  // all loads first: 2 x kAddUnroll requests in flight
      const std::int64_t v = base + u * static_cast<std::int64_t>(blockDim.x);
      if (v < n_vec) {
        x[u] = a4[v];
        y[u] = b4[v];
      }
    }
#pragma unroll
    for (int u = 0; u < kAddUnroll; ++u) {  // then the adds and stores
      const std::int64_t v = base + u * static_cast<std::int64_t>(blockDim.x);
      if (v < n_vec) out4[v] = make_float4(x[u].x + y[u].x, x[u].y + y[u].y, x[u].z + y[u].z, x[u].w + y[u].w);
    }
  }
  // [unrolled]
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = first; i < head; i += stride) out[i] = a[i] + b[i];
  for (std::int64_t i = head + 4 * n_vec + first; i < n; i += stride) out[i] = a[i] + b[i];
}
// [kernel]

/// @brief v4: v3 with kAddUnroll independent float4 loads per input in flight per thread.
///
/// **Idea.** Little's law: bytes in flight = bandwidth x latency. An H100 at ~3 TB/s with
/// ~600-800 ns DRAM latency needs ~2 MB in flight, ~16 KB per SM. Issuing all loads of a trip
/// before the first use lets one thread keep 2 x kAddUnroll x 16 bytes outstanding.
///
/// **Changed since v3.** The loop body loads kAddUnroll float4s per input into registers, then
/// adds and stores them.
///
/// **What is still wrong.** Nothing big: what is left is the gap between a read-read-write
/// stream and the copy engine's pure read-write stream (DRAM read/write turnarounds).
///
/// **Predicted.** Small or no gain on an H100 at full occupancy (2048 threads x 32 B per SM
/// already exceed 16 KB in flight); the gain shows at low occupancy or on small GPUs.
///
/// **Measured (H200, n = 2^28).** 4067 GB/s, 96% of the copy roof: 1.6% *slower* than v3, in line
/// with the prediction of no gain. An honest negative result on Hopper. **H100 run at 0b38325 (the
/// chapter page's table):** 1.10 ms, 2920 GB/s, 97.0% of the copy roof, 0.972x cudaMemcpy: 0.9%
/// faster than v3, the small gain the prediction allowed.
void launch_add_v4_float4_ilp(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const std::int64_t head = float4_peel(n, a, b, out);
  const std::int64_t work = std::max((n - head) / 4, head) + 1;  // float4s (or scalars, if all-scalar)
  const unsigned blocks = tut::grid_stride_blocks(add_v4_float4_ilp, work, kThreads, kThreads * kAddUnroll);
  add_v4_float4_ilp<<<blocks, kThreads, 0, stream>>>(a, b, out, n, head);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
