/// @file
/// @brief v12: v11 with its epilogue through shared memory and one TMA store per tile (NHWC, KRSC,
/// bf16 in, fp32 accumulate, bf16 out; C % 64 == 0, sm_90a).
#include "tma_im2col_kernel.cuh"

namespace conv2d {

/// @brief v12: the output tile through shared memory and a TMA store (bf16, sm_90a).
///
/// **Idea.** With the copies gone (v11), ncu's warp samples on the 56x56 layer put a third of
/// the consumers' time (32%) in the epilogue and half in the loop over slices: a tile has only
/// 9 slices there (C = 64, 3x3), and each thread then converts and stores 16 bf16 pairs of
/// 4 bytes, each store instruction touching 8 rows, with long waits between them. Stage the
/// tile instead: each thread writes its pairs into a 64 x 64 bf16 tile in shared memory (8 KiB,
/// in the 128-byte swizzle, so the 8 rows of a store instruction fall in 8 different 16-byte
/// chunks: no bank conflicts), and one thread hands the whole tile to the TMA unit, which
/// writes full 128-byte lines of y and clips what lies past N P Q or K. The warpgroup goes on to
/// the next tile's slices while the store drains (chapter 06's v16, for this kernel).
///
/// **Changed since v11.** The epilogue: a staged tile (8 KiB more shared memory per block; still
/// three blocks per SM), two named barriers per tile for the consumer warpgroup (the staged
/// tile is free, the tile is written), a tensor map of y, `cp.async.bulk.tensor` stores committed
/// as bulk groups. Where y cannot take a tensor map (K % 8 != 0, y not 16-byte aligned) v12 runs
/// v11's kernel.
///
/// **Predicted.** If a third of the consumers' time is the epilogue and the new one costs a few
/// shared-memory stores, the 56x56 and 1x1 layers (9 and 4 slices per tile) gain 10-20% over
/// v11, the 28x28 layer (18 slices) 5-10%, 14x14 (36 slices, 100 tiles) little.
///
/// **Measured (H200, recorded run of commit 71fb1f5).** 0.0271 ms on 56x56 (1.10x v11, 1.25x
/// v09; 273 TFLOP/s), 0.0160 on 28x28 (1.06x v11), 0.0163 on 14x14 (0.99x), 0.0247 on the 1x1
/// layer (1.17x): the prediction held, 28x28 at its top. ncu on 56x56: the epilogue's share of
/// the samples fell from 32% to 10%; 28% now wait for a full stage (the loads set the pace),
/// L2 throughput 56% (v11: 51%). Against PyTorch's NHWC bf16 conv2d in the same device call
/// (cuDNN's newer engines, a separate process): 1.10x on 56x56 (0.0297 ms), 1.34x on 28x28
/// (0.0214), 1.16x on 14x14, 0.95x on the 1x1 layer; PyTorch's times move between runs (56x56:
/// 0.0265-0.0335 ms in this session's five calls, 28x28: 0.0152-0.0227), and against its fastest
/// v12 is at 0.98x and 0.95x. Tried in development runs: three stages and four blocks per SM
/// (the same on 56x56, 9% slower on 14x14).
///
/// **What is still wrong.** Now the consumers wait for data: 28% of the samples. Fewer bytes per
/// output: v13.
void launch_conv2d_v12_tma_store_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                     __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v12_tma_store_bf16_nhwc";
  // [launch]
  launch_tma_conv_stored<1, 4>(who, s, x, w, y, stream);  // one warpgroup, 4 stages: 3 blocks per SM
  // [launch]
}

}  // namespace conv2d
