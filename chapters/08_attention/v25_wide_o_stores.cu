/// @file
/// @brief v25: v24 with O stored in 16-byte pieces (sm_90a).
#include <cstdint>

#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v25: v24, O stored 16 bytes at a time.
///
/// **Idea.** Where does an item's seam go? Fitted over twelve shapes (H200, v24, B1 Sq 4224 D128,
/// 4 to 32 heads, Sk 2112 to 8448; the chapter page), a run costs 8.6 us, an item 3.7 us and a key
/// tile 2.0 us per block: the seam between two items costs nearly two tiles. Giving each
/// consumer's rows of Q barriers of their own, released right after its last S (so that the next
/// item's Q loads earlier), changed nothing (1.00x at S4096 D128; the page, "Where an item's seam
/// goes"). A clock64() timeline of the seams (development build, B2 H16 S4096 D128) put 1440-3920
/// cycles in the epilogue and another 1300-3650 before the next item's first instruction: the
/// stores of O. Each thread holds 4 bytes (a bf16 pair) of every 16-byte chunk of its two rows,
/// and v24 stores them as they lie: 32 four-byte stores per thread at D = 128, each warp
/// instruction writing 16 bytes into each of 8 rows (8 lines of 128 bytes).
/// A quad of threads holds whole chunks between its four lanes: a 4 x 4 transpose of its 4-byte
/// values (two rounds of shuffles, quad_transpose()) gives each thread 16 contiguous bytes, and 8
/// stores of 16 bytes replace the 32.
///
/// **Changed since v24.** One field of the tiles, `wide_o_stores` (V25Tiles64, V25Narrow64,
/// V25Tiles128), and the epilogue's store (`[wide_o_stores]` in the kernel). v25's 16-byte stores
/// need O 16-byte aligned; elsewhere v25 runs v24's kernel. v07-v24's PTX is unchanged.
///
/// **Predicted** (written before the first run): the seam shrinks by 1500-3000 cycles per item
/// and consumer where its stores stood on the critical path: at B2 H16 S4096 D128 (8 items per
/// busiest block, 0.42 ms) +1.5-3%, at B1 H32 S8192 D128 (16 items of 47 tiles) +1.5-3%; at D = 64
/// (16 four-byte stores per thread, not 32) +1-3% at S1024 (3 items per block in 47 us), +1-2% at
/// S4096; with the mask about the same.
///
/// **Measured first in a development call** (H200, commit 949d5b5; correct over the default
/// shapes, the size sweep, the turns test and `[v25]`, clean under memcheck and racecheck; two runs
/// of 30 repetitions in each order, ratio to v24 in the same run): 1.034-1.035x at B2 H16 S4096
/// D128 (673.1-674.0 TFLOP/s) and 1.035-1.038x with the mask, 1.020-1.021x at B1 H32 S8192 D128
/// with the mask and 0.98-1.04x without it (v24's own row moved by 3%), 1.013-1.015x at B4 H16
/// S1024 D64 and 1.019-1.033x with the mask, 1.003-1.005x at S4096 D64 and 1.005-1.011x with the
/// mask. Above the prediction at S4096 D128, under it at S4096 D64.
///
/// **Predicted for the chapter's recorded run** (written before it): 1.03-1.04x v24 at S4096 D128
/// with and without the mask (level with cuDNN or just past it: v24 was at 0.973x), 1.01-1.03x at
/// S8192 D128 and at S1024 D64 with and without the mask (S1024 D64 still behind cuDNN, about
/// 0.97x), 1.00-1.01x at S4096 D64.
///
/// **Measured (H200).** The chapter's recorded run (commit e0cedd2, PyTorch's cuDNN in the same
/// call): 1.036x v24 at B2 H16 S4096 D128 (674.8 TFLOP/s, 1.011x cuDNN: past it) and 1.032x with
/// the mask (578.4, 1.10x cuDNN), 1.018x at B1 H32 S8192 D128 (693.5, 1.019x) and 1.021x with the
/// mask (627.0, 1.035x), 1.011x at B4 H16 S1024 D64 (366.6, 0.990x cuDNN: still behind) and 1.026x
/// with the mask (241.3, 1.059x), 1.006x and 1.002x at S4096 D64 (512.3, 1.079x; 447.9, 1.094x). As
/// predicted; ahead of cuDNN on seven of the eight shapes.
// [launch]
void launch_attention_v25_wide_o_stores(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                        cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(o) % 16 != 0) {  // 16-byte stores need O 16-byte aligned: v24 as it is
    launch_attention_v24_narrow_last_tile(s, q, k, v, o, lse, nullptr, stream);
    return;
  }
  launch_by_shape<V25Tiles64, V25Narrow64, V25Tiles128>(s, q, k, v, o, lse, stream, "v25_wide_o_stores");
}
// [launch]

}  // namespace attention
