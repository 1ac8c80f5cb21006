/// @file
/// @brief v11 (fp32): v7's kernel in the configuration that suits the problem's shape, chosen at
/// run time as a library does.
#include <string>
#include <vector>

#include "gemm.hpp"
#include "v7_pipelined.cuh"

namespace gemm {

/// The configurations v11 chooses from (block tile, k-slice, warp tile, thread tile, stages,
/// blocks per SM, fragment buffers, interior copies, interior copies for unaligned B).
/// `gemm --tune --dtype fp32` times them next to v8's candidates (at --m/--n/--k).
// [configs]
namespace by_shape {
/// v8's configuration (C5): 128 x 256 x 16, 256 threads of 16 x 8, one block per SM. Best when
/// there are many tiles: the fewest loads and shared reads per FFMA.
using Large = FfmaConfig<128, 256, 16, 64, 64, 16, 8, 3, 1, 2, true>;
/// Large with interior copies for unaligned B too (four 4-byte cp.async per chunk).
using LargeAnyB = FfmaConfig<128, 256, 16, 64, 64, 16, 8, 3, 1, 2, true, true>;
/// 128 x 128 x 16, 128 threads of 16 x 8, two blocks per SM (v8's C6), interior copies for any B:
/// half the tile, so twice the tiles to spread over the SMs.
using Medium = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2, 2, true, true>;
/// 64 x 128 x 16, 256 threads of 8 x 4, two blocks per SM: a quarter of Large's tile, for
/// problems with fewer 128 x 128 tiles than SMs (1024^3: 128 tiles for 132 SMs).
using Small = FfmaConfig<64, 128, 16, 32, 32, 8, 4, 3, 2, 2, true, true>;
/// 64 x 128 x 16, 128 threads of 8 x 8: Small's tile with fewer, fatter threads.
using SmallFat = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 3, 2, 2, true, true>;
/// 64 x 64 x 16, 128 threads of 8 x 4, up to four blocks per SM: the smallest tile.
using Tiny = FfmaConfig<64, 64, 16, 32, 32, 8, 4, 3, 4, 2, true, true>;
/// Medium with the staged epilogue when C's rows are not 16-byte aligned.
using MediumStaged = FfmaConfig<128, 128, 16, 64, 64, 16, 8, 3, 2, 2, true, true, true>;
/// SmallFat with the staged epilogue when C's rows are not 16-byte aligned.
using SmallFatStaged = FfmaConfig<64, 128, 16, 32, 64, 8, 8, 3, 2, 2, true, true, true>;
}  // namespace by_shape
// [configs]

namespace {

/// Tiles of a bm x bn tiling of an m x n matrix.
std::int64_t tile_count(std::int64_t m, std::int64_t n, int bm, int bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); }

}  // namespace

// [choose]
ShapeConfig choose_config(std::int64_t m, std::int64_t n, bool b_aligned, int sms) {
  // Large needs B's rows aligned for its fast copies, and enough 128 x 256 tiles to keep at
  // least three quarters of the SMs busy; everything else runs the small tile.
  const bool enough_tiles = 4 * tile_count(m, n, 128, 256) >= 3 * static_cast<std::int64_t>(sms);
  return b_aligned && enough_tiles ? ShapeConfig::large : ShapeConfig::small;
}
// [choose]

/// @brief v11: the configuration chosen by shape.
///
/// **Idea.** No single tile suits every problem. A 128 x 256 tile (v8) needs the fewest loads
/// per FFMA, but at 1024^3 there are only 32 such tiles for 132 SMs: three quarters of the GPU
/// idle. And v8's fast copy path needs B's rows 16-byte aligned, which 4095 x 4097 x 1023 does
/// not have. A library keeps several configurations of its kernels and picks one per call from
/// the shape (cuBLAS's heuristics, CUTLASS's profiler-generated tables). v11 does the same with
/// two of v7's, chosen from the eight of shape_candidates() by a measured search
/// (`gemm --tune --dtype fp32 --m ... --n ... --k ...` at the table's shapes and at shapes that
/// change one dimension of 4095 x 4097 x 1023 at a time).
///
/// **Changed since v8.** No new kernel: v7's (gemm_v7_pipelined() in v7_pipelined.cuh) with two
/// more switches and a choice at run time (choose_config()):
/// - Large (v8's C5) when B's rows are aligned and 128 x 256 tiles keep three quarters of the
///   SMs busy (2048^3 and up);
/// - else SmallFatStaged: 64 x 128 tiles, 128 threads of 8 x 8, two blocks per SM; interior
///   copies also for unaligned B (kInteriorAnyB: 4-byte cp.async, a warp's 32 copies on
///   consecutive columns); when C's rows are not 16-byte aligned, the epilogue goes through shared
///   memory (kStagedStores) so that a warp writes 32 consecutive floats of C.
///
/// **What is still wrong.** An odd N costs this kernel 15-20% (N = 4097 against 4096, at K = 1024:
/// Large 0.94 -> 0.62 of cuBLAS, the best configuration 0.80), while cuBLAS loses 1%. Part is
/// the tile count (the 4097th column costs a whole column of tiles: 17 columns of 128 x 256
/// tiles, 544, need 5 rounds of 132; 16 columns need 4), part the 4-byte copies of B and the
/// scalar stores of C. A
/// library would also pad B once into aligned rows, or split the work differently (stream-K).
///
/// **Predicted.** v8 unchanged from 2048^3 up; at 1024^3 about 1.5-2x over v8 (four times the
/// tiles); at 4095 x 4097 x 1023, 90% of cuBLAS SGEMM (Medium covers it in exactly four rounds of
/// two blocks per SM, with the interior copies).
///
/// **Measured (H100, the search, `--reps 10`).** 1024^3: SmallFat 0.96, Small 0.97-0.98, Tiny
/// 0.88 of cuBLAS SGEMM, v8 0.33. 2048^3: Large 0.93, Medium 0.86. 4095 x 4097 x 1023: the
/// prediction failed: Medium 0.79, SmallFatStaged 0.82 (the best), LargeAnyB 0.71. In the
/// chapter's table (one run): 0.96, 0.93, 0.93, 0.95 of cuBLAS SGEMM at 1024^3 ... 8192^3, 0.82 at
/// 4095 x 4097 x 1023: the best fp32 version at every shape, short of 0.9 on the odd one.
void launch_gemm_v11_by_shape(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  if (choose_config(m, n, n % 4 == 0 && aligned16(b), sm_count()) == ShapeConfig::large) {
    launch_pipelined<by_shape::Large>(m, n, k, alpha, a, b, beta, c, stream);
  } else {
    launch_pipelined<by_shape::SmallFatStaged>(m, n, k, alpha, a, b, beta, c, stream);
  }
}

namespace {

template <class Cfg>
TuneCandidate shape_candidate(const std::string& name, const std::string& summary) {
  return {name, summary, launch_pipelined<Cfg>, false};
}

}  // namespace

const std::vector<TuneCandidate>& shape_candidates() {
  static const std::vector<TuneCandidate> list = {
      shape_candidate<by_shape::Large>("s_large", "v11 Large: 128x256x16, 256 threads of 16x8, 1 block/SM (v8's C5)"),
      shape_candidate<by_shape::LargeAnyB>("s_large_anyb", "v11 LargeAnyB: Large, interior copies for unaligned B"),
      shape_candidate<by_shape::Medium>("s_medium", "v11 Medium: 128x128x16, 128 threads of 16x8, 2 blocks/SM, any B"),
      shape_candidate<by_shape::MediumStaged>("s_medium_staged", "v11 Medium, C through shared memory when unaligned"),
      shape_candidate<by_shape::Small>("s_small", "v11 Small: 64x128x16, 256 threads of 8x4, 2 blocks/SM, any B"),
      shape_candidate<by_shape::SmallFat>("s_small_fat", "v11 SmallFat: 64x128x16, 128 threads of 8x8, 2 blocks/SM"),
      shape_candidate<by_shape::SmallFatStaged>("s_small_fat_staged", "v11 SmallFat, C through shared memory when unaligned"),
      shape_candidate<by_shape::Tiny>("s_tiny", "v11 Tiny: 64x64x16, 128 threads of 8x4, 4 blocks/SM, any B"),
  };
  return list;
}

}  // namespace gemm
