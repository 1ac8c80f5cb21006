/// @file
/// @brief v02: tiled, FlashAttention-1 style: a block owns 64 query rows; K and V pass through shared
/// memory in tiles of 64 keys, shared by all of them; the block's threads cooperate on every step.
#include <stdexcept>

#include "attention.hpp"
#include "common/check.hpp"
#include "online_softmax.cuh"

namespace attention {

/// The tiles of v02 (and of the exercise): 64 query rows per block, 64 keys per tile, 256 threads.
template <int D>
struct V02Tiles {
  static constexpr int Br = 64;            ///< query rows per block
  static constexpr int Bc = 64;            ///< keys per tile
  static constexpr int kThreads = 256;     ///< threads per block: a 16 x 16 grid
  static constexpr int kRowStride = D + 4;   ///< Qs, Ks rows: float4 reads of 8 consecutive rows hit 8 bank groups
  static constexpr int kScoreStride = Bc + 1;  ///< Ss rows: a column read across rows hits distinct banks
  /// Qs (Br, D) | Ks (Bc, D) | Vs (Bc, D) | Ss (Br, Bc) | row factors (Br)
  static constexpr int kSmemFloats = Br * kRowStride + Bc * kRowStride + Bc * D + Br * kScoreStride + Br;
};

/// @brief v02's kernel. Per tile of 64 keys, four phases separated by barriers: (0) load the K and V
/// tiles; (A) the 64 x 64 scores into shared memory; (B) per row, the online softmax update over
/// the tile (4 threads per row); (C) O = O * c + P V for the block's 64 x D outputs in registers.
// [kernel]
template <int D>
__global__ void __launch_bounds__(V02Tiles<D>::kThreads)
    attention_v02_tiled(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                       float* __restrict__ o, float* __restrict__ lse, int sq, int sk, bool causal, float scale_log2) {
  using T = V02Tiles<D>;
  constexpr int Br = T::Br, Bc = T::Bc, RS = T::kRowStride, SS = T::kScoreStride;
  extern __shared__ float4 smem_v2[];
  float* Qs = reinterpret_cast<float*>(smem_v2);  // (Br, D), row stride RS
  float* Ks = Qs + Br * RS;                         // (Bc, D), row stride RS
  float* Vs = Ks + Bc * RS;                         // (Bc, D)
  float* Ss = Vs + Bc * D;                          // (Br, Bc), row stride SS: scores, then P
  float* row_factor = Ss + Br * SS;                 // (Br): what O's row is multiplied by this tile

  const int q_tiles = (sq + Br - 1) / Br;
  const int bh = static_cast<int>(blockIdx.x) / q_tiles, row0 = (static_cast<int>(blockIdx.x) % q_tiles) * Br;
  const int rows_valid = min(Br, sq - row0);
  const float* qb = q + (static_cast<std::size_t>(bh) * sq + row0) * D;
  const float* kb = k + static_cast<std::size_t>(bh) * sk * D;
  const float* vb = v + static_cast<std::size_t>(bh) * sk * D;
  const int t = static_cast<int>(threadIdx.x);
  const int tx = t % 16, ty = t / 16;          // phases A and C: rows ty + 16 i, keys tx + 16 j / dims 4 tx + 64 c
  const int stat_row = t / 4, stat_part = t % 4;  // phase B: row t / 4, keys 16 part .. 16 part + 15

  for (int e = t; e < Br * D / 4; e += T::kThreads) {  // the Q tile, zeros past the last row
    const int r = e / (D / 4), c4 = e % (D / 4);
    const float4 x = r < rows_valid ? reinterpret_cast<const float4*>(qb + r * D)[c4] : make_float4(0.f, 0.f, 0.f, 0.f);
    *reinterpret_cast<float4*>(Qs + r * RS + 4 * c4) = x;
  }
  float m = -INFINITY, l = 0.0f;          // phase B: the running max (base 2) and sum of row stat_row
  float4 acc[4][D / 64];                  // phase C: O[ty + 16 i][4 tx + 64 c .. + 3], kept normalized
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int c = 0; c < D / 64; ++c) acc[i][c] = make_float4(0.f, 0.f, 0.f, 0.f);

  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, Bc);
  for (int tile = 0; tile < tiles; ++tile) {
    const int kv0 = tile * Bc;
    // (0) K and V tiles, zeros past the last key.
    __syncthreads();  // everyone is done with the previous tile's Ks, Vs, Ss and row factors
    for (int e = t; e < Bc * D / 4; e += T::kThreads) {
      const int r = e / (D / 4), c4 = e % (D / 4);
      const bool inside = kv0 + r < sk;
      const float4 kx = inside ? reinterpret_cast<const float4*>(kb + static_cast<std::size_t>(kv0 + r) * D)[c4]
                               : make_float4(0.f, 0.f, 0.f, 0.f);
      const float4 vx = inside ? reinterpret_cast<const float4*>(vb + static_cast<std::size_t>(kv0 + r) * D)[c4]
                               : make_float4(0.f, 0.f, 0.f, 0.f);
      *reinterpret_cast<float4*>(Ks + r * RS + 4 * c4) = kx;
      *reinterpret_cast<float4*>(Vs + r * D + 4 * c4) = vx;
    }
    __syncthreads();

    // (A) Scores in base-2 units, masked keys -inf: a 4 x 4 block per thread, float4 along D.
    float sc[4][4] = {};
#pragma unroll 4
    for (int d0 = 0; d0 < D; d0 += 4) {
      float4 qv[4], kv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) qv[i] = *reinterpret_cast<const float4*>(Qs + (ty + 16 * i) * RS + d0);
#pragma unroll
      for (int j = 0; j < 4; ++j) kv[j] = *reinterpret_cast<const float4*>(Ks + (tx + 16 * j) * RS + d0);
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          sc[i][j] += qv[i].x * kv[j].x + qv[i].y * kv[j].y + qv[i].z * kv[j].z + qv[i].w * kv[j].w;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int key = kv0 + tx + 16 * j;
        const bool visible = key < sk && (!causal || key <= row0 + ty + 16 * i + sk - sq);
        Ss[(ty + 16 * i) * SS + tx + 16 * j] = visible ? sc[i][j] * scale_log2 : -INFINITY;
      }
    __syncthreads();

    // (B) The online softmax of each row over this tile (FlashAttention-1's form: O kept normalized).
    //     The 4 threads of a row see 16 scores each and combine their max and sum with shuffles.
    {
      float* srow = Ss + stat_row * SS + 16 * stat_part;
      float mx = -INFINITY;
#pragma unroll
      for (int c = 0; c < 16; ++c) mx = fmaxf(mx, srow[c]);
      const float m_new = fmaxf(m, group_max<4>(mx));
      const float shift = exp_shift(m_new);
      float p[16], sum = 0.0f;
#pragma unroll
      for (int c = 0; c < 16; ++c) {
        p[c] = fast_exp2(srow[c] - shift);
        sum += p[c];
      }
      const float l_new = l * rescale_factor(m, m_new) + group_sum<4>(sum);
      // O_new = (l_old 2^(m_old - m_new) O_old + P V) / l_new: O's row is multiplied by the first
      // factor, and P is stored already divided by l_new.
      const float inv = inverse_sum(l_new);
#pragma unroll
      for (int c = 0; c < 16; ++c) srow[c] = p[c] * inv;
      if (stat_part == 0) row_factor[stat_row] = l * rescale_factor(m, m_new) * inv;
      m = m_new;
      l = l_new;
    }
    __syncthreads();

    // (C) O = O * factor + P V: per key, 4 probabilities (one per row) and D / 64 float4s of V.
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float f = row_factor[ty + 16 * i];
#pragma unroll
      for (int c = 0; c < D / 64; ++c) {
        acc[i][c].x *= f;
        acc[i][c].y *= f;
        acc[i][c].z *= f;
        acc[i][c].w *= f;
      }
    }
#pragma unroll 4
    for (int key = 0; key < Bc; ++key) {
      float pk[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) pk[i] = Ss[(ty + 16 * i) * SS + key];
#pragma unroll
      for (int c = 0; c < D / 64; ++c) {
        const float4 vx = *reinterpret_cast<const float4*>(Vs + key * D + 4 * tx + 64 * c);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          acc[i][c].x = fmaf(pk[i], vx.x, acc[i][c].x);
          acc[i][c].y = fmaf(pk[i], vx.y, acc[i][c].y);
          acc[i][c].z = fmaf(pk[i], vx.z, acc[i][c].z);
          acc[i][c].w = fmaf(pk[i], vx.w, acc[i][c].w);
        }
      }
    }
  }

  // O is already normalized (0 for a row that saw no key); lse from the row's final state.
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = ty + 16 * i;
    if (r >= rows_valid) continue;
    float* orow = o + (static_cast<std::size_t>(bh) * sq + row0 + r) * D;
#pragma unroll
    for (int c = 0; c < D / 64; ++c) *reinterpret_cast<float4*>(orow + 4 * tx + 64 * c) = acc[i][c];
  }
  if (stat_part == 0 && stat_row < rows_valid) lse[static_cast<std::size_t>(bh) * sq + row0 + stat_row] = row_lse(m, l);
}
// [kernel]

namespace {

template <int D>
void launch_v2(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
               cudaStream_t stream) {
  using T = V02Tiles<D>;
  constexpr int kSmem = T::kSmemFloats * 4;
  tut::allow_dynamic_smem(attention_v02_tiled<D>, kSmem);
  attention_v02_tiled<D><<<row_tile_blocks(s, T::Br, "v02_tiled"), T::kThreads, kSmem, stream>>>(
      q, k, v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), s.causal, s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

/// @brief v02: tiled, as FlashAttention-1 does it. A block of 256 threads owns 64 query rows; K
/// and V come through shared memory 64 keys at a time, each tile used by all 64 rows.
///
/// **Idea.** v01 read all of K and V once per query row. With a tile of Q rows per block, each
/// K and V element loaded into shared memory serves all the block's rows: 64 times fewer global
/// (L2) reads. The online softmax becomes a tile-wise update (FlashAttention-1, Algorithm 1):
/// for each row, m_new = max(m, max of the tile), l_new = l 2^(m - m_new) + sum of the tile's
/// p = 2^(s - m_new), and O_new = (l 2^(m - m_new) O + P V) / l_new, so that O is always
/// normalized.
///
/// **How the work is split.** Like FlashAttention-1, the block's threads cooperate on every step
/// and meet in shared memory between them: the scores of the tile go to shared memory (phase A,
/// a 4 x 4 block per thread), 4 threads per row reduce them to the row's new max and sum
/// (phase B), and the P V product reads P back from shared memory (phase C). That is four
/// barriers per tile, a round trip of S and P through shared memory, and O rescaled by a
/// normalized factor at every tile. **What is still wrong:** exactly those, which v03 removes.
///
/// **Changed since v01.** Q, K and V tiles in shared memory (rows padded by 4 floats against bank
/// conflicts), float4 accesses; D = 64 or 128 (template).
///
/// **Predicted.** 5-10x v01 (global traffic down 64x, the math now from shared memory).
///
/// **Measured (H100, the run at 0b38325).** 25.8 TFLOP/s at B4 H16 S1024 D64 (0.667 ms), 28.6x
/// v01, far beyond the prediction: v01 was limited less by bytes than by its per-key shuffles and
/// its uncoalesced K rows, which the tiles remove as well. 26.8 TFLOP/s at B4 H16 S4096 D64, 27.9
/// at B2 H16 S4096 D128 (the cuBLAS SGEMM roof of the table: 51.7); causal 20.2, 25.3 and 26.4.
void launch_attention_v02_tiled(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
                               void* /*workspace*/, cudaStream_t stream) {
  check_shape(s);
  if (!unsupported_unless_d64_d128(s).empty()) throw std::invalid_argument("v02_tiled: " + unsupported_unless_d64_d128(s));
  if (s.d == 64) {
    launch_v2<64>(s, q, k, v, o, lse, stream);
  } else {
    launch_v2<128>(s, q, k, v, o, lse, stream);
  }
}

}  // namespace attention
