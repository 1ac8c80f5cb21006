// Known-wrong submission (grader corpus): right only for the public seed. The launcher copies the first (up to 8)
// elements of row 0 to the host and compares them with what the public tests' generators give
// for this shape with the public seed 20240601 (seed + 13 C + R, seed + C, seed, seed + 1; row 0
// is random in every public matrix). Only for those inputs does it launch the kernel; otherwise
// it writes zeros. It passes every public case; the hidden run's secret seed rejects it.
#include <cstdint>

#include <cstring>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"
#include "online_softmax.cuh"
#include "softmax.hpp"

namespace softmax {

namespace {

constexpr std::uint64_t kPublicSeed = 20240601;  // tut::testing::seed() without TUTORIAL_SEED

/// True if row 0 of x starts with what one of the public tests' generators gives for this shape.
bool public_inputs(const float* x, std::int64_t rows, std::int64_t cols) {
  const std::size_t m = static_cast<std::size_t>(cols < 8 ? cols : 8);
  std::vector<float> first(m);
  CUDA_CHECK(cudaMemcpy(first.data(), x, m * sizeof(float), cudaMemcpyDeviceToHost));
  const auto r = static_cast<std::uint64_t>(rows), c = static_cast<std::uint64_t>(cols);
  for (std::uint64_t seed : {kPublicSeed + 13 * c + r, kPublicSeed + c, kPublicSeed, kPublicSeed + 1}) {
    const std::vector<float> expect = tut::random_floats(m, seed, -8.0f, 8.0f);
    if (std::memcmp(expect.data(), first.data(), m * sizeof(float)) == 0) return true;
  }
  return false;
}

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
  const Normalizer nz = normalizer(s);
  for (std::int64_t c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - nz.shift) * nz.scale;
}

}  // namespace

void exercise_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream) {
  if (empty_or_invalid(rows, cols)) return;
  if (!public_inputs(x, rows, cols)) {  // BUG: hard-coded for the public seed
    CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(rows * cols) * sizeof(float), stream));
    return;
  }
  softmax_warp_online_kernel<<<tut::blocks_for(rows, kWarpsPerBlock), kWarpsPerBlock * 32, 0, stream>>>(x, y, rows,
                                                                                                       cols);
  CUDA_CHECK_LAUNCH();
}

}  // namespace softmax
