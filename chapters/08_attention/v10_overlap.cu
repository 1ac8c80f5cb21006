/// @file
/// @brief v10: v09's turns, and inside each turn the consumer's softmax of tile j overlapping its
/// own P V of tile j - 1 (FlashAttention-3's intra-warpgroup overlap; sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v10: v09, with each consumer's softmax running beside its own P V.
///
/// **Idea.** In v09 a consumer's turn issues tile j - 1's P V and tile j's S as one group and
/// waits for both before tile j's softmax: the softmax cannot start until the P V, which it does
/// not need, has finished. FlashAttention-3 (Shah et al. 2024, section 3.2, "intra-warpgroup
/// overlapping") issues them as two groups, S first, waits for S alone (`wgmma.wait_group 1`)
/// and runs the softmax on S's registers while the P V is still on the tensor cores. The P V
/// reads tile j - 1's P from registers and adds into O, so O's rescale and the packing of tile
/// j's P into bf16 wait for it (`wait_group 0`); no second set of P registers is needed.
///
/// **Changed since v09.** One switch in the tiles (`overlap`, V10Tiles128) and the branch marked
/// `[overlap]` in v09's turn (warp_specialized_kernel.cuh): two commit groups instead of one,
/// `wait_group 1` before the softmax and `wait_group 0` after it, then O's rescale and P's
/// packing. The producer, the turns, the ring and the softmax are v09's. At D = 64 v10 runs v09's
/// choice there (v07's tiles, no turns).
///
/// **Predicted (H200).** The FlashAttention-3 paper's ablation credits this overlap with about
/// 10% beside the ping-pong at D = 128. With the turns already hiding part of each softmax
/// behind the other consumer's products, we predicted +4-8% over v09 at D = 128.
///
/// **Measured (H200, the device runs at e64ee17 and 63e03b3).** 1.02-1.05x of v09 at D = 128,
/// below the prediction; at 63e03b3: 584 TFLOP/s at B2 H16 S4096 (v09 565), 620 at B1 H32 S8192
/// (v09 593), 640 at B1 H16 S16384 (v09 616); with the mask 519, 581 and 626 (v09 506, 570, 604).
/// Against cuDNN (PyTorch, same call) 0.86x and 0.89x without the mask, 0.97x and 0.93x with it.
/// ncu (B2 H16 S4096): the tensor pipe 61.4% busy, v09 59.4%. On its own, without v09's turns,
/// the same overlap had lost 9% to v07 (the chapter page, "Tried after v07"). At D = 64, on the
/// turns' one block per SM, it reached 371 TFLOP/s at S4096 against 388 for v07's two blocks
/// (v10's search at e64ee17), so v10 keeps v07's tiles there.
///
/// **What the SASS shows (found after v20).** ptxas (CUDA 13.0) moves the `wait_group 0` up,
/// before the softmax's exponentials: only part of the row max runs beside the P V. A
/// development build that forced the wait after them (SASS checked) ran 0.99-1.02x v20: with
/// the turns, the other consumer's products cover the softmax either way (the chapter page,
/// "Tried after v20, not kept").
// [launch]
void launch_attention_v10_overlap(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                  cudaStream_t stream) {
  launch_by_head_dim<V09Tiles64, V10Tiles128>(s, q, k, v, o, lse, stream, "v10_overlap");  // at D = 64 v09's (v07's) tiles
}
// [launch]

}  // namespace attention
