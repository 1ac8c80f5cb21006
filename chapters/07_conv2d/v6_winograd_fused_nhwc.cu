/// @file
/// @brief v6: fused Winograd F(2x2, 3x3) (NHWC, KRSC, fp32): v5's input transform, 16 GEMMs and
/// output transform in one kernel, so the transformed input and the products never leave the SM.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/launch.hpp"
#include "conv2d.hpp"
#include "conv2d_device.cuh"
#include "winograd.hpp"

namespace conv2d {

/// The compile-time tiles of the fused kernel, and everything derived from them. A block owns
/// T output tiles (2x2 outputs each) x KB output channels, for all 16 Winograd points xi; a
/// thread owns one point and a TT tiles x 8 channels register tile of it.
template <int T_, int KB_, int TT_>
struct FusedTiles {
  static constexpr int T = T_;    ///< 2x2 output tiles per block
  static constexpr int KB = KB_;  ///< output channels per block
  static constexpr int TT = TT_;  ///< tiles per thread (its register tile is TT x 8 channels)
  static constexpr int CC = 8;    ///< input channels per step of the C loop

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

// [tiles]
/// v6's tiles: 32 output tiles (128 outputs) x 64 channels per block, 256 threads, each a
/// 16-tile x 8-channel register tile of one Winograd point (128 accumulators); 164 KiB of
/// shared memory (two steps of V and U, and M), one block per SM.
using FusedWide = FusedTiles<32, 64, 16>;
// [tiles]

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

namespace {

/// Output tiles of 2x2: tiles_h x tiles_w per image (the same tiling as v5).
std::int64_t fused_tiles_h(const ConvShape& s) { return (s.p() + 1) / 2; }
std::int64_t fused_tiles_w(const ConvShape& s) { return (s.q() + 1) / 2; }
std::int64_t fused_tile_count(const ConvShape& s) { return s.n * fused_tiles_h(s) * fused_tiles_w(s); }
std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

/// The transformed filter U, kept between runs (it only grows; allocated on the untimed first
/// run of a shape, freed at exit).
tut::DeviceBuffer<float>& filter_workspace(std::size_t count) {
  static tut::DeviceBuffer<float> u;
  if (u.size() < count) {
    u = tut::DeviceBuffer<float>();
    u = tut::DeviceBuffer<float>(count);
  }
  return u;
}

/// The largest transformed filter v6 allocates.
constexpr double kMaxFilterBytes = 4.0 * 1024 * 1024 * 1024;

}  // namespace

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
__global__ void __launch_bounds__(64) conv2d_v6_filter_transform(int k_count, int c_count, int k_padded, int c_padded,
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
    conv2d_v6_winograd_fused(Dims d, FusedGrid g, const float* __restrict__ x, const float* __restrict__ u,
                             float* __restrict__ y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int T = Cfg::T, KB = Cfg::KB, TT = Cfg::TT, CC = Cfg::CC;
  extern __shared__ __align__(16) float smem[];  // 2 x [ V (16, CC, kVRow) | U (16, CC, KB) ]; then M
  const int tid = threadIdx.x;
  const int tiles = d.n * g.tiles_h * g.tiles_w;  // < 2^31 (supports_v6)
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
  // inside the image (bit 4a + b).
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
#pragma unroll
    for (int i = 0; i < Cfg::kLoads; ++i) {
      const int tile = w.tile0 + (tid + i * Cfg::kThreads) / CC;
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
  };
  float patch_regs[Cfg::kLoads][16];
  const std::uint64_t x_addr = reinterpret_cast<std::uint64_t>(x);
  const auto load_patches = [&](int step) {  // global -> registers (zeros outside the image, past C)
    const int c = step * CC + lc;
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
  };
  const auto store_transformed = [&](float* Vs) {  // registers -> V[xi][lc][t] = (B^T d B)[xi]
#pragma unroll
    for (int i = 0; i < Cfg::kLoads; ++i) {
      float v[16];
      winograd::input_transform(patch_regs[i], v);
      const int t = (tid + i * Cfg::kThreads) / CC;
#pragma unroll
      for (int xi = 0; xi < 16; ++xi) Vs[(xi * CC + lc) * Cfg::kVRow + t] = v[xi];
    }
  };
  const auto copy_filter = [&](int step, float* Us) {  // U[xi][c][k0 ..] -> shared (padded: no checks)
    const float* src = u_src + static_cast<std::int64_t>(step) * CC * g.k_padded;
#pragma unroll
    for (int i = 0; i < Cfg::kUCopies; ++i) cp_async_16(Us + 4 * (tid + i * Cfg::kThreads), src + i * u_copy_stride, true);
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
      const int tile = w.tile0 + tid;
      out_flags[tid] = 0;
      out_base[tid] = 0;
      if (tile < tiles) {
        const int tw = tile % g.tiles_w, th = tile / g.tiles_w % g.tiles_h, n = tile / (g.tiles_w * g.tiles_h);
        out_base[tid] = ((static_cast<std::int64_t>(n) * d.p + 2 * th) * d.q + 2 * tw) * d.k;
        out_flags[tid] = 1 | (2 * th + 1 < d.p ? 2 : 0) | (2 * tw + 1 < d.q ? 4 : 0);
      }
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
#pragma unroll
      for (int j = 0; j < Cfg::kItems; ++j) {
        const int item_out = tid + j * Cfg::kThreads, kk = item_out % Cfg::kHalf, t = item_out / Cfg::kHalf;
        const int k = w.k0 + pass * Cfg::kHalf + kk, flags = out_flags[t];
        if (k >= d.k || !(flags & 1)) continue;
        float m[16], out[4];
#pragma unroll
        for (int p = 0; p < 16; ++p) m[p] = Ms[(p * T + t) * Cfg::kHalf + kk];
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

std::string supports_v6(const ConvShape& s) {
  if (s.r != 3 || s.s != 3) return "Winograd F(2x2,3x3) is for 3x3 filters";
  if (s.stride_h != 1 || s.stride_w != 1) return "Winograd F(2x2,3x3) is for stride 1";
  if (fused_tile_count(s) > INT_MAX - FusedWide::T) return "more than 2^31 - 1 output tiles";
  const double u_bytes = 64.0 * static_cast<double>(round_up(s.c, FusedWide::CC)) *
                         static_cast<double>(round_up(s.k, FusedWide::KB));
  if (u_bytes > kMaxFilterBytes) {
    return "the transformed filter would take " + std::to_string(static_cast<long long>(u_bytes / 1e9)) +
           " GB (v6 allocates at most 4 GiB)";
  }
  return "";
}

namespace {

/// How many blocks share the C loop of one output tile: the s that minimizes
/// waves(s) x (steps per block + 2), the 2 standing for the prologue and the epilogue; each
/// split keeps at least 4 steps. Splits pay for zeroing y and atomic adds, so ties keep fewer.
int choose_splits(std::int64_t blocks, int steps, std::int64_t slots) {
  int best = 1;
  std::int64_t best_cost = -1;
  for (int s = 1; s <= std::max(1, std::min(steps / 4, 16)); ++s) {
    const int per = (steps + s - 1) / s, used = (steps + per - 1) / per;
    const std::int64_t cost = (blocks * used + slots - 1) / slots * (per + 2);
    if (best_cost < 0 || cost < best_cost) best = used, best_cost = cost;
  }
  return best;
}

template <class Cfg>
void launch_fused(const ConvShape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  const auto fused = conv2d_v6_winograd_fused<Cfg>;
  tut::allow_dynamic_smem(fused, Cfg::kSmemBytes);  // once per kernel, outside the timed runs
  const std::int64_t cp = round_up(s.c, Cfg::CC), kp = round_up(s.k, Cfg::KB);
  tut::DeviceBuffer<float>& u = filter_workspace(static_cast<std::size_t>(16 * cp * kp));
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
  conv2d_v6_filter_transform<<<ft_grid, dim3(32, 2), 0, stream>>>(
      d.k, d.c, static_cast<int>(kp), static_cast<int>(cp), w, u.data(), y, splits > 1 ? s.output_elements() : 0);
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
                              static_cast<const float*>(u.data()), y);
  // [launch]
}

}  // namespace

/// @brief v6: fused Winograd F(2x2, 3x3): v5's maths, with nothing of it in global memory.
///
/// **Idea.** v5 wrote the transformed input V (16 values per 2x2 tile and channel: 4x the
/// input) and the products M (4x the output) to global memory between its kernels. Fuse the
/// phases (Lavin and Gray, 2016, whose kernels are fused the same way): a block owns 32 output
/// tiles x 64 output channels and walks the input channels in steps of 8. Per step it loads the
/// 4x4 input patches of its tiles (zeros outside the image), transforms them in registers and
/// stores V[16][8][32] in shared memory, copies U[16][8][64] of the transformed filter next to
/// it (cp.async; two buffers, so step i+1 loads while step i computes), and every thread
/// accumulates a 16-tile x 8-channel register tile of one of the 16 points xi: per channel two
/// LDS.128 of U and four of V feed 128 FFMA, chapter 06's register blocking. After the C loop the
/// 16 points of each (tile, channel) meet in shared memory and one thread applies A^T M A and
/// writes the 2x2 outputs to NHWC. V and M never leave the SM; only x, U (0.15-2.4 MB, read from
/// L2 by every block) and y move. The filter is still transformed once per call by a small kernel
/// (timed), which also zeroes y when the C loop is split; on sm_90 the fused kernel is launched
/// so that it may start while that kernel runs (programmatic dependent launch) and waits for U
/// only after loading and transforming its first input patches. The grid is persistent (one
/// block per SM walks several work items) so that a block loads its next item's first step
/// while it computes the last step of the current one.
///
/// **Changed since v5.** Only the fusion: the same F(2x2, 3x3) transforms (winograd.hpp), the
/// same tiling of the output into 2x2 tiles, the same FLOP count (the direct convolution's);
/// no V or M buffers. The 16 GEMMs are now inside the fused kernel instead of v4's kernel.
/// Short layers split the C loop over several blocks (each adds its transformed partial sums
/// into y), as v4 splits its reduction.
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
/// Accuracy as v5's (the same transforms, the same order of roundings per step).
///
/// **Measured (H100).** First version: 0.138 ms on 56x56 (53.5 TFLOP/s, 1.12x cuDNN's fastest
/// fp32 row of the same run), 0.076 ms on 28x28, 0.050 ms on 14x14; all correct, errors as v5's
/// or smaller (2.6e-7 to 3.6e-7). ncu on 56x56: 242 registers, one block of 8 warps per SM, FMA
/// pipe 45% busy, issue slots 64% busy; 40% of the executed instructions were not FFMAs, and
/// the epilogue's divisions (tile -> n, th, tw for every output) were a visible share. Two
/// changes to the bookkeeping, not to the idea: the epilogue reads each tile's output offset
/// from a table the block fills once (0.127 ms on 56x56, 0.071 on 28x28), and the loader builds
/// its 16 addresses from one row offset per patch row and reads the filter with one pointer per
/// copy (211 registers; 0.121 ms, 61 TFLOP/s, on 56x56; 0.069 ms on 28x28; 0.047 ms on 14x14).
/// Two other tile shapes were slower on all three layers: 64 tiles x 32 channels (0.161 ms on
/// 56x56) and 64 x 32 with 8 x 8 per thread and 512 threads (16 warps per SM, 0.153 ms: twice
/// the shared loads per FFMA). Recorded run (commit 8c3570e2f833, cuDNN's rows re-timed over
/// every candidate of its search): **0.121 ms on 56x56, 61.3 TFLOP/s, 1.30x cuDNN's fastest fp32
/// row** (FFT_TILING, 0.156 ms; 2.3x v5); **0.047 ms on 14x14, 1.32x cuDNN** (WINOGRAD_NONFUSED,
/// 0.062 ms; 1.42x v5); but **0.070 ms on 28x28, 0.86x cuDNN** (WINOGRAD_NONFUSED, 0.060 ms;
/// 1.53x v5): target missed there. Relative errors 2.6e-7 to 3.6e-7, v5's or smaller (cuDNN's
/// Winograd rows: 2.7e-6 to 3.4e-6). The prediction held on 56x56 and 14x14; 28x28 came out
/// slower (0.070 ms against 0.055-0.065): under ncu its filter transform alone is 4.7 us (7%),
/// plus the split's memset and atomics, which the estimate left out; and its blocks run only 8
/// steps each, so the exposed first loads and the epilogue weigh more than on 56x56. Its V and
/// M (26 MB each) fit in L2, which is why cuDNN's non-fused Winograd is at its best there.
///
/// **28x28 again (issue 13).** On paper its 70 us were 3 waves of blocks of 8 steps, about 20 us
/// each (8 steps of ~2.3 us, ~2 us of first loads and epilogue), plus 3-5 us of filter transform
/// and 2-3 us of memset, each its own launch. Four candidates, predicted, then measured in one
/// development run (H100, the same run as cuDNN, all correct): (a) no memset (the filter
/// transform zeroes y) and the fused kernel launched to overlap the filter transform (PDL):
/// predicted 4-5 us off 28x28, less on 56x56 (no split there); (b) 32 tiles x 32 channels in
/// 128 threads, two blocks per SM, each covering the other's barriers, first loads and
/// epilogue: predicted 5-10% off the fused kernel, against a third more L2 traffic and twice
/// the input transforms per FFMA; (c) 16 tiles x 64 channels, two blocks per SM: less than (b),
/// U's traffic per FFMA doubles; (d) 16 channels per step (half the barriers, 205 KB of shared
/// memory, 243 registers): a few percent. Medians in ms (cuDNN's fastest fp32 row: 0.1544,
/// 0.0612, 0.0612):
///
///     layer            v6 before   (a)      (b)+(a)  (b)      (c)+(a)  (d)+(a)
///     N32 C64 56x56    0.1199      0.1164   0.1296   0.1337   0.1212   0.1197
///     N16 C128 28x28   0.0700      0.0639   0.0697   0.0739   0.0668   0.0639
///     N8 C256 14x14    0.0480      0.0428   0.0457   0.0500   0.0438   0.0431
///
/// (a) beat its prediction (6.1 us off 28x28, 3.5 on 56x56, 5.2 on 14x14) and is what v6 runs
/// now: 0.96x cuDNN on 28x28, still short of 1.0x; 1.33x on 56x56, 1.43x on 14x14. Two blocks
/// per SM (b, c) lost: the extra loads and transforms cost more than the overlap gained; (d)
/// tied (a) on 28x28 and 14x14 and lost on 56x56.
///
/// **28x28, third round (issue 13): measure first.** ncu on 28x28 (clocks as found, 1.96 GHz):
/// the fused kernel 57.8 us and the filter transform 6.05 us, which (a) did *not* hide: the
/// fused kernel can do nothing but its first loads before it needs U, so 57.8 + 6.05 is the
/// 63.9 us measured. Inside the fused kernel (sampled stalls by code region): the FFMA loop 58%
/// of the samples (there two warps per scheduler issue 77% of the cycles), the loader 11% (177
/// instructions per step for 16 loads and 8 copies: the compiler re-derived each load's 64-bit
/// address from x, reloading x from constant memory each time), the prologue 10% (mostly waiting
/// for the first patches), the epilogue 11%, the input transform 5%, the barrier 3%. Six
/// candidates, predicted, then measured in two development runs (H100, same run as cuDNN, all
/// correct; the [winograd] and [misaligned] tests passed for each): (P) a persistent grid, one
/// block per SM walking work items blockIdx.x, + gridDim.x, ..., that loads the next item's
/// first step during the last step of the current one (M gets its own 64 KiB, as a buffer then
/// holds the next step): predicted 2-3 us off 28x28 (two item boundaries per block), 4-6 us off
/// 56x56 (five), nothing on 14x14 (one item per block); (E) a vector epilogue (a thread owns 4
/// channels of a tile: 16-byte loads of M, 16-byte stores, `red.global.add.v4.f32` for the
/// splits on sm_90): 1-2 us off 28x28; (S) the next step's loads, copies and input transform
/// moved inside the unrolled FFMA loop (predicated, no branch), to mix with the FFMAs: 3-8% off
/// all three; (Z) 16-byte zeroing of y: 0.5 us; then (L) one 64-bit address per patch row (an
/// empty asm keeps the compiler from folding it back into each load; column b is one IMAD.WIDE
/// away): loader 177 -> ~100 instructions, 3-5% off; and (F) the filter transform in 4x as many
/// blocks of 32 k x 2 c (the strided reads of w cost L1 cycles on the SM that issues them, and
/// 64 blocks used 64 SMs), its taps loaded before its 16-byte zeroing of y, and the fused
/// kernel storing V of its first step before the wait: 6 -> ~3 us, 2-3 us off 28x28. Medians in
/// ms (cuDNN's fastest fp32 row: 56x56 0.155, 28x28 0.0615-0.069, 14x14 0.062):
///
///     layer            before (a)  E       P       PE      PES     P+L     P+F     P+L+F   P+E+L+F
///     N32 C64 56x56    0.1164      0.1156  0.1100  0.1118  0.1224  0.1056  0.1092  0.1035  0.1057
///     N16 C128 28x28   0.0638      0.0628  0.0622  0.0628  0.0665  0.0604  0.0609  0.0578  0.0582
///     N8 C256 14x14    0.0422      0.0420  0.0422  0.0429  0.0453  0.0409  0.0417  0.0395  0.0400
///
/// (first columns from the first run, the rest from the second, where each layer ran twice in
/// opposite orders and the two medians agreed within 0.5%; "before" is the same in both.) P met
/// its prediction on 56x56 (-6.4 us) and gave 1.6 us on 28x28; E gave ~1 us alone and nothing
/// on top of P; S lost everywhere (the loads issued at channel 1 were not back by channel 6:
/// global-load stalls doubled); Z was within the noise. L: -2 us on 28x28, -4.4 on 56x56, about
/// as predicted; F: the filter transform 6.3 -> 4.6 us on 28x28 (ncu), -1.3 us in all. Together
/// P + L + F: **0.0578 ms on 28x28** (1.10x v6 before; 1.19x the fastest cuDNN fp32 row of the
/// same run, 0.0690 ms, and 1.06x the fastest cuDNN median we have seen on this layer, 0.0612
/// ms), **0.1035 ms on 56x56, 0.0395 ms on 14x14**; 251 registers in that build, the fused
/// kernel 53.1 us on 28x28 under ncu. That is v6 now (253 registers as committed: the same code
/// less the candidates' switches). Its device-script run (commit 237f1a49156a) printed 0.0397 ms
/// on 14x14, 1.51x cuDNN's fastest fp32 row (0.0601 ms). The recorded table (device script,
/// commit c36a0f9f2e57, cuDNN in the same run; tests and the four sanitizers clean): **0.0572 ms
/// on 28x28, 1.06x cuDNN's fastest fp32 row** (NCHW WINOGRAD_NONFUSED, 0.0607 ms), 0.1023 ms on
/// 56x56 (1.54x, FFT_TILING 0.1573 ms), 0.0394 ms on 14x14 (1.53x, 0.0603 ms).
void launch_conv2d_v6_winograd_fused(const ConvShape& s, const float* x, const float* w, float* y,
                                     cudaStream_t stream) {
  require_valid(s, "v6_winograd_fused_nhwc");
  const std::string why = supports_v6(s);
  if (!why.empty()) throw std::invalid_argument("v6_winograd_fused_nhwc: " + why);
  launch_fused<FusedWide>(s, x, w, y, stream);
}

}  // namespace conv2d
