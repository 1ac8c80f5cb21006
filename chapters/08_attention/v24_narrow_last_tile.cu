/// @file
/// @brief v24: v23 with an item's last key tile, where its keys end in the first 64 of 176,
/// multiplied and softmaxed over those 64 alone (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v24: v23, an item's last key tile narrowed.
///
/// **Idea.** At D = 128 the tiles have 176 keys (v11), and an item's keys rarely end on a tile's
/// edge: 4096 keys are 23 tiles and 48 keys, and v23 multiplies, exponentiates and packs the last
/// tile over all 176, the 128 past the end masked to zero. Measured on v23 (H200, B2 H16 Sq 4096
/// D128, the chapter page): over 4096 keys it ran as long as over 4224 (24 full tiles), 2-4% longer
/// than over 4048 (23). wgmma's n is a compile-time part of the instruction, in steps of 8 up to
/// 256, and an m64nKk16 product writes the same registers, in the same layout, as the first K
/// columns of a wider one: so a last tile whose keys end in its first 64 can be multiplied over
/// those alone (m64n64k16), its softmax run over 32 registers instead of 88, and its P V take 4
/// k-steps instead of 11. The tile still arrives whole (the TMA box is the ring's); only the work
/// on it shrinks.
///
/// **Changed since v23.** One field of the tiles, `narrow_last_tile` (V24Tiles128; at D = 64 v24
/// runs v23's tiles, V23Tiles64, whose 128 keys the default shapes fill). Where the item's keys
/// past its other tiles are 64 or fewer (narrows_last_tile() in attention.hpp), its last turn
/// is compiled for 64 keys (`[narrow_last]` in the kernel: the `keys` argument of `turn`,
/// `wgmma_scores<T, 64>` into an S array of its own, softmax_tile_packed<64> into P's first four
/// k-steps, first_p(), and `wgmma_pv<T, 64>`). From an
/// item's second tile on: the first turn stays whole. v07-v23's PTX is unchanged. A form that also
/// narrowed to 128 keys (S8192's last tile holds 96) made ptxas spill 8 bytes in the D = 128
/// kernel and was dropped before the first timing; a first one that kept the narrow S in sc's own
/// registers made ptxas serialize every wgmma of the kernel (advisory C7511, "insufficient register
/// resources for the wgmma pipeline").
///
/// **Predicted** (written before the first run, for the form with 64 and 128): at B2 H16 S4096
/// D128 (last tile 48 keys) +1-3%, the bound measured above; with the mask, where every item's last
/// tile is its diagonal and ends anywhere in it, +1-2%; at B1 H32 S8192 D128 (last tile 96 keys)
/// +0.3-0.6%, with the mask +1%; the D = 64 shapes unchanged (v23's kernel).
///
/// **Measured first in a development call** (H200, this file's code before the chapter's recorded
/// run; correct over the default shapes, the size sweep, the turns test and its own test `[v24]`;
/// two runs of 30 repetitions in each order, ratio to v23 in the same run): 1.014-1.017x at B2 H16
/// S4096 D128 (643 to 653 TFLOP/s), 1.003-1.008x with the mask, 1.006-1.009x at S8192 D128 with the
/// mask; at S8192 D128 without it (96 keys left: not narrowed) 0.97-1.03x, the row's noise; at
/// D = 64 (v23's kernel) 1.00x but in one run of four at S1024 (0.91x and 0.97x: v23's own kernel).
/// As predicted at S4096 D128, under it with the mask.
///
/// **Predicted for the chapter's recorded run**: 1.01-1.02x v23 at S4096 D128 (0.97-0.98x cuDNN:
/// still behind), 1.00-1.01x with the mask and at S8192 D128 with the mask, 1.00x elsewhere.
///
/// **Measured (H200).** The chapter's recorded run (commit 29f7682, PyTorch's cuDNN in the same
/// call): 1.014x v23 at B2 H16 S4096 D128 (654.9 TFLOP/s, 0.973x cuDNN), 1.003x with the mask
/// (562.0, 1.060x cuDNN), 1.009x at B1 H32 S8192 D128 with the mask (622.0, 1.014x cuDNN); 1.005x
/// at S8192 D128 without it (685.8, 1.008x cuDNN; its last tile holds 96 keys, not narrowed: the
/// same code), 0.998-1.005x at the D = 64 shapes (v23's kernel). As predicted; still behind cuDNN
/// at S4096 D128 and at S1024 D64 (0.959x).
// [launch]
void launch_attention_v24_narrow_last_tile(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                           const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                           cudaStream_t stream) {
  launch_by_shape<V23Tiles64, V21Narrow64, V24Tiles128>(s, q, k, v, o, lse, stream, "v24_narrow_last_tile");
}
// [launch]

}  // namespace attention
