// Known-wrong submission (grader corpus): door 3 of issue 23. A weak reference to the solution's
// entry point (its name in the old executable, which linked the solution renamed to
// solution_add_float4): when the program also holds the solution, the call goes there and is
// right; otherwise the pointer is null and a wrong kernel of its own runs (no scalar tail).
// Now the runner links the harness and this file only (the solution is not there, so the
// fallback runs and fails the cases with n % 4 != 0), and the object-file check refuses the
// reference before anything runs: elementwise::solution_add_float4 is not an allowed call.
#include <cstdint>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

void solution_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream)
    __attribute__((weak));

namespace {

__global__ void add_body_only(const float4* a, const float4* b, float4* out, std::int64_t n_vec) {
  const std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v < n_vec) out[v] = make_float4(a[v].x + b[v].x, a[v].y + b[v].y, a[v].z + b[v].z, a[v].w + b[v].w);
  // BUG (on purpose): no scalar tail
}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (solution_add_float4 != nullptr) {
    solution_add_float4(a, b, out, n, stream);
    return;
  }
  const std::int64_t n_vec = n / 4;
  if (n_vec == 0) return;
  add_body_only<<<static_cast<unsigned>((n_vec + 255) / 256), 256, 0, stream>>>(
      reinterpret_cast<const float4*>(a), reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(out), n_vec);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
