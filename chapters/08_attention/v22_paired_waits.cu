/// @file
/// @brief v22: v21 with each turn's two barrier waits (K of this tile, V of the last) polled at
/// once, so that a consumer waits for one answer of the barrier unit instead of two in a row
/// (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v22: v21, each turn's K and V waits paired.
///
/// **Idea.** Between its turns a consumer asks two barriers whether their loads have landed: K of
/// tile j and V of tile j - 1. v21 asks with `mbar_wait()` twice: `mbarrier.try_wait`, a branch on
/// its answer, then the second `mbarrier.try_wait`. In the SASS each is a
/// `SYNCS.PHASECHK.TRANS64.TRYWAIT` whose predicate the next branch needs, so the warp waits for
/// the barrier unit's answer twice in a row, and both waits lie on the turn's critical path: the
/// tensor cores idle until this consumer issues its products (a clock64 timeline of v21's turns,
/// on the chapter page, shows these two waits taking 250-450 cycles of a turn of about 4000, with
/// the loads long landed). `mbar_wait_both()` issues both polls before it needs either answer:
/// one round trip.
///
/// **Changed since v21.** One field of the tiles, `paired_waits` (V22Tiles64, V22Tiles128), which
/// makes the turn call `mbar_wait_both()` (common/hopper_ptx.cuh) instead of two `mbar_wait()`;
/// false before, so v07-v21 compile as they did. v21's 128-row tiles at D = 64 take no turns and
/// v22 runs them unchanged (V21Narrow64).
///
/// **Measured first in development calls** (H200, this step's code as a variant of v21, timed in
/// three calls with v21 in the same run, 30 repetitions; correct over the size sweep):
/// 1.024-1.042x v21 at D = 64 with the turns (S1024, S4096, S4096 causal), 1.016-1.022x at B2 H16
/// S4096 D128 with and without the mask, 1.004-1.031x at B1 H32 S8192 D128, 1.009x at B1 H16
/// S16384 D128; level at S1024 D64 causal (the narrow tiles, no turns). Tried beside it and not
/// kept: the same pair without the suspend-time hint (level with the pair), the next turn's
/// barriers tested (`mbarrier.test_wait`) during this turn's softmax (0.95-1.02x v21: slower), K
/// loaded a tile ahead of V by the producer, the turn passed once S has landed, and both rows'
/// maxima before both rows' exponentials (each level with v21).
///
/// **Predicted (written before the chapter's recorded run).** 1.02-1.04x v21 on the D = 64 shapes
/// that take turns, 1.01-1.02x at D = 128, 1.00x at S1024 D64 causal; from 0.94x to about 0.96x
/// of cuDNN at S1024 D64 and from 0.93x to about 0.95x at S4096 D128: closer, not past it.
///
/// **Measured, two first forms** (recorded runs, H200): polling the pair once and then each barrier
/// alone (ab11814), and polling the pair in mbar_wait()'s loop with its clock trap (babb309), v22
/// was 1.000-1.008x v21 at D = 64 and 1.004-1.017x at D = 128: a clock or a counter live in the
/// wait loop cost the three consumers at D = 64 most of the gain (a development call timed the
/// forms side by side: bare loop 1.040-1.044x at S4096 D64, counted trap 1.019-1.026x, clock trap
/// 1.006-1.007x). mbar_wait_both() now polls in a bare loop, without the trap.
///
/// **Predicted for the bare loop** (before its recorded run): 1.025-1.045x v21 at the D = 64 shapes
/// with turns, 1.015-1.02x at B2 H16 S4096 D128, 1.005-1.035x at B1 H32 S8192 D128.
///
/// **Measured (H200).** The chapter's recorded run (commit 619422d, PyTorch's cuDNN in the same
/// call): 1.023x v21 at B4 H16 S1024 D64 (355.7 TFLOP/s, 0.95x cuDNN), 1.040x at S4096 D64 (494.3,
/// 1.04x cuDNN), 1.026x with the mask, 1.021x at B2 H16 S4096 D128 (636.0, 0.95x cuDNN), 1.015x
/// with the mask, 1.011x and 1.013x at B1 H32 S8192 D128 (669.2, 0.98x cuDNN; 0.99x with the mask),
/// 1.011x at S1024 D64 causal (no turns there). Closer to cuDNN on the four shapes where v21
/// trailed, not past it.
// [launch]
void launch_attention_v22_paired_waits(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                       cudaStream_t stream) {
  launch_by_shape<V22Tiles64, V21Narrow64, V22Tiles128>(s, q, k, v, o, lse, stream, "v22_paired_waits");
}
// [launch]

}  // namespace attention
