/// @file
/// @brief v08: fp32 attention on the tensor cores: every operand split into a high and a low TF32
/// part, three mma.sync m16n8k8 TF32 products per product, each tile's P V added to O in fp32
/// registers (sm_80+).
#include <cstdint>
#include <stdexcept>

#include "attention.hpp"
#include "common/ampere_ptx.cuh"
#include "common/check.hpp"
#include "common/launch.hpp"
#include "flash_mma.cuh"
#include "online_softmax.cuh"

namespace attention {

namespace {

// (cp_async_16, cp_async_commit, cp_async_wait: named in flash_mma.cuh, as for v04-v06.)
using tut::sm80::cvt_rna_tf32;
using tut::sm80::mma_tf32_1688;

/// v08's tiles at head dimension kD: 8 warps of 16 query rows (128 per block), 32 keys per tile at
/// D = 128 and 64 at D = 64. Each K and V tile is split once, by the whole block, into a high and a
/// low part in shared memory; a lane holds D / 2 accumulators of O, Bc / 2 of S and Bc of P's
/// fragments (high and low parts). Shared memory: 202 KiB at D = 128 (176 at D = 64), one block per SM.
// [config]
template <int kD>
struct SplitTiles {
  static constexpr int D = kD;                          ///< head dimension: 64 or 128
  static constexpr int Bc = kD == 128 ? 32 : 64;        ///< keys per tile
  static constexpr int kWarps = 8;                      ///< warps per block, 16 query rows each
  static constexpr int kThreads = 32 * kWarps;          ///< threads per block
  static constexpr int Br = 16 * kWarps;                ///< query rows per block
  static constexpr int kNt = Bc / 8;                    ///< n8 tiles of S (and k8 steps of P V)
  static constexpr int kDt = D / 8;                     ///< k8 steps of Q K^T (and n8 tiles of O)
  /// Row strides (floats) in shared memory, padded so that fragment loads hit 32 banks: Q and K
  /// are read as float2 (dims 2t, 2t + 1 of row g: 8 g + 2t, distinct per half-warp, with D + 8),
  /// V as floats (key 2t, dim g: 8 t + g, with D + 4).
  static constexpr int kQKStride = D + 8;
  static constexpr int kVStride = D + 4;               ///< see kQKStride
  static constexpr int kQFloats = Br * kQKStride;       ///< the Q tile
  static constexpr int kKFloats = Bc * kQKStride;       ///< one part (high or low) of a K tile
  static constexpr int kVFloats = Bc * kVStride;        ///< one part of a V tile
  static constexpr int kBufFloats = 2 * (kKFloats + kVFloats);  ///< one buffer: K_hi | K_lo | V_hi | V_lo
  static constexpr int kSmemBytes = (kQFloats + 2 * kBufFloats) * 4;  ///< Q + two buffers
  static_assert(kSmemBytes <= 227 * 1024, "v08: more shared memory than a block may have");
};
// [config]

/// Copies rows [0, kRows) of a tile (rows of D floats in global memory) into shared memory with
/// rows of kStride floats, by cp.async; rows >= valid land as zeros.
template <class T, int kRows, int kStride>
__device__ __forceinline__ void copy_tile(float* dst, const float* src, int valid) {
  constexpr int kChunks = T::D / 4;  // 16-byte chunks per row
#pragma unroll
  for (int i = 0; i < kRows * kChunks / T::kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * T::kThreads, row = e / kChunks, chunk = e % kChunks;
    const bool inside = row < valid;
    cp_async_16(dst + row * kStride + chunk * 4, inside ? src + static_cast<std::size_t>(row) * T::D + chunk * 4 : src,
                inside ? 16 : 0);
  }
}

/// x as two TF32 values, hi = tf32(x) and lo = tf32(x - hi) (x - hi is exact): hi + lo equals x
/// to about 2^-22 |x|.
// [split]
struct Split {
  unsigned hi, lo;  ///< TF32 bit patterns
};
__device__ __forceinline__ Split split(float x) {
  const unsigned hi = cvt_rna_tf32(x);
  return {hi, cvt_rna_tf32(x - __uint_as_float(hi))};
}
/// A value already split (split_tile()): its two parts as mma operands.
__device__ __forceinline__ Split parts(float hi, float lo) { return {__float_as_uint(hi), __float_as_uint(lo)}; }
/// Splits a tile of Bc rows (stride kStride) in place: lo holds the raw fp32 values and receives
/// their low parts, hi their high parts. Every thread of the block takes float4s of the rows.
template <class T, int kStride>
__device__ __forceinline__ void split_tile(float* hi, float* lo) {
  constexpr int kQuads = T::D / 4;  // float4s per row
#pragma unroll
  for (int i = 0; i < T::Bc * kQuads / T::kThreads; ++i) {
    const int e = static_cast<int>(threadIdx.x) + i * T::kThreads, at = (e / kQuads) * kStride + (e % kQuads) * 4;
    const float4 x = *reinterpret_cast<const float4*>(lo + at);
    const Split a = split(x.x), b = split(x.y), c = split(x.z), d = split(x.w);
    *reinterpret_cast<uint4*>(hi + at) = make_uint4(a.hi, b.hi, c.hi, d.hi);
    *reinterpret_cast<uint4*>(lo + at) = make_uint4(a.lo, b.lo, c.lo, d.lo);
  }
}
/// d += a b in three TF32 products, the small ones first: a_lo b_hi + a_hi b_lo + a_hi b_hi.
__device__ __forceinline__ void mma_3xtf32(float (&d)[4], const unsigned (&a_hi)[4], const unsigned (&a_lo)[4],
                                           const Split& b0, const Split& b1) {
  mma_tf32_1688(d, a_lo, b0.hi, b1.hi);
  mma_tf32_1688(d, a_hi, b0.lo, b1.lo);
  mma_tf32_1688(d, a_hi, b0.hi, b1.hi);
}
// [split]

}  // namespace

/// @brief v08's kernel: one block per 128 query rows of a head, eight warps of 16 rows. Q, and the K
/// and V tiles (double-buffered), arrive by cp.async as fp32; the block splits each K and V tile
/// into TF32 parts in place, the warps split Q's fragments where they load them.
// [kernel]
template <class T>
__global__ void __launch_bounds__(T::kThreads, 1)
    attention_v08_split_tf32(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                            float* __restrict__ o, float* __restrict__ lse, int sq, int sk, int heads, bool causal,
                            float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int D = T::D, Bc = T::Bc, kNt = T::kNt, kDt = T::kDt;
  extern __shared__ __align__(128) float smem_f[];
  float* Qs = smem_f;  // Q (Br rows) | 2 x [ K_hi | K_lo | V_hi | V_lo ] (Bc rows each), rows padded
  const auto k_hi = [&](int j) { return Qs + T::kQFloats + (j & 1) * T::kBufFloats; };
  const auto k_lo = [&](int j) { return k_hi(j) + T::kKFloats; };
  const auto v_hi = [&](int j) { return k_hi(j) + 2 * T::kKFloats; };
  const auto v_lo = [&](int j) { return k_hi(j) + 2 * T::kKFloats + T::kVFloats; };
  const int q_tiles = (sq + T::Br - 1) / T::Br;
  int bh = 0, qt = 0;
  block_tile(static_cast<int>(blockIdx.x), q_tiles, heads, causal, bh, qt);  // causal: longest first
  const int row0 = qt * T::Br, rows_valid = min(T::Br, sq - row0);
  const std::size_t head_q = static_cast<std::size_t>(bh) * sq * D, head_kv = static_cast<std::size_t>(bh) * sk * D;
  const int tiles = key_tiles(row0, rows_valid, sq, sk, causal, Bc);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4, wr = 16 * warp;  // wr: the warp's first row in the tile
  const auto issue_kv = [&](int j) {
    const int kv0 = j * Bc;
    // The raw fp32 tiles land in the low parts' place; split_tile() then splits them in place.
    copy_tile<T, Bc, T::kQKStride>(k_lo(j), k + head_kv + static_cast<std::size_t>(kv0) * D, min(Bc, sk - kv0));
    copy_tile<T, Bc, T::kVStride>(v_lo(j), v + head_kv + static_cast<std::size_t>(kv0) * D, min(Bc, sk - kv0));
  };
  copy_tile<T, T::Br, T::kQKStride>(Qs, q + head_q + static_cast<std::size_t>(row0) * D, rows_valid);
  if (tiles > 0) issue_kv(0);
  cp_async_commit();

  float acc[kDt][4];  // O (unnormalized), C layout: rows g and g + 8, columns 8 dt + 2t, + 1
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g, g + 8: running max (base 2), sum
#pragma unroll
  for (int dt = 0; dt < kDt; ++dt)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[dt][r] = 0.0f;
  const int my_row = row0 + wr + g;  // this lane's row g (row g + 8: + 8) in the head

  for (int j = 0; j < tiles; ++j) {
    if (j + 1 < tiles) issue_kv(j + 1);
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    split_tile<T, T::kQKStride>(k_hi(j), k_lo(j));  // each value split once, by the whole block
    split_tile<T, T::kVStride>(v_hi(j), v_lo(j));
    __syncthreads();
    const float* Khi = k_hi(j);
    const float* Klo = k_lo(j);
    const float* Vhi = v_hi(j);
    const float* Vlo = v_lo(j);
    const int kv0 = j * Bc;

// [scores]
    // 1. S = Q K^T. The 8 dims of a k-step go to the mma's k slots in the order 0, 2, 4, 6, 1, 3,
    //    5, 7 (slot t takes dim 2t, slot t + 4 dim 2t + 1; the sum is the same): a lane's two
    //    values of a row are then adjacent, one float2 load. Q's fragment feeds kNt n-tiles of keys.
    float s[kNt][4];
#pragma unroll
    for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) s[nt][r] = 0.0f;
    const float* q_row = Qs + (wr + g) * T::kQKStride + 2 * t;  // row g; row g + 8 is 8 rows further
    const int k_at = g * T::kQKStride + 2 * t;                  // key g of n-tile 0
#pragma unroll 4
    for (int kk = 0; kk < kDt; ++kk) {
      const float2 q0 = *reinterpret_cast<const float2*>(q_row + 8 * kk);
      const float2 q1 = *reinterpret_cast<const float2*>(q_row + 8 * T::kQKStride + 8 * kk);
      const Split x0 = split(q0.x), x1 = split(q1.x), x2 = split(q0.y), x3 = split(q1.y);
      const unsigned a_hi[4] = {x0.hi, x1.hi, x2.hi, x3.hi}, a_lo[4] = {x0.lo, x1.lo, x2.lo, x3.lo};
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) {
        const int at = k_at + 8 * nt * T::kQKStride + 8 * kk;
        const float2 hi = *reinterpret_cast<const float2*>(Khi + at), lo = *reinterpret_cast<const float2*>(Klo + at);
        mma_3xtf32(s[nt], a_hi, a_lo, parts(hi.x, lo.x), parts(hi.y, lo.y));
      }
    }
// [scores]

    // 2. The mask (keys past Sk; causal: keys after the row's diagonal) and the online softmax of
    //    rows g and g + 8; a row's scores are spread over the 4 lanes of its quad.
    const bool masked = causal || kv0 + Bc > sk;
    float alpha[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = kv0 + 8 * nt + 2 * t + e;
          if (masked && (key >= sk || (causal && key > my_row + 8 * h + (sk - sq)))) s[nt][2 * h + e] = -INFINITY;
          mx = fmaxf(mx, s[nt][2 * h + e]);
        }
      }
      const float m_new = fmaxf(m[h], group_max<4>(mx) * scale_log2);
      alpha[h] = rescale_factor(m[h], m_new);
      const float shift = exp_shift(m_new);
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = fast_exp2(fmaf(s[nt][2 * h + e], scale_log2, -shift));
          s[nt][2 * h + e] = p;
          sum += p;
        }
      }
      l[h] = l[h] * alpha[h] + sum;
      m[h] = m_new;
    }

// [pv]
    // 3. O = alpha O + P V. P's fragments come from S's registers with the keys of each k8 step
    //    reordered (slot t holds key 2t, slot t + 4 key 2t + 1: exactly what a lane's S registers
    //    hold), and V's rows are read in the same order. Each n8 tile of O sums this tile's keys in
    //    a fresh accumulator, which the threads then add to O in fp32: the tensor cores never
    //    accumulate across tiles.
    unsigned p_hi[kNt][4], p_lo[kNt][4];
#pragma unroll
    for (int kk = 0; kk < kNt; ++kk) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // a[0] = P(g, 2t), a[1] = P(g + 8, 2t), a[2] = P(g, 2t + 1), a[3] = P(g + 8, 2t + 1)
        const Split x = split(s[kk][(i % 2) * 2 + i / 2]);
        p_hi[kk][i] = x.hi;
        p_lo[kk][i] = x.lo;
      }
    }
#pragma unroll  // fully: acc[dt] must stay in registers
    for (int dt = 0; dt < kDt; ++dt) {
      float tile[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int kk = 0; kk < kNt; ++kk) {  // b0 = V(key 8 kk + 2t, dim 8 dt + g), b1: key + 1
        const int at = (8 * kk + 2 * t) * T::kVStride + 8 * dt + g;
        const Split b0 = parts(Vhi[at], Vlo[at]), b1 = parts(Vhi[at + T::kVStride], Vlo[at + T::kVStride]);
        mma_3xtf32(tile, p_hi[kk], p_lo[kk], b0, b1);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[dt][r] = fmaf(acc[dt][r], alpha[r / 2], tile[r]);
    }
// [pv]
    __syncthreads();  // every warp is done with buffer j % 2 before tile j + 2 is copied into it
  }
  cp_async_wait<0>();

  // 4. O / l and lse for this lane's rows.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float sum = group_sum<4>(l[h]);
    const float inv = inverse_sum(sum);
    const int row = wr + g + 8 * h;
    if (row >= rows_valid) continue;
    float* out = o + head_q + static_cast<std::size_t>(row0 + row) * D + 2 * t;
#pragma unroll
    for (int dt = 0; dt < kDt; ++dt) {
      *reinterpret_cast<float2*>(out + 8 * dt) = make_float2(acc[dt][2 * h] * inv, acc[dt][2 * h + 1] * inv);
    }
    if (t == 0) lse[static_cast<std::size_t>(bh) * sq + row0 + row] = row_lse(m[h], sum);
  }
#else
  (void)q, (void)k, (void)v, (void)o, (void)lse, (void)sq, (void)sk, (void)heads, (void)causal, (void)scale_log2;
  // What only the body above uses, referenced here too: no "declared but never referenced" warnings.
  (void)T::kNt, (void)T::kDt, (void)split, (void)parts, (void)mma_3xtf32;
  __trap();  // cp.async and TF32 mma.sync need sm_80; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

namespace {

template <int D>
void launch_v8(const Shape& s, const float* q, const float* k, const float* v, float* o, float* lse,
               cudaStream_t stream) {
  using T = SplitTiles<D>;
  const unsigned blocks = flash_blocks(s, q, k, v, T::Br, "v08_split_tf32");  // D, 16-byte copies: v04-v06's checks
  tut::allow_dynamic_smem(attention_v08_split_tf32<T>, T::kSmemBytes);
  attention_v08_split_tf32<T><<<blocks, T::kThreads, T::kSmemBytes, stream>>>(
      q, k, v, o, lse, static_cast<int>(s.sq), static_cast<int>(s.sk), static_cast<int>(s.heads()), s.causal,
      s.scale() * kLog2e);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

/// @brief v08: split TF32, fp32 attention on the tensor cores.
///
/// **Idea.** The fp32 ladder ends at v03 on the CUDA cores (FFMA: about 67 TFLOP/s of peak on an
/// H100), while the tensor cores multiply TF32 several times faster, but TF32 keeps only 11 of
/// fp32's 24 significant bits. Split every operand in two TF32 parts, x = hi + lo with hi = tf32(x)
/// and lo = tf32(x - hi), and multiply a b = a_lo b_hi + a_hi b_lo + a_hi b_hi (the a_lo b_lo term
/// is 2^-22 of the product): three TF32 products give an fp32-class product (chapter 06's v22 does
/// it for GEMM, on wgmma). The fragments are split in registers, right after they are loaded from
/// shared memory; the tensor cores only sum within a tile (a few dozen products), and each tile's
/// P V is added to O by the threads in fp32, because the tensor cores' own additions do not round
/// to nearest and drift over thousands of steps (chapter 06, v22: 25x FFMA's error at K = 4096).
///
/// **Changed since v07.** Back to fp32 data (the fp32 table, beside v03 and cuBLAS SGEMM), on sm_80's
/// instructions: v05's structure (cp.async, two K/V buffers) with fp32 tiles, eight warps of 16
/// rows, `mma.sync.m16n8k8` TF32 instead of bf16's m16n8k16; the fragments are loaded from rows
/// padded against bank conflicts (no ldmatrix: it moves 16-bit elements), Q and K as float2 (a
/// k-step's dims reordered so that a lane's two values are adjacent); each K and V tile is split
/// once, in place, by the whole block (split_tile()); P's fragments come from S's registers with
/// the keys of each k8 step reordered (no shuffles); O is summed tile by tile in fp32.
///
/// **What is still wrong.** Q is split again at every tile (its parts would not fit beside the
/// tiles' in shared memory); three products per product and the split pass still leave the tensor
/// cores idle most of the time; no Hopper instructions (wgmma would need V K-major, chapter 06's
/// v21 shows the swap).
///
/// **Predicted.** The tensor cores' TF32 rate through mma.sync is a few hundred TFLOP/s on an H100;
/// a third of it, minus the softmax and conversions: 60-80 TFLOP/s, 1.6-2x v03 and above PyTorch's
/// EFFICIENT backend (46 TFLOP/s at D = 128, 31-34 at D = 64), with v03's accuracy.
///
/// **Measured.** The accuracy as predicted (the table's error column: within about 2x of v03's, the
/// largest with the causal mask); the speed in three runs (H100, TFLOP/s at B2 H16 S4096 D128 / B4 H16 S4096 D64). (1) Four warps,
/// each splitting every value it loads, scalar loads from tiles swizzled in 16-byte chunks: 37.4 /
/// 41.0, no faster than v03 (37.6 / 37.0); ncu: issue slots 60% busy, the integer ALU pipe the
/// busiest (56%): the conversions, not the tensor cores, were the work. (2) Padded rows and float2
/// loads for Q and K (17% fewer PTX instructions): 43.0 / 43.8. (3) Each K and V value split once
/// per block instead of once per warp (a third of the conversions), eight warps per block sharing
/// each tile: 52.2 / 53.4, 1.4x v03, 1.1-1.7x the rates of EFFICIENT in the committed PyTorch table
/// (a separate, earlier run). Short of the prediction: the split and softmax work still outweigh
/// the mma. The chapter's table has the committed run.
// [launch]
void launch_attention_v08_split_tf32(const Shape& s, const float* q, const float* k, const float* v, float* o,
                                    float* lse, void* /*workspace*/, cudaStream_t stream) {
  if (s.d == 64) {  // (another D: refused by flash_blocks())
    launch_v8<64>(s, q, k, v, o, lse, stream);
  } else {
    launch_v8<128>(s, q, k, v, o, lse, stream);
  }
}
// [launch]

}  // namespace attention
