/// @file
/// @brief v12: Hopper's own path to the tensor cores: TMA loads of 128-byte-swizzled tiles into a
/// ring of stages guarded by mbarriers, and wgmma reading both operands from shared memory, in
/// one warpgroup (sm_90a).
#include "gemm.hpp"
#include "tma_wgmma_kernel.cuh"

namespace gemm {

/// v12's configuration: 128 x 128 tiles computed by one warpgroup (two m64n128k16 per k-step,
/// 128 accumulators per thread), 4 stages of 32 KiB.
// [config]
struct V12Tiles {
  static constexpr int block_m = 128;   ///< block tile (128, 128)
  static constexpr int block_n = 128;   ///< (see block_m): the wgmma's n
  static constexpr int stages = 4;      ///< 4 stages of 32 KiB in the ring
  static constexpr int consumers = 1;   ///< one warpgroup computes the whole tile
  static constexpr int min_blocks = 1;  ///< one block per SM promised to the compiler
};
// [config]

/// @brief v12: TMA + wgmma, one warpgroup per block.
///
/// **Idea.** Use Hopper's own machinery instead of Ampere's. One thread asks the Tensor Memory
/// Accelerator (TMA) for a whole tile with one instruction (`cp.async.bulk.tensor`); the unit
/// computes every address, clips the box at the matrix edges (zeros outside), writes it in
/// 128-byte-swizzled order and signals an mbarrier with the byte count. Four warps together
/// (a warpgroup) issue `wgmma.mma_async`, which reads A and B straight from shared memory
/// through 64-bit matrix descriptors: no ldmatrix, no fragments in registers, no copy loop.
/// See gemm_v12_tma_wgmma() in tma_wgmma_kernel.cuh.
///
/// **Changed since v11.** The copies: TMA loads into a 4-stage ring guarded by full/empty
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
/// **Predicted.** wgmma keeps the tensor cores fed without the ldmatrix traffic that capped v11
/// (shared-memory pipe the busiest): 60-70% of cuBLAS BF16 at 4096^3 and 8192^3 (v11: 54-56%).
///
/// **Measured.** Inside the prediction. The chapter's table (H100 run at 0b38325, cuBLAS BF16 in
/// the same run): 0.74 of cuBLAS BF16 at 4096^3 (558.3 TFLOP/s) and 0.79 at 8192^3 (603.1
/// TFLOP/s), where v11 ran at 0.54 and 0.56; 1.33x cuBLAS at 4095 x 4097 x 1023 (188.1 TFLOP/s,
/// operands repacked; cuBLAS itself runs at 141.9 TFLOP/s there). ncu at 4096^3 (an earlier run):
/// tensor pipe active 63.5% of cycles (v11: 66%, but v11 needs 1.42x the time), no shared-memory
/// bank conflicts (v11: 86 thousand); at 8192^3 the top stall reasons are `wait` and `gmma`
/// (waiting for wgmma results at wgmma_wait<1>: one warpgroup has nothing else to do).
void launch_gemm_v12_tma_wgmma(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                               const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_tma_wgmma<TmaWgmmaConfig<V12Tiles>>(m, n, k, alpha, a, b, beta, c, stream);
}

}  // namespace gemm
