/// @file
/// @brief v27: v25 with the stage waits' mbarrier.try_wait given a suspend-time hint, so that a
/// waiting warp sleeps in the barrier unit instead of polling it (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v27's configurations: v25's four, each with the hint in the producer's and the consumers' waits.
// [config]
/// v25's 128 x 256 tile, its waits sleeping.
struct V27LargeTiles : V25LargeTiles {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v25: 0, no hint)
};
/// v25's 128 x 128 tile, its waits sleeping.
struct V27HalfTiles : V25HalfTiles {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v25: 0, no hint)
};
/// v25's 128 x 64 tile, its waits sleeping.
struct V27NarrowTiles : V25NarrowTiles {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v25: 0, no hint)
};
/// v25's pairs along K, their stage waits sleeping.
struct V27PairTiles : V25PairTiles {
  static constexpr unsigned wait_suspend_ns = tut::sm90::kSleepingWaitNs;  ///< 10 ms (v25: 0, no hint)
};
// [config]

/// @brief v27: barrier waits that sleep.
///
/// **Idea.** A warp that waits for a stage calls `mbarrier.try_wait` in a loop. Without a hint
/// the hardware answers after a short time of its own choosing, and the warp asks again: eight
/// consumer warps and the producer poll the barriers that the TMA unit is completing. ncu's SASS
/// view of cuBLAS's kernel at 1024^3 shows its waits going to sleep (`NANOSLEEP.SYNCS` after the
/// first try), as CUTLASS's barrier waits do, which pass try_wait a suspend-time hint: the
/// thread may sleep up to that long and wakes when the phase completes.
///
/// **Changed since v25.** `wait_suspend_ns` in v25's four configurations (`mbar_wait<kSuspendNs>`
/// in common/hopper_ptx.cuh, on the producer's empty-stage and the consumers' full-stage waits);
/// v25's choice among them, unchanged (launch_pairs_or_tile_width()).
///
/// **Measured first in a development call** (H200, the hint compiled into every Hopper kernel's
/// waits, the same binary otherwise, six runs of 300 repetitions each at 1024^3): v25's kernel took
/// 0.0112-0.0115 ms with the hint against 0.0116-0.0120 without (every run with it faster than
/// every run without; cuBLAS BF16 0.0102-0.0103); 4096^3 within the noise (0.1829-0.1882 against
/// 0.1830-0.1921); the attention chapter's v20 0.4381-0.4397 ms against 0.4394-0.4477 at B2 H16
/// S4096 D128, level at B4 H16 S1024 D64. Why the sleeping waits are faster is not measured here;
/// the reading above (fewer polls of barriers the TMA unit is completing) is a guess.
///
/// **Predicted** (for the chapter's recorded run, written before it): 1.02-1.05x v25 at 1024^3,
/// 0.88-0.93 of cuBLAS BF16; within 1% of v25 where the tiles are large.
///
/// **Measured** (the chapter's recorded run, H200, commit 0570a89): 0.0107 ms at 1024^3 against
/// v25's 0.0114 (1.065x) and cuBLAS BF16's 0.0098 (0.918); in four runs of 300 repetitions after
/// it 0.0114-0.0116 against 0.0115-0.0119 (1.00-1.03x; 0.87-0.91 of cuBLAS): about 3%, one row
/// cannot say more. 1024 x 1024 x 4096 0.0229 against 0.0240 ms (1.048x); the large tiles level
/// with v25 (0.98-1.01x).
void launch_gemm_v27_sleeping_waits(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                    const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                    cudaStream_t stream) {
  launch_pairs_or_tile_width<V27PairTiles, V27NarrowTiles, V27HalfTiles, V27LargeTiles>(m, n, k, alpha, a, b, beta, c,
                                                                                      stream);
}

}  // namespace gemm
