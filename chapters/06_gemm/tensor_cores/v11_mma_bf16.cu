/// @file
/// @brief v11: BF16 tensor cores in PTX: mma.sync m16n8k16, ldmatrix from a swizzled shared-memory
/// layout, a multi-stage cp.async pipeline of 64-wide k-slices, double-buffered fragments, two
/// blocks per SM (sm_80+). The kernel is in mma_bf16_kernel.cuh, its tile helpers in
/// bf16_tiles.cuh, the configuration it runs (V11Tiles) at the end of mma_bf16_kernel.cuh; this
/// file holds the launcher and the step's story.
#include <cstdint>

#include "gemm.hpp"
#include "mma_bf16_kernel.cuh"

namespace gemm {

/// @brief v11: mma.sync in PTX with ldmatrix, a swizzled layout, a cp.async pipeline of 64-wide
/// k-slices, double-buffered fragments and two blocks per SM (BF16).
///
/// **Idea.** Go one level below WMMA, to the instructions it is made of, and take control of
/// everything WMMA hid: the register layout of the fragments (documented in the PTX ISA for
/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`), the instruction that loads them
/// (`ldmatrix`, which hands each lane exactly the registers mma wants, transposing B on the way
/// with `.trans`), and therefore the shared-memory layout: an XOR swizzle of the 16-byte chunks
/// makes every ldmatrix and every cp.async conflict-free without padding. BF16 halves the bytes
/// per input element (tensor-core rate is the same as FP16's, twice TF32's).
///
/// **Changed since v10.** PTX fragments instead of WMMA (the kernel, gemm_v11_mma_bf16(), is in
/// mma_bf16_kernel.cuh; the swizzle, the copies of a k-slice and the fragment loads are in
/// bf16_tiles.cuh); 128 x 128 x 64 block tiles of 4 warps of 64 x 64 (128 accumulator registers
/// per lane), two blocks per SM; 3 pipeline stages of 32 KiB; fragments double buffered in
/// registers; grouped rasterization of the block tiles for L2 reuse; epilogue directly from the
/// accumulator registers; the copy loop compiled without its scalar path when both operands are
/// aligned.
///
/// **Edges.** 16-byte cp.async needs K % 8 == 0 (A) and N % 8 == 0 (B) and aligned bases. When
/// both hold (the host checks), the aligned instantiation runs; otherwise the general one, whose
/// copy loop loads an unaligned operand's chunks with predicated 2-byte loads and one 16-byte
/// shared store (synchronous, slower, correct). Out-of-range rows, columns and k are zero-filled.
///
/// **Why it stops short of Hopper's peak.** `mma.sync` is the Ampere interface. On an H100 the
/// tensor cores reach their full rate only through `wgmma` (warpgroup MMA, sm_90a): four warps
/// issue one asynchronous instruction reading A and B straight from shared memory, so the
/// operands never pass through the register file and no warp waits on ldmatrix. With mma.sync
/// every operand byte goes shared memory -> registers -> tensor core, costing issue slots and
/// register bandwidth; the 128 accumulators per lane cap the warp tile at 64 x 64. The copies
/// are also issued thread by thread; on Hopper the TMA engine moves whole tiles with one
/// instruction and signals an mbarrier. Both are the subject of v12-v17.
///
/// **Predicted.** At least half of cuBLAS BF16 at 8192^3 (the step's target). The first v11
/// (M0: 32-wide k-slices, single fragments, one block of 8 warps per SM) measured 252 TFLOP/s on
/// an H200, 32% of cuBLAS BF16: with two warps per scheduler, each barrier and each ldmatrix ->
/// mma dependency left the tensor cores idle. Predicted for round 1 of the search: 50-55% with
/// 64-wide slices, double-buffered fragments and 4 stages (M4), double buffering worth 10-20%;
/// for round 3 (the copy loop compiled without its scalar path for aligned operands): a few
/// percent from the freed registers.
///
/// **Measured.** The chapter's table (H100 run at 0b38325, cuBLAS BF16 in the same run): 431.8
/// TFLOP/s at 8192^3, 0.56 of cuBLAS BF16 (766.2 TFLOP/s); 407.2 TFLOP/s and 0.54 at 4096^3, 0.59
/// at 2048^3, 0.51 at 1024^3, 0.48 at 4095 x 4097 x 1023 (68.4 TFLOP/s: the general kernel). The
/// search (`gemm_tune`, 8192^3; the chapter page has the tables): round 1 (H200) best M3 (3 stages)
/// at 45.9%, double buffering +10-17%, 64-wide slices +5%; round 2 (16 warps of 64 x 32) lost
/// (43%); round 3 (H100, cuBLAS BF16 787 TFLOP/s in that run) far more than predicted: M3 367 ->
/// 415 TFLOP/s (46.6% -> 52.7%, +13%) with the same 250 registers, and every 64-wide candidate
/// within about 1% of the others (M4 55.3%, M8 55.1%, M6 55.0%, M9 54.7%).
// [launcher]
void launch_gemm_v11_mma_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const __nv_bfloat16* a,
                              const __nv_bfloat16* b, float beta, float* c, cudaStream_t stream) {
  launch_mma<MmaConfig<V11Tiles>, MmaConfig<V11GeneralTiles>>(m, n, k, alpha, a, b, beta, c, stream);
}
// [launcher]

}  // namespace gemm
