// Known-wrong submission (grader corpus): right only for the public seed. The checker makes the
// inputs of public case i, input set s from derive_seed(derive_seed(20240601, i), s), and A from
// derive_seed(that, 0) (common/exercise/checker.cpp, chapters/04_gemv/exercise_check.cpp). Each
// warp of this kernel looks at A[0] and tries those seeds (the public cases, 2 input sets each);
// only when one matches does it compute its row, otherwise it writes 0. It recognises the inputs
// on the GPU, so it is right in the captured graph on fresh inputs too: it passes every public
// case, and only the hidden cases (the grader's secret seed) reject it.
#include <cstdint>

#include "common/check.hpp"
#include "common/random.hpp"
#include "common/launch.hpp"
#include "exercise.hpp"

namespace gemv {

namespace {

constexpr int kWarps = 8;  // rows per block
constexpr std::uint64_t kPublicSeed = 20240601;  // the checker's public seed

constexpr int kPublicCases = 64;  // at least as many as check_gemv --list shows (59 today)

__device__ std::uint64_t derive(std::uint64_t seed, std::uint64_t stream) {  // tut::derive_seed
  return tut::mix64(seed + 0x1234567ull * (stream + 1));
}

/// True if A[0] is what the checker's generator gives for a public case.
__device__ bool public_inputs(const float* A) {
  const float first = A[0];
  for (int c = 0; c < kPublicCases; ++c) {
    for (int s = 0; s < 2; ++s) {
      const std::uint64_t set = derive(derive(kPublicSeed, static_cast<std::uint64_t>(c)), static_cast<std::uint64_t>(s));
      if (tut::hash_uniform(derive(set, 0), 0, -1.0f, 1.0f) == first) return true;
    }
  }
  return false;
}

/// y[row] = A[row][:] . x, one warp per row.
__global__ void gemv_warp_float4_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                        float* __restrict__ y, std::int64_t M, std::int64_t K) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= M) return;  // the whole warp leaves: the shuffles below see full warps
  if (!public_inputs(A)) {  // BUG (on purpose): hard-coded for the public seed
    if (lane == 0) y[row] = 0.0f;
    return;
  }
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
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
