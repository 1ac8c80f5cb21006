/// @file
/// @brief The TMA implicit GEMM of v11 and v12 (sm_90a): an im2col tensor map for the input, a
/// tiled map for the filters, one producer warp and an mbarrier ring feeding one consumer
/// warpgroup, and (v12) the output through shared memory and a TMA store.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/hopper_ptx.cuh"
#include "common/launch.hpp"
#include "common/tensor_map.hpp"
#include "conv2d.hpp"
#include "conv2d_device.cuh"

namespace conv2d {

/// The block of the TMA implicit GEMM: one consumer warpgroup and one producer warp; tiles of 64
/// output pixels x 64 output channels, slices of 64 channels of one filter tap, kStages of them
/// in shared memory (4: three blocks per SM), and with kStoreByTma (v12) a staged output tile.
template <bool kStoreByTma>
struct TmaConvTiles {
  static constexpr int kBM = 64;                         ///< output pixels per tile: the wgmma's m
  static constexpr int kBN = 64;                         ///< output channels per tile: the wgmma's n
  static constexpr int kBK = 64;                         ///< slice: 64 channels of one tap, one 128-byte row
  static constexpr int kStages = 4;                      ///< slices in shared memory
  static constexpr int kConsumers = 128;                 ///< one warpgroup multiplies and stores
  static constexpr int kThreads = kConsumers + 32;       ///< and one producer warp loads
  static constexpr int kTileBytes = kBM * kBK * 2;       ///< a slice of A or of B: 64 rows of 128 bytes
  static constexpr int kStageBytes = 2 * kTileBytes;     ///< A's and B's, each on a 1024-byte boundary
  static constexpr int kOutBytes = kStoreByTma ? kBM * kBN * 2 : 0;  ///< v12: the staged output tile
  /// + alignment; the stages; the output tile; a full and an empty barrier per stage
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kOutBytes + 2 * kStages * 8;
};

/// @brief Y (N P Q x K, bf16) = A B^T with A's and B's slices brought by TMA: warps 0-3 multiply
/// (v09's tile and wgmma), warp 4 loads; persistent grid, tiles ordered as in v09; the epilogue
/// v09's (v11) or through shared memory and a TMA store (v12, kStoreByTma).
///
///     producer  lane 0 of warp 4 walks the block's tiles and their slices in the
///               consumers' order; per slice: wait until the stage is empty, announce its bytes
///               on the stage's full barrier, one im2col load of A (64 pixels x 64 channels of
///               tap (r, s), starting at the tile's first output pixel) and one tiled load of B
///               (64 filters x 64 of their R S C values)
///     consumers per slice: wait for the stage's full barrier, 4 wgmma m64n64k16, wait for
///               them, release the stage (one arrival per warp on its empty barrier)
template <bool kStoreByTma>
__global__ void __launch_bounds__(TmaConvTiles<kStoreByTma>::kThreads)
    conv2d_tma_im2col_bf16(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                           const __grid_constant__ CUtensorMap map_y, Dims d, __nv_bfloat16* __restrict__ y) {
#if TUT_SM90A
  using namespace tut::sm90;
  using T = TmaConvTiles<kStoreByTma>;
  constexpr int kStages = T::kStages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // kStages x [ A (64 x 128 B) | B (64 x 128 B) ], swizzled by TMA
  unsigned char* staged = smem + kStages * T::kStageBytes;  // v12: the output tile, for its TMA store
  auto* full = reinterpret_cast<std::uint64_t*>(staged + T::kOutBytes);  // a stage's bytes landed
  std::uint64_t* empty = full + kStages;                                           // a stage's wgmma are done
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const std::int64_t pq = static_cast<std::int64_t>(d.p) * d.q, m_total = d.n * pq;
  const int tiles_m = static_cast<int>((m_total + T::kBM - 1) / T::kBM), tiles = tiles_m * ((d.k + T::kBN - 1) / T::kBN);
  const int slices = d.r * d.s * (d.c / T::kBK);

  if (t == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&full[i], 1);                   // the producer's arrive.expect_tx, then the bytes
      mbar_init(&empty[i], T::kConsumers / 32);  // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  // [producer]
  if (warp == T::kConsumers / 32) {  // the producer warp: one lane issues every load of the block
    if (lane == 0) {
      int fill = 0;  // slices issued so far: stage fill % kStages, its round fill / kStages
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // The tile's first output pixel (n, p, q): the im2col walk starts at its window's top-left
        // input pixel and goes on through the tile's next output pixels, row after row and image
        // after image, as the map's bounding box says (make_tma_conv_maps()).
        const std::int64_t m0 = static_cast<std::int64_t>(tile % tiles_m) * T::kBM;
        const int n = static_cast<int>(m0 / pq), pix = static_cast<int>(m0 % pq);
        const int h0 = pix / d.q * d.stride_h - d.pad_h, w0 = pix % d.q * d.stride_w - d.pad_w;
        const int col0 = tile / tiles_m * T::kBN;
        for (int r = 0; r < d.r; ++r) {
          for (int s = 0; s < d.s; ++s) {
            for (int c0 = 0; c0 < d.c; c0 += T::kBK, ++fill) {
              const int stage = fill % kStages;
              if (fill >= kStages) mbar_wait(&empty[stage], (fill / kStages - 1) & 1);  // its last round is read
              unsigned char* a = smem + stage * T::kStageBytes;
              mbar_arrive_expect_tx(&full[stage], T::kStageBytes);
              tma_load_im2col(a, &map_x, c0, w0, h0, n, static_cast<std::uint16_t>(s), static_cast<std::uint16_t>(r),
                              &full[stage]);
              tma_load(a + T::kTileBytes, &map_w, (r * d.s + s) * d.c + c0, col0, &full[stage]);
            }
          }
        }
      }
    }
    return;  // nothing below waits for this warp: no block-wide barrier follows
  }
  // [producer]

  // The consumers. K-major operands, 128-byte swizzle (as in v08 and v09, now written by TMA);
  // built once: a stage is kStageBytes / 16 further in the address field, a k16 step 32 / 16 = 2.
  const std::uint64_t desc_a = smem_desc(smem, 16, 1024), desc_b = smem_desc(smem + T::kTileBytes, 16, 1024);
  float acc[32];  // the warpgroup's 64 x 64 accumulators (layout: common/hopper_ptx.cuh)
#pragma unroll
  for (int e = 0; e < 32; ++e) acc[e] = 0.0f;  // once: each tile's first wgmma overwrites them
  int fill = 0;
  // [consumer]
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    for (int slice = 0; slice < slices; ++slice, ++fill) {
      const int stage = fill % kStages;
      mbar_wait(&full[stage], (fill / kStages) & 1);
      wgmma_fence();
      const std::uint64_t at = static_cast<std::uint64_t>(stage * T::kStageBytes) >> 4;
#pragma unroll
      for (int kk = 0; kk < T::kBK / 16; ++kk) {  // scale_d 0: a tile's first product overwrites
        wgmma_m64n64k16_ss<0>(acc, desc_a + at + 2 * kk, desc_b + at + 2 * kk, slice > 0 || kk > 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
      __syncwarp();  // every lane of the warp is past its wait: the warp no longer reads the stage
      if (lane == 0) mbar_arrive(&empty[stage]);
    }
    // [consumer]

    // The epilogue. Lane (g, q4) = (lane / 4, lane % 4) of warp `warp` holds, per 8 columns j,
    // rows 16 warp + g and + 8, columns 8 j + 2 q4 and + 1. The next tile's slices are landing.
    keep_in_registers(acc);
    const std::int64_t row0 = static_cast<std::int64_t>(tile % tiles_m) * T::kBM;
    const int col0 = tile / tiles_m * T::kBN;
    // [tma_store]
    if constexpr (kStoreByTma) {
      // v12: the 64 x 64 tile through shared memory, in the 128-byte swizzle (the 8 rows a store
      // instruction writes land in 8 different 16-byte chunks: no bank conflict), then one TMA
      // store, which writes whole lines and clips what lies past M or K; the warps go on at once.
      const bool leader = t == 0;
      if (leader) bulk_wait_read<0>();  // the last tile's store has read the staged tile ...
      named_barrier_sync(1, T::kConsumers);  // ... and every consumer knows it (barrier 1: not the producer)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = warp * 16 + lane / 4 + half * 8;
#pragma unroll
        for (int j = 0; j < T::kBN / 8; ++j) {
          *reinterpret_cast<__nv_bfloat162*>(staged + swizzle128(row, j) + 4 * (lane % 4)) =
              __floats2bfloat162_rn(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      }
      fence_proxy_async();                   // my st.shared before the TMA unit reads them ...
      named_barrier_sync(1, T::kConsumers);  // ... and everyone's
      if (leader) {
        tma_store(&map_y, col0, static_cast<int>(row0), staged);
        bulk_commit();
      }
      // [tma_store]
    } else {  // v09's: bf16 pairs from the registers
      store_tile_bf16(acc, y, row0, col0, m_total, d.k, warp, lane);
    }
  }
  if constexpr (kStoreByTma) {
    if (t == 0) bulk_wait_all();  // the block's shared memory must outlive its last store
  }
#else
  (void)map_x, (void)map_w, (void)map_y, (void)d, (void)y;
  __trap();  // TMA and wgmma need sm_90a: supports_v11() keeps the runner from launching this elsewhere
#endif
}

/// The tensor maps of the TMA implicit GEMM.
struct TmaConvMaps {
  CUtensorMap x;  ///< im2col map of the input: loads of 64 pixels x 64 channels
  CUtensorMap w;  ///< tiled map of the filters (K x R S C): 64 x 64 boxes
  CUtensorMap y;  ///< tiled map of the output (N P Q x K): 64 x 64 boxes (v12's stores; else unused)
};

/// Builds the maps, and y's when `y` is not null (implemented in v11_tma_im2col_bf16_nhwc.cu).
TmaConvMaps make_tma_conv_maps(const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               const __nv_bfloat16* y);

/// "" if v12 can store y with TMA (K % 8 == 0 and y 16-byte aligned: a tensor map's rows and base;
/// N P Q below 2^31: int coordinates), else why not (v12 then stores as v11 does).
std::string tma_store_unavailable(const ConvShape& s, const void* y);

/// Launches conv2d_tma_im2col_bf16<kStoreByTma> on a persistent grid (as many blocks as fit,
/// at most one per tile); `who` names the version in errors. The caller checked supports_v11().
template <bool kStoreByTma>
void launch_tma_conv(const char* who, const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                     __nv_bfloat16* y, cudaStream_t stream) {
  using T = TmaConvTiles<kStoreByTma>;
  require_16_byte_aligned(x, w, who);  // a tensor map's base: 16-byte aligned
  const std::int64_t tiles = (s.n * s.p() * s.q() + T::kBM - 1) / T::kBM * ((s.k + T::kBN - 1) / T::kBN);
  if (tiles > INT_MAX) throw std::invalid_argument(std::string(who) + ": too many tiles for an int");
  const TmaConvMaps maps = make_tma_conv_maps(s, x, w, kStoreByTma ? y : nullptr);
  const auto kernel = conv2d_tma_im2col_bf16<kStoreByTma>;
  tut::allow_dynamic_smem(kernel, T::kSmemBytes);  // once, outside the timed runs
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T::kThreads, T::kSmemBytes));
  const std::int64_t grid = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(std::max(per_sm, 1)) * sm_count());
  kernel<<<static_cast<unsigned>(grid), T::kThreads, T::kSmemBytes, stream>>>(maps.x, maps.w, maps.y, dims_of(s), y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace conv2d
