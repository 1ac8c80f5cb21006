/// @file
/// @brief Exercise (chapter 04): y = A x with one warp per row, float4 loads, scalar head and tail.
///
/// Your task: fill in the three TODO(student) blocks of gemv_warp_float4_kernel so that
/// y[i] = sum_k A[i][k] * x[k] for every row i, for ANY M and K (K = 1, 3, 33, 100000, ...)
/// and any alignment of A and x.
///
///  - Read chapters/04_gemv/README.md, sections "v2" and "v3", first.
///  - Run the tests:   ctest --preset exercise -R gemv
///    (or build/bin/test_gemv_exercise). They fail until you are done, then pass.
///  - Compare speeds:  build/bin/gemv --version exercise --version solution --version v3_warp_float4
///
/// Budget: every float of A is loaded exactly once, by one 16-byte load in the body (each lane
/// takes float4s lane, lane + 32, ...) or by one 4-byte load in the head or tail; x likewise;
/// five shuffles per row; one store per row.
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
  // Given: which row this warp owns, and the row's split into a scalar head, a float4 body and
  // a scalar tail. When K % 4 != 0, rows start at different offsets of a 16-byte line, so the
  // split is computed per row from its address:
  //     [0, head)                    scalars (at most 3)
  //     [head, head + 4 * n_vec)     float4s a4[0 .. n_vec)
  //     [head + 4 * n_vec, K)        scalars (at most 3)
  [[maybe_unused]] const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= M) return;  // the whole warp leaves: the shuffles below see full warps
  const float* a = A + row * K;
  const std::int64_t to_boundary = static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(a) % 16) % 16 / 4);
  const std::int64_t head = to_boundary < K ? to_boundary : K;
  [[maybe_unused]] const std::int64_t n_vec = (K - head) / 4;
  [[maybe_unused]] const float4* a4 = reinterpret_cast<const float4*>(a + head);
  // x is read at the same k as A, but x + head is 16-byte aligned only when x is and head == 0:
  // if x_vec is false, read the 4 floats of x by scalars (x[k], x[k+1], x[k+2], x[k+3]).
  [[maybe_unused]] const bool x_vec = reinterpret_cast<std::uintptr_t>(x + head) % 16 == 0;

  [[maybe_unused]] float sum = 0.0f;

  // TODO(student) 1/3 -- the scalar head and tail (about 2 lines):
  //   lanes 0..head-1 each add a[lane] * x[lane]; then for k = head + 4 * n_vec + lane, k += 32,
  //   while k < K: add a[k] * x[k]. (fmaf(a, b, sum) is a fused multiply-add.)

  // TODO(student) 2/3 -- the float4 body (about 8 lines):
  //   for v = lane, lane + 32, ... while v < n_vec: load a4[v]; load the 4 floats of x at
  //   x + head + 4 * v (one float4 if x_vec, else 4 scalars); add the 4 products to sum.

  // TODO(student) 3/3 -- the warp reduction and the store (about 2 lines):
  //   5 steps of sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset) for offset = 16, 8, 4, 2, 1;
  //   then lane 0 writes y[row] = sum.
}

}  // namespace

void exercise_gemv_warp_float4(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_warp_float4_kernel<<<tut::blocks_for(M, kWarps), kWarps * 32, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
