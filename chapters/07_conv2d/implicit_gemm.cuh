/// @file
/// @brief v04's kernel: the implicit-GEMM convolution on CUDA cores (NHWC, KRSC, fp32), written once
/// as a template over its tiles; v05 (Winograd) runs it too, as 16 batched 1x1 convolutions.
///
/// The GEMM view of a convolution, with nothing materialized:
///
///     Y (M x K)  =  A (M x L)  *  B^T (L x K)       M = N P Q output pixels, L = R S C
///     Y[m][k]    =  y[n, p, q, k]                    (NPQK: row m of Y is pixel m's K channels)
///     A[m][l]    =  x[n, p stride_h - pad_h + r, q stride_w - pad_w + s, c],  l = (r S + s) C + c
///     B[k][l]    =  w[k, r, s, c]                    (KRSC: row k of B is filter k, contiguous)
///
/// A is the im2col matrix of v03, but only its tiles ever exist, in shared memory: the loader
/// computes the input address of each element from (m, l) on the fly, and writes zeros where
/// the window hangs over the image border. In NHWC, four consecutive l of one pixel (C % 4 == 0)
/// are four consecutive channels: one 16-byte copy.
///
/// The tiles are chapter 06's, written again here (chapters stay self-contained):
///
///     block tile   BM x BN            (BM/WM) x (BN/WN) warps; blockIdx.x: M, y: K, z: batch x split
///     warp tile    WM x WN            (WM/TM) x (WN/TN) = 32 lanes
///     thread tile  TM x TN            rows: TM/4 quads of 4, one lane grid apart; columns: TN
///                                     single columns, kLanesN apart (see below)
///     k-slice      BK                 kStages slices in shared memory (cp.async pipeline)
///
/// Shared memory holds the tiles *k-interleaved*: As[l / 4][m][l % 4], four consecutive l of a
/// row in one 16-byte word. One cp.async.16 fills a word straight from global memory (no
/// transposition through registers), and one LDS.128 later gives a thread 4 k-steps of one row.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "conv2d.hpp"
#include "common/ampere_ptx.cuh"

namespace conv2d {

/// The compile-time tiles of the implicit-GEMM kernel, and everything derived from them, for a
/// configuration `Sizes` with named fields (NarrowSizes below is one): the kernel's maths uses
/// the short names (BM, TM, ...) of the tile diagram above.
template <class Sizes>
struct GemmTiles {
  static constexpr int BM = Sizes::block_m;   ///< output pixels (rows of Y) per block
  static constexpr int BN = Sizes::block_n;   ///< output channels (columns of Y) per block
  static constexpr int BK = Sizes::block_k;   ///< reduction slice per pipeline stage (a multiple of 4)
  static constexpr int WM = Sizes::warp_m;    ///< rows per warp
  static constexpr int WN = Sizes::warp_n;    ///< columns per warp
  static constexpr int TM = Sizes::thread_m;  ///< rows per thread
  static constexpr int TN = Sizes::thread_n;  ///< columns per thread
  static constexpr int kStages = Sizes::stages;         ///< slices resident in shared memory
  static constexpr int kMinBlocks = Sizes::min_blocks;  ///< blocks per SM promised to the compiler

  static constexpr int kWarpsN = BN / WN;                    ///< warps along K
  static constexpr int kThreads = 32 * (BM / WM) * kWarpsN;  ///< threads per block
  static constexpr int kLanesN = WN / TN;                    ///< lanes along K in a warp
  static constexpr int kLanesM = WM / TM;                    ///< lanes along M in a warp
  static constexpr int kWords = BK / 4;                      ///< 16-byte words per row and slice
  /// One word plane As[l/4] holds BM rows of 4 floats, padded by two words: the 8 lanes of a
  /// quarter-warp copy the 4 words of 2 rows, and with the planes 8 banks apart their 16-byte
  /// writes land on 8 different bank quads (no conflict).
  static constexpr int kAPlane = BM * 4 + 8;
  static constexpr int kBPlane = BN * 4 + 8;                         ///< the same for B
  static constexpr int kStageFloats = kWords * (kAPlane + kBPlane);  ///< one stage: As, then Bs
  static constexpr int kSmemBytes = kStages * kStageFloats * 4;      ///< dynamic shared memory
  static constexpr int kAWords = BM * kWords / kThreads;  ///< 16-byte words of A each thread copies per slice
  static constexpr int kBWords = BN * kWords / kThreads;  ///< ... and of B

  static_assert(BK % 4 == 0, "the slice is made of 16-byte words of 4 floats");
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % TM == 0 && WN % TN == 0, "tiles must nest");
  static_assert(kLanesM * kLanesN == 32, "a warp tile holds exactly 32 thread tiles");
  static_assert(TM % 4 == 0, "a thread's rows are quads of 4");
  static_assert(kThreads % kWords == 0, "every thread copies words of one fixed l (its t % kWords)");
  static_assert(BM * kWords % kThreads == 0 && BN * kWords % kThreads == 0, "the copies split evenly");
  static_assert(kStages >= 2, "a pipeline needs two stages at least");
};

// [tiles]
/// v04's tiles (and v05's): 128 pixels x 64 channels per block, 4 warps of 32 x 64, 8 x 8 per
/// thread, slices of 16, 4 stages (50 KiB of shared memory).
struct NarrowSizes {
  static constexpr int block_m = 128;  ///< output pixels per block
  static constexpr int block_n = 64;   ///< output channels per block
  static constexpr int block_k = 16;   ///< reduction positions per slice
  static constexpr int warp_m = 32;    ///< rows of a warp's tile
  static constexpr int warp_n = 64;    ///< columns of a warp's tile
  static constexpr int thread_m = 8;   ///< rows of a thread's register tile
  static constexpr int thread_n = 8;   ///< columns of a thread's register tile
  static constexpr int stages = 4;     ///< slices in shared memory
  static constexpr int min_blocks = 2; ///< blocks per SM (__launch_bounds__)
};
/// For K > 64: 128 x 128 per block, 8 warps, the same warp and thread tiles (66 KiB).
struct WideSizes : NarrowSizes {
  static constexpr int block_n = 128;  ///< output channels per block
  static constexpr int min_blocks = 1; ///< blocks per SM
};
using NarrowTiles = GemmTiles<NarrowSizes>;  ///< v04's kernel for K <= 64 (and v05's 16 GEMMs)
using WideTiles = GemmTiles<WideSizes>;      ///< ... for K > 64
// [tiles]

/// How a launch splits the work: the grid's z is batch x splits, each split taking a range of
/// the L / BK slices (split-K, when M is too short to fill the GPU; its blocks add into Y).
struct GemmGrid {
  int splits;              ///< blocks along the reduction per output tile (1: no split)
  int slices_per_split;    ///< k-slices each split walks
  std::int64_t x_batch;    ///< elements between the inputs of consecutive batch entries
  std::int64_t w_batch;    ///< ... between the filters
  std::int64_t y_batch;    ///< ... between the outputs
};

/// The per-thread copy state of one block: where its A rows start, and the reduction position
/// (l, and l's (r, s, c)) of the next slice it copies.
template <class Cfg>
struct ImplicitLoader {
  const float* pixel[Cfg::kAWords];  ///< x at (n, 0, 0, 0) of each copied row (its image)
  int h0[Cfg::kAWords];              ///< p stride_h - pad_h (far negative for rows past M)
  int w0[Cfg::kAWords];              ///< q stride_w - pad_w
  int l;  ///< this thread's first reduction position l of the next slice
  int r;  ///< l's filter row
  int s;  ///< l's filter column
  int c;  ///< l's channel
};

/// Copies slice `slice` (reduction positions l0 .. l0 + BK - 1, l0 = slice BK) into one stage:
/// word j of row m of A is A[m][l0 + 4j .. + 3], of B the same four of filter row k. The thread
/// copies the words of one fixed j (its t % kWords) for kAWords rows of A and kBWords rows of B.
/// Outside the image, past L, past M or past K: zeros. VEC (C % 4 == 0, 16-byte aligned bases):
/// one cp.async.16 per word; else four cp.async.4, each with its own (r, s, c).
// [loader]
template <class Cfg, bool VEC>
__device__ __forceinline__ void load_slice(ImplicitLoader<Cfg>& ld, float* __restrict__ As, float* __restrict__ Bs,
                                           const Dims& d, const float* __restrict__ x, const float* __restrict__ w,
                                           int col0) {
  using namespace tut::sm80;  // cp_async_16, cp_async_4 (common/ampere_ptx.cuh)
  const int t = threadIdx.x, word = t % Cfg::kWords;
  const int L = d.r * d.s * d.c;
#pragma unroll
  for (int i = 0; i < Cfg::kAWords; ++i) {
    const int row = t / Cfg::kWords + i * (Cfg::kThreads / Cfg::kWords);  // row of the block tile
    float* dst = As + word * Cfg::kAPlane + row * 4;                       // As[word][row][0..3]
    if constexpr (VEC) {
      const int h = ld.h0[i] + ld.r, wc = ld.w0[i] + ld.s;
      const bool ok = ld.l < L && static_cast<unsigned>(h) < static_cast<unsigned>(d.h) &&
                      static_cast<unsigned>(wc) < static_cast<unsigned>(d.w);
      const float* src = ok ? ld.pixel[i] + (static_cast<std::int64_t>(h) * d.w + wc) * d.c + ld.c : x;
      cp_async_16(dst, src, ok ? 16 : 0);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // each of the 4 values has its own (r, s, c): C % 4 != 0
        const int l = ld.l + e, c = l % d.c, rs = l / d.c, s = rs % d.s, r = rs / d.s;
        const int h = ld.h0[i] + r, wc = ld.w0[i] + s;
        const bool ok = l < L && static_cast<unsigned>(h) < static_cast<unsigned>(d.h) &&
                        static_cast<unsigned>(wc) < static_cast<unsigned>(d.w);
        cp_async_4(dst + e, ok ? ld.pixel[i] + (static_cast<std::int64_t>(h) * d.w + wc) * d.c + c : x, ok);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < Cfg::kBWords; ++i) {
    const int n = t / Cfg::kWords + i * (Cfg::kThreads / Cfg::kWords);  // filter row of the block tile
    const int k = col0 + n;
    float* dst = Bs + word * Cfg::kBPlane + n * 4;
    const float* row = w + static_cast<std::int64_t>(k) * L;
    if constexpr (VEC) {
      const bool ok = k < d.k && ld.l < L;
      cp_async_16(dst, ok ? row + ld.l : w, ok ? 16 : 0);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const bool ok = k < d.k && ld.l + e < L;
        cp_async_4(dst + e, ok ? row + ld.l + e : w, ok);
      }
    }
  }
  // Next slice: l += BK, and (r, s, c) follow (c wraps into s, s into r) without a division.
  ld.l += Cfg::BK;
  ld.c += Cfg::BK;
  while (ld.c >= d.c) {
    ld.c -= d.c;
    if (++ld.s == d.s) ld.s = 0, ++ld.r;
  }
}
// [loader]

/// @brief Y = A B^T for one (BM x BN) tile per block, A's tiles gathered from x on the fly
/// (implicit im2col), with a kStages-deep cp.async pipeline and TM x TN register tiles.
///
///     prologue: issue slices s0 .. s0+S-2                          (one commit group each)
///     for each slice t of this split:
///         wait until slice t has landed, __syncthreads()
///         issue slice t+S-1 into the stage slice t-1 used          (everyone is past it)
///         for each word j of the slice (4 k-steps):
///             TM LDS.128 of A (4 l of a row each), TN LDS.128 of B -> 4 x TM x TN FFMA
///
/// splits > 1: each split sums its own range of slices and adds its tile into Y with atomicAdd
/// (Y is zeroed by the launcher first). blockIdx.z = batch entry * splits + split.
// [kernel]
template <class Cfg, bool VEC>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    conv2d_v04_implicit_gemm(Dims d, GemmGrid g, const float* __restrict__ x, const float* __restrict__ w,
                            float* __restrict__ y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::sm80;  // cp_async_commit, cp_async_wait (common/ampere_ptx.cuh)
  constexpr int TM = Cfg::TM, TN = Cfg::TN, S = Cfg::kStages;
  extern __shared__ __align__(16) float smem[];  // S x [ As (BK/4, BM*4 + 4) | Bs (BK/4, BN*4 + 4) ]
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int batch = blockIdx.z / g.splits, split = blockIdx.z % g.splits;
  x += batch * g.x_batch;
  w += batch * g.w_batch;
  y += batch * g.y_batch;
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, m_total = d.n * pq;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * Cfg::BM;
  const int col0 = blockIdx.y * Cfg::BN;
  const int L = d.r * d.s * d.c;
  const int slices = (L + Cfg::BK - 1) / Cfg::BK;
  const int first = split * g.slices_per_split, count = min(g.slices_per_split, slices - first);

  // The loader: the image and window origin of each row this thread copies, and the (r, s, c)
  // of its first l. The only divisions of the kernel are here, once per block.
  ImplicitLoader<Cfg> ld;
#pragma unroll
  for (int i = 0; i < Cfg::kAWords; ++i) {
    const std::int64_t m = row0 + t / Cfg::kWords + i * (Cfg::kThreads / Cfg::kWords);
    const std::int64_t n = m / pq, pix = m % pq;
    const bool inside = m < m_total;
    ld.pixel[i] = x + (inside ? n : 0) * d.h * d.w * d.c;
    ld.h0[i] = inside ? static_cast<int>(pix / d.q) * d.stride_h - d.pad_h : INT_MIN / 2;
    ld.w0[i] = static_cast<int>(pix % d.q) * d.stride_w - d.pad_w;
  }
  ld.l = first * Cfg::BK + (t % Cfg::kWords) * 4;
  ld.c = ld.l % d.c;
  ld.s = ld.l / d.c % d.s;
  ld.r = ld.l / d.c / d.s;

  const auto stage_a = [&](int i) { return smem + (i % S) * Cfg::kStageFloats; };
  const auto stage_b = [&](int i) { return smem + (i % S) * Cfg::kStageFloats + Cfg::kWords * Cfg::kAPlane; };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  // This lane's rows: quads of 4 spaced one lane grid apart (as in chapter 06's v06). Its columns:
  // single columns kLanesN apart, so that the 8 lanes of a quarter-warp (same rows, consecutive
  // lane_n) read 8 consecutive 16-byte words of Bs: one wavefront. (Quads of 4 columns, as for
  // the rows, would put those lanes 64 bytes apart: a 4-way bank conflict on every B read. The
  // first measurement of v04 had it: 21.6 TFLOP/s on N32 C64 56x56.)
  const int frag_row = (warp / Cfg::kWarpsN) * Cfg::WM + (lane / Cfg::kLanesN) * 4;
  const int frag_col = (warp % Cfg::kWarpsN) * Cfg::WN + lane % Cfg::kLanesN;

#pragma unroll
  for (int i = 0; i < S - 1; ++i) {  // prologue: slices first .. first + S - 2 in flight
    if (i < count) load_slice<Cfg, VEC>(ld, stage_a(i), stage_b(i), d, x, w, col0);
    cp_async_commit();               // committed even when empty: one group per slice
  }
  for (int i = 0; i < count; ++i) {
    cp_async_wait<S - 2>();  // my copies of slice i have landed ...
    __syncthreads();         // ... and everyone's; everyone is done with slice i - 1's stage
    if (i + S - 1 < count) load_slice<Cfg, VEC>(ld, stage_a(i + S - 1), stage_b(i + S - 1), d, x, w, col0);
    cp_async_commit();
    const float* As = stage_a(i);
    const float* Bs = stage_b(i);
#pragma unroll
    for (int word = 0; word < Cfg::kWords; ++word) {
      float4 a[TM], b[TN];  // a[i] = A[row i][4 l], b[j] = B[col j][4 l]
#pragma unroll
      for (int qi = 0; qi < TM; ++qi)
        a[qi] = *reinterpret_cast<const float4*>(As + word * Cfg::kAPlane +
                                                 (frag_row + (qi / 4) * Cfg::kLanesM * 4 + qi % 4) * 4);
#pragma unroll
      for (int qj = 0; qj < TN; ++qj)
        b[qj] = *reinterpret_cast<const float4*>(Bs + word * Cfg::kBPlane +
                                                 (frag_col + qj * Cfg::kLanesN) * 4);
#pragma unroll
      for (int qi = 0; qi < TM; ++qi)
#pragma unroll
        for (int qj = 0; qj < TN; ++qj) {
          acc[qi][qj] = fmaf(a[qi].x, b[qj].x, acc[qi][qj]);
          acc[qi][qj] = fmaf(a[qi].y, b[qj].y, acc[qi][qj]);
          acc[qi][qj] = fmaf(a[qi].z, b[qj].z, acc[qi][qj]);
          acc[qi][qj] = fmaf(a[qi].w, b[qj].w, acc[qi][qj]);
        }
    }
  }
  cp_async_wait<0>();

  // Epilogue: Y[m][k] = y[m * K + k] (NPQK); the 8 lanes of a quarter-warp write 8 consecutive
  // channels of one pixel (32 bytes). Split-K: add into Y.
#pragma unroll
  for (int qi = 0; qi < TM; ++qi) {
    const std::int64_t m = row0 + frag_row + (qi / 4) * Cfg::kLanesM * 4 + qi % 4;
    if (m >= m_total) continue;
#pragma unroll
    for (int qj = 0; qj < TN; ++qj) {
      const int k = col0 + frag_col + qj * Cfg::kLanesN;
      if (k >= d.k) continue;
      if (g.splits > 1) {
        atomicAdd(y + m * d.k + k, acc[qi][qj]);
      } else {
        y[m * d.k + k] = acc[qi][qj];
      }
    }
  }
#else
  (void)d, (void)g, (void)x, (void)w, (void)y;
  __trap();  // sm_80+ only (cp.async): the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// Runs conv2d_v04_implicit_gemm<Cfg> on `batch` independent convolutions of shape `s` (inputs,
/// filters and outputs `x_batch`, `w_batch`, `y_batch` elements apart; y_batch is at least the
/// output's N P Q K), choosing split-K so the grid fills the GPU. y must not alias x or w.
template <class Cfg>
void launch_implicit_gemm(const ConvShape& s, int batch, std::int64_t x_batch, std::int64_t w_batch,
                          std::int64_t y_batch, const float* x, const float* w, float* y, cudaStream_t stream) {
  const Dims d = dims_of(s);
  const std::int64_t m = s.n * s.p() * s.q();
  const std::int64_t tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (s.k + Cfg::BN - 1) / Cfg::BN;
  if (tiles_m > INT_MAX || tiles_n > 65535) throw std::invalid_argument("implicit GEMM: the grid is too large");
  const int slices = static_cast<int>((s.reduction() + Cfg::BK - 1) / Cfg::BK);
  // Split-K when the tiles cannot give every SM two blocks: each split keeps >= 8 slices.
  const std::int64_t tiles = tiles_m * tiles_n * batch, want = 2LL * Cfg::kMinBlocks * sm_count();
  int splits = 1;
  if (tiles < want) splits = static_cast<int>(std::min<std::int64_t>((want + tiles - 1) / tiles, std::max(1, slices / 8)));
  splits = std::max(1, std::min(splits, 65535 / batch));
  const int per_split = (slices + splits - 1) / splits;
  splits = (slices + per_split - 1) / per_split;  // no empty split
  const GemmGrid g{splits, per_split, x_batch, w_batch, y_batch};
  if (splits > 1) {  // the splits add into y: start from zero (part of the timed run)
    CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(float) * static_cast<std::size_t>(batch * y_batch), stream));
  }
  const bool vec = s.c % 4 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(w) % 16 == 0 && x_batch % 4 == 0 && w_batch % 4 == 0;
  const auto kernel = vec ? conv2d_v04_implicit_gemm<Cfg, true> : conv2d_v04_implicit_gemm<Cfg, false>;
  tut::allow_dynamic_smem(kernel, Cfg::kSmemBytes);  // once per kernel, outside the timed runs
  const dim3 grid(static_cast<unsigned>(tiles_m), static_cast<unsigned>(tiles_n),
                  static_cast<unsigned>(batch * splits));
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(d, g, x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
