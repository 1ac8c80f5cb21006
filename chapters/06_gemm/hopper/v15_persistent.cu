/// @file
/// @brief v15: v14's kernel as a persistent grid, one block per SM striding over the tiles (sm_90a).
#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

/// v15's configuration: v14's (V14Tiles, in warp_specialized_kernel.cuh), the same type and so the
/// same kernel; what changes is the launch below.
using V15Tiles = V14Tiles;

/// @brief v15: a persistent kernel.
///
/// **Idea.** Launch only as many blocks as the GPU holds at once (one per SM here) and let each
/// walk over tiles, `unit += gridDim.x`, in the grouped order that keeps the tiles in flight
/// sharing A's and B's panels in L2. A block is set up once (barriers, register split), and
/// its producer runs ahead into the next tile while the consumers store the last one: the ring
/// is already full when they come back, so the tensor cores idle only for the epilogue itself,
/// not for a new block's start and first loads.
///
/// **Changed since v14.** The launch: WsGrid::persistent, a grid of min(tiles, blocks resident at
/// once) (persistent_grid() in warp_specialized_kernel.cuh) instead of one block per tile. The
/// kernel is v14's (gemm_v14_warp_specialized(), same file), whose tile loop (`[tile_loop]`)
/// and slice counters already run on across tiles.
///
/// **What is still wrong.** The epilogue stops both consumer warpgroups while they write 128 KiB
/// of fp32 per tile from registers, 8 rows of C per warp instruction. Every CTA loads its own
/// copy of the B tile, although the CTA working on the tile above needs the same one.
///
/// **Predicted.** +3-8% over v14: no block start and pipeline fill per tile; more at 2048^3 and
/// 4096^3, where each tile is short.
///
/// **Measured.** At the low end of the prediction. The chapter's table (H100 run at 0b38325): 0.94
/// of cuBLAS BF16 at 4096^3 (709.1 TFLOP/s, v14 694.4: +2%), 0.98 at 8192^3 (749.2 TFLOP/s,
/// unchanged), 0.91 at 2048^3 (v14 0.92). ncu (an earlier run): tensor pipe active 85.7% at
/// 4096^3 (v14 83.6%), 94.3% at 8192^3 (93.0%).
void launch_gemm_v15_persistent(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                                const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  // [launch]
  launch_warp_specialized<WsConfig<V15Tiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
  // [launch]
}

}  // namespace gemm
