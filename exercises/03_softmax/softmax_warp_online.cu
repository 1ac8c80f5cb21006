/// @file
/// @brief Exercise (chapter 03): online softmax with one warp per row.
///
/// Your task: fill in the three TODO(student) blocks of softmax_warp_online_kernel so that
/// y = softmax(x) row by row, for ANY number of columns (1, 33, 4097, 2^22 + 1, ...), any
/// number of rows, and x and y starting at any float (the checker passes them 0-3 floats past a
/// 16-byte boundary: keep to scalar loads and stores).
///
///  - Read chapters/03_softmax/README.md first: section "v3: the online softmax, two passes"
///    (the same two passes with a block per row) and "Exercise: the online softmax, one warp
///    per row"; and the helpers in chapters/03_softmax/online_softmax.cuh (MaxSum, add, merge,
///    normalizer).
///  - Check it, and time it against the solution, with one command (it rebuilds what you changed):
///        python3 tools/exercise.py softmax
///    The checker reports FAILED until you are done. Without a GPU it builds your file, and its
///    last line says NOT CHECKED.
///
/// Budget: two passes over the row (each element read twice, written once), one exp per
/// element per pass, and 10 shuffles per row (5 steps x 2 fields). No shared memory.
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

  // TODO(student) 1/3 -- pass 1 (1 line): fold every column of this lane (lane, lane + 32,
  //   lane + 64, ... below cols) into s, one value at a time, with the online update add()
  //   (running max, and the running sum rescaled whenever the max grows).

  // TODO(student) 2/3 -- merge the 32 lanes' states (about 4 lines): a butterfly of five steps,
  //   the partner 16, 8, 4, 2, then 1 lanes away. In each step fetch the partner's state, both
  //   fields, with __shfl_xor_sync (full mask: kAllLanes) and combine it into s with merge().
  //   After the last step every lane holds the whole row's (max, sum).

  // TODO(student) 3/3 -- pass 2 (2 lines): turn s into a Normalizer with normalizer() (it makes
  //   a row of only -inf give zeros instead of NaN), then write every column of this lane:
  //   y = exp(x - shift) * scale.
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
