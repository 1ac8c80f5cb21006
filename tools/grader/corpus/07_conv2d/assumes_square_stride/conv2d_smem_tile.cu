// Known-wrong submission (grader corpus): issue 23's coverage door for conv2d. The solution with
// one change: it uses stride_h for both directions (the input tile's width, the tile's first
// column and each output's window), as if every stride were square. The old cases never had
// stride_h != stride_w, so it passed. Caught by any case with stride_h != stride_w (the
// parameters stride_h and stride_w vary independently in the checker's cases; needs the GPU).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "conv2d.hpp"
#include "exercise.hpp"

namespace conv2d {

namespace {

constexpr int kTile = 16;  // a block computes kTile x kTile outputs of one (n, k) plane
constexpr int kThreads = kTile * kTile;

/// y[n, k, p0 + ty, q0 + tx] for the block's tile; `rows` x `cols` is the input tile behind it
/// (the halo included), `tiles_q` the number of tiles along q.
// [kernel]
__global__ void __launch_bounds__(kThreads) smem_tile_kernel(Dims d, int tiles_q, int rows, int cols,
                                                             const float* __restrict__ x, const float* __restrict__ w,
                                                             float* __restrict__ y) {
  extern __shared__ float tile[];  // (rows, cols): x[n, c, h0 + row, w0 + col], 0 outside the image
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  const int k = blockIdx.y, n = blockIdx.z;
  const int p0 = blockIdx.x / tiles_q * kTile, q0 = blockIdx.x % tiles_q * kTile;  // first output of the tile
  const int h0 = p0 * d.stride_h - d.pad_h, w0 = q0 * d.stride_h - d.pad_w;  // BUG (on purpose): stride_h
  const float* x_n = x + static_cast<std::int64_t>(n) * d.c * d.h * d.w;           // x[n, :, :, :]
  const float* w_k = w + static_cast<std::int64_t>(k) * d.c * d.r * d.s;           // w[k, :, :, :]

  float acc = 0.0f;
  for (int c = 0; c < d.c; ++c) {
    const float* x_plane = x_n + static_cast<std::int64_t>(c) * d.h * d.w;  // x[n, c, :, :]
    for (int e = threadIdx.x; e < rows * cols; e += kThreads) {
      const int h = h0 + e / cols, wc = w0 + e % cols;
      const bool inside = h >= 0 && h < d.h && wc >= 0 && wc < d.w;  // outside: the zero padding
      tile[e] = inside ? x_plane[static_cast<std::int64_t>(h) * d.w + wc] : 0.0f;
    }
    __syncthreads();  // the whole tile is in shared memory before anyone reads it

    const float* window = tile + ty * d.stride_h * cols + tx * d.stride_h;  // BUG (on purpose)
    const float* taps = w_k + c * d.r * d.s;                                // w[k, c, :, :]
    for (int r = 0; r < d.r; ++r)
      for (int s = 0; s < d.s; ++s) acc += window[r * cols + s] * taps[r * d.s + s];
    __syncthreads();  // everyone is done with this channel before the next one overwrites the tile
  }
  const int p = p0 + ty, q = q0 + tx;
  if (p < d.p && q < d.q) y[((static_cast<std::int64_t>(n) * d.k + k) * d.p + p) * d.q + q] = acc;
}
// [kernel]

}  // namespace

void exercise_conv2d_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  require_valid(s, "conv2d_smem_tile");
  // The input rows and columns behind kTile outputs: kTile - 1 strides plus one filter.
  // BUG (on purpose): the tile's width from stride_h
  const std::int64_t rows = (kTile - 1) * s.stride_h + s.r, cols = (kTile - 1) * s.stride_h + s.s;
  const std::int64_t bytes = rows * cols * static_cast<std::int64_t>(sizeof(float));
  if (bytes > 48 * 1024) {
    throw std::invalid_argument("conv2d_smem_tile: the input tile needs " + std::to_string(bytes) +
                                " bytes of shared memory (more than 48 KiB)");
  }
  if (s.k > 65535 || s.n > 65535) throw std::invalid_argument("conv2d_smem_tile: at most 65535 images and filters");
  const std::int64_t tiles_q = (s.q() + kTile - 1) / kTile, tiles_p = (s.p() + kTile - 1) / kTile;
  const dim3 grid(static_cast<unsigned>(tiles_q * tiles_p), static_cast<unsigned>(s.k), static_cast<unsigned>(s.n));
  smem_tile_kernel<<<grid, kThreads, static_cast<std::size_t>(bytes), stream>>>(
      dims_of(s), static_cast<int>(tiles_q), static_cast<int>(rows), static_cast<int>(cols), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
