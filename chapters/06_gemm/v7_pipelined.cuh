/// @file
/// @brief v7's kernel, written once as a template over its tile parameters: v7 instantiates one
/// configuration, v8 (the tuning search) several.
///
/// The tile hierarchy, as in v6 but with every size a parameter:
///
///     block tile   BM x BN        (BM/WM) x (BN/WN) warps
///     warp tile    WM x WN        (WM/TM) x (WN/TN) = 32 lanes
///     thread tile  TM x TN        (TM/4) x (TN/4) quads of 4 x 4, spaced one lane-grid apart
///     k-slice      BK             kStages slices in flight (cp.async multi-stage pipeline)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>

#include "common/check.hpp"
#include "gemm.hpp"
#include "gemm_device.cuh"

namespace gemm {

/// The compile-time parameters of the pipelined FFMA kernel, and everything derived from them.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MIN_BLOCKS_>
struct FfmaConfig {
  static constexpr int BM = BM_;  ///< rows of C per block
  static constexpr int BN = BN_;  ///< columns of C per block
  static constexpr int BK = BK_;  ///< k-slice per pipeline stage
  static constexpr int WM = WM_;  ///< rows of C per warp
  static constexpr int WN = WN_;  ///< columns of C per warp
  static constexpr int TM = TM_;  ///< rows of C per thread
  static constexpr int TN = TN_;  ///< columns of C per thread
  static constexpr int kStages = STAGES_;  ///< k-slices resident in shared memory (loads in flight: kStages - 1)

  static constexpr int kWarpsM = BM / WM;                  ///< warps along M
  static constexpr int kWarpsN = BN / WN;                  ///< warps along N
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;  ///< threads per block
  static constexpr int kLanesM = WM / TM;                  ///< lanes along M inside a warp
  static constexpr int kLanesN = WN / TN;                  ///< lanes along N inside a warp
  static constexpr int kQuadsM = TM / 4;                   ///< 4-row quads per thread tile
  static constexpr int kQuadsN = TN / 4;                   ///< 4-column quads per thread tile
  static constexpr int kAStride = BM + 4;                  ///< row length of the transposed A tile (padded)
  static constexpr int kStageFloats = BK * kAStride + BK * BN;  ///< one stage: As (BK, BM+4) then Bs (BK, BN)
  static constexpr int kSmemBytes = kStages * kStageFloats * 4; ///< dynamic shared memory per block
  static constexpr int kALoads = BM * BK / kThreads;            ///< 4-byte copies of A per thread per stage
  static constexpr int kBChunksPerRow = BN / 4;                 ///< 16-byte chunks per row of the B tile
  static constexpr int kBLoads = BK * kBChunksPerRow / kThreads;///< 16-byte copies of B per thread per stage
  /// Blocks per SM promised to the compiler (__launch_bounds__): it caps registers per thread at
  /// 65536 / (kThreads x kMinBlocks). Too many blocks: the accumulators spill (the resource test
  /// fails); too few: fewer warps to hide latency.
  static constexpr int kMinBlocks = MIN_BLOCKS_;

  static_assert(BM % WM == 0 && BN % WN == 0, "the warp tile must divide the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0, "the thread tile must divide the warp tile");
  static_assert(kLanesM * kLanesN == 32, "a warp tile must hold exactly 32 thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 quads (float4 accesses)");
  static_assert(BM * BK % kThreads == 0, "the A tile must split evenly over the threads");
  static_assert(BK * kBChunksPerRow % kThreads == 0, "the B tile must split evenly over the threads");
  static_assert(kStages >= 2, "a pipeline needs at least two stages");
  static_assert(kThreads <= 1024, "at most 1024 threads per block");
  static_assert(kMinBlocks >= 1 && kThreads * kMinBlocks <= 2048, "an SM holds at most 2048 threads");
};

/// Issues the cp.async copies of k-slice `tile` into one stage of shared memory: A transposed with
/// 4-byte copies, B with 16-byte copies where aligned and in range (4-byte copies otherwise).
/// Elements outside the matrices are zero-filled (src-size 0: nothing is read).
template <class Cfg>
__device__ __forceinline__ void load_stage_ffma(float* __restrict__ As, float* __restrict__ Bs, int tile, int m,
                                                int n, int k, const float* __restrict__ a,
                                                const float* __restrict__ b, int row0, int col0, bool vec_b) {
  const int t = threadIdx.x;
  const int k0 = tile * Cfg::BK;
#pragma unroll
  for (int i = 0; i < Cfg::kALoads; ++i) {
    const int e = t + i * Cfg::kThreads, r = e / Cfg::BK, kk = e % Cfg::BK;  // (r, kk) of the (BM, BK) tile
    const bool ok = row0 + r < m && k0 + kk < k;
    const float* src = ok ? a + static_cast<std::int64_t>(row0 + r) * k + (k0 + kk) : a;
    cp_async_4(&As[kk * Cfg::kAStride + r], src, ok);  // As[kk][r] = A[row0 + r, k0 + kk]
  }
#pragma unroll
  for (int i = 0; i < Cfg::kBLoads; ++i) {
    const int e = t + i * Cfg::kThreads, kk = e / Cfg::kBChunksPerRow, cc = (e % Cfg::kBChunksPerRow) * 4;
    const bool row_ok = k0 + kk < k;
    const float* src = row_ok ? b + static_cast<std::int64_t>(k0 + kk) * n + (col0 + cc) : b;
    float* dst = &Bs[kk * Cfg::BN + cc];  // Bs[kk][cc .. cc+3] = B[k0 + kk, col0 + cc .. +3]
    if (vec_b) {  // n % 4 == 0: a chunk is entirely inside or entirely outside
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

/// @brief C = alpha * A B + beta * C with a kStages-deep cp.async pipeline (sm_80+; traps on older GPUs,
/// where the runner never launches it).
///
/// Shared memory holds kStages k-slices. While the warps compute on slice t, the copies of
/// slices t+1 .. t+kStages-1 are in flight:
///
///     prologue: issue slices 0 .. S-2                          (one commit group each)
///     for t in 0 .. tiles-1:
///         wait until slice t has landed (at most S-2 groups pending), __syncthreads()
///         issue slice t+S-1 into the stage slice t-1 used     (everyone is past it: the barrier)
///         compute slice t from its stage
// [kernel]
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_v7_pipelined(int m, int n, int k, float alpha, const float* __restrict__ a, const float* __restrict__ b,
                      float beta, float* __restrict__ c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN, S = Cfg::kStages;
  extern __shared__ __align__(16) float smem[];  // S x [ As (BK, BM + 4) | Bs (BK, BN) ]
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;
  const int lane_m = lane / Cfg::kLanesN, lane_n = lane % Cfg::kLanesN;
  const int row0 = blockIdx.y * Cfg::BM, col0 = blockIdx.x * Cfg::BN;
  const bool vec_b = n % 4 == 0 && aligned16(b);
  const bool vec_c = n % 4 == 0 && aligned16(c);
  const int tiles = (k + BK - 1) / BK;
  // This lane's first A and B fragment positions inside a stage (quads kLanesM*4 / kLanesN*4 apart).
  const int frag_row = warp_m * Cfg::WM + lane_m * 4;
  const int frag_col = warp_n * Cfg::WN + lane_n * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

// [pipeline]
  // Prologue: slices 0 .. S-2 in flight.
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < tiles) {
      float* As = smem + s * Cfg::kStageFloats;
      load_stage_ffma<Cfg>(As, As + BK * Cfg::kAStride, s, m, n, k, a, b, row0, col0, vec_b);
    }
    cp_async_commit();  // committed even when empty: the group count stays one per slice
  }

  for (int tile = 0; tile < tiles; ++tile) {
    cp_async_wait<S - 2>();  // this thread's copies of slice `tile` have landed ...
    __syncthreads();         // ... and everyone's; everyone is also done computing slice tile-1
    const int next = tile + S - 1;
    if (next < tiles) {
      float* As = smem + (next % S) * Cfg::kStageFloats;  // the stage slice tile-1 used
      load_stage_ffma<Cfg>(As, As + BK * Cfg::kAStride, next, m, n, k, a, b, row0, col0, vec_b);
    }
    cp_async_commit();

// [pipeline]
    const float* As = smem + (tile % S) * Cfg::kStageFloats + frag_row;
    const float* Bs = smem + (tile % S) * Cfg::kStageFloats + BK * Cfg::kAStride + frag_col;
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float ra[TM], rb[TN];
#pragma unroll
      for (int q = 0; q < Cfg::kQuadsM; ++q) {  // TM/4 LDS.128 of A
        const float4 v = *reinterpret_cast<const float4*>(As + p * Cfg::kAStride + q * Cfg::kLanesM * 4);
        ra[4 * q] = v.x, ra[4 * q + 1] = v.y, ra[4 * q + 2] = v.z, ra[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int q = 0; q < Cfg::kQuadsN; ++q) {  // TN/4 LDS.128 of B
        const float4 v = *reinterpret_cast<const float4*>(Bs + p * Cfg::BN + q * Cfg::kLanesN * 4);
        rb[4 * q] = v.x, rb[4 * q + 1] = v.y, rb[4 * q + 2] = v.z, rb[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);  // TM x TN FFMA
    }
  }
  cp_async_wait<0>();  // nothing real is pending (only empty groups), but leave no copy behind

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + frag_row + (i / 4) * Cfg::kLanesM * 4 + i % 4;
#pragma unroll
    for (int q = 0; q < Cfg::kQuadsN; ++q) {
      const int col = col0 + frag_col + q * Cfg::kLanesN * 4;
      const bool inside = row < m && col < n;
      float* out = inside ? c + static_cast<std::int64_t>(row) * n + col : c;
      store_float4_guarded(out, inside ? n - col : 0, vec_c,
                           make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]),
                           alpha, beta);
    }
  }
#else
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c;
  __trap();  // sm_80+ only (cp.async); the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

/// Launches gemm_v7_pipelined<Cfg> (opting in to more than 48 KB of shared memory when needed).
template <class Cfg>
void launch_pipelined(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, const float* b,
                      float beta, float* c, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  check_dims(m, n, k);
  if (Cfg::kSmemBytes > 48 * 1024) {
    static std::once_flag once;  // a per-kernel attribute: set it once, outside the timed runs
    std::call_once(once, [] {
      CUDA_CHECK(cudaFuncSetAttribute(gemm_v7_pipelined<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      Cfg::kSmemBytes));
    });
  }
  gemm_v7_pipelined<Cfg><<<tile_grid(m, n, Cfg::BM, Cfg::BN), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, b, beta, c);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemm
