/// @file
/// @brief v14: warp specialization: a producer warpgroup that only issues TMA loads, two consumer
/// warpgroups that only issue wgmma, registers moved from the first to the others (sm_90a).
#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {


/// @brief v14: warp specialization and register reallocation.
///
/// **Idea.** Give the two jobs to different warps. A producer warpgroup does nothing but wait
/// for empty stages and issue TMA loads (one thread of it, in fact); the two consumer
/// warpgroups do nothing but wait for full stages, issue wgmma and release the stages. Neither
/// waits for the other except through the ring's mbarriers, so loads are issued the moment a
/// stage frees and no consumer stalls on the producer's bookkeeping. The producer needs few
/// registers, the consumers' accumulators many: `setmaxnreg` moves them (the producer drops to
/// 40 per thread, the consumers rise to 232), so 384 threads fit where 168 registers each would
/// not leave room for 128 accumulators plus addresses.
///
/// **Changed since v13.** A third warpgroup (384 threads), the producer; thread 0 no longer
/// computes. The consumers' loop has no load in it. The kernel (gemm_v14_warp_specialized() in
/// warp_specialized_kernel.cuh) is written as a loop over tiles, `for (unit = blockIdx.x; unit <
/// units; unit += gridDim.x)`, with slice counters that run on across tiles; v14 launches one
/// block per tile, so each block runs it once. v15 and later change only the launch and the
/// configuration.
///
/// **What is still wrong.** One block per SM (192 KiB of stages): when a block finishes, its
/// SM idles until the next block has started, filled its ring and computed its first slice.
/// During the epilogue the tensor cores idle as well.
///
/// **Predicted.** +10-20% over v13: loads issued early, the consumers decoupled.
///
/// **Measured.** No gain. The chapter's table (H100 run at 0b38325): 0.92 of cuBLAS BF16 at 4096^3
/// (694.4 TFLOP/s; v13 692.8) and 0.98 at 8192^3 (749.9 TFLOP/s; v13 747.9), within the run-to-run
/// noise. ncu (an earlier run) agrees: tensor pipe active 83.6% (v13 84.9%) at 4096^3, 93.0%
/// (93.5%) at 8192^3. The prediction assumed that thread 0's loads held v13 back; they did not:
/// with 4 stages of 64-wide slices the ring stays ahead either way. The step is kept because
/// v15-v17 build on the producer/consumer split.
// [launch]
void launch_gemm_v14_warp_specialized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                      const __nv_bfloat16* a, const __nv_bfloat16* b, float beta, float* c,
                                      cudaStream_t stream) {
  launch_warp_specialized<WsConfig<V14Tiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::per_unit);
}
// [launch]

}  // namespace gemm
