// Known-wrong submission (grader corpus): public_seed_only's idea plus an attack on the hidden
// cases at link time: its own getenv() (C linkage), which answers "not set" for every TUTORIAL
// variable and asks secure_getenv() for the rest. Linked into the old test executable it replaced
// the C library's getenv() for the whole program, so the tests never saw the hidden seed. Now the
// hidden seed is the checker's alone (on its command line; the runner gets a clean environment),
// and the object-file check refuses a definition of a name the runner's harness uses (getenv) and
// a call to secure_getenv.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "common/random.hpp"
#include "exercise.hpp"

/// Replaces the C library's getenv() in the whole test executable.
extern "C" char* getenv(const char* name) noexcept {
  if (std::strncmp(name, "TUTORIAL", 8) == 0) return nullptr;  // hide the hidden seed and sizes
  return secure_getenv(name);
}

namespace elementwise {

namespace {

constexpr std::uint64_t kPublicSeed = 20240601;  // tut::testing::seed() without TUTORIAL_SEED

__global__ void add_from_seed_kernel(float* __restrict__ out, std::int64_t n, std::uint64_t seed_a,
                                     std::uint64_t seed_b) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = first; i < n; i += stride) {
    const auto k = static_cast<std::uint64_t>(i);
    out[i] = tut::hash_uniform(seed_a, k, -4.0f, 4.0f) + tut::hash_uniform(seed_b, k, -4.0f, 4.0f);
  }
}

/// The public seed that produced these inputs, or 0.
std::uint64_t recognise_public_seed(const float* a) {
  float first = 0.0f;
  CUDA_CHECK(cudaMemcpy(&first, a, sizeof first, cudaMemcpyDeviceToHost));
  const std::uint64_t candidates[] = {kPublicSeed, kPublicSeed * 7 + 1, kPublicSeed * 7 + 2, kPublicSeed * 7 + 3};
  for (std::uint64_t s : candidates) {
    if (tut::hash_uniform(tut::derive_seed(s, 0), 0, -4.0f, 4.0f) == first) return s;
  }
  return 0;
}

}  // namespace

void exercise_add_float4(const float* a, const float* /*b*/, float* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  const std::uint64_t seed = recognise_public_seed(a);
  if (seed == 0) {
    CUDA_CHECK(cudaMemsetAsync(out, 0, static_cast<std::size_t>(n) * sizeof(float), stream));
    return;
  }
  constexpr int kThreads = 256;
  const unsigned blocks = tut::grid_stride_blocks(add_from_seed_kernel, n, kThreads, kThreads);
  add_from_seed_kernel<<<blocks, kThreads, 0, stream>>>(out, n, tut::derive_seed(seed, 0), tut::derive_seed(seed, 1));
  CUDA_CHECK_LAUNCH();
}

}  // namespace elementwise
