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
/// item's Q loads earlier), changed nothing (1.00x at S4096 D128; "Tried after v24"). A clock64()
/// timeline of the seams (development build, B2 H16 S4096 D128) put 2000-3000 cycles in the
/// epilogue and another 1500-3600 before the next item's first instruction: the stores of O.
/// Each thread holds 4 bytes (a bf16 pair) of every 16-byte chunk of its two rows, and v24
/// stores them as they lie: 32 four-byte stores per thread at D = 128, each warp instruction
/// touching 8 rows, 16 bytes in each, which the load/store unit takes one 128-byte line at a time.
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
// [launch]
void launch_attention_v25_wide_o_stores(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                        cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(o) % 16 != 0) {  // 16-byte stores need O 16-byte aligned: v24's kernel
    launch_by_shape<V23Tiles64, V21Narrow64, V24Tiles128>(s, q, k, v, o, lse, stream, "v25_wide_o_stores");
    return;
  }
  launch_by_shape<V25Tiles64, V25Narrow64, V25Tiles128>(s, q, k, v, o, lse, stream, "v25_wide_o_stores");
}
// [launch]

}  // namespace attention
