/// @file
/// @brief v01: naive transpose, threads along A's columns: strided reads, coalesced writes.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Columns of A per block (one per row of threads).
constexpr int kV1Cols = 8;

/// @brief B[c][r] = A[r][c], one element per thread; threadIdx.x runs down a column of A.
///
/// Block b covers 32 rows x 8 columns of A. A warp reads 32 floats of one column of A, C floats
/// apart (32 sectors, 4 useful bytes each), and writes them as 32 consecutive floats of one row
/// of B: one 128-byte request.
// [kernel]
__global__ void transpose_v01_write_coalesced(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                             std::int64_t C, std::int64_t tiles_c) {
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r = t.row * kTile + threadIdx.x;
  const std::int64_t c = t.col * kV1Cols + threadIdx.y;
  if (r < R && c < C) B[c * R + r] = A[r * C + c];  // read: stride C across the warp; write: stride 1
}
// [kernel]

/// @brief v01: v00 with the thread mapping turned: reads strided, writes coalesced.
///
/// **Idea.** Since one side must be strided, choose which. A strided *read* fetches whole
/// 32-byte sectors into L1/L2 and the neighbouring warps of the block (the next 7 columns of
/// A) use the rest of each sector from cache; a strided *write* sends 32 partial-sector
/// writes that L2 has to merge.
///
/// **Changed since v00.** threadIdx.x runs along rows of A (columns of B) instead of columns.
///
/// **What is still wrong.** Every warp load still costs 32 sector requests; the cache only
/// saves the DRAM traffic, not the request count.
///
/// **Predicted.** Faster than v00: reads that miss can be served from L1/L2 by the block's
/// other warps, while partial writes cost L2 more work per byte.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.3384 ms on
/// 8192^2 (1586.3 GB/s, 52.8%, 0.56x cublasSgeam), 1.3500 ms on 16384^2 (1590.8 GB/s, 52.9%): 3.5x faster than v00
/// on 8192^2, as predicted.
void launch_transpose_v01_write_coalesced(const float* A, float* B, std::int64_t R, std::int64_t C,
                                         cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kV1Cols);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1);
  transpose_v01_write_coalesced<<<blocks, dim3(kTile, kV1Cols), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
