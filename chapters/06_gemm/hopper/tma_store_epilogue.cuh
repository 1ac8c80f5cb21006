/// @file
/// @brief v16's epilogue: a consumer warpgroup's accumulators go to C through swizzled staging
/// boxes in shared memory and TMA stores (store_tile_tma()), instead of straight from the
/// registers (sm90::store_accumulators() in hopper.cuh). Called by the warp-specialized kernel
/// (warp_specialized_kernel.cuh) when its configuration has `tma_store` (v16, v17).
#pragma once

#include <cstdint>

#include "hopper.cuh"

namespace gemm {

#if GEMM_SM90A
/// The epilogue of kTmaStore (v16, v17): one consumer warpgroup's BM / 2 x BN accumulators go to C
/// through shared memory, in boxes of 64 rows x 32 columns. For each box: wait until the TMA
/// store that last used this staging buffer has read it (two boxes alternate), write alpha *
/// acc + beta * C into it in the 128-byte-swizzled order the tensor map expects, fence the
/// writes for the async proxy, and let one thread issue the TMA store. The store clips what lies
/// outside C and runs on while the warpgroup moves on; `boxes` counts the boxes stored so far (which buffer).
/// With kSplitK (v19) the box holds alpha * acc only and the TMA unit adds it to C.
/// The swizzle spreads a warp's float2 writes over all 32 banks, yet ncu counts about 0.7
/// million bank conflicts per 4096^3 run, probably because a 64-bit store is served per
/// half-warp, whose 16 lanes (4 rows) reach only 4 of the 8 bank groups.
// [tma_store]
template <class Cfg>
__device__ __forceinline__ void store_tile_tma(const float (&acc)[Cfg::kMmas][Cfg::BN / 2], const CUtensorMap* map_c,
                                               unsigned char* staging, std::uint32_t& boxes, const float* c, int m,
                                               int n, int row0, int col0, float alpha, float beta, int consumer,
                                               int warp, int lane) {
  using namespace sm90;
  const bool leader = threadIdx.x % 128 == 0;
  const int g = lane / 4, tq = lane % 4;
#pragma unroll
  for (int i = 0; i < Cfg::kMmas; ++i) {
#pragma unroll
    for (int q = 0; q < Cfg::BN / Cfg::kEpiBoxCols; ++q, ++boxes) {
      unsigned char* box = staging + (boxes % 2) * Cfg::kEpiBoxBytes;  // (64, 32) fp32, rows of 128 bytes
      if (leader) bulk_wait_read<1>();        // the store issued from this buffer two boxes ago has read it
      named_barrier_sync(1 + consumer, 128);  // ... and the whole warpgroup knows it
#pragma unroll
      for (int jj = 0; jj < Cfg::kEpiBoxCols / 8; ++jj) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = warp * 16 + g + 8 * h;        // row in the box
          const int j = q * (Cfg::kEpiBoxCols / 8) + jj;  // 8-column group of the accumulators
          float v0 = alpha * acc[i][4 * j + 2 * h], v1 = alpha * acc[i][4 * j + 2 * h + 1];
          const int grow = row0 + 64 * i + r, gcol = col0 + q * Cfg::kEpiBoxCols + 8 * jj + 2 * tq;
          if (!Cfg::kSplitK && beta != 0.0f && grow < m) {  // C is read only when beta != 0, and only inside C
            const float* old = c + static_cast<std::int64_t>(grow) * n + gcol;
            if (gcol < n) v0 = fmaf(alpha, acc[i][4 * j + 2 * h], beta * old[0]);
            if (gcol + 1 < n) v1 = fmaf(alpha, acc[i][4 * j + 2 * h + 1], beta * old[1]);
          }
          // Columns 8 jj + 2 tq, +1 of row r: 16-byte chunk 2 jj + tq / 2 of the row, stored at
          // chunk ^ (r % 8) (the 128-byte swizzle), 8 bytes in when tq is odd.
          const int chunk = (2 * jj + tq / 2) ^ (r % 8);
          *reinterpret_cast<float2*>(box + r * 128 + chunk * 16 + (tq % 2) * 8) = make_float2(v0, v1);
        }
      }
      fence_proxy_async();                    // this thread's writes, visible to the TMA unit ...
      named_barrier_sync(1 + consumer, 128);  // ... everyone's
      if (leader) {
        if constexpr (Cfg::kSplitK) {  // v19: add this block's part; C already holds beta * C
          tma_reduce_add(map_c, col0 + q * Cfg::kEpiBoxCols, row0 + 64 * i, box);
        } else {
          tma_store(map_c, col0 + q * Cfg::kEpiBoxCols, row0 + 64 * i, box);
        }
        bulk_commit();
      }
    }
  }
}
// [tma_store]
#endif

}  // namespace gemm
