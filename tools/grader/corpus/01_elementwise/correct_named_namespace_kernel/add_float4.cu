// A CORRECT submission (grader corpus): it must PASS. It is written the way many students write
// working code, and each of these must be accepted:
//  - the kernel and a __device__ helper are named functions of namespace elementwise (not in an
//    anonymous namespace), so they have external linkage and C++ names of their own (nvcc's host
//    copy of such a __device__ function calls exit(): the object-file check must allow that);
//  - the launcher prints what it does with printf (debugging output left in), and keeps its
//    pointers in a std::vector for the alignment check;
//  - a grid-stride loop over float4s, then the scalar tail, as the exercise asks.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

__device__ float4 add4(float4 x, float4 y) { return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }

__global__ void my_add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ out, std::int64_t n) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t n_vec = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (std::int64_t v = first; v < n_vec; v += stride) {
    out4[v] = add4(a4[v], b4[v]);
  }
  for (std::int64_t i = 4 * n_vec + first; i < n; i += stride) out[i] = a[i] + b[i];
}

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::vector<const void*> pointers = {a, b, out};
  for (const void* p : pointers) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) {
      throw std::invalid_argument("exercise_add_float4: arrays must be 16-byte aligned");
    }
  }
  const std::int64_t vectors = n / 4 + 1;
  const unsigned blocks = static_cast<unsigned>(vectors < 4096 * 256 ? (vectors + 255) / 256 : 4096);
  std::printf("my add: n = %lld, %u blocks of 256 threads\n", static_cast<long long>(n), blocks);
  my_add_float4_kernel<<<blocks, 256, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
