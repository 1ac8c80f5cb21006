/// @file
/// @brief Exercise (chapter 03): online softmax with one warp per row.
///
/// Your task: fill in the three TODO(student) blocks of softmax_warp_online_kernel so that
/// y = softmax(x) row by row, for ANY number of columns (1, 33, 4097, 100000, ...).
///
///  - Read chapters/03_softmax/README.md, section "v3: online softmax", and the helpers in
///    chapters/03_softmax/online_softmax.cuh (MaxSum, add, merge, normalizer) first.
///  - Run the tests:   ctest --preset exercise -R softmax
///    (or build/bin/test_softmax_exercise). They fail until you are done, then pass.
///  - Compare speeds:  build/bin/softmax --version exercise --version solution --version v3_online
///
/// Budget: two passes over the row (each element read twice, written once), one exp per
/// element per pass, and 10 shuffles per row (5 steps x 2 fields). No shared memory.
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
[[maybe_unused]] constexpr unsigned kAllLanes = 0xffffffffu;

/// Warp w of the grid computes row w; lane l handles columns l, l + 32, l + 64, ...
__global__ void softmax_warp_online_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
  // Given: which row this warp owns, and where it starts.
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the same r for all 32 lanes: the whole warp leaves
  [[maybe_unused]] const float* xr = x + r * cols;
  [[maybe_unused]] float* yr = y + r * cols;
  [[maybe_unused]] MaxSum s = max_sum_identity();

  // TODO(student) 1/3 -- pass 1 (1 line): for c = lane, lane + 32, ... while c < cols:
  //   s = add(s, xr[c]);   (the online update: running max and rescaled running sum)

  // TODO(student) 2/3 -- merge the 32 lanes' states (about 4 lines): for offset = 16, 8, 4, 2, 1,
  //   fetch the partner lane's state, both fields, with __shfl_xor_sync(kAllLanes, ..., offset),
  //   and s = merge(s, other). After 5 steps every lane holds the whole row's (max, sum).

  // TODO(student) 3/3 -- pass 2 (2 lines): const Normalizer nz = normalizer(s); then for every
  //   column of this lane: yr[c] = expf(xr[c] - nz.shift) * nz.scale.
  //   (normalizer() makes a row of only -inf give zeros instead of NaN.)
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
