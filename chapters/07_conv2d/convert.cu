/// @file
/// @brief Layout and precision conversions of the inputs: NCHW -> NHWC, KCRS -> KRSC, fp32 -> bf16.
///
/// Run once per problem, outside timing: each layout has its own copy of the inputs, made before
/// any version runs, as an application holds its tensors in one layout. (A version that needed a
/// conversion inside its run would pay for it in its time.)
#include <algorithm>
#include <stdexcept>

#include "common/check.hpp"
#include "conv2d.hpp"

namespace conv2d {

/// out[i][j][ch] = in[i][ch][j] for each of `n` images of `c` x `hw` values: one 32 x 32 tile of
/// an image per block, staged in shared memory so that both the reads (along j) and the writes
/// (along ch) are coalesced. blockIdx.z walks the images (in chunks of 65535).
__global__ void to_channels_last_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                                        std::int64_t c, std::int64_t hw) {
  __shared__ float tile[32][33];  // [ch][j], padded: the column reads do not conflict
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * 32, c0 = static_cast<std::int64_t>(blockIdx.y) * 32;
  for (std::int64_t img = blockIdx.z; img < n; img += gridDim.z) {
    const float* src = in + img * c * hw;
    float* dst = out + img * c * hw;
    for (int dy = threadIdx.y; dy < 32; dy += blockDim.y) {  // rows: channels
      const std::int64_t ch = c0 + dy, j = j0 + threadIdx.x;
      if (ch < c && j < hw) tile[dy][threadIdx.x] = src[ch * hw + j];
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < 32; dy += blockDim.y) {  // rows: positions j
      const std::int64_t j = j0 + dy, ch = c0 + threadIdx.x;
      if (ch < c && j < hw) dst[j * c + ch] = tile[threadIdx.x][dy];
    }
    __syncthreads();
  }
}

/// out[i] = bfloat16(in[i]), rounded to nearest even (grid-stride loop).
__global__ void to_bf16_kernel(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, std::int64_t count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    out[i] = __float2bfloat16_rn(in[i]);
  }
}

void to_channels_last_device(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw,
                             cudaStream_t stream) {
  if (n <= 0 || c <= 0 || hw <= 0) return;
  const std::int64_t tiles_j = (hw + 31) / 32, tiles_c = (c + 31) / 32;
  if (tiles_j > 2147483647 || tiles_c > 65535) throw std::invalid_argument("to_channels_last: too many channels");
  const dim3 grid(static_cast<unsigned>(tiles_j), static_cast<unsigned>(tiles_c),
                  static_cast<unsigned>(std::min<std::int64_t>(n, 65535)));
  to_channels_last_kernel<<<grid, dim3(32, 8), 0, stream>>>(in, out, n, c, hw);
  CUDA_CHECK_LAUNCH();
}

void to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  to_bf16_kernel<<<static_cast<unsigned>(std::min<std::int64_t>((count + 255) / 256, 65536)), 256, 0, stream>>>(
      in, out, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
