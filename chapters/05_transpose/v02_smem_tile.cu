/// @file
/// @brief v02: a shared-memory tile makes reads and writes coalesced, with 32-way bank conflicts.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// @brief B = A^T through a 32 x 32 shared-memory tile, 32 x 32 threads, one element each.
///
/// Phase 1: thread (x, y) reads A[r0 + y][c0 + x] (a warp reads a row of the tile: coalesced)
/// and stores it at tile[y][x]. Phase 2, after the barrier: thread (x, y) writes
/// B[c0 + y][r0 + x] (a warp writes a row of B: coalesced) from tile[x][y], a *column* of the
/// tile.
///
/// The column read is the problem: tile[x][y] for x = 0..31 are 32 floats 32 apart, and shared
/// memory has 32 banks of 4 bytes: bank = index % 32 = y for all 32 lanes. A 32-way bank
/// conflict: the warp's read is served one lane at a time.
// [kernel]
__global__ void transpose_v02_smem_tile(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                       std::int64_t C, std::int64_t tiles_c) {
  __shared__ float tile[kTile][kTile];
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r0 = t.row * kTile, c0 = t.col * kTile;
  const int x = threadIdx.x, y = threadIdx.y;
  if (r0 + y < R && c0 + x < C) tile[y][x] = A[(r0 + y) * C + c0 + x];      // coalesced read
  __syncthreads();
  if (c0 + y < C && r0 + x < R) B[(c0 + y) * R + r0 + x] = tile[x][y];      // coalesced write, column of tile
}
// [kernel]

/// @brief v02: stage a 32 x 32 tile in shared memory so that both global sides are coalesced.
///
/// **Idea.** Shared memory has no coalescing rule: any pattern is fine as long as lanes hit
/// different banks. Read a tile of A by rows, write it to B by rows, and do the transposition
/// inside shared memory.
///
/// **Changed since v01.** A tile of 32 x 32 floats per block, 1024 threads, a __syncthreads()
/// between the two phases.
///
/// **What is still wrong.** The column read in phase 2 is a 32-way bank conflict: 32
/// shared-memory wavefronts instead of 1 for every warp of every tile. The
/// barrier also stalls the block between its reads and writes. 1024-thread blocks: 2 per SM,
/// so a barrier idles a whole half-SM.
///
/// **Predicted.** Not much better than v01, possibly slower: the bank conflicts replace the
/// uncoalesced global access as the bottleneck.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.5325 ms on
/// 8192^2 (1008.2 GB/s, 33.5%, 0.36x cublasSgeam), 2.1237 ms on 16384^2 (1011.2 GB/s, 33.6%): slower than v01
/// (0.3384 ms), as predicted; the bank conflicts cost more than the coalescing gained.
void launch_transpose_v02_smem_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1);
  transpose_v02_smem_tile<<<blocks, dim3(kTile, kTile), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
