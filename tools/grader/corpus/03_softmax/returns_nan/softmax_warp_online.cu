// Known-wrong submission (grader corpus): pass 2 uses the raw row state, expf(x - max) / sum, instead of normalizer(),
// which maps an all -inf row to shift 0 and scale 0. Every ordinary row is right (within the
// tolerance); the all -inf row of the awkward-rows test gives exp(NaN) / 0 = NaN.
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

/// Warp w of the grid computes row w; lane l handles columns l, l + 32, l + 64, ...
__global__ void softmax_warp_online_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  const int lane = threadIdx.x % 32;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the same r for all 32 lanes: the whole warp leaves
  const float* xr = x + r * cols;
  float* yr = y + r * cols;

  // Pass 1: this lane's (max, sum) over its columns, one value at a time.
  MaxSum s = max_sum_identity();
  for (std::int64_t c = lane; c < cols; c += 32) s = add(s, xr[c]);

  // Merge the 32 lanes' states: a butterfly, so every lane ends with the row's state.
  for (int offset = 16; offset > 0; offset /= 2) {
    const MaxSum other = {__shfl_xor_sync(kAllLanes, s.max, offset), __shfl_xor_sync(kAllLanes, s.sum, offset)};
    s = merge(s, other);
  }

  // Pass 2: write the outputs (normalizer() handles the all -inf row: zeros).
  // BUG: the raw max and sum: an all -inf row gives exp(-inf - (-inf)) / 0 = NaN.
  for (std::int64_t c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - s.max) / s.sum;
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
