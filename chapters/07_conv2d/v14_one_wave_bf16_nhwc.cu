/// @file
/// @brief v14: v13 with 192-pixel tiles where one wave of them covers the layer: three consumer
/// warpgroups share each filter slice, one block per SM (NHWC, KRSC, bf16 in, fp32 accumulate,
/// bf16 out; C % 64 == 0, sm_90a).
#include <cstdint>

#include "tma_im2col_kernel.cuh"

namespace conv2d {

// [choose]
int v14_tile_pixels(const ConvShape& s, int sms) {
  // 192-pixel tiles where they are one wave (no SM gets a second tile) and the SM that computes
  // the most rows computes no more than with v13's tile. 28x28 (N16, K128): 66 x 2 = 132 tiles of
  // 192 on 132 SMs, 192 rows each, as v12's 392 tiles of 64 (3 per SM); 56x56 and the 1x1 layer
  // (523 tiles, 4 per SM): v13's 128; 14x14 (36 tiles of 192, 100 of 64): v13's 64.
  const std::int64_t m = s.n * s.p() * s.q(), col_tiles = (s.k + 63) / 64;
  const std::int64_t tiles192 = (m + 191) / 192 * col_tiles;
  const int bm = v13_tile_pixels(s, sms);
  const std::int64_t busiest_rows = ((m + bm - 1) / bm * col_tiles + sms - 1) / sms * bm;
  return tiles192 <= sms && 192 <= busiest_rows ? 192 : bm;
}
// [choose]

/// @brief v14: three consumer warpgroups on 192-pixel tiles, where one wave of them covers the layer (bf16, sm_90a).
///
/// **Idea.** On 28x28 v13 keeps v12's 64-pixel tile: 392 tiles, three blocks on each SM, each
/// block loading its own copy of the filter slice, 48 KiB per SM per slice (three times 8 KiB of
/// input and 8 KiB of filters). A 192-pixel tile with three warpgroups sharing the slice loads 24
/// KiB of input and 8 KiB of filters, 32 KiB for the same 192 x 64 outputs: a third fewer bytes
/// from L2. And on 28x28 there are exactly 132 such tiles, one per SM: the same rows on every SM
/// as v12's three blocks. Where an SM would get several 192-pixel tiles (56x56), v13's two blocks
/// of 128 pixels stay: one block's epilogue runs while the other multiplies, where three
/// warpgroups of one block, fed by the same stages, reach their epilogue together.
///
/// **Changed since v13.** The kernel with `kGroups` = 3 (a third named barrier for the third
/// warpgroup's staged tile), 5 stages of 32 KiB (one block per SM), and v14_tile_pixels().
///
/// **Predicted** (written after the development runs below, from the byte count): the loads set
/// the pace on 28x28 (29% of v11's warp samples waited for a full stage), so a third fewer bytes
/// per SM, less what three warpgroups waiting on one ring lose: 5-10% less time than v13 on 28x28;
/// the other layers run v13's kernels.
///
/// **Measured (development runs, H200).** 28x28: 6 stages 0.0144-0.0147 ms against v13's
/// 0.0156-0.0160 (three runs); in a second call 5 stages 0.0147-0.0150, 6 stages 0.0151-0.0153,
/// v13 0.0152-0.0156, in both orders of the rows. ncu: 2-4% ahead of v12's kernel at the timed
/// runs' clocks (12.7-12.9 against 13.0-13.4 µs), 3% behind with its clocks at base (15.4 against
/// 14.9). On 56x56, 192-pixel tiles took 0.0252-0.0258 ms against v13's 0.0237-0.0239: hence the
/// one-wave condition.
///
/// **Measured (H200, recorded run of commit 22ba08a).** 0.0155 ms on 28x28, the same as v13
/// (0.0155): the recorded table does not show the gain. Two later calls with 300 repetitions per
/// row, in both orders: 1.07x and 1.01x v13; ncu at real clocks 1.04-1.06x v12's kernel. A few
/// percent, at the noise of one timed row (v12 and v13, the same kernel on 28x28, differ by up to
/// 4% in one run).
///
/// **What is still wrong.** One tile per SM leaves nothing to overlap the first loads and the
/// epilogue with: ncu has the tensor pipe busy 30% of the time, L2 48%. Pairs of CTAs multicasting
/// the input slice (a third fewer bytes again) and one wgmma group left in flight across slices
/// were slower (the chapter page, "Tried after v14").
void launch_conv2d_v14_one_wave_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                     __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v14_one_wave_bf16_nhwc";
  // [launch]
  switch (v14_tile_pixels(s, sm_count())) {
    case 192:
      launch_tma_conv_stored<3, 5>(who, s, x, w, y, stream);  // three warpgroups, 5 stages: one block per SM
      return;
    case 128:
      launch_tma_conv_stored<2, 3>(who, s, x, w, y, stream);  // v13's
      return;
    default:
      launch_tma_conv_stored<1, 4>(who, s, x, w, y, stream);  // v12's
  }
  // [launch]
}

void launch_conv2d_v14_tile192(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v14_one_wave_bf16_nhwc (192-pixel tiles)";
  launch_tma_conv_stored<3, 5>(who, s, x, w, y, stream);
}

}  // namespace conv2d
