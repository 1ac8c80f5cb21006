/// @file
/// @brief Chapter 04's exercise: y = A x with one warp per row and float4 loads (v3's idea),
/// written by the student.
///
/// The student's file is exercises/04_gemv/gemv_warp_float4.cu, the reference solution
/// solutions/04_gemv/gemv_warp_float4.cu; both define exercise_gemv_warp_float4(). In the
/// chapter executable, which links both, the build renames the solution's copy to
/// solution_gemv_warp_float4.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemv {

/// y = A x for a row-major M x K matrix A (x: K floats, y: M floats): one warp per row, float4
/// loads of A with a scalar head and tail, for any M, K >= 1 and any alignment of A and x.
void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream);

/// The reference solution's exercise_gemv_warp_float4(), under its renamed symbol (executable only).
void solution_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream);

}  // namespace gemv
