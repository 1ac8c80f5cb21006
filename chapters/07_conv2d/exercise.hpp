/// @file
/// @brief Chapter 07's exercise: the shared-memory input tile with its halo (direct convolution,
/// NCHW, fp32: v1's idea).
///
/// The student's file is exercises/07_conv2d/conv2d_smem_tile.cu, the reference solution
/// solutions/07_conv2d/conv2d_smem_tile.cu; both define exercise_conv2d_smem_tile(). In the
/// chapter executable, which links both, the build renames the solution's copy to
/// solution_conv2d_smem_tile.
#pragma once

#include <cuda_runtime.h>

#include "conv2d.hpp"

namespace conv2d {

/// y = x (*) w (NCHW input, KCRS filter, NKPQ output; any valid shape whose input tile fits in
/// 48 KiB of shared memory): one 16 x 16 output tile of one (n, k) plane per block, the input
/// tile with its halo staged in shared memory one channel at a time.
void exercise_conv2d_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);

/// The reference solution's exercise_conv2d_smem_tile(), under its renamed symbol (executable only).
void solution_conv2d_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);

}  // namespace conv2d
