/// @file
/// @brief Chapter 04's exercise: y = A x with one warp per row and float4 loads (v3's idea),
/// written by the student.
///
/// The student writes exercises/04_gemv/gemv_warp_float4.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_gemv (the launcher, and the harness that
/// calls it: common/exercise/runner.hpp); build/bin/check_gemv runs that program on every case
/// and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py gemv`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemv {

/// y = A x for a row-major M x K matrix A (x: K floats, y: M floats): one warp per row, float4
/// loads of A with a scalar head and tail, for any M, K >= 1 and any alignment of A, x and y
/// (each only 4-byte aligned, as any float is: the kernel finds each row's 16-byte boundary).
/// The call only enqueues work on `stream` (no synchronization, no host computation): the
/// checker captures one call into a CUDA graph and replays it on fresh inputs.
void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream);

}  // namespace gemv
