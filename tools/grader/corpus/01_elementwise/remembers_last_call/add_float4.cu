// Known-wrong submission (grader corpus): door 4 of issue 23. The first call for a given n
// computes the sum with a real kernel and keeps a copy of it in a static device buffer; every
// later call with the same n only copies that copy back into out (and launches an empty kernel).
// The old timed runs reused the first run's inputs and outputs, so this "ran" at hundreds of
// times the solution's speed. Now every case is also run as a CUDA graph captured on input set
// 0 and launched on input set 1, and every timed repetition gets freshly loaded inputs (one of
// three sets) with its outputs poisoned and checked: the remembered answer is wrong there.
#include <cstdint>
#include <map>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

__global__ void add_kernel(const float* a, const float* b, float* out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = a[i] + b[i];
  }
}

__global__ void looks_busy() {}

std::map<std::int64_t, float*> remembered;  // n -> the first call's output

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  auto it = remembered.find(n);
  if (it != remembered.end()) {  // BUG (on purpose): the last answer for this size, not this call's
    CUDA_CHECK(cudaMemcpyAsync(out, it->second, bytes, cudaMemcpyDeviceToDevice, stream));
    looks_busy<<<1, 32, 0, stream>>>();
    CUDA_CHECK_LAUNCH();
    return;
  }
  float* copy = nullptr;
  CUDA_CHECK(cudaMalloc(&copy, bytes));
  remembered[n] = copy;
  add_kernel<<<1024, 256, 0, stream>>>(a, b, out, n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(copy, out, bytes, cudaMemcpyDeviceToDevice, stream));
}

}  // namespace elementwise
