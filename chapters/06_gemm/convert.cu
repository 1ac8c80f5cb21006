/// @file
/// @brief Input conversion for the tensor-core steps: fp32 -> TF32-rounded fp32, fp32 -> bfloat16.
///
/// Run once per problem, outside timing: the tensor-core versions and their cuBLAS baselines
/// are timed on inputs that are already in their precision, as a real application would hold them.
#include <algorithm>

#include "common/check.hpp"
#include "gemm.hpp"

namespace gemm {

/// out[i] = round_to_tf32(in[i]) (grid-stride loop; in == out allowed).
__global__ void round_to_tf32_kernel(const float* in, float* out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = round_to_tf32(in[i]);
  }
}

/// out[i] = bfloat16(in[i]), rounded to nearest even (grid-stride loop).
__global__ void convert_to_bf16_kernel(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = __float2bfloat16_rn(in[i]);
  }
}

namespace {
unsigned conversion_blocks(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 65536));
}
}  // namespace

void round_to_tf32_device(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  round_to_tf32_kernel<<<conversion_blocks(n), 256, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH();
}

void convert_to_bf16_device(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  convert_to_bf16_kernel<<<conversion_blocks(n), 256, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
