/// @file
/// @brief v07 (experiment): v06 with the tiles visited in diagonal order.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Threads per block (as v06).
constexpr int kV7Threads = 256;
/// Side of the block's tile (as v06).
constexpr int kV7Block = 2 * kTile;

/// @brief v06's kernel; the only difference is the tile a block takes: tile_diagonal() instead
/// of tile_row_major().
///
/// Row-major order: the blocks running at one moment take neighbouring tiles of one tile row
/// of A. They read a few rows of A, but write one tile *column* of B: the same 256-byte-wide
/// band of many rows of B, 4 R bytes apart. On memory split into partitions by address, such
/// regular strides can all land in the same partition. In diagonal order the blocks running
/// together read many tile rows of A and write many tile columns of B.
// [kernel]
__global__ void __launch_bounds__(kV7Threads) transpose_v07_diagonal(const float* __restrict__ A,
                                                                    float* __restrict__ B, std::int64_t R,
                                                                    std::int64_t C, std::int64_t tiles_r,
                                                                    std::int64_t tiles_c) {
  __shared__ float4 tile4[4][kTile * kTile / 4];
  // [order]
  const TileCoord t = tile_diagonal(blockIdx.x, tiles_r, tiles_c);  // the one changed line
  // [order]
  const std::int64_t r0 = t.row * kV7Block, c0 = t.col * kV7Block;
  const int hi = threadIdx.x / 8, lo = threadIdx.x % 8;

#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::int64_t r = r0 + kTile * (q / 2) + hi, c = c0 + kTile * (q % 2) + 4 * lo;
    if (r < R && c < C) tile4[q][hi * 8 + swizzle_chunk(hi, lo)] = __ldg(reinterpret_cast<const float4*>(A + r * C + c));
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float* tile = reinterpret_cast<const float*>(tile4[q]);
    const std::int64_t bc = c0 + kTile * (q % 2) + hi, br = r0 + kTile * (q / 2) + 4 * lo;
    if (bc < C && br < R) {
      float4 v;
      v.x = tile[swizzled_index(4 * lo + 0, hi)];
      v.y = tile[swizzled_index(4 * lo + 1, hi)];
      v.z = tile[swizzled_index(4 * lo + 2, hi)];
      v.w = tile[swizzled_index(4 * lo + 3, hi)];
      *reinterpret_cast<float4*>(B + bc * R + br) = v;
    }
  }
}
// [kernel]

/// @brief v07: diagonal block order, an experiment from the GT200 era.
///
/// **Idea.** Ruetsch & Micikevicius (2009) found that on GPUs whose DRAM was split into
/// partitions by address (256-byte interleave), the blocks of a transpose that run together
/// hit the same partition ("partition camping"), and a diagonal order of the tiles spread them.
///
/// **Changed since v06.** The tile of block b is tile_diagonal(b) instead of tile_row_major(b).
///
/// **What is still wrong.** Probably nothing is fixed: Fermi and later GPUs hash addresses
/// across memory channels, so there is no camping left to undo, and the diagonal order costs
/// a division and a modulo per block and some L2 locality between neighbouring tiles.
///
/// **Predicted.** Within a few % of v06, either way. The page reports what was measured.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.2048 ms on
/// 8192^2 (87.2%, against v06's 0.2036 ms), 0.8049 ms on 16384^2 (88.7%, v06 0.7959 ms), 0.0294 ms on 1024 x 8192
/// (v06 0.0297 ms): within about 1% of v06 either way, as predicted. No partition camping to undo.
void launch_transpose_v07_diagonal(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if (!vector_path(A, B, R, C)) {
    launch_transpose_v04_tile_32x8(A, B, R, C, stream);
    return;
  }
  const std::int64_t tiles_r = ceil_div(R, kV7Block), tiles_c = ceil_div(C, kV7Block);
  const unsigned blocks = tut::blocks_for(tiles_r * tiles_c, 1);
  transpose_v07_diagonal<<<blocks, kV7Threads, 0, stream>>>(A, B, R, C, tiles_r, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
