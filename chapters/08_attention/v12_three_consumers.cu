/// @file
/// @brief v12: v11 with three consumer warpgroups at D = 64 (192 query rows per block, 128-key
/// tiles, v10's turns and overlap going round three), FlashAttention-3's tiles at that D (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v12: v11's kernel with a third consumer warpgroup at D = 64.
///
/// **Idea.** At D = 64 a key tile's softmax costs a consumer as much as at D = 128 (the same 64 x
/// Bc scores, the same exponentials), but its two products only half as much. With two consumers
/// taking turns, one's softmax hides behind the other's products only: at D = 64 those are too
/// short to cover it, and the turns with one block per SM (v10's search row v10_d64_bc128_b1) lost
/// to v07's two independent blocks. With three consumers, each softmax runs behind two others'
/// products, and each K and V tile brought into shared memory serves 192 query rows instead of
/// 128. The registers allow it: 512 threads on one block per SM leave 160 per consumer thread
/// after the producer's 24, enough for S (64), O (32) and P (32) of 128-key tiles.
///
/// **Changed since v11.** The number of consumers is a field of the tiles (`consumers`, 2 or 3;
/// V12Tiles64); the turns pass round the consumers in order, 0 -> 1 -> 2 -> 0 (named barriers 1-3,
/// `pass_turn` in warp_specialized_kernel.cuh). The kernel's turns, overlap, ring and softmax are
/// v11's; at D = 128 v12 runs v11's tiles (three consumers' S of 176 keys and O of 128 columns do
/// not fit in 160 registers).
///
/// **Predicted (H200, written before the run).** v10's two-consumer row on these tiles was 0.95x
/// v07's tiles at B4 H16 S4096 D64 (378 against 398 TFLOP/s). The third consumer hides the softmax
/// behind twice the products and halves K/V traffic per row: +5-12% over v11 at S4096 D64, with and
/// without the mask; less at S1024, where 1024 rows make 5 1/3 blocks of 192 (the last third-full).
///
/// **Measured (H200, the device run at 7109b50).** 1.16x v11 at B4 H16 S4096 D64 (451 against 388
/// TFLOP/s), above the prediction; with the mask only 1.04x (384 against 369), below it; at S1024
/// 1.02x (300 against 295), and with the mask 0.86x (185 against 215): 192-row tiles compute 1.33x
/// the scores of v07's there (the last tile of each head a third full, wider tiles on the
/// diagonal), and one block per SM leaves the SM idle at each block's start and end (v13, v14).
/// Against cuDNN (PyTorch, same call) 0.95x at S4096 (475), 0.94x with the mask (409). D = 128:
/// v11's tiles, v11's rate. v12's search: three consumers each on their own lost 6% at S4096, the
/// turns without the overlap 4.5%, a third stage 2.4%, 64-key tiles 18%.
// [launch]
void launch_attention_v12_three_consumers(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                          const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                          cudaStream_t stream) {
  launch_by_head_dim<V12Tiles64, V12Tiles128>(s, q, k, v, o, lse, stream, "v12_three_consumers");
}
// [launch]

}  // namespace attention
