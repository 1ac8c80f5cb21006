/// @file
/// @brief The tuning search's TMA candidates: v8's kernel generalized (tma_tiles.cuh) to larger
/// boxes, deeper load pipelines, a fixed number of tiles per block (instead of one persistent
/// wave) and the banded tile order. sm_90 only; reported as skipped elsewhere (tma_unavailable()).
#include <string>
#include <vector>

#include "tma_tiles.cuh"
#include "transpose.hpp"
#include "tune.hpp"

namespace transpose {

namespace {

template <class Cfg>
Version tma_candidate() {
  return {{tma_name<Cfg>(), "TMA: " + tma_summary<Cfg>(), 90, tut::Kind::ours},
          Output::transposed,
          launch_transpose_tma_tiles<Cfg>,
          tma_unavailable};
}

}  // namespace

/// The TMA configurations the search times.
// [tma_candidates]
namespace tune {
/// v8 with 64 x 64 boxes: 4x the bytes per TMA request.
using M0 = TmaConfig<64, 64, 2, 128, 0, kRowMajor>;
/// M0 with 4 load stages: 3 boxes (48 KiB) requested ahead per block.
using M1 = TmaConfig<64, 64, 4, 128, 0, kRowMajor>;
/// M1 with 8 tiles per block instead of one persistent wave (the block scheduler balances the SMs).
using M2 = TmaConfig<64, 64, 4, 128, 8, kRowMajor>;
/// M2 in bands of 8 tile rows.
using M3 = TmaConfig<64, 64, 4, 128, 8, 8>;
/// M3 with 32 x 128 boxes: 512-byte runs of A rows, 128-byte runs of B rows.
using M4 = TmaConfig<32, 128, 4, 128, 8, 8>;
/// Second round, around M2: 256 threads for the shared-memory transposition of each box.
using M5 = TmaConfig<64, 64, 4, 256, 8, kRowMajor>;
/// M2 with 16 tiles per block (fewer blocks, each pipeline runs longer).
using M6 = TmaConfig<64, 64, 4, 128, 16, kRowMajor>;
/// M2 with 4 tiles per block (more blocks, shorter pipelines).
using M7 = TmaConfig<64, 64, 4, 128, 4, kRowMajor>;
/// M2 with 3 load stages (less shared memory per block: more blocks per SM).
using M8 = TmaConfig<64, 64, 3, 128, 8, kRowMajor>;
/// Third round (H100), around M7 (what v10 runs): loads widened to 256-byte L2 requests.
using M9 = TmaConfig<64, 64, 4, 128, 4, kRowMajor, 256>;
/// M7 without L2 promotion (each load asks L2 for exactly its bytes).
using M10 = TmaConfig<64, 64, 4, 128, 4, kRowMajor, 0>;
/// M7 in bands of 8 tile rows.
using M11 = TmaConfig<64, 64, 4, 128, 4, 8>;
/// M7 in bands of 32 tile rows.
using M12 = TmaConfig<64, 64, 4, 128, 4, 32>;
/// M7 in column-major tile order (B rows written in long runs).
using M13 = TmaConfig<64, 64, 4, 128, 4, kColMajor>;
/// M7 with 2 tiles per block.
using M14 = TmaConfig<64, 64, 4, 128, 2, kRowMajor>;
/// 6 load stages, 8 tiles per block: 80 KiB requested ahead, one block per SM.
using M15 = TmaConfig<64, 64, 6, 128, 8, kRowMajor>;
/// 64 x 128 boxes (32 KiB), 3 stages, 256 threads: one block per SM, 64 KiB requested ahead.
using M16 = TmaConfig<64, 128, 3, 256, 4, kRowMajor>;
/// 32 x 64 boxes (8 KiB), 6 stages, 8 tiles per block: three blocks per SM.
using M17 = TmaConfig<32, 64, 6, 128, 8, kRowMajor>;
/// Fourth round (H100), after M14 (2 tiles per block) won the third: blocks of 2 tiles with 2
/// stages (both loads issued at once; 64 KiB, three blocks per SM).
using M18 = TmaConfig<64, 64, 2, 128, 2, kRowMajor>;
/// One tile per block: no pipeline inside a block, 32 KiB, six blocks per SM.
using M19 = TmaConfig<64, 64, 2, 128, 1, kRowMajor>;
/// M19 with 256 threads for the shared-memory transposition.
using M20 = TmaConfig<64, 64, 2, 256, 1, kRowMajor>;
/// 3 tiles per block, 3 stages: 80 KiB, two blocks per SM.
using M21 = TmaConfig<64, 64, 3, 128, 3, kRowMajor>;
/// M18 with 256 threads.
using M22 = TmaConfig<64, 64, 2, 256, 2, kRowMajor>;
/// One 64 x 128 tile (32 KiB box) per block, 256 threads: 64 KiB, three blocks per SM.
using M23 = TmaConfig<64, 128, 2, 256, 1, kRowMajor>;
/// One 128 x 64 tile per block, 256 threads.
using M24 = TmaConfig<128, 64, 2, 256, 1, kRowMajor>;
/// M19 in column-major tile order.
using M25 = TmaConfig<64, 64, 2, 128, 1, kColMajor>;
/// Fifth round (H100): L2 evict-first hints. M20 with evict-first loads of A.
using M26 = TmaConfig<64, 64, 2, 256, 1, kRowMajor, 128, 1>;
/// M20 with evict-first loads and stores.
using M27 = TmaConfig<64, 64, 2, 256, 1, kRowMajor, 128, 2>;
/// M7 (v10's configuration) with evict-first loads.
using M28 = TmaConfig<64, 64, 4, 128, 4, kRowMajor, 128, 1>;
/// M7 with evict-first loads and stores.
using M29 = TmaConfig<64, 64, 4, 128, 4, kRowMajor, 128, 2>;
/// M18 with evict-first loads and stores.
using M30 = TmaConfig<64, 64, 2, 128, 2, kRowMajor, 128, 2>;
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
