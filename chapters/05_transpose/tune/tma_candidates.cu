/// @file
/// @brief The tuning search's TMA candidates (tune::M0 .. M30): v08's kernel generalized (tma_tiles.cuh) to larger
/// boxes, deeper load pipelines, a fixed number of tiles per block (instead of one persistent
/// wave) and the banded tile order. sm_90 only; reported as skipped elsewhere (tma_unavailable()).
#include <string>
#include <vector>

#include "tma_tiles.cuh"
#include "transpose.hpp"
#include "tune/tune.hpp"

namespace transpose {

namespace {

/// "tma64x64_s4_k8_g8": box, stages, tiles per block (p = persistent wave), order; "_t256" when
/// the block does not have 128 threads; "_l2p256" when loads are not widened to 128-byte L2 requests;
/// "_efl" / "_efls" with evict-first hints on the loads / on the loads and stores.
template <class Tile>
std::string tma_name() {
  using Cfg = TmaTileConfig<Tile>;
  return "tma" + std::to_string(Cfg::kBoxRows) + "x" + std::to_string(Cfg::kBoxCols) + "_s" +
         std::to_string(Cfg::kStages) + "_" +
         (Cfg::kTilesPerBlock == 0 ? std::string("p") : "k" + std::to_string(Cfg::kTilesPerBlock)) + "_" +
         order_name(Cfg::kBand) + (Cfg::kThreads == 128 ? std::string() : "_t" + std::to_string(Cfg::kThreads)) +
         (Cfg::kL2Promotion == 128 ? std::string() : "_l2p" + std::to_string(Cfg::kL2Promotion)) +
         (Cfg::kEvictFirst == 0 ? std::string() : Cfg::kEvictFirst == 1 ? "_efl" : "_efls");
}

/// The TMA configuration `Tile` as a registry entry.
template <class Tile>
Version tma_candidate() {
  return {{tma_name<Tile>(), "TMA: " + tma_summary<Tile>(), 90, tut::Kind::ours},
          Output::transposed,
          launch_transpose_tma_tiles<Tile>,
          tma_unavailable};
}

}  // namespace

/// The TMA configurations the search times, each restating only the TmaTile fields it changes.
// [tma_candidates]
namespace tune {
/// v08 with 64 x 64 boxes: 4x the bytes per TMA request (the TmaTile defaults).
struct M0 : TmaTile {};
/// M0 with 4 load stages: 3 boxes (48 KiB) requested ahead per block.
struct M1 : M0 {
  static constexpr int stages = 4;  ///< 4 load stages
};
/// M1 with 8 tiles per block instead of one persistent wave (the block scheduler balances the SMs).
struct M2 : M1 {
  static constexpr int tiles_per_block = 8;  ///< 8 tiles per block
};
/// M2 in bands of 8 tile rows.
struct M3 : M2 {
  static constexpr unsigned order = 8;  ///< bands of 8 tile rows
};
/// M3 with 32 x 128 boxes: 512-byte runs of A rows, 128-byte runs of B rows.
struct M4 : M3 {
  static constexpr int box_rows = 32;   ///< box rows 32
  static constexpr int box_cols = 128;  ///< box columns 128
};
/// Second round, around M2: 256 threads for the shared-memory transposition of each box.
struct M5 : M2 {
  static constexpr int threads = 256;  ///< 256 threads per block
};
/// M2 with 16 tiles per block (fewer blocks, each pipeline runs longer).
struct M6 : M2 {
  static constexpr int tiles_per_block = 16;  ///< 16 tiles per block
};
/// M2 with 4 tiles per block (more blocks, shorter pipelines).
struct M7 : M2 {
  static constexpr int tiles_per_block = 4;  ///< 4 tiles per block
};
/// M2 with 3 load stages (less shared memory per block: more blocks per SM).
struct M8 : M2 {
  static constexpr int stages = 3;  ///< 3 load stages
};
/// Third round (H100), around M7 (what v10 first ran): loads widened to 256-byte L2 requests.
struct M9 : M7 {
  static constexpr unsigned l2_promotion = 256;  ///< 256-byte L2 requests
};
/// M7 without L2 promotion (each load asks L2 for exactly its bytes).
struct M10 : M7 {
  static constexpr unsigned l2_promotion = 0;  ///< no L2 promotion
};
/// M7 in bands of 8 tile rows.
struct M11 : M7 {
  static constexpr unsigned order = 8;  ///< bands of 8 tile rows
};
/// M7 in bands of 32 tile rows.
struct M12 : M7 {
  static constexpr unsigned order = 32;  ///< bands of 32 tile rows
};
/// M7 in column-major tile order (B rows written in long runs).
struct M13 : M7 {
  static constexpr unsigned order = kColMajor;  ///< column-major tile order
};
/// M7 with 2 tiles per block.
struct M14 : M7 {
  static constexpr int tiles_per_block = 2;  ///< 2 tiles per block
};
/// 6 load stages, 8 tiles per block: 80 KiB requested ahead, one block per SM.
struct M15 : M2 {
  static constexpr int stages = 6;  ///< 6 load stages
};
/// 64 x 128 boxes (32 KiB), 3 stages, 256 threads: one block per SM, 64 KiB requested ahead.
struct M16 : M7 {
  static constexpr int box_cols = 128;  ///< box columns 128
  static constexpr int stages = 3;      ///< 3 load stages
  static constexpr int threads = 256;   ///< 256 threads per block
};
/// 32 x 64 boxes (8 KiB), 6 stages, 8 tiles per block: three blocks per SM.
struct M17 : M2 {
  static constexpr int box_rows = 32;  ///< box rows 32
  static constexpr int stages = 6;     ///< 6 load stages
};
/// Fourth round (H100), after M14 (2 tiles per block) won the third: blocks of 2 tiles with 2
/// stages (both loads issued at once; 64 KiB, three blocks per SM).
struct M18 : M0 {
  static constexpr int tiles_per_block = 2;  ///< 2 tiles per block
};
/// One tile per block: no pipeline inside a block, 32 KiB, six blocks per SM.
struct M19 : M0 {
  static constexpr int tiles_per_block = 1;  ///< 1 tile per block
};
/// M19 with 256 threads for the shared-memory transposition.
struct M20 : M19 {
  static constexpr int threads = 256;  ///< 256 threads per block
};
/// 3 tiles per block, 3 stages: 80 KiB, two blocks per SM.
struct M21 : M0 {
  static constexpr int stages = 3;           ///< 3 load stages
  static constexpr int tiles_per_block = 3;  ///< 3 tiles per block
};
/// M18 with 256 threads.
struct M22 : M18 {
  static constexpr int threads = 256;  ///< 256 threads per block
};
/// One 64 x 128 tile (32 KiB box) per block, 256 threads: 64 KiB, three blocks per SM.
struct M23 : M20 {
  static constexpr int box_cols = 128;  ///< box columns 128
};
/// One 128 x 64 tile per block, 256 threads.
struct M24 : M20 {
  static constexpr int box_rows = 128;  ///< box rows 128
};
/// M19 in column-major tile order (what v10 runs: V10Tiles in v10_tma_tuned.cu).
struct M25 : M19 {
  static constexpr unsigned order = kColMajor;  ///< column-major tile order
};
/// Fifth round (H100): L2 evict-first hints. M20 with evict-first loads of A.
struct M26 : M20 {
  static constexpr int evict_first = 1;  ///< evict-first loads
};
/// M20 with evict-first loads and stores.
struct M27 : M20 {
  static constexpr int evict_first = 2;  ///< evict-first loads and stores
};
/// M7 with evict-first loads.
struct M28 : M7 {
  static constexpr int evict_first = 1;  ///< evict-first loads
};
/// M7 with evict-first loads and stores.
struct M29 : M7 {
  static constexpr int evict_first = 2;  ///< evict-first loads and stores
};
/// M18 with evict-first loads and stores.
struct M30 : M18 {
  static constexpr int evict_first = 2;  ///< evict-first loads and stores
};
}  // namespace tune
// [tma_candidates]

const std::vector<Version>& tune_tma_candidates() {
  static const std::vector<Version> list = {
      tma_candidate<tune::M0>(), tma_candidate<tune::M1>(), tma_candidate<tune::M2>(),
      tma_candidate<tune::M3>(), tma_candidate<tune::M4>(), tma_candidate<tune::M5>(),
      tma_candidate<tune::M6>(), tma_candidate<tune::M7>(), tma_candidate<tune::M8>(),
      tma_candidate<tune::M9>(), tma_candidate<tune::M10>(), tma_candidate<tune::M11>(),
      tma_candidate<tune::M12>(), tma_candidate<tune::M13>(), tma_candidate<tune::M14>(),
      tma_candidate<tune::M15>(), tma_candidate<tune::M16>(), tma_candidate<tune::M17>(),
      tma_candidate<tune::M18>(), tma_candidate<tune::M19>(), tma_candidate<tune::M20>(),
      tma_candidate<tune::M21>(), tma_candidate<tune::M22>(), tma_candidate<tune::M23>(),
      tma_candidate<tune::M24>(), tma_candidate<tune::M25>(), tma_candidate<tune::M26>(),
      tma_candidate<tune::M27>(), tma_candidate<tune::M28>(), tma_candidate<tune::M29>(),
      tma_candidate<tune::M30>(),
  };
  return list;
}

}  // namespace transpose
