/// @file
/// @brief Chapter 08's exercise: the tiled online-softmax kernel (FlashAttention-1's update, v02's
/// idea, in a smaller geometry of its own), written by the student.
///
/// The student writes exercises/08_attention/attention_tiled.cu, which defines this launcher. It is
/// built into its own small program, build/bin/exercise_attention (the launcher, and the harness
/// that calls it: common/exercise/runner.hpp); build/bin/check_attention runs that program on
/// every case and compares its O and lse with the CPU reference. One command does all:
/// `python3 tools/exercise.py attention`.
#pragma once

#include <cuda_runtime.h>

#include "attention.hpp"

namespace attention {

/// Attention forward on fp32 tensors (the LaunchF32 signature), enqueued on `stream`.
///
/// The contract: D = 64 or 128 (std::invalid_argument otherwise); any B, H, Sq, Sk >= 1, Sq != Sk
/// allowed; with or without the causal mask, aligned bottom-right (query i sees key j iff
/// j <= i + Sk - Sq); scale = 1 / sqrt(D). Writes all of O [B, H, Sq, D] and lse [B, H, Sq]; a row
/// that sees no key gets O = 0 and lse = -inf exactly. Q, K, V are read only. Every array starts at
/// a 16-byte aligned address (as cudaMalloc's do; with D = 64 or 128 so does every row). `workspace`
/// is not used (no bytes: the checker hands over an empty, guarded array, so nothing may be written
/// through it). Scores may reach several hundred: no exp() may overflow.
///
/// The geometry: 128 threads own 32 query rows (4 threads per row), K and V pass through shared
/// memory 32 keys at a time, the online softmax keeps O normalized (FlashAttention-1).
void exercise_attention_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                              void* workspace, cudaStream_t stream);

}  // namespace attention
