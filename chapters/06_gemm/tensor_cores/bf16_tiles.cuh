/// @file
/// @brief The BF16 tiles of v11 in shared memory and in registers: the XOR swizzle of the A and B
/// tiles, the cp.async copies of one k-slice into a stage (with a scalar path for unaligned rows),
/// the ldmatrix loads of a warp's fragments and the warp's mma.sync of one k-step. Templates over
/// the kernel's configuration (MmaConfig in mma_bf16_kernel.cuh), used by gemm_v11_mma_bf16().
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm_device.cuh"

namespace gemm {

/// @name The swizzled layout of a stage
/// @{

/// The XOR key of row `row` of the swizzled A tile (BM, BK): chunk c of the row is stored at c ^ key.
///
/// ldmatrix reads one chunk from each of 8 consecutive rows. BK = 64: a row is 128 bytes, one
/// full line of the 32 banks, so the same chunk of 8 rows sits in one 16-byte bank group (an
/// 8-way conflict); XOR-ing the chunk index with row % 8 puts the 8 chunks in 8 groups. BK = 32:
/// a row is 64 bytes and two rows share a line, so unswizzled the 8 chunks fall into only 2 groups
/// (4-way); XOR-ing with bits 1-2 of the row spreads them over all 8. cp.async writes (one row's
/// chunks per 8 lanes) stay conflict-free in both cases.
// [swizzle]
template <int BK>
__device__ __forceinline__ int a_swizzle(int row) {
  return BK == 64 ? row & 7 : (row >> 1) & 3;
}

/// See a_swizzle(): the stored position of logical chunk `chunk` is chunk ^ a_swizzle(row).
template <int BK>
__device__ __forceinline__ int a_tile_offset(int row, int chunk) {
  return row * BK + ((chunk ^ a_swizzle<BK>(row)) * 8);
}

/// Element offset of 16-byte chunk `chunk` of k-row `krow` in the swizzled B tile (BK, BN).
///
/// A row is BN * 2 = 256 or 512 bytes: without a swizzle the same chunk of 8 consecutive rows sits
/// in the same bank group (an 8-way conflict for ldmatrix.trans). XOR-ing the chunk's low 3 bits
/// with krow % 8 puts the 8 rows' chunks in 8 different groups.
template <int BN>
__device__ __forceinline__ int b_tile_offset(int krow, int chunk) {
  return krow * BN + ((chunk ^ (krow & 7)) * 8);
}
// [swizzle]

/// @}

/// @name Copies global -> shared of one k-slice
/// @{

/// Packs two raw bfloat16 bit patterns into one 32-bit word (lo first, as in memory).
__device__ __forceinline__ unsigned pack_bf16x2_bits(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

/// Loads one 16-byte chunk (8 bf16) of a row with scalar, predicated loads: element j is read
/// only if j < valid (zero otherwise). The path for rows that are not 16-byte aligned.
__device__ __forceinline__ uint4 load_chunk_scalar(const unsigned short* __restrict__ p, int valid) {
  unsigned short v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = j < valid ? p[j] : static_cast<unsigned short>(0);  // bf16 zero is 0x0000
  return make_uint4(pack_bf16x2_bits(v[0], v[1]), pack_bf16x2_bits(v[2], v[3]), pack_bf16x2_bits(v[4], v[5]),
                    pack_bf16x2_bits(v[6], v[7]));
}

/// Issues part `part` (of `parts`) of the copies of one k-slice (starting at k0) into a stage. The
/// A and B chunks of this thread are numbered 0, 1, ... (A first) and chunk i belongs to part
/// i % parts, so the copies of a slice can be spread over the k-steps of the previous one.
/// Thread t copies chunk t % kAChunksPerRow of A rows t / kAChunksPerRow + i * kARowStep (and
/// likewise for B), so one pointer per operand and thread, `a_src` = &A[row0 + t / kAChunksPerRow,
/// 8 (t % kAChunksPerRow)] and `b_src` = &B[t / kBChunksPerRow, col0 + 8 (t % kBChunksPerRow)],
/// plus a constant stride, address all of them. 16-byte cp.async (zero-filled outside the matrix)
/// when the operand's rows are 16-byte aligned; otherwise synchronous scalar loads and a 16-byte
/// shared store. Both land at the swizzled positions.
template <class Cfg>
__device__ __forceinline__ void load_bf16_stage(__nv_bfloat16* __restrict__ As, __nv_bfloat16* __restrict__ Bs, int k0,
                                               int m, int n, int k, const __nv_bfloat16* __restrict__ a,
                                               const __nv_bfloat16* __restrict__ b, const __nv_bfloat16* a_src,
                                               const __nv_bfloat16* b_src, int row0, int col0,
                                               bool vec_a, bool vec_b, int part, int parts) {
  constexpr int kARowStep = Cfg::kThreads / Cfg::kAChunksPerRow;  // tile rows between a thread's A chunks
  constexpr int kBRowStep = Cfg::kThreads / Cfg::kBChunksPerRow;  // tile k-rows between its B chunks
  const int t = threadIdx.x;
  const int a_row = t / Cfg::kAChunksPerRow, a_ch = t % Cfg::kAChunksPerRow;
  const int b_row = t / Cfg::kBChunksPerRow, b_ch = t % Cfg::kBChunksPerRow;
  const int gk = k0 + a_ch * 8;  // A's column of this thread's chunks
  const int gc = col0 + b_ch * 8;  // B's column
#pragma unroll
  for (int i = 0; i < Cfg::kAChunks; ++i) {
    if (i % parts != part) continue;  // resolved at compile time: part, parts and i are constants after unrolling
    const int r = a_row + i * kARowStep;  // A[row0 + r, gk .. gk + 7]
    const bool row_ok = row0 + r < m;
    const __nv_bfloat16* src = a_src + (static_cast<std::int64_t>(i * kARowStep) * k + k0);
    __nv_bfloat16* dst = As + a_tile_offset<Cfg::BK>(r, a_ch);
    if (vec_a) {  // k % 8 == 0: a chunk is entirely inside or entirely outside
      const bool ok = row_ok && gk < k;
      cp_async_16(dst, ok ? src : a, ok ? 16 : 0);  // nothing is read when 0 bytes: any valid address
    } else {
      const int valid = row_ok ? k - gk : 0;
      *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(reinterpret_cast<const unsigned short*>(src), valid);
    }
  }
#pragma unroll
  for (int i = 0; i < Cfg::kBChunks; ++i) {
    if ((Cfg::kAChunks + i) % parts != part) continue;
    const int kr = b_row + i * kBRowStep;  // B[k0 + kr, gc .. gc + 7]
    const bool row_ok = k0 + kr < k;
    const __nv_bfloat16* src = b_src + static_cast<std::int64_t>(k0 + i * kBRowStep) * n;
    __nv_bfloat16* dst = Bs + b_tile_offset<Cfg::BN>(kr, b_ch);
    if (vec_b) {
      const bool ok = row_ok && gc < n;
      cp_async_16(dst, ok ? src : b, ok ? 16 : 0);
    } else {
      const int valid = row_ok ? n - gc : 0;
      *reinterpret_cast<uint4*>(dst) = load_chunk_scalar(reinterpret_cast<const unsigned short*>(src), valid);
    }
  }
}

/// @}

/// @name Fragments: ldmatrix and mma.sync of one k-step
/// @{

/// Loads one warp's operands of k-step `ks` of a stage: 16 x 16 of A per m-tile (ldmatrix.x4) and
/// 16 x 8 of B per n-tile (ldmatrix.x4.trans, two n-tiles per instruction).
// [fragments]
template <class Cfg>
__device__ __forceinline__ void load_fragments(unsigned (&af)[Cfg::kMmaM][4], unsigned (&bf)[Cfg::kMmaN][2],
                                               const __nv_bfloat16* As, const __nv_bfloat16* Bs, int ks, int warp_m,
                                               int warp_n, int lane) {
  // The swizzle depends only on the low bits of the row (krow) and of the chunk, which the m-tile
  // index i (16 rows) and the n-pair index j (2 chunks of a B row, above bit 0) change in a fixed
  // way: one XOR key per lane serves every ldmatrix of the step. Equivalent to
  //   ldmatrix_x4(af[i], As + a_tile_offset<BK>(row + 16 i, 2 ks + lane / 16)) and
  //   ldmatrix_x4_trans(.., Bs + b_tile_offset<BN>(krow, chunk0 + 2 j)).
  const int row = warp_m * Cfg::WM + lane % 16;  // lanes 0-15: rows 0-15 at chunk 2ks; 16-31: chunk 2ks + 1
  const int a_chunk = ((ks * 2 + lane / 16) ^ a_swizzle<Cfg::BK>(row));
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
    // The four 8x8 matrices: (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) of m-tile i.
    ldmatrix_x4(af[i], As + (row + i * 16) * Cfg::BK + a_chunk * 8);
  }
  // One ldmatrix.x4.trans covers k 0-15 x n 0-15: matrices (k 0-7, n 0-7), (k 8-15, n 0-7),
  // (k 0-7, n 8-15), (k 8-15, n 8-15) = b[0], b[1] of n-tile 2j, then of n-tile 2j+1.
  const int krow = ks * 16 + lane % 8 + ((lane / 8) % 2) * 8;
  const int chunk0 = warp_n * Cfg::WN / 8 + lane / 16;
#pragma unroll
  for (int j = 0; j < Cfg::kMmaN / 2; ++j) {
    unsigned r[4];
    ldmatrix_x4_trans(r, Bs + krow * Cfg::BN + (((chunk0 + 2 * j) ^ (lane & 7)) * 8));  // krow % 8 == lane % 8
    bf[2 * j][0] = r[0], bf[2 * j][1] = r[1], bf[2 * j + 1][0] = r[2], bf[2 * j + 1][1] = r[3];
  }
}

/// The warp's kMmaM x kMmaN mma.sync of one k-step: acc += A fragment x B fragment.
template <class Cfg>
__device__ __forceinline__ void mma_step(float (&acc)[Cfg::kMmaM][Cfg::kMmaN][4], const unsigned (&af)[Cfg::kMmaM][4],
                                         const unsigned (&bf)[Cfg::kMmaN][2]) {
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN; ++j) mma_bf16_16816(acc[i][j], af[i], bf[j]);
}
// [fragments]

/// @}

}  // namespace gemm
