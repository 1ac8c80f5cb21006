/// @file
/// @brief Exercise (chapter 02): a block-wide sum built from warp shuffles.
///
/// Your task: fill in the two TODO(student) blocks, warp_sum() and block_sum(), so that
/// exercise_reduce_sum() returns x[0] + ... + x[n-1] for ANY n, for ANY block size that is a
/// multiple of 32 up to 1024 (the checker tries every one of them), and for x starting at any
/// float (it passes x 0-3 floats past a 16-byte boundary).
///
///  - Read chapters/02_reduce/README.md first: sections "v5: the last warp with shuffles (and
///    why not the volatile trick)" and "v6: many elements per thread, float4 loads, one wave of
///    blocks", and "Exercise: the warp-shuffle block sum".
///  - Check it, and time it against the solution, with one command (it rebuilds what you changed):
///        python3 tools/exercise.py reduce
///    The checker reports FAILED until you are done. Without a GPU it builds your file, and its
///    last line says NOT CHECKED.
///
/// Rules: no shared memory inside a warp (use __shfl_down_sync or __shfl_xor_sync), and never
/// the old `volatile` warp-synchronous trick: since Volta the lanes of a warp do not run in
/// lockstep, so it races (the chapter page explains why).
/// Budget: 5 shuffles per warp_sum; one __syncthreads() and one shared float per warp in block_sum.
#include <cstdint>
#include <stdexcept>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace reduce {

namespace {

/// All 32 lanes take part in every shuffle.
[[maybe_unused]] constexpr unsigned kAllLanes = 0xffffffffu;

/// Sum of `v` over the 32 lanes of this warp; the total must end up in lane 0.
[[maybe_unused]] __device__ float warp_sum(float v) {
  // TODO(student) 1/2 -- the warp sum (about 2 lines): five shuffle steps, the distance
  //   halving from 16 lanes to 1. In each step every lane adds the value of the lane `offset`
  //   above it (__shfl_down_sync, all 32 lanes in the mask: kAllLanes); after the last step
  //   lane 0 holds the sum of all 32. (What the lanes near the top add is never used.)
  return v;
}

/// Sum of `v` over all threads of the block (blockDim.x a multiple of 32); the total must be
/// valid in thread 0.
__device__ float block_sum(float v) {
  [[maybe_unused]] __shared__ float warp_sums[32];  // one slot per warp: at most 1024 / 32 warps
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  [[maybe_unused]] const int warp = threadIdx.x / 32;
  [[maybe_unused]] const int warps = blockDim.x / 32;

  // TODO(student) 2/2 -- the block sum (about 7 lines):
  //   1. v = warp_sum(v): every warp sums its own 32 values;
  //   2. lane 0 of each warp writes its sum to warp_sums[warp]; then __syncthreads();
  //   3. warp 0 loads warp_sums[lane] (0.0f for lanes >= warps: the identity of +) and
  //      calls warp_sum() once more. Thread 0 then holds the block's total.
  //   Careful: every lane of a warp must reach a __shfl_*_sync with a full mask.
  return v;
}

/// *out += this block's sum of its grid-stride share of x.
__global__ void reduce_sum_kernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t n) {
  // Given: each thread adds up its grid-stride share of x.
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
  const unsigned blocks = tut::grid_stride_blocks(reduce_sum_kernel, n, threads, threads);
  reduce_sum_kernel<<<blocks, threads, 0, stream>>>(x, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduce
