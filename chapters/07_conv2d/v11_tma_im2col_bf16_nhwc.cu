/// @file
/// @brief v11: v09's implicit GEMM with its copies moved to the TMA unit: an im2col tensor map
/// brings each slice of the input (padding zeros included), a tiled map the filters', issued by
/// one producer warp into an mbarrier ring while the warpgroup only waits and multiplies (NHWC,
/// KRSC, bf16 in, fp32 accumulate, bf16 out; C % 64 == 0, sm_90a).
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tma_im2col_kernel.cuh"

namespace conv2d {

std::string supports_v11(const ConvShape& s) {
  std::string why = supports_v08(s);
  if (!why.empty()) return why;
  // The im2col map's bounding box is given as offsets of 8 bits each (rank 4), and its walk
  // steps at most 8 pixels at a time.
  if (s.pad_h > 128 || s.pad_w > 128 || s.r - 1 - s.pad_h > 128 || s.s - 1 - s.pad_w > 128 ||
      s.pad_h - (s.r - 1) > 127 || s.pad_w - (s.s - 1) > 127) {
    return "the im2col tensor map takes padding and filter extents within 128 of each other (8-bit box corners)";
  }
  if (s.r > 256 || s.s > 256) return "the im2col load takes filter offsets of 8 bits (R, S <= 256)";
  if (s.stride_h > 8 || s.stride_w > 8) return "the im2col tensor map walks with strides up to 8";
  if (s.p() * s.q() > INT_MAX) return "P Q above 2^31 (the producer's pixel index within an image is an int)";
  if (tut::encode_im2col() == nullptr) return "the CUDA driver does not provide cuTensorMapEncodeIm2col";
  return "";
}

void require_tma_conv(const ConvShape& s, const char* who) {
  require_valid(s, who);
  const std::string why = supports_v11(s);
  if (!why.empty()) throw std::invalid_argument(std::string(who) + ": " + why);
}

std::string tma_store_unavailable(const ConvShape& s, const void* y) {
  if (s.k % 8 != 0) return "K % 8 != 0 (a tensor map's rows are multiples of 16 bytes)";
  if (reinterpret_cast<std::uintptr_t>(y) % 16 != 0) return "y is not 16-byte aligned";
  if (s.n * s.p() * s.q() > INT_MAX) return "N P Q above 2^31 (TMA coordinates are ints)";
  return "";
}

// [maps]
/// The tensor maps. x (N H W C): an im2col map whose loads bring `pixels` pixels x 64 channels; its
/// bounding box is where a window's top-left corner can be, from (-pad_h, -pad_w) to
/// (H - 1 + pad_h - (R - 1), W - 1 + pad_w - (S - 1)), walked with the convolution's strides:
/// exactly the P x Q corners of the output pixels, in their order. w (K x R S C): a tiled map of
/// 64 x 64 boxes. Both with the 128-byte swizzle that wgmma's descriptors expect.
TmaConvMaps make_tma_conv_maps(const char* who, const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               const __nv_bfloat16* y, int pixels) {
  const auto u = [](std::int64_t v) { return static_cast<cuuint64_t>(v); };
  const cuuint64_t x_dims[4] = {u(s.c), u(s.w), u(s.h), u(s.n)};  // innermost first
  const cuuint64_t x_strides[3] = {u(s.c * 2), u(s.w * s.c * 2), u(s.h * s.w * s.c * 2)};
  const int lower[2] = {static_cast<int>(-s.pad_w), static_cast<int>(-s.pad_h)};  // W, H
  const int upper[2] = {static_cast<int>(s.pad_w - (s.s - 1)), static_cast<int>(s.pad_h - (s.r - 1))};
  const cuuint32_t x_steps[4] = {1, static_cast<cuuint32_t>(s.stride_w), static_cast<cuuint32_t>(s.stride_h), 1};
  TmaConvMaps maps;
  maps.x = tut::encode_im2col_map(who, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, x, x_dims, x_strides, lower, upper, 64,
                                  static_cast<cuuint32_t>(pixels), x_steps, CU_TENSOR_MAP_SWIZZLE_128B,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  const std::int64_t l = s.r * s.s * s.c;
  const cuuint64_t w_dims[2] = {u(l), u(s.k)}, w_strides[1] = {u(l * 2)};
  const cuuint32_t box[2] = {64, 64}, ones[2] = {1, 1};
  maps.w = tut::encode_tiled_map(who, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, w, w_dims, w_strides, box, ones,
                                 CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  maps.y = maps.w;     // a valid map, which v11's kernel does not use
  if (y != nullptr) {  // v12, v13: y (N P Q x K) in 64 x 64 boxes, for the TMA stores of the epilogue
    const cuuint64_t y_dims[2] = {u(s.k), u(s.n * s.p() * s.q())}, y_strides[1] = {u(s.k * 2)};
    maps.y = tut::encode_tiled_map(who, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, y, y_dims, y_strides, box, ones,
                                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE);
  }
  return maps;
}
// [maps]

/// @brief v11: v09's implicit GEMM with TMA loads from a producer warp (bf16, sm_90a).
///
/// **Idea.** TMA has a mode made for this GEMM: an *im2col* tensor map describes the input as
/// the implicit matrix A. One instruction names the first output pixel of a tile, a filter tap
/// (r, s) and 64 channels, and the TMA unit walks the next 64 output pixels' windows itself,
/// from row to row and image to image, writing zeros where a window hangs over the padding, into
/// shared memory in the 128-byte swizzle wgmma reads. A tiled map brings the filters' slice. So
/// the threads that multiply no longer copy: one thread of a fifth warp issues two loads per
/// slice into a ring of stages guarded by mbarriers (chapter 06's v14 protocol), and the
/// warpgroup waits for a stage, multiplies, and releases it.
///
/// **Changed since v09.** The loader (per thread and slice: eight cp.async with their bounds
/// checks, and a barrier) becomes one producer lane with two TMA loads per slice and an mbarrier
/// ring (a full and an empty barrier per stage). Tiles, wgmma, epilogue and persistent grid are
/// v09's.
///
/// **Predicted.** ncu on v09 counted 12.0 million warp instructions on the 56x56 layer against
/// cuDNN's 7.4 million, and a tensor pipe busy 24% of the time against 37%. Most of the
/// difference is the copies; without them the consumers issue little but wgmma, so the
/// prediction is 15-25% less time than v09 on the three 3x3 layers: about PyTorch's NHWC time on
/// 56x56 and 28x28.
///
/// **Measured (H200, recorded run of commit 71fb1f5).** 0.0298 ms on 56x56 (1.13x v09's
/// 0.0338), 0.0170 on 28x28 (1.01x), 0.0162 on 14x14 (0.99x), 0.0288 on the 1x1 layer (0.99x):
/// the prediction held on 56x56 only. ncu on 56x56 (warp samples, SASS): the consumers spend
/// 50% of their samples in the slice loop (15% waiting for a full stage, 10% for their wgmma)
/// and 32% in the epilogue; the producer almost never waits for an empty stage (2 samples of
/// 2451), so the loads, not the consumers, set the pace of the loop; on 28x28, 29% of the
/// samples wait for a full stage. Tried in development runs (H200) and dropped: one wgmma group
/// in flight across slices (`wgmma_wait<1>`, release one slice later: 0.0306 ms on 56x56 against
/// 0.0295-0.0300); 6 stages (2 blocks per SM: 0.0328) or 8 (1 block: 0.048); 128-pixel tiles,
/// two consumer warpgroups sharing each filter slice (L2 traffic 187 MB instead of 210 per call:
/// 3-5% faster on 56x56, 4% faster and 8% slower on 28x28 in two runs, 8-10% slower on 14x14;
/// with v12's staged tiles too, 4 stages left room for one block per SM only, and it lost to
/// v12); a per-tile rotation of the slice
/// order, so that tiles running together read different filter slices (no gain: 0.0312 against
/// 0.0309).
///
/// **What is still wrong.** A third of the consumers' time is the epilogue: v12.
void launch_conv2d_v11_tma_im2col_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                      __nv_bfloat16* y, cudaStream_t stream) {
  const char* who = "v11_tma_im2col_bf16_nhwc";
  launch_tma_conv<1, 4, false>(who, s, x, w, y, stream);  // one warpgroup, 4 stages (3 blocks per SM), v09's epilogue
}

}  // namespace conv2d
