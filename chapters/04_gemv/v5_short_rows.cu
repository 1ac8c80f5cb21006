/// @file
/// @brief v5: short rows (K <= 128): several rows per warp, a group of lanes per row.
#include <string>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"
#include "gemv_device.cuh"

namespace gemv {

/// Warps per block.
constexpr int kV5Warps = 8;

/// @brief y[i] = A[i][:] . x with a group of `lanes` lanes per row (lanes = 1, 2, 4, ..., 32):
/// a warp computes 32 / lanes rows at once.
///
/// With K = 32 and float4s, 8 lanes cover a row, so a warp takes 4 consecutive rows: 512
/// contiguous bytes per load instruction, where v4 would use 8 of its 32 lanes. The group
/// reduces with the first log2(lanes) shuffle steps only: an xor with an offset below `lanes`
/// never leaves the group. Every lane takes part in the shuffles (rows past M add zeros), so
/// the full mask is right.
///
/// kVec: float4 loads, used when every row is 16-byte aligned (K % 4 == 0 and A, x aligned);
/// otherwise scalar loads, one element per lane per step.
// [kernel]
template <bool kVec>
__global__ void gemv_v5_short_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K, int lanes) {
  const int lane = threadIdx.x % kWarpSize;
  const int rows_per_warp = kWarpSize / lanes;
  const std::int64_t warp = static_cast<std::int64_t>(blockIdx.x) * kV5Warps + threadIdx.x / kWarpSize;
  const std::int64_t row = warp * rows_per_warp + lane / lanes;  // this lane's row
  const int g = lane % lanes;                                    // its place in the row's group
  float sum = 0.0f;
  if (row < M) {
    const float* a = A + row * K;
    if (kVec) {
      const float4* a4 = reinterpret_cast<const float4*>(a);
      const float4* x4 = reinterpret_cast<const float4*>(x);
      for (std::int64_t v = g; v < K / 4; v += lanes) sum = dot4(__ldg(a4 + v), __ldg(x4 + v), sum);
    } else {
      for (std::int64_t k = g; k < K; k += lanes) sum = fmaf(a[k], x[k], sum);
    }
  }
  for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (g == 0 && row < M) y[row] = sum;
}
// [kernel]

/// @brief v5: for K <= 128, lanes = next power of two >= the row's float4 (or element) count.
///
/// **Idea.** A warp per row wastes lanes when a row has fewer than 32 vectors: K = 32 uses 8 of
/// 32 lanes and each load moves 128 useful bytes. Give each row only the lanes it needs and
/// let one warp handle several consecutive rows, which are contiguous in memory.
///
/// **Changed since v4.** Groups of `lanes` lanes instead of warps; a partial shuffle reduction.
///
/// **What is still wrong.** Only for short rows: for K > 128 it degenerates to v3 (lanes = 32,
/// one float4 in flight per lane). The table runs it only for K <= 128; the tests run it
/// everywhere, since it is correct for any K.
///
/// **Predicted.** Near the copy roof on 2^21 x 32, where v4 leaves three quarters of its lanes
/// idle and reaches well under half of it.
///
/// **Measured (H100 run at 0b38325, 2097152 x 32).** 0.108 ms, 2570 GB/s, 85.4% of the copy roof,
/// 1.45x cublasSgemv, 5.45x v4 (0.588 ms, 15.7%). As predicted: near the roof where v4 reaches well
/// under half of it. Skipped on the other shapes (K > 128).
void launch_gemv_v5_short_rows(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  const bool vec = K % 4 == 0 && is_aligned16(A) && is_aligned16(x);  // then every row start is aligned
  const int lanes = short_row_lanes(K, vec);
  const std::int64_t rows_per_block = static_cast<std::int64_t>(kV5Warps) * (kWarpSize / lanes);
  const unsigned blocks = tut::blocks_for(M, rows_per_block);
  if (vec) {
    gemv_v5_short_rows<true><<<blocks, kV5Warps * kWarpSize, 0, stream>>>(A, x, y, M, K, lanes);
  } else {
    gemv_v5_short_rows<false><<<blocks, kV5Warps * kWarpSize, 0, stream>>>(A, x, y, M, K, lanes);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
