/// @file
/// @brief v00: one thread per output element, straight from the definition (NCHW, fp32).
#include "common/check.hpp"
#include "common/launch.hpp"
#include "conv2d.hpp"

namespace conv2d {

/// @brief y = x (*) w, one thread per output element y[n, k, p, q], consecutive threads on
/// consecutive q (NCHW, KCRS, NKPQ).
///
/// Each thread walks the C x R x S window of its output, skipping taps that fall in the zero
/// padding, and reads every input and filter value from global memory. The flat output index is
/// 64-bit: N K P Q may exceed 2^31.
// [kernel]
__global__ void __launch_bounds__(256) conv2d_v00_naive(Dims d, const float* __restrict__ x,
                                                       const float* __restrict__ w, float* __restrict__ y) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t total = static_cast<std::int64_t>(d.n) * d.k * d.p * d.q;
  if (i >= total) return;
  const int q = static_cast<int>(i % d.q);  // the output this thread computes: (n, k, p, q)
  const int p = static_cast<int>(i / d.q % d.p);
  const int k = static_cast<int>(i / (static_cast<std::int64_t>(d.q) * d.p) % d.k);
  const int n = static_cast<int>(i / (static_cast<std::int64_t>(d.q) * d.p * d.k));
  const int h0 = p * d.stride_h - d.pad_h, w0 = q * d.stride_w - d.pad_w;  // top-left of the window

  float acc = 0.0f;
  for (int c = 0; c < d.c; ++c) {
    const float* x_plane = x + (static_cast<std::int64_t>(n) * d.c + c) * d.h * d.w;  // x[n, c, :, :]
    const float* w_plane = w + (static_cast<std::int64_t>(k) * d.c + c) * d.r * d.s;  // w[k, c, :, :]
    for (int r = 0; r < d.r; ++r) {
      const int h = h0 + r;
      if (h < 0 || h >= d.h) continue;  // a padding row: adds zero
      for (int s = 0; s < d.s; ++s) {
        const int col = w0 + s;
        if (col < 0 || col >= d.w) continue;
        acc += x_plane[static_cast<std::int64_t>(h) * d.w + col] * w_plane[r * d.s + s];  // not flipped
      }
    }
  }
  y[i] = acc;
}
// [kernel]

/// @brief v00, the naive version: the definition, one thread per output.
///
/// **Idea.** Cross-correlation as written in the framework's documentation: thread (n, k, p, q)
/// sums C R S products. Consecutive threads take consecutive q, so a warp reads 32 neighbouring
/// input values of one row (coalesced, or every stride-th one) and one filter value (a
/// broadcast), and writes 32 consecutive outputs.
///
/// **What is wrong with it.** Every input value is loaded K R S times (once per output channel and
/// filter tap that uses it) and every filter value P Q N times, each time from global memory
/// through L1: two loads per multiply-add, an arithmetic intensity of 2 FLOP per 8 bytes
/// requested, while a 3x3 layer of 64 channels allows hundreds. L1 hits hide part of it, but the
/// load instructions themselves (and the index arithmetic and padding checks around them)
/// outnumber the FMAs several times over.
///
/// **Predicted.** A few TFLOP/s at most on an H100: bound by the load/store unit's
/// instruction rate, not by memory bandwidth, a few percent of cuDNN.
///
/// **Measured (H100, docs/results/conv2d.json).** 2.15 TFLOP/s on N32 C64 56x56 3x3 (3.45 ms,
/// 4.5% of cuDNN's fastest fp32 row), 0.77 on the 1x1 layer, 2.6 on the 7x7 stem, 2.2 on the
/// 6-channel image: as predicted, a few TFLOP/s.
/// Recorded run (H100, git 0b3832529293): 3.4491 ms on N32 C64 56x56 (2.15 TFLOP/s), 1.7905 ms on 28x28 (2.07), 0.9491
/// ms on 14x14 (1.95), 4.2776 ms on the 1x1 layer (0.77), 0.7277 ms on the stem (2.59), 0.4507 ms on the 6-channel
/// image (2.22).
void launch_conv2d_v00_naive(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  require_valid(s, "v00_naive_nchw");
  conv2d_v00_naive<<<tut::blocks_for(s.output_elements(), 256), 256, 0, stream>>>(dims_of(s), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
