// Known-wrong submission (grader corpus): every thread of the block loads one element of a 256-element chunk of x into
// shared memory and each warp then dots its row with the chunk, but both __syncthreads() are
// missing: after the loads (a warp reads slots that other warps have not written yet, holding an
// earlier chunk or another block's data) and before the next chunk overwrites them. With the two
// barriers it is right. A single chunk (K <= 256) often gets the same x values left over from the
// block before on that SM, so it may pass there; with K > 256 and many rows (the tests' 513 x
// 1025, 1024 x 1024, 2049 x 257, 1024 x 4100, 33 x 100000, ...) stale chunks are read.
// racecheck reports it too.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kWarps = 8;  // rows per block
constexpr int kChunk = kWarps * 32;  // elements of x staged per step: one per thread of the block

/// y[row] = A[row][:] . x, one warp per row.
__global__ void gemv_warp_float4_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, std::int64_t M, std::int64_t K) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  __shared__ float xs[kChunk];  // x[k0, k0 + kChunk)
  const float* a = A + row * K;
  float sum = 0.0f;
  for (std::int64_t k0 = 0; k0 < K; k0 += kChunk) {
    const std::int64_t kx = k0 + threadIdx.x;
    xs[threadIdx.x] = kx < K ? x[kx] : 0.0f;  // every thread of the block loads one element
    // BUG: __syncthreads() missing here: xs[k] below was loaded by another warp.
    if (row < M) {
      for (int k = lane; k < kChunk && k0 + k < K; k += 32) sum = fmaf(a[k0 + k], xs[k], sum);
    }
    // BUG: and here, before the next chunk overwrites xs.
  }
  // Every warp stays to the end (no early return), so the shuffles see full warps.
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (row < M && lane == 0) y[row] = sum;
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
