/// @file
/// @brief v16: v15 with a lazy running max: O is rescaled only in the tiles that raise a row's
/// max by more than 2^8 (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v16: v15, the running max moved only when it must be.
///
/// **Idea.** The online softmax subtracts the running max m so that no exponential overflows;
/// when a tile raises m, O (D / 2 fp32 accumulators per thread) and l are rescaled by 2^(m_old -
/// m_new). But any shift gives the same softmax, as long as l, O and lse use the same one: the
/// max only has to keep 2^(s - m) from overflowing. So m moves only when a tile's max exceeds it
/// by more than 8 (base 2): the tile's P values then stay below 2^8, which fp32 and bf16 hold with
/// their usual relative precision, and O is rescaled only in the tiles that move m, few after the
/// first (FlashAttention-4 rescales conditionally, with the same kind of threshold). With random
/// scores a warp's 16 rows see a new max in most tiles of a long row (a row's max rises at tile j
/// with probability about 1/j), so v07-v15 rescale O in most of them: D / 2 multiplies per thread,
/// a fifth of the softmax's instructions at D = 128.
///
/// **Changed since v15.** One field of the tiles (`lazy_rescale`: V16Tiles64, V16Narrow64,
/// V16Tiles128) and its branch in softmax_tile() (wgmma_tile.cuh), through lazy_max()
/// (online_softmax.cuh). The choice of tiles is v14's.
///
/// **Predicted (H200, written before the first run).** O's rescale is about 64 of the 350
/// instructions a consumer thread spends on a tile's softmax at D = 128 (32 of 260 at D = 64), in
/// the stretch the other warpgroups' products must cover: +2-5% over v15 at D = 128, +1-4% at D =
/// 64, with and without the mask; the error unchanged.
///
/// **Measured (H200, the device run at 8a0ecc7, same run as v15's row).** Less than predicted:
/// 1.00-1.02x v15 on the eight shapes (615 TFLOP/s at B2 H16 S4096 D128, 663 at B1 H32 S8192 D128,
/// 456 at B4 H16 S4096 D64). ncu at B2 H16 S4096 D128: fp32 multiplies down from 311 to 30
/// million, warp instructions down 5.4%, time down 0.8%: the rescale was not what held the
/// consumers. Against cuDNN (PyTorch, same call) 1.01x at S4096 D128 with the mask, 0.84-0.98x on
/// the seven others.
// [launch]
void launch_attention_v16_lazy_rescale(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                       cudaStream_t stream) {
  launch_by_shape<V16Tiles64, V16Narrow64, V16Tiles128>(s, q, k, v, o, lse, stream, "v16_lazy_rescale");
}
// [launch]

}  // namespace attention
