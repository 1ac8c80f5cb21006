/// @file
/// @brief The warp-rows kernel (FlashAttention-2's work split on the CUDA cores, fp32) and its
/// launcher, templated on the tiles: v03_warp_rows.cu runs the tiles chosen per head dimension,
/// tune/warp_rows_candidates.cu the candidates of the search.
#pragma once

#include <stdexcept>
#include <string>

#include "attention.hpp"
#include "common/check.hpp"
#include "online_softmax.cuh"

namespace attention {

/// The tiles of the warp-rows kernel, by name: v03's first configuration, from which v03's chosen
/// ones (v03_warp_rows.cu) and the candidates of its search (tune/warp_rows_candidates.cu) derive,
/// each stating only the fields it changes. A lane (r, c) = (lane / 8, lane % 8) owns the rows r,
/// r + 4, r + 8, r + 12 of its warp's 16, the keys c, c + 8, ... of each tile, and the output
/// columns 4c .. 4c + 3 of every 32.
struct WarpRowsTiles {
  static constexpr int head_dim = 64;          ///< D
  static constexpr int keys_per_tile = 64;     ///< Bc: a multiple of 8 (spread over 8 lanes)
  static constexpr int warps = 4;              ///< warps per block, 16 query rows each
  static constexpr int min_blocks_per_sm = 1;  ///< promised to the compiler (caps the registers)
  /// With the causal mask, start the query tiles with the most keys first, all heads at a time
  /// (v06's order, block_tile()); else head by head.
  static constexpr bool heavy_first = false;
};

/// Everything the kernel needs, derived from the named fields of `Tiles` (a WarpRowsTiles or a
/// configuration derived from one): the short names the kernel uses.
template <class Tiles>
struct WarpRowsConfig {
  static constexpr int kHeadDim = Tiles::head_dim;          ///< head dimension
  static constexpr int kWarps = Tiles::warps;               ///< warps per block
  static constexpr int kMinBlocks = Tiles::min_blocks_per_sm;  ///< blocks per SM promised (caps the registers)
  static constexpr bool kHeavyFirst = Tiles::heavy_first;   ///< causal: longest blocks first (v06's order)
  static constexpr int kThreads = 32 * kWarps;              ///< threads per block
  static constexpr int Br = 16 * kWarps;                    ///< query rows per block
  static constexpr int Bc = Tiles::keys_per_tile;           ///< keys per tile
  static constexpr int kKeys = Bc / 8;                      ///< keys per lane and tile
  static constexpr int kVecs = kHeadDim / 32;               ///< float4s of an O row per lane
  /// Qs and Ks rows: a warp's float4 reads hit 4 (Q) or 8 (K) consecutive rows, 4 words apart mod 32 banks.
  static constexpr int kQStride = kHeadDim + 4;
  static constexpr int kKStride = kHeadDim + 4;  ///< see kQStride
  /// Ps rows: 8 words apart mod 32, so that the scalar stores of 4 rows x 8 keys hit 32 banks.
  static constexpr int kPStride = Bc + (8 - Bc % 32 + 32) % 32;
  /// Qs (Br, D) | Ks (Bc, D) | Vs (Bc, D) | Ps (kWarps, 16, Bc)
  static constexpr int kSmemFloats = Br * kQStride + Bc * kKStride + Bc * kHeadDim + kWarps * 16 * kPStride;
  static_assert(kQStride % 32 == 4 && kKStride % 32 == 4 && kPStride % 32 == 8, "v03: bank-conflict-free strides");
  static_assert(Bc % 8 == 0, "v03: the keys of a tile are spread over 8 lanes");
};

/// Element `i` (0-3, a constant after unrolling) of a float4.
__device__ __forceinline__ float element(const float4& x, int i) { return i == 0 ? x.x : i == 1 ? x.y : i == 2 ? x.z : x.w; }

/// @brief v03's kernel: per tile, one barrier pair for the K and V tiles; everything else inside the
/// warp: scores in registers (4 rows x Bc / 8 keys per lane), the softmax with shuffles among the 8
/// lanes of a row, P through a per-warp slice of shared memory, O in registers (4 rows x D / 8).
// [kernel]
template <class T>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
    attention_v03_warp_rows(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                           float* __restrict__ o, float* __restrict__ lse, int sq, int sk, bool causal,
                           float scale_log2) {
  constexpr int D = T::kHeadDim;
  constexpr int Br = T::Br, Bc = T::Bc, QS = T::kQStride, KS = T::kKStride, PS = T::kPStride;
  constexpr int kKeys = T::kKeys, kVecs = T::kVecs;
  extern __shared__ float4 smem_v3[];
  float* Qs = reinterpret_cast<float*>(smem_v3);  // (Br, D), row stride QS
  float* Ks = Qs + Br * QS;                         // (Bc, D), row stride KS
  float* Vs = Ks + Bc * KS;                         // (Bc, D)
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  float* Ps = Vs + Bc * D + warp * 16 * PS;         // this warp's (16, Bc) of P, row stride PS
  const int r = lane / 8, c = lane % 8;

  const int q_tiles = (sq + Br - 1) / Br;
  int bh = 0, qt = 0;
  block_tile(static_cast<int>(blockIdx.x), q_tiles, static_cast<int>(gridDim.x) / q_tiles, T::kHeavyFirst && causal,
             bh, qt);
  const int row0 = qt * Br;
  const int rows_valid = min(Br, sq - row0);
  const float* qb = q + (static_cast<std::size_t>(bh) * sq + row0) * D;
  const float* kb = k + static_cast<std::size_t>(bh) * sk * D;
  const float* vb = v + static_cast<std::size_t>(bh) * sk * D;
  for (int e = static_cast<int>(threadIdx.x); e < Br * D / 4; e += T::kThreads) {
    const int row = e / (D / 4), c4 = e % (D / 4);
    const float4 x = row < rows_valid ? reinterpret_cast<const float4*>(qb + row * D)[c4] : make_float4(0.f, 0.f, 0.f, 0.f);
    *reinterpret_cast<float4*>(Qs + row * QS + 4 * c4) = x;
  }
  const int wrow = warp * 16 + r;  // this lane's first row in the block; the others are + 4, + 8, + 12
  float m[4], l[4];                // running max (base 2) and this lane's share of the running sum
  float4 acc[4][kVecs];            // O rows wrow + 4i, columns 4c + 32 vv .. + 3 (unnormalized)
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
#pragma unroll
    for (int vv = 0; vv < kVecs; ++vv) acc[i][vv] = make_float4(0.f, 0.f, 0.f, 0.f);
  }

  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, Bc);
  for (int tile = 0; tile < tiles; ++tile) {
    const int kv0 = tile * Bc;
    __syncthreads();  // every warp is done with the previous K and V tiles
    for (int e = static_cast<int>(threadIdx.x); e < Bc * D / 4; e += T::kThreads) {
      const int key = e / (D / 4), c4 = e % (D / 4);
      const bool inside = kv0 + key < sk;
      const float4 kx = inside ? reinterpret_cast<const float4*>(kb + static_cast<std::size_t>(kv0 + key) * D)[c4]
                               : make_float4(0.f, 0.f, 0.f, 0.f);
      const float4 vx = inside ? reinterpret_cast<const float4*>(vb + static_cast<std::size_t>(kv0 + key) * D)[c4]
                               : make_float4(0.f, 0.f, 0.f, 0.f);
      *reinterpret_cast<float4*>(Ks + key * KS + 4 * c4) = kx;
      *reinterpret_cast<float4*>(Vs + key * D + 4 * c4) = vx;
    }
    __syncthreads();  // the tiles (and, the first time, Q) are in shared memory

    // Scores: rows wrow + 4i, keys c + 8j of the tile; per 4 dims, 4 + kKeys float4 loads, 16 kKeys FMA.
    float s[4][kKeys] = {};
#pragma unroll 2
    for (int d0 = 0; d0 < D; d0 += 4) {
      float4 qv[4], kv[kKeys];
#pragma unroll
      for (int i = 0; i < 4; ++i) qv[i] = *reinterpret_cast<const float4*>(Qs + (wrow + 4 * i) * QS + d0);
#pragma unroll
      for (int j = 0; j < kKeys; ++j) kv[j] = *reinterpret_cast<const float4*>(Ks + (c + 8 * j) * KS + d0);
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < kKeys; ++j) {
          s[i][j] = fmaf(qv[i].x, kv[j].x, s[i][j]);
          s[i][j] = fmaf(qv[i].y, kv[j].y, s[i][j]);
          s[i][j] = fmaf(qv[i].z, kv[j].z, s[i][j]);
          s[i][j] = fmaf(qv[i].w, kv[j].w, s[i][j]);
        }
    }

    // The online softmax of each of the lane's 4 rows: the row's scores are spread over the 8 lanes
    // with the same r, so its max is 3 shuffles away; no other warp is involved. The sum stays
    // per lane until the end (every lane's share is rescaled by the same factor).
    float alpha[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = row0 + wrow + 4 * i;
      float mx = -INFINITY;
#pragma unroll
      for (int j = 0; j < kKeys; ++j) {
        const int key = kv0 + c + 8 * j;
        const bool visible = key < sk && (!causal || key <= row + sk - sq);
        s[i][j] = visible ? s[i][j] * scale_log2 : -INFINITY;
        mx = fmaxf(mx, s[i][j]);
      }
      const float m_new = fmaxf(m[i], group_max<8>(mx));
      alpha[i] = rescale_factor(m[i], m_new);
      const float shift = exp_shift(m_new);
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kKeys; ++j) {
        const float p = fast_exp2(s[i][j] - shift);
        Ps[(r + 4 * i) * PS + c + 8 * j] = p;
        sum += p;
      }
      l[i] = l[i] * alpha[i] + sum;
      m[i] = m_new;
    }
    // O is rescaled once per tile, unnormalized (divided by l once, at the end).
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int vv = 0; vv < kVecs; ++vv) {
        acc[i][vv].x *= alpha[i];
        acc[i][vv].y *= alpha[i];
        acc[i][vv].z *= alpha[i];
        acc[i][vv].w *= alpha[i];
      }
    __syncwarp();  // the warp's P is in shared memory

    // O += P V: per 4 keys, 4 float4s of P (one per row) and 4 kVecs float4s of V, 64 kVecs FMA.
#pragma unroll 2
    for (int k0 = 0; k0 < Bc; k0 += 4) {
      float4 pv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) pv[i] = *reinterpret_cast<const float4*>(Ps + (r + 4 * i) * PS + k0);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
        for (int vv = 0; vv < kVecs; ++vv) {
          const float4 vx = *reinterpret_cast<const float4*>(Vs + (k0 + kk) * D + 4 * c + 32 * vv);
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const float p = element(pv[i], kk);
            acc[i][vv].x = fmaf(p, vx.x, acc[i][vv].x);
            acc[i][vv].y = fmaf(p, vx.y, acc[i][vv].y);
            acc[i][vv].z = fmaf(p, vx.z, acc[i][vv].z);
            acc[i][vv].w = fmaf(p, vx.w, acc[i][vv].w);
          }
        }
      }
    }
    __syncwarp();  // the warp's P reads are done before the next tile overwrites it
  }

  // The end: each row's sum over its 8 lanes, O / l, lse.
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float lt = group_sum<8>(l[i]);
    const float inv = inverse_sum(lt);
    const int row = wrow + 4 * i;
    if (row >= rows_valid) continue;
    float* orow = o + (static_cast<std::size_t>(bh) * sq + row0 + row) * D;
#pragma unroll
    for (int vv = 0; vv < kVecs; ++vv) {
      *reinterpret_cast<float4*>(orow + 4 * c + 32 * vv) =
          make_float4(acc[i][vv].x * inv, acc[i][vv].y * inv, acc[i][vv].z * inv, acc[i][vv].w * inv);
    }
    if (c == 0) lse[static_cast<std::size_t>(bh) * sq + row0 + row] = row_lse(m[i], lt);
  }
}
// [kernel]

/// Launches the warp-rows kernel with the tiles `Tiles` (one block per Br query rows of a head).
template <class Tiles>
void launch_warp_rows(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                      cudaStream_t stream) {
  using T = WarpRowsConfig<Tiles>;
  check_shape(s);
  if (s.d != T::kHeadDim) throw std::invalid_argument("v03: these tiles are compiled for D = " + std::to_string(T::kHeadDim));
  constexpr int kSmem = T::kSmemFloats * 4;
  tut::allow_dynamic_smem(attention_v03_warp_rows<T>, kSmem);
  attention_v03_warp_rows<T><<<row_tile_blocks(s, T::Br, "v03_warp_rows"), T::kThreads, kSmem, stream>>>(
      q, k, v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), s.causal, s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

/// True when two warp-rows tile configurations set every field alike: the same kernel, whatever their names. The
/// search (tune/) checks with it, at compile time, that its row for what a version runs is that.
template <class A, class B>
constexpr bool same_warp_rows_tiles() {
  return A::head_dim == B::head_dim && A::keys_per_tile == B::keys_per_tile && A::warps == B::warps && A::min_blocks_per_sm == B::min_blocks_per_sm && A::heavy_first == B::heavy_first;
}

// [v03_config]
/// The tiles v03 runs at D = 64: the first configuration (WarpRowsTiles), which the search of
/// v03's tiles (tune/warp_rows_candidates.cu, `attention_tune`) kept: 4 warps of 16 rows, 64-key
/// tiles, 68 KiB of shared memory, three blocks per SM. (Its row in the search: v03_d64_bc64_w4_b1.)
struct V03Tiles64 : WarpRowsTiles {};

/// The tiles v03 runs at D = 128, chosen by the same search (H100): 8 warps (128 query rows) and
/// 96-key tiles, 216 KiB, one block per SM, causal blocks longest first. The first choice, 4 warps
/// and 32-key tiles (two blocks of 77 KiB per SM), measured 31 TFLOP/s; 8 warps with 64-key tiles
/// 36.3 (1.11-1.18x); 96-key tiles 37.3-37.5 (12 keys per lane: 4 + 12 loads of 16 bytes per 192
/// FMA in the scores instead of 4 + 8 per 128). Causal, one block per SM, query tiles of 1 to 64
/// key tiles started head by head: the longest start last and the GPU ends on them (31.7 TFLOP/s
/// at S4096, 13% under the unmasked rate); longest first, 36.0. (Its row: v03_d128_bc96_w8_b1_heavy.)
struct V03Tiles128 : WarpRowsTiles {
  static constexpr int head_dim = 128;        ///< D
  static constexpr int keys_per_tile = 96;    ///< 12 keys per lane
  static constexpr int warps = 8;             ///< 128 query rows per block
  static constexpr bool heavy_first = true;   ///< causal blocks longest first
};
// [v03_config]

}  // namespace attention
