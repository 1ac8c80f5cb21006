/// @file
/// @brief Exercise (chapter 07): the shared-memory input tile with its halo (direct convolution).
///
/// Your task: fill in the two TODO(student) blocks of smem_tile_kernel so that it computes the
/// convolution (cross-correlation, as frameworks define it: the filter is NOT flipped) for ANY
/// shape of the contract in chapters/07_conv2d/exercise.hpp: any N, C, K, image size, filter
/// size, and padding and stride per axis (stride_h and stride_w differ, so do pad_h and pad_w).
///
///  - Read chapters/07_conv2d/README.md, sections "The problem", "v01" and "Exercise", first.
///  - Check it:   python3 tools/exercise.py conv2d
///    It rebuilds what changed, runs your kernel on every case, compares each output with the CPU
///    reference, and times it against the solution. Without a GPU its last line says NOT CHECKED.
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
    //   the block's 256 threads share the rows * cols elements (element e is tile row e / cols,
    //   tile column e % cols, which is input row h0 + e / cols, column w0 + e % cols of x_plane);
    //   an element whose input position lies outside the image, on any of the four sides, is a
    //   zero of the padding. Offsets into x_plane are 64-bit.
    __syncthreads();  // the whole tile is in shared memory before anyone reads it

    // TODO(student) 2/2 -- accumulate this channel's R x S products into acc (about 4 lines):
    //   your output's window starts stride_h tile rows per ty and stride_w tile columns per tx
    //   from the tile's corner; tap (r, s) of w_k's channel c multiplies the window's element
    //   (r, s): cross-correlation, no flipping. Every read comes from shared memory but the tap.
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
