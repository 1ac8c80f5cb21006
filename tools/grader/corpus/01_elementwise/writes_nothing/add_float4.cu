// Known-wrong submission (grader corpus): a kernel that writes nothing to its output. The sums are
// staged in shared memory, and only "the last block" was meant to copy them out, but the test
// is blockIdx.x == gridDim.x (an off-by-one): no block has that index, so nothing is written.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

constexpr int kThreads = 256;

__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n) {
  __shared__ float staged[kThreads];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = first; i < n; i += stride) {
    staged[threadIdx.x] = a[i] + b[i];
    if (blockIdx.x == gridDim.x) out[i] = staged[threadIdx.x];  // BUG: no block has this index
  }
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const unsigned blocks = tut::grid_stride_blocks(add_float4_kernel, n, kThreads, kThreads);
  add_float4_kernel<<<blocks, kThreads, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
