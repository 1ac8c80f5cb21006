/// @file
/// @brief The TMA transpose as one template kernel over a named configuration (TmaTile: box shape,
/// load stages, threads, tiles per block, tile order, cache hints): v10 runs one configuration,
/// the tuning search (tune/, `transpose_tune`) times several.
/// sm_90 only; v08 is its first, fixed form (32 x 32 boxes, 2 stages, one persistent wave).
#pragma once

#include <cstdint>
#include <string>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "tiles.cuh"
#include "tma.cuh"
#include "transpose.hpp"
#include "wide_tiles.cuh"  // order_summary()

namespace transpose {

/// @brief The fields of a TMA configuration, named, with defaults: 64 x 64 boxes, 2 load stages,
/// 128 threads, one persistent wave of blocks, row-major tile order, 128-byte L2 promotion, no
/// cache hints (the search's first candidate, M0: v08 with 4x the box).
///
/// A configuration is a struct derived from TmaTile that restates only the fields it changes,
/// e.g. v10's (v10_tma_tuned.cu) or the search's candidates (tune/tma_candidates.cu). The kernel
/// reads it through TmaTileConfig<Tile>, which adds what follows from the fields.
/// tiles_per_block = 0: one persistent wave of blocks, block b takes tiles b, b + grid, ...
/// (v08's scheme); otherwise block b takes tiles_per_block consecutive tiles (in tile order)
/// and the block scheduler hands out blocks as SMs free up.
struct TmaTile {
  static constexpr int box_rows = 64;              ///< box rows (rows of A)
  static constexpr int box_cols = 64;              ///< box columns (columns of A)
  static constexpr int stages = 2;                 ///< A boxes in shared memory: stages - 1 loads ahead
  static constexpr int threads = 128;              ///< threads per block
  static constexpr int tiles_per_block = 0;        ///< 0: persistent grid of one wave
  static constexpr unsigned order = kRowMajor;     ///< tile order (tile_banded())
  static constexpr unsigned l2_promotion = 128;    ///< bytes per L2 request of a load (make_map())
  /// L2 evict-first hints: 0 none, 1 on the loads of A, 2 on the loads and on the stores of B.
  static constexpr int evict_first = 0;
};

/// @brief A TMA configuration as the kernel reads it: the fields of `Tile` (a TmaTile) and what
/// follows from them (compile-time).
///
/// Shared memory: kStages boxes of A (load pipeline) and 2 boxes of B (store double buffer); a
/// block with fewer tiles than that gets only the boxes it uses.
template <class Tile>
struct TmaTileConfig {
  static constexpr int kBoxRows = Tile::box_rows;                ///< box rows (rows of A)
  static constexpr int kBoxCols = Tile::box_cols;                ///< box columns (columns of A)
  static constexpr int kStages = Tile::stages;                   ///< A boxes in shared memory: kStages - 1 loads ahead
  static constexpr int kThreads = Tile::threads;                 ///< threads per block
  static constexpr int kTilesPerBlock = Tile::tiles_per_block;   ///< 0: persistent grid of one wave
  static constexpr unsigned kBand = Tile::order;                 ///< tile order (tile_banded())
  static constexpr unsigned kL2Promotion = Tile::l2_promotion;   ///< bytes per L2 request of a load (make_map())
  /// L2 evict-first hints: 0 none, 1 on the loads of A, 2 on the loads and on the stores of B.
  static constexpr int kEvictFirst = Tile::evict_first;
  static constexpr int kBoxElems = kBoxRows * kBoxCols;  ///< floats per box
  static constexpr unsigned kBoxBytes = sizeof(float) * kBoxElems;  ///< bytes each TMA load delivers
  /// A boxes a block uses: kStages, or fewer when it has fewer tiles than stages.
  static constexpr int kABoxes = kTilesPerBlock > 0 && kTilesPerBlock < kStages ? kTilesPerBlock : kStages;
  /// B boxes a block uses: 2 (the store double buffer), 1 for a block of one tile.
  static constexpr int kBBoxes = kTilesPerBlock == 1 ? 1 : 2;
  /// Dynamic shared memory: the A and B boxes, plus 128 bytes to align the first to 128.
  static constexpr std::size_t kSmemBytes = (kABoxes + kBBoxes) * static_cast<std::size_t>(kBoxBytes) + 128;

  static_assert(kBoxRows % 32 == 0 && kBoxCols % 32 == 0 && kBoxRows <= 256 && kBoxCols <= 256,
                "boxes of whole 32 x 32 blocks, at most 256 per dimension (a TMA limit)");
  static_assert(kStages >= 2, "at least one load in flight while a box is transposed");
  static_assert(kThreads % 32 == 0 && (kBoxRows / 32) * (kBoxCols / 32) * 32 % (kThreads / 32) == 0,
                "the warps share the diagonals of the box evenly");
};

/// @brief B = A^T with TMA boxes of Cfg::kBoxRows x Cfg::kBoxCols and a Cfg::kStages-deep load
/// pipeline (v08's kernel, generalized).
///
/// The block's k-th tile goes to A stage k % S (its mbarrier's phase k / S, parity (k / S) & 1)
/// and B buffer k % 2. Per tile, as in v08: thread 0 issues the load of tile k + S - 1 into the
/// stage tile k - 1 used (its reads ended before the last barrier) and waits until the store
/// of tile k - 2 has read B buffer k % 2; everyone waits for tile k's bytes, transposes the box
/// along wrapped diagonals of its 32 x 32 blocks (conflict-free: reads hit banks (lane + d) %
/// 32, writes bank lane), fences the async proxy, syncs; thread 0 stores the B box. The waits
/// trap after seconds instead of hanging (a search run must never hang).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    transpose_tma_tiles(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                        unsigned tiles_r, unsigned tiles_c) {
#if TUT_SM90
  constexpr int S = Cfg::kStages, kBR = Cfg::kBoxRows, kBC = Cfg::kBoxCols, kElems = Cfg::kBoxElems;
  extern __shared__ unsigned char tma_smem[];
  __shared__ __align__(8) std::uint64_t bar[S];
  const unsigned pad = (128u - sm90::shared_u32(tma_smem) % 128u) % 128u;  // TMA boxes start at 128-byte boundaries
  float* sa = reinterpret_cast<float*>(tma_smem + pad);  // S boxes of A: [kBR][kBC]
  float* sb = sa + Cfg::kABoxes * kElems;                // kBBoxes boxes of B: [kBC][kBR]
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const unsigned tiles = tiles_r * tiles_c;

  // This block's tiles, as positions in tile order: first, first + step, ... (count of them).
  unsigned first = blockIdx.x, step = gridDim.x, count = 0;
  if (Cfg::kTilesPerBlock > 0) {
    first = blockIdx.x * static_cast<unsigned>(Cfg::kTilesPerBlock);
    step = 1;
    count = first < tiles ? min(static_cast<unsigned>(Cfg::kTilesPerBlock), tiles - first) : 0u;
  } else {
    count = first < tiles ? (tiles - first + step - 1) / step : 0u;
  }

  if (tid == 0) {
    for (int s = 0; s < S; ++s) sm90::mbar_init(&bar[s], 1);
    sm90::fence_proxy_async();  // the initialized barriers, visible to the TMA unit
  }
  __syncthreads();

  const auto issue_load = [&](unsigned k) {  // thread 0 only: the block's k-th tile into stage k % S
    const TileCoord t = tile_banded(first + k * step, tiles_r, tiles_c, Cfg::kBand);
    const unsigned s = k % S;
    sm90::mbar_arrive_expect_tx(&bar[s], Cfg::kBoxBytes);
    if (Cfg::kEvictFirst >= 1) {
      tma_load_hint(sa + s * kElems, &map_a, static_cast<int>(t.col * kBC), static_cast<int>(t.row * kBR), &bar[s],
                       l2_evict_first_policy());
    } else {
      sm90::tma_load(sa + s * kElems, &map_a, static_cast<int>(t.col * kBC), static_cast<int>(t.row * kBR), &bar[s]);
    }
  };
  if (tid == 0) {
    for (unsigned k = 0; k + 1 < static_cast<unsigned>(S) && k < count; ++k) issue_load(k);  // S - 1 loads ahead
  }

  for (unsigned k = 0; k < count; ++k) {
    const unsigned s = k % S, o = k % 2;
    if (tid == 0) {
      if (k + S - 1 < count) issue_load(k + S - 1);  // into stage (k - 1) % S, free since the last barrier
      sm90::bulk_wait_read<1>();                     // the store of tile k - 2 has read sb[o]
    }
    sm90::mbar_wait(&bar[s], (k / S) & 1u);  // tile k is in sa[s]
    __syncthreads();

    const float* a = sa + s * kElems;
    float* b = sb + o * kElems;
    constexpr int kBlocksC = kBC / 32, kWarps = Cfg::kThreads / 32;
    constexpr int kSteps = (kBR / 32) * kBlocksC * 32 / kWarps;  // diagonals per warp
#pragma unroll 8
    for (int i = 0; i < kSteps; ++i) {
      const int u = warp + i * kWarps, blk = u / 32, d = u % 32;  // 32 x 32 block, diagonal
      const int r = 32 * (blk / kBlocksC) + lane, c = 32 * (blk % kBlocksC) + (lane + d) % 32;
      b[c * kBR + r] = a[r * kBC + c];  // banks: read (lane + d) % 32, write lane
    }
    sm90::fence_proxy_async();
    __syncthreads();

    if (tid == 0) {
      const TileCoord t = tile_banded(first + k * step, tiles_r, tiles_c, Cfg::kBand);
      if (Cfg::kEvictFirst >= 2) {
        tma_store_hint(&map_b, static_cast<int>(t.row * kBR), static_cast<int>(t.col * kBC), b, l2_evict_first_policy());
      } else {
        sm90::tma_store(&map_b, static_cast<int>(t.row * kBR), static_cast<int>(t.col * kBC), b);
      }
      sm90::bulk_commit();
    }
  }
  if (tid == 0) sm90::bulk_wait_all();
#else
  // Compiled for a GPU without TMA: never launched (the registry checks tma_unavailable()).
  (void)map_a;
  (void)map_b;
  (void)tiles_r;
  (void)tiles_c;
  __trap();
#endif
}

/// @brief Runs transpose_tma_tiles with the configuration `Tile` (a TmaTile) on any R x C >= 1
/// (sm_90). Shapes the tensor maps cannot describe (R or C not a multiple of 4, misaligned
/// pointers) run v04's kernel, as v08 does.
template <class Tile>
void launch_transpose_tma_tiles(const float* A, float* B, std::int64_t R, std::int64_t C, cudaStream_t stream) {
  using Cfg = TmaTileConfig<Tile>;
  if (R <= 0 || C <= 0) return;
  if (!vector_path(A, B, R, C)) {
    launch_transpose_v04_tile_32x8(A, B, R, C, stream);
    return;
  }
  if (encode_tiled() == nullptr) throw tut::CudaError("TMA candidate: cuTensorMapEncodeTiled is not available");
  const CUtensorMap map_a = make_map(A, R, C, Cfg::kBoxRows, Cfg::kBoxCols, Cfg::kL2Promotion);  // A: R rows of C
  const CUtensorMap map_b = make_map(B, C, R, Cfg::kBoxCols, Cfg::kBoxRows, Cfg::kL2Promotion);  // B: C rows of R
  const std::int64_t tiles_r = ceil_div(R, Cfg::kBoxRows), tiles_c = ceil_div(C, Cfg::kBoxCols);
  const std::int64_t tiles = tut::blocks_for(tiles_r * tiles_c, 1);  // throws past 2^31 - 1 tiles
  const void* kernel = reinterpret_cast<const void*>(transpose_tma_tiles<Cfg>);
  tut::allow_dynamic_smem(kernel, Cfg::kSmemBytes);
  std::int64_t blocks = 0;
  if (Cfg::kTilesPerBlock == 0) {
    const std::int64_t wave = tut::full_wave_blocks_of(kernel, Cfg::kThreads, Cfg::kSmemBytes);
    blocks = tiles < wave ? tiles : wave;
  } else {
    blocks = ceil_div(tiles, Cfg::kTilesPerBlock);
  }
  transpose_tma_tiles<Cfg><<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      map_a, map_b, static_cast<unsigned>(tiles_r), static_cast<unsigned>(tiles_c));
  CUDA_CHECK_LAUNCH();
}

/// One line on a TMA configuration (a TmaTile): boxes, stages, tiles per block, order, shared memory.
template <class Tile>
std::string tma_summary() {
  using Cfg = TmaTileConfig<Tile>;
  const std::string blocks = Cfg::kTilesPerBlock == 0 ? std::string("one persistent wave of blocks")
                                                      : std::to_string(Cfg::kTilesPerBlock) + " tiles per block";
  return std::to_string(Cfg::kBoxRows) + "x" + std::to_string(Cfg::kBoxCols) + " boxes, " +
         std::to_string(Cfg::kStages) + " load stages, " + blocks + ", " + order_summary(Cfg::kBand) + ", " +
         (Cfg::kEvictFirst == 0   ? std::string()
          : Cfg::kEvictFirst == 1 ? std::string("evict-first loads, ")
                                  : std::string("evict-first loads and stores, ")) +
         std::to_string(Cfg::kSmemBytes / 1024) + " KiB smem";
}

}  // namespace transpose
