// Known-wrong submission (grader corpus): the kernel computes the sums but never stores them.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  for (std::int64_t i = first; i < n; i += stride) sum = a[i] + b[i];  // BUG: never written to out
  (void)sum;
  (void)out;
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_float4_kernel, n / 4 + 1, kThreads, kThreads);
  add_float4_kernel<<<blocks, kThreads, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
