/// @file
/// @brief v21: v20 with every mbarrier wait given a suspend-time hint, so that a waiting warp
/// sleeps in the barrier unit instead of polling it (gemm's v27; sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v21: v20, its barrier waits sleeping.
///
/// **Idea.** The producer waits for an empty stage and the consumers for a full one (K, V, Q) with
/// `mbarrier.try_wait` in a loop; without a hint the hardware answers after a short time of its
/// own, and the warp asks again. gemm's v27 gives the instruction a suspend-time hint, as
/// CUTLASS's barrier waits do and as cuBLAS's kernel sleeps in its waits (`NANOSLEEP.SYNCS` in
/// its SASS): the thread may sleep up to that long inside the instruction and wakes when the
/// phase completes. Here the waits are fewer (a K and a V wait per tile of 128-176 keys, against
/// gemm's one per 64-deep k-slice), and the consumers' waits sit between their turns.
///
/// **Changed since v20.** One field of the tiles, `wait_suspend_ns` (V21Tiles64, V21Narrow64,
/// V21Tiles128), passed to every `mbar_wait<kSuspendNs>()` of the kernel (0 before: v07-v20's
/// PTX unchanged); v20's choice of tiles by shape.
///
/// **Measured first in a development call** (gemm's v27's, H200, the hint compiled into every
/// Hopper kernel of both chapters, six runs of 300 repetitions alternating with a build without
/// it): v20's kernel 0.4381-0.4397 ms with the hint against 0.4394-0.4477 ms without at B2 H16
/// S4096 D128 (1.00-1.02x), level at B4 H16 S1024 D64.
///
/// **Predicted (written before the chapter's recorded run).** 1.00-1.01x v20 on every shape,
/// within the noise between two rows of one kernel; not the 4-8% between v20 and cuDNN on four
/// shapes.
///
/// **Measured (H200).** The chapter's recorded run (commit 3c08cd7, PyTorch's cuDNN in the same
/// call): 1.004-1.007x v20 on all eight shapes (347.7 TFLOP/s at B4 H16 S1024 D64, 0.94x cuDNN;
/// 625.9 at B2 H16 S4096 D128, 0.93x; 665.0 at B1 H32 S8192 D128, 0.96x; ahead of cuDNN with the
/// mask at S1024 and S4096 and level at S4096 D64). Rounds of 50 repetitions in the same call:
/// 0.93-1.01x, 0.94-0.95x at S8192 D128 by the median (level by the minimum): smaller than the
/// spread between two rows of one kernel. The waits are not what separates this kernel from cuDNN.
// [launch]
void launch_attention_v21_sleeping_waits(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                         const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                         cudaStream_t stream) {
  launch_by_shape<V21Tiles64, V21Narrow64, V21Tiles128>(s, q, k, v, o, lse, stream, "v21_sleeping_waits");
}
// [launch]

}  // namespace attention
