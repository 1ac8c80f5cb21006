/// @file
/// @brief Chapter 06's exercise: the 2-D register-blocked shared-memory kernel (v4's idea).
///
/// The student's file is exercises/06_gemm/gemm_2d_blocktile.cu, the reference solution
/// solutions/06_gemm/gemm_2d_blocktile.cu; both define exercise_gemm_2d_blocktile(). In the
/// chapter executable, which links both, the build renames the solution's copy to
/// solution_gemm_2d_blocktile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemm {

/// C = alpha * A B + beta * C (row-major, any m, n, k) with 128 x 128 block tiles, k-slices of 8
/// in shared memory, and an 8 x 8 register tile per thread. When beta == 0, C is not read.
void exercise_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream);

/// The reference solution's exercise_gemm_2d_blocktile(), under its renamed symbol (executable only).
void solution_gemm_2d_blocktile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                                const float* b, float beta, float* c, cudaStream_t stream);

}  // namespace gemm
