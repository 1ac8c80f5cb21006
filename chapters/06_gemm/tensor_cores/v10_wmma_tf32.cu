/// @file
/// @brief v10: tensor cores through WMMA: TF32 16 x 16 x 8 fragments, fp32 accumulation (sm_80+).
#include <mma.h>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// v10's tile hierarchy: block 128 x 128 -> 8 warps of 64 x 32 -> 4 x 2 WMMA fragments of 16 x 16.
namespace v10 {
constexpr int BM = 128;                     ///< rows of C per block
constexpr int BN = 128;                     ///< columns of C per block
constexpr int BK = 16;                      ///< k-slice per stage (two WMMA k-steps of 8)
constexpr int kStages = 3;                  ///< k-slices resident in shared memory
constexpr int WM = 64;                      ///< rows of C per warp
constexpr int WN = 32;                      ///< columns of C per warp
constexpr int kWarpsN = BN / WN;            ///< warps along N (4; 2 along M)
constexpr int kThreads = 32 * (BM / WM) * kWarpsN;  ///< 256
constexpr int kFragM = WM / 16;             ///< accumulator fragments per warp along M (4)
constexpr int kFragN = WN / 16;             ///< accumulator fragments per warp along N (2)
constexpr int kAStride = BK + 4;            ///< row length of the A tile (BM, BK): 4 floats of padding
constexpr int kBStride = BN + 4;            ///< row length of the B tile (BK, BN): 4 floats of padding
constexpr int kStageFloats = BM * kAStride + BK * kBStride;  ///< one stage: As then Bs
constexpr int kSmemBytes = kStages * kStageFloats * 4;       ///< 56 KiB: opt-in above 48 KiB
constexpr int kAChunks = BM * BK / 4 / kThreads;  ///< 16-byte chunks of A per thread per stage (2)
constexpr int kBChunks = BK * BN / 4 / kThreads;  ///< 16-byte chunks of B per thread per stage (2)
static_assert(kThreads == 256 && kAChunks * kThreads * 4 == BM * BK && kBChunks * kThreads * 4 == BK * BN,
              "v10: the tiles must split evenly into 16-byte chunks over 256 threads");
static_assert(kFragM * 16 == WM && kFragN * 16 == WN, "v10: warp tiles are made of 16 x 16 fragments");
static_assert((BM * kAStride * 4) % 32 == 0 && (kStageFloats * 4) % 32 == 0,
              "v10: WMMA needs 32-byte aligned fragment pointers");
}  // namespace v10

/// Issues the cp.async copies of one k-slice: A (BM, BK) and B (BK, BN), each in 16-byte chunks
/// where the rows are 16-byte aligned, else 4-byte copies; zero-filled outside the matrices.
__device__ __forceinline__ void load_stage_tf32(float* __restrict__ As, float* __restrict__ Bs, int k0, int m, int n,
                                              int k, const float* __restrict__ a, const float* __restrict__ b,
                                              int row0, int col0, bool vec_a, bool vec_b) {
  using namespace v10;
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < kAChunks; ++i) {
    const int e = t + i * kThreads, r = e / (BK / 4), kk = (e % (BK / 4)) * 4;  // A[row0 + r, k0 + kk .. +3]
    const bool row_ok = row0 + r < m;
    const float* src = row_ok ? a + static_cast<std::int64_t>(row0 + r) * k + (k0 + kk) : a;
    float* dst = &As[r * kAStride + kk];
    if (vec_a) {  // k % 4 == 0: a chunk is entirely inside or entirely outside
      const bool ok = row_ok && k0 + kk < k;
      cp_async_16(dst, ok ? src : a, ok ? 16 : 0);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool ok = row_ok && k0 + kk + j < k;
        cp_async_4(dst + j, ok ? src + j : a, ok);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kBChunks; ++i) {
    const int e = t + i * kThreads, kk = e / (BN / 4), cc = (e % (BN / 4)) * 4;  // B[k0 + kk, col0 + cc .. +3]
    const bool row_ok = k0 + kk < k;
    const float* src = row_ok ? b + static_cast<std::int64_t>(k0 + kk) * n + (col0 + cc) : b;
    float* dst = &Bs[kk * kBStride + cc];
    if (vec_b) {
      const bool ok = row_ok && col0 + cc < n;
      cp_async_16(dst, ok ? src : b, ok ? 16 : 0);
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool ok = row_ok && col0 + cc + j < n;
        cp_async_4(dst + j, ok ? src + j : b, ok);
      }
    }
  }
}

/// @brief C = alpha * A B + beta * C on TF32 tensor cores via the WMMA API (sm_80+; traps below).
///
/// The pipeline is v07's (3 stages of cp.async). The math is different: a warp holds its 64 x 32
/// tile of C as 4 x 2 `wmma::fragment`s of 16 x 16 fp32 accumulators, and per 8-wide k-step it
/// loads 4 A fragments (16 x 8) and 2 B fragments (8 x 16) from shared memory and issues 8
/// `wmma::mma_sync`, each a 16 x 16 x 8 matrix product on the tensor cores. The fragments'
/// register layout is opaque: the epilogue stores each accumulator to a per-warp 16 x 16 scratch
/// in shared memory and applies alpha, beta and the bounds checks from there.
// [kernel]
__global__ void __launch_bounds__(v10::kThreads, 2) gemm_v10_wmma_tf32(int m, int n, int k, float alpha,
                                                                       const float* __restrict__ a,
                                                                       const float* __restrict__ b, float beta,
                                                                       float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace v10;
  namespace wmma = nvcuda::wmma;
  extern __shared__ __align__(128) float smem[];  // kStages x [ As (BM, BK + 4) | Bs (BK, BN + 4) ]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const bool vec_a = k % 4 == 0 && aligned16(a);
  const bool vec_b = n % 4 == 0 && aligned16(b);
  const bool vec_c = n % 4 == 0 && aligned16(c);
  const int tiles = (k + BK - 1) / BK;

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[kFragM][kFragN];
#pragma unroll
  for (int i = 0; i < kFragM; ++i)
#pragma unroll
    for (int j = 0; j < kFragN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) {
      float* As = smem + s * kStageFloats;
      load_stage_tf32(As, As + BM * kAStride, s * BK, m, n, k, a, b, row0, col0, vec_a, vec_b);
    }
    cp_async_commit();
  }
  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int next = tile + kStages - 1;
    if (next < tiles) {
      float* As = smem + (next % kStages) * kStageFloats;
      load_stage_tf32(As, As + BM * kAStride, next * BK, m, n, k, a, b, row0, col0, vec_a, vec_b);
    }
    cp_async_commit();

    const float* As = smem + (tile % kStages) * kStageFloats;
    const float* Bs = As + BM * kAStride;
// [fragments]
#pragma unroll
    for (int ks = 0; ks < BK; ks += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[kFragM];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb[kFragN];
#pragma unroll
      for (int i = 0; i < kFragM; ++i) {
        wmma::load_matrix_sync(fa[i], As + (warp_m * WM + i * 16) * kAStride + ks, kAStride);
        // The tensor core reads 10 mantissa bits; round (our inputs are already TF32: a no-op).
#pragma unroll
        for (int e = 0; e < fa[i].num_elements; ++e) fa[i].x[e] = wmma::__float_to_tf32(fa[i].x[e]);
      }
#pragma unroll
      for (int j = 0; j < kFragN; ++j) {
        wmma::load_matrix_sync(fb[j], Bs + ks * kBStride + warp_n * WN + j * 16, kBStride);
#pragma unroll
        for (int e = 0; e < fb[j].num_elements; ++e) fb[j].x[e] = wmma::__float_to_tf32(fb[j].x[e]);
      }
#pragma unroll
      for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
// [fragments]
  }
  cp_async_wait<0>();
  __syncthreads();  // every warp is done with the stages: reuse them as epilogue scratch

  // Epilogue: fragment -> this warp's 16 x 16 scratch -> lane l writes row l / 2, columns
  // (l % 2) * 8 .. + 7 of it to C (two float4 when aligned and inside, else guarded scalars).
  float* scratch = smem + warp * 256;
#pragma unroll
  for (int i = 0; i < kFragM; ++i) {
#pragma unroll
    for (int j = 0; j < kFragN; ++j) {
      wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int r = lane / 2, cq = (lane % 2) * 8;
      const int row = row0 + warp_m * WM + i * 16 + r;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = col0 + warp_n * WN + j * 16 + cq + 4 * h;
        const bool inside = row < m && col < n;
        float* out = inside ? c + static_cast<std::int64_t>(row) * n + col : c;
        const float4 v = *reinterpret_cast<const float4*>(&scratch[r * 16 + cq + 4 * h]);
        store_float4_guarded(out, inside ? n - col : 0, vec_c, v, alpha, beta);
      }
      __syncwarp();  // the scratch is rewritten by the next fragment
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c;
  __trap();  // TF32 WMMA needs sm_80+; the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// @brief v10: tensor cores through WMMA (TF32 inputs, fp32 accumulation).
///
/// **Idea.** Stop doing the multiply-adds one at a time. A tensor core multiplies small matrix
/// tiles in one instruction; the WMMA API exposes this at warp level: a `fragment` is a 16 x 16
/// (or 16 x 8, 8 x 16) tile spread over the registers of the 32 lanes, `load_matrix_sync` fills
/// one from memory, `mma_sync` computes D = A B + C on whole fragments. With TF32 inputs (fp32's
/// 8-bit exponent, 10-bit mantissa) an H100 does about 8x the FLOP/s of its FP32 pipes.
///
/// **Changed since v07.** The thread tile becomes the warp's 4 x 2 accumulator fragments; the
/// inner loop becomes 2 k-steps of 4 + 2 fragment loads and 8 mma_sync. A is now stored as it is in
/// global memory (row-major, (BM, BK)), B as (BK, BN), each padded by 4 floats per row; all copies
/// are 16-byte cp.async where the rows are aligned. Inputs are rounded to TF32 once, outside
/// timing (the reference uses the same rounded values, see the chapter page).
///
/// **What is still wrong.** WMMA hides the fragment layout, so we cannot choose a bank-conflict
/// free shared-memory layout for it (padding only mitigates), cannot use `ldmatrix`, and must
/// stage the epilogue through shared memory. TF32 also moves 4 bytes per input element for a
/// 19-bit format. v11 goes one level down (`mma.sync` in PTX) with 2-byte BF16 inputs.
///
/// **Predicted.** 3-5x over the best fp32 version, but well under cuBLAS TF32 (30-60% of it).
///
/// **Measured.** Below the prediction. The chapter's table (H100 run at 0b38325, cuBLAS TF32 in
/// the same run): 71.3 TFLOP/s at 8192^3, 0.17 of cuBLAS TF32 (408.6 TFLOP/s) and 1.5x v08_tuned's
/// fp32 48.2 TFLOP/s; 68.6 TFLOP/s (0.17) at 4096^3, 64.7 (0.19) at 2048^3, 25.4 (0.21) at 1024^3,
/// 46.2 (0.37) at 4095 x 4097 x 1023.
void launch_gemm_v10_wmma_tf32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                              const float* b, float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  tut::allow_dynamic_smem(gemm_v10_wmma_tf32, v10::kSmemBytes);
  gemm_v10_wmma_tf32<<<tile_grid(m, n, v10::BM, v10::BN), v10::kThreads, v10::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
