/// @file
/// @brief v10: v9's turns, and inside each turn the consumer's softmax of tile j overlapping its
/// own P V of tile j - 1 (FlashAttention-3's intra-warpgroup overlap; sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v10: v9, with each consumer's softmax running beside its own P V.
///
/// **Idea.** In v9 a consumer's turn issues tile j - 1's P V and tile j's S as one group and
/// waits for both before tile j's softmax: the softmax cannot start until the P V, which it does
/// not need, has finished. FlashAttention-3 (Shah et al. 2024, section 3.2, "intra-warpgroup
/// overlapping") issues them as two groups, S first, waits for S alone (`wgmma.wait_group 1`)
/// and runs the softmax while the P V is still on the tensor cores. The softmax makes tile j's P
/// while tile j - 1's P V still reads tile j - 1's P from registers, so P needs a second set of
/// registers (p_next, 32 more per thread at D = 128: S 64 + O 64 + 2 x P 32 = 192 of the
/// consumers' 240); O is rescaled only after the P V's wait, since the P V accumulates into it.
///
/// **Changed since v9.** One switch in the tiles (`overlap`, V10Tiles128) and the branch marked
/// `[overlap]` in v9's turn (warp_specialized_kernel.cuh): two commit groups instead of one,
/// `wait_group 1` before the softmax and `wait_group 0` after it, the rescale of O after the
/// second wait, p_next copied into p. The producer, the turns, the ring and the softmax are v9's.
/// At D = 64 v10 runs v9's choice there (v7's tiles, no turns).
///
/// **Predicted (H200).** The FlashAttention-3 paper's ablation credits this overlap with about
/// 10% beside the ping-pong at D = 128 (from 582 to 661 TFLOP/s on an H100 SXM with both). With
/// the turns already hiding part of each softmax behind the other consumer's products, we
/// predict +4-8% over v9 at D = 128.
///
/// **Measured.** Pending the device run.
// [launch]
void launch_attention_v10_overlap(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                  cudaStream_t stream) {
  if (s.d == 64) {
    launch_warp_specialized<V9Tiles64>(s, q, k, v, o, lse, stream, "v10_overlap");  // v9's (v7's) tiles
  } else {
    launch_warp_specialized<V10Tiles128>(s, q, k, v, o, lse, stream, "v10_overlap");  // (another D: refused there)
  }
}
// [launch]

}  // namespace attention
