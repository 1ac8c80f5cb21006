/// @file
/// @brief The softmax between the two products of the unfused paths (v00 and the cuBLAS baselines):
/// one warp per row of the stored score matrix S, P written next to (or over) it, lse on the side.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "attention.hpp"

namespace attention {

/// Stores a probability as fp32 or bf16.
__device__ __forceinline__ void store_probability(float* p, float x) { *p = x; }
/// See store_probability(float*, float).
__device__ __forceinline__ void store_probability(__nv_bfloat16* p, float x) { *p = __float2bfloat16_rn(x); }

/// exp(from - to) for to >= from, with exp(-inf - (-inf)) taken as 1 (both sums are 0 then).
__device__ __forceinline__ float shift_factor(float from, float to) { return from == to ? 1.0f : expf(from - to); }

/// @brief One warp per row r = bh * Sq + i of S (scores already scaled, natural units):
/// P[r, j] = exp(S[r, j] - max) / sum for the visible keys j < visible_keys(i), 0 after them (the
/// mask), and lse[r] = max + log(sum) (-inf for a row that sees no key; its P row is all zeros).
///
/// Two passes over the row: the online (max, sum) of chapter 03, merged over the 32 lanes, then
/// the normalized writes. `p` may be `s` itself (fp32, in place): each element is read and then
/// written by the same thread.
// [row_softmax]
template <class OutT>
__global__ void attention_row_softmax(const float* s, OutT* p, float* lse, std::int64_t rows, int sq, int sk,
                                      bool causal) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; r < rows;
       r += warps) {
    const int n = static_cast<int>(visible_keys(r % sq, sq, sk, causal));
    const float* sr = s + r * sk;
    OutT* pr = p + r * sk;
    // Pass 1: this lane's running (max, sum) over its columns, then the warp's.
    float m = -INFINITY, l = 0.0f;
    for (int j = lane; j < n; j += 32) {
      const float x = sr[j];
      if (x > m) {
        l = l * shift_factor(m, x) + 1.0f;
        m = x;
      } else {
        l += expf(x - m);
      }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, offset), l2 = __shfl_xor_sync(0xffffffffu, l, offset);
      const float mm = fmaxf(m, m2);
      l = l * shift_factor(m, mm) + l2 * shift_factor(m2, mm);
      m = mm;
    }
    // Pass 2: normalized probabilities; zeros for the masked keys.
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (int j = lane; j < sk; j += 32) store_probability(pr + j, j < n ? expf(sr[j] - m) * inv : 0.0f);
    if (lane == 0) lse[r] = l > 0.0f ? m + logf(l) : -INFINITY;
  }
}
// [row_softmax]

}  // namespace attention
