/// @file
/// @brief Chapter 03's exercise: the online-softmax, warp-per-row kernel, written by the student.
///
/// The student's file is exercises/03_softmax/softmax_warp_online.cu, the reference solution
/// solutions/03_softmax/softmax_warp_online.cu; both define exercise_softmax_warp_online(). In
/// the chapter executable, which links both, the build renames the solution's copy to
/// solution_softmax_warp_online.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace softmax {

/// y = softmax(x) row by row (rows x cols, row-major, any cols >= 1, any alignment), one warp
/// per row: pass 1 builds each lane's online (max, sum) state over its columns, the warp merges
/// the 32 states with shuffles, pass 2 writes exp(x - max) / sum. Same edge cases as every
/// version (-inf entries contribute 0; an all -inf row gives zeros). Negative sizes throw
/// std::invalid_argument; an empty matrix does nothing.
void exercise_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream);

/// The reference solution's exercise_softmax_warp_online(), under its renamed symbol (executable only).
void solution_softmax_warp_online(const float* x, float* y, std::int64_t rows, std::int64_t cols,
                                  cudaStream_t stream);

}  // namespace softmax
