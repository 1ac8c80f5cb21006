/// @file
/// @brief v16: v15 with the epilogue through shared memory and TMA stores (sm_90a).
#include "gemm.hpp"
#include "warp_specialized_kernel.cuh"

namespace gemm {

// v16's configuration is V16Tiles in warp_specialized_kernel.cuh (v18 runs it too): v15's, with
// the TMA-store epilogue.

/// @brief v16: an epilogue through shared memory and TMA stores.
///
/// **Idea.** Writing C from registers costs each consumer thread 64 float2 stores, each warp
/// instruction touching 8 rows of C, while neither warpgroup computes. Write the accumulators to
/// shared memory instead, in boxes of 64 rows x 32 columns, and let one thread hand each box to
/// the TMA unit: the unit writes whole 128-byte lines of C (clipping at C's edges) while the
/// warpgroup fills the next box, and then already waits for its next tile's first slice. Two
/// staging boxes per warpgroup alternate; `cp.async.bulk.wait_group.read 1` says when the older
/// one may be overwritten, `fence.proxy.async` makes the threads' writes visible to the TMA
/// unit before the store reads them. The boxes use the 128-byte swizzle, as the operand tiles.
///
/// **Changed since v15.** `tma_store = true` in the configuration of the same kernel
/// (gemm_v14_warp_specialized() in warp_specialized_kernel.cuh): the epilogue is store_tile_tma()
/// (tma_store_epilogue.cuh) instead of sm90::store_accumulators(); a third tensor map (C, fp32,
/// boxes of 64 rows x 32 columns); 32 KiB of shared memory for the staging boxes. C's rows must
/// be 16-byte aligned for TMA (N a multiple of 4, aligned base); otherwise this version stores
/// from the registers, as v15.
///
/// **What is still wrong.** Every CTA loads its own copy of the B tile, although the CTA working
/// on the tile above needs the same one. The consumers still stop computing for the epilogue
/// (for less time).
///
/// **Predicted.** +1-3% over v15: the epilogue is a few percent of a tile's time at 4096^3.
///
/// **Measured.** More than predicted where tiles are short. The chapter's table (H100 run at
/// 0b38325): 0.99 of cuBLAS BF16 at 4096^3 (743.0 TFLOP/s, v15 709.1: +5%), 0.98 at 2048^3 (562.5
/// TFLOP/s, v15 520.2: +8%), 0.985 at 8192^3 (754.9 TFLOP/s, v15 749.2: +1%). ncu (an earlier
/// run): tensor pipe active 90.6% at 4096^3 (v15 85.7%; cuBLAS 91.2%), 96.0% at 8192^3 (cuBLAS
/// 95.1%), and under ncu's fixed clocks v16 takes 1.53 ms at 8192^3, cuBLAS 1.56 ms.
// [launch]
void launch_gemm_v16_tma_store(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                               const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_warp_specialized<WsConfig<V16Tiles>>(m, n, k, alpha, a, b, beta, c, stream, WsGrid::persistent);
}
// [launch]

}  // namespace gemm
