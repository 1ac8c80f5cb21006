/// @file
/// @brief Chapter 05's exercise: the transpose through a padded shared-memory tile (v03's idea),
/// written by the student.
///
/// The student writes exercises/05_transpose/transpose_padded.cu, which defines this launcher. It
/// is built into its own small program, build/bin/exercise_transpose (the launcher, and the
/// harness that calls it: common/exercise/runner.hpp); build/bin/check_transpose runs that
/// program on every case and compares its outputs with the CPU reference, exactly. One command
/// does all: `python3 tools/exercise.py transpose`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace transpose {

/// B = A^T for a row-major R x C matrix A (B: row-major C x R) through a 32 x 32 shared-memory
/// tile without bank conflicts, for any R, C >= 1 and any alignment of A and B (4-byte loads and
/// stores only).
/// The call only enqueues work on `stream` (no synchronization, no host computation): the
/// checker captures one call into a CUDA graph and replays it on fresh inputs.
void exercise_transpose_padded(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream);

}  // namespace transpose
