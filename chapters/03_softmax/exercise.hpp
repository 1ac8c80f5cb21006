/// @file
/// @brief Chapter 03's exercise: the online-softmax, warp-per-row kernel, written by the student.
///
/// The student writes exercises/03_softmax/softmax_warp_online.cu, which defines this launcher.
/// It is built into its own small program, build/bin/exercise_softmax (the launcher, and the
/// harness that calls it: common/exercise/runner.hpp); build/bin/check_softmax runs that program
/// on every case and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py softmax`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace softmax {

/// y = softmax(x) row by row (rows x cols, row-major, any cols >= 1, x and y starting at any
/// float: no alignment required), one warp per row: pass 1 builds each lane's online (max, sum)
/// state over its columns, the warp merges the 32 states with shuffles, pass 2 writes
/// exp(x - max) / sum. Same edge cases as every version (-inf entries contribute 0; an all -inf
/// row gives zeros). Negative sizes throw std::invalid_argument; an empty matrix does nothing.
/// The call only enqueues work on `stream`. Every output must be within the tolerance of the
/// chapter's trees, softmax::tolerance(cols), of the double-precision reference.
void exercise_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream);

}  // namespace softmax
