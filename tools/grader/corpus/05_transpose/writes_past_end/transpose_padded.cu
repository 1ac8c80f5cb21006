// Known-wrong submission (grader corpus): the store's guard is `c0 + y < C` only; the check `r0 + x < R` is missing. In
// a tile at the bottom edge of A (R % 32 != 0) the threads with r0 + x >= R write past the end
// of their row of B: into the next row for all but the last, and for the last row of B past the
// end of the array, which the guard zone after B catches.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace transpose {

namespace {

constexpr int kTileSide = 32;  // the tile is 32 x 32 elements, the block 32 x 32 threads

/// B = A^T, one 32 x 32 tile per block, one element per thread.
__global__ void transpose_padded_kernel(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                        std::int64_t C, std::int64_t tiles_c) {
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) / tiles_c * kTileSide;  // first row of A in the tile
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) % tiles_c * kTileSide;  // first column
  const int x = threadIdx.x, y = threadIdx.y;

  __shared__ float tile[kTileSide][kTileSide + 1];  // +1: a column of the tile spans all 32 banks

  if (r0 + y < R && c0 + x < C) tile[y][x] = A[(r0 + y) * C + (c0 + x)];  // a warp reads a row of A
  __syncthreads();                                                        // the whole tile is loaded
  // BUG: the row check r0 + x < R is missing.
  if (c0 + y < C) B[(c0 + y) * R + (r0 + x)] = tile[x][y];  // a warp writes a row of B
}

}  // namespace

void exercise_transpose_padded(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  const std::int64_t tiles_c = (C + kTileSide - 1) / kTileSide;
  const std::int64_t tiles = (R + kTileSide - 1) / kTileSide * tiles_c;
  transpose_padded_kernel<<<tut::blocks_for(tiles, 1), dim3(kTileSide, kTileSide), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
