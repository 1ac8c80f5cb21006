/// @file
/// @brief v24: v19's split of a tile's k-slices, between the two CTAs of a cluster, whose partial
/// sums meet in distributed shared memory instead of in C (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// v24's configuration: v18's half tile (128 x 128), in clusters of two CTAs that each take half
/// of its k-slices. The buffer that receives the peer's sums (32 KiB) takes one stage's room.
// [config]
struct V24PairTiles : V18HalfTiles {
  static constexpr int stages = 5;     ///< 5 stages of 32 KiB (v18's half tile: 6), beside the pair buffer
  static constexpr int cluster_k = 2;  ///< clusters of two CTAs along K (v18: 1)
};
// [config]

// [choose]
bool v24_takes_pairs(std::int64_t m, std::int64_t n, std::int64_t k, int pair_slots) {
  // Pairs of CTAs where every 128 x 128 tile gets a pair at once (1024^3: 64 tiles, and the GPU
  // runs 66 clusters of two on 132 SMs) and each CTA of the pair gets a k-slice at least. There
  // v20 takes its 128 x 64 tile instead: the same 128 SMs busy, but each one loading
  // (128 + 64) x K elements against a pair's (128 + 128) x K / 2, two thirds as many.
  // Elsewhere, v20's choice.
  const std::int64_t tiles = ((m + 127) / 128) * ((n + 127) / 128);
  const std::int64_t slices = (k + sm90::kBK - 1) / sm90::kBK;
  return tiles <= pair_slots && slices >= 2;
}
// [choose]

/// @brief v24: split-K inside a cluster, the two halves added through distributed shared memory.
///
/// **Idea.** At 1024^3 v20 keeps 128 SMs busy with 128 x 64 tiles: each one loads a 128-row
/// panel of A and a 64-column panel of B over all of K, 48 MiB from L2 in all, for tiles whose
/// wgmma are the narrowest (n = 64). v19's split keeps the 128 x 128 tile and gives each of two
/// blocks half of its k-slices: a third fewer bytes (32 MiB), but its two halves meet in C,
/// which must be cleared first (a second launch) and takes atomic adds. Put the two blocks of a
/// tile in one cluster instead: they run on two SMs of one GPC, each can write into the other's
/// shared memory, and the halves meet there. Each consumer warpgroup's 64 rows are finished by
/// one of the two CTAs (consumer 0's by rank 0, consumer 1's by rank 1, so both SMs store half
/// of C): the other CTA's consumer of those rows stores its 64 accumulators per thread into the
/// finishing CTA's pair buffer with `st.shared::cluster` and arrives on a barrier there with
/// release at cluster scope; the finishing consumer waits on it with acquire at cluster scope,
/// adds, frees the buffer on the sender's barrier, and stores through v16's epilogue. C is
/// written once, read only for beta, and the result does not depend on timing.
///
/// **Changed since v20.** The kernel (gemm_v14_warp_specialized()) learns `cluster_k = 2`: the
/// cluster's CTAs take one unit (tile) each round, its k-slices split by rank (`[split_range]`),
/// and add_pair_sums() between the k-loop and the epilogue (`[pair_sum]`); two more mbarriers
/// and a 32 KiB buffer in shared memory. Four PTX wrappers: mapa (cluster_address()),
/// st.shared::cluster (st_cluster_v4()), a remote arrive with release at cluster scope and a
/// wait with acquire at cluster scope. v24_takes_pairs() chooses the pairs; elsewhere v20 runs.
///
/// **What is still wrong.** A pair needs a tile for each of the GPU's pairs of SMs at once, so
/// it only helps problems with at most 66 tiles of 128 x 128 (on 132 SMs); a tile's two halves
/// take the same time, but the exchange itself (32 KiB each way per tile) is on the critical path.
///
/// **Predicted.** At 1024^3 the kernel 8.0-8.5 µs under ncu against v20's 9.0 (+5-12%: the
/// k-loop is a fraction of the kernel's time, which its fixed costs dominate; the exchange adds
/// about 0.3 µs), 0.93-1.0 of cuBLAS BF16 in the table; at 1024 x 1024 x 4096 v19's split without
/// its clearing pass: +10-20% over v19.
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
