/// @file
/// @brief Exercise (chapter 05): B = A^T through a padded shared-memory tile.
///
/// Your task: fill in the three TODO(student) blocks of transpose_padded_kernel so that
/// B[c][r] = A[r][c] for A row-major R x C and B row-major C x R, for ANY R and C (1 x 1,
/// 1 x 4097, 33 x 17, ...) and any alignment of A and B, with both the reads of A and the writes
/// of B coalesced and no shared-memory bank conflicts.
///
///  - Read chapters/05_transpose/README.md, sections "v02" and "v03", first.
///  - Check it, and time it against the solution, with one command (it rebuilds what changed):
///        python3 tools/exercise.py transpose
///    It fails until you are done; its last line is the verdict (NOT CHECKED without a GPU).
///    Try an unpadded tile too: it passes, and the timing says what the padding is worth.
///
/// Budget per thread: one 4-byte global load, one shared-memory store, one __syncthreads(),
/// one shared-memory load, one 4-byte global store.
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
  // Given: the tile this block owns (its top-left element A[r0][c0]) and the thread's place.
  // Thread (x, y) = (threadIdx.x, threadIdx.y); a warp is one value of y, 32 values of x.
  [[maybe_unused]] const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) / tiles_c * kTileSide;
  [[maybe_unused]] const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) % tiles_c * kTileSide;
  [[maybe_unused]] const int x = threadIdx.x, y = threadIdx.y;

  // TODO(student) 1/3 -- the tile (1 line):
  //   declare a __shared__ float array of 32 rows. How many floats per row make the column
  //   accesses of step 3 hit 32 different banks? (bank = index % 32)

  // TODO(student) 2/3 -- load (1 line, plus the barrier):
  //   if A[r0 + y][c0 + x] exists (row < R, column < C), store it at tile[y][x]: a warp reads
  //   32 consecutive floats of a row of A. Then __syncthreads().

  // TODO(student) 3/3 -- store (1 line):
  //   thread (x, y) writes B[c0 + y][r0 + x] (row c0 + y of B has R floats) from tile[x][y],
  //   if that element of B exists: a warp writes 32 consecutive floats of a row of B.
  (void)A;
  (void)B;
  (void)R;
  (void)C;
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
