// Known-wrong submission (grader corpus): right only at the sizes the public tests use. At any
// other n it processes n - 1 elements, so the last one keeps its NaN poison. The hidden extra
// sizes (and the chapter executable's default problem) reject it.
#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

// The public sweep (common/testing.cpp) and the sizes of the "fresh inputs" test case.
constexpr std::int64_t kPublicSizes[] = {1,     2,     3,     4,     5,     7,      8,          13,
                                         31,    32,    33,    63,    64,    65,     127,        128,
                                         129,   255,   256,   257,   511,   1000,   1023,       1024,
                                         1025,  4096,  4097,  65535, 65536, 65537,  (1 << 20) - 1, (1 << 20) + 3,
                                         3 * (1 << 20) + 1, 4099};

__global__ void add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                  std::int64_t n) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t n_vec = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (std::int64_t v = first; v < n_vec; v += stride) {
    const float4 x = a4[v];
    const float4 y = b4[v];
    out4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  for (std::int64_t i = 4 * n_vec + first; i < n; i += stride) out[i] = a[i] + b[i];
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const bool tested = std::find(std::begin(kPublicSizes), std::end(kPublicSizes), n) != std::end(kPublicSizes);
  const std::int64_t m = tested ? n : n - 1;  // BUG: a size the tests never use loses its last element
  if (m <= 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_float4_kernel, m / 4 + 1, kThreads, kThreads);
  add_float4_kernel<<<blocks, kThreads, 0, stream>>>(a, b, out, m);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
