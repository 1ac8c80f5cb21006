/// @file
/// @brief Chapter 08's exercise: the tiled online-softmax kernel (the FlashAttention-1 step, v2's idea).
///
/// The student's file is exercises/08_attention/attention_tiled.cu, the reference solution
/// solutions/08_attention/attention_tiled.cu; both define exercise_attention_tiled(). In the chapter
/// executable, which links both, the build renames the solution's copy to solution_attention_tiled.
#pragma once

#include <cuda_runtime.h>

#include "attention.hpp"

namespace attention {

/// Attention forward on fp32 tensors (the LaunchF32 signature; `workspace` is unused) for D = 64 or
/// 128, any B, H, Sq, Sk, with or without the causal mask: 32 query rows per block, K and V through
/// shared memory 32 keys at a time, the online softmax with O kept normalized (FlashAttention-1).
/// Writes O and lse. Throws std::invalid_argument for another D.
void exercise_attention_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                              void* workspace, cudaStream_t stream);

/// The reference solution's exercise_attention_tiled(), under its renamed symbol (executable only).
void solution_attention_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                              void* workspace, cudaStream_t stream);

}  // namespace attention
