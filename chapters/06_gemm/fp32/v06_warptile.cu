/// @file
/// @brief v06: warp tiling: each warp owns a 32 x 64 tile of C, its lanes a 4 x 8 grid inside it.
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v06's tile hierarchy: block 128 x 128 -> 8 warps of 32 x 64 -> 32 lanes of 8 x 8 (as 2 x 2 quads of 4 x 4).
namespace v6 {
constexpr int BM = 128;              ///< rows of C per block
constexpr int BN = 128;              ///< columns of C per block
constexpr int BK = 8;                ///< k-slice staged per step
constexpr int WM = 32;               ///< rows of C per warp
constexpr int WN = 64;               ///< columns of C per warp
constexpr int kWarpsN = BN / WN;     ///< warps side by side along N (2)
constexpr int kThreads = 32 * (BM / WM) * kWarpsN;  ///< 256
constexpr int kLanesN = 8;           ///< lanes along N inside the warp (4 along M)
constexpr int kAStride = BM + 4;     ///< row length of the transposed A tile
static_assert(kThreads == 256, "v06: 8 warps");
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "v06: one float4 of each tile per thread");
}  // namespace v6

/// @brief C = alpha * A B + beta * C; 128 x 128 block tile, 32 x 64 warp tiles, 8 x 8 outputs per lane.
///
///     block tile 128 x 128            warp tile 32 x 64 (4 x 8 lanes, each 2 x 2 quads of 4 x 4)
///     +--------+--------+             cols: lane_n*4 + {0..3}  and  32 + lane_n*4 + {0..3}
///     | warp 0 | warp 1 |             rows: lane_m*4 + {0..3}  and  16 + lane_m*4 + {0..3}
///     | warp 2 | warp 3 |
///     | warp 4 | warp 5 |             per k-step a warp reads 4 A quads (64 bytes, broadcast)
///     | warp 6 | warp 7 |             and 8 B quads (128 contiguous bytes): one wavefront each
///     +--------+--------+
// [kernel]
__global__ void __launch_bounds__(v6::kThreads, 2) gemm_v06_warptile(int m, int n, int k, float alpha,
                                                                      const float* __restrict__ a,
                                                                      const float* __restrict__ b, float beta,
                                                                      float* __restrict__ c) {
  using namespace v6;
  __shared__ __align__(16) float As[BK * kAStride];  // (BK, BM + 4): A transposed
  __shared__ __align__(16) float Bs[BK * BN];        // (BK, BN)
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;  // which 32 x 64 tile of the block
  const int lane_m = lane / kLanesN, lane_n = lane % kLanesN;  // which 4 x 4 quad of each 16 x 32 sub-tile
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const bool vec_a = k % 4 == 0 && aligned16(a);
  const bool vec_b = n % 4 == 0 && aligned16(b);
  const bool vec_c = n % 4 == 0 && aligned16(c);

  // Loader roles: as in v05.
  const int a_r = t / 2, a_q = t % 2;
  const int b_k = t / 32, b_c = (t % 32) * 4;
  const bool a_row_ok = row0 + a_r < m;
  const float* a_row = a + (a_row_ok ? static_cast<std::int64_t>(row0 + a_r) * k : 0);
  const int b_cols = n - (col0 + b_c);

  // This lane's fragment addresses inside the tiles (quads 16 rows / 32 columns apart).
  const int frag_row = warp_m * WM + lane_m * 4;  // + {0, 16}
  const int frag_col = warp_n * WN + lane_n * 4;  // + {0, 32}

  float acc[8][8] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    const int a_k = k0 + 4 * a_q;
    const float4 av = load_float4_guarded(a_row + a_k, a_row_ok ? k - a_k : 0, vec_a);
    As[(4 * a_q + 0) * kAStride + a_r] = av.x;
    As[(4 * a_q + 1) * kAStride + a_r] = av.y;
    As[(4 * a_q + 2) * kAStride + a_r] = av.z;
    As[(4 * a_q + 3) * kAStride + a_r] = av.w;
    const bool b_row_ok = k0 + b_k < k;
    const float* b_src = b_row_ok ? b + static_cast<std::int64_t>(k0 + b_k) * n + col0 + b_c : b;
    *reinterpret_cast<float4*>(&Bs[b_k * BN + b_c]) = load_float4_guarded(b_src, b_row_ok ? b_cols : 0, vec_b);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[p * kAStride + frag_row]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[p * kAStride + frag_row + 16]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[p * BN + frag_col]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[p * BN + frag_col + 32]);
      const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + frag_row + (i / 4) * 16 + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + frag_col + h * 32;
      const bool inside = row < m && col < n;
      float* out = inside ? c + static_cast<std::int64_t>(row) * n + col : c;
      store_float4_guarded(out, inside ? n - col : 0, vec_c,
                           make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]), alpha,
                           beta);
    }
  }
}
// [kernel]

/// @brief v06: warp tiling.
///
/// **Idea.** Add the level of the hierarchy the hardware actually schedules: the warp. Each warp
/// owns a compact 32 x 64 tile of C, and its 32 lanes form a 4 x 8 grid of 8 x 8 thread tiles
/// (each as 2 x 2 quads). A warp's shared-memory reads per k-step then touch only the 32 A values
/// and 64 B values its tile needs: 4 distinct A quads (broadcast to 8 lanes each) and 8
/// contiguous B quads, one 128-byte wavefront per LDS.128. In v05 a warp spanned a 16 x 128
/// strip, so its B reads cost two wavefronts.
///
/// **Changed since v05.** Only the mapping of threads to outputs (warp id -> warp tile, lane id
/// -> position in it). Loads, padding and edge handling are v05's.
///
/// **What is still wrong.** The loads of the next k-slice start only after the current one is
/// consumed: every k-step the block waits on global-memory latency at the barrier. With two
/// blocks per SM the other block covers some of it, not all.
///
/// **Predicted.** A modest gain over v05 (0-10%): on Hopper shared-memory bandwidth is not yet
/// the limit at this FFMA : LDS ratio (64 : 4). ncu's shared-memory wavefront count
/// (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld) should drop by a third. The layout matters
/// more for what comes next: warp tiles map one-to-one onto tensor-core fragments.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 37.64 TFLOP/s at
/// 4096^3 against v05's 36.77 (+2%), 73% of cuBLAS SGEMM; 36.81 at 8192^3 (71%); at 4095 x 4097 x
/// 1023 slower than v05 (31.19 against 32.84 TFLOP/s).
void launch_gemm_v06_warptile(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                             const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v06_warptile<<<tile_grid(m, n, v6::BM, v6::BN), v6::kThreads, 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
