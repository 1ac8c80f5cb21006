/// @file
/// @brief v24: v20's 128 x 64 tiles in clusters of two CTAs that share each k-slice of B through
/// TMA multicast, each loading half of its k-rows (sm_90a).
#include <cstdint>

#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// v24's configuration for the narrow tiles: v20's, in clusters of two CTAs along M.
// [config]
struct V24NarrowPairs {
  static constexpr int block_m = 128;      ///< block tile (128, 64), as v20's narrow one
  static constexpr int block_n = 64;       ///< (see block_m)
  static constexpr int stages = 8;         ///< 8 stages of 24 KiB, as v20
  static constexpr int cluster_m = 2;      ///< two vertically adjacent tiles share B (v20: 1)
  static constexpr bool tma_store = true;  ///< epilogue through shared memory and TMA stores, as v20
  static constexpr bool split_k = false;   ///< one cluster per pair of tiles, all of their k-slices
};
// [config]

// [choose]
bool v24_takes_pairs(std::int64_t m, std::int64_t n, int sms) {
  // Where v20 takes its narrow tile and there are at least two rows of tiles to pair (with one
  // row, a cluster's second CTA would compute nothing but still hold an SM).
  return v20_tile_n(m, n, sms) == 64 && (m + 127) / 128 >= 2;
}
// [choose]

/// @brief v24: pairs of narrow tiles sharing B, as cuBLAS runs 1024^3.
///
/// **Idea.** ncu on 1024^3 (H200, this step's first run): cuBLAS BF16 runs
/// `nvjet_sm90_tss_128x64_64x8_1x2_h_bz_NNT`, v20's tile (128 x 64, k-slices of 64, 8 stages,
/// 384 threads, 168 registers), in **clusters of two** (cluster size 2, 66 clusters resident),
/// for 9.25 µs against v20's 12.0 µs. Its L2 serves 17% fewer read sectors (660k against 795k):
/// the two CTAs of a cluster share B. v17 taught the sharing for 128 x 256 tiles, where each CTA
/// loads two of the four 64-column boxes of B; a 128 x 64 tile has a single box, so here each
/// CTA loads half of its k-rows (32 of 64: whole 1024-byte swizzle atoms, landing exactly where
/// the full box would) and multicasts it into both CTAs.
///
/// **Changed since v20.** `cluster_m = 2` on v20's narrow configuration (V24NarrowPairs); the
/// kernel (gemm_v14_warp_specialized(), warp_specialized_kernel.cuh) splits one box's k-rows
/// between the CTAs where B has fewer boxes than the cluster has CTAs (`kBSplitRows`), and B's
/// tensor map then has boxes of 32 k-rows. Elsewhere v24 is v20 (v24_takes_pairs()).
///
/// **What is still wrong.** L2 was not busy in either kernel (L2 throughput 22% for v20, 27% for
/// cuBLAS): what the sharing saves is requests in flight at the start, when all 128 CTAs ask
/// for their first eight stages at once, not bandwidth.
///
/// **Predicted.** 5-10% over v20 at 1024^3 (toward cuBLAS's 9.25 µs kernel), nothing where v20
/// takes the wider tiles.
///
/// **Measured.** Pending the device run.
void launch_gemm_v24_narrow_pairs(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                  const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                  cudaStream_t stream) {
  if (v24_takes_pairs(m, n, sm_count())) {
    launch_warp_specialized<WsConfig<V24NarrowPairs>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
  } else {
    launch_gemm_v20_narrow_tiles(m, n, k, alpha, a, b, beta, c, stream);
  }
}

}  // namespace gemm
