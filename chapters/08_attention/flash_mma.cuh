/// @file
/// @brief The tensor-core building blocks of v04-v06: the tile configuration, the swizzled
/// shared-memory tiles and their copies, and one warp's work on one tile of keys.
///
/// v04, v05 and v06 differ only in how K and V tiles reach shared memory and in which order the
/// blocks and tiles run; the math of a tile (S = Q K^T on the tensor cores, the online softmax in
/// registers, O += P V with P reused from registers) is attend_tile() below, shared by the three.
///
/// The fragment layouts are those of the PTX ISA for `mma.sync.aligned.m16n8k16.row.col.f32.bf16.
/// bf16.f32`. With g = lane / 4 and t = lane % 4:
///
///     A (16 x 16, row-major):  a[0] = (row g,   cols 2t, 2t+1)    a[1] = (row g+8, cols 2t, 2t+1)
///                              a[2] = (row g,   cols 2t+8, 2t+9)  a[3] = (row g+8, cols 2t+8, 2t+9)
///     B (16 x 8, "col"):       b[0] = (rows 2t, 2t+1, col g)      b[1] = (rows 2t+8, 2t+9, col g)
///     C (16 x 8, fp32):        c[0], c[1] = (row g, cols 2t, 2t+1) c[2], c[3] = (row g+8, same cols)
///
/// Each a[], b[] register holds two bf16 values, the lower column (or row) in the low half.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "attention.hpp"
#include "common/ampere_ptx.cuh"
#include "common/check.hpp"
#include "online_softmax.cuh"

namespace attention {

// The sm_80 wrappers (cp.async, ldmatrix, mma.sync, bf16 packing), written once for chapters
// 06-08 in common/ampere_ptx.cuh (namespace tut::sm80), named here for the tile code below.
using tut::sm80::cp_async_16;
using tut::sm80::cp_async_commit;
using tut::sm80::cp_async_wait;
using tut::sm80::ldmatrix_x4;
using tut::sm80::ldmatrix_x4_trans;
using tut::sm80::mma_bf16_16816;
using tut::sm80::pack_bf16x2;

/// The tiles of v04 and v05 at head dimension `kD` (64 or 128), and of v06 as the search left them:
/// 128 query rows per block, 4 warps of 32 rows (two m16 tiles each, so that every K and V
/// fragment feeds 4 mma), and 64 keys per tile at D = 64, 32 at D = 128. The registers decide: a
/// lane holds 32 x D / 32 fp32 of O (64 or 128) and 32 x keys / 32 of S (64, or 32 at D = 128);
/// with D = 128 and 64-key tiles ptxas spills, with 32-key tiles it does not. Q is read from
/// shared memory at every tile (as in FlashAttention-2): its fragments would take another 32
/// (D = 64) or 64 registers. A configuration of the search (tune/flash_candidates.cu) derives
/// from this one and states only the fields it changes.
template <int kD>
struct FlashTiles {
  static constexpr int head_dim = kD;                       ///< D: 64 or 128
  static constexpr int keys_per_tile = kD == 64 ? 64 : 32;  ///< Bc
  static constexpr int m16_tiles_per_warp = 2;              ///< query rows per warp / 16
  static constexpr int warps = 4;                           ///< warps per block
  /// Blocks per SM promised to the compiler (`__launch_bounds__`): it caps registers at 65536 /
  /// (blocks x threads), 255 at most.
  static constexpr int min_blocks_per_sm = 2;
};

/// Everything the tile code needs, derived from the named fields of `Tiles` (a FlashTiles or a
/// configuration derived from one): the short names the kernels use.
template <class Tiles>
struct FlashConfig {
  static constexpr int D = Tiles::head_dim;         ///< head dimension
  static constexpr int kWarps = Tiles::warps;       ///< warps per block
  static constexpr int kThreads = 32 * kWarps;      ///< threads per block
  static constexpr int kMt = Tiles::m16_tiles_per_warp;  ///< m16 tiles per warp
  static constexpr int kRowsPerWarp = 16 * kMt;     ///< query rows per warp
  static constexpr int Br = kRowsPerWarp * kWarps;  ///< query rows per block
  static constexpr int Bc = Tiles::keys_per_tile;   ///< keys per tile
  static constexpr int kNt = Bc / 8;                ///< n8 tiles of S per m16 tile
  static constexpr int kDt = D / 8;                 ///< n8 tiles of O per m16 tile
  static constexpr int kChunks = D / 8;             ///< 16-byte chunks in a row of Q, K or V
  static constexpr int kQElems = Br * D;            ///< bf16 values of the Q tile
  static constexpr int kKVElems = Bc * D;           ///< bf16 values of one K (or V) tile
  static constexpr int kMinBlocks = Tiles::min_blocks_per_sm;  ///< blocks per SM promised
  static_assert(D == 64 || D == 128, "flash: the swizzle and the register budget are written for D = 64 and 128");
  static_assert(Bc % 16 == 0, "flash: P V takes keys 16 at a time");
  static_assert((Br * kChunks) % kThreads == 0 && (Bc * kChunks) % kThreads == 0,
                "flash: tiles must split evenly into 16-byte chunks over the block");
};

/// Element offset of 16-byte chunk `chunk` (8 bf16) of row `row` in a swizzled tile of rows of D.
///
/// ldmatrix reads one chunk from each of 8 consecutive rows. A row is 128 (D = 64) or 256 bytes:
/// unswizzled, the same chunk of 8 rows sits in the same 16-byte bank group, an 8-way conflict.
/// XOR-ing the chunk index with row % 8 puts the 8 chunks in 8 different groups. The cp.async
/// stores (8 consecutive chunks of one row per 8 lanes) stay conflict-free.
// [swizzle]
template <int D>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}
// [swizzle]

/// Copies rows [0, kRows) of a tile, starting at `src` (row 0; rows of D values), into the swizzled
/// tile `dst` with ordinary 16-byte loads and stores; rows >= `valid` are filled with zeros.
/// Every thread of the block takes part; a __syncthreads() must follow before the tile is read.
template <class Cfg, int kRows>
__device__ __forceinline__ void load_tile_sync(__nv_bfloat16* dst, const __nv_bfloat16* src, int valid) {
#pragma unroll
  for (int i = 0; i < kRows * Cfg::kChunks / Cfg::kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * Cfg::kThreads;
    const int row = e / Cfg::kChunks, chunk = e % Cfg::kChunks;
    uint4 value = make_uint4(0u, 0u, 0u, 0u);  // bf16 zeros
    if (row < valid) value = *reinterpret_cast<const uint4*>(src + row * Cfg::D + chunk * 8);
    *reinterpret_cast<uint4*>(dst + swizzled<Cfg::D>(row, chunk)) = value;
  }
}

/// The same copy with cp.async: issued now, landed after cp_async_wait() and a __syncthreads().
/// Rows >= `valid` read nothing and land as zeros (a source size of 0 bytes).
template <class Cfg, int kRows>
__device__ __forceinline__ void load_tile_async(__nv_bfloat16* dst, const __nv_bfloat16* src, int valid) {
#pragma unroll
  for (int i = 0; i < kRows * Cfg::kChunks / Cfg::kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * Cfg::kThreads;
    const int row = e / Cfg::kChunks, chunk = e % Cfg::kChunks;
    const bool inside = row < valid;
    cp_async_16(dst + swizzled<Cfg::D>(row, chunk), inside ? src + row * Cfg::D + chunk * 8 : src, inside ? 16 : 0);
  }
}

/// One warp's running state: its 32 rows of O (fp32, unnormalized) and their online softmax.
template <class Cfg>
struct WarpRows {
  float o[Cfg::kMt][Cfg::kDt][4];  ///< O accumulators, C layout of m-tile mi, d-tile dt
  float m[Cfg::kMt][2];            ///< running max (base-2 units) of rows g and g + 8 of m-tile mi
  float l[Cfg::kMt][2];            ///< this lane's share of the running sum (its keys only)
};

/// Where a warp's rows and a tile's keys lie, for the mask.
struct TilePosition {
  int row;      ///< query row (in its head) of this lane's c[0] in m-tile 0: row0 + (rows per warp) warp + g
  int key;      ///< key of this lane's c[0] in n-tile 0 of this tile: kv0 + 2t
  int sk;       ///< keys per head: keys >= sk are masked
  int offset;   ///< causal: query i sees keys j <= i + offset (Sk - Sq)
  bool causal;  ///< apply the causal mask
};

/// Starts a warp's state: O = 0, m = -inf, l = 0 (nothing seen).
template <class Cfg>
__device__ __forceinline__ void start_rows(WarpRows<Cfg>& w) {
#pragma unroll
  for (int mi = 0; mi < Cfg::kMt; ++mi) {
#pragma unroll
    for (int dt = 0; dt < Cfg::kDt; ++dt)
#pragma unroll
      for (int r = 0; r < 4; ++r) w.o[mi][dt][r] = 0.0f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      w.m[mi][h] = -INFINITY;
      w.l[mi][h] = 0.0f;
    }
  }
}

/// One warp, one tile of Bc keys: S = Q K^T (tensor cores), mask (when `kMask`), online softmax
/// in registers, O += P V with P taken from the S registers. `Qs`, `Ks`, `Vs`: the swizzled tiles.
/// `scale_log2` = scale * log2(e).
// [attend_tile]
template <class Cfg, bool kMask>
__device__ __forceinline__ void attend_tile(WarpRows<Cfg>& w, const __nv_bfloat16* Qs,
                                            const __nv_bfloat16* Ks, const __nv_bfloat16* Vs, float scale_log2,
                                            const TilePosition& pos) {
  constexpr int D = Cfg::D, kMt = Cfg::kMt, kNt = Cfg::kNt;
  constexpr int kSUnroll = D == 128 ? 1 : 2;  // k-steps of Q K^T unrolled (see below)
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  // 1. S = Q K^T: per k-step of 16 dims, one ldmatrix.x4 of K gives the B operand of two n-tiles
  //    (16 keys), which both m-tiles use: kMt * 2 mma per ldmatrix.
  float s[kMt][kNt][4];
#pragma unroll
  for (int mi = 0; mi < kMt; ++mi)
#pragma unroll
    for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) s[mi][nt][r] = 0.0f;
  // Not fully unrolled: ptxas would hoist every k-step's loads and run out of registers (spills).
#pragma unroll(kSUnroll)
  for (int kk = 0; kk < D / 16; ++kk) {
    unsigned a[kMt][4];
#pragma unroll
    for (int mi = 0; mi < kMt; ++mi) {
      // Matrices: (rows 0-7, dims 0-7), (rows 8-15, dims 0-7), (rows 0-7, dims 8-15), (rows 8-15,
      // dims 8-15) of m-tile mi: a[0..3].
      ldmatrix_x4(a[mi], Qs + swizzled<D>(warp * Cfg::kRowsPerWarp + mi * 16 + lane % 16, 2 * kk + lane / 16));
    }
#pragma unroll
    for (int np = 0; np < kNt / 2; ++np) {
      // Matrices: (keys 0-7, dims 0-7), (keys 0-7, dims 8-15), (keys 8-15, dims 0-7), (keys 8-15, dims 8-15)
      // of these 16 keys: b[0], b[1] of n-tile 2 np, then of n-tile 2 np + 1.
      unsigned b[4];
      ldmatrix_x4(b, Ks + swizzled<D>(np * 16 + (lane / 16) * 8 + lane % 8, 2 * kk + (lane / 8) % 2));
#pragma unroll
      for (int mi = 0; mi < kMt; ++mi) {
        mma_bf16_16816(s[mi][2 * np], a[mi], b[0], b[1]);
        mma_bf16_16816(s[mi][2 * np + 1], a[mi], b[2], b[3]);
      }
    }
  }

  // 2. The mask: a key past the end, or (causal) after the query's diagonal, scores -inf.
  if constexpr (kMask) {
#pragma unroll
    for (int mi = 0; mi < kMt; ++mi)
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = pos.row + mi * 16 + (r / 2) * 8, key = pos.key + nt * 8 + (r % 2);
          const bool visible = key < pos.sk && (!pos.causal || key <= row + pos.offset);
          if (!visible) s[mi][nt][r] = -INFINITY;
        }
  }

  // 3. The online softmax of rows g and g + 8 of each m-tile: each lane holds 2 scores per n-tile;
  //    the row's other scores are in the 3 other lanes of its quad (lane ^ 1, lane ^ 2).
  float alphas[kMt][2];
#pragma unroll
  for (int mi = 0; mi < kMt; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // The lane's max and sum over its 2 kNt scores of the row, in 4 independent chains: one
      // chain of 2 kNt dependent instructions would leave the warp waiting on each one's latency.
      float mx4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) mx4[nt % 4] = fmaxf(mx4[nt % 4], fmaxf(s[mi][nt][2 * h], s[mi][nt][2 * h + 1]));
      const float mx = group_max<4>(fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]))) * scale_log2;  // -inf stays -inf
      const float m_new = fmaxf(w.m[mi][h], mx);
      const float alpha = rescale_factor(w.m[mi][h], m_new);
      const float shift = exp_shift(m_new);
      float sum4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = fast_exp2(fmaf(s[mi][nt][2 * h + e], scale_log2, -shift));  // -inf -> 0
          s[mi][nt][2 * h + e] = p;
          sum4[nt % 4] += p;
        }
      }
      // This lane's share of the row's sum; the quad's shares are summed once, at the end.
      w.l[mi][h] = w.l[mi][h] * alpha + ((sum4[0] + sum4[1]) + (sum4[2] + sum4[3]));
      w.m[mi][h] = m_new;
      alphas[mi][h] = alpha;
    }
  }
  // Rescale O once per tile, and only if some row of the warp has a new max: after the first few
  // tiles the running max rarely grows, and D / 4 multiplies per row (128 per lane at D = 128) are
  // as many instructions as the tile's mma. (alpha == 1 exactly when the max did not move.)
  bool moved = false;
#pragma unroll
  for (int mi = 0; mi < kMt; ++mi) moved = moved || alphas[mi][0] != 1.0f || alphas[mi][1] != 1.0f;
  if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
    for (int mi = 0; mi < kMt; ++mi)
#pragma unroll
      for (int dt = 0; dt < Cfg::kDt; ++dt)
#pragma unroll
        for (int r = 0; r < 4; ++r) w.o[mi][dt][r] *= alphas[mi][r / 2];
  }

  // 4. O += P V. The accumulators of n-tiles 2 kk and 2 kk + 1 (keys 16 kk .. 16 kk + 15) are, once
  //    rounded to bf16 in pairs, exactly the A fragment of the k-step kk of P V: P never leaves
  //    the registers. V (stored [key][d]) is loaded transposed by ldmatrix.x4.trans: two d-tiles
  //    of 8 per instruction.
#pragma unroll
  for (int kk = 0; kk < kNt / 2; ++kk) {
    unsigned a[kMt][4];
#pragma unroll
    for (int mi = 0; mi < kMt; ++mi) {
      a[mi][0] = pack_bf16x2(s[mi][2 * kk][0], s[mi][2 * kk][1]);          // row g,     keys 2t, 2t+1
      a[mi][1] = pack_bf16x2(s[mi][2 * kk][2], s[mi][2 * kk][3]);          // row g + 8, keys 2t, 2t+1
      a[mi][2] = pack_bf16x2(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1]);  // row g,     keys 2t+8, 2t+9
      a[mi][3] = pack_bf16x2(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3]);  // row g + 8, keys 2t+8, 2t+9
    }
#pragma unroll
    for (int dp = 0; dp < D / 16; ++dp) {
      // Matrices: (keys 0-7, dims 0-7), (keys 8-15, dims 0-7), (keys 0-7, dims 8-15), (keys 8-15,
      // dims 8-15), each transposed: b[0], b[1] of d-tile 2 dp, then of d-tile 2 dp + 1.
      unsigned b[4];
      ldmatrix_x4_trans(b, Vs + swizzled<D>(kk * 16 + ((lane / 8) % 2) * 8 + lane % 8, 2 * dp + lane / 16));
#pragma unroll
      for (int mi = 0; mi < kMt; ++mi) {
        mma_bf16_16816(w.o[mi][2 * dp], a[mi], b[0], b[1]);
        mma_bf16_16816(w.o[mi][2 * dp + 1], a[mi], b[2], b[3]);
      }
    }
  }
}
// [attend_tile]

/// The end: sums each row's l over its quad, divides O by it, and stores O (bf16) and lse for the
/// rows < sq. `o_block` and `lse_block` point at row 0 of the block's rows in this head.
template <class Cfg>
__device__ __forceinline__ void finish_rows(const WarpRows<Cfg>& w, __nv_bfloat16* o_block, float* lse_block,
                                            int rows_valid) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < Cfg::kMt; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float l = group_sum<4>(w.l[mi][h]);
      const float inv = inverse_sum(l);
      const int row = warp * Cfg::kRowsPerWarp + mi * 16 + g + h * 8;
      if (row >= rows_valid) continue;
      __nv_bfloat16* out = o_block + row * Cfg::D + 2 * t;
#pragma unroll
      for (int dt = 0; dt < Cfg::kDt; ++dt) {
        *reinterpret_cast<unsigned*>(out + dt * 8) = pack_bf16x2(w.o[mi][dt][2 * h] * inv, w.o[mi][dt][2 * h + 1] * inv);
      }
      if (t == 0) lse_block[row] = row_lse(w.m[mi][h], l);
    }
  }
}

/// Checks what v04-v06 need (D = 64 or 128, 16-byte aligned Q, K, V) and returns the number of
/// blocks: one per (head, tile of `br` query rows).
inline unsigned flash_blocks(const Shape& s, const void* q, const void* k, const void* v, int br, const char* who) {
  check_shape(s);
  if (!unsupported_unless_d64_d128(s).empty()) {
    throw std::invalid_argument(std::string(who) + ": " + unsupported_unless_d64_d128(s));
  }
  for (const void* p : {q, k, v}) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
      throw std::invalid_argument(std::string(who) + ": Q, K and V must start 16-byte aligned (16-byte copies)");
    }
  }
  return row_tile_blocks(s, br, who);
}

}  // namespace attention
