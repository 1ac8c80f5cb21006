/// @file
/// @brief v09: v08's wgmma implicit GEMM with less integer work around it: a loader with one
/// corner pointer per row and one offset per slice, descriptors built once, 32-bit divisions in
/// the tile setup, and a persistent grid whose slices run on from one tile into the next (NHWC,
/// KRSC, bf16 in, fp32 accumulate, bf16 out; C % 64 == 0, sm_90a).
#include <algorithm>
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

constexpr int kBM = 64;             // output pixels per tile: the wgmma's m (one warpgroup)
constexpr int kBN = 64;             // output channels per tile: the wgmma's n
constexpr int kBK = 64;             // reduction slice: 64 channels of one tap, one 128-byte row
constexpr int kStages = 4;          // slices resident in shared memory
constexpr int kThreads = 128;       // one warpgroup: it copies and it multiplies
constexpr int kRowBytes = kBK * 2;  // bytes of one tile row
static_assert(kRowBytes == 128, "the rows are those of swizzle128() (conv2d_device.cuh)");
constexpr int kABytes = kBM * kRowBytes, kStageBytes = kABytes + kBN * kRowBytes;
constexpr int kRowsPerPass = kThreads / 8;  // 8 threads copy one row (8 chunks of 16 bytes)
constexpr int kARows = kBM / kRowsPerPass;  // rows of A per thread and slice (4)
constexpr int kBRows = kBN / kRowsPerPass;  // rows of B per thread and slice (4)
constexpr int kSmemBytes = 1024 + kStages * kStageBytes;  // + 1024: room to align the tiles
static_assert(kARows * kRowsPerPass == kBM && kBRows * kRowsPerPass == kBN, "the copies split evenly");
static_assert(kRowsPerPass % 8 == 0, "a thread's rows must share their swizzle (row % 8)");

}  // namespace

/// @brief Y (N P Q x K, bf16) = A B^T, one warpgroup per block, 64 x 64 tiles, persistent.
///
///     grid     as many blocks as fit on the GPU (3 per SM on an H100); block b computes tiles
///              b, b + gridDim.x, ... (m-tiles fastest), and its slices form one stream: the
///              loads of the next tile are in flight during the last slices of this one and
///              during its epilogue
///     tile     64 output pixels x 64 output channels: 4 wgmma m64n64k16 per 64-wide slice
///     loader   per row: a pointer to its window's top-left input pixel (tap (0, 0)), and the
///              window's corner (hs, ws) for the bounds; per slice, one offset shared by all
///              rows, tap = (r W + s) C + c0: the address of row i is corner[i] + tap
// [kernel]
__global__ void __launch_bounds__(kThreads)
    conv2d_v09_lean_wgmma_bf16(Dims d, const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                              __nv_bfloat16* __restrict__ y) {
#if TUT_SM90A
  using namespace tut::sm90;
  using namespace tut::sm80;  // cp.async (common/ampere_ptx.cuh)
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // kStages x [ A (64 x 128 B) | B (64 x 128 B) ], swizzled
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, chunk = t % 8;
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, m_total = d.n * pq;
  const int tiles_m = static_cast<int>((m_total + kBM - 1) / kBM), tiles = tiles_m * ((d.k + kBN - 1) / kBN);
  const std::int64_t L = static_cast<std::int64_t>(d.r) * d.s * d.c, row_pitch = static_cast<std::int64_t>(d.w) * d.c;
  const int slices = static_cast<int>(L / kBK);
  const int steps = (tiles - static_cast<int>(blockIdx.x) + static_cast<int>(gridDim.x) - 1) / static_cast<int>(gridDim.x) * slices;

  // The loader: this thread copies chunk t % 8 of rows t / 8 + 16 i, always to the same
  // swizzled place (their row % 8 is the same), at shared address dst0 + stage offset.
  const std::uint32_t dst0 = shared_u32(smem) + swizzle128(t / 8, chunk);
  const __nv_bfloat16* corner[kARows];  // x at row i's tap (0, 0), channel 8 chunk
  int hs[kARows], ws[kARows];           // that tap's pixel (hs far outside for rows past M)
  const __nv_bfloat16* filter[kBRows];  // filter row i at channel 8 chunk, or null past K
  int r = 0, s = 0, c0 = 0, load_slice = 0, load_tile = blockIdx.x;
  std::int64_t tap = 0, l0 = 0;  // the next slice's offset from the corners, and its first l

  const auto start_tile = [&](int tile) {  // the rows of `tile`: two divisions per row, once per tile
    const std::int64_t row0 = static_cast<std::int64_t>(tile % tiles_m) * kBM;
    const int col0 = tile / tiles_m * kBN;
#pragma unroll
    for (int i = 0; i < kARows; ++i) {
      const std::int64_t m = row0 + t / 8 + i * kRowsPerPass;
      std::int64_t n;
      unsigned pix;
      if (m_total <= INT_MAX) {  // 32-bit divisions: a few instructions, not a 64-bit routine
        n = static_cast<unsigned>(m) / static_cast<unsigned>(pq);
        pix = static_cast<unsigned>(m) % static_cast<unsigned>(pq);
      } else {
        n = m / pq;
        pix = static_cast<unsigned>(m % pq);
      }
      const int h = static_cast<int>(pix / static_cast<unsigned>(d.q)) * d.stride_h - d.pad_h;
      const int wc = static_cast<int>(pix % static_cast<unsigned>(d.q)) * d.stride_w - d.pad_w;
      const bool inside = m < m_total;
      hs[i] = inside ? h : INT_MIN / 2;
      ws[i] = wc;
      corner[i] = x + ((inside ? n : 0) * d.h + h) * row_pitch + static_cast<std::int64_t>(wc) * d.c + chunk * 8;
    }
#pragma unroll
    for (int i = 0; i < kBRows; ++i) {
      const int k = col0 + t / 8 + i * kRowsPerPass;
      filter[i] = k < d.k ? w + k * L + chunk * 8 : nullptr;
    }
    r = 0, s = 0, c0 = 0, tap = 0, l0 = 0;
  };

  const auto issue = [&](int stage) {  // the next slice of the stream into `stage`
    const std::uint32_t a = dst0 + stage * kStageBytes, b = a + kABytes;
#pragma unroll
    for (int i = 0; i < kARows; ++i) {  // pixel (hs + r, ws + s), or zeros outside the image
      const bool ok = static_cast<unsigned>(hs[i] + r) < static_cast<unsigned>(d.h) &&
                      static_cast<unsigned>(ws[i] + s) < static_cast<unsigned>(d.w);
      cp_async_16(a + i * kRowsPerPass * kRowBytes, ok ? corner[i] + tap : x, ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < kBRows; ++i) {  // filter row, contiguous in l (KRSC), or zeros past K
      cp_async_16(b + i * kRowsPerPass * kRowBytes, filter[i] != nullptr ? filter[i] + l0 : w,
                  filter[i] != nullptr ? 16 : 0);
    }
    l0 += kBK;
    c0 += kBK;
    tap += kBK;
    if (c0 == d.c) {  // the slice ended a tap (C % 64 == 0): the next starts the next tap
      c0 = 0;
      if (++s == d.s) s = 0, ++r;
      tap = r * row_pitch + static_cast<std::int64_t>(s) * d.c;
    }
    if (++load_slice == slices) {  // the tile's last slice: the stream goes on with the next tile
      load_slice = 0;
      load_tile += gridDim.x;
      if (load_tile < tiles) start_tile(load_tile);
    }
  };

  if (load_tile < tiles) start_tile(load_tile);
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {  // prologue: the stream's first kStages - 1 slices in flight
    if (i < steps) issue(i);
    cp_async_commit();
  }
  // K-major operands, 128-byte swizzle (as in v08); built once: a stage is kStageBytes / 16 further
  // in the address field, a k16 step 32 / 16 = 2.
  const std::uint64_t desc_a = smem_desc(smem, 16, 1024), desc_b = smem_desc(smem + kABytes, 16, 1024);
  float acc[32];  // the warpgroup's 64 x 64 accumulators (layout: common/hopper_ptx.cuh)
#pragma unroll
  for (int e = 0; e < 32; ++e) acc[e] = 0.0f;  // once: each tile's first wgmma overwrites them
  int tile = blockIdx.x, slice = 0, stage = 0;
  for (int i = 0; i < steps; ++i) {
    cp_async_wait<kStages - 2>();  // my copies of slice i have landed ...
    fence_proxy_async();           // ... are visible to wgmma's async proxy ...
    __syncthreads();               // ... and so are everyone's; nobody reads slice i - 1's stage any more
    if (i + kStages - 1 < steps) issue((i + kStages - 1) % kStages);
    cp_async_commit();
    wgmma_fence();
    const std::uint64_t at = static_cast<std::uint64_t>(stage * kStageBytes) >> 4;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {  // scale_d 0: a tile's first product overwrites
      wgmma_m64n64k16_ss<0>(acc, desc_a + at + 2 * kk, desc_b + at + 2 * kk, slice > 0 || kk > 0);
    }
    wgmma_commit();
    wgmma_wait<0>();
    stage = stage + 1 == kStages ? 0 : stage + 1;
    if (++slice < slices) continue;

    // The tile is done: lane (g, q4) = (lane / 4, lane % 4) of warp `warp` holds, per 8 columns
    // j, rows 16 warp + g and + 8, columns 8 j + 2 q4 and + 1. The next tile's slices are landing.
    keep_in_registers(acc);
    store_tile_bf16(acc, y, static_cast<std::int64_t>(tile % tiles_m) * kBM, tile / tiles_m * kBN, m_total, d.k, warp,
                    lane);
    slice = 0;
    tile += gridDim.x;
  }
  cp_async_wait<0>();
#else
  (void)d, (void)x, (void)w, (void)y;
  __trap();  // wgmma needs sm_90a: supports_v08() keeps the runner from launching this elsewhere
#endif
}
// [kernel]

/// @brief v09: v08 with less integer work per slice and per tile (bf16, sm_90a).
///
/// **Idea.** Count instructions, not only bytes and FLOPs. ncu on the 56x56 layer: v08 executed
/// 17.6 million warp instructions, cuDNN's kernel (`sm90_xmma_fprop_implicit_gemm_..._tilesize
/// 64x64x64_warpgroupsize1x1x1`) 7.4 million for the same 225,792 wgmma, and its tensor pipe was
/// busy 37% of the time against v08's 20%. v08's warps issue the loads *and* the wgmma, so every
/// integer instruction of the loader, the setup and the epilogue is time the tensor cores wait.
/// Where v08 spent them, per thread: four 64-bit divisions per row at the start of every tile
/// (a 64-bit division is a call of dozens of instructions), a 64-bit (h W + w) C + c per row and
/// slice, and the descriptors rebuilt for every k16 step.
///
/// **Changed since v08.** (1) The loader keeps one pointer per row, to its window's tap (0, 0),
/// and adds an offset that is the same for all rows of a slice, (r W + s) C + c0: per row and
/// slice, two compares and one add. (2) The descriptors are built once; a stage and a k16 step
/// are constants added to them. (3) The tile setup divides in 32 bits when N P Q fits. (4) The
/// grid is persistent: as many blocks as fit (3 of one warpgroup per SM on an H100), each
/// walking tiles b, b + gridDim.x, ... as one stream of slices, so the setup runs once per tile
/// in the loader, the next tile's first slices land during this one's epilogue, and no block
/// waits through a cold prologue after the first. (5) One warpgroup per block, always (64 x 64
/// tiles): with less to issue, three small blocks per SM beat two of 128 x 64 on every shape.
///
/// **Measured while choosing (development runs, H100, medians).** On 56x56: v08 0.0426 ms; (1)-(3)
/// with v08's blocks 0.0364 (two warpgroups) and 0.0377 (one); with (4) 0.0346-0.0353 (one
/// warpgroup) and 0.0362-0.0369 (two); ncu counted 12.3 million instructions for the two-
/// warpgroup persistent kernel. On 28x28 0.0213 -> 0.0180, on 14x14 0.0206 -> 0.0160, on the
/// 1x1 layer 0.0388 -> 0.0342. Measured and dropped, each on v08 first: one wgmma group in
/// flight across the barrier (`wgmma_wait<1>`, loads one slice less ahead: no gain); L1-cached
/// copies (`cp.async.ca`, for the taps' overlap: no gain); deeper pipelines in fewer threads (a
/// persistent block of one warpgroup and 12 stages, like cuDNN's shape: 0.065 ms, the copies
/// need the threads); no `fence.proxy.async` at all (the same time: the fence is not the cost);
/// waiting for *all* copies every slice (only 3% slower: v08 was not waiting for memory).
///
/// **What is still wrong.** The warps that multiply still copy: every slice costs each thread
/// eight cp.async with their address arithmetic, and a barrier. TMA (its im2col mode for the
/// input, a tiled map for the filters) would bring both tiles with two instructions from one
/// thread, and a producer warp would keep the tensor cores fed while the others wait on
/// mbarriers: that is what cuDNN's kernel does (120 blocks of 384 threads, 231 KB of shared
/// memory each).
///
/// **Predicted.** From the instruction counts: cutting the loader and the setup by about a third
/// of v08's instructions should save 15-25%: about 0.033 ms on 56x56. The development runs above
/// measured 0.035.
///
/// **Measured (H100, recorded table, commit dd1dfd4ebd4e).** 0.0351 ms on 56x56 (211 TFLOP/s,
/// 1.21x v08; 0.86x PyTorch's NHWC bf16 in the same call), 0.0180 on 28x28 (0.99x PyTorch),
/// 0.0166 on 14x14, 0.0352 on the 1x1 layer. ncu on 56x56: 12.0 million warp instructions
/// (v08: 17.1), the tensor pipe busy 24% of the time (v08: 21%; cuDNN's kernel: 37%).
/// Recorded run (H100, git 0b3832529293): 0.0347 ms on N32 C64 56x56 (213.39 TFLOP/s, 1.20x v08, 0.78x cuDNN's fastest
/// bf16 row, 0.0271 ms), 0.0178 ms on 28x28 (208.11, 0.90x), 0.0161 ms on 14x14 (114.92, 1.03x), 0.0348 ms on the 1x1
/// layer (94.54, 2.02x).
void launch_conv2d_v09_lean_wgmma_bf16(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                      __nv_bfloat16* y, cudaStream_t stream) {
  require_valid(s, "v09_lean_wgmma_bf16_nhwc");
  const std::string why = supports_v08(s);
  if (!why.empty()) throw std::invalid_argument("v09_lean_wgmma_bf16_nhwc: " + why);
  require_16_byte_aligned(x, w, "v09_lean_wgmma_bf16_nhwc");
  const std::int64_t tiles = (s.n * s.p() * s.q() + kBM - 1) / kBM * ((s.k + kBN - 1) / kBN);
  if (tiles > INT_MAX) throw std::invalid_argument("v09_lean_wgmma_bf16_nhwc: too many tiles for an int");
  const std::int64_t slices = s.c / kBK * s.r * s.s;
  tut::allow_dynamic_smem(conv2d_v09_lean_wgmma_bf16, kSmemBytes);  // once, outside the timed runs
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, conv2d_v09_lean_wgmma_bf16, kThreads, kSmemBytes));
  const std::int64_t grid = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(std::max(per_sm, 1)) * sm_count());
  if ((tiles + grid - 1) / grid * slices > INT_MAX) {
    throw std::invalid_argument("v09_lean_wgmma_bf16_nhwc: too many slices per block for an int");
  }
  conv2d_v09_lean_wgmma_bf16<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, stream>>>(dims_of(s), x, w, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
