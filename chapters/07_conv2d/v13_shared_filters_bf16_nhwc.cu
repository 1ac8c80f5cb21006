/// @file
/// @brief v13: v12 with 128-pixel tiles where they fill the GPU as well as 64-pixel ones: two
/// consumer warpgroups share each slice of the filters, so fewer bytes cross from L2 per output
/// (NHWC, KRSC, bf16 in, fp32 accumulate, bf16 out; C % 64 == 0, sm_90a).
#include <cstdint>

#include "tma_im2col_kernel.cuh"

namespace conv2d {

// [choose]
int v13_tile_pixels(const ConvShape& s, int sms) {
  // A persistent grid's busiest SM computes ceil(tiles / SMs) tiles (its blocks share it). The
  // 128-pixel tiles are chosen where that SM then has no more rows to compute than with 64-pixel
  // ones. 56x56 (N32, K64) and the 1x1 layer: 784 or 1568 tiles, 6 x 128 = 12 x 64 rows: 128.
  // 28x28 (N16, K128): 196 or 392 tiles, 2 x 128 > 3 x 64: 64. 14x14: 52 or 100 tiles: 64.
  const std::int64_t m = s.n * s.p() * s.q(), col_tiles = (s.k + 63) / 64;
  const auto busiest_rows = [&](std::int64_t bm) { return ((m + bm - 1) / bm * col_tiles + sms - 1) / sms * bm; };
  return busiest_rows(128) <= busiest_rows(64) ? 128 : 64;
}
// [choose]

/// @brief v13: two consumer warpgroups sharing each filter slice, where the tiles allow (bf16, sm_90a).
///
/// **Idea.** Count the bytes that cross from L2 into shared memory. v12's 64 x 64 tile loads, per
/// slice, 8 KiB of the input and 8 KiB of the filters: every tile of 64 pixels reads each filter
/// slice again. On 56x56 that is 1568 tiles x 9 slices x 16 KiB, about 231 MB per call; ncu
/// counts 183 MB of L2 traffic for v12 and 28% of its warp samples waiting for a stage to land.
/// A block of two consumer warpgroups on a 128-pixel tile loads 16 KiB of input and one 8 KiB
/// filter slice for both: 25% fewer bytes per output. Where 128-pixel tiles are too few to fill
/// the GPU (28x28, 14x14), v12's tile stays (v13_tile_pixels(), the wave argument of chapter 06's
/// v18).
///
/// **Changed since v12.** The kernel's `kGroups` = 2: warpgroup g multiplies rows 64 g ... of a
/// 128-row A slice (its descriptor 8 KiB further) by the shared B slice, and stages and stores its
/// own 64 x 64 output tile (a named barrier each); the im2col map brings 128 pixels per load; the
/// empty barriers count 8 warps. 3 stages of 24 KiB, so that two blocks fit on an SM (four
/// consumer warpgroups, as against v12's three).
///
/// **Predicted.** From v11's development runs (two warpgroups on 128-pixel tiles, 4 stages: 3-5%
/// faster on 56x56) and the 25% fewer bytes: 4-8% less time than v12 on 56x56 and the 1x1 layer;
/// the other two layers run v12's kernel.
///
/// **Measured (H200, recorded run of commit 41dc12c).** 0.0241 ms on 56x56 against v12's 0.0273
/// (1.13x, 306 TFLOP/s: better than predicted; 1.11x in two development runs before it); the 1x1
/// layer only 1.00x; 28x28 and 14x14 run v12's kernel. ncu on 56x56: 164 MB of L2 traffic against
/// v12's 181; 31% of the warp samples wait for a full stage. Against PyTorch's NHWC bf16 in the
/// same call: 1.13x on 56x56, 0.99x on 28x28. Two stages with three blocks per SM lost (0.0255 ms
/// on 56x56 in development).
void launch_conv2d_v13_shared_filters_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                          __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v13_shared_filters_bf16_nhwc";
  // [launch]
  if (v13_tile_pixels(s, sm_count()) == 128) {
    launch_tma_conv_stored<2, 3>(who, s, x, w, y, stream);  // two warpgroups, 3 stages: 2 blocks per SM
  } else {
    launch_tma_conv_stored<1, 4>(who, s, x, w, y, stream);  // v12's kernel
  }
  // [launch]
}

void launch_conv2d_v13_tile128(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v13_shared_filters_bf16_nhwc (128-pixel tiles)";
  launch_tma_conv_stored<2, 3>(who, s, x, w, y, stream);
}

}  // namespace conv2d
