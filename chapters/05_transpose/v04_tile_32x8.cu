/// @file
/// @brief v04: the padded tile with 32 x 8 threads, four elements per thread.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Rows of threads per block: each thread handles kTile / kV4Rows = 4 elements per phase.
constexpr int kV4Rows = 8;

/// @brief v03's padded tile, filled and emptied by 32 x 8 threads: thread (x, y) handles rows
/// y, y + 8, y + 16, y + 24 of the tile.
///
///     phase 1: tile[j][x] = A[r0 + j][c0 + x]      j = y, y + 8, y + 16, y + 24
///     phase 2: B[c0 + j][r0 + x] = tile[x][j]
///
/// Each thread has 4 independent loads in flight before the barrier.
// [kernel]
__global__ void transpose_v04_tile_32x8(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                       std::int64_t C, std::int64_t tiles_c) {
  __shared__ float tile[kTile][kTile + 1];
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r0 = t.row * kTile, c0 = t.col * kTile;
  const int x = threadIdx.x;
#pragma unroll
  for (int j = threadIdx.y; j < kTile; j += kV4Rows) {
    if (r0 + j < R && c0 + x < C) tile[j][x] = A[(r0 + j) * C + c0 + x];
  }
  __syncthreads();
#pragma unroll
  for (int j = threadIdx.y; j < kTile; j += kV4Rows) {
    if (c0 + j < C && r0 + x < R) B[(c0 + j) * R + r0 + x] = tile[x][j];
  }
}
// [kernel]

/// @brief v04: 256 threads per 32 x 32 tile instead of 1024 (Harris's TILE_DIM x BLOCK_ROWS).
///
/// **Idea.** Fewer threads per tile, more work per thread: each thread issues 4 loads before
/// the barrier (instruction-level parallelism), its index arithmetic is shared by 4 elements,
/// and blocks of 256 threads (8 per SM instead of 2) mean a barrier stalls an eighth of the
/// SM, not half.
///
/// **Changed since v03.** Block 32 x 32 -> 32 x 8; a loop of 4 steps in each phase.
///
/// **What is still wrong.** 4-byte accesses: 32 load and 32 store instructions per warp per
/// tile, where float4 would need 8.
///
/// **Predicted.** Somewhat faster than v03, close to copy_shared.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.2065 ms on
/// 8192^2 (2599.5 GB/s, 86.5%, 0.92x cublasSgeam), 0.8108 ms on 16384^2 (88.1%, 0.92x): 1.8x faster than v03, 6-7%
/// below copy_shared (92.2%, 94.7%). Much more than the "somewhat faster" predicted.
void launch_transpose_v04_tile_32x8(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1);
  transpose_v04_tile_32x8<<<blocks, dim3(kTile, kV4Rows), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
