/// @file
/// @brief v11's kernel, a template over its configuration: BF16 mma.sync fed by ldmatrix from a
/// swizzled multi-stage cp.async pipeline (sm_80+), its launchers, and the configurations v11 runs
/// (V11Tiles, V11GeneralTiles: here, so that the search, tune/mma_bf16_candidates.cu, can check its
/// rows against them).
#pragma once

#include <climits>
#include <cstdint>
#include <stdexcept>

#include "bf16_tiles.cuh"
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v11's kernel configuration, made from a struct `Tiles` that names its parameters by field:
///
///     struct V11Tiles {
///       static constexpr int block_m = 128, block_n = 128;  // block tile: C rows and columns per block
///       static constexpr int block_k = 64;                  // k-slice per stage (block_k / 16 mma k-steps)
///       static constexpr int warp_m = 64, warp_n = 64;      // warp tile
///       static constexpr int stages = 3;                    // k-slices resident in shared memory
///       static constexpr bool double_buffer = true;         // load k-step s+1's fragments before s's mma
///       static constexpr int min_blocks = 2;                // blocks per SM promised to the compiler
///     };
///
/// (V11Tiles is at the end of this file, the search's candidates in tune/mma_bf16_candidates.cu). The
/// kernel reads the short names below and what follows from them; the static_asserts say which
/// configurations the kernel is written for.
template <class Tiles>
struct MmaConfig {
  static constexpr int BM = Tiles::block_m;                   ///< rows of C per block
  static constexpr int BN = Tiles::block_n;                   ///< columns of C per block
  static constexpr int BK = Tiles::block_k;                   ///< k-slice per stage (BK / 16 mma k-steps)
  static constexpr int WM = Tiles::warp_m;                    ///< rows of C per warp
  static constexpr int WN = Tiles::warp_n;                    ///< columns of C per warp
  static constexpr int kStages = Tiles::stages;               ///< k-slices resident in shared memory
  static constexpr bool kDoubleBuffer = Tiles::double_buffer;  ///< load k-step s+1's fragments before s's mma
  static constexpr int kMinBlocks = Tiles::min_blocks;        ///< blocks per SM promised to the compiler
  static constexpr int kWarpsM = BM / WM;                     ///< warps along M
  static constexpr int kWarpsN = BN / WN;                     ///< warps along N
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;     ///< threads per block
  static constexpr int kMmaM = WM / 16;                       ///< m16 tiles per warp
  static constexpr int kMmaN = WN / 8;                        ///< n8 tiles per warp
  static constexpr int kSteps = BK / 16;                      ///< mma k-steps per k-slice
  static constexpr int kAChunksPerRow = BK / 8;               ///< 16-byte chunks (8 bf16) per row of the A tile
  static constexpr int kBChunksPerRow = BN / 8;               ///< 16-byte chunks per row of the B tile
  static constexpr int kAChunks = BM * kAChunksPerRow / kThreads;  ///< A chunks per thread per stage
  static constexpr int kBChunks = BK * kBChunksPerRow / kThreads;  ///< B chunks per thread per stage
  static constexpr int kStageElems = BM * BK + BK * BN;           ///< bf16 elements per stage (A then B)
  static constexpr int kSmemBytes = kStages * kStageElems * 2;    ///< dynamic shared memory per block
  static_assert(BM % WM == 0 && BN % WN == 0, "v11: the block tile must split into whole warp tiles");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "v11: a warp tile is made of 16 x 16 ldmatrix.x4 loads of A and B");
  static_assert(BK == 32 || BK == 64, "v11: the A swizzle is written for 64-byte (BK 32) or 128-byte (BK 64) rows");
  static_assert(BN % 64 == 0, "v11: the B swizzle XORs 3 bits of the chunk index: B rows of 8k chunks");
  static_assert(kAChunks * kThreads == BM * kAChunksPerRow && kBChunks * kThreads == BK * kBChunksPerRow,
                "v11: the tiles must split evenly into 16-byte chunks over the block's threads");
  static_assert(kThreads % kAChunksPerRow == 0 && kThreads % kBChunksPerRow == 0,
                "v11: each thread copies the same chunk column of every row it touches");
  static_assert(kStages >= 2 && kSteps >= 2, "v11: at least 2 stages and 2 k-steps per slice");
  static_assert(kSmemBytes <= 227 * 1024, "v11: more shared memory than a Hopper block may have");
};

/// Block-tile rows per raster group (L2 reuse, see the kernel).
[[maybe_unused]] constexpr int kMmaGroupM = 8;  // unused where the kernel body is compiled out (sm_75)

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
    gemm_v11_mma_bf16(int m, int n, int k, float alpha, const __nv_bfloat16* __restrict__ a,
                      const __nv_bfloat16* __restrict__ b, float beta, float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, S = Cfg::kStages, KS = Cfg::kSteps;
  extern __shared__ __align__(128) __nv_bfloat16 smem_bf16[];  // S x [ As (BM, BK) | Bs (BK, BN) ], swizzled
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;

  // Grouped rasterization: consecutive blocks walk down kMmaGroupM row tiles before moving right,
  // so the blocks resident at one time share A's row panels and B's column panels in L2.
  const TileIndex tile = grouped_tile(static_cast<int>(blockIdx.x), (m + BM - 1) / BM, (n + BN - 1) / BN, kMmaGroupM);
  const int row0 = tile.row * BM, col0 = tile.col * BN;

  // 16-byte copies need every row to start 16-byte aligned: rows of 8k bf16 and aligned bases.
  // Known at compile time in the aligned instantiation, which then has no scalar path.
  const bool vec_a = kAlignedRows || (k % 8 == 0 && aligned16(a));
  const bool vec_b = kAlignedRows || (n % 8 == 0 && aligned16(b));
  const int tiles = (k + BK - 1) / BK;
  // This thread's first A and B chunk (see load_bf16_stage); only dereferenced where inside.
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
    if (s < tiles) load_bf16_stage<Cfg>(stage_a(s), stage_a(s) + BM * BK, s * BK, m, n, k, a, b, a_src, b_src, row0, col0, vec_a, vec_b, 0, 1);
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
            load_bf16_stage<Cfg>(stage_a(write), stage_a(write) + BM * BK, (tile + S - 1) * BK, m, n, k, a, b, a_src, b_src, row0,
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
        load_bf16_stage<Cfg>(stage_a(write), stage_a(write) + BM * BK, (tile + S - 1) * BK, m, n, k, a, b, a_src, b_src, row0, col0,
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

/// Launches one instantiation of v11's kernel: one block per BM x BN tile of C, a 1-D grid (the
/// kernel maps it to tiles in raster groups).
template <class Cfg, bool kAlignedRows>
void launch_mma_kernel(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                       const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  const std::int64_t blocks = ((m + Cfg::BM - 1) / Cfg::BM) * ((n + Cfg::BN - 1) / Cfg::BN);
  if (blocks > INT_MAX) throw std::invalid_argument("gemm v11: too many block tiles for a 1-D grid");
  tut::allow_dynamic_smem(gemm_v11_mma_bf16<Cfg, kAlignedRows>, Cfg::kSmemBytes);  // throws if the GPU has less
  gemm_v11_mma_bf16<Cfg, kAlignedRows><<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

/// Runs configuration Cfg: its aligned instantiation when every row of A and B starts 16-byte
/// aligned (K and N multiples of 8, aligned bases: every square size of the table); otherwise
/// the general instantiation of `General` (one for all of a search's candidates).
template <class Cfg, class General>
void launch_mma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k % 8 == 0 && n % 8 == 0 && aligned16(a) && aligned16(b)) {
    launch_mma_kernel<Cfg, true>(m, n, k, alpha, a, b, beta, c, stream);
  } else {
    launch_mma_kernel<General, false>(m, n, k, alpha, a, b, beta, c, stream);
  }
}

/// Always Cfg's general instantiation, alignment checked inside the kernel: how v11 ran in
/// rounds 1 and 2 of the search, kept as a candidate to measure what that check costs.
template <class Cfg>
void launch_mma_checked(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                        const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  launch_mma_kernel<Cfg, false>(m, n, k, alpha, a, b, beta, c, stream);
}

/// True when two tile configurations set every field alike: the same kernel, whatever their
/// names (tune/mma_bf16_candidates.cu checks its rows for v11's configurations with it).
template <class A, class B>
constexpr bool same_mma_tiles() {
  return A::block_m == B::block_m && A::block_n == B::block_n && A::block_k == B::block_k && A::warp_m == B::warp_m &&
         A::warp_n == B::warp_n && A::stages == B::stages && A::double_buffer == B::double_buffer &&
         A::min_blocks == B::min_blocks;
}

/// v11's configuration, chosen by the search of tune/mma_bf16_candidates.cu (`gemm_tune`,
/// round 3, H100, 8192^3; candidate M8, "m128x128x64_w64x64_s3_db_b2"): M4, M8, M6 and M9 tied
/// within about 1% there; M8 needs 96 KiB of shared memory, which every sm_80+ GPU gives a
/// block, and runs the double-buffered main loop that the chapter page shows.
// [v11_config]
struct V11Tiles {
  static constexpr int block_m = 128;          ///< block tile (128, 128): 4 warps
  static constexpr int block_n = 128;          ///< (see block_m)
  static constexpr int block_k = 64;           ///< 64-wide k-slices: 4 k-steps, 128 mma per warp per barrier
  static constexpr int warp_m = 64;            ///< warp tile (64, 64): 128 accumulator registers per lane
  static constexpr int warp_n = 64;            ///< (see warp_m)
  static constexpr int stages = 3;             ///< 3 stages of 32 KiB: 96 KiB per block
  static constexpr bool double_buffer = true;  ///< k-step s+1's fragments loaded before s's mma
  static constexpr int min_blocks = 2;         ///< two blocks per SM
};
/// The general kernel (an operand's rows not 16-byte aligned): V11Tiles with single fragments
/// (the search's M6), since double-buffered with the scalar path compiled in, these tiles would
/// need more than 255 registers.
struct V11GeneralTiles : V11Tiles {
  static constexpr bool double_buffer = false;  ///< single fragments
};
// [v11_config]

}  // namespace gemm
