/// @file
/// @brief v09: v07 with FlashAttention-3's ping-pong schedule: the two consumer warpgroups take
/// turns on the tensor cores (named barriers), so that one's softmax runs during the other's
/// products (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v09: v07's kernel, its two consumer warpgroups taking turns on the tensor cores.
///
/// **Idea.** In v07 each consumer alternates its products and its softmax, and the two consumers
/// overlap only as the warp schedulers happen to interleave them: at times both run their
/// softmax and the tensor cores idle, at times both wait for `wgmma`. FlashAttention-3 (Shah et
/// al. 2024, section 3.1) orders them: a consumer's turn issues its O += P V of tile j - 1 and its
/// S = Q K^T of tile j as one group, then hands the turn to the other consumer and waits for its
/// products; it computes tile j's softmax while the other consumer's turn keeps the tensor cores
/// busy. Two named barriers carry the turn (a warpgroup waits at its own with `bar.sync`, the
/// other signals it with `bar.arrive`); warpgroup 1 signals once at the start so that warpgroup 0
/// goes first.
///
/// **Changed since v07.** The consumers' loop (`[ping_pong]` in warp_specialized_kernel.cuh beside
/// v07's `[consumer]`): tile j's S is issued together with tile j - 1's P V, so the first turn has
/// only S and the last only P V; P of tile j - 1 stays in registers until the next turn (32
/// registers more per thread at D = 128). And what that deferral costs the ring: a stage's K is
/// released in turn j, its V a turn later (v07 releases both at the end of a tile). The tiles, the
/// producer's order, the softmax and the mask are v07's. At D = 64 v09 runs v07's tiles without turns
/// (V09Tiles64): there the turns lost (below).
///
/// **Predicted (H100).** The FlashAttention-3 paper credits the ping-pong with about 10% at
/// D = 128. v07's two consumers already fill part of each other's softmax gaps (the tensor pipe is
/// 60-63% busy), so +5-10% at D = 128 without the mask (v07: 556-599 TFLOP/s at S >= 4096), less
/// at D = 64, where two blocks per SM already interleave four consumers.
///
/// **Measured (H200, the run at b595b83).** At D = 128 1.02-1.04x v07: 571 TFLOP/s at B2 H16 S4096
/// (v07 553), 601 at B1 H32 S8192 (v07 590), 617 at B1 H16 S16384, 507 / 566 / 608 with the mask;
/// below the prediction. The first version, with one empty barrier per stage, ran at 0.85-0.91x v07
/// (483 TFLOP/s at S4096): P V deferred by a turn held each stage's K a turn longer, and the
/// producer's next K arrived after the turn that needed it. At D = 64 the turns, on one block per
/// SM (two spill), lost 5-12% to v07's two blocks per SM, so v09 runs v07's tiles there. A third
/// stage cost 3-4% at D = 128. Against cuDNN (PyTorch, same machine) v09 is at 0.85-0.95x at D =
/// 128, still behind.
// [launch]
void launch_attention_v09_ping_pong(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                   const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                   cudaStream_t stream) {
  launch_by_head_dim<V09Tiles64, V09Tiles128>(s, q, k, v, o, lse, stream, "v09_ping_pong");  // at D = 64 v07's tiles, no turns
}
// [launch]

}  // namespace attention
