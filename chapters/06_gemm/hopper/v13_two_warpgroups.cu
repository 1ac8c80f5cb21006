/// @file
/// @brief v13: v12's kernel with a 128 x 256 tile computed by two warpgroups (sm_90a).
#include "gemm.hpp"
#include "tma_wgmma_kernel.cuh"

namespace gemm {

/// v13's configuration, the step's idea: v12's kernel on 128 x 256 tiles, computed by two
/// warpgroups of 64 x 256 (one m64n256k16 per k-step, 128 accumulators per thread), 4 stages of
/// 48 KiB (192 KiB).
// [config]
struct V13Tiles {
  static constexpr int block_m = 128;   ///< block tile (128, 256): twice v12's
  static constexpr int block_n = 256;   ///< (see block_m): wgmma n = 256 (v12: 128)
  static constexpr int stages = 4;      ///< 4 stages of 48 KiB in the ring
  static constexpr int consumers = 2;   ///< two warpgroups of 64 x 256 (v12: one of 128 x 128)
  static constexpr int min_blocks = 1;  ///< one block per SM promised to the compiler
};
// [config]

/// @brief v13: a larger tile and two consumer warpgroups.
///
/// **Idea.** A wgmma reads its A and B tiles from shared memory every time. m64n128k16 reads 2
/// KiB of A and 4 KiB of B for 262144 FLOP; m64n256k16 reads 2 + 8 KiB for twice the FLOPs:
/// 17% fewer shared-memory bytes per FLOP. A 128 x 256 block tile also brings 48 KiB from L2 per
/// 64-wide slice for 4.2 MFLOP, where 128 x 128 brought 32 KiB for 2.1 MFLOP: a quarter fewer
/// L2 bytes per FLOP. The accumulators of 64 x 256 fill 128 registers per thread, so the tile
/// needs two warpgroups, each owning 64 rows.
///
/// **Changed since v12.** The configuration (V13Tiles above) of the same kernel
/// (gemm_v12_tma_wgmma() in tma_wgmma_kernel.cuh): BN 256 instead of 128, two warpgroups (256
/// threads) instead of one, each issuing one m64n256k16 per k-step; stages of 48 KiB. empty[s]
/// now counts eight warps.
///
/// **What is still wrong.** Thread 0 still feeds the ring between its wgmma. It must wait for
/// all eight warps to release a stage, the other warpgroup's too; meanwhile its own warpgroup
/// cannot issue its next wgmma. Loads are issued late (only when a stage frees, on the
/// critical path of one warpgroup), and one block per SM leaves the tensor cores idle during
/// the prologue and the epilogue.
///
/// **Predicted.** +10-15% over v12 (fewer shared-memory and L2 bytes per FLOP), partly eaten
/// by the coupling of the two warpgroups through thread 0.
///
/// **Measured.** More than predicted. The chapter's table (H100 run at 0b38325): 0.92 of cuBLAS
/// BF16 at 4096^3 (692.8 TFLOP/s, v12 558.3: +24%) and 0.98 at 8192^3 (747.9 TFLOP/s, v12 603.1:
/// +24%). ncu at 4096^3 (an earlier run): tensor pipe active 85% of cycles (v12: 63.5%), L2
/// traffic 1.44 GB instead of 1.77 GB.
void launch_gemm_v13_two_warpgroups(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                    const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                    cudaStream_t stream) {
  launch_tma_wgmma<TmaWgmmaConfig<V13Tiles>>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
