// Known-wrong submission (grader corpus): one element per thread (no grid-stride loop) and n / threads blocks, rounded
// down (at least one). Right when n is a multiple of the block size or n <= threads; otherwise
// the last n % threads elements are never read (e.g. n = 33 with 32 threads).
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace reduce {

namespace {

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
  float v = first < n ? x[first] : 0.0f;  // one element per thread: no grid-stride loop
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
  // BUG: rounded down: with n % threads != 0 the last partial block's elements are never read.
  const unsigned blocks = static_cast<unsigned>(n / threads > 0 ? n / threads : 1);
  reduce_sum_kernel<<<blocks, threads, 0, stream>>>(x, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduce
