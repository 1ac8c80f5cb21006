// Known-wrong submission (grader corpus): issue 23's coverage door for softmax. The solution with
// one change: the row index is kept in a 16-bit integer ("rows are never that many"). It wraps at
// 32768 rows: past that, warps compute negative rows and read and write before the matrices. The
// old cases stopped at 20000 rows. Caught by any case with more than 32767 rows (the parameter
// rows; needs the GPU and the ported softmax checker).
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"
#include "online_softmax.cuh"

namespace softmax {

namespace {

/// Rows (warps) per block.
constexpr int kWarpsPerBlock = 8;
/// All 32 lanes take part in every shuffle.
constexpr unsigned kAllLanes = 0xffffffffu;

/// Warp w of the grid computes row w; lane l handles columns l, l + 32, l + 64, ...
__global__ void softmax_warp_online_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  const int lane = threadIdx.x % 32;
  // BUG (on purpose): a 16-bit row index, which wraps at 32768 rows
  const std::int16_t r = static_cast<std::int16_t>(blockIdx.x * kWarpsPerBlock + threadIdx.x / 32);
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
  const Normalizer nz = normalizer(s);
  for (std::int64_t c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - nz.shift) * nz.scale;
}

}  // namespace

void exercise_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("exercise_softmax_warp_online: rows and cols must be >= 0");
  if (rows == 0 || cols == 0) return;  // an empty matrix: nothing to do
  softmax_warp_online_kernel<<<tut::blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(x, y, rows,
                                                                                                       cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
