/// @file
/// @brief v13: v12 on a persistent grid: one block per SM takes item after item (head, query
/// tile), loading the next item's Q and K/V while it stores this one's O (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v13: v12's kernel, persistent.
///
/// **Idea.** v12 launches one block per item (a head's tile of 192 or 128 query rows) and fits one
/// block per SM. Each block starts with its SM's tensor cores idle: the producer's first loads (Q,
/// then K and V of the first key tile) must land before any product, and it ends with them idle
/// again while the consumers store O. Where an item has few key tiles (S1024: 1 to 8, fewer with
/// the causal mask) that start and end are a large share of the block's life, and nothing else runs
/// on the SM meanwhile; v07's two blocks per SM fill that gap for each other. FlashAttention-3's
/// kernel is persistent: a grid of one block per SM, each block looping over items, so the
/// producer loads the next item's Q and first K/V tiles while the consumers still compute and
/// store the current one.
///
/// **Changed since v12.** One field of the tiles (`persistent`, V13Tiles64, V13Tiles128): the grid
/// is min(items, SMs) blocks, and the kernel loops over a block's items, one per round (for
/// v07-v12 there is one round): the ring of K/V stages counts its fills across items, Q gets a
/// second barrier (`q_empty`) on which the consumers release it after an item's last S, so that
/// the producer can load the next item's Q, and odd rounds hand the items out in reverse (a snake:
/// with the mask, items come longest first, and the block that took a round's longest takes the
/// next round's shortest).
///
/// **Predicted (H200, written before the run).** At B4 H16 S1024 D64 (384 items of 192 rows on
/// 132 SMs, 2-8 key tiles each) the exposed start and end are worth 10-15% of v12's time: v13
/// +5-12% over v12 there, with the mask back at or above v11's 221 TFLOP/s; at S4096 and longer,
/// where items have 22 or more key tiles, +0-3%.
///
/// **Measured (H200, the device run at 7109b50).** 1.03x v12 at B4 H16 S1024 D64 (310 against
/// 300 TFLOP/s) and 1.06x with the mask (197 against 185): below the prediction, and with the mask
/// still short of v11's 215 (v12's 192-row tiles compute 1.33x the scores there: v14). At S4096
/// D64 1.00x, 1.01x with the mask; at D = 128 1.00x at S4096, 1.02x with the mask (524 against 513,
/// 0.99x cuDNN's 530), 0.99x and 1.00x at S8192. The first version, without the snake, lost 6% to
/// v12 with the mask at D = 128 (482 against 511, the run at 5604878).
// [launch]
void launch_attention_v13_persistent(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                     const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                     cudaStream_t stream) {
  launch_by_head_dim<V13Tiles64, V13Tiles128>(s, q, k, v, o, lse, stream, "v13_persistent");
}
// [launch]

}  // namespace attention
