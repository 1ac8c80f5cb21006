/// @file
/// @brief The TMA implicit GEMM of v11-v14 (sm_90a): an im2col tensor map for the input, a tiled
/// map for the filters, one producer warp and an mbarrier ring feeding one consumer warpgroup
/// (v13: two, v14: three, sharing each filter slice), and (v12-v14) the output through shared
/// memory and TMA stores.
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

/// The block of the TMA implicit GEMM: `kGroups` consumer warpgroups of 64 output pixels each
/// (v11, v12: one; v13: two; v14: three) and one producer warp; tiles of 64 kGroups output pixels
/// x 64 output channels, slices of 64 channels of one filter tap, kStages of them in shared memory,
/// and with kStoreByTma (v12-v14) a staged 64 x 64 output tile per warpgroup.
template <int kGroups, int kStages, bool kStoreByTma>
struct TmaConvTiles {
  static constexpr int kBM = 64 * kGroups;               ///< output pixels per tile: 64 per warpgroup
  static constexpr int kBN = 64;                         ///< output channels per tile: the wgmma's n
  static constexpr int kBK = 64;                         ///< slice: 64 channels of one tap, one 128-byte row
  static constexpr int kConsumers = 128 * kGroups;       ///< the warpgroups that multiply and store
  static constexpr int kThreads = kConsumers + 32;       ///< and one producer warp loads
  static constexpr int kABytes = kBM * kBK * 2;          ///< A's slice: kBM rows of 128 bytes
  static constexpr int kBBytes = kBN * kBK * 2;          ///< B's slice: 64 rows of 128 bytes
  static constexpr int kStageBytes = kABytes + kBBytes;  ///< both, each on a 1024-byte boundary
  static constexpr int kOutBytes = kStoreByTma ? 64 * kBN * 2 : 0;  ///< a warpgroup's staged output tile
  /// + alignment; the stages; the output tiles; a full and an empty barrier per stage
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kGroups * kOutBytes + 2 * kStages * 8;
};

/// @brief Y (N P Q x K, bf16) = A B^T with A's and B's slices brought by TMA: warps 0 to
/// 4 kGroups - 1 multiply (warpgroup g: rows 64 g ... of the tile, v09's wgmma), the last warp
/// loads; persistent grid, tiles ordered as in v09; the epilogue v09's (v11) or through shared
/// memory and a TMA store per warpgroup (v12-v14: kStoreByTma).
///
///     producer  lane 0 of the last warp walks the block's tiles and their slices in the
///               consumers' order; per slice: wait until the stage is empty, announce its bytes
///               on the stage's full barrier, one im2col load of A (kBM pixels x 64 channels of
///               tap (r, s), starting at the tile's first output pixel) and one tiled load of B
///               (64 filters x 64 of their R S C values)
///     consumers per slice: wait for the stage's full barrier, 4 wgmma m64n64k16 on the
///               warpgroup's 64 rows of A and the shared B, wait for them, release the stage (one
///               arrival per warp on its empty barrier)
template <int kGroups, int kStages, bool kStoreByTma>
__global__ void __launch_bounds__(TmaConvTiles<kGroups, kStages, kStoreByTma>::kThreads)
    conv2d_tma_im2col_bf16(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                           const __grid_constant__ CUtensorMap map_y, Dims d, __nv_bfloat16* __restrict__ y) {
#if TUT_SM90A
  using namespace tut::sm90;
  using T = TmaConvTiles<kGroups, kStages, kStoreByTma>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_1024(smem_raw);  // kStages x [ A (kBM x 128 B) | B (64 x 128 B) ], swizzled by TMA
  unsigned char* staged = smem + kStages * T::kStageBytes;  // v12-v14: the output tiles, for the TMA stores
  auto* full = reinterpret_cast<std::uint64_t*>(staged + kGroups * T::kOutBytes);  // a stage's bytes landed
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
              tma_load(a + T::kABytes, &map_w, (r * d.s + s) * d.c + c0, col0, &full[stage]);
            }
          }
        }
      }
    }
    return;  // nothing below waits for this warp: no block-wide barrier follows
  }
  // [producer]

  // The consumers: warpgroup `group` multiplies rows 64 group ... of A's slice by all of B's.
  // K-major operands, 128-byte swizzle (as in v08 and v09, now written by TMA); built once: a
  // stage is kStageBytes / 16 further in the address field, a k16 step 32 / 16 = 2.
  // (With one warpgroup these are constants, and v11's and v12's code is what it was before v13.)
  const int group = kGroups == 1 ? 0 : warp / 4, gw = kGroups == 1 ? warp : warp % 4;  // and the warp in it
  const std::uint64_t desc_a = smem_desc(smem + group * 64 * 128, 16, 1024);
  const std::uint64_t desc_b = smem_desc(smem + T::kABytes, 16, 1024);
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

    // The epilogue. Lane (g, q4) = (lane / 4, lane % 4) of warp gw of the warpgroup holds, per 8
    // columns j, rows 16 gw + g and + 8, columns 8 j + 2 q4 and + 1. The next tile is landing.
    keep_in_registers(acc);
    const std::int64_t row0 = static_cast<std::int64_t>(tile % tiles_m) * T::kBM + group * 64;
    const int col0 = tile / tiles_m * T::kBN;
    // [tma_store]
    if constexpr (kStoreByTma) {
      // v12: the warpgroup's 64 x 64 tile through shared memory, in the 128-byte swizzle (the 8
      // rows a store instruction writes land in 8 different 16-byte chunks: no bank conflict),
      // then one TMA store, which writes whole lines and clips what lies past M or K; the warps
      // go on at once. A named barrier per warpgroup (1, 2, 3; 0 is __syncthreads).
      unsigned char* out = staged + group * T::kOutBytes;
      const auto group_barrier = [group] {  // ids as constants: ptxas then reserves only those
        if (group == 0) {
          named_barrier_sync(1, 128);
        } else if (kGroups < 3 || group == 1) {
          named_barrier_sync(2, 128);
        } else {
          named_barrier_sync(3, 128);
        }
      };
      const bool leader = (kGroups == 1 ? t : t % 128) == 0;  // the warpgroup's first thread
      if (leader) bulk_wait_read<0>();  // the last tile's store has read the staged tile ...
      group_barrier();  // ... and the whole warpgroup knows it
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = gw * 16 + lane / 4 + half * 8;
#pragma unroll
        for (int j = 0; j < T::kBN / 8; ++j) {
          *reinterpret_cast<__nv_bfloat162*>(out + swizzle128(row, j) + 4 * (lane % 4)) =
              __floats2bfloat162_rn(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
        }
      }
      fence_proxy_async();  // my st.shared before the TMA unit reads them ...
      group_barrier();      // ... and everyone's
      if (leader) {
        tma_store(&map_y, col0, static_cast<int>(row0), out);
        bulk_commit();
      }
      // [tma_store]
    } else {  // v09's: bf16 pairs from the registers
      store_tile_bf16(acc, y, row0, col0, m_total, d.k, gw, lane);
    }
  }
  if constexpr (kStoreByTma) {
    if ((kGroups == 1 ? t : t % 128) == 0) bulk_wait_all();  // the block's shared memory must outlive its last stores
  }
#else
  (void)map_x, (void)map_w, (void)map_y, (void)d, (void)y;
  __trap();  // TMA and wgmma need sm_90a: supports_v11() keeps the runner from launching this elsewhere
#endif
}

/// The tensor maps of the TMA implicit GEMM.
struct TmaConvMaps {
  CUtensorMap x;  ///< im2col map of the input: loads of 64 kGroups pixels x 64 channels
  CUtensorMap w;  ///< tiled map of the filters (K x R S C): 64 x 64 boxes
  CUtensorMap y;  ///< tiled map of the output (N P Q x K): 64 x 64 boxes (the stores of v12-v14; else unused)
};

/// Builds the maps, x's for loads of `pixels` pixels and y's when `y` is not null; errors name
/// `who` (implemented in v11_tma_im2col_bf16_nhwc.cu).
TmaConvMaps make_tma_conv_maps(const char* who, const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                               const __nv_bfloat16* y, int pixels);

/// "" if v12 can store y with TMA (K % 8 == 0 and y 16-byte aligned: a tensor map's rows and base;
/// N P Q below 2^31: int coordinates), else why not (v12 then stores as v11 does).
std::string tma_store_unavailable(const ConvShape& s, const void* y);

/// Throws std::invalid_argument naming `who` unless the TMA kernels can run `s` (a valid shape
/// that supports_v11() accepts). launch_tma_conv() calls it first: every launch of v11-v14 goes
/// through it.
void require_tma_conv(const ConvShape& s, const char* who);

/// Launches conv2d_tma_im2col_bf16<kGroups, kStages, kStoreByTma> on a persistent grid (as many
/// blocks as fit, at most one per tile), after require_tma_conv(); `who` names the version in
/// errors.
template <int kGroups, int kStages, bool kStoreByTma>
void launch_tma_conv(const char* who, const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                     __nv_bfloat16* y, cudaStream_t stream) {
  using T = TmaConvTiles<kGroups, kStages, kStoreByTma>;
  require_tma_conv(s, who);
  require_16_byte_aligned(x, w, who);  // a tensor map's base: 16-byte aligned
  const std::int64_t tiles = (s.n * s.p() * s.q() + T::kBM - 1) / T::kBM * ((s.k + T::kBN - 1) / T::kBN);
  if (tiles > INT_MAX) throw std::invalid_argument(std::string(who) + ": too many tiles for an int");
  const TmaConvMaps maps = make_tma_conv_maps(who, s, x, w, kStoreByTma ? y : nullptr, T::kBM);
  const auto kernel = conv2d_tma_im2col_bf16<kGroups, kStages, kStoreByTma>;
  tut::allow_dynamic_smem(kernel, T::kSmemBytes);  // once, outside the timed runs
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T::kThreads, T::kSmemBytes));
  const std::int64_t grid = std::min<std::int64_t>(tiles, static_cast<std::int64_t>(std::max(per_sm, 1)) * sm_count());
  kernel<<<static_cast<unsigned>(grid), T::kThreads, T::kSmemBytes, stream>>>(maps.x, maps.w, maps.y, dims_of(s), y);
  CUDA_CHECK_LAUNCH();
}

// [store_choice]
/// The launch of v12-v14: the output through shared memory and TMA stores where y can take a
/// tensor map, else v11's stores from the registers.
template <int kGroups, int kStages>
void launch_tma_conv_stored(const char* who, const ConvShape& s, const __nv_bfloat16* x, const __nv_bfloat16* w,
                            __nv_bfloat16* y, cudaStream_t stream) {
  if (tma_store_unavailable(s, y).empty()) {
    launch_tma_conv<kGroups, kStages, true>(who, s, x, w, y, stream);
  } else {
    launch_tma_conv<kGroups, kStages, false>(who, s, x, w, y, stream);
  }
}
// [store_choice]

}  // namespace conv2d
