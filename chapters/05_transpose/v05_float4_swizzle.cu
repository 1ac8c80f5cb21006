/// @file
/// @brief v05: float4 loads and stores on both sides, with a swizzled (XOR) shared-memory tile.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Threads per block: one float4 of the 32 x 32 tile each, in both phases.
constexpr int kV5Threads = 256;

/// @brief B = A^T with 16-byte global accesses, one 32 x 32 tile per block of 256 threads.
///
/// Phase 1: thread t loads the float4 A[r0 + t/8][c0 + 4 (t%8) .. +3] (a warp: 4 rows x 128 B)
/// and stores it whole into the tile, at chunk swizzle_chunk(row, t%8) of its row.
///
/// Phase 2: thread t owns B[c0 + t/8][r0 + 4 (t%8) .. +3], i.e. tile rows 4 (t%8) .. +3 of
/// tile column t/8: four scalar shared-memory reads, one float4 store to B.
///
/// Without the swizzle, those column reads are 8-way bank conflicts: a warp reads columns
/// 4w..4w+3 (4 banks) of 8 row groups. With chunk ^= (row / 4) % 8, the 8 row groups of a warp
/// land on 8 different chunks: 32 different banks (the CPU tests check both phases). An XOR
/// swizzle keeps each float4 in one piece, which padding by one float would break (a padded
/// row is not 16-byte aligned).
///
/// Requires R % 4 == 0, C % 4 == 0 and 16-byte aligned A and B (see vector_path()): then every
/// float4 is entirely inside the matrix or entirely outside, and edge tiles need no scalar code.
// [kernel]
__global__ void __launch_bounds__(kV5Threads) transpose_v05_float4_swizzle(const float* __restrict__ A,
                                                                          float* __restrict__ B, std::int64_t R,
                                                                          std::int64_t C, std::int64_t tiles_c) {
  __shared__ float4 tile4[kTile * kTile / 4];  // 32 rows x 8 chunks, chunk positions swizzled
  const float* tile = reinterpret_cast<const float*>(tile4);
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r0 = t.row * kTile, c0 = t.col * kTile;
  const int hi = threadIdx.x / 8, lo = threadIdx.x % 8;  // (row, chunk) in phase 1; (column, row group) in 2

  if (r0 + hi < R && c0 + 4 * lo < C) {
    tile4[hi * 8 + swizzle_chunk(hi, lo)] = __ldg(reinterpret_cast<const float4*>(A + (r0 + hi) * C + c0 + 4 * lo));
  }
  __syncthreads();
  if (c0 + hi < C && r0 + 4 * lo < R) {
    float4 v;
    v.x = tile[swizzled_index(4 * lo + 0, hi)];
    v.y = tile[swizzled_index(4 * lo + 1, hi)];
    v.z = tile[swizzled_index(4 * lo + 2, hi)];
    v.w = tile[swizzled_index(4 * lo + 3, hi)];
    *reinterpret_cast<float4*>(B + (c0 + hi) * R + r0 + 4 * lo) = v;
  }
}
// [kernel]

/// @brief v05: v04's tile with float4 global loads and stores and an XOR-swizzled tile.
///
/// **Idea.** 16-byte accesses on both global sides: a warp moves 512 B per instruction (4 rows
/// of 128 B), a quarter of v04's load/store instructions for the same bytes. Shared memory then
/// needs a layout in which both a row of float4s and a column of scalars are conflict-free:
/// the XOR swizzle.
///
/// **Changed since v04.** One float4 per thread per phase; tile chunks placed by
/// swizzle_chunk() instead of a padding column. Shapes with R or C not a multiple of 4, or
/// misaligned pointers, run v04's kernel instead (same result, scalar accesses).
///
/// **What is still wrong.** The shared-memory column reads are still 4 scalar loads per
/// thread; each block still moves one 4 KB tile and waits at one barrier.
///
/// **Predicted.** A few % over v04; near the copy roof on the large shapes.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.2112 ms on
/// 8192^2 (2541.4 GB/s, 84.5%, 0.90x cublasSgeam), 0.8291 ms on 16384^2 (86.2%): 2% *slower* than v04 on both,
/// against the prediction of a few % faster.
void launch_transpose_v05_float4_swizzle(const float* A, float* B, std::int64_t R, std::int64_t C,
                                        cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if (!vector_path(A, B, R, C)) {
    launch_transpose_v04_tile_32x8(A, B, R, C, stream);
    return;
  }
  const std::int64_t tiles_c = ceil_div(C, kTile);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1);
  transpose_v05_float4_swizzle<<<blocks, kV5Threads, 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
