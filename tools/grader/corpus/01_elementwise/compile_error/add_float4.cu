// Known-wrong submission (grader corpus): does not compile (`n_vecs` is not declared).
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
  const std::int64_t n_vec = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (std::int64_t v = first; v < n_vecs; v += stride) {  // BUG: typo, n_vecs
    const float4 x = a4[v];
    const float4 y = b4[v];
    out4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (std::int64_t i = 4 * n_vec + first; i < n; i += stride) out[i] = a[i] + b[i];
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
