/// @file
/// @brief The per-thread work of the tuning search's copies (wide_candidates.cu): B = A with a
/// wide-tile configuration's tiles, threads, accesses and tile order, straight through registers
/// (no shared memory, no barrier). The roof of that configuration: how fast its access pattern
/// can go when nothing is transposed. A host and device function, like the transposes' phases
/// (wide_tile_phases.cuh), so the CPU tests run whole blocks of it on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "tiles.cuh"
#include "wide_tile_phases.cuh"  // WideTileConfig, load_global(), store_global(), TRANSPOSE_UNROLL

namespace transpose {

/// @brief The copy B = A of the tile at (r0, c0) with the configuration's tiles, threads and
/// accesses, straight through registers (no shared memory, no barrier); the part of thread
/// `tid`. Float4 when the configuration reads and writes float4. Tiles of any height, e.g.
/// 1 x 1024 (the access pattern of a plain 1-D copy).
template <class Cfg>
__host__ __device__ __forceinline__ void wide_copy(const float* __restrict__ A, float* __restrict__ B, std::int64_t R,
                                                   std::int64_t C, std::int64_t r0, std::int64_t c0, int tid) {
  constexpr bool kVec = Cfg::kVecRead && Cfg::kVecWrite;
  using Item = typename std::conditional<kVec, float4, float>::type;
  constexpr int kWidth = kVec ? 4 : 1, kPerRow = Cfg::kCols / kWidth;
  constexpr int kItems = Cfg::kRows * kPerRow / Cfg::kThreads;  // per thread
  constexpr int kBatch = kItems < kMaxLoadsInFlight ? kItems : kMaxLoadsInFlight;
  static_assert(Cfg::kCols % 4 == 0 && Cfg::kRows * kPerRow % Cfg::kThreads == 0 && kItems % kBatch == 0,
                "every thread copies the same number of whole float4s");
  static_assert(Cfg::kThreads % kPerRow == 0 || kPerRow % Cfg::kThreads == 0, "wide_step() needs one to divide the other");
  const bool interior = r0 + Cfg::kRows <= R && c0 + Cfg::kCols <= C;
  const TilePos p0 = kVec ? wide_load_vec(tid, Cfg::kCols) : wide_load_scalar(tid, Cfg::kCols);
  const std::int64_t first = (r0 + p0.row) * C + c0 + p0.col;  // this thread's first element, in A and in B
TRANSPOSE_UNROLL
  for (int b = 0; b < kItems; b += kBatch) {
    Item v[kBatch];
TRANSPOSE_UNROLL
    for (int j = 0; j < kBatch; ++j) {  // every load of the batch first ...
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      const bool inside = interior || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C);
      v[j] = inside ? load_global<Cfg::kStreaming>(reinterpret_cast<const Item*>(A + first + d.row * C + d.col))
                    : Item{};
    }
TRANSPOSE_UNROLL
    for (int j = 0; j < kBatch; ++j) {  // ... then every store
      const TilePos d = wide_step(b + j, Cfg::kThreads, kPerRow, kWidth);
      if (interior || (r0 + p0.row + d.row < R && c0 + p0.col + d.col < C)) {
        store_global<Cfg::kStreaming>(reinterpret_cast<Item*>(B + first + d.row * C + d.col), v[j]);
      }
    }
  }
}

}  // namespace transpose
