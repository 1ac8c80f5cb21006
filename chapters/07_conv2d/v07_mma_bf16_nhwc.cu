/// @file
/// @brief v07: implicit GEMM on tensor cores (NHWC, KRSC, bf16 in, fp32 accumulate, bf16 out):
/// mma.sync m16n8k16, ldmatrix from a swizzled tile, a 4-stage cp.async pipeline.
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/launch.hpp"
#include "conv2d.hpp"
#include "conv2d_device.cuh"

namespace conv2d {

namespace {

constexpr int BN = 64;          // output channels per block
constexpr int BK = 32;          // reduction slice: 4 chunks of 8 bf16 (16 bytes) per row
constexpr int kStages = 4;      // slices resident in shared memory
constexpr int kThreads = 128;   // 2 x 2 warps
constexpr int kChunks = BK / 8; // 16-byte chunks per row of a slice

/// Byte offset of chunk `chunk` (0..3) of row `row` in a tile of 64-byte rows, swizzled: the
/// physical chunk is chunk ^ ((row / 2) % 4). The 8 rows an ldmatrix reads at one logical chunk
/// then fall on 8 different 16-byte bank groups (unswizzled, rows 2 apart would share one: a
/// 4-way conflict).
// [swizzle]
__device__ __forceinline__ int swizzled(int row, int chunk) { return row * 64 + ((chunk ^ ((row >> 1) & 3)) << 4); }
// [swizzle]

}  // namespace

/// @brief Y (N P Q x K, bf16) = A B^T on the tensor cores; A's tiles gathered from the NHWC input
/// on the fly (implicit im2col, 16-byte cp.async of 8 channels: C % 8 == 0), B's rows are the
/// KRSC filters.
///
/// Block: BM x 64 outputs, 2 x 2 warps of (BM/2) x 32; a warp holds (BM/32) x 4 mma tiles of
/// 16 x 8 in fp32 registers. Per slice of 32 reduction positions and k16 step (2 per slice):
/// BM/32 ldmatrix.x4 of A (one per 16-row tile), 2 ldmatrix.x4 of B (two 8-column tiles each),
/// (BM/32) x 4 mma.sync. The pipeline is v04's: kStages - 1 slices in flight.
// [kernel]
template <int BM>
__global__ void __launch_bounds__(kThreads, 3)
    conv2d_v07_mma_bf16(Dims d, const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                       __nv_bfloat16* __restrict__ y) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace tut::sm80;  // cp.async, ldmatrix, mma.sync (common/ampere_ptx.cuh)
  constexpr int WM = BM / 2, MT = WM / 16, NT = 4;     // warp tile WM x 32: MT x NT tiles of 16 x 8
  constexpr int kARows = BM * kChunks / kThreads;      // A chunks each thread copies per slice
  constexpr int kBRows = BN * kChunks / kThreads;      // B chunks
  constexpr int kStageBytes = (BM + BN) * BK * 2;
  extern __shared__ __align__(128) unsigned char smem[];  // kStages x [ A (BM x 64 B) | B (BN x 64 B) ]
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_m = warp / 2, warp_n = warp % 2;
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, m_total = d.n * pq;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * BM;
  const int col0 = blockIdx.y * BN;
  const int L = d.r * d.s * d.c, slices = (L + BK - 1) / BK;

  // Loader state: this thread copies chunk t % 4 of rows t / 4 + 32 i (A) and of filter rows
  // t / 4 + 32 i (B): one reduction position l per slice, and its (r, s, c).
  const int chunk = t % kChunks;
  const __nv_bfloat16* pixel[kARows];
  int h0[kARows], w0[kARows];
#pragma unroll
  for (int i = 0; i < kARows; ++i) {
    const std::int64_t m = row0 + t / kChunks + i * (kThreads / kChunks);
    const bool inside = m < m_total;
    const std::int64_t n = m / pq, pix = m % pq;
    pixel[i] = x + (inside ? n : 0) * d.h * d.w * d.c;
    h0[i] = inside ? static_cast<int>(pix / d.q) * d.stride_h - d.pad_h : INT_MIN / 2;
    w0[i] = static_cast<int>(pix % d.q) * d.stride_w - d.pad_w;
  }
  int l = chunk * 8, c = l % d.c, s = l / d.c % d.s, r = l / d.c / d.s;

  const auto issue = [&](int stage) {  // the next slice into `stage`; then l += BK
    unsigned char* As = smem + stage * kStageBytes;
    unsigned char* Bs = As + BM * BK * 2;
#pragma unroll
    for (int i = 0; i < kARows; ++i) {
      const int row = t / kChunks + i * (kThreads / kChunks);
      const int h = h0[i] + r, wc = w0[i] + s;
      const bool ok = l < L && static_cast<unsigned>(h) < static_cast<unsigned>(d.h) &&
                      static_cast<unsigned>(wc) < static_cast<unsigned>(d.w);
      cp_async_16(As + swizzled(row, chunk), ok ? pixel[i] + (static_cast<std::int64_t>(h) * d.w + wc) * d.c + c : x,
                  ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < kBRows; ++i) {
      const int row = t / kChunks + i * (kThreads / kChunks);
      const bool ok = col0 + row < d.k && l < L;
      cp_async_16(Bs + swizzled(row, chunk), ok ? w + static_cast<std::int64_t>(col0 + row) * L + l : w, ok ? 16 : 0);
    }
    l += BK;
    c += BK;
    while (c >= d.c) {
      c -= d.c;
      if (++s == d.s) s = 0, ++r;
    }
  };

  float acc[MT][NT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < slices) issue(i);
    cp_async_commit();
  }
  for (int i = 0; i < slices; ++i) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    if (i + kStages - 1 < slices) issue((i + kStages - 1) % kStages);
    cp_async_commit();
    const unsigned char* As = smem + (i % kStages) * kStageBytes;
    const unsigned char* Bs = As + BM * BK * 2;
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {  // two k16 steps per slice
      unsigned a[MT][4], b[NT][2];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {  // lanes 0-15: rows 0-15 at k 0-7; lanes 16-31: at k 8-15
        ldmatrix_x4(a[mt], As + swizzled(warp_m * WM + mt * 16 + lane % 16, ks * 2 + lane / 16));
      }
#pragma unroll
      for (int pair = 0; pair < NT / 2; ++pair) {  // two 8-column tiles: (n 0-7 | n 8-15) x (k 0-7 | k 8-15)
        unsigned q[4];
        ldmatrix_x4(q, Bs + swizzled(warp_n * 32 + pair * 16 + (lane & 7) + ((lane >> 4) << 3),
                                     ks * 2 + ((lane >> 3) & 1)));
        b[2 * pair][0] = q[0], b[2 * pair][1] = q[1], b[2 * pair + 1][0] = q[2], b[2 * pair + 1][1] = q[3];
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_bf16_16816(acc[mt][nt], a[mt], b[nt]);
    }
  }
  cp_async_wait<0>();

  // Epilogue: lane (g, q4) = (lane / 4, lane % 4) holds, per tile, (row g, cols 2 q4, 2 q4 + 1)
  // and (row g + 8, same cols): two neighbouring channels of a pixel, one 4-byte bf16 pair.
  const bool pairs = d.k % 2 == 0;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const std::int64_t m = row0 + warp_m * WM + mt * 16 + lane / 4 + half * 8;
      if (m >= m_total) continue;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int k = col0 + warp_n * 32 + nt * 8 + (lane % 4) * 2;
        store_bf16_pair(y + m * d.k + k, k, d.k, acc[mt][nt][2 * half], acc[mt][nt][2 * half + 1], pairs);
      }
    }
  }
#else
  (void)d, (void)x, (void)w, (void)y, (void)swizzled(0, kChunks);  // (used only by the sm_80 code)
  __trap();  // sm_80+ only: the registry's min_cc keeps the runner from launching it
#endif
}
// [kernel]

std::string supports_v07(const ConvShape& s) {
  if (s.c % 8 != 0) return "needs C % 8 == 0 (16-byte copies of 8 channels)";
  return "";
}

namespace {

template <int BM>
void launch_v07(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
               cudaStream_t stream) {
  constexpr int smem = kStages * (BM + BN) * BK * 2;
  tut::allow_dynamic_smem(conv2d_v07_mma_bf16<BM>, smem);  // once per kernel, outside the timed runs
  const std::int64_t tiles_m = (s.n * s.p() * s.q() + BM - 1) / BM, tiles_n = (s.k + BN - 1) / BN;
  if (tiles_m > INT_MAX || tiles_n > 65535) throw std::invalid_argument("v07_mma_bf16_nhwc: the grid is too large");
  conv2d_v07_mma_bf16<BM><<<dim3(static_cast<unsigned>(tiles_m), static_cast<unsigned>(tiles_n)), kThreads, smem,
                           stream>>>(dims_of(s), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

/// @brief v07: implicit GEMM on the tensor cores (bf16).
///
/// **Idea.** v04's implicit GEMM, with the multiply-adds done by the tensor cores: one
/// `mma.sync.m16n8k16` multiplies a 16 x 16 bf16 tile of A by a 16 x 8 tile of B into 16 x 8
/// fp32 accumulators, 4096 FLOPs per warp instruction where an FFMA does 64. The operands come
/// from shared memory with `ldmatrix` (a warp loads four 8 x 8 bf16 matrices in the exact
/// register layout mma expects); the tiles are stored with an XOR swizzle so those loads do not
/// conflict. The loader is v04's implicit im2col with 16-byte cp.async, now of 8 bf16 channels
/// (C % 8 == 0), in a 4-stage pipeline.
///
/// **Changed since v06.** Precision and instruction: bf16 inputs and outputs (half the bytes of
/// fp32), fp32 accumulation on the tensor cores. Back to the plain implicit GEMM of v04 (no
/// Winograd: v05 and v06 are the fp32 ladder's answer to cuDNN's fp32 Winograd; on tensor cores
/// the multiply-adds are so cheap that the transforms would dominate). Blocks of 128 x 64
/// outputs, or 64 x 64 when the 128-row tiles cannot give every SM three blocks.
///
/// **What is still wrong.** The epilogue writes 4-byte bf16 pairs straight from the fragments
/// (8 rows per store instruction, half-used sectors) instead of staging a tile in shared memory
/// for 16-byte stores. Short layers (14x14) still give too few blocks (no split-K here: partial
/// sums would need an fp32 workspace). The loader's address arithmetic is now a large share of
/// the instructions. Hopper's wgmma and TMA (with its im2col mode) would remove both, and are
/// what cuDNN uses on this GPU.
///
/// **Predicted.** 150-300 TFLOP/s on the 3x3 and 1x1 layers of 56x56 and 28x28: 5-8x v04, and
/// 0.5-0.8x cuDNN's bf16 (whose Hopper kernels use wgmma).
///
/// **Measured (H100).** 164 TFLOP/s on N32 C64 56x56 (0.045 ms, **1.21x cuDNN's fastest bf16
/// row**, 0.054 ms), 142 on 28x28 (2.06x), 67 on 14x14 (2.44x; 100 blocks) and 80 on the 1x1
/// layer (3.98x), 2.8-6.3x v04. Since cuDNN's rows re-time every candidate of their search
/// (commit 8c3570e2f833), the same speeds are 1.18x cuDNN on 56x56, 1.93x on 28x28, 1.96x on
/// the 1x1 layer and 0.97x on 14x14 (cuDNN's NHWC IMPLICIT_PRECOMP_GEMM at 0.027 ms there). The
/// prediction for cuDNN was wrong: through the legacy API (cudnnFindConvolutionForwardAlgorithmEx,
/// cuDNN 9 from PyTorch's wheel) its fastest bf16 algorithms reach 41-139 TFLOP/s on the four
/// layers v07 runs. Skipped (C % 8 != 0) on the stem and the 6-channel image.
/// Recorded run (H100, git 0b3832529293; cuDNN's fastest bf16 row in its fast mode): 0.0445 ms on N32 C64 56x56 (166.16
/// TFLOP/s, 0.61x cuDNN's 0.0271 ms), 0.0253 ms on 28x28 (146.43, 0.63x), 0.0274 ms on 14x14 (67.53, 0.61x), 0.0401 ms
/// on the 1x1 layer (81.91, 1.75x).
///
/// **Recorded again (commit c36a0f9f2e57), and short on 56x56.** v07 ran as before (0.0449 ms on
/// 56x56, 0.0257 on 28x28), but cuDNN's NHWC IMPLICIT_PRECOMP_GEMM ran 56x56 in 0.0279 ms
/// (265 TFLOP/s) where the run before had it at a median of 0.0532 ms with a minimum of 0.0284:
/// the same algorithm, bimodal timings, and the fast mode is cuDNN's real speed (PyTorch's NHWC
/// bf16 in the same call: 0.0290 ms). So v07 is at **0.62x cuDNN on 56x56** (target 0.8x), 1.05x
/// on 28x28, 1.67x on 14x14 and 3.21x on the 1x1 layer. What is missing is v07's own speed: 165
/// TFLOP/s with mma.sync, one fifth of the H100's dense bf16 peak; a wgmma step is next.
void launch_conv2d_v07_mma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               __nv_bfloat16* y, cudaStream_t stream) {
  require_valid(s, "v07_mma_bf16_nhwc");
  const std::string why = supports_v07(s);
  if (!why.empty()) throw std::invalid_argument("v07_mma_bf16_nhwc: " + why);
  require_16_byte_aligned(x, w, "v07_mma_bf16_nhwc");
  const std::int64_t big_tiles = (s.n * s.p() * s.q() + 127) / 128 * ((s.k + BN - 1) / BN);
  if (big_tiles >= 3LL * sm_count()) {
    launch_v07<128>(s, x, w, y, stream);
  } else {
    launch_v07<64>(s, x, w, y, stream);
  }
}

}  // namespace conv2d
