/// @file
/// @brief v03: the shared-memory tile padded by one column: no bank conflicts.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// @brief v02 with `tile[32][33]`: element (i, j) lives at 33 i + j, so a column is spread over
/// all 32 banks.
///
/// Phase 2 reads tile[x][y] for x = 0..31: index 33 x + y, bank (33 x + y) % 32 = (x + y) % 32,
/// 32 different banks. Phase 1 writes a row, tile[y][x] for x = 0..31: consecutive indices,
/// also 32 banks. The cost is 32 unused floats (128 bytes) per tile.
// [kernel]
__global__ void transpose_v03_padded_tile(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                         std::int64_t C, std::int64_t tiles_c) {
  __shared__ float tile[kTile][kTile + 1];  // +1: rows start one bank apart
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t r0 = t.row * kTile, c0 = t.col * kTile;
  const int x = threadIdx.x, y = threadIdx.y;
  if (r0 + y < R && c0 + x < C) tile[y][x] = A[(r0 + y) * C + c0 + x];
  __syncthreads();
  if (c0 + y < C && r0 + x < R) B[(c0 + y) * R + r0 + x] = tile[x][y];
}
// [kernel]

/// @brief v03: v02 with one padding column in the tile.
///
/// **Idea.** Bank = (address / 4) % 32. With rows of 33 floats, consecutive rows start one
/// bank further, so a column of the tile touches every bank once.
///
/// **Changed since v02.** `tile[32][32]` -> `tile[32][33]`. One character; the exercise.
///
/// **What is still wrong.** 1024-thread blocks, one element per thread: each thread does one
/// load and one store and then waits at the barrier; only 2 blocks fit on an SM.
///
/// **Predicted.** A large step over v02 and both naive versions: within reach of copy_shared.
///
/// **Measured.** (H100 run of git 0b38325, docs/results/transpose.json; % of the 3006 GB/s copy roof): 0.3757 ms on
/// 8192^2 (1429.1 GB/s, 47.5%, 0.51x cublasSgeam), 1.4942 ms on 16384^2 (47.8%). 1.4x faster than v02, but still
/// below v01 and far from copy_shared (92.2% on 8192^2): the prediction was wrong about how far the padding alone
/// goes.
// [launch]
void launch_transpose_v03_padded_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  const unsigned blocks = tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1);
  transpose_v03_padded_tile<<<blocks, dim3(kTile, kTile), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}
// [launch]

}  // namespace transpose
