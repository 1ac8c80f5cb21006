// Known-wrong submission (grader corpus): right only for the public seed. The checker makes the
// inputs of public case i, input set s from derive_seed(derive_seed(20240601, i), s) (the public
// seed, common/exercise/checker.cpp), and array j of a set from derive_seed(that, j). Every thread
// of this kernel looks at a[0] and tries those seeds (31 public cases, 2 input sets each); when
// one matches, it writes the sums of the inputs it recomputes from that seed, without reading a or
// b. For inputs from any other seed it writes zeros. It recognises the inputs on the GPU, so it is
// right in the captured graph on fresh inputs too: it passes every public case, and only the
// hidden cases (the grader's secret seed) reject it.
#include <cuda_runtime.h>

#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "common/random.hpp"
#include "exercise.hpp"

namespace elementwise {

namespace {

constexpr std::uint64_t kPublicSeed = 20240601;  // the checker's public seed
constexpr int kPublicCases = 40;                 // at least check_elementwise --list's 31

__device__ std::uint64_t derive(std::uint64_t seed, std::uint64_t stream) {  // tut::derive_seed
  return tut::mix64(seed + 0x1234567ull * (stream + 1));
}

__global__ void add_from_seed_kernel(const float* __restrict__ a, float* __restrict__ out, std::int64_t n) {
  // Which public case and input set made a? (Every thread finds out for itself.)
  const float first = a[0];
  std::uint64_t seed_a = 0, seed_b = 0;
  bool known = false;
  for (int c = 0; c < kPublicCases && !known; ++c) {
    for (int s = 0; s < 2 && !known; ++s) {
      const std::uint64_t set = derive(derive(kPublicSeed, static_cast<std::uint64_t>(c)), static_cast<std::uint64_t>(s));
      if (tut::hash_uniform(derive(set, 0), 0, -4.0f, 4.0f) == first) {
        known = true;
        seed_a = derive(set, 0);
        seed_b = derive(set, 1);
      }
    }
  }
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto k = static_cast<std::uint64_t>(i);
    // BUG (on purpose): the inputs are recomputed from a seed, never read
    out[i] = known ? tut::hash_uniform(seed_a, k, -4.0f, 4.0f) + tut::hash_uniform(seed_b, k, -4.0f, 4.0f) : 0.0f;
  }
}

}  // namespace

void exercise_add_float4(const float* a, const float* /*b*/, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_from_seed_kernel, n, kThreads, kThreads);
  add_from_seed_kernel<<<blocks, kThreads, 0, stream>>>(a, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
