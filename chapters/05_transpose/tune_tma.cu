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
}  // namespace tune
// [tma_candidates]

const std::vector<Version>& tune_tma_candidates() {
  static const std::vector<Version> list = {
      tma_candidate<tune::M0>(), tma_candidate<tune::M1>(), tma_candidate<tune::M2>(),
      tma_candidate<tune::M3>(), tma_candidate<tune::M4>(), tma_candidate<tune::M5>(),
      tma_candidate<tune::M6>(), tma_candidate<tune::M7>(), tma_candidate<tune::M8>(),
  };
  return list;
}

}  // namespace transpose
