/// @file
/// @brief v11: v10 with 176-key tiles at D = 128 (wgmma m64n176k16), FlashAttention-3's key tile
/// (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v11: v10's kernel on wider key tiles.
///
/// **Idea.** Every key tile costs a consumer the same fixed work whatever its width: the row
/// maxima and sums across each quad (shuffles), the decision to rescale O, a turn handed over and
/// waited for, two barrier waits and two releases, the producer's TMA issues. With 176 keys per
/// tile instead of 128, S8192 keys take 47 tiles instead of 64, so those costs shrink by about a
/// quarter, while each wgmma of S is longer (m64n176k16: n may be any multiple of 8 up to 256)
/// and P V has 11 k-steps of 16 keys instead of 8. FlashAttention-3 chooses 176 keys at D = 128 without
/// the mask (its `hopper/tile_size.h`); 176 is about the widest that fits: S takes 88 registers
/// per thread (v10: 64), K and V 44 KiB each per stage, 210 KiB of shared memory with Q.
///
/// **Changed since v10.** Only the tiles at D = 128 (V11Tiles128: `keys_per_tile = 176`), and,
/// for them, a wgmma m64n176k16 (wgmma_m64n176k16_ss() in common/hopper_ptx.cuh; wgmma_scores()
/// picks it). The kernel, the turns and the overlap are v10's. D = 64: v10's choice (v07's tiles).
///
/// **Predicted.** No prediction was written before the measurement: the 176-key tile entered as
/// a candidate of v10's search (`v10_d128_bc176_b1`), which measured it first.
///
/// **Measured (H200, v10's search at 77bc00c, same run as v10's own row).** Without the mask
/// 1.02x v10 at B2 H16 S4096 (599 against 587 TFLOP/s) and 1.03x at B1 H32 S8192 (646 against
/// 624); with it 1.00x at S4096 (511 against 512), 1.02x at S8192 (581 against 572) and 1.03x at
/// B1 H16 S16384 (634 against 618), so v11 takes the wide tile with and without the mask. As a
/// step (the device run at 8ccbea7): 1.02x v10 at S4096 (602 TFLOP/s), 1.04x at S8192 (644),
/// 1.03x at S16384 (661); with the mask 1.00x, 1.01x, 1.03x (513, 577, 634). Against cuDNN
/// (PyTorch, same call) 0.89x and 0.94x without the mask, 0.97x and 0.94x with it.
// [launch]
void launch_attention_v11_wide_tiles(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                     const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                     cudaStream_t stream) {
  launch_by_head_dim<V09Tiles64, V11Tiles128>(s, q, k, v, o, lse, stream, "v11_wide_tiles");  // at D = 64 v07's tiles
}
// [launch]

}  // namespace attention
