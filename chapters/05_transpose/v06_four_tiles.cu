/// @file
/// @brief v06: v05 with four 32 x 32 tiles per block: four float4 loads in flight per thread.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Threads per block (as v05).
constexpr int kV6Threads = 256;
/// Side of the block's tile: 2 x 2 sub-tiles of kTile x kTile.
constexpr int kV6Block = 2 * kTile;

/// @brief B = A^T over a 64 x 64 tile per block, stored as four swizzled 32 x 32 sub-tiles.
///
/// Sub-tile q = (qr, qc) covers rows r0 + 32 qr .. + 31 and columns c0 + 32 qc .. + 31 of A,
/// and goes to rows c0 + 32 qc .. of B, columns r0 + 32 qr ... Each thread does v05's work once
/// per sub-tile: phase 1 issues its four float4 loads back to back (nothing depends on them
/// until the barrier), phase 2 its four float4 stores. Bank behaviour is v05's, sub-tile by
/// sub-tile.
// [kernel]
__global__ void __launch_bounds__(kV6Threads) transpose_v06_four_tiles(const float* __restrict__ A,
                                                                      float* __restrict__ B, std::int64_t R,
                                                                      std::int64_t C, std::int64_t tiles_c) {
  __shared__ float4 tile4[4][kTile * kTile / 4];  // 4 sub-tiles of 32 rows x 8 swizzled chunks
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r0 = t.row * kV6Block, c0 = t.col * kV6Block;
  const int hi = threadIdx.x / 8, lo = threadIdx.x % 8;

#pragma unroll
  for (int q = 0; q < 4; ++q) {  // 4 independent 16-byte loads per thread in flight
    const std::int64_t r = r0 + kTile * (q / 2) + hi, c = c0 + kTile * (q % 2) + 4 * lo;
    if (r < R && c < C) tile4[q][hi * 8 + swizzle_chunk(hi, lo)] = __ldg(reinterpret_cast<const float4*>(A + r * C + c));
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float* tile = reinterpret_cast<const float*>(tile4[q]);
    const std::int64_t bc = c0 + kTile * (q % 2) + hi, br = r0 + kTile * (q / 2) + 4 * lo;  // B[bc][br .. br+3]
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

/// @brief v06: four tiles per block, so each thread keeps four 16-byte loads in flight.
///
/// **Idea.** Little's law once more: a block of v05 has 4 KB of loads in flight and then waits
/// at its barrier; an SM runs 8 such blocks, so at most 32 KB, and less on average (blocks
/// spend part of their life storing, exiting and starting). Giving each block a 64 x 64 tile
/// (four of v05's sub-tiles) quadruples the bytes requested before each barrier, at the price
/// of 16 KB of shared memory per block (8 blocks still fit in an SM's 228 KB).
///
/// **Changed since v05.** 64 x 64 tiles per block; a loop of 4 sub-tiles in each phase.
///
/// **What is still wrong.** Each block still loads, waits, stores, and exits: the load of the
/// next tile does not overlap the store of this one inside a block (other blocks fill the gap).
///
/// **Predicted.** A few % over v05 on the large shapes, where v05 is limited by bytes in flight;
/// no change where it is not.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.2036 ms on
/// 8192^2 (2636.9 GB/s, 87.7%, 0.93x cublasSgeam), 0.7959 ms on 16384^2 (89.8%, 0.94x): 4% faster than v05, as
/// predicted, and the best of v00-v08 on every shape but 1024 x 8192, still short of cublasSgeam.
void launch_transpose_v06_four_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if (!vector_path(A, B, R, C)) {
    launch_transpose_v04_tile_32x8(A, B, R, C, stream);
    return;
  }
  const std::int64_t tiles_c = ceil_div(C, kV6Block);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kV6Block) * tiles_c, 1);
  transpose_v06_four_tiles<<<blocks, kV6Threads, 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
