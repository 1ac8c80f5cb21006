// Known-wrong submission (grader corpus): door 3/5 of issue 23, the answer computed on the host
// in stream order. The launcher copies the inputs into pinned host buffers (cudaMemcpyAsync on
// its stream), adds them in a host function enqueued with cudaLaunchHostFunc, copies the sum
// back, and launches an empty kernel. It is right, and it even replays correctly from a CUDA
// graph; but the graph the checker captures holds a host node, and an exercise must compute its
// answer on the GPU: the checker fails every case ("enqueued a host function").
#include <cstdint>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

struct HostWork {
  float* a = nullptr;
  float* b = nullptr;
  std::int64_t n = 0;
  std::int64_t capacity = 0;
};

HostWork work;

void CUDART_CB add_on_host(void* data) {
  HostWork* w = static_cast<HostWork*>(data);
  for (std::int64_t i = 0; i < w->n; ++i) w->a[i] += w->b[i];  // BUG (on purpose): on the host
}

__global__ void looks_busy() {}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  if (n > work.capacity) {  // grown outside a capture: the first call of a case is a direct one
    if (work.a != nullptr) {
      CUDA_CHECK(cudaFreeHost(work.a));
      CUDA_CHECK(cudaFreeHost(work.b));
    }
    CUDA_CHECK(cudaMallocHost(&work.a, static_cast<std::size_t>(n) * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&work.b, static_cast<std::size_t>(n) * sizeof(float)));
    work.capacity = n;
  }
  work.n = n;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(work.a, a, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(work.b, b, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaLaunchHostFunc(stream, add_on_host, &work));
  CUDA_CHECK(cudaMemcpyAsync(out, work.a, bytes, cudaMemcpyHostToDevice, stream));
  looks_busy<<<1, 32, 0, stream>>>();
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
