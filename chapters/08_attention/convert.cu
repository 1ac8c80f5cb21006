// Chapter 08: fp32 <-> bf16 conversions, on the device (the inputs of the bf16 tables, made once
// per problem outside timing) and on the host (what the reference sees).
#include <cstring>

#include "attention.hpp"
#include "common/check.hpp"
#include "common/launch.hpp"

namespace attention {

namespace {

__global__ void to_bf16_kernel(const float* in, __nv_bfloat16* out, std::int64_t n) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = __float2bfloat16_rn(in[i]);
  }
}

__global__ void to_float_kernel(const __nv_bfloat16* in, float* out, std::int64_t n) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = __bfloat162float(in[i]);
  }
}

}  // namespace

float round_to_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

void convert_to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  to_bf16_kernel<<<tut::grid_stride_blocks(to_bf16_kernel, n, 256, 256), 256, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH();
}

void convert_to_float_device(const __nv_bfloat16* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  to_float_kernel<<<tut::grid_stride_blocks(to_float_kernel, n, 256, 256), 256, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace attention
