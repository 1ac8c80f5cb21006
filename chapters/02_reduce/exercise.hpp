/// @file
/// @brief Chapter 02's exercise: the warp-shuffle block reduction (v5-v7's building block), written by the student.
///
/// The student writes exercises/02_reduce/block_reduce_sum.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_reduce (the launcher, and the harness
/// that calls it: common/exercise/runner.hpp); build/bin/check_reduce runs that program on every
/// case and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py reduce`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace reduce {

/// *out = x[0] + ... + x[n-1] (0 for n = 0), with `threads` threads per block (a multiple of 32
/// in [32, 1024]; std::invalid_argument otherwise). Each block sums its grid-stride share with
/// a warp-shuffle block reduction and adds it to *out with one atomicAdd; *out is zeroed first,
/// inside the call, which only enqueues work on `stream`.
///
/// x may start at any float, not only at a 16-byte boundary (a sub-array view such as x + 1 is
/// a valid input). The result is checked against a double-precision sum: exactly for integer
/// inputs, and within min(n u, 6 sqrt(n) u) * sum|x_i| (u = 2^-24) otherwise, because the
/// atomics add the blocks' sums in an order that changes from run to run (reduce::tolerance(),
/// Order::any).
void exercise_reduce_sum(const float* x, float* out, std::int64_t n, int threads, cudaStream_t stream);

}  // namespace reduce
