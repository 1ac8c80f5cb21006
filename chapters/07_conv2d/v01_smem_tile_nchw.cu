/// @file
/// @brief v01: a 16 x 16 output tile per block; its input tile (with the halo) and filter slice in
/// shared memory (NCHW, fp32).
#include <string>

#include "common/check.hpp"
#include "conv2d.hpp"

namespace conv2d {

namespace {

constexpr int kTile = 16;     // outputs per block: kTile x kTile of one (n, k) plane
constexpr int kChannels = 4;  // input channels staged per barrier
constexpr int kMaxSmem = 48 * 1024;

/// Rows and columns of the input tile behind a kTile x kTile output tile: (kTile - 1) strides
/// plus the filter (the halo is the R - stride extra rows, S - stride extra columns).
int tile_rows(const ConvShape& s) { return (kTile - 1) * static_cast<int>(s.stride_h) + static_cast<int>(s.r); }
int tile_cols(const ConvShape& s) { return (kTile - 1) * static_cast<int>(s.stride_w) + static_cast<int>(s.s); }

std::size_t smem_bytes(const ConvShape& s) {
  return sizeof(float) * kChannels * (static_cast<std::size_t>(tile_rows(s)) * tile_cols(s) + s.r * s.s);
}

}  // namespace

/// @brief y = x (*) w with a kTile x kTile output tile of one (n, k) plane per block: per chunk
/// of kChannels input channels the block stages the input tile with its halo, and the R x S
/// filter taps of those channels, in shared memory; each thread then sums its output's taps from
/// there.
///
/// Grid: x = the output tiles of a plane (row-major), y = k, z = n. Dynamic shared memory:
/// in_tile (kChannels, tile_rows, tile_cols) then w_tile (kChannels, R S).
// [kernel]
__global__ void __launch_bounds__(kTile * kTile) conv2d_v01_smem_tile(Dims d, int tiles_q, int rows, int cols,
                                                                      const float* __restrict__ x,
                                                                      const float* __restrict__ w,
                                                                      float* __restrict__ y) {
  extern __shared__ float smem[];
  float* in_tile = smem;                           // (kChannels, rows, cols)
  float* w_tile = smem + kChannels * rows * cols;  // (kChannels, R * S)
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  const int k = blockIdx.y, n = blockIdx.z;
  const int p0 = blockIdx.x / tiles_q * kTile, q0 = blockIdx.x % tiles_q * kTile;  // the tile's first output
  const int h0 = p0 * d.stride_h - d.pad_h, w0 = q0 * d.stride_w - d.pad_w;       // ... and its first input
  const int taps = d.r * d.s;

  float acc = 0.0f;
  for (int c0 = 0; c0 < d.c; c0 += kChannels) {
    // Stage x[n, c0 .. c0+3, h0 .. h0+rows-1, w0 .. w0+cols-1]: zeros for the padding (outside
    // the image) and for channels past C, so the sum below needs no checks.
    for (int e = threadIdx.x; e < kChannels * rows * cols; e += kTile * kTile) {
      const int cc = e / (rows * cols), row = e / cols % rows, col = e % cols;
      const int c = c0 + cc, h = h0 + row, wc = w0 + col;
      const bool inside = c < d.c && h >= 0 && h < d.h && wc >= 0 && wc < d.w;
      in_tile[e] = inside ? x[((static_cast<std::int64_t>(n) * d.c + c) * d.h + h) * d.w + wc] : 0.0f;
    }
    for (int e = threadIdx.x; e < kChannels * taps; e += kTile * kTile) {  // w[k, c0 .. c0+3, :, :]
      const int c = c0 + e / taps;
      w_tile[e] = c < d.c ? w[(static_cast<std::int64_t>(k) * d.c + c) * taps + e % taps] : 0.0f;
    }
    __syncthreads();  // the tiles are complete

#pragma unroll
    for (int cc = 0; cc < kChannels; ++cc) {
      const float* in_c = in_tile + (cc * rows + ty * d.stride_h) * cols + tx * d.stride_w;  // my window
      const float* w_c = w_tile + cc * taps;
      for (int r = 0; r < d.r; ++r)
        for (int s = 0; s < d.s; ++s) acc += in_c[r * cols + s] * w_c[r * d.s + s];
    }
    __syncthreads();  // everyone is done reading before the next chunk overwrites the tiles
  }
  const int p = p0 + ty, q = q0 + tx;
  if (p < d.p && q < d.q) y[((static_cast<std::int64_t>(n) * d.k + k) * d.p + p) * d.q + q] = acc;
}
// [kernel]

std::string supports_v01(const ConvShape& s) {
  if (s.k > 65535 || s.n > 65535) return "the grid holds at most 65535 output channels and images";
  const double bytes = sizeof(float) * kChannels *
                       (static_cast<double>((kTile - 1) * s.stride_h + s.r) * static_cast<double>((kTile - 1) * s.stride_w + s.s) +
                        static_cast<double>(s.r) * static_cast<double>(s.s));
  if (bytes > kMaxSmem) {
    return "the input tile with its halo needs " + std::to_string(static_cast<long long>(bytes / 1024)) +
           " KiB of shared memory (filter or stride too large for 48 KiB)";
  }
  return "";
}

/// @brief v01: shared-memory tiles with a halo.
///
/// **Idea.** Neighbouring outputs read overlapping input windows: a 16 x 16 tile of outputs of
/// a 3x3 layer needs an 18 x 18 tile of each input channel, yet v00 loads 16 x 16 x 9 values per
/// channel for it, each from global memory. Load the input tile once per block, including the
/// *halo* (the R - 1 extra rows and S - 1 extra columns around it, fewer with a stride), into
/// shared memory, with zeros where it hangs over the image border: that is the padding, made
/// explicit once instead of checked per tap. The R x S filter taps of the (n, k) plane go to
/// shared memory too (every thread of the block reads the same ones). Four channels per barrier.
///
/// **Changed since v00.** Loads from global memory: per channel, 18 x 18 input values and 9
/// filter values per block of 256 outputs, instead of 2 x 9 per output. The sum reads shared
/// memory and has no padding checks.
///
/// **What is still wrong.** One output per thread: each multiply-add still needs two shared loads
/// (the input value and the tap), so the shared-memory pipe, not the FMA units, is the limit.
/// And the block re-stages the same input tile for each of the K output channels (grid.y): the
/// input is read K times from L2.
///
/// **Predicted.** 1.5-2.5x v00 on 3x3 layers (fewer, cheaper loads), more on 7x7.
///
/// **Measured (H100).** The prediction was wrong: v01 is *slower* than v00 on five of the six
/// layers (0.77x on N32 C64 56x56, 0.43x on the 1x1 layer, 0.87x on the stem) and 1.21x faster
/// only on the 6-channel image (6x6 filter: the most reuse per staged value). Not profiled; the
/// counts explain it: v00's window reads hit L1 (neighbouring threads read neighbouring values,
/// and the tap is one broadcast per warp), so v01 saves little global traffic, while each of its
/// multiply-adds still needs two shared loads, every chunk of 4 channels costs two barriers, and
/// the whole input tile is staged again for every output channel (grid.y = K). With a 1x1
/// filter there is no window overlap to exploit at all. The lesson of this step is that a tile
/// only pays once each staged value is reused many times *by the same thread*: v02.
/// Recorded run (H100, git 0b3832529293): 4.4534 ms on N32 C64 56x56 (1.66 TFLOP/s, v00 3.4491 ms), 2.2812 ms on 28x28,
/// 9.8863 ms on the 1x1 layer, 0.3722 ms on the 6-channel image (v00 0.4507 ms).
void launch_conv2d_v01_smem_tile(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  require_valid(s, "v01_smem_tile_nchw");
  const std::string why = supports_v01(s);
  if (!why.empty()) throw std::invalid_argument("v01_smem_tile_nchw: " + why);
  const std::int64_t tiles_q = (s.q() + kTile - 1) / kTile, tiles_p = (s.p() + kTile - 1) / kTile;
  const dim3 grid(static_cast<unsigned>(tiles_q * tiles_p), static_cast<unsigned>(s.k), static_cast<unsigned>(s.n));
  conv2d_v01_smem_tile<<<grid, kTile * kTile, smem_bytes(s), stream>>>(dims_of(s), static_cast<int>(tiles_q),
                                                                      tile_rows(s), tile_cols(s), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
