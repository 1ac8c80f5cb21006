// Known-wrong submission (grader corpus): every warp computes its row's dot product, but the store of the sum to y is
// missing, so nothing reaches y: the tests' NaN poison stays.
#include <cstdint>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kWarps = 8;  // rows per block

/// y[row] = A[row][:] . x, one warp per row.
__global__ void gemv_warp_float4_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, std::int64_t M, std::int64_t K) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= M) return;  // the whole warp leaves: the shuffles below see full warps
  const float* a = A + row * K;

  // The row's split: [0, head) scalar, [head, head + 4 * n_vec) float4, [head + 4 * n_vec, K) scalar.
  const std::int64_t to_boundary = static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(a) % 16) % 16 / 4);
  const std::int64_t head = to_boundary < K ? to_boundary : K;
  const std::int64_t n_vec = (K - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const bool x_vec = reinterpret_cast<std::uintptr_t>(x + head) % 16 == 0;  // may x be read as float4 here?

  float sum = 0.0f;
  // Scalar head (lanes 0..head-1) and tail (at most 3 elements).
  if (lane < head) sum = fmaf(a[lane], x[lane], sum);
  for (std::int64_t k = head + 4 * n_vec + lane; k < K; k += 32) sum = fmaf(a[k], x[k], sum);

  // The float4 body: lane l takes vectors l, l + 32, ...
  for (std::int64_t v = lane; v < n_vec; v += 32) {
    const float4 av = a4[v];
    const float* xp = x + head + 4 * v;
    const float4 xv = x_vec ? *reinterpret_cast<const float4*>(xp) : make_float4(xp[0], xp[1], xp[2], xp[3]);
    sum = fmaf(av.x, xv.x, sum);
    sum = fmaf(av.y, xv.y, sum);
    sum = fmaf(av.z, xv.z, sum);
    sum = fmaf(av.w, xv.w, sum);
  }

  // Warp reduction: after the step with offset o every lane holds the sum of 2o lanes.
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  // BUG: the store of the row's sum to y is missing.
  (void)y;
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
