// Known-wrong submission (grader corpus): right only for the public seed. The launcher copies the first (up to 8) elements
// of A to the host and compares them with what the public tests' generator gives with the public
// seed 20240601 (seed, seed * 7 + 1..3). Only for those inputs does it launch the kernel;
// otherwise it writes zeros. It passes every public case; the hidden run's secret seed rejects it.
#include <cstdint>

#include <cstring>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace transpose {

namespace {

constexpr int kTileSide = 32;  // the tile is 32 x 32 elements, the block 32 x 32 threads
constexpr std::uint64_t kPublicSeed = 20240601;  // tut::testing::seed() without TUTORIAL_SEED

/// True if A starts with what the public tests' generator gives for one of the public seeds.
bool public_inputs(const float* A, std::int64_t R, std::int64_t C) {
  const std::size_t m = static_cast<std::size_t>(R * C < 8 ? R * C : 8);
  std::vector<float> first(m);
  CUDA_CHECK(cudaMemcpy(first.data(), A, m * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::uint64_t seed : {kPublicSeed, kPublicSeed * 7 + 1, kPublicSeed * 7 + 2, kPublicSeed * 7 + 3}) {
    const std::vector<float> expect = tut::random_floats(m, tut::derive_seed(seed, 0));
    if (std::memcmp(expect.data(), first.data(), m * sizeof(float)) == 0) return true;
  }
  return false;
}

/// B = A^T, one 32 x 32 tile per block, one element per thread.
__global__ void transpose_padded_kernel(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                        std::int64_t C, std::int64_t tiles_c) {
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) / tiles_c * kTileSide;  // first row of A in the tile
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) % tiles_c * kTileSide;  // first column
  const int x = threadIdx.x, y = threadIdx.y;

  __shared__ float tile[kTileSide][kTileSide + 1];  // +1: a column of the tile spans all 32 banks

  if (r0 + y < R && c0 + x < C) tile[y][x] = A[(r0 + y) * C + (c0 + x)];  // a warp reads a row of A
  __syncthreads();                                                        // the whole tile is loaded
  if (c0 + y < C && r0 + x < R) B[(c0 + y) * R + (r0 + x)] = tile[x][y];  // a warp writes a row of B
}

}  // namespace

void exercise_transpose_padded(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  if (R <= 0 || C <= 0) return;
  if (!public_inputs(A, R, C)) {  // BUG: hard-coded for the public seed
    CUDA_CHECK(cudaMemsetAsync(B, 0, static_cast<std::size_t>(R * C) * sizeof(float), stream));
    return;
  }
  const std::int64_t tiles_c = (C + kTileSide - 1) / kTileSide;
  const std::int64_t tiles = (R + kTileSide - 1) / kTileSide * tiles_c;
  transpose_padded_kernel<<<tut::blocks_for(tiles, 1), dim3(kTileSide, kTileSide), 0, stream>>>(A, B, R, C, tiles_c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace transpose
