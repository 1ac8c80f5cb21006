// Known-wrong submission (grader corpus): right only for the public seed. The launcher copies the first (up to 8) elements
// of A to the host and compares them with what the public tests' generator gives with the public
// seed 20240601 (seed, seed + 2, seed * 7 + 1..3). Only for those inputs does it launch the
// kernel; otherwise it writes zeros. It passes every public case; the hidden run's secret seed
// rejects it.
#include <cstdint>

#include <cstring>
#include <vector>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kWarps = 8;  // rows per block
constexpr std::uint64_t kPublicSeed = 20240601;  // tut::testing::seed() without TUTORIAL_SEED

/// True if A starts with what the public tests' generator gives for one of the public seeds.
bool public_inputs(const float* A, std::int64_t M, std::int64_t K) {
  const std::size_t m = static_cast<std::size_t>(M * K < 8 ? M * K : 8);
  std::vector<float> first(m);
  CUDA_CHECK(cudaMemcpy(first.data(), A, m * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::uint64_t seed : {kPublicSeed, kPublicSeed + 2, kPublicSeed * 7 + 1, kPublicSeed * 7 + 2,
                             kPublicSeed * 7 + 3}) {
    const std::vector<float> expect = tut::random_floats(m, tut::derive_seed(seed, 0));
    if (std::memcmp(expect.data(), first.data(), m * sizeof(float)) == 0) return true;
  }
  return false;
}

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
  if (lane == 0) y[row] = sum;
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  if (!public_inputs(A, M, K)) {  // BUG: hard-coded for the public seed
    CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(M) * sizeof(float), stream));
    return;
  }
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
