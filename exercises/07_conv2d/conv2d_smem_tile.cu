/// @file
/// @brief Exercise (chapter 07): the shared-memory input tile with its halo (direct convolution).
///
/// Your task: fill in the two TODO(student) blocks of smem_tile_kernel so that it computes the
/// convolution (cross-correlation, as frameworks define it: the filter is NOT flipped) for ANY
/// valid shape: any N, C, K, image size, filter size, padding and stride.
///
///  - Read chapters/07_conv2d/README.md, sections "The problem" and "v1", first.
///  - Run the tests:   ctest --preset exercise -R conv2d
///    (or build/bin/test_conv2d_exercise). They fail until you are done, then pass.
///  - Compare speeds:  build/bin/conv2d --dtype fp32 --version exercise --version solution --version v1_smem_tile_nchw
///
/// The layout (everything outside the two TODOs is given and correct):
///  - NCHW input x, KCRS filter w, NKPQ output y, all fp32;
///  - a block of 16 x 16 threads computes the outputs y[n, k, p0 + ty, q0 + tx] (ty, tx < 16);
///  - those outputs read the input rows h0 .. h0 + rows - 1 and columns w0 .. w0 + cols - 1 of
///    each channel, where h0 = p0 stride_h - pad_h, w0 = q0 stride_w - pad_w (negative at the top
///    and left edges: that is the padding), rows = 15 stride_h + R, cols = 15 stride_w + S;
///  - per input channel c the block stages that rows x cols tile in shared memory (`tile`,
///    row-major), waits, accumulates, and waits again before the next channel overwrites it.
///
/// Budget per channel: each thread loads about rows * cols / 256 input values from global
/// memory (one or two for a 3x3 filter) and R * S filter values, and reads its R * S window from
/// shared memory: no global load per multiply-add, no padding check in the sum.
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
  [[maybe_unused]] const int h0 = p0 * d.stride_h - d.pad_h, w0 = q0 * d.stride_w - d.pad_w;  // first input
  const float* x_n = x + static_cast<std::int64_t>(n) * d.c * d.h * d.w;                         // x[n, :, :, :]
  [[maybe_unused]] const float* w_k = w + static_cast<std::int64_t>(k) * d.c * d.r * d.s;        // w[k, :, :, :]

  float acc = 0.0f;
  for (int c = 0; c < d.c; ++c) {
    [[maybe_unused]] const float* x_plane = x_n + static_cast<std::int64_t>(c) * d.h * d.w;  // x[n, c, :, :]
    // TODO(student) 1/2 -- stage the input tile with its halo (about 5 lines):
    //   for each element e = threadIdx.x, threadIdx.x + kThreads, ... below rows * cols:
    //     (h, wc) = (h0 + e / cols, w0 + e % cols) is an input position of channel c;
    //     tile[e] = x_plane[h * d.w + wc] if it lies inside the image (0 <= h < d.h and
    //     0 <= wc < d.w), else 0.0f (the zero padding: all four sides!).
    //   Use a 64-bit offset for x_plane (static_cast<std::int64_t>(h) * d.w + wc).
    __syncthreads();  // the whole tile is in shared memory before anyone reads it

    // TODO(student) 2/2 -- accumulate this channel's R x S products (about 4 lines):
    //   my output's window starts at tile row ty * d.stride_h, column tx * d.stride_w;
    //   for r < d.r, s < d.s: acc += tile[(ty * d.stride_h + r) * cols + tx * d.stride_w + s]
    //                                * w_k[(c * d.r + r) * d.s + s]
    //   (tap (r, s) multiplies input (r, s) of the window: cross-correlation, no flipping).
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
  const std::int64_t rows = (kTile - 1) * s.stride_h + s.r, cols = (kTile - 1) * s.stride_w + s.s;
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
