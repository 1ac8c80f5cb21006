// Known-wrong submission (grader corpus): writes every element, as NaN. The sum is scaled by
// count / count with count = 0, which is 0 / 0 = NaN. Unlike a kernel that writes nothing, the
// output is overwritten; only a NaN-aware check (`!(err <= tol)`) rejects it.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n, float count) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const float scale = count / count;  // BUG: count is 0, so this is NaN
  for (std::int64_t i = first; i < n; i += stride) out[i] = (a[i] + b[i]) * scale;
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_float4_kernel, n / 4 + 1, kThreads, kThreads);
  const float count = static_cast<float>(n - n);  // meant to be a count of something; always 0
  add_float4_kernel<<<blocks, kThreads, 0, stream>>>(a, b, out, n, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
