/// @file
/// @brief The TF32 wgmma kernel of v21 and v22 (a template over its configuration), its fragment
/// loads, and its launcher: C^T = B^T A^T, A's tile the shared-memory operand (K-major, as TMA
/// loads it), B^T's fragments loaded by the threads into registers (sm_90a).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "hopper.cuh"

namespace gemm {

/// The TF32 kernel's configuration from `Tiles`, a struct with `parts` (1: v21, the operands as
/// TF32; 2: v22, each operand split into a high and a low TF32 part), `rows` (rows of C per
/// block: wgmma's n, 256, 128 or 64), `stages` (k-slices in the ring) and `promote` (v22: each slice's
/// products summed by the tensor cores alone, then added to fp32 registers by the threads). The
/// kernel computes C^T = B^T A^T: wgmma's M is C's columns, its N C's rows, so a block tile is
/// kRows x kCols of C with two consumer warpgroups of 64 columns each.
// [config]
template <class Tiles>
struct Tf32Config {
  static constexpr int kParts = Tiles::parts;      ///< parts per operand: 1 (TF32) or 2 (hi + lo, v22)
  static constexpr int kStages = Tiles::stages;    ///< k-slices resident in shared memory
  static constexpr int kRows = Tiles::rows;        ///< rows of C per block: wgmma's n (m64n{256,128,64}k8)
  static constexpr bool kPromote = Tiles::promote; ///< per-slice sums added to fp32 registers (v22)
  static constexpr int kCols = 128;    ///< columns of C per block: two consumers x wgmma's m (64)
  static constexpr int kBK = 32;       ///< k-slice: 32 fp32 = 128 bytes, one row of the 128-byte swizzle
  static constexpr int kClusterN = 2;  ///< CTAs per cluster along N: the pair shares A's tile (multicast)
  static constexpr int kBoxCols = 32;                    ///< columns of B per TMA box (128-byte rows)
  static constexpr int kABytes = kRows * kBK * 4;        ///< one stage's A tile (kRows x 32 fp32), per part
  static constexpr int kBoxBytes = kBK * kBoxCols * 4;   ///< one B box (32 k-rows x 32 columns, 4 KiB)
  static constexpr int kBBytes = kBK * kCols * 4;        ///< one stage's B tile (32 x 128 fp32, 16 KiB)
  static constexpr int kStageBytes = kParts * kABytes + kBBytes;  ///< bytes landing in one stage
  static constexpr int kThreads = 3 * 128;               ///< a producer and two consumer warpgroups
  /// The epilogue's staging (TMA stores of C): per consumer two boxes of 64 rows x 32 columns
  /// (its 64 columns of C, 64 rows at a time), 16 KiB.
  static constexpr int kEpiBoxBytes = 64 * 32 * 4;
  static constexpr int kEpiBytes = 2 * 2 * kEpiBoxBytes;  ///< all staging boxes (32 KiB)
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kEpiBytes + 2 * kStages * 8;  ///< dynamic smem
  static_assert(kParts == 1 || kParts == 2, "v21/v22: one part (TF32) or two (hi + lo)");
  static_assert(kStages >= 2, "a ring needs at least two stages");
  static_assert(kRows == 64 || kRows == 128 || kRows == 256, "wgmma n = 64, 128 or 256");
  static_assert(kSmemBytes <= 227 * 1024, "v21: more shared memory than a Hopper block may have");
};
// [config]

/// v21's configuration of the TF32 kernel: the operands as TF32, 256 x 128 tiles, four stages of
/// 48 KiB (v23 runs it for the problems that fill the GPU).
// [v21_config]
struct V21Tiles {
  static constexpr int parts = 1;         ///< one TF32 part per operand
  static constexpr int rows = 256;        ///< 256 x 128 tiles of C: wgmma m64n256k8
  static constexpr int stages = 4;        ///< 4 stages of 48 KiB (A 32, B 16) in the ring
  static constexpr bool promote = false;  ///< the tensor cores accumulate the whole k-loop
};
// [v21_config]

#if GEMM_SM90A
/// Loads one k-slice's register fragments of B^T (the wgmma's A: 64 columns of C x 32 k) from the
/// stage's B tile, where B lies k-row by k-row (N-major). Four k-steps of k = 8, four registers each
/// (mma.sync's m16n8k8 TF32 layout per warp). Warp w reads 16 columns of box `box`: lane (g, t)
/// takes wgmma rows g and g + 8 as columns `col` and `col` + 4, where col spreads the 8 g's over
/// two 16-byte chunks four apart (chunks 0 and 4, 1 and 5, ...), so that with the swizzle's
/// XOR by k % 8 the 32 lanes hit 32 different banks. The same map is used by the epilogue.
// [fragments]
__device__ __forceinline__ void load_bt_fragments(std::uint32_t (&frag)[4][4], const unsigned char* box, int col,
                                                  int t) {
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int kr = 8 * kk + t + 4 * (i / 2), cc = col + 4 * (i % 2);  // k-row and column in the box
      const int chunk = (cc / 4) ^ (kr % 8);                           // the 128-byte swizzle
      frag[kk][i] = *reinterpret_cast<const std::uint32_t*>(box + kr * 128 + chunk * 16 + (cc % 4) * 4);
    }
  }
}
// [fragments]

/// v22: splits each fragment register x (fp32) into two TF32 values, hi = round_to_tf32(x) in
/// f[0] and lo = round_to_tf32(x - hi) in f[1]; x - hi is exact, so hi + lo equals x to about
/// 2^-22 |x| instead of TF32's 2^-11.
// [split]
__device__ __forceinline__ void split_fragments(std::uint32_t (&f)[2][4][4]) {
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float x = __uint_as_float(f[0][kk][i]), hi = round_to_tf32(x);
      f[0][kk][i] = __float_as_uint(hi);
      f[1][kk][i] = __float_as_uint(round_to_tf32(x - hi));
    }
  }
}
// [split]

/// One TF32 wgmma m64nNk8 with A from registers, N = 64, 128 or 256 (the kernel's kRows).
template <int N>
__device__ __forceinline__ void wgmma_tf32(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t desc_b,
                                           int scale_d) {
  if constexpr (N == 256) {
    sm90::wgmma_m64n256k8_tf32_rs(d, a, desc_b, scale_d);
  } else if constexpr (N == 128) {
    sm90::wgmma_m64n128k8_tf32_rs(d, a, desc_b, scale_d);
  } else {
    sm90::wgmma_m64n64k8_tf32_rs(d, a, desc_b, scale_d);
  }
}
#endif

/// The column (0-31) of a B box that wgmma row `r` (0-15 within warp `warp`) of B^T stands for:
/// see load_bt_fragments(). r = g + 8 h; warps 2 j and 2 j + 1 share box j.
__host__ __device__ __forceinline__ int bt_column(int warp, int r) {
  const int g = r % 8, h = r / 8;
  return 16 * (g / 4) + 8 * (warp % 2) + 4 * h + g % 4;
}

/// @brief C = alpha * A B + beta * C with fp32 operands multiplied as TF32 on wgmma (sm_90a; traps
/// elsewhere, where the registry never launches it).
///
/// The structure is v16's (a producer warpgroup issuing TMA into a ring of stages, two consumer
/// warpgroups issuing wgmma, persistent blocks over grouped tiles), with the roles of A and B
/// swapped: wgmma's B operand, read from shared memory, must be K-major for TF32, and only A is
/// (its rows run along k). So each consumer computes a 64 x 256 tile of C^T = B^T A^T: A's tile
/// (256 rows x 32 k, as TMA writes it) is the shared-memory operand, and the 64 x 32 slice of B^T
/// is loaded by the threads into registers (load_bt_fragments()), where the layout is free.
/// Clusters of two CTAs along N share A's tile through TMA multicast (v17's idea, for A), and C
/// leaves through shared memory and TMA stores (v16's), transposed on the way.
///
/// With two parts (v22), A's tile comes with A_lo's (the low TF32 parts, made by a pass before),
/// each register of B^T is split into B_hi and B_lo (split_fragments()), and each k-step issues
/// three wgmma: B_lo A_hi, B_hi A_lo, B_hi A_hi.
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_v21_wgmma_tf32(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_a_lo,
                        const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_c, int m,
                        int n, int k, float alpha, float beta, float* __restrict__ c, int tma_store_c) {
#if GEMM_SM90A
  using namespace sm90;
  constexpr int S = Cfg::kStages, CN = Cfg::kClusterN, P = Cfg::kParts;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // S stages (A | A_lo (v22) | 4 B boxes) | staging boxes | barriers
  unsigned char* epi = smem + S * Cfg::kStageBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(epi + Cfg::kEpiBytes);
  std::uint64_t* empty = full + S;
  const int group = threadIdx.x / 128, lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % CN;  // this CTA's rank in its cluster (1-D clusters)
  // Units: CN horizontally adjacent tiles (one per CTA of a cluster, same rows of A), grouped order.
  const int tiles_m = (m + Cfg::kRows - 1) / Cfg::kRows, tiles_n = (n + Cfg::kCols - 1) / Cfg::kCols;
  const int units_n = (tiles_n + CN - 1) / CN, units = tiles_m * units_n;
  // k-slices per tile, rounded up to an even count (the consumers alternate two sets of
  // registers): a slice past K loads as zeros.
  const int tiles_k = (k + 2 * Cfg::kBK - 1) / (2 * Cfg::kBK) * 2;
  const int first_unit = static_cast<int>(blockIdx.x) / CN, unit_stride = static_cast<int>(gridDim.x) / CN;
  const auto tile_of = [&](int unit) {
    TileIndex u = grouped_tile(unit, tiles_m, units_n, kGroupM);
    u.col = u.col * CN + static_cast<int>(rank);
    return u;
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 1);        // the producer's arrive.expect_tx (and the bytes)
      mbar_init(&empty[s], 8 * CN);  // every consumer warp of every CTA of the cluster
    }
    fence_barrier_init();
  }
  cluster_sync();  // the peer's barriers exist before anyone multicasts into it or arrives on them

  if (group == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      std::uint32_t it = 0;
      for (int unit = first_unit; unit < units; unit += unit_stride) {
        const TileIndex u = tile_of(unit);
        for (int t = 0; t < tiles_k; ++t, ++it) {
          const int s = static_cast<int>(it % S);
          if (it >= S) mbar_wait(&empty[s], (it / S + 1) % 2);
          unsigned char* stage = smem + s * Cfg::kStageBytes;
          mbar_arrive_expect_tx(&full[s], Cfg::kStageBytes);  // all of A (from every CTA) and this CTA's B
          // This CTA's share of A's rows (and of A_lo's, v22), into the same place of every CTA of the cluster.
          const int a_rows = Cfg::kRows / CN, a_row0 = u.row * Cfg::kRows + static_cast<int>(rank) * a_rows;
          tma_load_multicast(stage + rank * (Cfg::kABytes / CN), &map_a, t * Cfg::kBK, a_row0, &full[s], (1u << CN) - 1);
          if constexpr (P == 2) {
            tma_load_multicast(stage + Cfg::kABytes + rank * (Cfg::kABytes / CN), &map_a_lo, t * Cfg::kBK, a_row0,
                               &full[s], (1u << CN) - 1);
          }
#pragma unroll
          for (int j = 0; j < Cfg::kCols / Cfg::kBoxCols; ++j) {
            tma_load(stage + P * Cfg::kABytes + j * Cfg::kBoxBytes, &map_b, u.col * Cfg::kCols + j * Cfg::kBoxCols,
                     t * Cfg::kBK, &full[s]);
          }
        }
      }
    }
    __syncwarp();
  } else {
    setmaxnreg_inc<232>();
    const int consumer = group - 1, warp = threadIdx.x / 32 % 4, g = lane / 4, t4 = lane % 4;
    const int box = 2 * consumer + warp / 2;  // the B box holding this warp's 16 columns
    const int frag_col = bt_column(warp, g);  // the column of its wgmma row g (row g + 8: + 4)
    constexpr int R = Cfg::kRows;
    float acc[R / 2];  // the tensor cores' accumulators (a 64 x R tile of C^T)
    // v22: the tile's sum in fp32 registers, where each slice's acc is added (v21: unused).
    float sum[Cfg::kPromote ? R / 2 : 1];
    // Two slices' B^T fragments (P parts each: B, or v22's B_hi and B_lo): running wgmma read one
    // set while the other loads. v22 waits for each slice, and uses one set.
    std::uint32_t frag[2][P][4][4];
    std::uint32_t it = 0;
    // Releases slice `i`'s stage: this warp is done with it, on every CTA of the cluster.
    const auto release = [&](std::uint32_t i) {
      if (lane == 0) {
        mbar_arrive(&empty[i % S]);
        for (unsigned r = 1; r < CN; ++r) mbar_arrive_cluster(&empty[i % S], (rank + r) % CN);
      }
    };
    for (int unit = first_unit; unit < units; unit += unit_stride) {
      const TileIndex u = tile_of(unit);
// [consumer]
      // Issues slice `it`'s wgmma on fragments `cur` (loaded here): v21 one per k-step, v22 three,
      // the small products (B_lo A_hi, B_hi A_lo) first. `first`: overwrite acc instead of adding.
      const auto issue = [&](std::uint32_t(&cur)[P][4][4], bool first) {
        const int s = static_cast<int>(it % S);
        mbar_wait(&full[s], (it / S) % 2);
        const unsigned char* stage = smem + s * Cfg::kStageBytes;
        load_bt_fragments(cur[0], stage + P * Cfg::kABytes + box * Cfg::kBoxBytes, frag_col, t4);
        if constexpr (P == 2) split_fragments(cur);
        // 8 k = 32 bytes further in each row of A's tile (part 1: A_lo's) per k-step
        const auto desc = [&](int part, int kk) { return smem_desc(stage + part * Cfg::kABytes + kk * 32, 16, 1024); };
        wgmma_fence();
        if constexpr (P == 2) {
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) wgmma_tf32<R>(acc, cur[1][kk], desc(0, kk), (first && kk == 0) ? 0 : 1);
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) wgmma_tf32<R>(acc, cur[0][kk], desc(1, kk), 1);
        }
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) wgmma_tf32<R>(acc, cur[0][kk], desc(0, kk), (P == 1 && first && kk == 0) ? 0 : 1);
        wgmma_commit();
      };
      if constexpr (!Cfg::kPromote) {
        // v21: wait until only this slice's wgmma run: the previous slice's, which read `prev`,
        // are done, so its stage is released and `prev` may be overwritten by the next slice.
        const auto slice = [&](int t, std::uint32_t(&cur)[P][4][4], std::uint32_t(&prev)[P][4][4]) {
          issue(cur, t == 0);
          wgmma_wait<1>();
#pragma unroll
          for (int p = 0; p < P; ++p)
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) keep_in_registers(prev[p][kk]);  // live until its wgmma are done
          if (t > 0) release(it - 1);
          ++it;
        };
        // Two slices per iteration, unconditionally: with a branch between them ptxas cannot tell
        // the two sets apart and serializes every wgmma.
        for (int t = 0; t < tiles_k; t += 2) {
          slice(t, frag[0], frag[1]);
          slice(t + 1, frag[1], frag[0]);
        }
        wgmma_wait<0>();
        release(it - 1);
        keep_in_registers(acc);
      } else {
        // v22: the tensor cores sum one slice (12 products per element), the threads add that to
        // `sum` in fp32 with round-to-nearest. Left to the tensor cores, the whole k-loop's sum
        // erred 25x more than FFMA's at K = 4096 (measured): their additions do not round to nearest.
#pragma unroll
        for (int i = 0; i < R / 2; ++i) sum[i] = 0.0f;
        for (int t = 0; t < tiles_k; ++t, ++it) {
          issue(frag[0], true);
          wgmma_wait<0>();
          keep_in_registers(acc);
#pragma unroll
          for (int p = 0; p < P; ++p)
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) keep_in_registers(frag[0][p][kk]);
          release(it);
#pragma unroll
          for (int i = 0; i < R / 2; ++i) sum[i] += acc[i];
        }
      }
// [consumer]
      const auto result = [&](int i) {  // the tile's accumulators: acc (v21) or sum (v22)
        if constexpr (Cfg::kPromote) {
          return sum[i];
        } else {
          return acc[i];
        }
      };
// [epilogue]
      // result holds C^T: wgmma row 16 w + g + 8 h is C's column bt_column(w, g + 8 h) of box
      // `box`, wgmma column 8 j + 2 t + e is C's row 8 j + 2 t + e of the tile.
      const auto value = [&](int j, int h, int e, int row, int col) {
        float v = alpha * result(4 * j + 2 * h + e);
        if (beta != 0.0f && row < m && col < n) v = fmaf(beta, c[static_cast<std::int64_t>(row) * n + col], v);
        return v;  // C is read only when beta != 0, and only inside C
      };
      const int col0 = u.col * Cfg::kCols + box * Cfg::kBoxCols;  // this warp's box of 32 columns
      if (tma_store_c) {
        // Through shared memory: 64 rows at a time, each warp pair filling its box (64 x 32,
        // 128-byte swizzle) transposed, one thread storing both boxes with TMA.
        unsigned char* staging = epi + consumer * 2 * Cfg::kEpiBoxBytes + (warp / 2) * Cfg::kEpiBoxBytes;
        const bool leader = threadIdx.x % 128 == 0;
#pragma unroll
        for (int rb = 0; rb < R / 64; ++rb) {
          if (leader) bulk_wait_read<0>();        // the last stores have read the staging boxes ...
          named_barrier_sync(1 + consumer, 128);  // ... and the whole warpgroup knows it
#pragma unroll
          for (int jj = 0; jj < 8; ++jj) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int r = 8 * jj + 2 * t4 + e, cc = bt_column(warp, g + 8 * h);  // row, column in the box
                const float v = value(8 * rb + jj, h, e, u.row * Cfg::kRows + 64 * rb + r, col0 + cc);
                *reinterpret_cast<float*>(staging + r * 128 + ((cc / 4) ^ (r % 8)) * 16 + (cc % 4) * 4) = v;
              }
            }
          }
          fence_proxy_async();                    // the writes, visible to the TMA unit ...
          named_barrier_sync(1 + consumer, 128);  // ... everyone's
          if (leader) {
            for (int q = 0; q < 2; ++q) {
              tma_store(&map_c, u.col * Cfg::kCols + (2 * consumer + q) * Cfg::kBoxCols, u.row * Cfg::kRows + 64 * rb,
                        epi + (2 * consumer + q) * Cfg::kEpiBoxBytes);
            }
            bulk_commit();
          }
        }
      } else {
        // C's rows not 16-byte aligned: straight from the registers, one element at a time.
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int col = col0 + bt_column(warp, g + 8 * h);
          if (col >= n) continue;
#pragma unroll
          for (int j = 0; j < R / 8; ++j) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int row = u.row * Cfg::kRows + 8 * j + 2 * t4 + e;
              if (row < m) c[static_cast<std::int64_t>(row) * n + col] = value(j, h, e, row, col);
            }
          }
        }
      }
// [epilogue]
    }
    if (tma_store_c && threadIdx.x % 128 == 0) bulk_wait_all();  // the staging boxes outlive their stores
  }
  cluster_sync();  // neither CTA leaves while the other may still multicast into it or arrive on it
#else
  (void)map_a, (void)map_a_lo, (void)map_b, (void)map_c, (void)m, (void)n, (void)k, (void)alpha, (void)beta, (void)c;
  (void)tma_store_c;
  __trap();  // wgmma needs sm_90a; hopper_unavailable() keeps the runner from launching this
#endif
}
// [kernel]

/// The tensor maps the TF32 kernel reads: A (boxes of kRows / kClusterN rows x 32 k), A_lo
/// (v22; A's again for v21) and B (boxes of 32 k-rows x 32 columns).
struct Tf32Maps {
  CUtensorMap a;     ///< A (v22: A's high parts), m x k
  CUtensorMap a_lo;  ///< v22: A's low parts, m x k (v21: unused)
  CUtensorMap b;     ///< B, k x n
};

/// Launches the TF32 kernel with configuration Tf32Config<Tiles> on `maps`: clusters of two CTAs,
/// persistent (as many clusters as the GPU holds at once, never more than there are units). C is
/// stored through TMA when its rows are 16-byte aligned, else from the registers.
// [launch_kernel]
template <class Tiles>
void launch_tf32_kernel(const Tf32Maps& maps, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta,
                        float* c, cudaStream_t stream) {
  using Cfg = Tf32Config<Tiles>;
  const std::int64_t units =
      (m + Cfg::kRows - 1) / Cfg::kRows * (((n + Cfg::kCols - 1) / Cfg::kCols + Cfg::kClusterN - 1) / Cfg::kClusterN);
  if (units * Cfg::kClusterN > INT_MAX) throw std::invalid_argument("gemm v21-v23: too many block tiles for a 1-D grid");
  const auto kernel = gemm_v21_wgmma_tf32<Cfg>;
  tut::allow_dynamic_smem(kernel, Cfg::kSmemBytes);
  CUtensorMap map_c{};  // C through TMA stores when its rows are 16-byte aligned
  int tma_store_c = 0;
  if (n % 4 == 0 && aligned16(c)) {
    map_c = sm90::make_tensor_map(c, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, m, n, n, 64, 32);
    tma_store_c = 1;
  }
  // Persistent: as many clusters as the GPU holds at once, never more than there are units.
  static const int resident = [kernel] {
    const sm90::ClusterLaunch probe(sm_count(), Cfg::kClusterN, Cfg::kThreads, Cfg::kSmemBytes, nullptr);
    int count = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, kernel, &probe.config));
    return std::max(1, count);
  }();
  const sm90::ClusterLaunch launch(std::min<std::int64_t>(units, resident), Cfg::kClusterN, Cfg::kThreads,
                                   Cfg::kSmemBytes, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, maps.a, maps.a_lo, maps.b, map_c, static_cast<int>(m),
                                static_cast<int>(n), static_cast<int>(k), alpha, beta, c, tma_store_c));
}
// [launch_kernel]

/// The tensor maps of the TF32 kernel with configuration Tf32Config<Tiles>: A (and A_lo, v22; v21
/// and v23 pass A again) with `lda` elements per row, boxes of kRows / kClusterN rows x 32 k; B with
/// `ldb`, boxes of 32 k-rows x 32 columns. The rows must be TMA-ready (sm90::tma_operands()).
template <class Tiles>
Tf32Maps tf32_maps(const float* a, const float* a_lo, std::int64_t lda, const float* b, std::int64_t ldb,
                   std::int64_t m, std::int64_t n, std::int64_t k) {
  using Cfg = Tf32Config<Tiles>;
  const auto map_a = [&](const float* p) {
    return sm90::make_tensor_map(p, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, m, k, lda, Cfg::kRows / Cfg::kClusterN,
                                 Cfg::kBK);
  };
  return {map_a(a), map_a(a_lo),
          sm90::make_tensor_map(b, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, k, n, ldb, Cfg::kBK, Cfg::kBoxCols)};
}

/// v21's and v23's launch with the tiles `Tiles`: nothing for an empty C, C = beta C for K = 0 (as
/// v10 does it: no k-slice, no tensor map of a zero-wide matrix), else the operands made TMA-ready,
/// their tensor maps and the kernel.
// [launch_tf32]
template <class Tiles>
void launch_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                 float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (k == 0) {
    launch_gemm_v10_wmma_tf32(m, n, k, alpha, a, b, beta, c, stream);
    return;
  }
  const sm90::TmaOperandsOf<float> ops = sm90::tma_operands(m, n, k, a, k, b, n, stream);
  launch_tf32_kernel<Tiles>(tf32_maps<Tiles>(ops.a, ops.a, ops.lda, ops.b, ops.ldb, m, n, k), m, n, k, alpha, beta, c,
                            stream);
}
// [launch_tf32]

}  // namespace gemm
