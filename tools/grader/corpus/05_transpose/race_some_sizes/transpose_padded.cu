// Known-wrong submission (grader corpus): the __syncthreads() between the tile load and the transposed store is missing.
// Thread (x, y) stores tile[x][y], which thread (y, x), in another warp, loaded: without the
// barrier it may read the slot before it is written (stale data from an earlier tile). The
// tests compare exactly, over 46 shapes plus misaligned ones, most with many full tiles, so a
// single stale slot fails. racecheck reports it too.
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
  // BUG: no __syncthreads() here: tile[x][y] below was loaded by another warp.
  if (c0 + y < C && r0 + x < R) B[(c0 + y) * R + (r0 + x)] = tile[x][y];  // a warp writes a row of B
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
