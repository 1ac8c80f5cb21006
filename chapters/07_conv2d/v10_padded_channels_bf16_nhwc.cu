/// @file
/// @brief v10: v07 on the input and filter padded with zero channels to a multiple of 8, for the
/// layers whose C is not (the 3-channel stem, the 6-channel image; NHWC, KRSC, bf16, sm_80+).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/scratch.hpp"
#include "conv2d.hpp"

namespace conv2d {

std::string supports_v10(const ConvShape& s) {
  if (s.c % 8 == 0) return "C % 8 == 0: v07-v09 run it without padding";
  return "";
}

namespace {

/// dst[row, c] = src[row, c] for c < C, 0 for C <= c < C8: `rows` rows of C channels (pixels of
/// x, or filter taps of w) copied into rows of C8 channels. One thread per element of dst.
__global__ void conv2d_v10_pad_channels(const __nv_bfloat16* __restrict__ src, __nv_bfloat16* __restrict__ dst,
                                        std::int64_t rows, int c, int c8) {
  const std::int64_t total = rows * c8;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t row = i / c8;
    const int ch = static_cast<int>(i - row * c8);
    dst[i] = ch < c ? src[row * c + ch] : __float2bfloat16(0.0f);
  }
}

/// The memory of the padded copies, kept between calls (tut::Scratch: one for the process, grown
/// on the untimed first call of a larger shape, lent to one call at a time in stream order).
tut::Scratch& padded_scratch() {
  static tut::Scratch scratch;
  return scratch;
}

/// `rows` rows of C channels at `src` copied on `stream` into rows of C8 at `dst`, zeros past C.
// [padded_copy]
void pad_channels(const __nv_bfloat16* src, __nv_bfloat16* dst, std::int64_t rows, int c, int c8, cudaStream_t stream) {
  const std::int64_t total = rows * c8;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((total + 255) / 256, 4 * sm_count()));
  conv2d_v10_pad_channels<<<blocks, 256, 0, stream>>>(src, dst, rows, c, c8);
  CUDA_CHECK_LAUNCH();
}
// [padded_copy]

}  // namespace

/// @brief v10: the channels padded to a multiple of 8.
///
/// **Idea.** v07-v09 copy 8 channels (16 bytes) at a time, so they need C % 8 == 0, and the first
/// layer of a network has 3 (an RGB image): the stem and the 6-channel image of the table had no
/// bf16 version of ours. Zeros change no sum: give x and w 8 channels, the extra ones zero, and
/// run v07 on them. The price is the padding itself, a copy of x (C8 / C times its bytes written)
/// and of w, and the products with the zero channels: 8/3 of the stem's multiply-adds, 8/6 of the
/// 6-channel layer's. A framework pads the filters once when it loads them; here both are padded
/// in every call, and the copy of w is small.
///
/// **Changed since v09.** No new convolution kernel: conv2d_v10_pad_channels() copies x (N H W
/// rows of C channels) and w (K R S rows) into rows of C8 (in memory kept between calls, a
/// tut::Scratch), and v07's launcher runs on the copies with C8 channels. v08 and v09 need C % 64 == 0, which would multiply the stem's work by 21.
///
/// **What is still wrong.** The stem spends 5 of every 8 multiply-adds on zeros, and the padded
/// copy of x is a pass over memory before the convolution starts. A stem kernel of its own would
/// read 3 channels directly (cuDNN has them) and fuse the padding into its loader.
///
/// **Predicted.** On the 7x7 stride-2 stem (N8 C3 224x224, K64): v07's speed on the padded layer,
/// about 150 TFLOP/s of padded work, so 8/3 as many FLOPs at that rate: about 0.06 ms, plus the
/// copy of x (6.4 MB written: a few µs); about 1.0x cuDNN's NHWC bf16. On the 6x6 C6 layer (one
/// image, K6: 16 of v07's 64 columns hold an output channel, and its tiles are few): slower than
/// cuDNN.
///
/// **Measured.** Half right. H100, this step's run (the chapter's table below has the committed
/// run): the stem takes 0.0756 ms, 0.95x cuDNN's NHWC bf16 (0.0722 ms) and 1.24x its NCHW bf16:
/// close to cuDNN, a little slower than predicted (the padded copy of x and the 8/3 products were
/// not timed apart). The 6-channel layer takes 0.1157 ms, 1.83x cuDNN's fastest bf16 row (NCHW,
/// 0.2112 ms), where a loss was predicted: cuDNN's bf16 kernels do even worse on six channels than
/// the padding costs.
void launch_conv2d_v10_padded_channels(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                       __nv_bfloat16* y, cudaStream_t stream) {
  require_valid(s, "v10_padded_channels_bf16_nhwc");
  const std::string why = supports_v10(s);
  if (!why.empty()) throw std::invalid_argument("v10_padded_channels_bf16_nhwc: " + why);
  ConvShape padded = s;
  padded.c = (s.c + 7) / 8 * 8;
  const std::size_t x_bytes = tut::round_up_256(static_cast<std::size_t>(padded.input_elements()) * 2);
  const tut::Scratch::Lease copies =
      padded_scratch().lease(x_bytes + static_cast<std::size_t>(padded.filter_elements()) * 2, stream);
  __nv_bfloat16* const xp = copies.at<__nv_bfloat16>(), *const wp = copies.at<__nv_bfloat16>(x_bytes);
  const int c = static_cast<int>(s.c), c8 = static_cast<int>(padded.c);
  pad_channels(x, xp, s.n * s.h * s.w, c, c8, stream);
  pad_channels(w, wp, s.k * s.r * s.s, c, c8, stream);
  launch_conv2d_v07_mma_bf16(padded, xp, wp, y, stream);
}

}  // namespace conv2d
