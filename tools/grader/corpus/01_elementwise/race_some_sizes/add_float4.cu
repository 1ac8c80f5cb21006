// Known-wrong submission (grader corpus): a shared-memory race that shows only at some sizes.
// Full 256-element tiles go through shared memory in mirrored order (thread t stores element
// 255 - t, then reads element t, which another warp stored) with no __syncthreads() in between,
// so a warp can read a slot before its partner warp has written it. The partial last tile is
// done directly, so every n < 256 is right.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

constexpr int kTile = 256;  // threads per block = elements per tile

__global__ void add_tile_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                std::int64_t n) {
  __shared__ float tile[kTile];
  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * kTile;
  for (std::int64_t start = static_cast<std::int64_t>(blockIdx.x) * kTile; start < n; start += step) {
    if (start + kTile <= n) {
      const std::int64_t j = start + (kTile - 1 - t);
      tile[kTile - 1 - t] = a[j] + b[j];
      // BUG: a __syncthreads() is missing here: tile[t] was stored by thread kTile - 1 - t.
      out[start + t] = tile[t];
      // BUG: and here, before the next tile overwrites `tile`.
    } else {
      const std::int64_t i = start + t;
      if (i < n) out[i] = a[i] + b[i];
    }
  }
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::int64_t tiles = (n + kTile - 1) / kTile;
  const unsigned blocks = tut::grid_stride_blocks(add_tile_kernel, tiles, kTile, 1);
  add_tile_kernel<<<blocks, kTile, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
