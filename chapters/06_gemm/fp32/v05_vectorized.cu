/// @file
/// @brief v05: float4 global loads, A stored transposed in shared memory, float4 shared reads.
#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v05's tile sizes.
namespace v5 {
constexpr int BM = 128;                          ///< rows of C per block
constexpr int BN = 128;                          ///< columns of C per block
constexpr int BK = 8;                            ///< k-slice staged per step
constexpr int kThreads = 256;                    ///< 16 x 16 threads, 8 x 8 outputs each
constexpr int kAStride = BM + 4;                 ///< row length of the transposed A tile (4 floats of padding)
static_assert(BM * BK / 4 == kThreads && BK * BN / 4 == kThreads, "v05: one float4 of each tile per thread");
}  // namespace v5

/// @brief C = alpha * A B + beta * C; 128 x 128 tiles, 8 x 8 outputs per thread, 16-byte accesses everywhere.
///
/// Thread (tx, ty) = (t % 16, t / 16) owns a 2 x 2 grid of 4 x 4 quads: rows {ty*4, 64 + ty*4} + 0..3
/// and columns {tx*4, 64 + tx*4} + 0..3. Splitting the 8 x 8 tile into quads 64 apart makes a
/// warp's float4 reads of B contiguous (no bank conflicts) and its stores to C coalesced.
// [kernel]
__global__ void __launch_bounds__(v5::kThreads, 2) gemm_v05_vectorized(int m, int n, int k, float alpha,
                                                                        const float* __restrict__ a,
                                                                        const float* __restrict__ b, float beta,
                                                                        float* __restrict__ c) {
  using namespace v5;
  __shared__ __align__(16) float As[BK * kAStride];  // (BK, BM + 4): A transposed, As[kk][r] = A[row0 + r, k0 + kk]
  __shared__ __align__(16) float Bs[BK * BN];        // (BK, BN):     Bs[kk][cc] = B[k0 + kk, col0 + cc]
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

  // float4 global loads are legal only if every row starts 16-byte aligned: the row length must
  // be a multiple of 4 floats and the base pointer aligned. Otherwise the loads go scalar.
  const bool vec_a = k % 4 == 0 && aligned16(a);
  const bool vec_b = n % 4 == 0 && aligned16(b);
  const bool vec_c = n % 4 == 0 && aligned16(c);

  // Loader roles. A tile (128 x 8): thread t loads row a_r, columns 4 a_q .. 4 a_q + 3 of the slice.
  // B tile (8 x 128): thread t loads row b_k, columns b_c .. b_c + 3.
  const int a_r = t / 2, a_q = t % 2;
  const int b_k = t / 32, b_c = (t % 32) * 4;
  const bool a_row_ok = row0 + a_r < m;
  const float* a_row = a + (a_row_ok ? static_cast<std::int64_t>(row0 + a_r) * k : 0);  // A[row0 + a_r, 0]
  const int b_cols = n - (col0 + b_c);  // valid columns from b_c on (<= 0: none)

  float acc[8][8] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    const int a_k = k0 + 4 * a_q;
    const float4 av = load_float4_guarded(a_row + a_k, a_row_ok ? k - a_k : 0, vec_a);
    As[(4 * a_q + 0) * kAStride + a_r] = av.x;  // transposed store: the column of A becomes a row
    As[(4 * a_q + 1) * kAStride + a_r] = av.y;
    As[(4 * a_q + 2) * kAStride + a_r] = av.z;
    As[(4 * a_q + 3) * kAStride + a_r] = av.w;
    const bool b_row_ok = k0 + b_k < k;
    const float* b_src = b_row_ok ? b + static_cast<std::int64_t>(k0 + b_k) * n + col0 + b_c : b;
    *reinterpret_cast<float4*>(&Bs[b_k * BN + b_c]) = load_float4_guarded(b_src, b_row_ok ? b_cols : 0, vec_b);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      // Four 16-byte shared loads give this thread's 8 A values and 8 B values for step p.
      const float4 a0 = *reinterpret_cast<const float4*>(&As[p * kAStride + ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[p * kAStride + 64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[p * BN + tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[p * BN + 64 + tx * 4]);
      const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
  // Epilogue: row i of the thread tile is tile row (i < 4 ? ty*4 + i : 64 + ty*4 + i - 4); each
  // half-row of 4 columns is one float4 (when aligned and inside C).
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i / 4) * 64 + ty * 4 + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + h * 64 + tx * 4;
      const bool inside = row < m && col < n;
      float* out = inside ? c + static_cast<std::int64_t>(row) * n + col : c;
      store_float4_guarded(out, inside ? n - col : 0, vec_c,
                           make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]), alpha,
                           beta);
    }
  }
}
// [kernel]

/// @brief v05: vectorized memory accesses, A transposed in shared memory.
///
/// **Idea.** Move 16 bytes per instruction. Global loads of A and B become one float4 each per
/// thread and step. In shared memory A is stored transposed (k-major), so the 8 A values a thread
/// needs at step p are contiguous like its 8 B values: per k-step 4 LDS.128 instead of 16 LDS.32.
/// The 8 x 8 thread tile is split into four 4 x 4 quads 64 apart, so a quarter-warp's LDS.128
/// cover 128 contiguous bytes: no bank conflicts (v04 had 4-way conflicts on B). The 4 floats of
/// padding per row of the transposed A tile keep its transposing stores conflict-free too.
///
/// **Changed since v04.** float4 loads and stores (global and shared), transposed A, quad layout.
///
/// **Edges.** A float4 global access needs a 16-byte aligned address: `vec_a` (K % 4 == 0 and A
/// aligned) and `vec_b` (N % 4 == 0 and B aligned) are decided once per kernel, and a float4 is
/// used only when all four elements are inside the matrix; otherwise up to four predicated
/// scalar loads fill the same registers, with zeros outside. Interior tiles of aligned
/// matrices take the vector path only; 4095 x 4097 x 1023 runs scalar for both operands.
///
/// **What is still wrong.** A warp covers a 16 x 128 strip of the block tile: its B reads touch
/// 256 bytes per LDS.128 (two shared-memory wavefronts) while A is mostly broadcast. The global
/// loads go through registers, and the block waits at two barriers per 8-wide k-step while no
/// loads are in flight.
///
/// **Predicted.** 1.3-1.6x over v04; 60-75% of cuBLAS.
///
/// **Measured** (H100 run of the chapter at git 0b38325, fp32 tables, ratios to cuBLAS SGEMM in the same run). 36.77 TFLOP/s at
/// 4096^3 (1.7x over v04's 21.56), 71% of cuBLAS SGEMM; 35.95 at 8192^3 (70%), 36.57 at 2048^3
/// (73%), 32.84 at 4095 x 4097 x 1023 (70%).
void launch_gemm_v05_vectorized(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                               const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  gemm_v05_vectorized<<<tile_grid(m, n, v5::BM, v5::BN), v5::kThreads, 0, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
