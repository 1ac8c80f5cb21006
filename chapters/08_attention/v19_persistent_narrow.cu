/// @file
/// @brief v19: v18 with v07's 128-row tiles on the persistent grid too, two blocks per SM, where
/// v14's rule takes them (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

static_assert(WgmmaConfig<V19Narrow64>::kConsumerRegs == WgmmaConfig<V17Narrow64>::kConsumerRegs,
              "v19: the producer's 8 more registers cost the consumers none");

/// @brief v19: v18, the narrow tiles persistent too.
///
/// **Idea.** v13 made the 192-row tiles persistent: one block per SM takes item after item, the
/// next item's K and V tiles load while this one's O is stored, and the block's start (barriers,
/// tensor maps, setmaxnreg) is paid once. v14 then runs v07's 128-row tiles where the wide ones
/// would compute more than 1.16x the scores (short sequences, the causal diagonal at D = 64), as
/// v07 does: one block per item, two blocks per SM. At B4 H16 S1024 D64 with the mask that is 512
/// items of 2 to 16 key tiles of 64 (9 on average), so each block's start and end weigh on few
/// tiles. v19 runs those tiles on the persistent grid too: two blocks per SM for the whole run,
/// each taking items in the snake order over the longest-first list (v06's and v13's).
///
/// **Changed since v18.** One field of the narrow tiles (`persistent`, in V19Narrow64), and the
/// producer's registers: a persistent producer at two blocks per SM walks the items with 24
/// registers and spilled 4 bytes (the search's persistent row of v13, v13_d64_bc64_b2_p, did too);
/// it keeps 32 now, which the consumers do not feel (104 either way: their share is rounded to
/// steps of 8). The 192-row tiles and D = 128 run v18's kernels.
///
/// **Predicted (written before the first run).** From v13's search (the run at 7109b50), where the
/// persistent row of v07's tiles ran 224.2 TFLOP/s against v07's 218.3 at S1024 D64 with the mask:
/// +2-4% there; the other shapes of the table run v18's kernels (+-1%).
///
/// **Measured (H200).** The first run (a development build on top of commit 40e348d, the producer
/// at 24 registers; four runs of 60 repetitions, both orders): **1.045-1.049x v18** at B4 H16
/// S1024 D64 with the mask (v18 218-219 TFLOP/s). Tried beside it: two Q tiles (v17's) 0.998-1.009x,
/// three stages 1.013-1.021x; these narrow tiles without the mask, where the rule keeps the wide
/// ones, 0.93-1.01x at S1024 D64 and 0.87-0.93x at S4096 D64 (the rule stays). The chapter's
/// recorded run (commit bb3a7f8, the producer at 32 registers, no spill): 234.3 TFLOP/s, 1.051x v18
/// (222.8) and 1.036x PyTorch's cuDNN attention (226.1) in the same call; the other seven shapes
/// within 0.3% of v18 (the same kernels).
// [launch]
void launch_attention_v19_persistent_narrow(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                            const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                            cudaStream_t stream) {
  launch_by_shape<V18Tiles64, V19Narrow64, V17Tiles128>(s, q, k, v, o, lse, stream, "v19_persistent_narrow");
}
// [launch]

}  // namespace attention
