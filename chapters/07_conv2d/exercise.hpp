/// @file
/// @brief Chapter 07's exercise: the shared-memory input tile with its halo (direct convolution,
/// NCHW, fp32: v01's idea).
///
/// The student writes exercises/07_conv2d/conv2d_smem_tile.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_conv2d (the launcher, and the harness
/// that calls it: common/exercise/runner.hpp); build/bin/check_conv2d runs that program on every
/// case and compares its outputs with the CPU reference. One command does all:
/// `python3 tools/exercise.py conv2d`.
#pragma once

#include <cuda_runtime.h>

#include "conv2d.hpp"

namespace conv2d {

/// y = x (*) w, the cross-correlation of conv2d.hpp (the filter is not flipped): NCHW input x,
/// KCRS filter w, NKPQ output y, fp32, on `stream` only (no synchronization: the checker
/// captures the call into a CUDA graph). One 16 x 16 output tile of one (n, k) plane per block,
/// the input tile with its halo staged in shared memory one channel at a time.
///
/// The contract, which every case of the checker keeps: a valid shape (shape_error() empty: any
/// N, C, K, image, filter, padding and stride per axis, the filter even larger than the image
/// where the padding makes room), whose input tile, (15 stride_h + R) x (15 stride_w + S)
/// floats, fits in 48 KiB of shared memory, with N and K at most 65535
/// (std::invalid_argument otherwise); x, w and y may start at any float (no alignment needed).
void exercise_conv2d_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream);

}  // namespace conv2d
