/// @file
/// @brief v9: v7 with FlashAttention-3's ping-pong schedule: the two consumer warpgroups take
/// turns on the tensor cores (named barriers), so that one's softmax runs during the other's
/// products (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v9: v7's kernel, its two consumer warpgroups taking turns on the tensor cores.
///
/// **Idea.** In v7 each consumer alternates its products and its softmax, and the two consumers
/// overlap only as the warp schedulers happen to interleave them: at times both run their
/// softmax and the tensor cores idle, at times both wait for `wgmma`. FlashAttention-3 (Shah et
/// al. 2024, section 3.1) orders them: a consumer's turn issues its O += P V of tile j - 1 and its
/// S = Q K^T of tile j as one group, then hands the turn to the other consumer and waits for its
/// products; it computes tile j's softmax while the other consumer's turn keeps the tensor cores
/// busy. Two named barriers carry the turn (a warpgroup waits at its own with `bar.sync`, the
/// other signals it with `bar.arrive`); warpgroup 1 signals once at the start so that warpgroup 0
/// goes first.
///
/// **Changed since v7.** Only the consumers' loop (`[ping_pong]` in warp_specialized_kernel.cuh
/// beside v7's `[consumer]`): tile j's S is issued together with tile j - 1's P V, so the first
/// turn has only S and the last only P V; P of tile j - 1 stays in registers until the next turn
/// (32 registers more per thread at D = 128, 16 at D = 64). The tiles, the producer, the ring, the
/// softmax and the mask are v7's.
///
/// **Predicted (H100).** The FlashAttention-3 paper credits the ping-pong with about 10% at
/// D = 128. v7's two consumers already fill part of each other's softmax gaps (the tensor pipe is
/// 60-63% busy), so +5-10% at D = 128 without the mask (v7: 556-599 TFLOP/s at S >= 4096), less
/// at D = 64, where two blocks per SM already interleave four consumers.
///
/// **Measured.** See the chapter page (section v9).
// [launch]
void launch_attention_v9_ping_pong(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
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
