/// @file
/// @brief The roofs: copies with the tile mapping of v04, moving the same bytes as a transpose.
///
/// Harris's method: before judging a transpose, time a copy that uses the same grid, block and
/// per-thread loop, once straight from global memory and once through a shared-memory tile. The
/// copy's reads and writes are both coalesced, so it is the best a kernel of this shape can do.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "transpose.hpp"

namespace transpose {

/// Rows of threads per block (each thread handles kTile / kCopyRows rows of a tile).
constexpr int kCopyRows = 8;

/// @brief B = A (R x C), one 32 x 32 tile per block, 32 x 8 threads, 4 elements per thread.
// [copy_tile]
__global__ void copy_tile(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                          std::int64_t tiles_c) {
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t c = t.col * kTile + threadIdx.x;
  for (int j = threadIdx.y; j < kTile; j += kCopyRows) {
    const std::int64_t r = t.row * kTile + j;
    if (r < R && c < C) B[r * C + c] = A[r * C + c];
  }
}
// [copy_tile]

/// @brief B = A through a shared-memory tile: the same reads and writes as copy_tile plus a
/// __syncthreads() and shared-memory traffic (no transposition, so no bank conflicts).
__global__ void copy_shared(const float* __restrict__ A, float* __restrict__ B, std::int64_t R, std::int64_t C,
                            std::int64_t tiles_c) {
  __shared__ float tile[kTile][kTile];
  const TileCoord t = tile_row_major(blockIdx.x, tiles_c);
  const std::int64_t c = t.col * kTile + threadIdx.x;
  for (int j = threadIdx.y; j < kTile; j += kCopyRows) {
    const std::int64_t r = t.row * kTile + j;
    if (r < R && c < C) tile[j][threadIdx.x] = A[r * C + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kCopyRows) {
    const std::int64_t r = t.row * kTile + j;
    if (r < R && c < C) B[r * C + c] = tile[j][threadIdx.x];
  }
}

/// @brief The copy roof of the tiled kernels: copy_tile over ceil(R/32) x ceil(C/32) tiles.
///
/// **Predicted.** Close to cudaMemcpy (a few % below: 4 bytes per access, one tile per block).
void launch_copy_tile(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  copy_tile<<<tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1), dim3(kTile, kCopyRows), 0, stream>>>(A, B, R, C,
                                                                                                           tiles_c);
  CUDA_CHECK_LAUNCH();
}

/// @brief The shared-memory copy roof: what the tile round trip itself costs.
///
/// **Predicted.** Within a few % of copy_tile: the barrier and shared-memory accesses are cheap
/// next to DRAM, provided there are no bank conflicts.
void launch_copy_shared(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = ceil_div(C, kTile);
  copy_shared<<<tut::blocks_for(ceil_div(R, kTile) * tiles_c, 1), dim3(kTile, kCopyRows), 0, stream>>>(
      A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
