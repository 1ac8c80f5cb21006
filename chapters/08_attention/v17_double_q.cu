/// @file
/// @brief v17: v16 with two Q tiles on the persistent grid at D = 64, so that the next item's Q is
/// loaded while this item's is in use (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v17: v16, the next item's Q loaded ahead.
///
/// **Idea.** On v13's persistent grid a block takes item after item, and the producer loads the
/// next item's K and V tiles into the ring while the consumers finish this one. Not so its Q: one
/// Q tile per block, so the next one may only be loaded once every consumer has waited for its
/// last S of this item; its first S then waits for that load (a round trip to L2 or memory) after
/// the last P V and the output's stores. At S = 1024 a block's items are 8 key tiles long (192
/// rows, 128 keys), and ncu on v14 there put 8% of the samples in the waits for loads. With two Q
/// tiles the producer loads item r + 1's Q into the other one as soon as it is done with item r's
/// loads, a tile or two ahead.
///
/// **Changed since v16.** One field of the tiles (`q_buffers`: 2 in V17Tiles64), the kernel's Q
/// tile, full and empty barriers indexed by the item's count (q_fills % 2). At D = 128 a second
/// 32 KiB Q tile does not fit beside the 176-key stages, and v07's narrow tiles at D = 64 are not
/// persistent: both stay v16's.
///
/// **Predicted (H200, written before the first run).** If most of the 8% of samples waiting for
/// loads at B4 H16 S1024 D64 wait for Q: +3-6% over v16 there without the mask (with it, v14's rule
/// runs v07's tiles: unchanged), +1-2% at S4096 D64 (32 key tiles per item), D = 128 unchanged.
///
/// **Measured (H200, the device run at 93c1ecf, same run as v16's row).** As predicted: 1.04x
/// v16 at B4 H16 S1024 D64 (320 TFLOP/s), 1.02x at S4096 D64 with and without the mask (464 and
/// 400), 1.00x where it runs v16's kernel. Against cuDNN (PyTorch, same call) 0.86x at S1024 D64,
/// 0.97x at S4096 D64; 1.02x at S4096 D128 with the mask, 0.92-0.97x on the other shapes.
// [launch]
void launch_attention_v17_double_q(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                   cudaStream_t stream) {
  launch_by_shape<V17Tiles64, V17Narrow64, V17Tiles128>(s, q, k, v, o, lse, stream, "v17_double_q");
}
// [launch]

}  // namespace attention
