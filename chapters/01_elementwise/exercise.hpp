/// @file
/// @brief Chapter 01's exercise: the float4 vector add (v3's idea), written by the student.
///
/// The student's file is exercises/01_elementwise/add_float4.cu, the reference solution
/// solutions/01_elementwise/add_float4.cu; both define exercise_add_float4(). In the chapter
/// executable, which links both, the build renames the solution's copy to solution_add_float4.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace elementwise {

/// out[i] = a[i] + b[i] for i in [0, n), with 16-byte float4 loads and stores and a scalar
/// tail. All three pointers must be 16-byte aligned (std::invalid_argument otherwise).
void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);

/// The reference solution's exercise_add_float4(), under its renamed symbol (executable only).
void solution_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);

}  // namespace elementwise
