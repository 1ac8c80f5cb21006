/// @file
/// @brief The warp-specialized TMA + wgmma kernel of v14-v17, a template over its configuration: a
/// producer warpgroup that only issues TMA loads, two consumer warpgroups that only issue wgmma
/// (setmaxnreg moves registers from the first to the others), blocks striding over the tiles;
/// and its launcher. v14 launches one block per tile; v15 one persistent block per SM
/// (persistent_grid()); v16 stores C through shared memory and TMA (tma_store_epilogue.cuh); v17
/// runs clusters of two CTAs that share B through TMA multicast (the multicast parts below); v24
/// runs clusters of two CTAs that split each tile's k-slices and add their halves through
/// distributed shared memory (add_pair_sums()).
#pragma once

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "hopper.cuh"
#include "tma_store_epilogue.cuh"

namespace gemm {

/// The warp-specialized kernel's configuration, made from a struct `Tiles` that names its
/// parameters by field (V14Tiles in v14_warp_specialized.cu, and V15Tiles, V16Tiles, V17Tiles):
///
///     static constexpr int block_m, block_n;  // block tile (k-slices of 64), two consumers of block_m / 2 rows
///     static constexpr int stages;            // k-slices in the ring
///     static constexpr int cluster_m;         // CTAs per cluster along M (1: none; 2: the pair shares B, v17)
///     static constexpr int cluster_k;         // CTAs per cluster along K (1: none; 2: the pair splits each tile's k-slices, v24)
///     static constexpr bool tma_store;        // epilogue registers -> shared memory -> TMA store (v16)
///     static constexpr bool split_k;          // blocks split a tile's k-slices; TMA reduce-adds into C (v19)
///     static constexpr bool desc_steps;       // wgmma descriptors advanced per k-step, not rebuilt (v25)
///     static constexpr unsigned wait_suspend_ns;  // suspend-time hint of the stage waits (0: none; v27)
///
/// The kernel reads the short names below and what follows from them.
template <class Tiles>
struct WsConfig {
  static constexpr int BM = Tiles::block_m;             ///< rows of C per block
  static constexpr int BN = Tiles::block_n;             ///< columns of C per block: the wgmma's n
  static constexpr int kStages = Tiles::stages;         ///< k-slices resident in shared memory
  static constexpr int kClusterM = Tiles::cluster_m;    ///< CTAs per cluster along M, sharing B (v17)
  static constexpr int kClusterK = Tiles::cluster_k;    ///< CTAs per cluster along K, sharing a tile's k-slices (v24)
  static constexpr int kClusterSize = kClusterM * kClusterK;  ///< CTAs per cluster
  static constexpr bool kTmaStore = Tiles::tma_store;   ///< epilogue through shared memory and TMA stores
  static constexpr bool kSplitK = Tiles::split_k;       ///< a tile's k-slices split over blocks (v19)
  static constexpr bool kDescSteps = Tiles::desc_steps; ///< descriptors advanced per k-step (v25)
  static constexpr unsigned kWaitSuspendNs = Tiles::wait_suspend_ns;  ///< the stage waits' suspend-time hint (v27)
  static constexpr int kConsumers = 2;                  ///< consumer warpgroups (the producer is a third)
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
  static constexpr int kPairDataBytes = kRowsPerGroup * BN * 4;  ///< (v24) the partial sums one exchange carries
  /// v24: where the peer CTA puts its partial sums of the rows this CTA stores (one consumer's
  /// kRowsPerGroup x BN fp32), and its two barriers (filled by the peer; read by this CTA).
  static constexpr int kPairBytes = kClusterK > 1 ? kPairDataBytes + 2 * 8 : 0;
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kEpiBytes + kPairBytes + 2 * kStages * 8;  ///< dynamic smem
  static constexpr int kProducerRegs = 40;   ///< registers per thread the producer keeps (setmaxnreg.dec)
  static constexpr int kConsumerRegs = 232;  ///< registers per thread the consumers get (setmaxnreg.inc)
  static_assert(kRowsPerGroup % 64 == 0 && BM <= 256, "v14: consumers own whole m64 tiles; A is one TMA box");
  static_assert(BN == 64 || BN == 128 || BN == 256, "v14: BN is a wgmma n the steps use (64, 128 or 256)");
  static_assert(kClusterM == 1 || kClusterM == 2, "v14: clusters of one or two CTAs");
  static_assert(kClusterK == 1 || (kClusterK == 2 && kClusterM == 1 && !kSplitK),
                "v24: pairs along K only, without pairs along M or v19's split");
  static_assert(kBBoxes % kClusterM == 0, "v14: the CTAs of a cluster split B's boxes evenly");
  static_assert(kStages >= 2, "v14: a ring needs at least two stages");
  static_assert(!kSplitK || (kTmaStore && kClusterM == 1), "v19: split-K adds its partial tiles through TMA");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "v14: the SM has 64K registers");
  static_assert(kSmemBytes <= 227 * 1024, "v14: more shared memory than a Hopper block may have");
};

#if GEMM_SM90A
/// v24's exchange between the two CTAs of a cluster that computed the two halves of one tile's
/// k-slices, one consumer warpgroup's rows at a time. The sender (`receive` false) waits until
/// the peer has read what it sent last, then writes its accumulators into the peer's pair
/// buffer with st.async (distributed shared memory; each thread its own float4 columns, so a
/// warp's stores are 512 contiguous bytes), each store completing its bytes on the peer's
/// pair_full barrier, as a TMA load completes on a stage's. The receiver announces the bytes
/// (expect_tx) and waits on pair_full, adds the peer's sums to its accumulators, and frees the
/// buffer on the peer's pair_free (one arrival per warp). `pairs` counts this consumer's
/// earlier exchanges (the phases); `peer` is the other CTA's rank. Returns true where the
/// caller stores the rows.
// [pair_sum]
template <class Cfg>
__device__ __forceinline__ bool add_pair_sums(float (&acc)[Cfg::kMmas][Cfg::BN / 2], unsigned char* buffer,
                                              std::uint64_t* pair_full, std::uint64_t* pair_free, unsigned peer,
                                              bool receive, std::uint32_t pairs) {
  using namespace sm90;
  constexpr int kQuads = Cfg::kMmas * Cfg::BN / 8;  // float4s per thread
  const int t = threadIdx.x % 128;
  auto* sums = reinterpret_cast<float4*>(buffer);
  if (receive) {
    if (t == 0) mbar_arrive_expect_tx(pair_full, Cfg::kPairDataBytes);  // exchange `pairs`: this many bytes
    mbar_wait(pair_full, pairs % 2);                                      // ... have landed
#pragma unroll
    for (int q = 0; q < kQuads; ++q) {
      const float4 v = sums[q * 128 + t];
      float* a = &acc[q / (Cfg::BN / 8)][4 * (q % (Cfg::BN / 8))];
      a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
    }
    __syncwarp();
    if (t % 32 == 0) mbar_arrive_cluster(pair_free, peer);  // read: the peer may send the next tile's
    return true;
  }
  if (pairs > 0) mbar_wait(pair_free, (pairs - 1) % 2);  // the peer has read the last ones
  const std::uint32_t remote = cluster_address(sums, peer), remote_full = cluster_address(pair_full, peer);
#pragma unroll
  for (int q = 0; q < kQuads; ++q) {
    const float* a = &acc[q / (Cfg::BN / 8)][4 * (q % (Cfg::BN / 8))];
    st_async_v4(remote + static_cast<std::uint32_t>((q * 128 + t) * 16), a[0], a[1], a[2], a[3], remote_full);
  }
  return false;
}
// [pair_sum]
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
///
/// kSplitK (v19): a unit is a tile and one of `splits` ranges of its k-slices; each block adds
/// alpha times its partial product to C through TMA reduce-adds (C holds beta * C already).
///
/// kClusterK = 2 (v24): the two CTAs of a cluster compute the same tile, each over half of its
/// k-slices; then each consumer warpgroup's rows are finished by one CTA, which adds the
/// peer's partial sums, sent through distributed shared memory (add_pair_sums()), and stores
/// them: C is written once, with no clearing pass and no atomics.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_v14_warp_specialized(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                              const __grid_constant__ CUtensorMap map_c, int m, int n, int k, float alpha,
                              float beta, float* __restrict__ c, int tma_store_c, int splits) {
#if GEMM_SM90A
  using namespace sm90;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, S = Cfg::kStages, CM = Cfg::kClusterM, CK = Cfg::kClusterK;
  constexpr int CS = Cfg::kClusterSize;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // S stages | epilogue boxes | (v24) pair buffer | barriers
  unsigned char* epi = smem + S * Cfg::kStageBytes;
  unsigned char* pair = epi + Cfg::kEpiBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(pair + Cfg::kPairBytes);
  std::uint64_t* empty = full + S;
  // v24: the pair buffer's barriers, its last 16 bytes. pair_full: the peer has stored its
  // partial sums here; pair_free: the peer has read what this CTA stored into it.
  std::uint64_t* pair_full = reinterpret_cast<std::uint64_t*>(pair + Cfg::kPairBytes) - 2;
  std::uint64_t* pair_free = pair_full + 1;
  const int group = threadIdx.x / 128, lane = threadIdx.x % 32;  // group 0: producer; 1, 2: consumers
  const unsigned rank = CS == 1 ? 0u : blockIdx.x % CS;  // this CTA's rank in its cluster (1-D clusters)
  const unsigned m_rank = CM == 1 ? 0u : rank;           // which tile of a column of CM tiles (v17)
  const int k_rank = CK == 1 ? 0 : static_cast<int>(rank);  // which share of a tile's k-slices (v24)

  // Work units: a tile, or (v17's clusters) a column of CM vertically adjacent tiles, one per
  // CTA, or (v24's) a tile whose k-slices the cluster's CK CTAs share.
  // Units are numbered in the grouped order; the clusters stride over them (v15's persistent
  // grid: fewer blocks than units; v14: one block per unit, each running the loops once).
// [tile_loop]
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
  const int units_m = (tiles_m + CM - 1) / CM;
  const int ksplits = Cfg::kSplitK ? splits : 1;  // a compile-time 1 unless split-K (v19)
  const int units = units_m * tiles_n * ksplits;
  const int first_unit = static_cast<int>(blockIdx.x) / CS, unit_stride = static_cast<int>(gridDim.x) / CS;
  const auto unit_origin = [&](int unit, int& row0, int& col0) {
    const TileIndex u = grouped_tile(unit / ksplits, units_m, tiles_n, kGroupM / CM);
    row0 = (u.row * CM + static_cast<int>(m_rank)) * BM;
    col0 = u.col * BN;
  };
// [tile_loop]
  const int tiles_k = (k + kBK - 1) / kBK;
  // The unit's k-slices [t0, t1): all of them, or (v19) its share of the tile's, or (v24) this
  // CTA's share of its cluster's tile.
// [split_range]
  const auto slice_range = [&](int unit, int& t0, int& t1) {
    const int part = Cfg::kSplitK ? unit % ksplits : k_rank, parts = Cfg::kSplitK ? ksplits : CK;
    t0 = static_cast<int>(static_cast<long long>(part) * tiles_k / parts);
    t1 = static_cast<int>(static_cast<long long>(part + 1) * tiles_k / parts);
  };
// [split_range]

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);                          // the producer's arrive.expect_tx (and the bytes)
      mbar_init(&empty[s], 4 * Cfg::kConsumers * CM);  // every consumer warp of every CTA of the cluster
    }
    if constexpr (CK > 1) {
      mbar_init(pair_full, 1);  // the receiver's expect_tx, and the bytes of the peer's st.async (v24)
      mbar_init(pair_free, 4);  // every warp of the peer's receiving consumer
    }
    fence_barrier_init();
  }
  if constexpr (CS > 1) {
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
        int row0, col0, t0, t1;
        unit_origin(unit, row0, col0);
        slice_range(unit, t0, t1);
        for (int t = t0; t < t1; ++t, ++it) {
          const int s = static_cast<int>(it % S);
          if (it >= S) mbar_wait<Cfg::kWaitSuspendNs>(&empty[s], (it / S + 1) % 2);  // release number it / S - 1
          unsigned char* stage = smem + s * Cfg::kStageBytes;
          mbar_arrive_expect_tx(&full[s], Cfg::kStageBytes);  // all of A and B land here, from both CTAs
          tma_load(stage, &map_a, t * kBK, row0, &full[s]);
// [multicast]
#pragma unroll
          for (int jj = 0; jj < Cfg::kBBoxesPerCta; ++jj) {
            const int j = static_cast<int>(m_rank) * Cfg::kBBoxesPerCta + jj;  // this CTA's share of B's boxes
            unsigned char* dst = stage + Cfg::kABytes + j * kBoxBytesB;
            if constexpr (CM > 1) {
              tma_load_multicast(dst, &map_b, col0 + j * kBoxN, t * kBK, &full[s], (1u << CM) - 1);
            } else {
              tma_load(dst, &map_b, col0 + j * kBoxN, t * kBK, &full[s]);
            }
          }
// [multicast]
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
// [cluster_release]
    const auto release = [&](std::uint32_t slice) {
      if (lane == 0) {
        std::uint64_t* bar = &empty[slice % S];
        mbar_arrive(bar);
        if constexpr (CM > 1) {
          for (unsigned r = 1; r < CM; ++r) mbar_arrive_cluster(bar, (rank + r) % CM);  // the peers
        }
      }
    };
// [cluster_release]
    float acc[Cfg::kMmas][BN / 2];
#pragma unroll
    for (int i = 0; i < Cfg::kMmas; ++i)
#pragma unroll
      for (int j = 0; j < BN / 2; ++j) acc[i][j] = 0.0f;
    const bool vec_c = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
    std::uint32_t it = 0;     // slices consumed so far, over all of this block's tiles
    std::uint32_t boxes = 0;  // epilogue boxes stored so far (kTmaStore)
    std::uint32_t pairs = 0;  // (v24) partial tiles this consumer has sent or received
    for (int unit = first_unit; unit < units; unit += unit_stride) {
      int row0, col0, t0, t1;
      unit_origin(unit, row0, col0);
      slice_range(unit, t0, t1);
// [consumer]
      for (int t = t0; t < t1; ++t, ++it) {
        const int s = static_cast<int>(it % S);
        mbar_wait<Cfg::kWaitSuspendNs>(&full[s], (it / S) % 2);  // slice it has landed: fill number it / S of stage s
        const unsigned char* stage = smem + s * Cfg::kStageBytes;
        wgmma_fence();
#pragma unroll
        for (int i = 0; i < Cfg::kMmas; ++i) {
          wgmma_kslice<BN, Cfg::kDescSteps>(acc[i], stage + (a_row + 64 * i) * 128, stage + Cfg::kABytes, t == t0);
        }
        wgmma_commit();
        wgmma_wait<1>();             // the previous slice's wgmma are done ...
        if (t > t0) release(it - 1);  // ... so its stage may be refilled
      }
      wgmma_wait<0>();
      release(it - 1);  // the unit's last slice (t1 > t0: the launcher sends k = 0 elsewhere)
// [consumer]
#pragma unroll
      for (int i = 0; i < Cfg::kMmas; ++i) keep_in_registers(acc[i]);
      if constexpr (CK > 1) {
        // v24: the two CTAs hold partial sums of the same tile. Consumer `rank` finishes its rows
        // here; the other consumer sends its rows' partial sums to the peer, whose consumer of
        // the same rows (same warp and lane roles, so the same registers) adds them.
        if (!add_pair_sums<Cfg>(acc, pair, pair_full, pair_free, rank ^ 1u, consumer == k_rank, pairs++)) continue;
      }
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
  if constexpr (CS > 1) {
    cluster_sync();  // neither CTA leaves while the other may still multicast or store into it or arrive on it
  }
#else
  (void)map_a, (void)map_b, (void)map_c, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)c;
  (void)tma_store_c, (void)splits;
  __trap();  // wgmma needs sm_90a; hopper_unavailable() keeps the runner from launching this
#endif
}
// [kernel]

/// The type of gemm_v14_warp_specialized<Cfg> (a pointer to it).
using WsKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int, float, float, float*, int, int);

/// The launch configuration of v14's kernel with Cfg: `clusters` clusters of Cfg::kClusterSize
/// CTAs (a cluster attribute only when that is more than one: v17, v24).
template <class Cfg>
struct WsLaunch : sm90::ClusterLaunch {
  /// The configuration for `clusters` clusters on `stream`.
  WsLaunch(std::int64_t clusters, cudaStream_t stream)
      : sm90::ClusterLaunch(clusters, Cfg::kClusterSize, Cfg::kThreads, Cfg::kSmemBytes, stream) {}
};

/// How many CTAs (clusters of Cfg::kClusterSize CTAs) of v14's kernel with configuration Cfg the
/// GPU runs at the same time: the grid of a persistent launch (cached per configuration).
template <class Cfg>
int max_resident_clusters() {
  static const int clusters = [] {
    const WsKernel kernel = gemm_v14_warp_specialized<Cfg>;
    tut::allow_dynamic_smem(kernel, Cfg::kSmemBytes);  // else the query counts none that fit
    if constexpr (Cfg::kClusterSize == 1) {
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

/// How v14's kernel is launched: which grid.
enum class WsGrid {
  per_unit,    ///< one block (cluster) per unit of work: v14
  persistent,  ///< persistent_grid(): as many as the GPU holds at once, striding over the units (v15-v17)
};

/// The grid of a persistent launch (v15): as many clusters as the GPU runs at the same time (one
/// block per SM here), never more than there are units of work. Each block then strides over
/// the units in the kernel's tile loop (`unit += gridDim.x`).
// [persistent_grid]
template <class Cfg>
std::int64_t persistent_grid(std::int64_t units) {
  const std::int64_t resident = std::max(1, max_resident_clusters<Cfg>());
  return std::min<std::int64_t>(units, resident);
}
// [persistent_grid]

/// Launches v14's kernel with configuration Cfg: one block (cluster) per tile (column of
/// kClusterM tiles; tile shared along K by kClusterK CTAs, which needs k-slices for each) with WsGrid::per_unit; with WsGrid::persistent as many as the GPU holds at
/// once (one per SM), striding over the tiles. Operands whose rows are not 16-byte aligned are made TMA-ready
/// first (sm90::tma_operands()); with kTmaStore, C is stored through TMA when its rows are
/// 16-byte aligned (n % 4 == 0, aligned base), else straight from the registers. With kSplitK
/// (v19), `splits` blocks share each tile's k-slices and add into C, which the caller has set to
/// beta * C; C's rows must then be 16-byte aligned, and splits at most the k-slices.
/// `max_clusters` > 0 caps a persistent grid (tests: many units per cluster on a small problem).
template <class Cfg>
void launch_warp_specialized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                             const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream, WsGrid grid,
                             int splits = 1, std::int64_t max_clusters = 0) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k == 0) {  // no k-slice, no tensor map of a zero-wide matrix: C = beta C, as v11 does it
    launch_gemm_v11_mma_bf16(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  const std::int64_t tiles_m = (m + Cfg::BM - 1) / Cfg::BM, tiles_n = (n + Cfg::BN - 1) / Cfg::BN;
  if (splits != 1 && !(Cfg::kSplitK && n % 4 == 0 && aligned16(c) && splits >= 1 && splits <= (k + sm90::kBK - 1) / sm90::kBK)) {
    throw std::logic_error("gemm v19: split-K needs the TMA epilogue (aligned rows of C) and at most one split per k-slice");
  }
  const std::int64_t units = (tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM * tiles_n * splits;
  if (Cfg::kClusterK > 1 && (k + sm90::kBK - 1) / sm90::kBK < Cfg::kClusterK) {
    throw std::logic_error("gemm v24: a pair of CTAs along K needs at least one k-slice for each");
  }
  if (units * Cfg::kClusterSize > INT_MAX) throw std::invalid_argument("gemm v14: too many block tiles for a 1-D grid");
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
  std::int64_t clusters = grid == WsGrid::persistent ? persistent_grid<Cfg>(units) : units;
  if (grid == WsGrid::persistent && max_clusters > 0) clusters = std::min(clusters, max_clusters);

  const WsLaunch<Cfg> launch(clusters, stream);
  int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, maps.a, maps.b, map_c, mi, ni, ki, alpha, beta, c, tma_store_c,
                                splits));
}

/// v14's configuration (and v15's: the same kernel; v15 changes only the grid): v13's tile (128 x 256, two consumer warpgroups of 64 x 256, 4 stages of
/// 48 KiB), plus a producer warpgroup (WsConfig adds it); no cluster, epilogue from the registers.
// [v14_config]
struct V14Tiles {
  static constexpr int block_m = 128;       ///< block tile (128, 256), as v13
  static constexpr int block_n = 256;       ///< (see block_m)
  static constexpr int stages = 4;          ///< 4 stages of 48 KiB in the ring
  static constexpr int cluster_m = 1;       ///< no cluster
  static constexpr int cluster_k = 1;       ///< (see cluster_m)
  static constexpr bool tma_store = false;  ///< epilogue straight from the registers
  static constexpr bool split_k = false;    ///< one block per tile, all of its k-slices
  static constexpr bool desc_steps = false; ///< descriptors rebuilt for every k-step (v25: advanced)
  static constexpr unsigned wait_suspend_ns = 0;  ///< stage waits without a suspend-time hint (v27: 10 ms)
};
// [v14_config]

/// v16's configuration (and v18's for problems that fill the SMs): v15's, with the TMA-store
/// epilogue (4 stages of 48 KiB plus 32 KiB of staging boxes: 224 KiB of shared memory).
// [v16_config]
struct V16Tiles {
  static constexpr int block_m = 128;      ///< block tile (128, 256), as v15
  static constexpr int block_n = 256;      ///< (see block_m)
  static constexpr int stages = 4;         ///< 4 stages of 48 KiB in the ring
  static constexpr int cluster_m = 1;      ///< no cluster
  static constexpr int cluster_k = 1;      ///< (see cluster_m)
  static constexpr bool tma_store = true;  ///< epilogue through shared memory and TMA stores (v15: false)
  static constexpr bool split_k = false;   ///< one block per tile, all of its k-slices
  static constexpr bool desc_steps = false; ///< descriptors rebuilt for every k-step (v25: advanced)
  static constexpr unsigned wait_suspend_ns = 0;  ///< stage waits without a suspend-time hint (v27: 10 ms)
};
// [v16_config]

/// v18's second configuration: v16's kernel with half its tile's columns. A stage is 32 KiB, so
/// six fit beside the staging boxes (225 KiB of shared memory).
// [v18_config]
struct V18HalfTiles {
  static constexpr int block_m = 128;      ///< block tile (128, 128): two consumers of 64 x 128
  static constexpr int block_n = 128;      ///< (v16: 256)
  static constexpr int stages = 6;         ///< 6 stages of 32 KiB in the ring (v16: 4 of 48 KiB)
  static constexpr int cluster_m = 1;      ///< no cluster
  static constexpr int cluster_k = 1;      ///< (see cluster_m)
  static constexpr bool tma_store = true;  ///< epilogue through shared memory and TMA stores, as v16
  static constexpr bool split_k = false;   ///< one block per tile, all of its k-slices
  static constexpr bool desc_steps = false; ///< descriptors rebuilt for every k-step (v25: advanced)
  static constexpr unsigned wait_suspend_ns = 0;  ///< stage waits without a suspend-time hint (v27: 10 ms)
};
// [v18_config]

/// v20's third configuration: v18's half tile halved again, 128 x 64 (each consumer's wgmma is
/// m64n64k16). A stage is 24 KiB, so eight fit beside the staging boxes (225 KiB).
// [v20_config]
struct V20NarrowTiles : V18HalfTiles {
  static constexpr int block_n = 64;  ///< block tile (128, 64) (v18's half tile: 128)
  static constexpr int stages = 8;    ///< 8 stages of 24 KiB (v18's half tile: 6 of 32 KiB)
};
// [v20_config]

/// v24's configuration: v18's half tile (128 x 128), in clusters of two CTAs that each take half
/// of its k-slices. The buffer that receives the peer's sums (32 KiB) takes one stage's room.
// [v24_config]
struct V24PairTiles : V18HalfTiles {
  static constexpr int stages = 5;     ///< 5 stages of 32 KiB (v18's half tile: 6), beside the pair buffer
  static constexpr int cluster_k = 2;  ///< clusters of two CTAs along K (v18: 1)
};
// [v24_config]

// v25's configurations: v24's four (v16's, v18's, v20's and v24's tiles), each with its
// descriptors advanced per k-step.
// [v25_config]
/// v16's 128 x 256 tile, descriptors advanced.
struct V25LargeTiles : V16Tiles {
  static constexpr bool desc_steps = true;  ///< (v16: false)
};
/// v18's 128 x 128 tile, descriptors advanced.
struct V25HalfTiles : V18HalfTiles {
  static constexpr bool desc_steps = true;  ///< (v18: false)
};
/// v20's 128 x 64 tile, descriptors advanced.
struct V25NarrowTiles : V20NarrowTiles {
  static constexpr bool desc_steps = true;  ///< (v20: false)
};
/// v24's pairs along K, descriptors advanced.
struct V25PairTiles : V24PairTiles {
  static constexpr bool desc_steps = true;  ///< (v24: false)
};
// [v25_config]

/// v20's launch by the width of its 128-row tile (v20_tile_n(): 64, 128 or 256), with the
/// configurations Narrow, Half and Large for those widths: v20's own (V20NarrowTiles,
/// V18HalfTiles, V16Tiles) or v25's.
template <class Narrow, class Half, class Large>
void launch_by_tile_width(int width, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                          const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  switch (width) {
    case 64:
      launch_warp_specialized<WsConfig<Narrow>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
      return;
    case 128:
      launch_warp_specialized<WsConfig<Half>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
      return;
    default:
      launch_warp_specialized<WsConfig<Large>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
  }
}

/// v24's choice among four configurations, as v25 and v27 make it: Pair (two CTAs along K) where
/// v24_takes_pairs() says so, else the 128-row tile by width (launch_by_tile_width()).
template <class Pair, class Narrow, class Half, class Large>
void launch_pairs_or_tile_width(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                                const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  if (m > 0 && n > 0 && v24_takes_pairs(m, n, k, v24_pair_slots())) {
    launch_warp_specialized<WsConfig<Pair>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
    return;
  }
  launch_by_tile_width<Narrow, Half, Large>(v20_tile_n(m, n, sm_count()), m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
