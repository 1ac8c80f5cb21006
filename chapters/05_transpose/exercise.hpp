/// @file
/// @brief Chapter 05's exercise: the transpose through a padded shared-memory tile (v3's idea),
/// written by the student.
///
/// The student's file is exercises/05_transpose/transpose_padded.cu, the reference solution
/// solutions/05_transpose/transpose_padded.cu; both define exercise_transpose_padded(). In the
/// chapter executable, which links both, the build renames the solution's copy to
/// solution_transpose_padded.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace transpose {

/// B = A^T for a row-major R x C matrix A (B: row-major C x R) through a 32 x 33 shared-memory
/// tile, for any R, C >= 1.
void exercise_transpose_padded(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);

/// The reference solution's exercise_transpose_padded(), under its renamed symbol (executable only).
void solution_transpose_padded(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);

}  // namespace transpose
