/// @file
/// @brief v26: v25 with the epilogue in a straight line (sm_90a).
#include <cstdint>

#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v26: v25, the epilogue without a branch (at D = 64).
///
/// **Idea.** Where does the seam go at D = 64? A clock64() timeline of v25's D = 64 kernel
/// (development build, B4 H16 Sq 1152 Sk 1024: three 192-row items per busiest block; the chapter
/// page) follows a consumer from its last softmax of an item to its next item's first turn: the
/// last P V's turn and wait (about 1100 cycles), the epilogue (1300-1650), the next item's mapping
/// and its waits for Q and the first K (1100-1300), then the first S alone; a key tile takes about
/// 2900 cycles. The consumer does all of it in a row, and the other two wait for it at their next
/// turns. In v25's SASS the epilogue takes its two rows one after the other, each behind branches:
/// 1 / l by IEEE division (a reciprocal, a Newton step and a call for extreme values), lse by
/// logf()'s polynomial (some twenty dependent FMAs) on one lane of four, the stores behind the row
/// guard. v26 takes both rows at once: their sums' four shuffles in flight together, 1 / l by
/// `rcp.approx` (l >= 1 for a row that saw a key: the approximation is within an ulp there) and
/// lse by `lg2.approx`, both rows' packs and transposes, then each row's stores under a predicate.
///
/// **Changed since v25.** One field of the tiles, `straight_epilogue` (V26Tiles64, V26Narrow64),
/// the `[straight_epilogue]` block of the kernel and fast_inverse_sum() and fast_row_lse(). At
/// D = 128 v26 runs v25's kernel: there the same epilogue measured 0.987-0.993x v25 at B1 H32 S8192
/// D128 in the development call below. O differs from v25's by the reciprocal's last bit (one bf16
/// step in the rare product next to a rounding boundary), lse by a few fp32 ulp; the test `[v26]`
/// holds it to that. v07-v25's PTX is unchanged.
///
/// **Predicted** (written before the first run): the epilogue falls to about 500-800 cycles, 0.3-0.4
/// us per seam: +1.5-3% at B4 H16 S1024 D64 (three epilogues on the busiest blocks' path of 46 us),
/// +0.5-2% with the mask (v19's 128-row tiles), +0.5-1% at S4096 D64, +0.3-1% at D = 128.
///
/// **Measured first in a development call** (H200; on top of commit 111372d, this code with the
/// straight epilogue at D = 128 too; correct over the default shapes, the size sweep and the tests
/// of the items, the turns and v25, clean under memcheck; two runs of 30 repetitions in each order,
/// ratio to v25 in the same run): 1.011-1.022x at S1024 D64 (370.8-375.8 TFLOP/s) and 1.003-1.006x
/// with the mask, 1.007-1.009x at S4096 D64 and 1.011-1.013x with the mask; at D = 128 0.999-1.000x
/// at S4096 and 1.002-1.005x with the mask, 0.987-0.993x at S8192 and 0.999-1.002x with the mask
/// (hence v25's kernel there). Three runs of 50 at S1024 D64 alone: v25 at 338.9, 364.0 and 367.7
/// TFLOP/s, v26 at 376.8, 374.4 and 376.8. At the low end of the prediction at S1024 D64, within it
/// at S4096 D64, above it there with the mask, under it with the mask at S1024 and at D = 128.
///
/// **Predicted for the chapter's recorded run** (written before it): 1.01-1.02x v25 at S1024 D64
/// (level with cuDNN or just past it: v25 was at 0.990x), 1.00-1.01x with the mask, 1.005-1.015x at
/// S4096 D64 with and without the mask, 1.00x at D = 128 (v25's kernel).
///
/// **Measured (H200).** The chapter's recorded run (commit be8e59c, PyTorch's cuDNN in the same
/// call): 1.018x v25 at B4 H16 S1024 D64 (377.5 TFLOP/s, 1.021x cuDNN: past it, the last shape
/// behind; v25 1.004x in the same run) and 1.015x with the mask (243.4, 1.077x), 1.013x at S4096
/// D64 (515.0, 1.088x) and 1.007x with the mask (457.1, 1.122x), 0.999-1.001x at D = 128 (v25's
/// kernel; 678.2 at S4096 D128, 1.005x cuDNN). A timeline of v26 (the development copy above)
/// puts its epilogue at 585-993 cycles (v25: 1083-1506) and the seam's path at about 560 cycles
/// shorter. As predicted, but above it at S1024 with the mask;
/// ahead of cuDNN on all eight shapes in that run. Over three more runs of the table (commit
/// 70510aa) v26 / cuDNN at S1024 D64 was 0.984, 1.010 and 1.000: level there, within the 5% our
/// kernels move between runs at that shape (the page, "How firm that is").
// [launch]
void launch_attention_v26_straight_epilogue(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                            const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                            cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(o) % 16 != 0) {  // v25's 16-byte stores need O 16-byte aligned: v24 as it is
    launch_attention_v24_narrow_last_tile(s, q, k, v, o, lse, nullptr, stream);
    return;
  }
  launch_by_shape<V26Tiles64, V26Narrow64, V25Tiles128>(s, q, k, v, o, lse, stream, "v26_straight_epilogue");
}
// [launch]

}  // namespace attention
