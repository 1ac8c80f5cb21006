/// @file
/// @brief v14's kernel, a template over its parameters: a producer warpgroup that only issues
/// TMA loads, two consumer warpgroups that only issue wgmma (setmaxnreg moves registers from
/// the first to the others), blocks striding over tiles. v14 launches one block per tile; v15
/// the same kernel as one persistent block per SM; v16 adds an epilogue through shared memory
/// and TMA stores (kTmaStore), v17 clusters of two CTAs sharing B through TMA multicast (kClusterM).
#pragma once

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "hopper.cuh"

namespace gemm {

/// The parameters of v14's kernel: block tile BM x BN (k-slices of 64) computed by two consumer
/// warpgroups of BM / 2 rows each, `kStages` slices in the ring; `kClusterM` CTAs per cluster
/// along M (1: none; 2: the pair shares its B tile through TMA multicast); `kTmaStore`: the
/// epilogue goes registers -> shared memory -> TMA store instead of registers -> global memory.
template <int BM_, int BN_, int kStages_, int kClusterM_, bool kTmaStore_>
struct WsConfig {
  static constexpr int BM = BM_;                ///< rows of C per block
  static constexpr int BN = BN_;                ///< columns of C per block: the wgmma's n
  static constexpr int kStages = kStages_;      ///< k-slices resident in shared memory
  static constexpr int kClusterM = kClusterM_;  ///< CTAs per cluster (along M), sharing B
  static constexpr bool kTmaStore = kTmaStore_;  ///< epilogue through shared memory and TMA stores
  static constexpr int kConsumers = 2;            ///< consumer warpgroups (the producer is a third)
  static constexpr int kThreads = 128 * (1 + kConsumers);  ///< threads per block
  static constexpr int kRowsPerGroup = BM / kConsumers;    ///< rows of the tile per consumer
  static constexpr int kMmas = kRowsPerGroup / 64;         ///< m64 wgmma per k-step and consumer
  static constexpr int kABytes = BM * sm90::kBK * 2;       ///< one stage's A tile (BM x 64 bf16)
  static constexpr int kBBytes = sm90::kBK * BN * 2;       ///< one stage's B tile (64 x BN bf16)
  static constexpr int kStageBytes = kABytes + kBBytes;    ///< bytes landing in one stage (per CTA)
  static constexpr int kBBoxes = BN / sm90::kBoxN;         ///< 64-column boxes of B per stage
  static constexpr int kBBoxesPerCta = kBBoxes / kClusterM;  ///< B boxes each CTA of a cluster loads
  /// The epilogue's staging boxes (kTmaStore): 64 rows x 32 fp32 columns (128-byte rows, 8 KiB),
  /// two per consumer warpgroup, so one can fill while the other is stored.
  static constexpr int kEpiBoxCols = 32;
  static constexpr int kEpiBoxBytes = 64 * kEpiBoxCols * 4;  ///< bytes of one staging box
  static constexpr int kEpiBytes = kTmaStore ? kConsumers * 2 * kEpiBoxBytes : 0;  ///< all staging boxes
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kEpiBytes + 2 * kStages * 8;  ///< dynamic smem
  static constexpr int kProducerRegs = 40;   ///< registers per thread the producer keeps (setmaxnreg.dec)
  static constexpr int kConsumerRegs = 232;  ///< registers per thread the consumers get (setmaxnreg.inc)
  static_assert(kRowsPerGroup % 64 == 0 && BM <= 256, "v14: consumers own whole m64 tiles; A is one TMA box");
  static_assert(BN == 128 || BN == 256, "v14: BN is a wgmma n the steps use (128 or 256)");
  static_assert(kClusterM == 1 || kClusterM == 2, "v14: clusters of one or two CTAs");
  static_assert(kBBoxes % kClusterM == 0, "v14: the CTAs of a cluster split B's boxes evenly");
  static_assert(kStages >= 2, "v14: a ring needs at least two stages");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "v14: the SM has 64K registers");
  static_assert(kSmemBytes <= 227 * 1024, "v14: more shared memory than a Hopper block may have");
};

#if GEMM_SM90A
/// The epilogue of kTmaStore (v16, v17): one consumer warpgroup's BM / 2 x BN accumulators go to C
/// through shared memory, in boxes of 64 rows x 32 columns. For each box: wait until the TMA
/// store that last used this staging buffer has read it (two boxes alternate), write alpha *
/// acc + beta * C into it in the 128-byte-swizzled order the tensor map expects, fence the
/// writes for the async proxy, and let one thread issue the TMA store. The store clips what lies outside C and
/// runs on while the warpgroup moves on; `boxes` counts the boxes stored so far (which buffer).
/// The swizzle spreads a warp's float2 writes over all 32 banks, yet ncu counts about 0.7
/// million bank conflicts per 4096^3 run, probably because a 64-bit store is served per
/// half-warp, whose 16 lanes (4 rows) reach only 4 of the 8 bank groups.
// [tma_store]
template <class Cfg>
__device__ __forceinline__ void store_tile_tma(const float (&acc)[Cfg::kMmas][Cfg::BN / 2], const CUtensorMap* map_c,
                                               unsigned char* staging, std::uint32_t& boxes, const float* c, int m,
                                               int n, int row0, int col0, float alpha, float beta, int consumer,
                                               int warp, int lane) {
  using namespace sm90;
  const bool leader = threadIdx.x % 128 == 0;
  const int g = lane / 4, tq = lane % 4;
#pragma unroll
  for (int i = 0; i < Cfg::kMmas; ++i) {
#pragma unroll
    for (int q = 0; q < Cfg::BN / Cfg::kEpiBoxCols; ++q, ++boxes) {
      unsigned char* box = staging + (boxes % 2) * Cfg::kEpiBoxBytes;  // (64, 32) fp32, rows of 128 bytes
      if (leader) bulk_wait_read<1>();        // the store issued from this buffer two boxes ago has read it
      named_barrier_sync(1 + consumer, 128);  // ... and the whole warpgroup knows it
#pragma unroll
      for (int jj = 0; jj < Cfg::kEpiBoxCols / 8; ++jj) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = warp * 16 + g + 8 * h;        // row in the box
          const int j = q * (Cfg::kEpiBoxCols / 8) + jj;  // 8-column group of the accumulators
          float v0 = alpha * acc[i][4 * j + 2 * h], v1 = alpha * acc[i][4 * j + 2 * h + 1];
          const int grow = row0 + 64 * i + r, gcol = col0 + q * Cfg::kEpiBoxCols + 8 * jj + 2 * tq;
          if (beta != 0.0f && grow < m) {  // C is read only when beta != 0, and only inside C
            const float* old = c + static_cast<std::int64_t>(grow) * n + gcol;
            if (gcol < n) v0 = fmaf(alpha, acc[i][4 * j + 2 * h], beta * old[0]);
            if (gcol + 1 < n) v1 = fmaf(alpha, acc[i][4 * j + 2 * h + 1], beta * old[1]);
          }
          // Columns 8 jj + 2 tq, +1 of row r: 16-byte chunk 2 jj + tq / 2 of the row, stored at
          // chunk ^ (r % 8) (the 128-byte swizzle), 8 bytes in when tq is odd.
          const int chunk = (2 * jj + tq / 2) ^ (r % 8);
          *reinterpret_cast<float2*>(box + r * 128 + chunk * 16 + (tq % 2) * 8) = make_float2(v0, v1);
        }
      }
      fence_proxy_async();                    // this thread's writes, visible to the TMA unit ...
      named_barrier_sync(1 + consumer, 128);  // ... everyone's
      if (leader) {
        tma_store(map_c, col0 + q * Cfg::kEpiBoxCols, row0 + 64 * i, box);
        bulk_commit();
      }
    }
  }
}
// [tma_store]
#endif

/// @brief C = alpha * A B + beta * C (BF16 in, fp32 accumulate and out): a warp-specialized
/// TMA + wgmma kernel whose blocks stride over the tiles (sm_90a; traps elsewhere, where the
/// registry never launches it).
///
/// Warpgroup 0 is the producer: one thread walks the k-slices of this block's tiles and, for
/// each, waits until its stage is empty, announces the bytes on the stage's full barrier and
/// issues the TMA loads. Warpgroups 1 and 2 are the consumers: for each k-slice they wait on
/// the full barrier, issue the wgmma of their 64 rows, and release the previous slice's stage
/// on its empty barrier; after a tile's last slice they store their accumulators. A counter of
/// slices (`it`, over all of the block's tiles) names each slice's stage (it % S) and the phase
/// of that stage's barriers ((it / S) % 2): producer and consumers count the same slices.
///
/// kClusterM = 2: the two CTAs of a cluster compute vertically adjacent tiles, which need the
/// same B tile; each CTA loads half of it with TMA multicast into both CTAs' shared memory. A
/// stage may only be refilled when the consumers of both CTAs have released it, so every
/// consumer warp arrives on the empty barrier of both CTAs. kTmaStore: see store_tile_tma().
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_v14_warp_specialized(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                              const __grid_constant__ CUtensorMap map_c, int m, int n, int k, float alpha,
                              float beta, float* __restrict__ c, int tma_store_c) {
#if GEMM_SM90A
  using namespace sm90;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, S = Cfg::kStages, CM = Cfg::kClusterM;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // S stages | epilogue boxes | barriers
  unsigned char* epi = smem + S * Cfg::kStageBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(epi + Cfg::kEpiBytes);
  std::uint64_t* empty = full + S;
  const int group = threadIdx.x / 128, lane = threadIdx.x % 32;  // group 0: producer; 1, 2: consumers
  const unsigned rank = CM == 1 ? 0u : blockIdx.x % CM;  // this CTA's rank in its cluster (1-D clusters)

  // Work units: a tile, or (clusters) a column of CM vertically adjacent tiles, one per CTA.
  // Units are numbered in the grouped order; the clusters stride over them.
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int units_m = (tiles_m + CM - 1) / CM;
  const int units = units_m * tiles_n;
  const int first_unit = static_cast<int>(blockIdx.x) / CM, unit_stride = static_cast<int>(gridDim.x) / CM;
  const auto unit_origin = [&](int unit, int& row0, int& col0) {
    const TileIndex u = grouped_tile(unit, units_m, tiles_n, kGroupM / CM);
    row0 = (u.row * CM + static_cast<int>(rank)) * BM;
    col0 = u.col * BN;
  };
  const int tiles_k = (k + kBK - 1) / kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);                          // the producer's arrive.expect_tx (and the bytes)
      mbar_init(&empty[s], 4 * Cfg::kConsumers * CM);  // every consumer warp of every CTA of the cluster
    }
    fence_barrier_init();
  }
  if constexpr (CM > 1) {
    cluster_sync();  // the peer's barriers exist before anyone multicasts into it or arrives on them
  } else {
    __syncthreads();
  }

  if (group == 0) {
    // ---- Producer warpgroup: gives registers away; one thread issues every TMA load. ----
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if (threadIdx.x == 0) {
// [producer]
      std::uint32_t it = 0;  // slices issued so far, over all of this block's tiles
      for (int unit = first_unit; unit < units; unit += unit_stride) {
        int row0, col0;
        unit_origin(unit, row0, col0);
        for (int t = 0; t < tiles_k; ++t, ++it) {
          const int s = static_cast<int>(it % S);
          if (it >= S) mbar_wait(&empty[s], (it / S + 1) % 2);  // release number it / S - 1
          unsigned char* stage = smem + s * Cfg::kStageBytes;
          mbar_arrive_expect_tx(&full[s], Cfg::kStageBytes);  // all of A and B land here, from both CTAs
          tma_load(stage, &map_a, t * kBK, row0, &full[s]);
#pragma unroll
          for (int jj = 0; jj < Cfg::kBBoxesPerCta; ++jj) {
            const int j = static_cast<int>(rank) * Cfg::kBBoxesPerCta + jj;  // this CTA's share of B's boxes
            unsigned char* dst = stage + Cfg::kABytes + j * kBoxBytesB;
            if constexpr (CM > 1) {
              tma_load_multicast(dst, &map_b, col0 + j * kBoxN, t * kBK, &full[s], (1u << CM) - 1);
            } else {
              tma_load(dst, &map_b, col0 + j * kBoxN, t * kBK, &full[s]);
            }
          }
        }
      }
// [producer]
    }
    __syncwarp();
  } else {
    // ---- Consumer warpgroups: take the registers, issue wgmma, store the results. ----
    setmaxnreg_inc<Cfg::kConsumerRegs>();
    const int consumer = group - 1, warp = threadIdx.x / 32 % 4;
    const int a_row = consumer * Cfg::kRowsPerGroup;  // this warpgroup's first row in the A tile
    // Releases slice `slice`'s stage: this warp is done reading it (on every CTA of the cluster).
    const auto release = [&](std::uint32_t slice) {
      if (lane == 0) {
        std::uint64_t* bar = &empty[slice % S];
        mbar_arrive(bar);
        if constexpr (CM > 1) {
          for (unsigned r = 1; r < CM; ++r) mbar_arrive_cluster(bar, (rank + r) % CM);  // the peers
        }
      }
    };
    float acc[Cfg::kMmas][BN / 2];
#pragma unroll
    for (int i = 0; i < Cfg::kMmas; ++i)
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) acc[i][j] = 0.0f;
    const bool vec_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
    std::uint32_t it = 0;     // slices consumed so far, over all of this block's tiles
    std::uint32_t boxes = 0;  // epilogue boxes stored so far (kTmaStore)
    for (int unit = first_unit; unit < units; unit += unit_stride) {
      int row0, col0;
      unit_origin(unit, row0, col0);
// [consumer]
      for (int t = 0; t < tiles_k; ++t, ++it) {
        const int s = static_cast<int>(it % S);
        mbar_wait(&full[s], (it / S) % 2);  // slice it has landed: fill number it / S of stage s
        const unsigned char* stage = smem + s * Cfg::kStageBytes;
        wgmma_fence();
#pragma unroll
        for (int i = 0; i < Cfg::kMmas; ++i) {
          wgmma_kslice<BN>(acc[i], stage + (a_row + 64 * i) * 128, stage + Cfg::kABytes, t == 0);
        }
        wgmma_commit();
        wgmma_wait<1>();             // the previous slice's wgmma are done ...
        if (t > 0) release(it - 1);  // ... so its stage may be refilled
      }
      wgmma_wait<0>();
      release(it - 1);  // the tile's last slice (tiles_k >= 1: the launcher sends k = 0 elsewhere)
// [consumer]
#pragma unroll
      for (int i = 0; i < Cfg::kMmas; ++i) keep_in_registers(acc[i]);
      const int wg_row0 = row0 + a_row;
      if constexpr (Cfg::kTmaStore) {
        if (tma_store_c) {
          store_tile_tma<Cfg>(acc, &map_c, epi + consumer * 2 * Cfg::kEpiBoxBytes, boxes, c, m, n, wg_row0, col0,
                              alpha, beta, consumer, warp, lane);
          continue;
        }
      }
#pragma unroll
      for (int i = 0; i < Cfg::kMmas; ++i) {
        store_accumulators<BN>(acc[i], c, m, n, wg_row0 + 64 * i, col0, alpha, beta, vec_c, warp, lane);
      }
    }
    if constexpr (Cfg::kTmaStore) {
      if (tma_store_c && threadIdx.x % 128 == 0) bulk_wait_all();  // the staging boxes outlive their stores
    }
  }
  if constexpr (CM > 1) {
    cluster_sync();  // neither CTA leaves while the other may still multicast into it or arrive on it
  }
#else
  (void)map_a, (void)map_b, (void)map_c, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)c;
  (void)tma_store_c;
  __trap();  // wgmma needs sm_90a; hopper_unavailable() keeps the runner from launching this
#endif
}
// [kernel]

/// The type of gemm_v14_warp_specialized<Cfg> (a pointer to it).
using WsKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, float, float, float*, int);

/// The launch configuration of v14's kernel with Cfg: `clusters` clusters of Cfg::kClusterM CTAs
/// (a cluster attribute only when kClusterM > 1). It holds the attribute its config points to.
template <class Cfg>
struct WsLaunch {
  cudaLaunchAttribute attr[1] = {};  ///< the cluster dimension
  cudaLaunchConfig_t config = {};    ///< grid, block, shared memory, stream, attributes
  /// The configuration for `clusters` clusters on `stream`.
  WsLaunch(std::int64_t clusters, cudaStream_t stream) {
    config.gridDim = dim3(static_cast<unsigned>(clusters * Cfg::kClusterM));
    config.blockDim = dim3(Cfg::kThreads);
    config.dynamicSmemBytes = Cfg::kSmemBytes;
    config.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = Cfg::kClusterM;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = Cfg::kClusterM > 1 ? 1 : 0;
  }
  WsLaunch(const WsLaunch&) = delete;  // config.attrs points into this object
  WsLaunch& operator=(const WsLaunch&) = delete;
};

/// How many CTAs (clusters of Cfg::kClusterM CTAs) of v14's kernel with configuration Cfg the
/// GPU runs at the same time: the grid of a persistent launch (cached per configuration).
template <class Cfg>
int max_resident_clusters() {
  static const int clusters = [] {
    const WsKernel kernel = gemm_v14_warp_specialized<Cfg>;
    if constexpr (Cfg::kClusterM == 1) {
      int blocks_per_sm = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, Cfg::kThreads, Cfg::kSmemBytes));
      return blocks_per_sm * sm_count();
    } else {
      const WsLaunch<Cfg> launch(sm_count(), nullptr);
      int count = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, kernel, &launch.config));
      return count;
    }
  }();
  return clusters;
}

/// Launches v14's kernel with configuration Cfg: one block (cluster) per tile (column of
/// kClusterM tiles) when `persistent` is false; else as many as the GPU holds at once (one per
/// SM), striding over the tiles. Operands whose rows are not 16-byte aligned are made TMA-ready
/// first (sm90::tma_operands()); with kTmaStore, C is stored through TMA when its rows are
/// 16-byte aligned (n % 4 == 0, aligned base), else straight from the registers.
template <class Cfg>
void launch_warp_specialized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                             const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream, bool persistent) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k == 0) {  // no k-slice, no tensor map of a zero-wide matrix: C = beta C, as v10 does it
    launch_gemm_v10_mma_bf16(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  const std::int64_t tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
  const std::int64_t units = (tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM * tiles_n;
  if (units * Cfg::kClusterM > INT_MAX) throw std::invalid_argument("gemm v14: too many block tiles for a 1-D grid");
  const WsKernel kernel = gemm_v14_warp_specialized<Cfg>;
  tut::allow_dynamic_smem(kernel, Cfg::kSmemBytes);

  const sm90::TmaOperands ops = sm90::tma_operands(m, n, k, a, b, stream);
  sm90::OperandMaps maps = sm90::operand_maps(ops, m, n, k, Cfg::BM);
  CUtensorMap map_c{};  // unused unless the epilogue stores through TMA
  int tma_store_c = 0;
  if constexpr (Cfg::kTmaStore) {
    if (n % 4 == 0 && aligned16(c)) {
      map_c = sm90::make_tensor_map(c, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, m, n, n, 64, Cfg::kEpiBoxCols);
      tma_store_c = 1;
    }
  }
  const std::int64_t resident = std::max(1, max_resident_clusters<Cfg>());
  const std::int64_t clusters = persistent ? std::min<std::int64_t>(units, resident) : units;

  const WsLaunch<Cfg> launch(clusters, stream);
  int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, maps.a, maps.b, map_c, mi, ni, ki, alpha, beta, c, tma_store_c));
}

}  // namespace gemm
