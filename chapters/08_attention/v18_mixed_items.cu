/// @file
/// @brief v18: v17 with items of two sizes at D = 64, 192 and 128 query rows, so that no item
/// computes rows past the end and the persistent grid's last round takes short ones (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v18: v17, items of 192 and 128 rows.
///
/// **Idea.** A persistent grid runs its items in rounds of one per SM, and the run lasts as long
/// as its busiest block. At B4 H16 S1024 D64 a head's 1024 rows make 5 1/3 items of 192 rows: 6
/// items per head (the last one 64 rows long, computed as 192), 384 items on 132 SMs, so 120 blocks
/// take three items and 12 take two. The work is 65536 rows, 496 per SM: the busiest blocks compute
/// 576 rows (three full items), 1.16x the average, and 1152 where 1024 are needed. v18 splits each
/// head into 4 items of 192 rows and 2 of 128 (small_items(): as many 64-row cuts as the rows past
/// the end allow), takes the long items of every head first and the short ones last, so that the
/// blocks of the last round take short items: the busiest blocks compute 192 + 192 + 128 rows. A
/// short item runs on the first two consumers; the third one has no rows inside Sq and computes
/// nothing (it keeps its turns, so the ring of turns goes on as before). This is *wave
/// quantization*, the problem gemm's v18 (tiles by waves) solved by choosing the tile from the
/// number of waves.
///
/// **Changed since v17.** One field of the tiles (`mixed_items`, in V18Tiles64): the item's rows
/// (mixed_item(): the small items take each head's first rows) and the idle consumer's branch
/// (`[idle]`). With the mask, v14's rule runs v07's tiles at S1024; at S4096 the items are split
/// as without it (a later change: the first measurements below had v17's items there). D = 128
/// runs v17's tiles (128-row items fill a head exactly at every shape of the table).
///
/// **Predicted (H200, written before the first run).** From v11 (two consumers, 391 TFLOP/s) and
/// v12 (three, 454) at S4096 D64, a 128-row item costs about 0.77 of a 192-row one, so the busiest
/// blocks at S1024 D64 go from 3 to 2.77 items' time: +5-8% over v17 there (v17 320 TFLOP/s). At
/// S4096 D64 (22 items per head, 11 rounds) the busiest blocks go from 11 to 10.8 items: +1-2%. Other
/// shapes: unchanged (+-1%).
///
/// **Measured (H200; ncu, clocks at base, 9 launches each; timed runs in the same calls).** The
/// first form, the idle test a plain branch on the warpgroup's rows, was 0.96x v17 with the mask
/// (where it runs v17's items) and 0.98x at S4096 D64 without it: the branch depends on
/// threadIdx, so ptxas moved the stage and parity arithmetic of the whole ping-pong loop off the
/// uniform datapath (182 uniform instructions in the kernel against v17's 284). With the test a
/// vote (`__any_sync`, 361 uniform instructions): ncu 66.4 against v17's 67.8 us at B4 H16 S1024
/// D64 (+2.1%), 777 against 796 us at S4096 D64 (+2.4%), 459 against 456 us with the mask
/// (-0.8%); timed, 1.03-1.04x and 1.05x without the mask, 1.00x with it. Short of the prediction at
/// S1024: a short item on two consumers costs nearer 0.9 of a long one than 0.77 (each consumer's
/// softmax now hides behind one other's products, not two). Letting the third consumer compute
/// its 64 rows past the end (no idle branch) was 0.97-0.99x v17 at S1024 (ncu 68.8 us) and 1% behind
/// v18 at S4096 (785 us).
///
/// **With the mask (a later change).** v17's items at S4096 left each head's last 64 rows, which
/// see every key, to one consumer of three: 64 of a head's 1152 consumer turns idle. Split as
/// without the mask, the small items at the top of the head (the fewest keys) and handed out last
/// by the longest-first order: 1089 turns, 3 idle. **Predicted:** +3-5% at B4 H16 S4096 D64 with
/// the mask, the other shapes unchanged. **Measured (H200, commit e766218):** ncu at base clocks
/// 438.6 against v17's 458.5 us at S4096 D64 with the mask (+4.5%), 791 against 790 without it,
/// 65.9 against 67.8 at S1024; in the recorded run 418.8 TFLOP/s at S4096 D64 causal, 1.045x v17
/// and 1.017x PyTorch's cuDNN in the same call (was 0.959x).
// [launch]
void launch_attention_v18_mixed_items(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                      const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                      cudaStream_t stream) {
  launch_by_shape<V18Tiles64, V17Narrow64, V17Tiles128>(s, q, k, v, o, lse, stream, "v18_mixed_items");
}
// [launch]

}  // namespace attention
