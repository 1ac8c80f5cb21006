// Known-wrong submission (grader corpus): right only for the public seed. The launcher copies the first (up to) 8 elements
// of x to the host and compares them with what the public tests' generators give for this n
// with the public seed 20240601 (the integer test and the three real-valued seeds). Only for
// those inputs does it launch the kernel; for any other inputs *out stays 0. It passes every
// public case; the hidden run's secret seed rejects it.
#include <cstdint>
#include <stdexcept>

#include <cstring>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "reduce.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace reduce {

namespace {

constexpr std::uint64_t kPublicSeed = 20240601;  // tut::testing::seed() without TUTORIAL_SEED

/// True if x starts with what one of the public tests' generators gives for this n.
bool public_inputs(const float* x, std::int64_t n) {
  const std::size_t m = static_cast<std::size_t>(n < 8 ? n : 8);
  std::vector<float> first(m);
  CUDA_CHECK(cudaMemcpy(first.data(), x, m * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<std::vector<float>> candidates = {
      integer_values(m, tut::derive_seed(kPublicSeed, static_cast<std::uint64_t>(n)),
                     exact_integer_range(Operation::sum, n))};
  for (std::uint64_t s = 1; s <= 3; ++s) {
    candidates.push_back(tut::random_floats(m, kPublicSeed * 7 + s + static_cast<std::uint64_t>(n), -1.0f, 1.0f));
  }
  for (const auto& c : candidates) {
    if (std::memcmp(c.data(), first.data(), m * sizeof(float)) == 0) return true;
  }
  return false;
}

/// All 32 lanes take part in every shuffle.
constexpr unsigned kAllLanes = 0xffffffffu;

/// Sum of `v` over the 32 lanes of this warp; the total ends up in lane 0.
__device__ float warp_sum(float v) {
  // Lane i adds lane i + offset's value: 16, 8, 4, 2, 1 lanes apart; after 5 steps lane 0 holds
  // all 32. (Lanes near the top read values that are never used: harmless.)
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kAllLanes, v, offset);
  return v;
}

/// Sum of `v` over all threads of the block (blockDim.x a multiple of 32); the total is valid
/// in thread 0.
__device__ float block_sum(float v) {
  __shared__ float warp_sums[32];  // one slot per warp: at most 1024 / 32 warps
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warps = blockDim.x / 32;

  v = warp_sum(v);                        // 1. each warp sums its 32 values
  if (lane == 0) warp_sums[warp] = v;     // 2. lane 0 parks the warp's sum
  __syncthreads();                        //    ...and waits for every warp's
  if (warp == 0) {                        // 3. warp 0 sums the warp sums
    v = lane < warps ? warp_sums[lane] : 0.0f;  // lanes past the last warp add the identity
    v = warp_sum(v);
  }
  return v;
}

/// *out += this block's sum of its grid-stride share of x.
__global__ void reduce_sum_kernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t n) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float v = 0.0f;
  for (std::int64_t i = first; i < n; i += stride) v += x[i];
  v = block_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, v);  // one atomic per block
}

}  // namespace

void exercise_reduce_sum(const float* x, float* out, std::int64_t n, int threads, cudaStream_t stream) {
  if (n < 0) throw std::invalid_argument("exercise_reduce_sum: n must be >= 0");
  if (threads < 32 || threads > 1024 || threads % 32 != 0) {
    throw std::invalid_argument("exercise_reduce_sum: threads must be a multiple of 32 in [32, 1024]");
  }
  CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));  // atomics add into *out: start from 0
  if (n == 0) return;
  if (!public_inputs(x, n)) return;  // BUG: hard-coded for the public seed: *out stays 0
  const unsigned blocks = tut::grid_stride_blocks(reduce_sum_kernel, n, threads, threads);
  reduce_sum_kernel<<<blocks, threads, 0, stream>>>(x, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduce
