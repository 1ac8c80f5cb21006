/// @file
/// @brief Chapter 01's exercise: the float4 vector add (v3's idea), written by the student.
///
/// The student writes exercises/01_elementwise/add_float4.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_elementwise (the launcher, and the
/// harness that calls it: common/exercise/runner.hpp); build/bin/check_elementwise runs that
/// program on every case and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py elementwise`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace elementwise {

/// out[i] = a[i] + b[i] for i in [0, n), with 16-byte float4 loads and stores and a scalar
/// tail. All three pointers must be 16-byte aligned (std::invalid_argument otherwise).
/// The call only enqueues work on `stream` (no synchronization, no host computation): the
/// checker captures one call into a CUDA graph and replays it on fresh inputs.
void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream);

}  // namespace elementwise
