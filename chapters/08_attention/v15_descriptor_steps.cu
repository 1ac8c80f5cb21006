/// @file
/// @brief v15: v14 with each wgmma descriptor built once per tile and advanced by a constant for
/// every k-step (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v15: v14, its wgmma descriptors advanced instead of rebuilt.
///
/// **Idea.** A wgmma reads its shared-memory operands through 64-bit descriptors whose low 14
/// bits hold the address / 16. v07-v14 build every descriptor from its address (smem_desc(): the
/// shared-window address, a mask, a shift, the fixed fields or-ed in, then moved to a uniform
/// register), once per k-step of every product: 8 for S and 11 for P V per tile at D = 128. ncu on
/// v14 (the page, "Where the targets stand") counts the integer and uniform-register instructions
/// at 24-26% of those the SMs execute, in the consumers that also run the softmax. Within a tile
/// the k-steps are fixed byte offsets from the tile's start, so one descriptor per operand and tile
/// does, each k-step adding its offset / 16 (no carry: shared memory ends below 256 KiB), as
/// CUTLASS's descriptor iterators do.
///
/// **Changed since v14.** One field of the tiles (`advance_descriptors`: V15Tiles64, V15Narrow64,
/// V15Tiles128) and its branch in wgmma_scores() and wgmma_pv() (wgmma_tile.cuh). The choice of
/// tiles is v14's (v14_wide_tiles()).
///
/// **Predicted (H200, written before the run).** The consumers' issue slots are not saturated (6.2
/// cycles between two instructions of a warp), so removing about a fifth of their instructions
/// shortens the softmax's stretch between two wgmma turns only a little: +0-4% over v14, most at
/// D = 128 without the mask.
///
/// **Measured (H200, the device run at 889ee41, same run as v14's row).** Within the prediction:
/// at D = 128 1.02x v14 on all four shapes (613 TFLOP/s at B2 H16 S4096, 653 at B1 H32 S8192; 538
/// and 596 with the mask), at D = 64 1.00-1.02x. Against cuDNN (PyTorch, same call) 1.02x at S4096
/// D128 with the mask, the first shape of the table where the chapter leads; 0.84-0.97x on the
/// seven others.
// [launch]
void launch_attention_v15_descriptor_steps(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                           const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                           cudaStream_t stream) {
  launch_by_shape<V15Tiles64, V15Narrow64, V15Tiles128>(s, q, k, v, o, lse, stream, "v15_descriptor_steps");
}
// [launch]

}  // namespace attention
