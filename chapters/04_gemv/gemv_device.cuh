/// @file
/// @brief Device helpers shared by the gemv kernels: warp sum, float4 dot product, row peel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemv {

/// Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief Sum of `v` over the 32 lanes of a warp; every lane gets the total.
///
/// Five butterfly steps: after the step with offset o, each lane holds the sum of a group of
/// 2o lanes. Equivalent to `for (l = 0; l < 32; ++l) total += v_of_lane[l]` in another order.
/// All 32 lanes must call it (the full mask says so).
// [warp_sum]
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  return v;
}
// [warp_sum]

/// @brief sum + a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w, as four fused multiply-adds.
__device__ __forceinline__ float dot4(const float4& a, const float4& b, float sum) {
  sum = fmaf(a.x, b.x, sum);
  sum = fmaf(a.y, b.y, sum);
  sum = fmaf(a.z, b.z, sum);
  return fmaf(a.w, b.w, sum);
}

/// @brief The four floats at `p`: one 16-byte load if `aligned`, else four 4-byte loads.
///
/// x is shared by every row, and when K % 4 != 0 a row's 16-byte boundaries fall at different
/// offsets of x than of A: x + head is then not 16-byte aligned and must be read by scalars.
/// `aligned` is the same for a whole warp (one row), so the branch does not diverge.
__device__ __forceinline__ float4 load4(const float* p, bool aligned) {
  if (aligned) return __ldg(reinterpret_cast<const float4*>(p));
  return make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
}

/// @brief Floats from `p` to its next 16-byte boundary (0..3), at most `n` (the device twin of
/// gemv::float4_peel).
__device__ __forceinline__ std::int64_t row_peel(const float* p, std::int64_t n) {
  const std::int64_t peel = static_cast<std::int64_t>((16u - reinterpret_cast<std::uintptr_t>(p) % 16u) % 16u / 4u);
  return peel < n ? peel : n;
}

/// @brief A load of A, which every kernel reads exactly once: through the read-only data cache
/// (`__ldg`), or, when `kStreaming`, with the streaming hint (`__ldcs`, PTX `ld.global.cs`):
/// the line is allocated evict-first in L1 and L2, so that data read once does not push out
/// what L2 held before (t3).
template <bool kStreaming, class T>
__device__ __forceinline__ T load_once(const T* p) {
  if constexpr (kStreaming) {
    return __ldcs(p);
  } else {
    return __ldg(p);
  }
}

/// @brief True if `p` is 16-byte aligned.
__host__ __device__ __forceinline__ bool is_aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16u == 0;
}

}  // namespace gemv
