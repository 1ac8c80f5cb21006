/// @file
/// @brief v17: v16 in clusters of two CTAs that share their B tile through TMA multicast (sm_90a).
#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// v17's configuration: v16's, in clusters of two CTAs along M.
// [config]
struct V17Tiles {
  static constexpr int block_m = 128;      ///< block tile (128, 256), as v16
  static constexpr int block_n = 256;      ///< (see block_m)
  static constexpr int stages = 4;         ///< 4 stages of 48 KiB in the ring
  static constexpr int cluster_m = 2;      ///< clusters of two CTAs along M sharing B (v16: 1)
  static constexpr int cluster_k = 1;      ///< (v24 pairs CTAs along K)
  static constexpr bool tma_store = true;  ///< epilogue through shared memory and TMA stores
  static constexpr bool split_k = false;   ///< one cluster per pair of tiles, all of their k-slices
  static constexpr bool desc_steps = false; ///< descriptors rebuilt for every k-step (v25: advanced)
  static constexpr unsigned wait_suspend_ns = 0;  ///< stage waits without a suspend-time hint (v27: 10 ms)
};
// [config]

/// @brief v17: thread-block clusters and TMA multicast.
///
/// **Idea.** Two CTAs of a cluster run on two SMs of one GPC and can reach each other's shared
/// memory. Give a cluster two vertically adjacent tiles: both need the same 64 x 256 slice of B
/// at every step. Each CTA loads half of it (two of the four 64-column boxes) with
/// `.multicast::cluster`: one read of L2 lands in both SMs' shared memory and completes on both
/// CTAs' full barriers. L2 then serves 32 KiB per slice per SM instead of 48.
///
/// **Changed since v16.** `cluster_m = 2` in the configuration of the same kernel
/// (gemm_v14_warp_specialized() in warp_specialized_kernel.cuh, whose cluster parts are marked
/// `[multicast]`, `[cluster_release]` and `[cluster_launch]`): the launch asks for clusters of
/// two (cudaLaunchKernelEx with a cluster dimension, WsLaunch; grid from
/// cudaOccupancyMaxActiveClusters); a unit of work is a column of two tiles; the producer loads
/// its A tile and multicasts its half of B. Because the peer writes into this CTA's stages too,
/// a stage is empty only when the consumers of *both* CTAs have released it: every consumer warp
/// arrives on the empty barrier of both (mapa + mbarrier.arrive.shared::cluster), and empty[s]
/// counts 16 arrivals. A cluster barrier after the barriers' initialization and another before
/// exit keep either CTA from touching a peer that does not (or no longer) exist. When the number
/// of tile rows is odd, the last cluster's second CTA computes a tile below C, stores nothing
/// (TMA clips it), but still loads its half of B for its peer.
///
/// **What is still wrong.** The consumers still stop computing for the epilogue; a schedule in
/// which one warpgroup's epilogue overlaps the other's main loop (CUTLASS's "ping-pong") would
/// hide it. Pairs of tiles halve the number of work units: more tail at sizes with few tiles.
///
/// **Predicted.** +3-6% over v16 at 4096^3 and 8192^3, if L2 bandwidth was a limit.
///
/// **Measured.** No gain at the square sizes. The chapter's table (H100 run at 0b38325): 0.98 of
/// cuBLAS BF16 at 4096^3 (737.9 TFLOP/s, v16 743.0) and 0.986 at 8192^3 (755.3 TFLOP/s, v16
/// 754.9), within the run-to-run noise; 0.93 at 2048^3 (v16 0.98: pairs of tiles leave more SMs
/// idle at the end); 1.36x at 4095 x 4097 x 1023 (192.8 TFLOP/s, v16 1.25x). ncu (an earlier
/// run): tensor pipe active 89.9% at 4096^3 (v16 90.6%), L2 traffic unchanged: L2 bandwidth was
/// not what limited v16. The first version of this step arrived on the peer's empty barrier with
/// `.release.cluster`: it was correct and ran at 0.40x of cuBLAS (4096^3), 2.4x slower than
/// without clusters; the default semantics (release at CTA scope, as CUTLASS uses) fixed that and
/// nothing else changed.
void launch_gemm_v17_cluster_multicast(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                       const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                       cudaStream_t stream) {
  launch_warp_specialized<WsConfig<V17Tiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
}

}  // namespace gemm
