/// @file
/// @brief v02: register blocking, 8 output channels x 8 outputs of a row per thread, from shared
/// input and filter tiles (NCHW, fp32).
#include <algorithm>
#include <string>

#include "common/check.hpp"
#include "conv2d.hpp"

namespace conv2d {

namespace {

constexpr int kThreads = 256;
constexpr int QT = 8;     // outputs of one row per thread (consecutive q)
constexpr int KT = 8;     // output channels per thread
constexpr int kMaxS = 8;  // widest filter the register window handles (wider: one load per tap)
constexpr int kMaxChannels = 8;
constexpr int kMaxSmem = 48 * 1024;

/// The block's tile, decided on the host from the shape (all sizes in elements).
struct Geometry {
  int kg;       ///< groups of KT output channels per block (1, 2, 4 or 8): KB = kg * KT channels
  int sx;       ///< thread strips along q: the output tile is rows x (sx * QT)
  int rows;     ///< output rows per block: kThreads / kg / sx
  int in_rows;  ///< input rows behind them: (rows - 1) * stride_h + R
  int in_cols;  ///< input columns: (sx * QT - 1) * stride_w + S
  int pitch;    ///< shared row length: in_cols rounded up to 1 mod 8 (8 rows of a warp hit 8 banks apart)
  int cb;       ///< input channels per barrier (as many as fit in 48 KiB, at most 8)
  int tiles_q;  ///< output tiles along q
  int tiles_p;  ///< output tiles along p
};

Geometry geometry(const ConvShape& s) {
  Geometry g{};
  g.kg = s.k <= 8 ? 1 : s.k <= 16 ? 2 : s.k <= 32 ? 4 : 8;
  const int strips = kThreads / g.kg;
  const std::int64_t need = (s.q() + QT - 1) / QT;  // strips that would cover a whole output row
  g.sx = 1;
  while (g.sx < need && g.sx < 16 && g.sx < strips) g.sx *= 2;
  g.rows = strips / g.sx;
  g.in_rows = static_cast<int>((g.rows - 1) * s.stride_h + s.r);
  g.in_cols = static_cast<int>((g.sx * QT - 1) * s.stride_w + s.s);
  g.pitch = g.in_cols + ((1 - g.in_cols) % 8 + 8) % 8;
  const std::int64_t per_channel = 4 * (static_cast<std::int64_t>(g.in_rows) * g.pitch + s.r * s.s * g.kg * KT);
  g.cb = static_cast<int>(std::min<std::int64_t>({kMaxChannels, s.c, kMaxSmem / per_channel}));
  g.tiles_q = static_cast<int>((s.q() + g.sx * QT - 1) / (g.sx * QT));
  g.tiles_p = static_cast<int>((s.p() + g.rows - 1) / g.rows);
  return g;
}

/// acc[kk][q] += w_tap[kk] * xv[q]: one filter tap for 8 channels (two float4 broadcasts from
/// the filter tile) times 8 outputs' inputs: 64 FFMA.
__device__ __forceinline__ void accumulate_tap(float (&acc)[KT][QT], const float* w_tap, const float (&xv)[QT]) {
  const float4 wa = *reinterpret_cast<const float4*>(w_tap);
  const float4 wb = *reinterpret_cast<const float4*>(w_tap + 4);
  const float wv[KT] = {wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w};
#pragma unroll
  for (int kk = 0; kk < KT; ++kk)
#pragma unroll
    for (int q = 0; q < QT; ++q) acc[kk][q] = fmaf(wv[kk], xv[q], acc[kk][q]);
}

}  // namespace

/// @brief y = x (*) w; each thread accumulates an 8 x 8 register tile: KT = 8 output channels
/// times QT = 8 consecutive outputs of one row, from input and filter tiles in shared memory.
///
/// Block: kg groups of 8 output channels times (kThreads / kg) strips; strip t covers the 8
/// outputs (row t / sx, columns 8 (t % sx) .. +7) of the block's output tile. The 32 lanes of a
/// warp share one channel group (filter reads are broadcasts) and take 32 different strips.
/// Per chunk of cb input channels: stage the filter taps and the input tile (with halo,
/// zero-padded): w_tile (cb, R, S, KB) with the KB channels of one tap contiguous, then in_tile
/// (cb, in_rows, pitch); then per input row r of the window:
///
///     SW = 1 or 2 (stride_w): win[j] = in_row[j], j < (QT-1) SW + S       (one load per value)
///                             for s < S: wv[0..7] = 2 float4 of w_tile    (broadcast)
///                                        acc[kk][q] += wv[kk] * win[q SW + s]   (64 FFMA)
///     SW = 0 (any stride):    the same, but win[q stride + s] loaded per tap
///
/// so each input value in registers serves up to 8 x S multiply-adds and each filter value 8.
// [kernel]
template <int SW>
__global__ void __launch_bounds__(kThreads, 2) conv2d_v02_register_tile(Dims d, Geometry g, bool vec_store,
                                                                       const float* __restrict__ x,
                                                                       const float* __restrict__ w,
                                                                       float* __restrict__ y) {
  extern __shared__ __align__(16) float smem[];
  const int kb = g.kg * KT;                               // output channels of the block
  float* w_tile = smem;                                   // (cb, R, S, kb): first, so float4 reads are aligned
  float* in_tile = smem + g.cb * d.r * d.s * kb;          // (cb, in_rows, pitch)
  const int strips = kThreads / g.kg;
  const int strip = threadIdx.x % strips, group = threadIdx.x / strips;
  const int row = strip / g.sx, col = strip % g.sx * QT;  // my 8 outputs in the tile: (row, col .. col+7)
  const int n = blockIdx.z, k0 = blockIdx.y * kb;
  const int p0 = blockIdx.x / g.tiles_q * g.rows, q0 = blockIdx.x % g.tiles_q * (g.sx * QT);
  const int h0 = p0 * d.stride_h - d.pad_h, w0 = q0 * d.stride_w - d.pad_w;
  const int taps = d.r * d.s;

  float acc[KT][QT];
#pragma unroll
  for (int i = 0; i < KT; ++i)
#pragma unroll
    for (int j = 0; j < QT; ++j) acc[i][j] = 0.0f;

  for (int c0 = 0; c0 < d.c; c0 += g.cb) {
    const int tile_elems = g.cb * g.in_rows * g.pitch;
    for (int e = threadIdx.x; e < tile_elems; e += kThreads) {  // input tile, zeros outside
      const int cc = e / (g.in_rows * g.pitch), ir = e / g.pitch % g.in_rows, ic = e % g.pitch;
      const int c = c0 + cc, h = h0 + ir, wc = w0 + ic;
      const bool inside = ic < g.in_cols && c < d.c && h >= 0 && h < d.h && wc >= 0 && wc < d.w;
      in_tile[e] = inside ? x[((static_cast<std::int64_t>(n) * d.c + c) * d.h + h) * d.w + wc] : 0.0f;
    }
    for (int e = threadIdx.x; e < g.cb * taps * kb; e += kThreads) {  // w_tile[cc][tap][kk] = w[k0+kk, c0+cc, tap]
      const int cc = e / (taps * kb), tap = e / kb % taps, kk = e % kb;
      const int c = c0 + cc, k = k0 + kk;
      w_tile[e] = c < d.c && k < d.k ? w[(static_cast<std::int64_t>(k) * d.c + c) * taps + tap] : 0.0f;
    }
    __syncthreads();

    for (int cc = 0; cc < g.cb; ++cc) {
      for (int r = 0; r < d.r; ++r) {
        const float* in_row = in_tile + (cc * g.in_rows + row * d.stride_h + r) * g.pitch + col * d.stride_w;
        const float* w_row = w_tile + ((cc * d.r + r) * d.s) * kb + group * KT;  // tap (r, 0), my 8 channels
        if constexpr (SW > 0) {
          constexpr int kWin = (QT - 1) * SW + kMaxS;
          float win[kWin];
#pragma unroll
          for (int j = 0; j < kWin; ++j) win[j] = j < (QT - 1) * SW + d.s ? in_row[j] : 0.0f;
#pragma unroll
          for (int s = 0; s < kMaxS; ++s) {
            if (s < d.s) {
              float xv[QT];
#pragma unroll
              for (int q = 0; q < QT; ++q) xv[q] = win[q * SW + s];  // compile-time indices: registers
              accumulate_tap(acc, w_row + s * kb, xv);
            }
          }
        } else {
          for (int s = 0; s < d.s; ++s) {
            float xv[QT];
#pragma unroll
            for (int q = 0; q < QT; ++q) xv[q] = in_row[q * d.stride_w + s];
            accumulate_tap(acc, w_row + s * kb, xv);
          }
        }
      }
    }
    __syncthreads();
  }

  const int p = p0 + row, q = q0 + col;
  if (p >= d.p) return;
#pragma unroll
  for (int kk = 0; kk < KT; ++kk) {
    const int k = k0 + group * KT + kk;
    if (k >= d.k) break;
    float* out = y + ((static_cast<std::int64_t>(n) * d.k + k) * d.p + p) * d.q + q;  // y[n, k, p, q ..]
    if (vec_store && q + QT <= d.q) {  // row start 16-byte aligned (Q % 4 == 0), q a multiple of 8
      reinterpret_cast<float4*>(out)[0] = make_float4(acc[kk][0], acc[kk][1], acc[kk][2], acc[kk][3]);
      reinterpret_cast<float4*>(out)[1] = make_float4(acc[kk][4], acc[kk][5], acc[kk][6], acc[kk][7]);
    } else {
#pragma unroll
      for (int j = 0; j < QT; ++j)
        if (q + j < d.q) out[j] = acc[kk][j];
    }
  }
}
// [kernel]

std::string supports_v02(const ConvShape& s) {
  const Geometry g = geometry(s);
  if (g.cb < 1) {
    return "one channel of the input and filter tiles needs more than 48 KiB of shared memory (filter or stride too "
           "large)";
  }
  if ((s.k + g.kg * KT - 1) / (g.kg * KT) > 65535 || s.n > 65535) return "the grid holds at most 65535 channel groups and images";
  if (static_cast<std::int64_t>(g.tiles_p) * g.tiles_q > 2147483647) return "too many output tiles for the grid";
  return "";
}

/// @brief v02: register blocking.
///
/// **Idea.** In v01 every multiply-add costs two shared-memory loads. A thread that computes
/// several outputs can reuse what it loaded: here 8 output channels times 8 neighbouring outputs
/// of a row (64 accumulators). For one input row of the window it loads the row segment once
/// (8 + S - 1 values with stride 1) into registers and, per tap s, the 8 channels' taps as two
/// float4 broadcasts; that feeds 64 FFMAs per tap. For a 3x3 filter: 10 + 6 loads for 192 FFMAs
/// per row, against 384 loads in v01.
///
/// **Changed since v01.** One thread computes 64 outputs instead of 1; a block covers up to 64
/// output channels (so the input tile is staged once for all of them, not once per channel);
/// the filter tile is stored tap-major with the channels contiguous (float4 reads); up to 8
/// input channels per barrier. The register window is unrolled for strides 1 and 2 and filters
/// up to 8 wide; other strides load per tap.
///
/// **What is still wrong.** A block holds 16K outputs: small images with many channels (14x14,
/// 28x28) give too few blocks to fill 132 SMs, and partial tiles waste lanes (K = 6 uses 6 of 8
/// channels per thread). The shared loads of the input rows are 2-way bank conflicted for some
/// tile widths. The loads are synchronous: every chunk stalls on its barrier.
///
/// **Predicted.** 3-5x v01 on the 3x3 layers of 56x56 and the 6-channel image (FFMA-bound loops,
/// 40-60% of the FMA peak), much less on 14x14 (few blocks).
///
/// **Measured (H100).** 15.4 TFLOP/s on N32 C64 56x56 (9.3x v01, 7.2x v00; 23% of the ~67
/// TFLOP/s fp32 peak), 10.2 on 28x28, but 2.5 on 14x14 (32 blocks for 132 SMs, as feared).
/// On the 6-channel image 9.7 TFLOP/s, 0.104 ms: **2.40x cuDNN's fastest fp32 row** (0.248 ms),
/// the best version there. 10.2 on the stride-2 stem (register window, SW = 2).
/// Recorded run (H100, git 0b3832529293): 0.4800 ms on N32 C64 56x56 (15.41 TFLOP/s), 0.3604 ms on 28x28 (10.26),
/// 0.7513 ms on 14x14 (2.46), 0.1851 ms on the stem (10.2), and 0.1026 ms on the 6-channel image (9.77 TFLOP/s, 2.42x
/// cuDNN's fastest fp32 row, 0.2479 ms).
void launch_conv2d_v02_register_tile(const ConvShape& s, const float* x, const float* w, float* y,
                                    cudaStream_t stream) {
  require_valid(s, "v02_register_tile_nchw");
  const std::string why = supports_v02(s);
  if (!why.empty()) throw std::invalid_argument("v02_register_tile_nchw: " + why);
  const Geometry g = geometry(s);
  const std::size_t smem = 4 * static_cast<std::size_t>(g.cb) * (static_cast<std::size_t>(g.in_rows) * g.pitch +
                                                                  s.r * s.s * g.kg * KT);
  const dim3 grid(static_cast<unsigned>(static_cast<std::int64_t>(g.tiles_p) * g.tiles_q),
                  static_cast<unsigned>((s.k + g.kg * KT - 1) / (g.kg * KT)), static_cast<unsigned>(s.n));
  const bool vec_store = s.q() % 4 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  const Dims d = dims_of(s);
  if (s.s <= kMaxS && s.stride_w == 1) {
    conv2d_v02_register_tile<1><<<grid, kThreads, smem, stream>>>(d, g, vec_store, x, w, y);
  } else if (s.s <= kMaxS && s.stride_w == 2) {
    conv2d_v02_register_tile<2><<<grid, kThreads, smem, stream>>>(d, g, vec_store, x, w, y);
  } else {
    conv2d_v02_register_tile<0><<<grid, kThreads, smem, stream>>>(d, g, vec_store, x, w, y);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
