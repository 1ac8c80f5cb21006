/// @file
/// @brief v10: BF16 tensor cores in PTX: mma.sync m16n8k16, ldmatrix from a swizzled shared-memory
/// layout, a multi-stage cp.async pipeline of 64-wide k-slices, double-buffered fragments, two
/// blocks per SM (sm_80+).
#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// The parameters of v10's kernel: block tile BM x BN, k-slice BK per pipeline stage, warp tile
/// WM x WN, `kStages` slices resident in shared memory, fragment double buffering on or off, and
/// the blocks per SM promised to the compiler (`__launch_bounds__`). The tuning search
/// (`gemm --tune --dtype bf16`) times several of these.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int kStages_, bool kDoubleBuffer_, int kMinBlocks_>
struct MmaConfig {
  static constexpr int BM = BM_;                       ///< rows of C per block
  static constexpr int BN = BN_;                       ///< columns of C per block
  static constexpr int BK = BK_;                       ///< k-slice per stage (BK / 16 mma k-steps)
  static constexpr int WM = WM_;                       ///< rows of C per warp
  static constexpr int WN = WN_;                       ///< columns of C per warp
  static constexpr int kStages = kStages_;             ///< k-slices resident in shared memory
  static constexpr bool kDoubleBuffer = kDoubleBuffer_;  ///< load k-step s+1's fragments before s's mma
  static constexpr int kMinBlocks = kMinBlocks_;       ///< blocks per SM promised to the compiler
  static constexpr int kWarpsM = BM / WM;              ///< warps along M
  static constexpr int kWarpsN = BN / WN;              ///< warps along N
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;  ///< threads per block
  static constexpr int kMmaM = WM / 16;                ///< m16 tiles per warp
  static constexpr int kMmaN = WN / 8;                 ///< n8 tiles per warp
  static constexpr int kSteps = BK / 16;               ///< mma k-steps per k-slice
  static constexpr int kAChunksPerRow = BK / 8;        ///< 16-byte chunks (8 bf16) per row of the A tile
  static constexpr int kBChunksPerRow = BN / 8;        ///< 16-byte chunks per row of the B tile
  static constexpr int kAChunks = BM * kAChunksPerRow / kThreads;  ///< A chunks per thread per stage
  static constexpr int kBChunks = BK * kBChunksPerRow / kThreads;  ///< B chunks per thread per stage
  static constexpr int kStageElems = BM * BK + BK * BN;           ///< bf16 elements per stage (A then B)
  static constexpr int kSmemBytes = kStages * kStageElems * 2;    ///< dynamic shared memory per block
  static_assert(BM % WM == 0 && BN % WN == 0, "v10: the block tile must split into whole warp tiles");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "v10: a warp tile is made of 16 x 16 ldmatrix.x4 loads of A and B");
  static_assert(BK == 32 || BK == 64, "v10: the A swizzle is written for 64-byte (BK 32) or 128-byte (BK 64) rows");
  static_assert(BN % 64 == 0, "v10: the B swizzle XORs 3 bits of the chunk index: B rows of 8k chunks");
  static_assert(kAChunks * kThreads == BM * kAChunksPerRow && kBChunks * kThreads == BK * kBChunksPerRow,
                "v10: the tiles must split evenly into 16-byte chunks over the block's threads");
  static_assert(kThreads % kAChunksPerRow == 0 && kThreads % kBChunksPerRow == 0,
                "v10: each thread copies the same chunk column of every row it touches");
  static_assert(kStages >= 2 && kSteps >= 2, "v10: at least 2 stages and 2 k-steps per slice");
  static_assert(kSmemBytes <= 227 * 1024, "v10: more shared memory than a Hopper block may have");
};

/// Block-tile rows per raster group (L2 reuse, see the kernel).
[[maybe_unused]] constexpr int kV10GroupM = 8;  // unused where the kernel body is compiled out (sm_75)

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

/// Packs two raw bfloat16 bit patterns into one 32-bit word (lo first, as in memory).
__device__ __forceinline__ unsigned pack_bf16x2(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

/// Loads one 16-byte chunk (8 bf16) of a row with scalar, predicated loads: element j is read
/// only if j < valid (zero otherwise). The path for rows that are not 16-byte aligned.
__device__ __forceinline__ uint4 load_chunk_scalar(const unsigned short* __restrict__ p, int valid) {
  unsigned short v[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) v[j] = j < valid ? p[j] : static_cast<unsigned short>(0);  // bf16 zero is 0x0000
  return make_uint4(pack_bf16x2(v[0], v[1]), pack_bf16x2(v[2], v[3]), pack_bf16x2(v[4], v[5]),
                    pack_bf16x2(v[6], v[7]));
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
__device__ __forceinline__ void load_stage_v10(__nv_bfloat16* __restrict__ As, __nv_bfloat16* __restrict__ Bs, int k0,
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

/// @brief C = alpha * A B + beta * C, BF16 inputs, fp32 accumulation, on the tensor cores with
/// `mma.sync` (sm_80+; traps on older GPUs, where the runner never launches it).
///
/// Per k-slice of BK, each warp runs BK / 16 k-steps. Per k-step it loads its A operand with
/// WM / 16 `ldmatrix.x4` and its B operand with WN / 16 `ldmatrix.x4.trans`, then issues
/// (WM / 16) x (WN / 8) `mma.sync.m16n8k16` (64 x 64 warp tile: 4 + 4 loads, 32 mma, 128
/// accumulator registers per lane). One `__syncthreads` per k-slice.
///
/// With `kDoubleBuffer`, the fragments of k-step s + 1 are loaded into a second set of registers
/// before the mma of step s are issued, so the tensor cores never wait for ldmatrix; the barrier
/// sits after the mma of the second-to-last step (they keep the tensor cores busy while the warp
/// waits), and the last step already loads the first fragments of the next slice. The copies of
/// the slice kStages - 1 ahead are spread over the first BK / 16 - 1 k-steps.
///
/// `kAlignedRows`: the caller promises that both operands' rows start 16-byte aligned (K and N
/// multiples of 8, aligned bases), so every chunk is one cp.async and the scalar path is not
/// compiled in. The general instantiation checks at run time and keeps both paths.
// [kernel]
template <class Cfg, bool kAlignedRows>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_v10_mma_bf16(int m, int n, int k, float alpha, const __nv_bfloat16* __restrict__ a,
                      const __nv_bfloat16* __restrict__ b, float beta, float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, S = Cfg::kStages, KS = Cfg::kSteps;
  extern __shared__ __align__(128) __nv_bfloat16 smem_bf16[];  // S x [ As (BM, BK) | Bs (BK, BN) ], swizzled
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;

  // Grouped rasterization: consecutive blocks walk down kV10GroupM row tiles before moving right,
  // so the blocks resident at one time share A's row panels and B's column panels in L2.
  const TileIndex tile = grouped_tile(static_cast<int>(blockIdx.x), (m + BM - 1) / BM, (n + BN - 1) / BN, kV10GroupM);
  const int row0 = tile.row * BM, col0 = tile.col * BN;

  // 16-byte copies need every row to start 16-byte aligned: rows of 8k bf16 and aligned bases.
  // Known at compile time in the aligned instantiation, which then has no scalar path.
  const bool vec_a = kAlignedRows || (k % 8 == 0 && aligned16(a));
  const bool vec_b = kAlignedRows || (n % 8 == 0 && aligned16(b));
  const int tiles = (k + BK - 1) / BK;
  // This thread's first A and B chunk (see load_stage_v10); only dereferenced where inside.
  const __nv_bfloat16* a_src = a + static_cast<std::int64_t>(row0 + static_cast<int>(threadIdx.x) / Cfg::kAChunksPerRow) * k +
                               (static_cast<int>(threadIdx.x) % Cfg::kAChunksPerRow) * 8;
  const __nv_bfloat16* b_src = b + static_cast<std::int64_t>(static_cast<int>(threadIdx.x) / Cfg::kBChunksPerRow) * n +
                               col0 + (static_cast<int>(threadIdx.x) % Cfg::kBChunksPerRow) * 8;
  const auto stage_a = [&](int stage) { return smem_bf16 + stage * Cfg::kStageElems; };  // (BM, BK); B follows

  float acc[Cfg::kMmaM][Cfg::kMmaN][4];
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

  // Prologue: slices 0 .. S-2 in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < tiles) load_stage_v10<Cfg>(stage_a(s), stage_a(s) + BM * BK, s * BK, m, n, k, a, b, a_src, b_src, row0, col0, vec_a, vec_b, 0, 1);
    cp_async_commit();
  }

  // [mainloop]
  if constexpr (Cfg::kDoubleBuffer) {
    unsigned af[2][Cfg::kMmaM][4];  // A operand of two k-steps: 16 x 16 per m-tile
    unsigned bf[2][Cfg::kMmaN][2];  // B operand of two k-steps: 16 x 8 per n-tile
    int read = 0, write = S - 1;    // stage holding slice `tile`; stage receiving slice tile + S - 1
    cp_async_wait<S - 2>();         // slice 0 has landed (this thread's copies) ...
    __syncthreads();                // ... everyone's
    if (tiles > 0) load_fragments<Cfg>(af[0], bf[0], stage_a(0), stage_a(0) + BM * BK, 0, warp_m, warp_n, lane);
    for (int tile = 0; tile < tiles; ++tile) {
      const bool prefetch = tile + S - 1 < tiles;
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        // Fragments of the next k-step (after the last step: the next slice's first), into the
        // other register set. At ks = KS - 1 `read` already names the next slice's stage.
        if (ks + 1 < KS || tile + 1 < tiles) {
          const __nv_bfloat16* As = stage_a(read);
          load_fragments<Cfg>(af[(ks + 1) % 2], bf[(ks + 1) % 2], As, As + BM * BK, (ks + 1) % KS, warp_m, warp_n, lane);
        }
        mma_step<Cfg>(acc, af[ks % 2], bf[ks % 2]);
        if (ks < KS - 1) {
          // Part ks of the copies of slice tile + S - 1, into the stage that held slice tile - 1
          // (every warp finished reading it before the previous slice's barrier).
          if (prefetch) {
            load_stage_v10<Cfg>(stage_a(write), stage_a(write) + BM * BK, (tile + S - 1) * BK, m, n, k, a, b, a_src, b_src, row0,
                                col0, vec_a, vec_b, ks, KS - 1);
          }
          if (ks == KS - 2) {
            cp_async_commit();       // the group of slice tile + S - 1 (empty when !prefetch)
            cp_async_wait<S - 2>();  // slice tile + 1 has landed (this thread's copies) ...
            __syncthreads();         // ... everyone's; and everyone's last read of slice tile is done
            read = read + 1 == S ? 0 : read + 1;
            write = write + 1 == S ? 0 : write + 1;
          }
        }
      }
    }
    // [mainloop]
  } else {
    // One set of fragments: load k-step s, then issue its mma (the plain order).
    unsigned af[Cfg::kMmaM][4];
    unsigned bf[Cfg::kMmaN][2];
    int read = 0, write = S - 1;
    for (int tile = 0; tile < tiles; ++tile) {
      cp_async_wait<S - 2>();  // slice `tile` has landed (this thread's copies) ...
      __syncthreads();         // ... everyone's; and everyone is done with slice tile - 1
      if (tile + S - 1 < tiles) {
        load_stage_v10<Cfg>(stage_a(write), stage_a(write) + BM * BK, (tile + S - 1) * BK, m, n, k, a, b, a_src, b_src, row0, col0,
                            vec_a, vec_b, 0, 1);
      }
      cp_async_commit();
      const __nv_bfloat16* As = stage_a(read);
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        load_fragments<Cfg>(af, bf, As, As + BM * BK, ks, warp_m, warp_n, lane);
        mma_step<Cfg>(acc, af, bf);
      }
      read = read + 1 == S ? 0 : read + 1;
      write = write + 1 == S ? 0 : write + 1;
    }
  }
  cp_async_wait<0>();

  // Epilogue straight from registers: lane (g, t) = (lane / 4, lane % 4) holds, for each 16 x 8
  // tile, C[g][2t .. 2t+1] and C[g + 8][2t .. 2t+1]: one float2 each when aligned and inside.
  const int g = lane / 4, tq = lane % 4;
  const bool vec_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row0 + warp_m * Cfg::WM + i * 16 + g + half * 8;
      if (row >= m) continue;
      float* c_row = c + static_cast<std::int64_t>(row) * n;
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN; ++j) {
        const int col = col0 + warp_n * Cfg::WN + j * 8 + tq * 2;
        store_pair(c_row, col, n, acc[i][j][2 * half], acc[i][j][2 * half + 1], alpha, beta, vec_c);
      }
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c;
  __trap();  // BF16 mma.sync and cp.async need sm_80+; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// The configurations `gemm --tune --dtype bf16` times at 8192^3 (block tile, k-slice, warp tile,
/// stages, fragment double buffering, blocks per SM). At most 8: each one is a separate kernel.
// [candidates]
namespace tune_bf16 {
/// v10 as first measured (H200: 252 TFLOP/s, 32% of cuBLAS BF16 at 8192^3): BK 32, 4 stages, single fragments.
using M0 = MmaConfig<128, 256, 32, 64, 64, 4, false, 1>;
/// M0 with double-buffered fragments (and the barrier after the second-to-last k-step's mma).
using M1 = MmaConfig<128, 256, 32, 64, 64, 4, true, 1>;
/// 64-wide k-slices (4 k-steps, 128 mma per warp per barrier), 3 stages of 48 KiB, double-buffered
/// fragments: the winner of rounds 1 and 2, where it ran with the alignment check in the kernel.
using M3 = MmaConfig<128, 256, 64, 64, 64, 3, true, 1>;
/// M3 with 4 stages (192 KiB): one more slice of latency cover.
using M4 = MmaConfig<128, 256, 64, 64, 64, 4, true, 1>;
/// 128 x 128 blocks of 4 warps, two per SM (96 KiB each): one block's barrier and ldmatrix waits
/// are covered by the other block's mma. Single fragments.
using M6 = MmaConfig<128, 128, 64, 64, 64, 3, false, 2>;
/// M6 with double-buffered fragments (fits in 255 registers once the scalar path is compiled out).
using M8 = MmaConfig<128, 128, 64, 64, 64, 3, true, 2>;
/// M3 turned on its side: 256 x 128 blocks, 8 warps of 64 x 64 (4 x 2), double-buffered.
using M9 = MmaConfig<256, 128, 64, 64, 64, 3, true, 1>;
}  // namespace tune_bf16
// [candidates]

/// The configuration v10 runs, from the search (`gemm --tune --dtype bf16`, round 3, H100, 8192^3):
/// M4, M8, M6 and M9 tie within about 1% there; M8 needs 96 KiB of shared memory, which every
/// sm_80+ GPU gives a block, and runs the double-buffered main loop that the chapter page shows.
using V10Config = tune_bf16::M8;
/// The general kernel (an operand's rows not 16-byte aligned) of every configuration: M8's tiles
/// with single fragments, since M8 with the scalar path compiled in needs more than 255 registers.
using V10General = tune_bf16::M6;

namespace {

/// Launches one instantiation of v10's kernel: one block per BM x BN tile of C, a 1-D grid (the
/// kernel maps it to tiles in raster groups).
template <class Cfg, bool kAlignedRows>
void launch_kernel(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                   const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  const std::int64_t blocks = ((m + Cfg::BM - 1) / Cfg::BM) * ((n + Cfg::BN - 1) / Cfg::BN);
  if (blocks > INT_MAX) throw std::invalid_argument("gemm v10: too many block tiles for a 1-D grid");
  tut::allow_dynamic_smem(gemm_v10_mma_bf16<Cfg, kAlignedRows>, Cfg::kSmemBytes);  // throws if the GPU has less
  gemm_v10_mma_bf16<Cfg, kAlignedRows><<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

/// Runs configuration Cfg: its aligned instantiation when every row of A and B starts 16-byte
/// aligned (K and N multiples of 8, aligned bases: every square size of the table); otherwise
/// the general kernel V10General, one for all candidates.
template <class Cfg>
void launch_mma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k % 8 == 0 && n % 8 == 0 && aligned16(a) && aligned16(b)) {
    launch_kernel<Cfg, true>(m, n, k, alpha, a, b, beta, c, stream);
  } else {
    launch_kernel<V10General, false>(m, n, k, alpha, a, b, beta, c, stream);
  }
}

/// Always Cfg's general instantiation, alignment checked inside the kernel: how v10 ran in
/// rounds 1 and 2 of the search, kept as a candidate to measure what that check costs.
template <class Cfg>
void launch_mma_checked(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                        const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  launch_kernel<Cfg, false>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace

/// @brief v10: mma.sync in PTX with ldmatrix, a swizzled layout, a cp.async pipeline of 64-wide
/// k-slices, double-buffered fragments and two blocks per SM (BF16).
///
/// **Idea.** Go one level below WMMA, to the instructions it is made of, and take control of
/// everything WMMA hid: the register layout of the fragments (documented in the PTX ISA for
/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`), the instruction that loads them
/// (`ldmatrix`, which hands each lane exactly the registers mma wants, transposing B on the way
/// with `.trans`), and therefore the shared-memory layout: an XOR swizzle of the 16-byte chunks
/// makes every ldmatrix and every cp.async conflict-free without padding. BF16 halves the bytes
/// per input element (tensor-core rate is the same as FP16's, twice TF32's).
///
/// **Changed since v9.** PTX fragments instead of WMMA; 128 x 128 x 64 block tiles of 4 warps of
/// 64 x 64 (128 accumulator registers per lane), two blocks per SM; 3 pipeline stages of 32 KiB;
/// fragments double buffered in registers; grouped rasterization of the block tiles for L2
/// reuse; epilogue directly from the accumulator registers; the copy loop compiled without its
/// scalar path when both operands are aligned.
///
/// **Edges.** 16-byte cp.async needs K % 8 == 0 (A) and N % 8 == 0 (B) and aligned bases. When
/// both hold (the host checks), the aligned instantiation runs; otherwise the general one, whose
/// copy loop loads an unaligned operand's chunks with predicated 2-byte loads and one 16-byte
/// shared store (synchronous, slower, correct). Out-of-range rows, columns and k are zero-filled.
///
/// **Why it stops short of Hopper's peak.** `mma.sync` is the Ampere interface. On an H100 the
/// tensor cores reach their full rate only through `wgmma` (warpgroup MMA, sm_90a): four warps
/// issue one asynchronous instruction reading A and B straight from shared memory, so the
/// operands never pass through the register file and no warp waits on ldmatrix. With mma.sync
/// every operand byte goes shared memory -> registers -> tensor core, costing issue slots and
/// register bandwidth; the 128 accumulators per lane cap the warp tile at 64 x 64. The copies
/// are also issued thread by thread; on Hopper the TMA engine moves whole tiles with one
/// instruction and signals an mbarrier. Both are the next chapter's subject.
///
/// **History: three rounds of the search** (`gemm --tune --dtype bf16`, 8192^3; the chapter page
/// has the tables). The first v10 (M0: 32-wide k-slices, single fragments, one block of 8 warps
/// per SM) measured 252 TFLOP/s on an H200, 32% of cuBLAS BF16: with two warps per scheduler,
/// each barrier and each ldmatrix -> mma dependency left the tensor cores idle. Predicted for
/// round 1: 50-55% with 64-wide slices, double-buffered fragments and 4 stages (M4). Measured:
/// M3 (3 stages) best at 45.9%, double buffering +10-17%, 64-wide slices +5%. Round 2 (16 warps of
/// 64 x 32) lost (43%). Round 3 (H100) compiled the copy loop without its scalar path for aligned
/// operands, to let M6 run double-buffered (M8) without spilling; predicted a few percent from
/// the freed registers. Measured in one run (cuBLAS BF16 787 TFLOP/s): far more than predicted,
/// M3 367 -> 415 TFLOP/s (46.6% -> 52.7%, +13%) with the same 250 registers, and every 64-wide
/// candidate within about 1% of the others (M4 55.3%, M8 55.1%, M6 55.0%, M9 54.7%). v10 runs M8,
/// which ties for first and fits every sm_80+ GPU; the chapter table re-measures it at every
/// size (about 56% of cuBLAS BF16 at 8192^3 on the H100).
void launch_gemm_v10_mma_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_mma<V10Config>(m, n, k, alpha, a, b, beta, c, stream);
}

namespace {

/// "m128x256x64_w64x64_s4_db_b1" for a configuration (db: double-buffered fragments; sb: single).
template <class Cfg>
std::string mma_config_name() {
  return "m" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_w" +
         std::to_string(Cfg::WM) + "x" + std::to_string(Cfg::WN) + "_s" + std::to_string(Cfg::kStages) +
         (Cfg::kDoubleBuffer ? "_db" : "_sb") + "_b" + std::to_string(Cfg::kMinBlocks);
}

/// The parameters in words.
template <class Cfg>
std::string mma_config_summary() {
  return "block " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + ", BK " + std::to_string(Cfg::BK) +
         ", " + std::to_string(Cfg::kThreads / 32) + " warps of " + std::to_string(Cfg::WM) + "x" +
         std::to_string(Cfg::WN) + ", " + std::to_string(Cfg::kStages) + " stages, " +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem, " +
         (Cfg::kDoubleBuffer ? "double-buffered" : "single") + " fragments, " + std::to_string(Cfg::kMinBlocks) +
         " blocks/SM";
}

template <class Cfg>
TuneCandidateBF16 mma_candidate() {
  return {mma_config_name<Cfg>(), mma_config_summary<Cfg>(), launch_mma<Cfg>, std::is_same<Cfg, V10Config>::value};
}

/// Cfg with the alignment checked inside the kernel ("_checked"), for comparison.
template <class Cfg>
TuneCandidateBF16 mma_candidate_checked() {
  return {mma_config_name<Cfg>() + "_checked", mma_config_summary<Cfg>() + ", alignment checked in the kernel",
          launch_mma_checked<Cfg>, false};
}

}  // namespace

const std::vector<TuneCandidateBF16>& tune_candidates_bf16() {
  static const std::vector<TuneCandidateBF16> list = {
      mma_candidate<tune_bf16::M0>(), mma_candidate<tune_bf16::M1>(), mma_candidate_checked<tune_bf16::M3>(),
      mma_candidate<tune_bf16::M3>(),  mma_candidate<tune_bf16::M4>(), mma_candidate<tune_bf16::M6>(),
      mma_candidate<tune_bf16::M8>(),  mma_candidate<tune_bf16::M9>(),
  };
  return list;
}

}  // namespace gemm
