// A CORRECT submission (grader corpus): it must PASS. One warp per row with a plain scalar loop
// (no float4, no head or tail split): lane l multiplies columns l, l + 32, ... and the warp sums
// its 32 partial sums with shuffles. Its rounding differs from the solution's (another order of
// the same products), and where the terms of a row cancel (M = 1, K = 2 and the like) the result
// is tiny next to its terms: the old grader, whose tolerance was relative to |y| alone, failed it
// there (got -0.00678649545, expected -0.00678647668). The checker now bounds each result's error
// by the sum of its terms' magnitudes, sum |A_ij x_j|, times the summation's error factor.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kRowsPerBlock = 4;

__global__ void gemv_scalar_kernel(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  if (row >= M) return;
  const float* a = A + row * K;
  float sum = 0.0f;
  for (std::int64_t k = lane; k < K; k += 32) sum += a[k] * x[k];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (lane == 0) y[row] = sum;
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_scalar_kernel<<<tut::blocks_for(M, kRowsPerBlock), kRowsPerBlock * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
