/// @file
/// @brief Device helpers of this chapter's GEMM-style kernels (v07-v12): the 128-byte swizzle of v08
/// to v12, the bf16 versions' pair store, and the 64 x 64 tile store of v09 and v11.
///
/// The PTX wrappers of the pipelined and tensor-core kernels (cp.async, ldmatrix, mma.sync) are
/// written once, for chapters 06-08, in common/ampere_ptx.cuh (namespace tut::sm80), which this
/// header includes; the kernels that call them (v04-v09) say `using namespace tut::sm80;`. Its
/// cp_async_16() takes a source size in bytes (`ok ? 16 : 0`: 0 reads nothing and writes 16 zero
/// bytes), not a bool.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/ampere_ptx.cuh"

namespace conv2d {

/// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in a tile of 128-byte rows stored
/// with the 128-byte swizzle: the physical chunk is chunk ^ (row % 8). This is the pattern TMA's
/// CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's descriptor (layout type 1) reads, for a tile
/// that starts on a 1024-byte boundary (8 rows of 128 bytes: one swizzle atom). v08 and v09.
// [swizzle128]
__device__ __forceinline__ int swizzle128(int row, int chunk) { return row * 128 + ((chunk ^ (row & 7)) << 4); }
// [swizzle128]

/// The epilogue of the bf16 versions (v07-v09): out[0], out[1] = v00, v01 (rounded to bf16) for the
/// output channels `col` and `col` + 1 of one output pixel, those below `k_total` only; one
/// 4-byte store where `pairs` (K even and y 4-byte aligned) and both exist, else one per value.
__device__ __forceinline__ void store_bf16_pair(__nv_bfloat16* out, int col, int k_total, float v0, float v1,
                                                bool pairs) {
  if (pairs && col + 1 < k_total) {
    *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
  } else {
    if (col < k_total) out[0] = __float2bfloat16_rn(v0);
    if (col + 1 < k_total) out[1] = __float2bfloat16_rn(v1);
  }
}

/// The epilogue of v09 and v11: a warpgroup's 64 x 64 accumulators of wgmma m64n64 (lane (g, q4)
/// = (lane / 4, lane % 4) of warp `warp` holds, per 8 columns j, rows 16 warp + g and + 8, columns
/// 8 j + 2 q4 and + 1), rounded to bf16 and stored in pairs into y (M x K, row-major) at rows
/// `row0` ..., columns `col0` ...; nothing past row `m_total` or column `k_total` is written.
__device__ __forceinline__ void store_tile_bf16(const float (&acc)[32], __nv_bfloat16* y, std::int64_t row0, int col0,
                                                std::int64_t m_total, int k_total, int warp, int lane) {
  const int col = col0 + 2 * (lane % 4);
  const bool pairs = k_total % 2 == 0 && reinterpret_cast<std::uintptr_t>(y) % 4 == 0;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t m = row0 + warp * 16 + lane / 4 + half * 8;
    if (m >= m_total) continue;
    __nv_bfloat16* out = y + m * k_total + col;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      store_bf16_pair(out + 8 * j, col + 8 * j, k_total, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1], pairs);
    }
  }
}

}  // namespace conv2d
