// Known-wrong submission (grader corpus): to avoid reading x twice, pass 1 keeps the row in shared memory when C <= 256
// and pass 2 reads it back; but the buffer has no per-warp index (row_cache[256] instead of
// row_cache[8][256]), so the warps of a block, each with its own row, write the same slots with
// no ordering between them: a warp reads back another warp's row. Right for R = 1 and for
// C > 256 (no cache); the tests' R = 3, 37 and 10 with C = 1 ... 128 show it (every warp but the
// last writer reads a foreign row). racecheck reports it too.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"
#include "online_softmax.cuh"
#include "softmax.hpp"

namespace softmax {

namespace {

/// Rows (warps) per block.
constexpr int kWarpsPerBlock = 8;
/// All 32 lanes take part in every shuffle.
constexpr unsigned kAllLanes = 0xffffffffu;
/// Longest row kept in shared memory between the two passes.
constexpr int kCacheCols = 256;

/// Warp w of the grid computes row w; lane l handles columns l, l + 32, l + 64, ...
__global__ void softmax_warp_online_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  const int lane = threadIdx.x % 32;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the same r for all 32 lanes: the whole warp leaves
  const float* xr = x + r * cols;
  float* yr = y + r * cols;

  // Pass 1: this lane's (max, sum) over its columns, one value at a time.
  MaxSum s = max_sum_identity();
  // BUG: one row cache for the whole block; each of its warps has its own row (should be [kWarpsPerBlock][kCacheCols]).
  __shared__ float row_cache[kCacheCols];
  const bool cached = cols <= kCacheCols;
  for (std::int64_t c = lane; c < cols; c += 32) {
    const float v = xr[c];
    if (cached) row_cache[c] = v;
    s = add(s, v);
  }

  // Merge the 32 lanes' states: a butterfly, so every lane ends with the row's state.
  for (int offset = 16; offset > 0; offset /= 2) {
    const MaxSum other = {__shfl_xor_sync(kAllLanes, s.max, offset), __shfl_xor_sync(kAllLanes, s.sum, offset)};
    s = merge(s, other);
  }

  // Pass 2: write the outputs (normalizer() handles the all -inf row: zeros).
  const Normalizer nz = normalizer(s);
  for (std::int64_t c = lane; c < cols; c += 32) {
    const float v = cached ? row_cache[c] : xr[c];
    yr[c] = expf(v - nz.shift) * nz.scale;
  }
}

}  // namespace

void exercise_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  softmax_warp_online_kernel<<<tut::blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(x, y, rows,
                                                                                                       cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
