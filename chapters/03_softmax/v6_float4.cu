/// @file
/// @brief v6: float4 loads and stores in the one-read kernels, with tiles that keep several
/// 16-byte loads in flight per thread; every shape is handled.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "online_softmax.cuh"
#include "reductions.cuh"
#include "softmax.hpp"

namespace softmax {

/// Warps per block of the register kernel.
constexpr int kV6WarpsPerBlock = 8;
/// float4 loads each thread of the block-per-row kernels issues before using any.
constexpr int kV6Unroll = 4;
/// float4s per thread the block-per-row kernels aim for when they size their block.
constexpr int kV6VecPerThread = 8;

/// Four copies of v.
__device__ inline float4 splat(float v) { return make_float4(v, v, v, v); }
/// The largest of the four lanes.
__device__ inline float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
/// The sum of the four lanes.
__device__ inline float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
/// exp(v - shift), lane by lane.
__device__ inline float4 exp4(float4 v, float shift) {
  return make_float4(expf(v.x - shift), expf(v.y - shift), expf(v.z - shift), expf(v.w - shift));
}
/// v * s, lane by lane.
__device__ inline float4 scale4(float4 v, float s) { return make_float4(v.x * s, v.y * s, v.z * s, v.w * s); }

/// @brief C <= 1024: rows in registers, `group` lanes per row (a power of two, 1..32), kVec
/// float4s per lane.
///
///     warp = 32 / group rows;  lane l: row (l / group), float4s g, g + group, ... (g = l % group)
///
///     C = 128:  group 8, kVec 4   -> 4 rows per warp, 4 float4 loads in flight per lane
///     C = 1024: group 32, kVec 8  -> 1 row per warp, 8 float4 loads in flight per lane
///
/// Shuffles with offsets below `group` stay inside the group. Lanes past the last row still
/// take part in the shuffles (full mask); they only skip their loads and stores.
// [registers]
template <int kVec>
__global__ void __launch_bounds__(kV6WarpsPerBlock * 32)
    softmax_v6_float4_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, int group) {
  const int lane = threadIdx.x % 32;
  const int g = lane % group;
  const std::int64_t warp = static_cast<std::int64_t>(blockIdx.x) * kV6WarpsPerBlock + threadIdx.x / 32;
  const std::int64_t r = warp * (32 / group) + lane / group;
  const bool active = r < rows;
  const std::int64_t cols4 = cols / 4;
  const float4* xr = reinterpret_cast<const float4*>(x + (active ? r : 0) * cols);  // 16-byte aligned rows

  float4 v[kVec];
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    const std::int64_t k = g + static_cast<std::int64_t>(group) * j;
    v[j] = active && k < cols4 ? xr[k] : splat(-INFINITY);
  }
  float m = -INFINITY;
#pragma unroll
  for (int j = 0; j < kVec; ++j) m = fmaxf(m, max4(v[j]));
  const float shift = softmax_shift(warp_allreduce<MaxOp>(m, group));
  float d = 0.0f;
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    v[j] = exp4(v[j], shift);
    d += sum4(v[j]);
  }
  const float scale = softmax_scale(warp_allreduce<SumOp>(d, group));
  if (!active) return;  // after the last shuffle
  float4* yr = reinterpret_cast<float4*>(y + r * cols);
#pragma unroll
  for (int j = 0; j < kVec; ++j) {
    const std::int64_t k = g + static_cast<std::int64_t>(group) * j;
    if (k < cols4) yr[k] = scale4(v[j], scale);
  }
}
// [registers]

/// @brief 1024 < C <= shared-memory capacity: v5 with float4 accesses, kV6Unroll loads in flight.
// [shared]
__global__ void softmax_v6_float4_shared(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  extern __shared__ float4 row4[];  // cols / 4 float4s
  __shared__ float scratch[32];
  const std::int64_t cols4 = cols / 4;
  const int threads = blockDim.x;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + r * cols);
    float4* yr = reinterpret_cast<float4*>(y + r * cols);
    float m = -INFINITY;
    for (std::int64_t base = threadIdx.x; base < cols4; base += static_cast<std::int64_t>(threads) * kV6Unroll) {
      float4 v[kV6Unroll];
#pragma unroll
      for (int u = 0; u < kV6Unroll; ++u) {  // all loads first
        const std::int64_t k = base + static_cast<std::int64_t>(u) * threads;
        v[u] = k < cols4 ? xr[k] : splat(-INFINITY);
      }
#pragma unroll
      for (int u = 0; u < kV6Unroll; ++u) {
        const std::int64_t k = base + static_cast<std::int64_t>(u) * threads;
        if (k < cols4) row4[k] = v[u];
        m = fmaxf(m, max4(v[u]));
      }
    }
    const float shift = softmax_shift(block_allreduce<MaxOp>(m, scratch));
    float d = 0.0f;
    for (std::int64_t k = threadIdx.x; k < cols4; k += threads) {  // each thread: its own float4s
      row4[k] = exp4(row4[k], shift);
      d += sum4(row4[k]);
    }
    const float scale = softmax_scale(block_allreduce<SumOp>(d, scratch));
    for (std::int64_t k = threadIdx.x; k < cols4; k += threads) yr[k] = scale4(row4[k], scale);
  }
}
// [shared]

/// @brief C beyond shared memory: v3's online two-pass kernel with float4 accesses.
__global__ void softmax_v6_float4_online(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  __shared__ MaxSum scratch[32];
  const std::int64_t cols4 = cols / 4;
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* xr = reinterpret_cast<const float4*>(x + r * cols);
    float4* yr = reinterpret_cast<float4*>(y + r * cols);
    MaxSum state = max_sum_identity();
    for (std::int64_t k = threadIdx.x; k < cols4; k += blockDim.x) {
      const float4 v = xr[k];
      state = add(add(add(add(state, v.x), v.y), v.z), v.w);
    }
    const Normalizer nz = normalizer(block_allmerge(state, scratch));
    for (std::int64_t k = threadIdx.x; k < cols4; k += blockDim.x) yr[k] = scale4(exp4(xr[k], nz.shift), nz.scale);
  }
}

namespace {

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int kVec>
void launch_registers(const float* x, float* y, std::int64_t rows, std::int64_t cols, int group,
                      cudaStream_t stream) {
  const std::int64_t rows_per_block = static_cast<std::int64_t>(kV6WarpsPerBlock) * (32 / group);
  softmax_v6_float4_registers<kVec>
      <<<tut::blocks_for(rows, rows_per_block), kV6WarpsPerBlock * 32, 0, stream>>>(x, y, rows, cols, group);
  CUDA_CHECK_LAUNCH();
}

/// Smallest power of two >= v (v >= 1).
int pow2_at_least(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

/// @brief v6: float4 accesses and enough loads in flight, for every shape.
///
/// **Idea.** Move 16 bytes per load and store instead of 4 (chapter 01's v3), and shape the
/// tiles so each thread has several float4 loads in flight before it needs any (Little's law).
/// For short rows that means *several rows per warp*: a C = 128 row is 32 float4s, so a group
/// of 8 lanes takes a row with 4 float4s per lane, and a warp does 4 rows.
///
/// **Changed since v4 and v5.** Their kernels, with float4 accesses and kV6Unroll-deep loads,
/// behind one launcher that picks by shape:
///
///     C % 4 == 0 and x, y 16-byte aligned:
///       C <= 1024                   rows in registers, `group` lanes per row   (v4's idea)
///       C <= shared-memory capacity one block per row, row in shared memory    (v5's idea)
///       longer                      online softmax, two passes                  (v3's idea)
///     otherwise (C % 4 != 0 or a misaligned start): the scalar v4, v5 or v3 by the same rules
///
/// **What is still wrong.** Rows of 32768 floats still take one block per SM (128 KiB of shared
/// memory each); rows longer than shared memory are read twice (the second read mostly from L2).
///
/// **Predicted.** At least 85% of the copy roof on every listed shape of the default table.
///
/// **Measured (H100 run at 0b38325).** 4096 x 4096: 0.0525 ms, 2560 GB/s, 85.1% of the copy roof,
/// 1.00x cuDNN; 16384 x 1024: 89.1% (1.76x); 8192 x 8192: 0.188 ms, 95.1% (0.991x); 65536 x 128:
/// 0.0283 ms, 78.9% (1.00x); 1024 x 32768: 0.125 ms, 71.6% (0.932x). The predicted 85% is met on
/// three shapes and missed on two: 65536 x 128, where cudaMemcpy of the same bytes reaches only
/// 80.7%, and 1024 x 32768, one block per SM (v7's step).
void launch_softmax_v6_float4(const float* x, float* y, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  if (cols % 4 != 0 || !aligned16(x) || !aligned16(y)) {  // no float4 access possible: scalar steps
    if (cols <= kWarpRowMaxCols) return launch_softmax_v4_warp_registers(x, y, rows, cols, stream);
    if (cols <= max_shared_row_floats()) return launch_softmax_v5_block_shared(x, y, rows, cols, stream);
    return launch_softmax_v3_online(x, y, rows, cols, stream);
  }
  const std::int64_t cols4 = cols / 4;
  if (cols4 <= 4) return launch_registers<4>(x, y, rows, cols, 1, stream);  // one lane per row
  if (cols4 <= 128) return launch_registers<4>(x, y, rows, cols, pow2_at_least((cols4 + 3) / 4), stream);
  if (cols4 <= 256) return launch_registers<8>(x, y, rows, cols, 32, stream);
  const int threads = block_threads_for(cols4, kV6VecPerThread);
  if (cols <= max_shared_row_floats()) {
    const std::size_t smem = static_cast<std::size_t>(cols) * sizeof(float);
    CUDA_CHECK(cudaFuncSetAttribute(softmax_v6_float4_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
    softmax_v6_float4_shared<<<row_blocks(rows), threads, smem, stream>>>(x, y, rows, cols);
  } else {
    softmax_v6_float4_online<<<row_blocks(rows), threads, 0, stream>>>(x, y, rows, cols);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
