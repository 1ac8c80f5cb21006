/// @file
/// @brief Chapter 06's exercise: 2-D register blocking (v04's idea) on a strided thread tile.
///
/// The student writes exercises/06_gemm/gemm_2d_blocktile.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_gemm (the launcher, and the harness that
/// calls it: common/exercise/runner.hpp); build/bin/check_gemm runs that program on every case
/// and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py gemm`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemm {

/// C = alpha * A B + beta * C with row-major A (m x k), B (k x n) and C (m x n), for any
/// m, n, k >= 1 (k = 0 too: C = beta * C) and any finite alpha and beta, on `stream`. When
/// beta == 0, C is not read (it may hold NaN: the BLAS rule). A, B and C may start at any
/// float address (no alignment is required: every access is 4 bytes wide). A block of 256
/// threads computes a 128 x 128 tile of C through shared memory in k-slices of 8; thread
/// (tx, ty) = (t % 16, t / 16) accumulates the 8 x 8 outputs at rows ty + 16 i and columns
/// tx + 16 j of the tile (i, j < 8) in registers. Throws std::invalid_argument when a dimension
/// is negative or above 2^31 - 1, or m needs more than 65535 tiles of 128 rows.
/// The call only enqueues work on `stream` (no synchronization, no host computation): the
/// checker captures one call into a CUDA graph and replays it on fresh inputs.
void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream);

}  // namespace gemm
