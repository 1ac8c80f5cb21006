/// @file
/// @brief Device helpers of this chapter's GEMM-style kernels (v07-v09): the 128-byte swizzle of v08
/// and v09, and the bf16 versions' pair store.
///
/// The PTX wrappers of the pipelined and tensor-core kernels (cp.async, ldmatrix, mma.sync) are
/// written once, for chapters 06-08, in common/ampere_ptx.cuh (namespace tut::sm80), which this
/// header includes; the kernels that call them (v04-v09) say `using namespace tut::sm80;`. Its
/// cp_async_16() takes a source size in bytes (`ok ? 16 : 0`: 0 reads nothing and writes 16 zero
/// bytes), not a bool.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

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

}  // namespace conv2d
