/// @file
/// @brief v08: v07's implicit GEMM with Hopper's warpgroup MMA (wgmma, sm_90a) reading both
/// operands straight from 128-byte-swizzled shared memory, fed by v07's 4-stage cp.async pipeline
/// (NHWC, KRSC, bf16 in, fp32 accumulate, bf16 out; C % 64 == 0).
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/hopper_ptx.cuh"
#include "common/launch.hpp"
#include "conv2d.hpp"
#include "conv2d_device.cuh"

namespace conv2d {

namespace {

constexpr int kBN = 64;            // output channels per block: the wgmma's n
constexpr int kBK = 64;            // reduction slice: 64 bf16 = 128 bytes per row, one swizzle row
constexpr int kStages = 4;         // slices resident in shared memory
constexpr int kRowBytes = kBK * 2; // bytes of one tile row (one output pixel's or one filter's slice)
static_assert(kRowBytes == 128, "the rows are those of swizzle128() (conv2d_device.cuh)");

}  // namespace

/// @brief Y (N P Q x K, bf16) = A B^T with wgmma: kGroups warpgroups, each computing 64 rows x
/// 64 channels with m64n64k16 from shared memory; A's tiles gathered from the NHWC input on the
/// fly (implicit im2col), B's rows are the KRSC filters.
///
///     block tile   BM = 64 kGroups rows (output pixels) x 64 columns (output channels)
///     slice        64 reduction positions = 64 channels of one filter tap (r, s)   (C % 64 == 0)
///     stage        A: BM rows x 128 B | B: 64 rows x 128 B, both 128-byte swizzled   (kStages of them)
///     warpgroup g  rows [64 g, 64 g + 64) of the block tile: 4 wgmma m64n64k16 per slice
///
/// The pipeline is v07's: kStages - 1 slices in flight; the only new thing is who reads the tiles.
// [kernel]
template <int kGroups>
__global__ void __launch_bounds__(128 * kGroups, kGroups == 2 ? 2 : 3)
    conv2d_v08_wgmma_bf16(Dims d, const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                         __nv_bfloat16* __restrict__ y) {
#if TUT_SM90A
  using namespace tut::sm90;
  using namespace tut::sm80;  // cp.async (common/ampere_ptx.cuh)
  constexpr int BM = 64 * kGroups, kThreads = 128 * kGroups;
  constexpr int kABytes = BM * kRowBytes, kStageBytes = kABytes + kBN * kRowBytes;
  constexpr int kRowsPerPass = kThreads / 8;  // 8 threads copy one 128-byte row (8 chunks of 16 B)
  constexpr int kARows = BM / kRowsPerPass, kBRows = kBN / kRowsPerPass;  // rows per thread: 4 and 4 / kGroups
  static_assert(kRowsPerPass % 8 == 0, "v08: a thread's rows must share their swizzle (row % 8)");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // kStages x [ A (BM x 128 B) | B (64 x 128 B) ], swizzled
  const int t = threadIdx.x, group = t / 128, warp = t / 32 % 4, lane = t % 32;
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, m_total = d.n * pq;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.x) * BM;
  const int col0 = blockIdx.y * kBN;
  const std::int64_t L = static_cast<std::int64_t>(d.r) * d.s * d.c;
  const int slices = static_cast<int>(L / kBK);

  // Loader state: this thread copies chunk t % 8 (8 channels) of tile rows t / 8 + kRowsPerPass i,
  // always to the same swizzled place in them (their row % 8 is the same).
  const int chunk = t % 8, dst = swizzle128(t / 8, chunk);
  const __nv_bfloat16* pixel[kARows];  // image of row i (its NHWC base)
  int h0[kARows], w0[kARows];          // its window's top-left corner (h0 far outside: row past M)
#pragma unroll
  for (int i = 0; i < kARows; ++i) {
    const std::int64_t m = row0 + t / 8 + i * kRowsPerPass;
    const bool inside = m < m_total;
    const std::int64_t n = m / pq, pix = m % pq;
    pixel[i] = x + (inside ? n : 0) * d.h * d.w * d.c;
    h0[i] = inside ? static_cast<int>(pix / d.q) * d.stride_h - d.pad_h : INT_MIN / 2;
    w0[i] = static_cast<int>(pix % d.q) * d.stride_w - d.pad_w;
  }
  const __nv_bfloat16* filter[kBRows];  // filter row i at this thread's 8 channels, or null past K
#pragma unroll
  for (int i = 0; i < kBRows; ++i) {
    const int k = col0 + t / 8 + i * kRowsPerPass;
    filter[i] = k < d.k ? w + k * L + chunk * 8 : nullptr;
  }
  int r = 0, s = 0, c = chunk * 8;  // the next slice's tap (r, s) and this thread's channel in it
  std::int64_t l0 = 0;              // the next slice's first reduction position

  const auto issue = [&](int stage) {  // the next slice into `stage`; then advance one slice
    unsigned char* As = smem + stage * kStageBytes;
    unsigned char* Bs = As + kABytes;
#pragma unroll
    for (int i = 0; i < kARows; ++i) {  // A: pixel (h, wc) of the tap, or zeros outside the image
      const int h = h0[i] + r, wc = w0[i] + s;
      const bool ok = static_cast<unsigned>(h) < static_cast<unsigned>(d.h) &&
                      static_cast<unsigned>(wc) < static_cast<unsigned>(d.w);
      cp_async_16(As + dst + i * kRowsPerPass * kRowBytes,
                  ok ? pixel[i] + (static_cast<std::int64_t>(h) * d.w + wc) * d.c + c : x, ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < kBRows; ++i) {  // B: filter row, contiguous in l (KRSC), or zeros past K
      cp_async_16(Bs + dst + i * kRowsPerPass * kRowBytes, filter[i] != nullptr ? filter[i] + l0 : w,
                  filter[i] != nullptr ? 16 : 0);
    }
    l0 += kBK;
    c += kBK;
    if (c >= d.c) {  // C % 64 == 0: the slice ended a tap; the next starts the next tap at channel 0
      c -= d.c;
      if (++s == d.s) s = 0, ++r;
    }
  };

  float acc[32];  // this warpgroup's 64 x 64 accumulators (layout: common/hopper_ptx.cuh)
#pragma unroll
  for (int e = 0; e < 32; ++e) acc[e] = 0.0f;

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {  // prologue: slices 0 .. kStages - 2 in flight
    if (i < slices) issue(i);
    cp_async_commit();
  }
  for (int i = 0; i < slices; ++i) {
    cp_async_wait<kStages - 2>();  // my copies of slice i have landed ...
    fence_proxy_async();           // ... are visible to the async proxy, through which wgmma reads ...
    __syncthreads();               // ... and so are everyone's; nobody reads slice i - 1's stage any more
    if (i + kStages - 1 < slices) issue((i + kStages - 1) % kStages);
    cp_async_commit();
    const unsigned char* stage = smem + (i % kStages) * kStageBytes;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {  // 4 k16 steps: 32 bytes further into every row
      // K-major operands, 128-byte swizzle: SBO = 1024 (8-row groups), LBO unused (16 by convention).
      const std::uint64_t desc_a = smem_desc(stage + group * 64 * kRowBytes + kk * 32, 16, 1024);
      const std::uint64_t desc_b = smem_desc(stage + kABytes + kk * 32, 16, 1024);
      wgmma_m64n64k16_ss<0>(acc, desc_a, desc_b, 1);  // B K-major (rows of B^T: the filters)
    }
    wgmma_commit();
    wgmma_wait<0>();  // done reading this stage before the next barrier lets it be refilled
  }
  cp_async_wait<0>();
  keep_in_registers(acc);

  // Epilogue: lane (g, q4) = (lane / 4, lane % 4) of warp `warp` holds, per 8 columns j, rows
  // 16 warp + g and + 8, columns 8 j + 2 q4 and + 1: one 4-byte bf16 pair per row and j.
  const bool pairs = d.k % 2 == 0 && reinterpret_cast<std::uintptr_t>(y) % 4 == 0;
  const int g = lane / 4, q4 = lane % 4;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t m = row0 + group * 64 + warp * 16 + g + half * 8;
    if (m >= m_total) continue;
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
      const int k = col0 + 8 * j + 2 * q4;
      store_bf16_pair(y + m * d.k + k, k, d.k, acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1], pairs);
    }
  }
#else
  (void)d, (void)x, (void)w, (void)y;
  __trap();  // wgmma needs sm_90a: supports_v08() keeps the runner from launching this elsewhere
#endif
}
// [kernel]

std::string supports_v08(const ConvShape& s) {
  if (s.c % 64 != 0) return "needs C % 64 == 0 (a slice is 64 channels of one filter tap: one 128-byte row)";
  return tut::sm90::unavailable();
}

namespace {

template <int kGroups>
void launch_v08(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
               cudaStream_t stream) {
  constexpr int BM = 64 * kGroups;
  constexpr int smem = 1024 + kStages * (BM + kBN) * kRowBytes;  // + 1024: room to align the tiles
  tut::allow_dynamic_smem(conv2d_v08_wgmma_bf16<kGroups>, smem);  // once per kernel, outside the timed runs
  const std::int64_t tiles_m = (s.n * s.p() * s.q() + BM - 1) / BM, tiles_n = (s.k + kBN - 1) / kBN;
  if (tiles_m > INT_MAX || tiles_n > 65535) throw std::invalid_argument("v08_wgmma_bf16_nhwc: the grid is too large");
  conv2d_v08_wgmma_bf16<kGroups><<<dim3(static_cast<unsigned>(tiles_m), static_cast<unsigned>(tiles_n)),
                                  128 * kGroups, smem, stream>>>(dims_of(s), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

/// @brief v08: implicit GEMM with Hopper's wgmma (bf16, sm_90a).
///
/// **Idea.** Hopper's tensor cores are fed by a warpgroup instruction: `wgmma.mma_async`
/// multiplies a 64 x 16 tile of A by a 16 x 64 tile of B (m64n64k16: 131072 FLOPs, 32 times an
/// mma.sync m16n8k16) and reads both operands *from shared memory itself*, through a 64-bit
/// descriptor (start address, row-group stride, swizzle mode), asynchronously. No `ldmatrix`, no
/// operand registers: the warps only issue, commit and wait. The tiles must be stored in a
/// layout the descriptor names: rows of 128 bytes with the 128-byte swizzle (16-byte chunk j of
/// row r at chunk j ^ (r % 8)), which is why a slice is 64 bf16 channels of one filter tap and
/// v08 needs C % 64 == 0 (the stem and the 6-channel image are skipped with that reason).
///
/// **Changed since v07.** The multiply: 4 wgmma m64n64k16 per warpgroup and 64-wide slice where
/// v07 had 12 ldmatrix.x4 and 32 mma.sync per warp and 32-wide slice. Around it, what wgmma needs:
/// slices of 64 channels in the 128-byte swizzle (v07: 32 channels in its own 64-byte swizzle),
/// tiles 1024-byte aligned, a `fence.proxy.async` after each thread's cp.async have landed
/// (cp.async writes through the generic proxy, wgmma reads through the async one), and
/// warpgroups: blocks of 2 warpgroups (128 x 64 outputs) where that gives every SM two blocks,
/// else of one (64 x 64). The loader and the 4-stage cp.async pipeline are v07's.
///
/// **What is still wrong.** Each warpgroup waits for its wgmma before the next barrier (a
/// second stage of wgmma in flight would overlap them with the next slice's wait); the loads
/// still cost every thread address arithmetic and 16-byte copies, where TMA (with its im2col
/// mode) would bring a whole tile with one instruction; m64n64 reads 4 KB of shared memory per
/// 131072 FLOPs, at the limit of shared-memory bandwidth (n = 128 would read a quarter less, but
/// K = 64 on the 56x56 layer); the epilogue still writes 4-byte pairs from the accumulators.
///
/// **Predicted.** v07 (165 TFLOP/s on 56x56) is bound by latency and instruction issue, not by
/// the tensor cores (the layer's 7.4 GFLOP take 7.5 us at the H100's dense bf16 rate) nor yet by
/// bytes (its 173 MB of tile loads from L2, 128-row tiles of A and 64 filters per block, took
/// 0.045 ms: 3.9 TB/s). For a 128 x 64 tile and 64 reduction positions v07's warps issue 352
/// ldmatrix and mma.sync, v08's 32 wgmma, and a barrier comes every 64 positions instead of
/// every 32: the loader and the barriers are what is left. Prediction: 0.026-0.035 ms on N32 C64
/// 56x56 (210-285 TFLOP/s, 0.8-1.07x cuDNN's 0.028 ms), the slow end if the same 173 MB from
/// L2 (5-6.5 TB/s at those times) become the limit; 0.017-0.024 ms on N16 C128 28x28 (one wave
/// of 392 one-warpgroup blocks, 18 slices each; 1.1-1.5x cuDNN's 0.027 ms); on the 1x1 layer
/// (4 slices per block: prologue and epilogue dominate) about v07's 0.041 ms.
///
/// **Measured (H100, recorded table, commit dd1dfd4ebd4e).** 0.0426 ms on 56x56 (174 TFLOP/s,
/// 1.06x v07: the prediction missed), 0.0217 on 28x28, 0.0206 on 14x14, 0.0385 on the 1x1 layer;
/// correct at its first run. ncu on 56x56: 17.1 million warp instructions and the tensor pipe
/// busy 21% of the time, where cuDNN's sm90 kernel issues the same 225,792 wgmma with 7.4
/// million and keeps it busy 37%. A variant that waited for all its copies every slice was only
/// 3% slower, one without the proxy fence no faster: not memory, not the fence, but the integer
/// work of warps that copy and multiply. v09 cuts it.
/// Recorded run (H100, git 0b3832529293): 0.0417 ms on N32 C64 56x56 (177.44 TFLOP/s, 1.07x v07, 0.65x cuDNN's fastest
/// bf16 row, 0.0271 ms), 0.0211 ms on 28x28 (0.75x), 0.0199 ms on 14x14 (0.83x), 0.0382 ms on the 1x1 layer (1.84x).
void launch_conv2d_v08_wgmma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                 __nv_bfloat16* y, cudaStream_t stream) {
  require_valid(s, "v08_wgmma_bf16_nhwc");
  const std::string why = supports_v08(s);
  if (!why.empty()) throw std::invalid_argument("v08_wgmma_bf16_nhwc: " + why);
  require_16_byte_aligned(x, w, "v08_wgmma_bf16_nhwc");
  const std::int64_t big_tiles = (s.n * s.p() * s.q() + 127) / 128 * ((s.k + kBN - 1) / kBN);
  if (big_tiles >= 2LL * sm_count()) {
    launch_v08<2>(s, x, w, y, stream);  // 128 x 64 tiles, 2 blocks of 256 threads per SM
  } else {
    launch_v08<1>(s, x, w, y, stream);  // 64 x 64 tiles, 3 blocks of 128 threads per SM
  }
}

}  // namespace conv2d
