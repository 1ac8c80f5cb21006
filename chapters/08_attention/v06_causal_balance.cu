/// @file
/// @brief v06: v05 with the causal mask's costs removed: the mask is computed only on the tiles that
/// cross the diagonal (or the end of K), and the blocks with the most tiles start first (sm_80+).
#include "causal_balance_kernel.cuh"

namespace attention {

/// @brief v06: the causal mask costs only where it masks. Tiles inside the visible triangle skip
/// the mask arithmetic, and blocks are launched longest first.
///
/// **Idea.** From v02 on, every fused version stops at the last key tile its block's rows can
/// see, so the fully masked half of the causal score matrix is never computed. Two costs of the
/// mask remain. (1) The mask arithmetic (a row and a key index, two compares and a select per
/// score) runs on every tile although only the one or two tiles that cross the diagonal (and the
/// last, partial tile of K) mask anything. (2) The work per block is uneven: with Sq = Sk the
/// block of query tile i visits i + 1 key tiles. Blocks start roughly in grid order; if the long
/// ones start last, the GPU ends with a few long blocks running on an otherwise idle machine.
/// v06 computes the mask only on the tiles that need it (a second instantiation of the tile
/// function without it), and orders the grid so that the query tiles with the most keys come
/// first, for all heads at once, and the shortest fill in at the end (the longest-processing-time
/// rule of scheduling).
///
/// **Changed since v05.** The block-to-tile mapping (causal only) and the test of which tiles need
/// the mask, in the kernel of causal_balance_kernel.cuh (`[kernel]`), templated on its tiles for
/// the search. Without the mask, v06 runs exactly v05's tiles; only the last partial tile of K is
/// masked.
///
/// **Predicted.** Causal: +5-15% over v05 (less arithmetic per tile, a shorter tail at the end of
/// the grid, most visible with few blocks per SM, e.g. S = 1024); non-causal: +1-3% (the mask of
/// the last tile only).
///
/// **Measured (H100, the run at 0b38325).** Causal far more than predicted: +46% at B4 H16 S1024
/// D64 (125 -> 183 TFLOP/s), +26% at S4096 D64 (216 -> 271), +29% at S4096 D128 (211 -> 273),
/// +19% at S8192 D128 (246 -> 293): causal v06 runs at 84-99% of its non-causal rate, where v05 ran
/// at 60-85%. Non-causal +2-5% (218, 282, 288, 297 TFLOP/s). The search (tune/flash_candidates.cu,
/// `attention_tune`) kept v04's tiles (V06Tiles64, V06Tiles128, at the end of
/// causal_balance_kernel.cuh): 8 warps of 16 rows lost 1-26%, 64-key
/// tiles at D = 128 (FlashAttention-2's choice; 68 bytes of spills here) 1-2%.
// [launch]
void launch_attention_v06_causal_balance(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                        cudaStream_t stream) {
  if (s.d == 64) {
    launch_causal_balance<V06Tiles64>(s, q, k, v, o, lse, stream);
  } else {
    launch_causal_balance<V06Tiles128>(s, q, k, v, o, lse, stream);
  }
}
// [launch]

}  // namespace attention
