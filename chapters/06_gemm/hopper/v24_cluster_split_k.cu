/// @file
/// @brief v24: v19's split of a tile's k-slices, between the two CTAs of a cluster, whose partial
/// sums meet in distributed shared memory instead of in C (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v24's configuration is V24PairTiles in warp_specialized_kernel.cuh (v25 reuses it).

// [choose]
bool v24_takes_pairs(std::int64_t m, std::int64_t n, std::int64_t k, int pair_slots) {
  // Pairs of CTAs where every 128 x 128 tile gets a pair at once (64 tiles at 1024 x 1024, and
  // the GPU runs 66 clusters of two on 132 SMs) and each CTA keeps 16 k-slices or more, as v19
  // splits: the exchange costs about as much as 16 slices' loads save (measured, see below).
  // 1024 x 1024 x 4096: pairs of 32 slices each. 1024^3 (8 each): v20's 128 x 64 tiles.
  const std::int64_t tiles = ((m + 127) / 128) * ((n + 127) / 128);
  const std::int64_t slices = (k + sm90::kBK - 1) / sm90::kBK;
  return tiles <= pair_slots && slices >= 32;
}
// [choose]

/// @brief v24: split-K inside a cluster, the two halves added through distributed shared memory.
///
/// **Idea.** v19 splits a 128 x 128 tile's k-slices between two blocks where the tiles leave SMs
/// idle, and its two halves meet in C: C must be cleared (or scaled by beta) first, a second
/// launch, and the halves are added by atomic TMA reduce-adds. Put the two blocks of a tile in
/// one cluster instead: they run on two SMs of one GPC, each can write into the other's shared
/// memory, and the halves meet there. Each consumer warpgroup's 64 rows are finished by one of
/// the two CTAs (consumer 0's by rank 0, consumer 1's by rank 1, so both SMs store half of C):
/// the other CTA's consumer of those rows writes its accumulators into the finishing CTA's pair
/// buffer with `st.async`, whose bytes complete on a barrier there as a TMA load's do; the
/// finishing consumer waits on it, adds, frees the buffer with a remote arrive and stores
/// through v16's epilogue. C is written once, read only for beta, in an order that does not
/// depend on timing (v19's atomic adds do).
///
/// **Changed since v20.** The kernel (gemm_v14_warp_specialized()) learns `cluster_k = 2`: the
/// cluster's CTAs take one unit (tile) each round, its k-slices split by rank (`[split_range]`),
/// and add_pair_sums() between the k-loop and the epilogue (`[pair_sum]`); two more mbarriers
/// and a 32 KiB buffer in shared memory (five stages instead of six). Two PTX wrappers: mapa
/// (cluster_address()) and st.async (st_async_v4()). v24_takes_pairs() chooses the pairs where
/// each CTA keeps 16 k-slices or more; elsewhere v20 runs.
///
/// **What is still wrong.** The exchange is a fixed cost of about 2 µs per tile (measured below):
/// distributed shared memory moves the 32 KiB of partial sums per CTA far slower than shared
/// memory, and one consumer stores twice the rows while the other waits. At 1024^3 v20 stays
/// ahead; what holds v20 there is not its loads' bytes (tried below) but the time its consumers
/// wait for each slice.
///
/// **Predicted** (written before the first run). At 1024^3, with pairs of 8 k-slices each: the
/// kernel 8.0-8.5 µs under ncu against v20's 9.0 (+5-12%: a third fewer bytes from L2; the
/// k-loop is a fraction of the kernel, whose fixed costs dominate; the exchange about 0.3 µs),
/// 0.93-1.0 of cuBLAS BF16 in the table; at 1024 x 1024 x 4096 v19's split without its clearing
/// pass: +10-20% over v19.
///
/// **Measured** (H200, development runs of commits 28e966b-aed0fdd and the st.async exchange;
/// ncu at real clocks, medians of 9 launches; timed rows of 200 repetitions, both orders). Wrong
/// at 1024^3, right where K is long. At 1024^3 the pairs took 10.9 µs under ncu against v20's 9.6
/// (cuBLAS 7.5), 0.0128-0.0129 ms timed against v20's 0.0111-0.0112 (0.87x). Over K at 1024 x 1024
/// (ncu, µs): K = 128: pairs 7.9, v18's tile on 64 SMs 6.1, v20 5.4, cuBLAS 5.0; K = 4096: pairs
/// 22.1, v19's kernel alone 20.4 (plus its clearing pass), v20 26.1, cuBLAS 15.2. So the exchange
/// costs about 2 µs however long the k-loop, and pays only where each CTA's k-loop is long: at
/// 1024 x 1024 x 4096 0.0244 ms against v19's 0.0259-0.0260 (1.06-1.07x) and v20's 0.0278; at
/// 1024 x 1024 x 2048 (16 slices per CTA) even with v20 (0.0166-0.0168 against 0.0167). The first
/// exchange, `st.shared::cluster` stores and a remote arrive with release at cluster scope, waited
/// on with acquire at cluster scope, compiled to MEMBAR.ALL.GPU and CCTL.IVALL (ncu: 1.2 cycles
/// per issued instruction stalled on the membar) and took 0.3-0.4 µs longer than st.async (11.2
/// against 10.9 µs at 1024^3). The chapter's table below has the recorded run.
void launch_gemm_v24_cluster_split_k(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                     const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                     cudaStream_t stream) {
  if (m > 0 && n > 0 && v24_takes_pairs(m, n, k, v24_pair_slots())) {
    launch_warp_specialized<WsConfig<V24PairTiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
    return;
  }
  launch_gemm_v20_narrow_tiles(m, n, k, alpha, a, b, beta, c, stream);
}

int v24_pair_slots() { return max_resident_clusters<WsConfig<V24PairTiles>>(); }

void launch_gemm_v24_pairs_on(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream, int max_clusters) {
  launch_warp_specialized<WsConfig<V24PairTiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent, 1,
                                                  max_clusters);
}

}  // namespace gemm
