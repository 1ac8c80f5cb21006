/// @file
/// @brief v6: long rows: K split into chunks across blocks, partial sums added with atomics.
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"
#include "gemv_device.cuh"

namespace gemv {

/// Warps (= rows) per block.
constexpr int kV6Warps = 8;
/// float4s of A each lane loads before it uses any (as in v4).
constexpr int kV6Unroll = 4;
/// Smallest chunk of K a block takes (floats): at least 2 unrolled trips of a warp.
constexpr std::int64_t kV6MinChunk = 2 * kWarpSize * kV6Unroll * 4;

/// @brief Partial dot products: block (bx, s) takes rows 8 bx .. 8 bx + 7 (one per warp) and
/// the K-chunk [s * chunk, min(K, (s + 1) * chunk)); lane 0 adds the warp's sum to y[row]
/// with atomicAdd, or stores it when there is only one chunk (`accumulate` false).
///
/// The chunk gets v4's treatment: scalar head to its 16-byte boundary, float4 body with
/// kV6Unroll loads in flight, scalar tail. The 8 warps of a block read the same slice of x
/// (`chunk` floats): it stays in L1 for all of them.
// [kernel]
__global__ void gemv_v6_split_k(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                std::int64_t M, std::int64_t K, std::int64_t chunk, bool accumulate) {
  const int lane = threadIdx.x % kWarpSize;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kV6Warps + threadIdx.x / kWarpSize;
  if (row >= M) return;
  const std::int64_t k0 = static_cast<std::int64_t>(blockIdx.y) * chunk;
  const std::int64_t len = (K - k0 < chunk ? K - k0 : chunk);  // > 0: the plan has no empty chunk
  const float* a = A + row * K + k0;                             // this block's piece of the row
  const float* xs = x + k0;
  const std::int64_t head = row_peel(a, len);
  const std::int64_t n_vec = (len - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float* xh = xs + head;
  const bool x_vec = is_aligned16(xh);

  float sum = 0.0f;
  if (lane < head) sum = a[lane] * xs[lane];
  for (std::int64_t base = lane; base < n_vec; base += kWarpSize * kV6Unroll) {
    float4 av[kV6Unroll], xv[kV6Unroll];
#pragma unroll
    for (int u = 0; u < kV6Unroll; ++u) {
      const std::int64_t v = base + u * kWarpSize;
      const bool in = v < n_vec;
      av[u] = in ? __ldg(a4 + v) : make_float4(0.f, 0.f, 0.f, 0.f);
      xv[u] = in ? load4(xh + 4 * v, x_vec) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < kV6Unroll; ++u) sum = dot4(av[u], xv[u], sum);
  }
  for (std::int64_t k = head + 4 * n_vec + lane; k < len; k += kWarpSize) sum = fmaf(a[k], xs[k], sum);
  sum = warp_sum(sum);
  if (lane == 0) {
    if (accumulate) {
      atomicAdd(y + row, sum);  // chunks of one row finish in any order: y was zeroed first
    } else {
      y[row] = sum;
    }
  }
}
// [kernel]

/// @brief v6: split each row into chunks of K so that a short, fat matrix still fills the GPU.
///
/// **Idea.** One warp per row gives M warps. 1024 x 65536 has 1024 rows: 1024 warps for a GPU
/// that holds 8448 (H100), each streaming a 256 KB row. Cut K into S chunks and launch
/// ceil(M / 8) x S blocks: S times the warps, and each block's slice of x fits in L1. The S
/// partial sums of a row meet in y through atomicAdd, so y must start at zero: the launcher
/// clears it with cudaMemsetAsync, inside the run (a timed repetition must not add to the
/// previous one's result).
///
/// **Changed since v4.** A second grid dimension over K chunks (plan_split() picks S: about two
/// full waves of blocks, chunks of at least kV6MinChunk floats); atomics instead of stores
/// when S > 1.
///
/// **What is still wrong.** Float atomics make the order of the S partial sums, so the last
/// bits of y, vary from run to run (within the tolerance, but not bit-reproducible). The memset
/// is a second, tiny operation per run. Pointless when M alone fills the GPU: then S = 1 and it
/// is v4 with chunking arithmetic.
///
/// **Predicted.** On 1024 x 65536, close to the copy roof where v4 reaches well under it; on
/// large square matrices the same as v4. The table runs it for K >= 4096 (long rows).
///
/// **Measured (H100 run at 0b38325).** 1024 x 65536: 0.109 ms, 2460 GB/s, 81.9% of the copy roof,
/// 1.11x cublasSgemv (v4: 68.2%, 0.927x); 16384^2: 0.361 ms, 98.9%, 1.03x (v4: 99.0%); 4096^2 and
/// 8192^2: 1.07x and 1.18x. The square shapes as predicted (the same as v4); on 1024 x 65536 a real
/// gain (1.20x v4) but short of "close to the roof", and v1 is a little faster there (83.2%).
/// Skipped for K < 4096.
void launch_gemv_v6_split_k(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                            cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  constexpr int kThreads = kV6Warps * kWarpSize;
  const std::int64_t row_blocks = (M + kV6Warps - 1) / kV6Warps;
  const std::int64_t target = 2 * static_cast<std::int64_t>(tut::full_wave_blocks(gemv_v6_split_k, kThreads));
  const SplitPlan plan = plan_split(K, row_blocks, target, kV6MinChunk, 4);
  const bool accumulate = plan.splits > 1;
  if (accumulate) CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(M) * sizeof(float), stream));
  const dim3 grid(tut::blocks_for(M, kV6Warps), static_cast<unsigned>(plan.splits));
  gemv_v6_split_k<<<grid, kThreads, 0, stream>>>(A, x, y, M, K, plan.chunk, accumulate);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
