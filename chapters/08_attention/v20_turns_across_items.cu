/// @file
/// @brief v20: v19 with the consumers' turns running on from one item to the next, so that the
/// next item's first Q K^T is issued while this item's last P V and output are done (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v20: v19, turns across items.
///
/// **Idea.** The consumers of a block take turns on the tensor cores (v09, v12), and on the
/// persistent grid (v13) a block runs item after item. Each item's turns start with warpgroup 0
/// (its first turn: tile 0's S alone) and end with the last warpgroup (its last turn: the last
/// tile's P V alone); up to v19 the last warpgroup handed the next item's first turn to
/// warpgroup 0 only at the start of the next item, after waiting for its own last P V and
/// writing its output. All that while no product was queued on the tensor cores. v20 passes the
/// turn on after the last P V is issued, as after every other turn, when the block has another
/// item with key tiles (items whose rows see no key have no turns): warpgroup 0 issues the next
/// item's first S while the others finish this one.
///
/// **Changed since v19.** One field of the tiles that take turns (`early_pass`, in V20Tiles64 and
/// V20Tiles128); in the kernel, the last warpgroup looks ahead for the block's next item with key
/// tiles and passes its last turn (`pass_first()` and `pass_last()` in `[ping_pong]` and
/// `[idle]`). v19's 128-row tiles at D = 64 have no turns and stay as they are.
///
/// **Predicted (written before the first run).** The gap is one P V wait and one output per item
/// and block: at B4 H16 S1024 D64 (8 key tiles per item, three consumers) +3-5%; at S4096 D64
/// (32 tiles) about +1%; at D = 128 (24 tiles of 176 keys at S4096, two consumers) under 1%;
/// S1024 D64 with the mask runs v19's 128-row tiles (unchanged).
///
/// **Measured (H200).** The first run (a development build on top of commit 6d5c86d; two runs of
/// 50 repetitions in each order): 1.026-1.031x v19 at B4 H16 S1024 D64, 1.007-1.015x at S4096 D64
/// and 1.013-1.016x with the mask, 1.006-1.014x at B2 H16 S4096 D128 and 1.011-1.015x with the
/// mask, 1.00-1.07x at B1 H32 S8192 D128 (v19's own time moved by 7% between the runs there) and
/// 0.99-1.01x with the mask, 1.00x at S1024 D64 with the mask (v19's kernel); racecheck and
/// synccheck clean over the sweep's small shapes. A little under the prediction at S1024, as
/// predicted elsewhere. The chapter's recorded run (commit 7e56d21, PyTorch's cuDNN in the same
/// call): 1.034x v19 at S1024 D64 (348.6 TFLOP/s, 0.94x cuDNN), 1.013x at S4096 D64 (0.999x cuDNN)
/// and 1.009x with the mask (1.035x cuDNN), 1.012x and 1.014x at S4096 D128 (0.92x and 1.02x
/// cuDNN), 1.00x and 1.01x at S8192 D128.
// [launch]
void launch_attention_v20_turns_across_items(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                             const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                             cudaStream_t stream) {
  launch_by_shape<V20Tiles64, V19Narrow64, V20Tiles128>(s, q, k, v, o, lse, stream, "v20_turns_across_items");
}
// [launch]

}  // namespace attention
