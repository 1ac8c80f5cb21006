/// @file
/// @brief v09's search: the pipelined FFMA kernel in the tile shapes v09 chose from, each on B as
/// it is and on v09's padded copy of B (`_padb`), timed by bin/gemm_tune at 1024^3,
/// 4095 x 4097 x 1023 and 4096 x 4097 x 1024 next to cuBLAS SGEMM and v09_by_shape.
#include <string>
#include <vector>

#include "fp32/ffma_configs.hpp"
#include "fp32/ffma_pipeline.cuh"
#include "fp32/padded_b.cuh"
#include "gemm.hpp"
#include "tune/tune.hpp"

namespace gemm::tune {

/// The configurations of v09's search, each stating only what differs from its base.
// [configs]
namespace shape {
/// v08's configuration (V08Tiles): 128 x 256 x 16, 256 threads of 16 x 8, one block per SM. Best
/// when there are many tiles: the fewest loads and shared reads per FFMA. v09's Large.
struct Large : V08Tiles {};
/// Large turned on its side: 256 x 128 x 16, the same warps and threads. The same loads and
/// shared reads per FFMA, but another tile count: 4095 x 4097 is 16 x 33 = 528 tiles of 256 x 128
/// (four rounds of 132 SMs) and 32 x 17 = 544 of 128 x 256 (five).
struct Tall : Large {
  static constexpr int block_m = 256;          ///< block tile (256, 128)
  static constexpr int block_n = 128;          ///< (see block_m)
  static constexpr bool interior_any_b = true; ///< interior copies for unaligned B too (4-byte)
};
/// Tall with the staged epilogue when C's rows are not 16-byte aligned.
struct TallStaged : Tall {
  static constexpr bool staged_stores = true;  ///< C through shared memory when unaligned
};
/// 128 x 128 x 16, 128 threads of 16 x 8, two blocks per SM (v08's search's C6), interior copies
/// for any B: half the tile, so twice the tiles to spread over the SMs.
struct Medium : Large {
  static constexpr int block_n = 128;          ///< block tile (128, 128): 4 warps
  static constexpr int min_blocks = 2;         ///< 2 blocks per SM
  static constexpr bool interior_any_b = true; ///< interior copies for unaligned B too (4-byte)
};
/// Medium with the staged epilogue when C's rows are not 16-byte aligned.
struct MediumStaged : Medium {
  static constexpr bool staged_stores = true;  ///< C through shared memory when unaligned
};
/// 64 x 128 x 16, 128 threads of 8 x 8, two blocks per SM: a quarter of Large's tile, for
/// problems with fewer 128 x 256 tiles than SMs (1024^3: 32 tiles for 132 SMs).
struct SmallFat : Medium {
  static constexpr int block_m = 64;   ///< block tile (64, 128)
  static constexpr int warp_m = 32;    ///< warp tile (32, 64)
  static constexpr int thread_m = 8;   ///< thread tile (8, 8)
};
/// SmallFat with the staged epilogue when C's rows are not 16-byte aligned.
struct SmallFatStaged : SmallFat {
  static constexpr bool staged_stores = true;  ///< C through shared memory when unaligned
};
/// SmallFatStaged with a 4-stage pipeline (three k-slices in flight instead of two), three blocks
/// per SM promised (as 167 registers and 50 KiB of shared memory per block allow), for padded or
/// aligned B only: v09's small configuration (by_shape::SmallFatDeep in fp32/ffma_configs.hpp).
struct SmallFatDeep : SmallFatStaged {
  static constexpr int stages = 4;              ///< 4 k-slices in shared memory
  static constexpr int min_blocks = 3;          ///< three blocks per SM
  static constexpr bool interior_any_b = false; ///< (its path never runs on a padded B)
};
}  // namespace shape
// [configs]

// The rows of v09's two configurations are those configurations, field by field.
static_assert(same_ffma_tiles<shape::Large, by_shape::Large>(), "Large must be v09's (fp32/ffma_configs.hpp)");
static_assert(same_ffma_tiles<shape::SmallFatDeep, by_shape::SmallFatDeep>(),
              "SmallFatDeep must be v09's (fp32/ffma_configs.hpp)");

namespace {

/// `Tiles` on B as it is (`launch_pipelined`) or as v09 runs it (`launch_padded_b`), marked as
/// v09_by_shape's when v09 runs it: on a padded B, with the fields of one of v09's configurations.
template <class Tiles, bool kPadB>
Candidate shape_candidate(const std::string& name, const std::string& summary) {
  using Cfg = FfmaConfig<Tiles>;
  const bool v09_runs_it = kPadB && (same_ffma_tiles<Tiles, by_shape::Large>() ||
                                     same_ffma_tiles<Tiles, by_shape::SmallFatDeep>());
  const char* chosen_by = v09_runs_it ? "v09_by_shape" : "";
  return {name, summary, {Precision::fp32, kPadB ? launch_padded_b<Cfg> : launch_pipelined<Cfg>, nullptr}, chosen_by};
}

}  // namespace

const std::vector<Candidate>& shape_candidates() {
  using namespace shape;
  static const std::vector<Candidate> list = {
      shape_candidate<Large, false>("s_large", "v09 Large: 128x256x16, 256 threads of 16x8, 1 block/SM (v08's C5)"),
      shape_candidate<TallStaged, false>("s_tall_staged", "v09 Tall, C through shared memory when unaligned"),
      shape_candidate<Medium, false>("s_medium", "v09 Medium: 128x128x16, 128 threads of 16x8, 2 blocks/SM, any B"),
      shape_candidate<SmallFat, false>("s_small_fat", "v09 SmallFat: 64x128x16, 128 threads of 8x8, 2 blocks/SM"),
      shape_candidate<SmallFatStaged, false>("s_small_fat_staged",
                                             "v09 SmallFat, C through shared memory when unaligned"),
      shape_candidate<Large, true>("s_large_padb", "v09 Large, unaligned B padded first"),
      shape_candidate<Tall, true>("s_tall_padb", "v09 Tall, unaligned B padded first"),
      shape_candidate<TallStaged, true>("s_tall_staged_padb", "v09 Tall, C staged, unaligned B padded first"),
      shape_candidate<Medium, true>("s_medium_padb", "v09 Medium, unaligned B padded first"),
      shape_candidate<MediumStaged, true>("s_medium_staged_padb", "v09 Medium, C staged, unaligned B padded first"),
      shape_candidate<SmallFatStaged, true>("s_small_fat_staged_padb",
                                            "v09 SmallFat, C staged, unaligned B padded first"),
      shape_candidate<SmallFatDeep, true>("s_small_fat_deep_padb",
                                          "v09 SmallFatDeep: SmallFat, C staged, 4 stages, 3 blocks/SM, B padded"),
  };
  return list;
}

}  // namespace gemm::tune
