/// @file
/// @brief v06: fused Winograd F(2x2, 3x3) (NHWC, KRSC, fp32): v05's input transform, 16 GEMMs and
/// output transform in one kernel, so the transformed input and the products never leave the SM.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/ampere_ptx.cuh"
#include "common/check.hpp"
#include "common/scratch.hpp"
#include "common/launch.hpp"
#include "conv2d.hpp"
#include "winograd_tiles.cuh"

namespace conv2d {

// [tiles]
/// v06's tiles: 32 output tiles (128 outputs) x 64 channels per block, 256 threads, each a
/// 16-tile x 8-channel register tile of one Winograd point (128 accumulators); 164 KiB of
/// shared memory (two steps of V and U, and M), one block per SM.
struct FusedWideSizes {
  static constexpr int output_tiles = 32;  ///< 2x2 output tiles per block
  static constexpr int channels = 64;      ///< output channels per block
  static constexpr int thread_tiles = 16;  ///< tiles of a thread's register tile (x 8 channels)
};
using FusedWide = FusedTiles<FusedWideSizes>;  ///< v06's tiles and what they imply (winograd_tiles.cuh)
// [tiles]

/// @brief The fused Winograd convolution: for each work item of T output tiles x KB channels,
///
///     for each step of CC input channels (two buffers: step i+1 loads while step i computes):
///         load the 4x4 input patch of every (tile, channel)     registers (zeros outside the image)
///         V[xi][c][t] = (B^T d B)[xi]                           shared memory
///         U[xi][c][k]  <- the transformed filter                shared memory (cp.async)
///         M[xi][t][k] += sum over c of V[xi][c][t] U[xi][c][k]  registers: 16 GEMMs, one per xi
///     for each half of the KB channels:
///         M of that half -> shared memory; y[2x2 tile, k] = A^T M[.][t][k] A  (added in: splits > 1)
///
/// A work item is (T tiles, KB channels, one split of the C loop). The grid is persistent: one
/// block per SM, and block b computes items b, b + gridDim.x, ...; during the last step of an
/// item it already loads the first step of its next item, so only its first item waits for
/// memory with nothing to compute. On sm_90 the kernel may start before the filter transform
/// has finished (programmatic dependent launch): each block computes its addresses, loads and
/// transforms its first input patches, then waits (`griddepcontrol.wait`) for U and the zeroed y.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    conv2d_v06_winograd_fused(Dims d, FusedGrid g, const float* __restrict__ x, const float* __restrict__ u,
                             float* __restrict__ y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::sm80;  // cp_async_commit, cp_async_wait (common/ampere_ptx.cuh)
  constexpr int T = Cfg::T, KB = Cfg::KB, TT = Cfg::TT, CC = Cfg::CC;
  extern __shared__ __align__(16) float smem[];  // 2 x [ V (16, CC, kVRow) | U (16, CC, KB) ]; then M
  const int tid = threadIdx.x;
  const int tiles = d.n * g.tiles_h * g.tiles_w;  // < 2^31 (supports_v06)
  const int steps = g.c_padded / CC;

  // Work item `it`: tiles tile0 .. + T-1, channels k0 .. + KB-1, C steps first .. + count-1.
  struct Item {
    int tile0, k0, first, count;
  };
  const auto item_at = [&](std::int64_t it) {
    const std::int64_t kb_split = it / g.tile_blocks;
    Item w;
    w.tile0 = static_cast<int>(it % g.tile_blocks) * T;
    w.k0 = static_cast<int>(kb_split % g.k_blocks) * KB;
    w.first = static_cast<int>(kb_split / g.k_blocks) * g.steps_per_split;
    w.count = min(g.steps_per_split, steps - w.first);  // >= 1 (choose_splits)
    return w;
  };

  // The loader: each thread loads the 4x4 patch of kLoads (tile, channel) pairs, the channel
  // lc of every step. Per work item: where each patch starts, and which of its 16 inputs lie
  // inside the image (bit 4a + b). The lambdas name the helpers of winograd_tiles.cuh.
  const int lc = tid % CC;
  const std::int64_t row_elems = static_cast<std::int64_t>(d.w) * d.c;  // one image row in NHWC
  std::int64_t patch[Cfg::kLoads];                                       // x offset of (n, h0, w0, 0)
  unsigned inside[Cfg::kLoads];
  // The filter copies: word f = tid + i kThreads of a step is row f / (KB/4) = xi CC + c of
  // U[16][CC][KB], 16 bytes at quad f % (KB/4); copy i starts kRowsPerCopy rows (whole points)
  // after copy i - 1, so its source is kRowsPerCopy / CC points of U further.
  constexpr int kRowsPerCopy = Cfg::kThreads / (KB / 4);
  static_assert(kRowsPerCopy % CC == 0, "each copy starts at a whole point xi");
  const int first_row = tid / (KB / 4);
  const float* const u_thread = u + (static_cast<std::int64_t>(first_row / CC) * g.c_padded + first_row % CC) * g.k_padded +
                                tid % (KB / 4) * 4;
  const std::int64_t u_copy_stride = static_cast<std::int64_t>(kRowsPerCopy / CC) * g.c_padded * g.k_padded;
  const float* u_src = u_thread;
  const auto aim = [&](const Item& w) {  // point the loader at work item w
    u_src = u_thread + w.k0;
    aim_patches<Cfg>(patch, inside, d, g, w.tile0, tiles, row_elems, tid);
  };
  float patch_regs[Cfg::kLoads][16];
  const std::uint64_t x_addr = reinterpret_cast<std::uint64_t>(x);
  const auto load_patches = [&](int step) {  // global -> registers (zeros outside the image, past C)
    conv2d::load_patches<Cfg>(patch_regs, patch, inside, d, x_addr, row_elems, step * CC + lc);
  };
  const auto store_transformed = [&](float* Vs) {  // registers -> V[xi][lc][t] = (B^T d B)[xi]
    conv2d::store_transformed<Cfg>(Vs, patch_regs, tid, lc);
  };
  const auto copy_filter = [&](int step, float* Us) {  // U[xi][c][k0 ..] -> shared (padded: no checks)
    conv2d::copy_filter<Cfg>(Us, u_src + static_cast<std::int64_t>(step) * CC * g.k_padded, u_copy_stride, tid);
  };
  const auto stage_v = [&](int b) { return smem + b * Cfg::kStageFloats; };
  const auto stage_u = [&](int b) { return smem + b * Cfg::kStageFloats + Cfg::kVFloats; };

  // Where each of the item's T tiles writes: y offset of its output (2 th, 2 tw, channel 0),
  // and whether the tile exists and its second row and column are inside P and Q (bits 0-2).
  // Filled once per item (the epilogue's divisions would otherwise be repeated per output).
  __shared__ std::int64_t out_base[T];
  __shared__ int out_flags[T];

  // This thread's share of the 16 GEMMs: point xi, tiles tg TT .. + TT-1, and two quads of
  // channels, kg 4 and KB/2 + kg 4 (the 8 lanes of a quarter-warp then read 8 consecutive
  // 16-byte words of U: no bank conflict; and each epilogue pass takes one quad).
  const int xi = tid / Cfg::kPerPoint, kg = tid % Cfg::kKGroups, tg = tid % Cfg::kPerPoint / Cfg::kKGroups;

  // This block's items: blockIdx.x, + gridDim.x, ... Prologue: the first item's first step
  // into buffer 0; x and V do not depend on the filter transform, so they come before the wait.
  std::int64_t item = blockIdx.x;
  Item w = item_at(item);
  aim(w);
  load_patches(w.first);
  store_transformed(stage_v(0));
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");  // U (and a zeroed y) are ready from here on
#endif
  copy_filter(w.first, stage_u(0));
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  int buf = 0;
  for (;;) {
    const std::int64_t next = item + gridDim.x;
    const bool has_next = next < g.items;
    Item next_w = w;
    float acc[TT][8];
#pragma unroll
    for (int i = 0; i < TT; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int i = 0; i < w.count; ++i) {
      const bool more = i + 1 < w.count;
      if (more) {  // step i+1 in flight while step i computes (its buffer was freed by the last barrier)
        load_patches(w.first + i + 1);
        copy_filter(w.first + i + 1, stage_u(buf ^ 1));
      } else if (has_next) {  // the next item's first step instead
        next_w = item_at(next);
        aim(next_w);
        load_patches(next_w.first);
        copy_filter(next_w.first, stage_u(buf ^ 1));
      }
      cp_async_commit();
      const float* Vs = stage_v(buf) + xi * CC * Cfg::kVRow + tg * TT;
      const float* Us = stage_u(buf) + xi * CC * KB + kg * 4;
#pragma unroll
      for (int c = 0; c < CC; ++c) {
        const float4 ua = *reinterpret_cast<const float4*>(Us + c * KB);
        const float4 ub = *reinterpret_cast<const float4*>(Us + c * KB + KB / 2);
        const float uk[8] = {ua.x, ua.y, ua.z, ua.w, ub.x, ub.y, ub.z, ub.w};
        float vt[TT];
#pragma unroll
        for (int q = 0; q < TT / 4; ++q) {
          const float4 v4 = *reinterpret_cast<const float4*>(Vs + c * Cfg::kVRow + 4 * q);
          vt[4 * q] = v4.x, vt[4 * q + 1] = v4.y, vt[4 * q + 2] = v4.z, vt[4 * q + 3] = v4.w;
        }
#pragma unroll
        for (int t = 0; t < TT; ++t)
#pragma unroll
          for (int k = 0; k < 8; ++k) acc[t][k] = fmaf(vt[t], uk[k], acc[t][k]);
      }
      if (more || has_next) store_transformed(stage_v(buf ^ 1));
      cp_async_wait<0>();
      __syncthreads();  // the next step is in shared memory; everyone is done with buffer `buf`
      buf ^= 1;
    }

    // Epilogue, in two passes of KB/2 channels: the 16 points of a (tile, channel) are in 16
    // threads' registers; meet in shared memory, then one thread per (tile, channel) applies A^T M A.
    float* Ms = smem + Cfg::kMOffset;  // M[xi][t][k - k0 - pass KB/2]
    if (tid < T) {  // (the last readers of the table, the previous item's epilogue, passed barriers since)
      output_corner<Cfg>(out_base[tid], out_flags[tid], d, g, w.tile0 + tid, tiles);
    }
    const std::int64_t row_out = static_cast<std::int64_t>(d.q) * d.k;  // one output row in NPQK
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) __syncthreads();  // pass 0's reads are done
#pragma unroll
      for (int t = 0; t < TT; ++t) {
        const float4 m4 = make_float4(acc[t][4 * pass], acc[t][4 * pass + 1], acc[t][4 * pass + 2], acc[t][4 * pass + 3]);
        *reinterpret_cast<float4*>(Ms + (xi * T + tg * TT + t) * Cfg::kHalf + kg * 4) = m4;
      }
      __syncthreads();  // (in pass 0 also: out_base and out_flags are visible)
      store_outputs<Cfg>(y, Ms, out_base, out_flags, d, g, w.k0 + pass * Cfg::kHalf, row_out, tid);
    }
    if (!has_next) break;
    item = next;
    w = next_w;
  }
#else
  (void)d, (void)g, (void)x, (void)u, (void)y;
  __trap();  // sm_80+ only (cp.async): the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

std::string supports_v06(const ConvShape& s) {
  if (s.r != 3 || s.s != 3) return "Winograd F(2x2,3x3) is for 3x3 filters";
  if (s.stride_h != 1 || s.stride_w != 1) return "Winograd F(2x2,3x3) is for stride 1";
  if (fused_tile_count(s) > INT_MAX - FusedWide::T) return "more than 2^31 - 1 output tiles";
  const double u_bytes = 64.0 * static_cast<double>(round_up(s.c, FusedWide::CC)) *
                         static_cast<double>(round_up(s.k, FusedWide::KB));
  if (u_bytes > kMaxFilterBytes) {
    return "the transformed filter would take " + std::to_string(static_cast<long long>(u_bytes / 1e9)) +
           " GB (v06 allocates at most 4 GiB)";
  }
  return "";
}

namespace {

template <class Cfg>
void launch_fused(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  const auto fused = conv2d_v06_winograd_fused<Cfg>;
  tut::allow_dynamic_smem(fused, Cfg::kSmemBytes);  // once per kernel, outside the timed runs
  const std::int64_t cp = round_up(s.c, Cfg::CC), kp = round_up(s.k, Cfg::KB);
  const tut::Scratch::Lease filter = filter_scratch().lease(static_cast<std::size_t>(16 * cp * kp) * sizeof(float), stream);
  float* const u = filter.at<float>();
  const Dims d = dims_of(s);
  const std::int64_t tile_blocks = (fused_tile_count(s) + Cfg::T - 1) / Cfg::T, k_blocks = kp / Cfg::KB;
  const int steps = static_cast<int>(cp / Cfg::CC);
  const int splits = choose_splits(tile_blocks * k_blocks, steps,
                                   tut::full_wave_blocks(fused, Cfg::kThreads, Cfg::kSmemBytes));
  const std::int64_t items = tile_blocks * k_blocks * splits;
  const FusedGrid g{static_cast<int>(fused_tiles_h(s)), static_cast<int>(fused_tiles_w(s)), static_cast<int>(cp),
                    static_cast<int>(kp), splits, (steps + splits - 1) / splits, static_cast<int>(tile_blocks),
                    static_cast<int>(k_blocks), items};

  // [launch]
  // 1. The filters, once per call (part of the timed run): U[16][C][K], padded with zeros. When
  //    the C loop is split, the splits add into y: the same kernel zeroes it first (no memset).
  const dim3 ft_grid(static_cast<unsigned>(kp / 32), static_cast<unsigned>(std::min<std::int64_t>(cp / 2, 65535)));
  conv2d_v06_filter_transform<<<ft_grid, dim3(32, 2), 0, stream>>>(
      d.k, d.c, static_cast<int>(kp), static_cast<int>(cp), w, u, y, splits > 1 ? s.output_elements() : 0);
  CUDA_CHECK_LAUNCH();
  // 2. Everything else in one kernel: one block per SM (persistent), each walking its share of
  //    the work items (split along C when the tiles alone leave SMs idle). On sm_90 it may start
  //    before step 1 ends (programmatic dependent launch): its blocks load and transform their
  //    first input patches, then wait for U and y (griddepcontrol.wait in the kernel).
  const std::int64_t slots = tut::full_wave_blocks(fused, Cfg::kThreads, Cfg::kSmemBytes);
  const dim3 grid(static_cast<unsigned>(std::min(items, slots)));
  // (tut::launch_dependent_early: early only where the kernel's wait was compiled in, sm_90 code
  // on an sm_90 GPU; elsewhere plain stream order.)
  tut::launch_dependent_early(fused, grid, dim3(Cfg::kThreads), Cfg::kSmemBytes, stream, d, g, x,
                              static_cast<const float*>(u), y);
  // [launch]
}

}  // namespace

/// @brief v06: fused Winograd F(2x2, 3x3): v05's maths, with nothing of it in global memory.
///
/// **Idea.** v05 wrote the transformed input V (4x the input) and the products M (4x the output)
/// to global memory between its kernels. Fuse the phases (Lavin and Gray, 2016): a block owns
/// 32 output tiles x 64 output channels and walks the input channels in steps of 8. Per step it
/// loads the 4x4 input patches of its tiles, transforms them in registers into V[16][8][32] in
/// shared memory, copies U[16][8][64] of the transformed filter next to it (cp.async, two
/// buffers), and every thread accumulates a 16-tile x 8-channel register tile of one of the 16
/// points xi (chapter 06's register blocking). After the C loop the 16 points of each (tile,
/// channel) meet in shared memory and one thread applies A^T M A. V and M never leave the SM.
/// The helpers (tile loads, input and output transforms, the filter transform kernel) are in
/// winograd_tiles.cuh; this file holds the kernel's loop and its launch.
///
/// **Changed since v05.** Only the fusion: the same F(2x2, 3x3) transforms (winograd.hpp), the
/// same 2x2 output tiles, the same FLOP count; no V or M buffers, the 16 GEMMs inside the fused
/// kernel. The filter is transformed once per call by a small kernel (timed) that also zeroes y
/// when short layers split the C loop (as v04 splits its reduction); on sm_90 the fused kernel
/// may start while it runs (programmatic dependent launch). The grid is persistent: a block
/// loads its next work item's first step while it computes the last step of the current one.
///
/// **What is still wrong.** The input patches of neighbouring tiles overlap (a 4x4 patch for 2x2
/// outputs: every input is loaded about 4 times, from L1/L2). U is re-read from L2 by every
/// block (16 x 64 floats per input channel). One block of 8 warps per SM (128 accumulators per
/// thread) leaves the barrier of each step uncovered. The filter transform (3-6 us) still runs
/// before the fused kernel can start its FFMAs. F(4x4, 3x3) would cut the multiplies by 4x
/// instead of 2.25x, at a larger accuracy cost.
///
/// **Predicted.** At 55-65% of the FFMA peak in the 16 GEMMs (2 us per block step of 262,144
/// FMAs): 56x56 in 6 waves of 8 steps, about 0.11-0.13 ms (57-67 TFLOP/s direct-count,
/// 1.2-1.4x cuDNN's fastest fp32 row); 28x28 with 2 splits in 3 waves of 8 steps, 0.055-0.065 ms
/// (1.1-1.3x); 14x14 with 2 splits, one partial wave of 16 steps, 0.035-0.045 ms (1.6-2x).
/// Accuracy as v05's (the same transforms, the same order of roundings per step).
///
/// **Measured (H100).** The recorded run (docs/results/conv2d.json, git 0b3832529293): **0.1029
/// ms on N32 C64 56x56 (71.9 TFLOP/s, 1.49x cuDNN's fastest fp32 row**, NCHW, 0.1538 ms; 2.7x
/// v05), **0.0575 ms on N16 C128 28x28 (64.4 TFLOP/s, 1.05x cuDNN**, 0.0603 ms) and **0.0396 ms on
/// N8 C256 14x14 (46.7 TFLOP/s, 1.57x cuDNN**, 0.0621 ms). How it got there (development runs,
/// H100; the tables and the candidates that lost are in the chapter page's v06 section): the
/// first version took 0.138 / 0.076 / 0.050 ms on 56x56 / 28x28 / 14x14 (ncu: FMA pipe 45%
/// busy, 40% of the instructions not FFMAs); an output-offset table and per-row patch
/// addresses, 0.121 / 0.070 / 0.047 (28x28 then 0.86x cuDNN); the filter transform zeroing y
/// under an early launch, 0.1164 / 0.0639 / 0.0428; the persistent grid, one 64-bit address per
/// patch row and a wider filter transform, 0.1035 / 0.0578 / 0.0395: v06 now. Relative errors
/// 2.6e-7 to 3.6e-7, v05's or smaller.
void launch_conv2d_v06_winograd_fused(const ConvShape& s, const float* x, const float* w, float* y,
                                     cudaStream_t stream) {
  require_valid(s, "v06_winograd_fused_nhwc");
  const std::string why = supports_v06(s);
  if (!why.empty()) throw std::invalid_argument("v06_winograd_fused_nhwc: " + why);
  launch_fused<FusedWide>(s, x, w, y, stream);
}

}  // namespace conv2d
