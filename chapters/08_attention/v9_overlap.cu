/// @file
/// @brief v9: v7 with a software pipeline inside each consumer warpgroup: tile j's softmax runs
/// on the threads while the tensor cores run tile j - 1's P V (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// v9's tiles: v7's with the pipeline (`overlap`); at D = 64 one block per SM (v7: two), since
/// the pipeline does not fit in the 104 registers per consumer thread that two blocks leave.
// [v9_config]
struct V9Tiles64 : V7Tiles64 {
  static constexpr int keys_per_tile = 64;     ///< as v7
  static constexpr int min_blocks_per_sm = 1;  ///< (v7: 2)
  static constexpr bool overlap = true;        ///< (v7: false)
};
struct V9Tiles128 : V7Tiles128 {
  static constexpr bool overlap = true;  ///< (v7: false)
};
// [v9_config]

/// @brief v9: the softmax of one tile overlaps the products of the next.
///
/// **Idea.** In v7 a consumer warpgroup runs each tile in order: S = Q K^T on the tensor cores,
/// wait, mask and softmax on the threads, O += P V on the tensor cores, wait. While the threads
/// compute the softmax (exponentials, a max and a sum over 8 lanes), the tensor cores have nothing
/// of this warpgroup's to do, and only the other consumer can fill them. FlashAttention-3 (Shah et
/// al. 2024, section 3.2) pipelines the two inside a warpgroup: issue tile j's S = Q K_j^T and tile
/// j - 1's O += P V_{j-1}, wait only for S_j, and compute S_j's softmax while P V runs. Its ablation
/// credits this overlap with about 12% at head dimension 128.
///
/// **Changed since v7.** Only the consumers' loop (warp_specialized_kernel.cuh, `[overlap]`, with
/// `overlap = true` in the tiles): a prologue (tile 0's scores and softmax), iterations that issue
/// two groups of wgmma and wait for them one at a time (wgmma_wait<1>, then <0>), an epilogue (the
/// last P V). O's rescale and P's conversion move after the wait for P V (they write registers the
/// running wgmma read). Registers and shared memory as v7's (one set of scores, one of P).
///
/// **What is still wrong.** Between the wait for P V and the next iteration's issue, the threads
/// rescale O and convert P while the tensor cores idle; the two consumers are not ordered against
/// each other (FlashAttention-3's ping-pong schedule, the other 12% of its ablation).
///
/// **Predicted.** +8-12% over v7 at D = 128 (FlashAttention-3's ablation), less at D = 64 where the
/// second block per SM already fills the gaps: about cuDNN's speed at S4096 and S8192 D128.
///
/// **Measured.** Slower, everywhere (H100, this step's run): at D = 128 0.91x of v7 (505 against
/// 556 TFLOP/s at S4096, 551 / 594 at S8192, 561 / 599 at S16384; causal 0.91-0.94x); at D = 64
/// 0.66-0.85x (the pipeline needs one block per SM; 128-key tiles there: 0.83-0.84x at S1024).
/// Not understood yet; one reading: v7's two consumer warpgroups already fill each other's softmax
/// gaps, and the pipeline only moves the rescale and the conversion of P onto the critical path.
// [launch]
void launch_attention_v9_overlap(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                 const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                 cudaStream_t stream) {
  if (s.d == 64) {
    launch_warp_specialized<V9Tiles64>(s, q, k, v, o, lse, stream);
  } else {
    launch_warp_specialized<V9Tiles128>(s, q, k, v, o, lse, stream);  // (another D: refused there)
  }
}
// [launch]

}  // namespace attention
