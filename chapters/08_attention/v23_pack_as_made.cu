/// @file
/// @brief v23: v22 with each turn's P packed to bf16 pair by pair as the exponentials make it,
/// instead of all at once after them (sm_90a).
#include "warp_specialized_kernel.cuh"

namespace attention {

/// @brief v23: v22, P packed as it is made.
///
/// **Idea.** After the exponentials of a tile, P V needs P in bf16: 44 `F2FP.BF16.F32.PACK_AB`
/// per thread at 176 keys (32 at 128 keys), two values each. v10-v22 write P in fp32 into S's
/// registers first and pack it only after the wait for the last tile's P V, which still reads the
/// registers P goes to (pack_p). The SASS of v22 shows what that order costs: the wait lands
/// among the row maxima (ptxas moves it up), then come 88 `MUFU.EX2` one every other instruction,
/// then the 44 packs, one after the other. A probe of the pipes (H200, on the chapter page) says
/// the two kinds of instruction do not compete: `MUFU.EX2` takes 16 results per cycle and SM on
/// the special-function pipe, `F2FP` 32 on the ALU pipe (it shares that one with `FMNMX`, the
/// maxima), and the two together took the time of the exponentials alone. So the packs can hide
/// in the exponentials' gaps, if they may start as soon as their pair exists: wait for P V before
/// the exponentials instead of after them (where ptxas put the wait anyway), and pack each pair
/// as soon as it is made. The work is the same; its order is cuDNN's (its SASS packs between its
/// exponentials, ncu's source view, on the chapter page).
///
/// **Changed since v22.** One field of the tiles, `pack_as_made` (V23Tiles64, V23Tiles128), which
/// makes an overlapped turn call softmax_tile_packed() (wgmma_tile.cuh: both rows' maxima, the P V
/// wait, then each pair's exponentials and its pack) instead of softmax_tile(), the wait and
/// pack_p; false before, so v07-v22 compile as they did (their PTX byte for byte). The first turn
/// of an item (no P V in flight) and the narrow tiles at D = 64 (no turns, V21Narrow64) keep the
/// old order.
///
/// **Measured first in development calls** (H200, this step's code as a variant of v22, correct
/// over the size sweep; v22 and the variant in the same runs, three runs of 30 repetitions
/// alternating their order, S1024 D64 also at 100): 1.02-1.03x v22 at D = 64 with the turns (S1024
/// one run of six 0.96x, S4096, S4096 causal), 1.012-1.013x at B2 H16 S4096 D128 and 1.008-1.011x
/// with the mask, 1.00-1.02x at B1 H32 S8192 D128 and 1.009x with the mask, 1.05x and 1.01x at B1
/// H16 S16384 D128 (one run each). In the same calls, cuDNN's own order tried in this kernel (the
/// turn around the exponentials instead of around the products; no overlap inside a warpgroup)
/// was slower: the chapter page, "Tried after v22".
///
/// **Predicted (written before the chapter's recorded run).** 1.02-1.03x v22 at the D = 64 shapes
/// with turns, 1.01-1.015x at D = 128, 1.00x at S1024 D64 causal (no turns); against cuDNN from
/// 0.95x to about 0.97x at S1024 D64 and to about 0.96x at S4096 D128, about 0.99x at S8192 D128:
/// closer again, still not past it on those shapes.
///
/// **Measured (H200).** A first form, which computed each row's shift after the P V wait (the
/// only difference from the development variant's PTX), measured 1.003-1.006x v22 at D = 64 and
/// 1.009-1.013x at D = 128 in its recorded run (20cbc03). With the shifts before the wait, the
/// chapter's recorded run (commit 6205804, PyTorch's cuDNN in the same call): 1.021x v22 at B4 H16
/// S1024 D64 (358.9 TFLOP/s, 0.97x cuDNN), 1.028x at S4096 D64 (508.4, 1.07x cuDNN) and 1.025x with
/// the mask, 1.009x at B2 H16 S4096 D128 (641.0, 0.96x cuDNN) and 1.010x with the mask, 1.019x at
/// B1 H32 S8192 D128 (682.1, 0.999x cuDNN: level) and 1.014x with the mask (1.002x cuDNN), 1.005x
/// at S1024 D64 causal (no turns). As predicted at D = 64, about as predicted at D = 128; still
/// behind cuDNN at S1024 D64 and S4096 D128.
// [launch]
void launch_attention_v23_pack_as_made(const Shape& s, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                       const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, void* /*workspace*/,
                                       cudaStream_t stream) {
  launch_by_shape<V23Tiles64, V21Narrow64, V23Tiles128>(s, q, k, v, o, lse, stream, "v23_pack_as_made");
}
// [launch]

}  // namespace attention
