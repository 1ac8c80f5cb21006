/// @file
/// @brief Chapter 02's exercise: the warp-shuffle block reduction (v5-v7's building block), written by the student.
///
/// The student's file is exercises/02_reduce/block_reduce_sum.cu, the reference solution
/// solutions/02_reduce/block_reduce_sum.cu; both define exercise_reduce_sum(). In the chapter
/// executable, which links both, the build renames the solution's copy to solution_reduce_sum.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace reduce {

/// *out = x[0] + ... + x[n-1] (0 for n = 0), with `threads` threads per block (a multiple of 32
/// in [32, 1024]; std::invalid_argument otherwise). Each block sums its grid-stride share with
/// a warp-shuffle block reduction and adds it to *out with one atomicAdd; *out is zeroed first,
/// inside the call.
void exercise_reduce_sum(const float* x, float* out, std::int64_t n, int threads, cudaStream_t stream);

/// The reference solution's exercise_reduce_sum(), under its renamed symbol (executable only).
void solution_reduce_sum(const float* x, float* out, std::int64_t n, int threads, cudaStream_t stream);

}  // namespace reduce
