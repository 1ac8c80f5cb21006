/// @file
/// @brief v6's loop (also v7's): each thread reduces its share of the input with float4 loads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "reduce_ops.cuh"

namespace reduce {

/// float4 loads (per input) each thread issues before it combines any of them.
constexpr int kLoadsInFlight = 4;

/// @brief This thread's share of the n elements, reduced to one value (blockDim.x == kThreads).
///
/// Layout of the input (`head` = elements before the first 16-byte boundary, computed by the
/// launcher with float4_peel(); `head` = n if x and y are misaligned differently):
///
///     [0, head)                    scalar, grid-stride   (at most 3 elements)
///     [head, head + 4 * n_vec)     float4, grid-stride, kLoadsInFlight per thread per trip
///     [head + 4 * n_vec, n)        scalar, grid-stride   (at most 3 elements)
///
/// One trip of the loop covers kThreads * kLoadsInFlight consecutive float4s per block: thread
/// t takes float4 `base + u * kThreads` (base = trip start + t) for u = 0 .. kLoadsInFlight-1,
/// so each of the loads is coalesced across the warp, and all of them are issued before the
/// first is used. Whole trips need no bounds checks; the one partial trip at the end checks
/// each load.
// [loop]
template <class Op, int kThreads>
__device__ float thread_partial(const float* __restrict__ x, const float* __restrict__ y, std::int64_t n,
                                std::int64_t head) {
  const std::int64_t n_vec = (n - head) / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x + head);  // 16-byte aligned by choice of head
  const float4* y4 = y != nullptr ? reinterpret_cast<const float4*>(y + head) : nullptr;
  constexpr std::int64_t kBlockSpan = static_cast<std::int64_t>(kThreads) * kLoadsInFlight;  // float4s per trip
  const std::int64_t grid_span = kBlockSpan * gridDim.x;

  float4 acc = identity4<Op>();
  std::int64_t base = blockIdx.x * kBlockSpan + threadIdx.x;
  for (; base + (kLoadsInFlight - 1) * kThreads < n_vec; base += grid_span) {  // whole trips
    float4 v[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) v[u] = Op::element4(x4, y4, base + u * kThreads);  // all loads first
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) acc = combine4<Op>(acc, v[u]);  // then combine
  }
#pragma unroll
  for (int u = 0; u < kLoadsInFlight; ++u) {  // at most one partial trip per thread is left
    if (base + u * kThreads < n_vec) acc = combine4<Op>(acc, Op::element4(x4, y4, base + u * kThreads));
  }
  float result = fold4<Op>(acc);

  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  for (std::int64_t i = first; i < head; i += stride) result = Op::combine(result, Op::element(x, y, i));
  for (std::int64_t i = head + 4 * n_vec + first; i < n; i += stride) result = Op::combine(result, Op::element(x, y, i));
  return result;
}
// [loop]

}  // namespace reduce
