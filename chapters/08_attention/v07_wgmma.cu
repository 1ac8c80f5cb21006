/// @file
/// @brief v07: the Hopper step (sm_90a), FlashAttention-3 style: a producer warpgroup streams K and
/// V tiles into a two-stage ring with TMA; two consumer warpgroups compute S = Q K^T and O += P V
/// with wgmma, P taken from registers.
#include "common/tensor_map.hpp"
#include "warp_specialized_kernel.cuh"

namespace attention {


CUtensorMap head_map(const __nv_bfloat16* base, std::int64_t rows, std::int64_t heads, int d, unsigned box_rows) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(d), static_cast<cuuint64_t>(rows), static_cast<cuuint64_t>(heads)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(d) * 2, static_cast<cuuint64_t>(rows) * d * 2};  // bytes
  const cuuint32_t box[3] = {64, box_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return tut::encode_tiled_map("v07_wgmma", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, base, dims, strides, box,
                               element_strides, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

std::string unsupported_v7(const Shape& s) {
  const std::string d = unsupported_unless_d64_d128(s);
  return d.empty() ? tut::sm90::unavailable() : d;
}

/// @brief v07: wgmma and TMA (sm_90a). The tensor-core work of v06 moves from mma.sync (a warp, 16 x
/// 8 x 16) to wgmma (a warpgroup, 64 x N x 16, asynchronous), and the loads from cp.async issued
/// by every thread to TMA issued by one.
///
/// **Idea.** FlashAttention-2 on the H100 is held by mma.sync: v06 keeps the tensor pipe about 46%
/// busy (ncu) with 8 warps per SM, every warp issuing ldmatrix, mma, softmax and the copies itself.
/// FlashAttention-3 (Shah et al. 2024) rebuilds it on Hopper's two new engines: wgmma, where four
/// warps issue one 64 x 128 x 16 product that reads both operands straight from shared memory
/// (no ldmatrix, no fragments in registers for Q and K), and TMA, where one thread moves a whole
/// tile. The block specializes its warpgroups (as gemm v14): a producer that only issues TMA
/// loads of K and V into a two-stage ring guarded by mbarriers, and two consumers of 64 query
/// rows each that run S = Q K^T (wgmma, A and B from shared memory), the online softmax on S's
/// accumulator registers, and O += P V (wgmma with A = P from registers: S's accumulator layout,
/// rounded to bf16 in pairs, is exactly wgmma's register layout of A, as it is mma.sync's in v04).
/// setmaxnreg gives the producer's registers to the consumers (24 and 240 per thread at one block
/// per SM; ptxas, though, fits the whole kernel in the launch bound's 168).
///
/// **Changed since v06.** 128 x 128 tiles (query rows x keys; at D = 64 128 x 64, two blocks per
/// SM, from the search) computed by two warpgroups instead of 128 x 64 (or x 32 at D = 128) by
/// four warps; K and V by TMA (3-D tensor maps: a box never
/// crosses into the next head, rows past Sq or Sk arrive as zeros) instead of cp.async; Q once
/// by TMA. What stays: the online softmax and its base-2 arithmetic, the mask only on the tiles
/// that need it, causal blocks longest first, O = 0 / lse = -inf for rows that see no key. Not
/// yet: FlashAttention-3's overlap of one warpgroup's softmax with its next tile's Q K^T and the
/// ping-pong schedule between the two warpgroups (v09); here the two consumers overlap only as the
/// warp schedulers happen to interleave them, and each waits for its own wgmma. Where the code
/// is: the kernel in warp_specialized_kernel.cuh (`[kernel]`, its `[producer]` and `[consumer]`
/// parts), one consumer's products and softmax on a tile in wgmma_tile.cuh (`[scores]`, `[pv]`,
/// `[softmax]`), the tiles v07 runs (V07Tiles64, V07Tiles128) at the end of wgmma_tile.cuh.
///
/// **Predicted (H100).** In the gemm chapter wgmma ran 1.73x mma.sync (v14 751 against v11 434
/// TFLOP/s at 8192^3); the softmax and the waits stay as they were. 380-450 TFLOP/s at S >= 4096
/// without the mask (v06: 282-298), above FlashAttention-2's 302-366, below cuDNN's 486-686.
///
/// **Measured (H100, the run at 0b38325).** 562 TFLOP/s at B2 H16 S4096 D128 and 593 at B1 H32
/// S8192 D128 (v06: 288, 297), 484 and 542 with the causal mask: twice v06, above the prediction. At
/// D = 64 404 at S4096 and 294 at S1024 (causal 371 and 218), 1.19-1.43x v06. In the search's runs
/// (`attention_tune`) the first D = 64 tiles (128 keys, one block per SM) reached 377 at S4096 but
/// only 267 at S1024 (ncu: the tensor pipe 33% busy); two blocks per SM with 64-key tiles
/// (consumers at 104 registers, a block waits for its loads while the other computes) won. ncu at
/// S8192 D128: the tensor pipe 63% busy (v06: 46%), issue slots 34%, 168 registers, 3 warpgroups per
/// SM; the consumer waits for each of its wgmma groups, so its softmax and its tensor-core work
/// still alternate.
// [launch]
void launch_attention_v07_wgmma(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                               __nv_bfloat16* o, float* lse, void* /*workspace*/, cudaStream_t stream) {
  launch_by_head_dim<V07Tiles64, V07Tiles128>(s, q, k, v, o, lse, stream, "v07_wgmma");
}
// [launch]

}  // namespace attention
