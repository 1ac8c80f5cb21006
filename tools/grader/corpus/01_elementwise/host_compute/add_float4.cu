// Known-wrong submission (grader corpus): door 3/5 of issue 23, the answer computed on the host.
// The launcher copies both inputs to the host with cudaMemcpy (synchronous), adds them there,
// copies the sum back, and launches an empty kernel so that "a kernel ran". Called directly it
// is right. The checker also captures the launcher into a CUDA graph while input set 0 is loaded
// and launches the graph on input set 1: the host work happened at capture time (on set 0) and
// is not in the graph, which holds only the empty kernel, so the replay leaves the outputs
// poisoned (or the capture fails, where the copies cannot be captured): the captured run fails.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/check.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

__global__ void looks_busy() {}

}  // namespace

void exercise_add_float4(const float* a, const float* b, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  std::vector<float> ha(static_cast<std::size_t>(n)), hb(static_cast<std::size_t>(n));
  CUDA_CHECK(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost));  // BUG (on purpose): on the host
  CUDA_CHECK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] += hb[i];
  CUDA_CHECK(cudaMemcpy(out, ha.data(), bytes, cudaMemcpyHostToDevice));
  looks_busy<<<1, 32, 0, stream>>>();
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
