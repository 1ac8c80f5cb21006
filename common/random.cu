#include "common/random.hpp"

#include "common/check.hpp"

namespace tut {

namespace {

/// Grid-stride fill kernel: element i gets hash_uniform(seed, i, lo, hi).
__global__ void fill_random_kernel(float* out, std::size_t n, std::uint64_t seed, float lo, float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = hash_uniform(seed, i, lo, hi);
  }
}

}  // namespace

void fill_random(float* host, std::size_t n, std::uint64_t seed, float lo, float hi) {
  for (std::size_t i = 0; i < n; ++i) host[i] = hash_uniform(seed, i, lo, hi);
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  fill_random(v.data(), n, seed, lo, hi);
  return v;
}

void fill_random_device(float* device, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const std::size_t wanted = (n + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? wanted : 65536);
  fill_random_kernel<<<blocks, kThreads, 0, stream>>>(device, n, seed, lo, hi);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tut
