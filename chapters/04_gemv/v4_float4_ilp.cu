/// @file
/// @brief v4: v3 with several float4 loads of A in flight per lane (instruction-level parallelism).
#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemv.hpp"
#include "gemv_device.cuh"

namespace gemv {

/// Warps (= rows) per block.
constexpr int kV4Warps = 8;
/// float4s of A each lane loads before it uses any.
constexpr int kV4Unroll = 4;

/// @brief y[i] = A[i][:] . x like v3, but each lane issues kV4Unroll float4 loads of A (and x)
/// per trip before the first FMA: 4 x 512 B of A per warp in flight instead of 512 B.
///
/// Per trip the warp covers 32 x kV4Unroll consecutive float4s: lane l takes base + l,
/// base + l + 32, ... so each of the kV4Unroll loads is still one coalesced 512-byte request.
/// Vectors past the end of the row load as zeros (0 * 0 adds nothing).
// [kernel]
__global__ void gemv_v4_float4_ilp(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   std::int64_t M, std::int64_t K) {
  const int lane = threadIdx.x % kWarpSize;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kV4Warps + threadIdx.x / kWarpSize;
  if (row >= M) return;
  const float* a = A + row * K;
  const std::int64_t head = row_peel(a, K);
  const std::int64_t n_vec = (K - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float* xh = x + head;
  const bool x_vec = is_aligned16(xh);

  float sum = 0.0f;
  if (lane < head) sum = a[lane] * x[lane];
  for (std::int64_t base = lane; base < n_vec; base += kWarpSize * kV4Unroll) {
    float4 av[kV4Unroll], xv[kV4Unroll];
#pragma unroll
    for (int u = 0; u < kV4Unroll; ++u) {  // all loads first ...
      const std::int64_t v = base + u * kWarpSize;
      const bool in = v < n_vec;
      av[u] = in ? __ldg(a4 + v) : make_float4(0.f, 0.f, 0.f, 0.f);
      xv[u] = in ? load4(xh + 4 * v, x_vec) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int u = 0; u < kV4Unroll; ++u) sum = dot4(av[u], xv[u], sum);  // ... then the FMAs
  }
  for (std::int64_t k = head + 4 * n_vec + lane; k < K; k += kWarpSize) sum = fmaf(a[k], x[k], sum);
  sum = warp_sum(sum);
  if (lane == 0) y[row] = sum;
}
// [kernel]

/// @brief v4: v3 with kV4Unroll independent float4 loads per lane in flight.
///
/// **Idea.** Little's law again (chapter 01, v4): to stream at bandwidth B with latency L, an
/// SM needs B x L / (number of SMs) bytes in flight, ~20-30 KB on an H100. Loading kV4Unroll float4s
/// before using any gives each warp 2 KB of A in flight instead of 512 B.
///
/// **Changed since v3.** The body loop loads kV4Unroll vectors of A and x into registers, then
/// does their 16 FMAs.
///
/// **What is still wrong.** Parallelism is still one warp per row: 1024 x 65536 has 1024
/// warps, an eighth of what an H100 holds, and their rows are 256 KB long (x no longer fits in
/// L1). That is v6's problem; short rows (K <= 128) waste lanes, v5's problem.
///
/// **Predicted.** A few percent over v3 where occupancy is full; more where it is not
/// (4096^2: 4096 warps, half of an H100).
///
/// **Measured (H100 run at 0b38325).** 4096^2: 0.0355 ms, 1890 GB/s, 62.9% of the copy roof, 1.14x
/// cublasSgemv (v3: 0.0372 ms); 16384^2: 0.361 ms, 99.0%, 1.03x; 1024 x 65536: 0.131 ms, 68.2%,
/// 0.927x (v3: 0.183 ms). As predicted: 1% over v3 at full occupancy and 5% on 4096^2; the largest
/// gain, 1.40x, is on 1024 x 65536, which has fewer warps still.
void launch_gemv_v4_float4_ilp(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K,
                               cudaStream_t stream) {
  if (M <= 0 || K <= 0) return;
  gemv_v4_float4_ilp<<<tut::blocks_for(M, kV4Warps), kV4Warps * kWarpSize, 0, stream>>>(A, x, y, M, K);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemv
