/// @file
/// @brief v28: v27 with the tensor maps prefetched at each block's start, so that the first TMA
/// loads need not wait for their descriptors (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v28's configurations: v27's four, each with its tensor maps prefetched.
// [config]
/// v27's 128 x 256 tile, its maps prefetched.
struct V28LargeTiles : V27LargeTiles {
  static constexpr bool prefetch_maps = true;  ///< (v27: false)
};
/// v27's 128 x 128 tile, its maps prefetched.
struct V28HalfTiles : V27HalfTiles {
  static constexpr bool prefetch_maps = true;  ///< (v27: false)
};
/// v27's 128 x 64 tile, its maps prefetched.
struct V28NarrowTiles : V27NarrowTiles {
  static constexpr bool prefetch_maps = true;  ///< (v27: false)
};
/// v27's pairs along K, their maps prefetched.
struct V28PairTiles : V27PairTiles {
  static constexpr bool prefetch_maps = true;  ///< (v27: false)
};
// [config]

/// @brief v28: the tensor maps prefetched.
///
/// **Idea.** A TMA load names its tensor map by address: 128 bytes among the kernel's
/// parameters, which the TMA unit fetches into a descriptor cache on first use. Every launch
/// has its parameters anew, so the first load of every block waits for that fetch before it can
/// ask for a byte of A or B: at 1024^3, where a block's whole life is about 10 µs, the start
/// counts. `prefetch.tensormap` starts the fetch at once, while the barriers are set up (as
/// CUTLASS's kernels do at their start).
///
/// **Changed since v27.** `prefetch_maps` in v27's four configurations: thread 0 prefetches the
/// maps of A, B and (with the TMA-store epilogue) C before it initializes the barriers
/// (`[prefetch]` in warp_specialized_kernel.cuh); v27's choice among them, unchanged.
///
/// **Measured first in a development call** (H200, under v20, commit 9d838ed: the prefetch as a
/// switch of v20's kernel, nine timed runs in the order v20, prefetch, v20, prefetch): ahead of
/// v20 in every run at 1024^3 (medians 0.0110-0.0115 ms against 0.0115-0.0120, +3-5%), +2-7% from
/// 512^3 to 2048 x 1024 x 1024; under ncu, which times one kernel alone, no difference (11.8-12.1
/// µs without, 12.0-12.3 with). Not made a step then, for that disagreement.
///
/// **Predicted** (for the chapter's recorded run, written before it): +2-5% over v27 at 1024^3 and
/// 1024 x 1024 x 4096 (0.90-0.95 of cuBLAS BF16 at 1024^3), level where the tiles are large (a
/// fixed fraction of a microsecond against 0.18 ms and more).
// [launch]
void launch_gemm_v28_prefetched_maps(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                     const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                     cudaStream_t stream) {
  launch_pairs_or_tile_width<V28PairTiles, V28NarrowTiles, V28HalfTiles, V28LargeTiles>(m, n, k, alpha, a, b, beta, c,
                                                                                      stream);
}
// [launch]

}  // namespace gemm
