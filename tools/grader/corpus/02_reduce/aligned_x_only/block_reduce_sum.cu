// Known-wrong submission (grader corpus): issue 23's coverage door for reduce. The solution with
// one change: it reads x as float4s (then a scalar tail), assuming x starts at a 16-byte
// boundary. The exercise's contract lets x start at any float (a sub-array view such as x + 1),
// and there the float4 loads are misaligned: the kernel faults (cudaErrorMisalignedAddress). The
// old cases always passed an aligned x. Caught by any case with x misaligned (the array offset of
// x; needs the GPU and the ported reduce checker).
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
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float v = 0.0f;
  // BUG (on purpose): x read as float4s, as if it were 16-byte aligned
  const float4* x4 = reinterpret_cast<const float4*>(x);
  for (std::int64_t i = first; i < n / 4; i += stride) {
    const float4 f = x4[i];
    v += (f.x + f.y) + (f.z + f.w);
  }
  for (std::int64_t i = 4 * (n / 4) + first; i < n; i += stride) v += x[i];
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
  // n = 0 still launches (one block, which adds 0): every call computes *out with a kernel.
  const unsigned blocks = tut::grid_stride_blocks(reduce_sum_kernel, n, threads, threads);
  reduce_sum_kernel<<<blocks, threads, 0, stream>>>(x, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduce
