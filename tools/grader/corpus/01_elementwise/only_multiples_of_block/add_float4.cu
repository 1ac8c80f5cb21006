// Known-wrong submission (grader corpus): one thread per element, n / 256 blocks rounded DOWN (at
// least one) and no bounds check. Right only when n is a multiple of the block: otherwise the last
// partial block is never launched, and for n < 256 the one block writes past the end.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

constexpr int kThreads = 256;

__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = a[i] + b[i];  // BUG: no `if (i < n)`
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::int64_t blocks = n / kThreads > 0 ? n / kThreads : 1;  // BUG: rounds down
  add_float4_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, b, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
