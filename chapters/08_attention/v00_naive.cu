/// @file
/// @brief v00: attention as the formula reads, in three kernels: S = Q K^T * scale stored in global
/// memory, a softmax over each row of S (in place), O = P V.
#include <stdexcept>

#include "attention.hpp"
#include "common/check.hpp"
#include "common/launch.hpp"
#include "row_softmax.cuh"

namespace attention {

/// @brief S[bh, i, j] = scale * dot(Q[bh, i, :], K[bh, j, :]): one thread per score, j fastest.
// [scores]
__global__ void attention_v00_scores(const float* q, const float* k, float* s, std::int64_t heads, int sq, int sk,
                                    int d, float scale) {
  const std::int64_t total = heads * sq * sk;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = e / sk;  // bh * sq + i
    const std::int64_t j = e % sk, bh = row / sq;
    const float* qi = q + row * d;
    const float* kj = k + (bh * sk + j) * d;  // neighbouring threads read rows d floats apart: uncoalesced
    float dot = 0.0f;
    for (int c = 0; c < d; ++c) dot = fmaf(qi[c], kj[c], dot);
    s[e] = scale * dot;
  }
}
// [scores]

/// @brief O[bh, i, c] = sum_j P[bh, i, j] V[bh, j, c]: one thread per output, c fastest.
// [pv]
__global__ void attention_v00_pv(const float* p, const float* v, float* o, std::int64_t heads, int sq, int sk, int d) {
  const std::int64_t total = heads * sq * d;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = e / d;
    const std::int64_t c = e % d, bh = row / sq;
    const float* pr = p + row * sk;           // the same for the whole warp (when d >= 32): a broadcast
    const float* vc = v + bh * sk * d + c;    // consecutive threads, consecutive columns: coalesced
    float acc = 0.0f;
    for (int j = 0; j < sk; ++j) acc = fmaf(pr[j], vc[static_cast<std::int64_t>(j) * d], acc);
    o[e] = acc;
  }
}
// [pv]

/// @brief v00: three kernels and the whole score matrix in global memory.
///
/// **Idea.** The definition, one kernel per step: S = Q K^T * scale (one thread per score),
/// P = softmax(S) row by row (one warp per row, the masked keys set to zero), O = P V (one
/// thread per output). Any D, any Sq and Sk.
///
/// **What is wrong with it.** S has B H Sq Sk elements: 4 GiB at B 4, H 16, S 4096 (fp32),
/// 8 GiB at B 1, H 32, S 8192, against 256 and 512 MiB for Q, K, V and O together. It is written once,
/// read twice and written again by the softmax, and read once more by P V: at least 4 x 4 bytes of
/// traffic per score against 4 D FLOPs, an arithmetic intensity of D / 4 FLOP/byte, far below the
/// H100's ridge point; and the memory itself limits the problem size (the executable skips v00
/// where S does not fit). The score kernel also reads K uncoalesced (neighbouring threads read
/// rows D floats apart).
///
/// **Predicted.** A few TFLOP/s, bounded by memory traffic.
///
/// **Measured (H100, the run at 0b38325, docs/results/attention.json).** 0.89 TFLOP/s at B4 H16
/// S1024 D64 (19.25 ms),
/// below the prediction: each score is a D-long dot product whose K row every thread reads on its
/// own (32 rows per warp instruction), and each output of P V a 1024-long one. With the causal
/// mask, 0.45 TFLOP/s: all three kernels still do the full Sq x Sk (only half of it counts).
void launch_attention_v00_naive(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                               void* workspace, cudaStream_t stream) {
  check_shape(s);
  if (workspace == nullptr) throw std::invalid_argument("v00_naive: needs a workspace of B H Sq Sk floats for S");
  float* scores = static_cast<float*>(workspace);
  const int sq = static_cast<int>(s.sq), sk = static_cast<int>(s.sk), d = static_cast<int>(s.d);
  constexpr int kThreads = 256;
  attention_v00_scores<<<tut::grid_stride_blocks(attention_v00_scores, s.heads() * sq * sk, kThreads, kThreads),
                        kThreads, 0, stream>>>(q, k, scores, s.heads(), sq, sk, d, s.scale());
  CUDA_CHECK_LAUNCH();
  attention_row_softmax<float><<<tut::grid_stride_blocks(attention_row_softmax<float>, s.heads() * sq, kThreads,
                                                         kThreads / 32),
                                 kThreads, 0, stream>>>(scores, scores, lse, s.heads() * sq, sq, sk, s.causal);
  CUDA_CHECK_LAUNCH();
  attention_v00_pv<<<tut::grid_stride_blocks(attention_v00_pv, s.heads() * sq * d, kThreads, kThreads), kThreads, 0,
                    stream>>>(scores, v, o, s.heads(), sq, sk, d);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attention
