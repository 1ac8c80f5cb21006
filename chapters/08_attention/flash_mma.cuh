/// @file
/// @brief The tensor-core building blocks of v4-v6: PTX wrappers (cp.async, ldmatrix, mma.sync),
/// the swizzled shared-memory tiles, and one warp's work on one tile of keys.
///
/// v4, v5 and v6 differ only in how K and V tiles reach shared memory and in which order the
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
#include "common/check.hpp"
#include "online_softmax.cuh"

namespace attention {

/// @name PTX wrappers (sm_80+; on older targets they trap, and the runner never launches them)
/// @{

/// The shared-memory address of a generic pointer into shared memory (what ldmatrix and cp.async take).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Copies 16 bytes global -> shared without passing through registers (`cp.async.cg`, L2 only).
/// `src_bytes` = 0 reads nothing and writes 16 zero bytes: how rows past the end are zero-filled.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
               "r"(src_bytes));
#else
  (void)dst, (void)src, (void)src_bytes;
  __trap();
#endif
}

/// Closes the group of cp.async issued by this thread since the last commit.
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `kPending` of this thread's groups are still in flight (a __syncthreads()
/// must follow before other threads' copies may be read).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

/// ldmatrix.x4: four 8 x 8 matrices of 16-bit values. Lanes 0-7 give the row addresses of matrix 0,
/// 8-15 of matrix 1, 16-23 of matrix 2, 24-31 of matrix 3; lane l then holds in r[i] the two
/// values (row l / 4, columns 2 (l % 4), 2 (l % 4) + 1) of matrix i.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
#else
  (void)r, (void)row_address;
  __trap();
#endif
}

/// ldmatrix.x4.trans: as ldmatrix_x4(), each matrix transposed on the way: lane l holds the values
/// (rows 2 (l % 4), 2 (l % 4) + 1, column l / 4). For V stored [key][d] that is the B operand of P V.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
#else
  (void)r, (void)row_address;
  __trap();
#endif
}

/// d += A B for one 16 x 8 x 16 tile: A as a[0..3], B as (b0, b1), fp32 accumulators d[0..3].
// [mma]
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  (void)d, (void)a, (void)b0, (void)b1;
  __trap();
#endif
}
// [mma]

/// Two floats rounded to bf16 (to nearest even) in one register, `lo` in the low half.
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&v);
}
/// @}

/// The tiles of v4-v6 (the defaults): 128 query rows per block, 4 warps of 32 rows (two m16 tiles
/// each, so that every K and V fragment feeds 4 mma), head dimension D (64 or 128), and kBc keys
/// per tile: 64 for D = 64, 32 for D = 128. The registers decide: a lane holds 32 x D / 32 fp32 of
/// O (64 or 128) and 32 x kBc / 32 of S (64, or 32 at D = 128); with D = 128 and 64-key tiles ptxas
/// spills, with 32-key tiles it does not. Q is read from shared memory at every tile (as in
/// FlashAttention-2): its fragments would take another 32 (D = 64) or 64 registers. The other
/// parameters (m16 tiles per warp, warps, blocks per SM promised) are the search's (tune.cu).
template <int kD, int kBc = (kD == 64 ? 64 : 32), int kMt_ = 2, int kWarps_ = 4, int kMinBlocks_ = 2>
struct FlashConfig {
  static constexpr int D = kD;                    ///< head dimension
  static constexpr int kWarps = kWarps_;          ///< warps per block
  static constexpr int kThreads = 32 * kWarps;    ///< threads per block
  static constexpr int kMt = kMt_;                ///< m16 tiles per warp
  static constexpr int kRowsPerWarp = 16 * kMt;   ///< query rows per warp
  static constexpr int Br = kRowsPerWarp * kWarps;  ///< query rows per block
  static constexpr int Bc = kBc;                  ///< keys per tile
  static constexpr int kNt = Bc / 8;              ///< n8 tiles of S per m16 tile
  static constexpr int kDt = D / 8;               ///< n8 tiles of O per m16 tile
  static constexpr int kChunks = D / 8;           ///< 16-byte chunks in a row of Q, K or V
  static constexpr int kQElems = Br * D;          ///< bf16 values of the Q tile
  static constexpr int kKVElems = Bc * D;         ///< bf16 values of one K (or V) tile
  /// Blocks per SM promised to the compiler (`__launch_bounds__`): it caps registers at 65536 /
  /// (kMinBlocks x kThreads), 255 at most.
  static constexpr int kMinBlocks = kMinBlocks_;
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

/// Checks what v4-v6 need (D = 64 or 128, 16-byte aligned Q, K, V) and returns the number of
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
