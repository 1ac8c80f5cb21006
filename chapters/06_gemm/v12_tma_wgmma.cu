/// @file
/// @brief v12: Hopper's own path to the tensor cores: TMA loads of 128-byte-swizzled tiles into a
/// ring of stages guarded by mbarriers, and wgmma reading both operands from shared memory, in
/// one warpgroup (sm_90a).
#include "gemm.hpp"
#include "v12_tma_wgmma.cuh"

namespace gemm {

/// v12's configuration: 128 x 128 tiles computed by one warpgroup (two m64n128k16 per k-step,
/// 128 accumulators per thread), 4 stages of 32 KiB.
using V12Config = TmaWgmmaConfig<128, 128, 4, 1, 1>;

/// @brief v12: TMA + wgmma, one warpgroup per block.
///
/// **Idea.** Use Hopper's own machinery instead of Ampere's. One thread asks the Tensor Memory
/// Accelerator (TMA) for a whole tile with one instruction (`cp.async.bulk.tensor`); the unit
/// computes every address, clips the box at the matrix edges (zeros outside), writes it in
/// 128-byte-swizzled order and signals an mbarrier with the byte count. Four warps together
/// (a warpgroup) issue `wgmma.mma_async`, which reads A and B straight from shared memory
/// through 64-bit matrix descriptors: no ldmatrix, no fragments in registers, no copy loop.
/// See gemm_v12_tma_wgmma() in v12_tma_wgmma.cuh.
///
/// **Changed since v10.** The copies: TMA loads into a 4-stage ring guarded by full/empty
/// mbarriers instead of per-thread cp.async and a barrier per slice. The math: per 64-wide
/// k-slice, 2 x 4 wgmma m64n128k16 per warpgroup (B is K x N row-major, i.e. "MN-major": the
/// instruction's transpose-B flag is set) instead of 4 x 32 mma.sync per warp. The block: one
/// warpgroup (128 threads) owns a 128 x 128 tile. The epilogue still stores from registers.
/// TMA needs 16-byte aligned rows: operands whose K (A) or N (B) is not a multiple of 8, or
/// whose base is not 16-byte aligned, are first copied into a padded workspace
/// (sm90::tma_operands(), one extra pass, timed with the rest).
///
/// **What is still wrong.** Thread 0 both computes and feeds the ring: when it waits for the
/// other warps to release a stage, its warpgroup's next wgmma waits too. One warpgroup of 128 x
/// 128 reads 6 KiB of shared memory per m64n128k16: a wider tile (v13) reads less per FLOP.
///
/// **Predicted.** wgmma keeps the tensor cores fed without the ldmatrix traffic that capped v10
/// (shared-memory pipe the busiest): 60-70% of cuBLAS BF16 at 4096^3 and 8192^3 (v10: 54-56%).
///
/// **Measured (H100, one run of the chapter's executable, ratios to cuBLAS BF16 in that run).**
/// 0.74 at 4096^3 and 0.80 at 8192^3 (v10: 0.54, 0.57): inside the prediction. ncu at 4096^3:
/// tensor pipe active 63.5% of cycles (v10: 66%, but v10 needs 1.42x the time), no shared-memory
/// bank conflicts (v10: 86 thousand); at 8192^3 the top stall reasons are `wait` and `gmma`
/// (waiting for wgmma results at wgmma_wait<1>: one warpgroup has nothing else to do).
/// 4095 x 4097 x 1023: 1.31x cuBLAS (operands repacked; cuBLAS itself runs at 142 TFLOP/s there).
void launch_gemm_v12_tma_wgmma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                               const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_tma_wgmma<V12Config>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
