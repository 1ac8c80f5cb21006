/// @file
/// @brief The TMA + wgmma kernel of v12 and v13, a template over its configuration: TMA loads
/// into a ring of stages guarded by mbarriers, wgmma from shared memory, every warpgroup
/// computing and thread 0 feeding the ring between its own wgmma; and its launcher. v12
/// instantiates one warpgroup per block, v13 two.
#pragma once

#include <climits>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "hopper.cuh"

namespace gemm {

/// The TMA + wgmma kernel's configuration, made from a struct `Tiles` that names its parameters
/// by field (V12Tiles in v12_tma_wgmma.cu, V13Tiles in v13_two_warpgroups.cu):
///
///     static constexpr int block_m, block_n;  // block tile (k-slices of sm90::kBK = 64)
///     static constexpr int stages;            // k-slices in the ring
///     static constexpr int consumers;         // warpgroups, each owning block_m / consumers rows
///     static constexpr int min_blocks;        // blocks per SM promised to the compiler
///
/// The kernel reads the short names below and what follows from them.
template <class Tiles>
struct TmaWgmmaConfig {
  static constexpr int BM = Tiles::block_m;             ///< rows of C per block
  static constexpr int BN = Tiles::block_n;             ///< columns of C per block: the wgmma's n
  static constexpr int kStages = Tiles::stages;         ///< k-slices resident in shared memory
  static constexpr int kConsumers = Tiles::consumers;   ///< warpgroups, all of them computing
  static constexpr int kMinBlocks = Tiles::min_blocks;  ///< blocks per SM promised to the compiler
  static constexpr int kThreads = 128 * kConsumers;     ///< threads per block
  static constexpr int kRowsPerGroup = BM / kConsumers;  ///< rows of the tile per warpgroup
  static constexpr int kMmas = kRowsPerGroup / 64;       ///< m64 wgmma per k-step and warpgroup
  static constexpr int kABytes = BM * sm90::kBK * 2;     ///< one stage's A tile (BM x 64 bf16)
  static constexpr int kBBytes = sm90::kBK * BN * 2;     ///< one stage's B tile (64 x BN bf16)
  static constexpr int kStageBytes = kABytes + kBBytes;  ///< bytes one stage's TMA loads bring
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;  ///< + alignment, barriers
  static_assert(kRowsPerGroup % 64 == 0, "v12: each warpgroup owns whole m64 wgmma tiles");
  static_assert(BM <= 256, "v12: the A tile is one TMA box (at most 256 rows)");
  static_assert(BN == 128 || BN == 256, "v12: BN is a wgmma n the steps use (128 or 256)");
  static_assert(kStages >= 2, "v12: a ring needs at least two stages");
  static_assert(kSmemBytes <= 227 * 1024, "v12: more shared memory than a Hopper block may have");
};

/// @brief C = alpha * A B + beta * C (BF16 in, fp32 accumulate and out): TMA + wgmma, every
/// warpgroup computing, thread 0 also feeding the ring (sm_90a; traps elsewhere, where the
/// registry never launches it).
///
/// The ring: stage s holds k-slice t when t % kStages == s. full[s] completes when the TMA
/// loads of its slice have landed (one arrival with expect_tx, plus the bytes); empty[s] when
/// every warp has finished the wgmma that read it (one arrival per warp). Thread 0 refills a
/// stage as soon as it is empty, between its own wgmma.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_v12_tma_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                       int n, int k, float alpha, float beta, float* __restrict__ c) {
#if GEMM_SM90A
  using namespace sm90;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, S = Cfg::kStages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // S x [ A (BM, 64) | B (BN / 64 boxes of (64, 64)) ], swizzled
  auto* full = reinterpret_cast<std::uint64_t*>(smem + S * Cfg::kStageBytes);
  std::uint64_t* empty = full + S;
  const int group = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
  const TileIndex tile = grouped_tile(static_cast<int>(blockIdx.x), (m + BM - 1) / BM, (n + BN - 1) / BN, kGroupM);
  const int row0 = tile.row * BM, col0 = tile.col * BN;
  const int tiles_k = (k + kBK - 1) / kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);                       // the producer's arrive.expect_tx (and the bytes)
      mbar_init(&empty[s], 4 * Cfg::kConsumers);  // one arrival per warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  // Slice t -> stage t % S: announce the bytes, then one TMA load for A (BM x 64) and one per
  // 64 columns of B (64 x 64 each). Out-of-range parts of a box arrive as zeros.
  const auto load_slice = [&](int t) {
    const int s = t % S;
    unsigned char* stage = smem + s * Cfg::kStageBytes;
    mbar_arrive_expect_tx(&full[s], Cfg::kStageBytes);
    tma_load(stage, &map_a, t * kBK, row0, &full[s]);
#pragma unroll
    for (int j = 0; j < BN / kBoxN; ++j) {
      tma_load(stage + Cfg::kABytes + j * kBoxBytesB, &map_b, col0 + j * kBoxN, t * kBK, &full[s]);
    }
  };
  if (threadIdx.x == 0) {
    for (int t = 0; t < S && t < tiles_k; ++t) load_slice(t);  // fill the ring
  }

  float acc[Cfg::kMmas][BN / 2];
#pragma unroll
  for (int i = 0; i < Cfg::kMmas; ++i)
#pragma unroll
    for (int j = 0; j < BN / 2; ++j) acc[i][j] = 0.0f;
  const int a_row = group * Cfg::kRowsPerGroup;  // this warpgroup's first row in the A tile

// [mainloop]
  for (int t = 0; t < tiles_k; ++t) {
    const int s = t % S;
    mbar_wait(&full[s], (t / S) % 2);  // slice t has landed (completion number t / S of full[s])
    const unsigned char* stage = smem + s * Cfg::kStageBytes;
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < Cfg::kMmas; ++i) {
      wgmma_kslice<BN>(acc[i], stage + (a_row + 64 * i) * 128, stage + Cfg::kABytes, t == 0);
    }
    wgmma_commit();
    wgmma_wait<1>();  // slice t's wgmma may still run; slice t - 1's are done
    if (t > 0) {
      const int prev = (t - 1) % S;
      if (lane == 0) mbar_arrive(&empty[prev]);  // this warp is done reading slice t - 1
      if (threadIdx.x == 0 && t - 1 + S < tiles_k) {
        mbar_wait(&empty[prev], ((t - 1) / S) % 2);  // every warp is
        load_slice(t - 1 + S);                       // refill the stage with slice t - 1 + S
      }
      __syncwarp();
    }
  }
  wgmma_wait<0>();
// [mainloop]
#pragma unroll
  for (int i = 0; i < Cfg::kMmas; ++i) keep_in_registers(acc[i]);

  const bool vec_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
#pragma unroll
  for (int i = 0; i < Cfg::kMmas; ++i) {
    store_accumulators<BN>(acc[i], c, m, n, row0 + a_row + 64 * i, col0, alpha, beta, vec_c, warp, lane);
  }
#else
  (void)map_a, (void)map_b, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)c;
  __trap();  // wgmma needs sm_90a; hopper_unavailable() keeps the runner from launching this
#endif
}
// [kernel]

/// Launches v12's kernel with configuration Cfg: one block per BM x BN tile (1-D grid, grouped
/// order). Operands whose rows are not 16-byte aligned are made TMA-ready first (sm90::tma_operands()).
template <class Cfg>
void launch_tma_wgmma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                      const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k == 0) {  // no k-slice, no tensor map of a zero-wide matrix: C = beta C, as v11 does it
    launch_gemm_v11_mma_bf16(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  const std::int64_t tiles = ((m + Cfg::BM - 1) / Cfg::BM) * ((n + Cfg::BN - 1) / Cfg::BN);
  if (tiles > INT_MAX) throw std::invalid_argument("gemm v12: too many block tiles for a 1-D grid");
  const sm90::TmaOperands ops = sm90::tma_operands(m, n, k, a, b, stream);
  const sm90::OperandMaps maps = sm90::operand_maps(ops, m, n, k, Cfg::BM);
  tut::allow_dynamic_smem(gemm_v12_tma_wgmma<Cfg>, Cfg::kSmemBytes);
  gemm_v12_tma_wgmma<Cfg><<<static_cast<unsigned>(tiles), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      maps.a, maps.b, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
