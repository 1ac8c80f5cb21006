/// @file
/// @brief The parts of v06's fused Winograd kernel (v06_winograd_fused_nhwc.cu) that are not its loop:
/// its tiles (FusedTiles), the launcher's tiling (FusedGrid, choose_splits(), the U workspace),
/// the per-thread tile loads of the input patches with their input transform and of the
/// transformed filter (aim_patches(), load_patches(), store_transformed(), copy_filter()), the
/// epilogue's output transform (store_outputs()) and the filter transform kernel
/// (conv2d_v06_filter_transform). The transforms' maths is in winograd.hpp.
///
/// Included by v06_winograd_fused_nhwc.cu only (it defines a kernel).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/ampere_ptx.cuh"
#include "common/scratch.hpp"
#include "conv2d.hpp"
#include "winograd.hpp"

namespace conv2d {

/// The compile-time tiles of the fused kernel, and everything derived from them. A block owns
/// T output tiles (2x2 outputs each) x KB output channels, for all 16 Winograd points xi; a
/// thread owns one point and a TT tiles x 8 channels register tile of it.
/// `Sizes` names them (FusedWideSizes in v06_winograd_fused_nhwc.cu is one); the kernel's maths uses
/// the short names.
template <class Sizes>
struct FusedTiles {
  static constexpr int T = Sizes::output_tiles;   ///< 2x2 output tiles per block
  static constexpr int KB = Sizes::channels;      ///< output channels per block
  static constexpr int TT = Sizes::thread_tiles;  ///< tiles per thread (its register tile is TT x 8 channels)
  static constexpr int CC = 8;                    ///< input channels per step of the C loop

  static constexpr int kKGroups = KB / 8;                  ///< threads of a point along the channels
  static constexpr int kPerPoint = kKGroups * (T / TT);    ///< threads per Winograd point
  static constexpr int kThreads = 16 * kPerPoint;          ///< threads per block
  /// V[xi][c][t] rows are padded by 4 floats: the transposed stores of the input transform
  /// (lanes: 8 channels x 4 tiles) then hit 32 different banks, and rows stay 16-byte aligned.
  static constexpr int kVRow = T + 4;
  static constexpr int kVFloats = 16 * CC * kVRow;         ///< V of one step
  static constexpr int kUFloats = 16 * CC * KB;            ///< U of one step: U[xi][c][k]
  static constexpr int kStageFloats = kVFloats + kUFloats; ///< one of the two buffers
  static constexpr int kHalf = KB / 2;                     ///< channels per epilogue pass
  static constexpr int kMFloats = 16 * T * kHalf;          ///< the epilogue's M[xi][t][k], one pass
  /// M has its own space after the two buffers: when a block's epilogue runs, one buffer
  /// already holds the first step of its next work item.
  static constexpr int kMOffset = 2 * kStageFloats;
  static constexpr int kSmemBytes = 4 * (2 * kStageFloats + kMFloats);  ///< dynamic shared memory
  static constexpr int kLoads = T * CC / kThreads;         ///< (tile, channel) patches each thread loads
  static constexpr int kUCopies = kUFloats / 4 / kThreads; ///< 16-byte copies of U per thread and step
  static constexpr int kItems = T * kHalf / kThreads;      ///< (tile, channel) outputs per thread and pass

  static_assert(KB % 8 == 0 && T % TT == 0 && TT % 4 == 0, "tiles must nest");
  static_assert(kThreads % CC == 0 && T * CC % kThreads == 0, "every thread loads whole patches of one channel");
  static_assert(kUFloats % (4 * kThreads) == 0 && T * kHalf % kThreads == 0, "the copies split evenly");
};

/// What the launcher tells the kernel besides the shape.
struct FusedGrid {
  int tiles_h;           ///< 2x2 tiles per image column: ceil(P / 2)
  int tiles_w;           ///< ... per image row: ceil(Q / 2)
  int c_padded;          ///< C rounded up to CC: U's rows
  int k_padded;          ///< K rounded up to KB: U's row length
  int splits;            ///< blocks along C per output tile (1: no split)
  int steps_per_split;   ///< C steps each split walks
  int tile_blocks;       ///< groups of T tiles
  int k_blocks;          ///< groups of KB channels
  std::int64_t items;    ///< work items: tile_blocks x k_blocks x splits
};

/// @name The tile loads of the fused kernel
/// Each thread loads kLoads (tile, channel) 4x4 input patches, of one channel lc per step, and
/// its share of the transformed filter U.
/// @{

/// Points a thread's patch loads at the work item whose first tile is `tile0`: patch[i] = the x
/// offset of patch i's corner (n, h0, w0, channel 0), and bit 4a + b of inside[i] says whether
/// its input (h0 + a, w0 + b) lies inside the image. Tiles past the last one load nothing.
// [aim]
template <class Cfg>
__device__ __forceinline__ void aim_patches(std::int64_t (&patch)[Cfg::kLoads], unsigned (&inside)[Cfg::kLoads],
                                            const Dims& d, const FusedGrid& g, int tile0, int tiles,
                                            std::int64_t row_elems, int tid) {
#pragma unroll
    for (int i = 0; i < Cfg::kLoads; ++i) {
      const int tile = tile0 + (tid + i * Cfg::kThreads) / Cfg::CC;
      inside[i] = 0;
      patch[i] = 0;
      if (tile < tiles) {
        const int tw = tile % g.tiles_w, th = tile / g.tiles_w % g.tiles_h, n = tile / (g.tiles_w * g.tiles_h);
        const int h0 = 2 * th - d.pad_h, w0 = 2 * tw - d.pad_w;
        patch[i] = (static_cast<std::int64_t>(n) * d.h + h0) * row_elems + static_cast<std::int64_t>(w0) * d.c;
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b) {
            const bool in = static_cast<unsigned>(h0 + a) < static_cast<unsigned>(d.h) &&
                            static_cast<unsigned>(w0 + b) < static_cast<unsigned>(d.w);
            inside[i] |= in ? 1u << (4 * a + b) : 0u;
          }
      }
    }
}
// [aim]

/// Global -> registers: the 16 inputs of each of the thread's patches at channel c (zeros outside
/// the image, and everywhere when c >= C).
// [load_patches]
template <class Cfg>
__device__ __forceinline__ void load_patches(float (&patch_regs)[Cfg::kLoads][16],
                                             const std::int64_t (&patch)[Cfg::kLoads],
                                             const unsigned (&inside)[Cfg::kLoads], const Dims& d,
                                             std::uint64_t x_addr, std::int64_t row_elems, int c) {
#pragma unroll
    for (int i = 0; i < Cfg::kLoads; ++i) {
      const unsigned load = c < d.c ? inside[i] : 0u;  // which of the 16 to read this step
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        // The byte address of x[n, h0 + a, w0, c], once per patch row (integer arithmetic: at the
        // border it lies outside x, and is only read where `inside` says so). The empty asm keeps
        // the compiler from folding it back into each column's address, which cost 4 64-bit
        // instructions (and a reload of x) per load: column b is then one IMAD.WIDE away.
        std::uint64_t row = x_addr + 4 * static_cast<std::uint64_t>(patch[i] + c + a * row_elems);
        asm("" : "+l"(row));
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const std::uint64_t at = row + static_cast<std::uint64_t>(static_cast<unsigned>(b) * static_cast<unsigned>(d.c)) * 4;
          patch_regs[i][4 * a + b] = (load >> (4 * a + b) & 1u) ? __ldg(reinterpret_cast<const float*>(at)) : 0.0f;
        }
      }
    }
}
// [load_patches]

/// Registers -> V[xi][lc][t] = (B^T d B)[xi]: the input transform of each loaded patch, stored
/// transposed into the stage at `Vs` (rows of kVRow floats).
template <class Cfg>
__device__ __forceinline__ void store_transformed(float* Vs, float (&patch_regs)[Cfg::kLoads][16], int tid, int lc) {
#pragma unroll
    for (int i = 0; i < Cfg::kLoads; ++i) {
      float v[16];
      winograd::input_transform(patch_regs[i], v);
      const int t = (tid + i * Cfg::kThreads) / Cfg::CC;
#pragma unroll
      for (int xi = 0; xi < 16; ++xi) Vs[(xi * Cfg::CC + lc) * Cfg::kVRow + t] = v[xi];
    }
}

/// U[xi][c][k0 ..] of one step -> the stage at `Us`: kUCopies 16-byte cp.async from `src` (this
/// thread's first word of the step), `u_copy_stride` floats apart. U is padded: no checks.
template <class Cfg>
__device__ __forceinline__ void copy_filter(float* Us, const float* src, std::int64_t u_copy_stride, int tid) {
  using namespace tut::sm80;  // cp_async_16 (common/ampere_ptx.cuh)
#pragma unroll
  for (int i = 0; i < Cfg::kUCopies; ++i) cp_async_16(Us + 4 * (tid + i * Cfg::kThreads), src + i * u_copy_stride, 16);
}
/// @}

/// @name The output transform of the fused kernel
/// @{

/// Where 2x2 output tile `tile` writes: `base` = the y offset of its output (2 th, 2 tw, channel
/// 0); `flags` bit 0: the tile exists, bit 1: its second row is inside P, bit 2: its second
/// column is inside Q. The block fills one table entry per tile once per work item, so that the
/// epilogue does not divide for every output.
template <class Cfg>
__device__ __forceinline__ void output_corner(std::int64_t& base, int& flags, const Dims& d, const FusedGrid& g,
                                              int tile, int tiles) {
  flags = 0;
  base = 0;
  if (tile < tiles) {
    const int tw = tile % g.tiles_w, th = tile / g.tiles_w % g.tiles_h, n = tile / (g.tiles_w * g.tiles_h);
    base = ((static_cast<std::int64_t>(n) * d.p + 2 * th) * d.q + 2 * tw) * d.k;
    flags = 1 | (2 * th + 1 < d.p ? 2 : 0) | (2 * tw + 1 < d.q ? 4 : 0);
  }
}

/// One epilogue pass, for the channels k_first .. + kHalf - 1: M[xi][t][kk] (all 16 points of
/// each (tile, channel), in shared memory at `Ms`) -> y[2x2 tile, k] = A^T M A, one thread per
/// (tile, channel), kItems each; added into y when the C loop is split. `row_out`: one output
/// row of y (Q K floats).
// [output_transform]
template <class Cfg>
__device__ __forceinline__ void store_outputs(float* __restrict__ y, const float* Ms, const std::int64_t* out_base,
                                              const int* out_flags, const Dims& d, const FusedGrid& g, int k_first,
                                              std::int64_t row_out, int tid) {
#pragma unroll
  for (int j = 0; j < Cfg::kItems; ++j) {
    const int item_out = tid + j * Cfg::kThreads, kk = item_out % Cfg::kHalf, t = item_out / Cfg::kHalf;
    const int k = k_first + kk, flags = out_flags[t];
    if (k >= d.k || !(flags & 1)) continue;
    float m[16], out[4];
#pragma unroll
    for (int p = 0; p < 16; ++p) m[p] = Ms[(p * Cfg::T + t) * Cfg::kHalf + kk];
    winograd::output_transform(m, out);
    float* dst = y + out_base[t] + k;  // y[n, 2 th, 2 tw, k] (NPQK); outputs past P or Q are not written
    const bool second_row = flags & 2, second_col = flags & 4;
    if (g.splits > 1) {
      atomicAdd(dst, out[0]);
      if (second_col) atomicAdd(dst + d.k, out[1]);
      if (second_row) atomicAdd(dst + row_out, out[2]);
      if (second_row && second_col) atomicAdd(dst + row_out + d.k, out[3]);
    } else {
      dst[0] = out[0];
      if (second_col) dst[d.k] = out[1];
      if (second_row) dst[row_out] = out[2];
      if (second_row && second_col) dst[row_out + d.k] = out[3];
    }
  }
}
// [output_transform]
/// @}

/// @name The launcher's tiling (host)
/// @{

/// 2x2 output tiles per image column: ceil(P / 2) (the same tiling as v05).
inline std::int64_t fused_tiles_h(const ConvShape& s) { return (s.p() + 1) / 2; }
/// 2x2 output tiles per image row: ceil(Q / 2).
inline std::int64_t fused_tiles_w(const ConvShape& s) { return (s.q() + 1) / 2; }
/// 2x2 output tiles in all: N tiles_h tiles_w.
inline std::int64_t fused_tile_count(const ConvShape& s) { return s.n * fused_tiles_h(s) * fused_tiles_w(s); }
/// v rounded up to a multiple of m (U's padded C and K).
inline std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

/// The memory of the transformed filter U, kept between runs (tut::Scratch: one for the process,
/// grown on the untimed first run of a larger shape, lent in stream order, freed at exit).
inline tut::Scratch& filter_scratch() {
  static tut::Scratch scratch;
  return scratch;
}

/// The largest transformed filter v06 allocates.
inline constexpr double kMaxFilterBytes = 4.0 * 1024 * 1024 * 1024;

/// How many blocks share the C loop of one output tile: the s that minimizes
/// waves(s) x (steps per block + 2), the 2 standing for the prologue and the epilogue; each
/// split keeps at least 4 steps. Splits pay for zeroing y and atomic adds, so ties keep fewer.
inline int choose_splits(std::int64_t blocks, int steps, std::int64_t slots) {
  int best = 1;
  std::int64_t best_cost = -1;
  for (int s = 1; s <= std::max(1, std::min(steps / 4, 16)); ++s) {
    const int per = (steps + s - 1) / s, used = (steps + per - 1) / per;
    const std::int64_t cost = (blocks * used + slots - 1) / slots * (per + 2);
    if (best_cost < 0 || cost < best_cost) best = used, best_cost = cost;
  }
  return best;
}
/// @}

/// @brief U[xi][c][k] = (G g G^T)[xi] for the 3x3 filter g = w[k, :, :, c] (KRSC), zeros for
/// c >= C or k >= K up to the padded sizes. Block (32, 2): 32 consecutive k (coalesced writes of
/// U, whose rows are k-contiguous for the main kernel's 16-byte copies) x 2 consecutive c. The
/// reads of w are strided (9 C floats between neighbouring k), 32 sectors per warp load: that
/// costs L1 cycles on the SM that issues them, so the grid is made of many small blocks (4 per
/// 8 channels) to spread them over all SMs (an earlier version that staged the taps in shared
/// memory to read w coalesced was slower: fewer, larger blocks). It also sets `zero[0 .. zero_count)` to 0 (y, when
/// the fused kernel's splits add into it), with 16-byte stores, while the taps of its first
/// channel are in flight. Its first instruction lets the fused kernel, launched next with
/// programmatic stream serialization, start at once (PTX `griddepcontrol.launch_dependents`,
/// sm_90); that kernel waits for U and y where it needs them.
__global__ void __launch_bounds__(64) conv2d_v06_filter_transform(int k_count, int c_count, int k_padded, int c_padded,
                                                                 const float* __restrict__ w, float* __restrict__ u,
                                                                 float* __restrict__ zero, std::int64_t zero_count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");  // the fused kernel may start now (it waits for U)
#endif
  const int k = blockIdx.x * 32 + threadIdx.x;
  int c = blockIdx.y * 2 + threadIdx.y;
  float g[9];
  const auto load_taps = [&](int cc) {
#pragma unroll
    for (int j = 0; j < 9; ++j) {  // w[k, r, s, c], j = 3 r + s
      g[j] = k < k_count && cc < c_count ? __ldg(w + (static_cast<std::int64_t>(k) * 9 + j) * c_count + cc) : 0.0f;
    }
  };
  load_taps(c);  // first: the zeroing below runs while they arrive
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * gridDim.y * 64;
  const std::int64_t me = (static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) * 64 + threadIdx.y * 32 + threadIdx.x;
  if (reinterpret_cast<std::uintptr_t>(zero) % 16 == 0) {  // 16-byte stores, then the last 0-3 floats
    const std::int64_t quads = zero_count / 4;
    for (std::int64_t i = me; i < quads; i += threads) reinterpret_cast<float4*>(zero)[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (std::int64_t i = 4 * quads + me; i < zero_count; i += threads) zero[i] = 0.0f;
  } else {
    for (std::int64_t i = me; i < zero_count; i += threads) zero[i] = 0.0f;
  }
  for (;;) {
    float t[16];
    winograd::filter_transform(g, t);
#pragma unroll
    for (int xi = 0; xi < 16; ++xi) u[(static_cast<std::int64_t>(xi) * c_padded + c) * k_padded + k] = t[xi];
    c += gridDim.y * 2;
    if (c >= c_padded) break;
    load_taps(c);
  }
}

}  // namespace conv2d
